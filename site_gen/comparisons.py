"""The site's comparisons: the cases of every record (read once, through the per-kind case tables
of `benchledger.cases`), the one-axis comparisons among them grouped into pages (one per record
kind, identity key and axis), the confounded pairs, and which pages include a given record.

Built once per build (`comparisons_of(site)`, kept in `site.derived`); page kinds (comparison pages, the explorer,
the articles' "compared with" links) read it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from benchledger.cases.base import Case, CaseKind, natural_key
from benchledger.cases.comparison import Comparison, Confounded, find
from benchledger.cases.registry import kind_for
from benchledger.records.digest import short_id

if TYPE_CHECKING:
    from site_gen.context import SiteContext

Key = tuple[tuple[str, str], ...]


def kind_slug(schema: str) -> str:
    """A URL-safe name for a schema: `gsh-llm-core-article/1` -> `gsh-llm-core-article-1`."""
    return re.sub(r"[^a-z0-9]+", "-", schema.lower()).strip("-")


@dataclass(frozen=True)
class ComparisonPage:
    """Everything compared along one axis for one identity key of one kind: one section per
    setting of the other axis fields."""

    kind: CaseKind
    identity: Key
    axis: str
    sections: tuple[Comparison, ...]

    @property
    def path(self) -> str:
        return f"comparisons/{kind_slug(self.kind.schema)}/{self.axis.replace('_', '-')}-{short_id((self.kind.schema, self.identity, self.axis))}.md"

    # Computed once per page (frozen: the sections never change): every article asks for its
    # comparison pages' records and titles, which would otherwise walk every case each time.
    @cached_property
    def values(self) -> list[str]:
        """Every axis value on the page, in natural order (merged over the sections)."""
        return sorted({v for s in self.sections for v in s.values}, key=natural_key)

    @cached_property
    def records(self) -> list[str]:
        return list(dict.fromkeys(sha for s in self.sections for sha in s.records))

    @property
    def subject(self) -> str:
        """What is measured, in words (the kind's subject fields), or the kind's title."""
        values = dict(self.identity)
        words = [values[name] for name in self.kind.subject if name in values]
        return " ".join(words) if words else self.kind.title

    @property
    def link_title(self) -> str:
        """The page as another page links to it: what is compared along what, no values or
        counts, so a record joining the page changes no page that links to it."""
        return f"{self.subject}: {self.kind.field(self.axis).label}"

    @cached_property
    def title(self) -> str:
        values = self.values
        shown = " vs ".join(values[:3]) + (f" and {len(values) - 3} more" if len(values) > 3 else "")
        return f"{self.subject}: {self.kind.field(self.axis).label}, {shown}"


@dataclass
class ComparisonSet:
    """All cases and comparisons of a site, per record kind (in registry order of first sight)."""

    kinds: list[CaseKind] = field(default_factory=list)
    cases: dict[str, list[Case]] = field(default_factory=dict)  # schema -> cases, ledger order
    pages: list[ComparisonPage] = field(default_factory=list)
    confounded: dict[str, list[Confounded]] = field(default_factory=dict)
    uncompared_schemas: list[str] = field(default_factory=list)  # kinds with no case table

    def pages_of_record(self, sha256: str) -> list[ComparisonPage]:
        """The comparison pages that include a case of the record `sha256`."""
        return self._pages_by_record.get(sha256, [])

    @cached_property
    def _pages_by_record(self) -> dict[str, list[ComparisonPage]]:
        # one pass over every page's records, not one per article (that grew as records squared)
        out: dict[str, list[ComparisonPage]] = {}
        for page in self.pages:
            for sha in page.records:
                out.setdefault(sha, []).append(page)
        return out


def comparisons_of(site: "SiteContext") -> ComparisonSet:
    """The site's ComparisonSet, computed on first use and kept for the rest of the build."""
    if "comparisons" not in site.derived:
        site.derived["comparisons"] = comparison_set(site)
    return site.derived["comparisons"]


def comparison_set(site: "SiteContext") -> ComparisonSet:
    """Read every record's cases once and find every comparison (deterministic: ledger order)."""
    out = ComparisonSet()
    for view in site.views:
        kind = kind_for(view.schema)
        if kind is None:
            if view.schema not in out.uncompared_schemas:
                out.uncompared_schemas.append(view.schema)
            continue
        if kind.schema not in out.cases:
            out.kinds.append(kind)
            out.cases[kind.schema] = list(site.cases[kind.schema])  # read once per build (SiteContext.cases)
    for kind in out.kinds:
        found = find(kind, out.cases[kind.schema])
        grouped: dict[tuple[Key, str], list[Comparison]] = {}
        for comp in found.comparisons:
            grouped.setdefault((comp.identity, comp.axis), []).append(comp)
        out.pages.extend(ComparisonPage(kind, identity, axis, tuple(sections)) for (identity, axis), sections in grouped.items())
        out.confounded[kind.schema] = found.confounded
    return out
