"""`benchledger verify [--json]`: re-hash every record, walk the ledger chain, validate every
record against its schema, run the consistency checks and find unsealed files."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from benchledger.cli.arguments import path, text
from benchledger.cli.locations import records_dir, uses_cache
from benchledger.errors import InputError, LedgerError, Problem
from benchledger.files import read_input
from benchledger.records.keys import VerifierKey
from benchledger.records.ledger import LEDGER_NAME, read_ledger
from benchledger.records import tlog
from benchledger.records.checks import checks_for
from benchledger.records.store import Store, VerifyReport
from benchledger.records.validation_cache import ValidationCache

HELP = "check every sealed record, the ledger chain, schemas and consistency; exit 0 only when all hold"

SHA256_SHOWN = 12  # hex digits of a sha256 shown in the table


def add_arguments(parser):
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    parser.add_argument("--expect-head", type=text, metavar="SHA256",
                        help="also fail unless the ledger's head hash is this one (pins the history, so an "
                             "appended or truncated entry is caught even when its chain is consistent)")
    parser.add_argument("--no-cache", action="store_true", help="re-validate every record instead of trusting cached passes "
                                                                 "(the default when the CI environment variable is set)")
    parser.add_argument("--cache", type=text, default=None, metavar="DIR", help="the cache of validation passes (default: $BENCHLEDGER_CACHE_DIR, "
                                                                     "else .cache/benchledger beside the records; under CI, none unless this names one)")
    parser.add_argument("--site", type=text, metavar="DIR-OR-URL",
                        help="instead, check a built or downloaded site (a folder) or a deployed one (an http(s) URL): "
                             "every file against the site's SHA256SUMS (missing, altered or not listed), "
                             "every page's stated hashes against the ledger it serves, every served record against its "
                             "stated bytes, every traced number and piece of record text (and its hover) against its record, every derived number against its formula, "
                             "every record's page against the record's limitations, every record's headline and "
                             "cases left out (its article and its card) against its record, "
                             "every chart's points, the source each names, the table behind it, its drawing and a line chart's alt text against their records, "
                             "every series page (its records, setup, detected changes and each track's findings), the history "
                             "index's changes, the feed's change entries and every claim shown against the served records and "
                             "change detection run on them, every link and load of every page against the site's files, "
                             "and the signed transparency log (checkpoint, inclusion and consistency proofs)")
    parser.add_argument("--vkey", type=text, action="append", default=[], metavar="KEY",
                        help="with --site: a verifier key (NAME+KEYID+BASE64) you trust; the site's checkpoint must be "
                             "signed by it (repeat for several)")
    parser.add_argument("--checkpoint", type=path, metavar="FILE",
                        help="with --site: a checkpoint you kept from an earlier visit; the site's must extend it")
    parser.add_argument("--redraw-charts", action="store_true",
                        help="with --site: also draw every chart's image again from its checked spec and compare the "
                             "bytes (needs the vl-convert-python the site was built with; about a minute of CPU for "
                             "2,000 charts)")


def run(args) -> int:
    if args.expect_head is not None and not re.fullmatch(r"[0-9a-f]{64}", args.expect_head):
        raise InputError("--expect-head", "", f"expected the ledger head's 64 lowercase hex digits (as verify prints it), "
                                              f"found {args.expect_head[:80]!r}")
    # a flag that means nothing in this mode was accepted and ignored: `--vkey K` without --site
    # passed, as if the key had been checked
    wrong = ([f"--{name.replace('_', '-')}" for name in ("vkey", "checkpoint", "redraw_charts") if getattr(args, name)] if not args.site else
             [flag for flag, given in (("--records", args.records), ("--no-cache", args.no_cache), ("--cache", args.cache)) if given])
    if wrong:
        what = ("it draws a site's charts again" if wrong == ["--redraw-charts"] else
                "they check a site" if "--redraw-charts" in wrong else "they check a site's signed log")
        needs = f"--site ({what})" if not args.site else "a records store, not --site (a site is checked whole)"
        raise InputError(wrong[0], "", f"{' and '.join(wrong)} {'goes' if len(wrong) == 1 else 'go'} only with {needs}")
    if args.site:
        return run_site(args.site, [VerifierKey.parse(k, "--vkey") for k in args.vkey], _kept(args.checkpoint),
                        expect_head=args.expect_head, as_json=args.json, redraw_charts=args.redraw_charts)
    root = records_dir(args)
    if args.no_cache and args.cache:
        raise InputError("--no-cache", "", "give --cache DIR or --no-cache, not both")
    cache = ValidationCache(None) if not uses_cache(args) else ValidationCache(Path(args.cache)) if args.cache else None
    store = Store(root, cache)
    report = store.verify()
    problems = list(report.problems)
    if args.expect_head and args.expect_head != report.head_sha256:
        problems.append(Problem(store.ledger_path.as_posix(), "",
                                f"head is {report.head_sha256} but {args.expect_head} was expected: entries were appended, removed or changed"))
    if args.json:
        print(json.dumps(as_json(report, problems), indent=2))
        return 0 if not problems else 1
    print(table(report))
    summary = log_summary(store, report.entry_count)
    if summary:
        print(summary)
    if problems:
        raise LedgerError(problems, f"verification failed: {len(problems)} problem(s) in {report.root}")
    # the rules that apply to the schemas present, not every rule there is
    applied = sum(len(checks_for(schema)) for schema in sorted({r.schema for r in report.records}))
    print(f"all {len(report.records)} record(s) hold: bytes match the ledger, the chain is intact, "
          f"schemas validate, the {applied} consistency rules of their kinds hold")
    return 0


def _kept(path: Path | None) -> tuple[str, bytes] | None:
    if path is None:
        return None
    return path.as_posix(), read_input(path, path.as_posix(), what="a checkpoint")


def run_site(where: str, pinned: list[VerifierKey], kept: tuple[str, bytes] | None,
             expect_head: str | None = None, as_json: bool = False, redraw_charts: bool = False) -> int:
    from site_gen.audit import STEPS, verify_site
    from site_gen.mirror import is_url, mirror_site

    over_http = is_url(where)
    if over_http:
        with tempfile.TemporaryDirectory(prefix="benchledger-site-") as tmp:
            mirror_site(where, Path(tmp))
            base = where if where.endswith("/") else where + "/"
            problems = [Problem(p.file.replace(tmp + "/", base, 1), p.path, p.message, p.line)
                        for p in verify_site(Path(tmp), pinned=pinned, kept=kept, expect_head=expect_head,
                                                    redraw_charts=redraw_charts)]
            signed, entries = _log_coverage(Path(tmp))
    else:
        problems = verify_site(where, pinned=pinned, kept=kept, expect_head=expect_head, redraw_charts=redraw_charts)
        signed, entries = _log_coverage(Path(where))
    if as_json:
        log = None if signed is None else {"signed_entries": signed, "ledger_entries": entries, "key_pinned": bool(pinned)}
        # what was checked, in order
        steps = [step.__name__.removeprefix("check_") for step in STEPS] + (["redrawn_charts"] if redraw_charts else []) + ["site_log"]
        print(json.dumps({"site": where, "ok": not problems, "expect_head": expect_head, "steps": steps, "signed_log": log,
                          "problems": [{"file": p.file, "path": p.path, "line": p.line, "message": p.message} for p in problems]},
                         indent=2))
        return 0 if not problems else 1
    if problems:
        raise LedgerError(problems, f"site verification failed: {len(problems)} problem(s) in {where}")
    # says what was checked, no more: SHA256SUMS is unsigned, numbers outside traced spans are not read,
    # a file no list names cannot be seen over http, a record after the latest checkpoint is in
    # no signed tree, and a site without a log (or one whose log was removed) is only caught with --vkey
    files = ("every file SHA256SUMS lists matches it (over http, a file it does not list cannot be seen)" if over_http
             else "every file matches the site's SHA256SUMS and none is added")
    if signed is None:
        log = "the site publishes no signed log (pass --vkey with the publisher's key to require one)"
    else:
        log = f"the signed log holds for {signed} of the ledger's {entries} entries"
        if signed < entries:
            log += f" ({entries - signed} sealed after its latest checkpoint are in no signed tree)"
        if not pinned:
            log += "; it is signed with the key the site serves: pass --vkey with the publisher's key to pin it"
    print(f"{where}: {files}, every page's stated hashes match the served ledger, every served record has its stated bytes, "
          "every traced number and piece of record text reads as its record's value (its hover too) and every derived number as "
          "its formula gives, every record's page shows each of its limitations, every headline is its record's, every chart's points, the table behind it and a line chart's alt text are their records' values, a size or a duration in its records' unit, and each is drawn as benchledger draws them, every series page, "
          "the history index, the feed and every claim shown say what change detection finds in the served records"
          + (", every chart's image is what this vl-convert draws of its spec" if redraw_charts else "")
          + ", every link leads to a page or file the site holds, nothing loads from another host"
          + (", the head is the expected one" if expect_head else "") + f", and {log}")
    return 0


def _log_coverage(site: Path) -> tuple[int | None, int]:
    """(entries the site's latest checkpoint signs or None without one, entries its ledger holds)."""
    from site_gen.audit.transparency_log import coverage
    from site_gen.audit import RECORDS

    ledger = site / RECORDS / LEDGER_NAME
    entries = len(read_ledger(ledger.read_bytes(), ledger.as_posix()).entries) if ledger.is_file() else 0
    return coverage(site, entries), entries


def log_summary(store: Store, entries: int) -> str:
    """One line about the signed checkpoints against the `entries` verify read ("" when the
    store has none); a checkpoint signed since verify's look is left to the next verify."""
    checkpoints = [cp for cp in tlog.store_checkpoints(store)[0] if cp.checkpoint.size <= entries]
    if not checkpoints:
        return ""
    latest = checkpoints[-1]
    unsigned = entries - latest.checkpoint.size
    return (f"checkpoints: {len(checkpoints)} signed, latest tree size {latest.checkpoint.size} of the ledger's {entries} entries "
            f"(origin {latest.checkpoint.origin}), checked against the keys in {_keys_named(store)}"
            + (f"; {unsigned} sealed since are in no signed tree: run `benchledger checkpoint`" if unsigned > 0 else ""))


def _keys_named(store: Store) -> str:
    """Where the keys are, the same wherever the store is (the output is a golden file)."""
    source = tlog.keys_source(store)
    return "benchledger.toml [log] verifier_keys" if source.endswith("verifier_keys") else tlog.VKEYS_NAME


def table(report: VerifyReport) -> str:
    """The per-record table (path, schema, sha256 prefix, status) and the ledger's head line."""
    rows = [("PATH", "SCHEMA", "SHA256", "STATUS")]
    rows += [(r.path, r.schema or "-", r.sha256[:SHA256_SHOWN] or "-", r.status) for r in report.records]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[3] for row in rows]
    lines.append(f"ledger: {report.entry_count} entries, head {report.head_sha256}")
    return "\n".join(lines)


def as_json(report: VerifyReport, problems: list[Problem]) -> dict:
    def problem(p: Problem) -> dict:
        return {"file": p.file, "path": p.path, "line": p.line, "message": p.message}

    return {
        "records_dir": report.root,
        "ok": not problems,
        "head_sha256": report.head_sha256,
        "entries": report.entry_count,
        "records": [
            {"path": r.path, "schema": r.schema or None, "sha256": r.sha256 or None,
             "position": r.entry.position if r.entry else None, "status": r.status,
             "problems": [problem(p) for p in r.problems]}
            for r in report.records
        ],
        "problems": [problem(p) for p in problems],
    }
