"""`table`: a Markdown table whose every cell is a citation of one record.

    {{ table("offload", rows="/cases/*/groups/*", columns=[
        ["GPU layers", "/cases/{0}/placement/gpu_layers"],
        ["Context", "context_tokens", "tokens"],
        ["Decode", "server_decode_tokens_per_second/mean", "tokens/s"],
        {"label": "GPU energy per token", "per": ["resources/gpu_energy/joules", "completed_output_tokens"], "unit": "J/token"},
    ]) }}

`rows` is a pointer whose `*` segments run over every index (or key) there; a column pointer
without a leading `/` is relative to the row, and `{0}`, `{1}`... in an absolute one stand for
the row's `*` positions. A column is `[label, pointer]`, `[label, pointer, unit]`, or a dict
with `label`, one of `value`/`ratio`/`per`/`difference` and an optional `unit`. Rows come in the
record's order, or ordered by `sort="tokens"` (a pointer as a column's; `"-tokens"` descending):
numbers by value, text in natural order (b9 before b10)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchledger.cases.base import natural_key
from benchledger.records.numbers import is_number
from benchledger.records.pointer import parse_pointer, resolve, to_pointer
from site_gen import escape
from site_gen.citations.base import CitationEnv, CitationKind, CitationProblem, describe
from site_gen.citations.derived import Derived, Difference, Per, Ratio
from site_gen.citations.value import Cite, Text
from site_gen.limitations import Limitation

_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
MAX_ROWS = 200
# What a cell can be: a cited value (number or text) or a derived number, by column kind.
_CITE, _TEXT = Cite(), Text()
_DERIVED: dict[str, Derived] = {kind.name: kind for kind in (Ratio(), Per(), Difference())}


class Table(CitationKind):
    name = "table"
    block = True

    def render(self, env: CitationEnv, record: str, rows: str, columns: list, caption: str = "", sort: str = "") -> str:
        rec = env.record(record)
        if not isinstance(columns, list) or not columns:
            raise CitationProblem("columns must be a non-empty list of [label, pointer(, unit)] or dicts")
        specs = [_column(c, i) for i, c in enumerate(columns)]
        row_keys = expand_rows(rec.data, rows)
        if not row_keys:
            raise CitationProblem(f"rows {rows!r} matches nothing in record {record}")
        if sort:
            row_keys = _sorted_rows(rec.data, row_keys, sort)
        lines = [
            "| " + " | ".join(escape.text(s.label) for s in specs) + " |",
            "|" + "|".join("---" for _ in specs) + "|",
        ]
        grid: list[list[tuple[str, list[Limitation], bool]]] = []  # (markup, limitations, counted)
        for row_pointer, stars in row_keys:
            row = []
            for spec in specs:
                kind, pointers, unit = spec.kind, spec.pointers, spec.unit
                resolved = [place(p, row_pointer, stars) for p in pointers]
                if kind == "value":
                    value = env.value(record, resolved[0]).value
                    if isinstance(value, (str, bool)):
                        row.append((*_TEXT.markup(env, record, resolved[0]), False))
                    else:
                        # a run's input (a context length) does not decide the page's common note
                        counted = not env.is_input(record, resolved[0])
                        row.append((*_CITE.markup(env, record, resolved[0], unit=unit or ""), counted))
                else:
                    derived = _DERIVED[kind]
                    unit_shown = unit if unit is not None else derived.default_unit or ""
                    row.append((*derived.markup(env, record, resolved[0], resolved[1], unit_shown), True))
            grid.append(row)
        for row in grid:
            cells = [shown + env.marker(record, limits, counted=counted and "bl-num" in shown) for shown, limits, counted in row]
            lines.append("| " + " | ".join(_UNESCAPED_PIPE.sub("&#124;", c) for c in cells) + " |")
        table = "\n".join(lines)
        if caption:
            if not isinstance(caption, str):
                raise CitationProblem("caption must be text")
            table = f"{table}\n\n<p class=\"bl-caption\">{escape.html(caption)}</p>"
        return table


@dataclass(frozen=True)
class Column:
    """One column of a table citation, as the article wrote it."""

    label: str
    kind: str  # "value", or the name of a derived kind: "ratio", "per", "difference"
    pointers: list[str]  # one for a value, [a, b] for a derived number
    unit: str | None  # None: the kind's default (or none)


def _column(spec: Any, index: int) -> Column:
    where = f"column {index + 1}"
    if isinstance(spec, list) and len(spec) in (2, 3) and all(isinstance(s, str) for s in spec):
        return Column(spec[0], "value", [spec[1]], spec[2] if len(spec) == 3 else None)
    if isinstance(spec, dict) and isinstance(spec.get("label"), str):
        kinds = [k for k in ("value", "ratio", "per", "difference") if k in spec]
        unknown = set(spec) - {"label", "unit", "value", "ratio", "per", "difference"}
        if len(kinds) != 1 or unknown:
            raise CitationProblem(f"{where}: a dict column has 'label', exactly one of value/ratio/per/difference, and optionally 'unit'")
        kind = kinds[0]
        pointers = spec[kind] if kind != "value" else [spec[kind]]
        if not (isinstance(pointers, list) and len(pointers) == (1 if kind == "value" else 2) and all(isinstance(p, str) for p in pointers)):
            raise CitationProblem(f"{where}: {kind} takes {'a pointer' if kind == 'value' else 'two pointers [a, b]'}")
        unit = spec.get("unit")
        if unit is not None and not isinstance(unit, str):
            raise CitationProblem(f"{where}: unit must be text")
        if kind in ("per", "difference") and unit is None:
            raise CitationProblem(f"{where}: {kind} needs a 'unit'")
        return Column(spec["label"], kind, pointers, unit)
    raise CitationProblem(f"{where}: write [label, pointer], [label, pointer, unit] or a dict with label and value/ratio/per/difference")


def _sorted_rows(data: Any, row_keys: list[tuple[str, list[str]]], sort: Any) -> list[tuple[str, list[str]]]:
    """`row_keys` ordered by each row's value at `sort` ("-" first: descending); every row must
    have one, all numbers or all text, or the order would be a guess."""
    if not isinstance(sort, str) or sort in ("", "-"):
        raise CitationProblem(f"sort must be a pointer such as \"tokens\" or \"-tokens\", not {sort!r}")
    descending, pointer = sort.startswith("-"), sort.removeprefix("-")
    values = [resolve(data, place(pointer, row, stars), default=None) for row, stars in row_keys]
    if all(is_number(v) for v in values):
        keys: list[Any] = values
    elif all(isinstance(v, str) for v in values):
        keys = [natural_key(v) for v in values]
    else:
        odd = [(row, v) for (row, _), v in zip(row_keys, values) if not (is_number(v) or isinstance(v, str))]
        found = f"row {odd[0][0]} has {describe(odd[0][1])} there" if odd else "the rows mix numbers and text there"
        raise CitationProblem(f"sort {sort!r}: {found}; every row needs a number there, or every row text")
    order = sorted(range(len(row_keys)), key=lambda i: keys[i], reverse=descending)
    return [row_keys[i] for i in order]


def expand_rows(data: Any, pattern: str) -> list[tuple[str, list[str]]]:
    """(row pointer, the tokens standing for each `*`) for every match of `pattern`."""
    if not isinstance(pattern, str):
        raise CitationProblem(f"rows must be a pointer such as \"/cases/*\", not {pattern!r}")
    try:
        tokens = parse_pointer(pattern)
    except ValueError as err:
        raise CitationProblem(str(err)) from None
    matches: list[tuple[list[str], list[str]]] = [([], [])]
    for token in tokens:
        nxt = []
        for parts, stars in matches:
            node = resolve(data, to_pointer(parts), default=None)
            if token == "*":
                keys = [str(i) for i in range(len(node))] if isinstance(node, list) else list(node) if isinstance(node, dict) else []
                nxt.extend((parts + [k], stars + [k]) for k in keys)
            elif resolve(data, to_pointer(parts + [token]), default=_ABSENT) is not _ABSENT:
                nxt.append((parts + [token], stars))
        if not nxt:
            raise CitationProblem(f"rows {pattern!r}: nothing at {to_pointer(matches[0][0] + [token])}")
        matches = nxt
    if len(matches) > MAX_ROWS:
        raise CitationProblem(f"rows {pattern!r} matches {len(matches)} rows; a table in prose holds at most {MAX_ROWS}")
    return [(to_pointer(parts), stars) for parts, stars in matches]


_ABSENT = object()


def place(pointer: str, row_pointer: str, stars: list[str]) -> str:
    """A column pointer made absolute for one row."""
    if not pointer.startswith("/"):
        return f"{row_pointer}/{pointer}" if pointer else row_pointer
    try:
        return pointer.format(*stars)
    except (IndexError, KeyError, ValueError):
        raise CitationProblem(f"column pointer {pointer!r}: the rows pattern has {len(stars)} '*', so use {{0}}..{{{len(stars) - 1}}}") from None
