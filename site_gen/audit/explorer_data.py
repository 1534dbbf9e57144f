"""`verify --site`'s step on the explorer's data scripts: every number in them is its record's."""

from __future__ import annotations

import json
import re

from benchledger.errors import Problem
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve
from site_gen.audit.numbers import recomputed
from site_gen.audit.site import SiteAudit
from site_gen.explorer import ASSETS_DIR as EXPLORER_DATA, rounded


# An explorer data script: the JSON after its registration; a row's cells start after its
# record, point pointer, case label and anchor (explorer.js: `offset`, column 0 being the link).
_EXPLORER_BODY = re.compile(r"window\.benchledgerExplorer\[[^\]]*\]=(.*);\n?\Z", re.S)
EXPLORER_ROW_OFFSET = 3


def check_explorer_data(audit: SiteAudit) -> list[Problem]:
    """Every number of the explorer's data scripts (`assets/explore/*.js`) is its record's value
    at its row's point and its column's pointer, or its column's formula recomputed there, to
    the explorer's significant digits: the explorer shows them, and the hover names the record."""
    problems = []
    for script in sorted((audit.site / EXPLORER_DATA).glob("*.js")):
        shown = script.as_posix()
        body = _EXPLORER_BODY.search(script.read_text(encoding="utf-8", errors="replace"))
        try:
            data = json.loads(body.group(1)) if body else None
            records, columns, rows = data["records"], data["columns"], data["rows"]
        except (ValueError, TypeError, KeyError):
            problems.append(Problem(shown, "", "not an explorer data script benchledger writes"))
            continue
        for number, row in enumerate(rows):
            try:
                problems += _explorer_row(audit, shown, number, row, records, columns)
            except (IndexError, KeyError, TypeError, AttributeError):  # a script edited out of shape
                problems.append(Problem(shown, f"$.rows[{number}]", "is not a row benchledger writes (record, point, cells)"))
    return problems


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
