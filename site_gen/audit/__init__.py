"""`benchledger verify --site DIR`: check a built (or downloaded) copy of the site against the
ledger it serves: every file against the site-wide SHA256SUMS (none missing, altered or added);
the ledger's chain; every served record's bytes against the ledger and
SHA256SUMS; every hash a page states; the head against the audit page and `--expect-head`; every
displayed number against the value in the served record under the formatting rule; every
record's limitations on its page; each record's headline and left-out cases on its article and
its card; every chart's data; what the series pages, the history index, the feed and any claim
say against change detection run again on the served records; every link and load against the
files the site holds; no load from another host; and the signed log (transparency_log.py).
Reports every problem at once."""

from __future__ import annotations

import gc
import multiprocessing
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Sequence

from benchledger.errors import Problem
from benchledger.records.keys import VerifierKey
from benchledger.records.ledger import LEDGER_NAME, read_ledger
from site_gen.audit.charts import check_chart_data
from site_gen.audit.explorer_data import check_explorer_data
from site_gen.audit.hashes import check_every_file, check_head, check_served_records, check_stated_hashes, check_sums
from site_gen.audit.limitations import check_limitations
from site_gen.audit.links import check_links
from site_gen.audit.loads import check_no_external_loads
from site_gen.audit.numbers import check_derived_numbers, check_displayed_numbers, check_displayed_text
from site_gen.audit.redraw import ShownChart, redraw_problems
from site_gen.audit.series import check_change_listings, check_series_pages
from site_gen.audit.site import RECORDS, SiteAudit
from site_gen.audit.summaries import check_summaries
from site_gen.audit.transparency_log import check_site_log

__all__ = ["RECORDS", "STEPS", "SiteAudit", "verify_site"]

# Each step is a function of a SiteAudit returning its problems, in the order they are reported.
STEPS = (check_every_file, check_served_records, check_sums, check_stated_hashes, check_head, check_displayed_numbers,
         check_derived_numbers, check_displayed_text, check_limitations, check_summaries, check_explorer_data, check_chart_data,
         check_series_pages, check_change_listings, check_links, check_no_external_loads)
# The steps a second process runs where the pages are parsed in workers: forked once they are
# parsed and the records read, it inherits both. At 1,000 articles on 2 CPUs these take about as
# long as the rest (8.6 s against 9.6), so the audit waits for the longer instead of the sum
# (28-29 s against 35-38). The pages it reads are copied as it touches them: 1.5 GB at the peak
# against 0.9.
FORKED_STEPS = (check_explorer_data, check_chart_data, check_series_pages, check_change_listings, check_links,
                check_no_external_loads)


def verify_site(site_dir: Path | str, *, pinned: Sequence[VerifierKey] = (),
                kept: tuple[str, bytes] | None = None, expect_head: str | None = None,
                redraw_charts: bool = False) -> list[Problem]:
    """Every problem found in the site at `site_dir` (empty when it holds). `pinned` and `kept`
    are the auditor's verifier keys and earlier checkpoint, for the transparency-log steps;
    `expect_head` the ledger head the auditor was told to expect; `redraw_charts`: draw every
    checked chart's SVG again and compare its bytes (redraw.py; vl-convert, a
    minute of CPU at 1,000 articles). Each step is a function of a `SiteAudit` (`STEPS` above),
    in the module of what it checks: add one by writing it there and listing it in `STEPS` (and
    in `FORKED_STEPS` to run it beside the others on a large site)."""
    site = Path(site_dir)
    ledger_file = site / RECORDS / LEDGER_NAME
    shown = ledger_file.as_posix()
    if not site.is_dir():
        given = str(site_dir)  # as typed: Path() would turn "ftp://x" into "ftp:/x"
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", given)
        what = (f"{scheme.group(1)}:// addresses are not fetched (only http:// and https://)" if scheme
                else "a file, not a site folder" if site.exists() else "no such site folder")
        return [Problem(given, "", f"{what}: give the folder `benchledger build --out` wrote, or an http(s) URL")]
    if not ledger_file.is_file():
        return [Problem(shown, "", "missing: a benchledger site serves its ledger here")]
    read = read_ledger(ledger_file.read_bytes(), shown)
    audit = SiteAudit(site, read, shown, expect_head)
    problems = list(read.problems) + _step_problems(audit)
    if redraw_charts:  # the images of the charts whose data the steps above checked
        problems += redraw_problems(site, audit.charts)
    # The signed transparency log (ledger/): its own steps (transparency_log.py).
    problems += check_site_log(site, read.entries, shown, pinned=pinned, kept=kept)
    return problems


def _step_problems(audit: SiteAudit) -> list[Problem]:
    """Every step's problems, in the order of STEPS: FORKED_STEPS in a forked process while this
    one runs the rest, where the pages are parsed in workers (on Linux, where fork is the
    default; elsewhere all here)."""
    if not audit.in_workers or not sys.platform.startswith("linux"):
        return [problem for step in STEPS for problem in step(audit)]
    audit.parse_pages()
    # fork: the process gets the audit as it is (nothing pickled); only the findings come back.
    # Frozen, the objects it inherits are not walked by its garbage collector, which would copy
    # their memory pages.
    gc.freeze()
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=_hold, initargs=(audit,)) as pool:
            forked = pool.submit(_forked_steps)
            found = {step: step(audit) for step in STEPS if step not in FORKED_STEPS}
            problems, charts = forked.result()
    finally:
        gc.unfreeze()
    found.update(zip(FORKED_STEPS, problems))
    audit.charts.update(charts)  # what --redraw-charts draws: the chart step's
    return [problem for step in STEPS for problem in found[step]]


_held: SiteAudit | None = None  # in a forked process: the audit it runs FORKED_STEPS of


def _hold(audit: SiteAudit) -> None:
    global _held
    _held = audit


def _forked_steps() -> tuple[list[list[Problem]], dict[str, ShownChart]]:
    return [step(_held) for step in FORKED_STEPS], _held.charts
