"""`benchledger compare A B [--axis FIELD] [--json]`: two sealed records side by side, case by
case: metric A, metric B and B/A per matched case and point, which axis field differs (or that
the pair is confounded, and in what), and the cases that found no partner.

Exit 0 when at least one case pair matched, 1 when none did (identity differs, or confounded)."""

from __future__ import annotations

import json
from typing import Any

from benchledger.cli.arguments import text
from benchledger.cases import evidence
from benchledger.cases.base import Case, Measure, Role
from benchledger.cases.pairing import PairReport, pair_records
from benchledger.cases.registry import KINDS, kind_for
from benchledger.cli.locations import records_dir
from benchledger.errors import InputError
from benchledger.records.digest import sha256_hex
from benchledger.records.display import readable
from benchledger.records.jsonread import read_json_bytes
from benchledger.records.store import LedgerEntry, Store

HELP = "compare two sealed records case by case: A, B and B/A per matched case, and which axis differs"
SHA256_SHOWN = 12
RULE = (f"called at p <= {evidence.ALPHA}: by a Mann-Whitney test where both records carry their values, "
        "else only where all n values of one side lie beyond all n of the other (exact rank test "
        "p = 2/C(n_A+n_B, n_A)), after Benjamini-Hochberg over every test of the table (adjusted p <= "
        f"{evidence.ALPHA}); otherwise no claim. See the methodology page.")


def add_arguments(parser):
    parser.add_argument("a", type=text, metavar="A", help="the baseline record: a sha256 (or a unique prefix of >= 12 digits) or its path")
    parser.add_argument("b", type=text, metavar="B", help="the record compared with it")
    parser.add_argument("--axis", type=text, metavar="FIELD",
                        help="pair cases only where they differ in this axis field (or in none); see the methodology page")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON on stdout")


def _load(store: Store, key: str) -> tuple[LedgerEntry, Any]:
    entry = store.find(key)
    shown = store.shown(entry.path)
    raw = store.read_sealed(entry)
    if sha256_hex(raw) != entry.sha256:
        raise InputError(shown, "", "its bytes no longer match the ledger; run `benchledger verify`")
    return entry, read_json_bytes(raw, shown)


def run(args) -> int:
    store = Store(records_dir(args))
    (entry_a, data_a), (entry_b, data_b) = _load(store, args.a), _load(store, args.b)
    if entry_a.schema != entry_b.schema:
        raise InputError(entry_b.path, "", f"records of different kinds are never compared ({entry_a.schema} vs {entry_b.schema})")
    kind = kind_for(entry_a.schema)
    if kind is None:
        raise InputError(entry_a.path, "", f"records of kind {entry_a.schema} have no case table, so they are not compared "
                                           f"(kinds with one: {', '.join(sorted(KINDS))})")
    if args.axis is not None and args.axis not in {f.name for f in kind.fields_of(Role.AXIS)}:
        raise InputError("--axis", "", f"{args.axis!r} is not an axis field of {kind.schema}; axis fields: "
                                       + ", ".join(f.name for f in kind.fields_of(Role.AXIS)))
    report = pair_records(kind, kind.cases(data_a, entry_a.sha256, entry_a.path),
                          kind.cases(data_b, entry_b.sha256, entry_b.path), args.axis)
    if args.json:
        print(json.dumps(_as_json(report, entry_a, entry_b), indent=2))
    else:
        _print(report, entry_a, entry_b)
    return 0 if report.pairs else 1


# -- output ---------------------------------------------------------------------------------
def _measure_json(m: Measure) -> dict[str, Any]:
    out: dict[str, Any] = {"value": m.value, "pointer": m.pointer}
    if m.inputs:
        out["formula"] = m.metric.formula
        out["inputs"] = dict(m.inputs)
    if m.has_range:
        out.update(minimum=m.minimum, maximum=m.maximum, n=m.count)
    return out


def _case_json(case: Case) -> dict[str, Any]:
    return {"record_sha256": case.record_sha256, "pointer": case.pointer, "label": case.label}


def _as_json(report: PairReport, a: LedgerEntry, b: LedgerEntry) -> dict[str, Any]:
    kind = report.kind
    return {
        "kind": kind.schema,
        "a": {"path": a.path, "sha256": a.sha256},
        "b": {"path": b.path, "sha256": b.sha256},
        "axis": report.axis,
        "axes_differing": report.axes_differing,
        "confounded": [{"field": d.field, "a": d.a, "b": d.b} for d in report.confounded],
        "pairs": [{"a": _case_json(ca), "b": _case_json(cb), "differences": [{"field": d.field, "a": d.a, "b": d.b} for d in diff]}
                  for ca, cb, diff in report.pairs],
        "rows": [{
            "a_case": r.a_case.label, "b_case": r.b_case.label, "point": dict(r.a_point.key),
            "metric": r.a.metric.name, "unit": r.a.metric.unit,
            "a": _measure_json(r.a), "b": _measure_json(r.b), "ratio": r.ratio,
            "verdict": {"status": r.verdict.status, "direction": r.verdict.direction or None, "p": r.verdict.p,
                        "text": r.verdict.text},
        } for r in report.rows],
        "unmatched": [{"side": u.side, "case": _case_json(u.case), "point": dict(u.point.key) if u.point else None,
                       "reason": u.reason} for u in report.unmatched],
    }


def _num(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def _table(rows: list[list[str]]) -> list[str]:
    """Rows as a Markdown-style table, columns padded (numbers right-aligned)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    numeric = [all(_looks_numeric(r[i]) for r in rows[1:]) for i in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        cells = [c.rjust(w) if numeric[i] and k else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("| " + " | ".join(cells) + " |")
        if k == 0:
            lines.append("|" + "|".join(("-" * (w + 1) + ":") if numeric[i] else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|")
    return lines


def _looks_numeric(text: str) -> bool:
    return text.replace(",", "").replace(".", "", 1).replace("-", "", 1).replace("e", "", 1).isdigit() or text == "n/a"


def _print(report: PairReport, a: LedgerEntry, b: LedgerEntry) -> None:
    kind = report.kind
    print(f"A  {a.sha256[:SHA256_SHOWN]}  {a.path}")
    print(f"B  {b.sha256[:SHA256_SHOWN]}  {b.path}")
    print(f"kind {kind.schema} ({kind.title})")
    if report.pairs:
        if report.axis is not None:
            values = sorted({(d.a, d.b) for _, _, diff in report.pairs for d in diff})
            shown = "; ".join(f"{readable(x)} -> {readable(y)}" for x, y in values)
            print(f"axis: {report.axis} ({kind.field(report.axis).label}): {shown}")
        elif report.axes_differing:
            print("axes: each pair differs in one axis field: " + ", ".join(report.axes_differing))
        else:
            print("axis: none differs (the same setup measured twice)")
    elif report.confounded:
        print("confounded: every pair of cases differs in two or more axis fields, so nothing is compared: "
              + "; ".join(f"{kind.field(d.field).label}: {readable(d.a)} vs {readable(d.b)}" for d in report.confounded))
    else:
        print("nothing compared: no case of B agrees with a case of A on identity and differs in at most one axis field")
    if report.rows:
        rows = [["case A", "case B", "point", "metric", "A", "B", "B/A", "difference"]]
        for r in report.rows:
            unit = f" ({r.a.metric.unit})" if r.a.metric.unit else ""
            rows.append([readable(r.a_case.label), readable(r.b_case.label), readable(r.a_point.label), r.a.metric.label + unit,
                         _num(r.a.value), _num(r.b.value), "n/a" if r.ratio is None else f"{r.ratio:.3f}", r.verdict.short])
        print()
        for line in _table(rows):
            print(line)
        print(f"\ndifference: {RULE}")
    if report.unmatched:
        print(f"\nwithout a partner ({len(report.unmatched)}):")
        for u in report.unmatched:
            where = f" at {readable(u.point.label)}" if u.point else ""
            print(f"  {u.side}  {readable(u.case.label)}{where}: {readable(u.reason)}")
