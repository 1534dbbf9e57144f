"""The citation-kind interface and what every kind shares: looking up a cited record by its
local name, reading a value by JSON pointer with type checks, and failing with a message that
names the call (the caller adds file and line)."""

from __future__ import annotations

import re
import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from benchledger.cases.registry import kind_for
from benchledger.records.numbers import is_number
from benchledger.records.pointer import parse_pointer, resolve
from site_gen.limitations import Limitation, beside_value, find_limitations, withheld_at
from site_gen.quantity import limitations_marker, misread_unit

if TYPE_CHECKING:
    from benchledger.records.store import SealedRecord
    from site_gen.articles import Article
    from site_gen.context import SiteContext


class CitationProblem(Exception):
    """A citation that cannot be expanded; the message names the reason (not file or line)."""


@dataclass(frozen=True)
class Cited:
    """A value read from a sealed record: where it came from and what it is."""

    name: str  # the article's local name for the record
    record: "SealedRecord"
    pointer: str
    value: Any

    @property
    def sha256(self) -> str:
        return self.record.entry.sha256


@dataclass
class CitationEnv:
    """What a citation may use: the article, its records by local name, and the site."""

    article: "Article"
    records: dict[str, "SealedRecord"]
    site: "SiteContext | None"
    page_path: str = ""  # the article's path in the generated docs (for relative links)
    assets: dict[str, bytes] = field(default_factory=dict)  # files blocks need (chart SVGs)
    charts: int = 0  # charts drawn so far (numbers their ids)
    # Limitations beside cited values, as (record name, limitations, counts toward "common");
    # markers are placeholders until `finish` knows which limitations hold for every number.
    marks: list[tuple[str, list[Limitation], bool]] = field(default_factory=list)
    # After `finish`: the notes the page lists (by text) and what held for every number.
    notes: dict[tuple[str, str], tuple[str, list[Limitation]]] = field(default_factory=dict)
    common: dict[str, list[Limitation]] = field(default_factory=dict)
    _found: dict[str, list[Limitation]] = field(default_factory=dict)
    _inputs: dict[str, set[str]] = field(default_factory=dict)
    # Placeholders carry a random token of this expansion: record or article text cannot hold
    # one (a fixed marker such as NUL 0 NUL could, and was substituted or crashed the build).
    _token: str = field(default_factory=lambda: secrets.token_hex(16))

    def found(self, name: str) -> list[Limitation]:
        """Every limitation of record `name`: the site's (computed once per build) when there is
        a site, else computed once per article."""
        if name not in self._found:
            record = self.records[name]
            self._found[name] = (self.site.view(record.entry.sha256).limitations if self.site is not None
                                 else find_limitations(record.data))
        return self._found[name]

    def is_input(self, name: str, pointer: str) -> bool:
        """Whether `pointer` of record `name` is a run's input (one of its kind's key fields,
        found once per article): not counted when deciding what holds for every number cited
        from the record (the page's common note)."""
        if name not in self._inputs:
            record = self.records[name]
            kind = kind_for(record.entry.schema)
            self._inputs[name] = kind.input_pointers(record.data) if kind is not None else set()
        return pointer in self._inputs[name]

    def applicable(self, cited: "Cited") -> list[Limitation]:
        """Limitations beside a cited value (`limitations.beside_value`)."""
        return beside_value(cited.record.data, cited.pointer, self.found(cited.name), self.is_input(cited.name, cited.pointer))

    def withheld(self, cited: "Cited") -> Limitation | None:
        """The limitation withholding this value when it is a percentile (`p95`, `p95_ms`)."""
        return withheld_at(self.found(cited.name), cited.pointer)

    def marker(self, name: str, limitations: list[Limitation], counted: bool = True) -> str:
        """A placeholder for the one marker beside a value (several would bury the number in
        prose). `counted` values decide which limitations hold for every number of a record."""
        self.marks.append((name, limitations, counted))
        return f"\x00{self._token}:{len(self.marks) - 1}\x00"

    def finish(self, markdown: str) -> str:
        """Replace marker placeholders: a limitation that holds for every number cited from a
        record is said once at the top of the page (`common`), the rest beside each number,
        with its hover listing them and its link going to the page's notes."""
        texts: dict[str, set[str]] = {}
        for name, lims, counted in self.marks:
            if counted:
                mine = {lim.text for lim in lims}
                texts[name] = texts[name] & mine if name in texts else mine
        for name, common in texts.items():
            self.common[name] = self._note(name, [lim for n, lims, _c in self.marks if n == name for lim in lims if lim.text in common])
        rendered = []
        for name, lims, _ in self.marks:
            shown = self._note(name, [lim for lim in lims if lim.text not in texts.get(name, set())])
            rendered.append(limitations_marker(shown))
        return re.sub(f"\x00{self._token}:(\\d+)\x00", lambda m: rendered[int(m.group(1))], markdown)

    def _note(self, name: str, limitations: list[Limitation]) -> list[Limitation]:
        """Record `limitations` as page notes (one per record and wording); unique by text."""
        unique = list({lim.text: lim for lim in limitations}.values())
        for lim in limitations:
            self.notes.setdefault((name, lim.text), (name, []))[1].append(lim)
        return unique

    def record(self, name: object) -> "SealedRecord":
        """The record the article calls `name` in its front matter."""
        if not isinstance(name, str) or name not in self.records:
            known = ", ".join(sorted(self.records)) or "none"
            raise CitationProblem(f"{name!r} is not a record named in this article's front matter (named: {known})")
        return self.records[name]

    def value(self, name: object, pointer: object) -> Cited:
        """The value at `pointer` in record `name`; CitationProblem when there is none."""
        record = self.record(name)
        if not isinstance(pointer, str):
            raise CitationProblem(f"the pointer must be text such as \"/cases/0/id\", not {pointer!r}")
        try:
            parse_pointer(pointer)
        except ValueError as err:
            raise CitationProblem(str(err)) from None
        try:
            value = resolve(record.data, pointer)
        except KeyError as err:
            raise CitationProblem(f"pointer {pointer} does not exist in record {name} ({record.entry.sha256[:12]}…, {record.entry.path}): {err.args[0]}") from None
        return Cited(name, record, pointer, value)

    def number(self, name: object, pointer: object, *, as_cited: bool = False, allow_null: bool = False) -> Cited:
        """Like `value`, but the value must be a number. Only `cite` itself (`as_cited`) may
        take a withheld percentile, which it shows as such: a derived number or a chart must
        not be computed from one. Nulls only where `as_cited` or `allow_null` (a chart skips
        the point)."""
        cited = self.value(name, pointer)
        v = cited.value
        if not as_cited:
            withheld = self.withheld(cited)
            if withheld is not None:
                raise CitationProblem(f"{pointer} in record {name} is withheld ({withheld.text}); it cannot feed a derived number or a chart")
        if v is None and (as_cited or allow_null):
            return cited
        if not is_number(v):
            raise CitationProblem(f"{pointer} in record {name} is {describe(v)}, not a number; cite a number, or use text() for text")
        return cited


def describe(value: Any) -> str:
    """A value's JSON type for messages: 'an object', 'a string ("abc")', 'null'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, dict):
        return f"an object (keys: {', '.join(list(value)[:5])}{', …' if len(value) > 5 else ''})"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "…"
        return f"a string ({shown!r})"
    return f"a number ({value!r})"


def check_unit(unit: str, pointer: str, argument: str = "unit") -> None:
    """Raises CitationProblem where a citation's `argument` (its unit, a chart's y_title) names
    a unit that would show the value at `pointer` under the wrong one (`quantity.misread_unit`)."""
    declared = misread_unit(unit, pointer)
    if declared is not None:
        why = ("a number is rescaled for reading where that fits: 0.048 s shows as 48.0 ms, bytes as KiB, MiB or GiB"
               if argument == "unit" else "the axis shows the values as the record gives them")
        raise CitationProblem(f"{argument} names {unit!r}, but {pointer} is in {declared}, as its field's name says: name "
                              f"{declared!r} instead ({why})")


class CitationKind(ABC):
    """One kind of citation, called as `{{ name(...) }}`. `render` declares the kind's
    parameters after `env`; a call's arguments are bound to them (a wrong call fails the build)."""

    name: ClassVar[str]
    block: ClassVar[bool] = False  # a block must stand alone on its lines

    @abstractmethod
    def render(self, env: CitationEnv, *args: Any, **kwargs: Any) -> str:
        """Markdown (inline HTML for inline kinds) replacing the call."""
