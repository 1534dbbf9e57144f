"""`verify --site`'s step on the explorer's data scripts: every number and text cell in them is
its record's."""

from __future__ import annotations

import re

from benchledger.errors import Problem
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve
from site_gen.audit.numbers import recomputed
from site_gen.audit.site import SiteAudit, site_json
from site_gen.explorer import ASSETS_DIR as EXPLORER_DATA, rounded


# An explorer data script: the JSON after its registration; a row's cells start after its
# record, point pointer, case label and anchor (explorer.js: `offset`, column 0 being the link).
_EXPLORER_BODY = re.compile(r"window\.benchledgerExplorer\[[^\]]*\]=(.*);\n?\Z", re.S)
EXPLORER_ROW_OFFSET = 3


def check_explorer_data(audit: SiteAudit) -> list[Problem]:
    """Every number of the explorer's data scripts (`assets/explore/*.js`) is its record's value
    at its row's point and its column's pointer, or its column's formula recomputed there, to
    the explorer's significant digits: the explorer shows them, and the hover names the record.
    Each row's text (its case's label, a GPU, a model, a context) is its case's, as the site
    reads the served record (`SiteAudit.record_cases`), and each record is listed at its path."""
    problems = []
    for script in sorted((audit.site / EXPLORER_DATA).glob("*.js")):
        shown = script.as_posix()
        body = _EXPLORER_BODY.search(script.read_text(encoding="utf-8", errors="replace"))
        try:
            data = site_json(body.group(1)) if body else None
            records, columns, rows = data["records"], data["columns"], data["rows"]
        except (ValueError, TypeError, KeyError):
            problems.append(Problem(shown, "", "not an explorer data script benchledger writes"))
            continue
        for number, row in enumerate(rows):
            try:
                problems += _explorer_row(audit, shown, number, row, records, columns)
                problems += _explorer_text(audit, shown, number, row, records, columns, data["strings"])
            except (IndexError, KeyError, TypeError, AttributeError):  # a script edited out of shape
                problems.append(Problem(shown, f"$.rows[{number}]", "is not a row benchledger writes (record, point, cells)"))
        for number, listed in enumerate(records if isinstance(records, list) else []):
            sha256, path = (listed + [None, None])[:2] if isinstance(listed, list) else (None, None)
            entry = audit.sealed.get(sha256) if isinstance(sha256, str) else None
            if entry is None:
                continue  # a record no row can name: its rows say so
            if path != entry.path:
                problems.append(Problem(shown, f"$.records[{number}]", f"lists {sha256[:12]} as {str(path)[:80]!r}, but the ledger "
                                                                       f"seals it as {entry.path!r}: the script was edited"))
    return problems


def _explorer_text(audit: SiteAudit, shown: str, number: int, row: list, records: list, columns: list,
                   strings: list) -> list[Problem]:
    """One row's case label and text cells against its case in the served record (raises as
    `_explorer_row` for a row out of shape)."""
    sha256, point = records[row[0]][0], row[1]
    found = audit.record_cases(sha256) if sha256 in audit.sealed else None
    if found is None:
        return []  # not sealed (said above), not served intact, or of no case table
    at = next(((case, p) for case in found[1] for p in case.points if p.pointer == point), None)
    if at is None:
        return [Problem(shown, f"$.rows[{number}]", f"lists a point {point[:80]!r} of {sha256[:12]}, which none of its "
                                                    "cases has: the script was edited")]
    case, point_of = at
    told = [("case", strings[row[2]], case.label)]
    told += [(column["label"], strings[row[c + EXPLORER_ROW_OFFSET]],
              dict(point_of.key)[column["name"]] if column.get("point") else case.values[column["name"]].text)
             for c, column in enumerate(columns) if column.get("type") == "text"]
    return [Problem(shown, f"$.rows[{number}]", f"shows {label} {str(got)[:80]!r} for {sha256[:12]} {point}, but the record "
                                                f"gives {want[:80]!r}: the script was edited")
            for label, got, want in told if got != want]


def _explorer_row(audit: SiteAudit, shown: str, number: int, row: list, records: list, columns: list) -> list[Problem]:
    """One row's numbers against its record (raises TypeError, IndexError... for a row out of
    the shape benchledger writes)."""
    sha256, point = records[row[0]][0], row[1]
    if not isinstance(sha256, str) or not isinstance(point, str):
        raise TypeError("not a record's sha256 and a point's pointer")
    if sha256 not in audit.sealed:
        return [Problem(shown, f"$.rows[{number}]", f"names record {sha256[:70]}, which the ledger does not seal")]
    record = audit.record_data(sha256)
    if record is None:
        return []  # not served intact: the records' own step says so
    problems = []
    for c, column in enumerate(columns):
        if column.get("type") != "number" or c + EXPLORER_ROW_OFFSET >= len(row):
            continue
        stored = row[c + EXPLORER_ROW_OFFSET]
        if "pointer" in column:
            where = point + column["pointer"]
            value = resolve(record, where, default=None)
        else:
            value = recomputed(audit, column.get("formula", ""), {name: (sha256, point + rel) for name, rel in column.get("inputs", [])})
            where = f"{column.get('formula')} at {point}"
        if is_number(value) and stored != rounded(value):
            problems.append(Problem(shown, f"$.rows[{number}]", f"holds {stored!r} for {sha256[:12]} {where}, but the record "
                                                                f"gives {value!r} ({rounded(value)!r} to the explorer's digits)"))
    return problems
