"""`benchledger check [--since HEAD] [--fail-on regression] [--json]`: every detected change in
every series of the store, for CI. The same rule and the same records as the site's series
pages, so CI and the site never disagree."""

from __future__ import annotations

import json

from benchledger.cli.arguments import text
from benchledger.cli.locations import records_dir
from benchledger.errors import InputError
from benchledger.records.digest import is_sha256_prefix
from benchledger.records.display import readable
from benchledger.records.ledger import GENESIS_SHA256
from benchledger.records.store import Store

HELP = "report every detected change in every series of the store; exit 1 with --fail-on regression when one got worse"

SHA256_SHOWN = 12


def add_arguments(parser):
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--since", type=text, metavar="HEAD",
                        help="only changes involving records sealed after this ledger head hash "
                             "(a full entry sha256 or a unique prefix of >= 12 hex digits, as `verify` prints)")
    parser.add_argument("--fail-on", choices=["regression"], default=None,
                        help="exit 1 when a metric moved the wrong way beyond delta with a 'changed' verdict")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")


def _sealed_after(store: Store, head: str) -> set[str]:
    """The sha256 of every record sealed after the entry whose hash is `head`."""
    entries = store.entries()
    key = head.strip().lower()
    if not is_sha256_prefix(key):
        raise InputError(head, "", "--since needs a ledger head hash (64 hex digits, or a unique prefix of >= 12)")
    if len(key) == 64 and key == GENESIS_SHA256:  # the head of an empty ledger, as verify prints it: every record is new
        return {e.sha256 for e in entries}
    hits = [e for e in entries if e.entry_sha256.startswith(key)]
    if not hits:
        raise InputError(head, "", f"no entry of {store.ledger_path.as_posix()} has this hash; give a head that "
                                   "`benchledger verify` printed for this ledger")
    if len(hits) > 1:
        raise InputError(head, "", f"the prefix matches {len(hits)} ledger entries; give more digits")
    return {e.sha256 for e in entries[hits[0].position + 1:]}


def run(args) -> int:
    from site_gen.history import finding_json, history, series_setup

    store = Store(records_dir(args))
    records = store.load_verified()  # refuses (LedgerError, every problem listed) unless all hold
    new = _sealed_after(store, args.since) if args.since else None
    reports = history([(r.data, r.entry.sha256, r.entry.path, r.entry.schema) for r in records])
    changes = [(rep, c) for rep in reports for c in rep.changes if new is None or new & set(c.records)]
    regressions = [c for _, c in changes if c.regression]
    if args.json:
        out = {
            "head_sha256": store.head_sha256(),
            "since": args.since,
            "series": len(reports),
            "changes": [{
                "series": c.series.slug, "title": rep.title, "setup": series_setup(c.series),
                "schema": c.series.schema, "along": c.series.field,
                "at": {"path": c.at.record_path, "sha256": c.at.record_sha256, c.series.field: c.series.value_of(c.at)},
                "regression": c.regression,
                "claims": [finding_json(f) for f in c.findings],
            } for rep, c in changes],
            "regressions": len(regressions),
        }
        print(json.dumps(out, indent=2))
    else:
        print(text_report(reports, changes, args.since, store.shown))
    return 1 if args.fail_on == "regression" and regressions else 0


def _percent(ratio: float) -> str:
    return f"{(ratio - 1) * 100:+.1f}%"


def text_report(reports, changes, since: str | None, shown=lambda path: path) -> str:
    """The terminal report: one block per (report, change), one line per claim, records by path
    (as `shown` prints a store path) and hash."""
    from site_gen.history import series_setup

    def named(case) -> str:
        return f"{shown(case.record_path)} ({case.record_sha256[:SHA256_SHOWN]})"

    lines = []
    for report, c in changes:
        value = c.series.value_of(c.at)
        # a title, a setup and a value spell record text (a GPU's name, a release)
        lines.append(f"{'REGRESSION' if c.regression else 'change'}: {readable(report.title)}")
        lines.append(f"  setup: {readable(series_setup(c.series))}")
        lines.append(f"  from {c.series.field} {readable(value)}: {named(c.at)}")
        for f in c.findings:
            claim, track = f.claim, f.track
            interval = (f" [{_percent(claim.interval[0])}, {_percent(claim.interval[1])}] at {claim.confidence:.1%}"
                        if claim.interval else " (no interval: ranges only)")
            p = f", p {claim.adjusted_p:.2g} (BH over {claim.tests_on_page})" if claim.adjusted_p is not None else ""
            lines.append(f"  {readable(track.label)}: {_percent(claim.ratio)}{interval}, delta ±{claim.delta:.1%}: "
                         f"{claim.verdict}{' (worse)' if f.regression else ''}{p}; {claim.comparison.method}, "
                         f"{track.detection.algorithm}")
            before, after = track.cases_of(claim.comparison)
            lines.append("    before: " + ", ".join(named(x) for x in before))
            lines.append("    after:  " + ", ".join(named(x) for x in after))
    scope = f" involving records sealed after {since}" if since else ""
    regressions = sum(1 for _, c in changes if c.regression)
    lines.append(f"{len(changes)} change(s){scope} in {len(reports)} series ({regressions} regression(s))"
                 if reports else "no series: no two records of one kind differ only along an ordered field")
    return "\n".join(lines)
