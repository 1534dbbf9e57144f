"""The explorer's data: every point of every case of one record kind as one row (the kind's
explorer columns, then its headline metrics), written once as a script the explorer page loads
(`assets/explore/<kind>.js`), so that no other page repeats it and it works from `file://`
(where a page cannot fetch() a sibling file, but can load a script).

Compact by construction, since it must stay small at 1,000 records: records are listed once
(sha256, path, link) and rows refer to them by index; text cells are indexes into one table of
distinct strings; a number is stored to 6 significant digits with the pointer of its point, the
metric's own pointer (relative to the point) being given once per column. The hover text says
that the stored number is rounded and where the exact one is (record sha256 + pointer)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from benchledger.cases.base import Case, CaseKind, Scope
from site_gen.comparisons import kind_slug
from site_gen.templating import url

if TYPE_CHECKING:
    from site_gen.context import SiteContext

ASSETS_DIR = "assets/explore"
SCRIPT = "assets/explorer.js"
SIGNIFICANT_DIGITS = 6


@dataclass(frozen=True)
class RecordRef:
    """What a row needs of its record: hash, store path, and the link to its article (relative
    to the explorer page, without anchor)."""

    sha256: str
    path: str
    href: str


def data_path(kind: CaseKind) -> str:
    return f"{ASSETS_DIR}/{kind_slug(kind.schema)}.js"


def page_path(kind: CaseKind) -> str:
    return f"explore/{kind_slug(kind.schema)}.md"


def rounded(value: float | None) -> float | int | None:
    """A number as the explorer stores it: to SIGNIFICANT_DIGITS (an integer as it is)."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}")


def explorer_data(kind: CaseKind, cases: Sequence[Case], records: dict[str, RecordRef],
                  anchors: dict[tuple[str, str], str | None]) -> dict[str, Any]:
    """The explorer's data for `cases` of `kind`: columns, records, strings and rows.
    `anchors` maps (record sha256, case pointer) to the case's id on its article (or None)."""
    text_fields = [kind.field(name) for name in kind.columns]
    metrics = [kind.metric(name) for name in kind.headline]
    columns: list[dict[str, Any]] = [{"label": "case", "type": "link"}]
    # a point's own fields (context length, token count) are flagged: the case column names them
    # too, so a row scrolled sideways still says which point its numbers are
    columns += [{"label": f.label, "type": "text", "name": f.name, **({"point": True} if f.scope is Scope.POINT else {})}
                for f in text_fields]
    for m in metrics:
        column: dict[str, Any] = {"label": m.label, "type": "number", "name": m.name, "unit": m.unit}
        if m.value is not None:
            column["pointer"] = m.value
        else:
            column["formula"] = m.formula
            column["inputs"] = [[n, p] for n, p in m.inputs]
        if m.available is not None:
            column["available"] = m.available
        columns.append(column)
    strings: dict[str, int] = {}

    def string(value: str) -> int:
        return strings.setdefault(value, len(strings))

    record_index: dict[str, int] = {}
    record_rows: list[list[str]] = []
    rows = []
    for case in cases:
        ref = records[case.record_sha256]
        if ref.sha256 not in record_index:
            record_index[ref.sha256] = len(record_rows)
            record_rows.append([ref.sha256, ref.path, ref.href])
        anchor = anchors.get((case.record_sha256, case.pointer)) or ""
        for point in case.points:
            point_values = dict(point.key)
            cells: list[Any] = [record_index[ref.sha256], point.pointer, string(case.label), string(anchor)]
            for f in text_fields:
                text = point_values[f.name] if f.scope is Scope.POINT else case.values[f.name].text
                cells.append(string(text))
            for m in metrics:
                cells.append(rounded(point.measures[m.name].value))
            rows.append(cells)
    return {
        "schema": kind.schema,
        "title": kind.title,
        "digits": SIGNIFICANT_DIGITS,
        "columns": columns,
        "records": record_rows,
        "strings": list(strings),
        "rows": rows,
    }


def data_script(slug: str, data: dict[str, Any]) -> bytes:
    """The data as a script that registers it under `slug` (ASCII JSON: no escaping issue)."""
    body = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return (f"window.benchledgerExplorer=window.benchledgerExplorer||{{}};"
            f"window.benchledgerExplorer[{json.dumps(slug)}]={body};\n").encode()


def record_refs(site: "SiteContext", from_page: str) -> dict[str, RecordRef]:
    """Every record's RecordRef, links relative to `from_page` (percent-encoded)."""
    # url() gives the path percent-encoded (escape.url_path) and HTML-escaped, which changes
    # nothing in a percent-encoded path: the script sets it with setAttribute, as is.
    return {v.sha256: RecordRef(v.sha256, v.entry.path, str(url(from_page, v.page_path))) for v in site.views}
