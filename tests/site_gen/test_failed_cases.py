"""A record with a failed case, shaped as our collector writes one: the case shows its reason,
the server log's tail (escaped, folded) and the placement the server reported; the home card,
the charts and the cross-record comparisons leave it out of their numbers and say so."""

from __future__ import annotations

import copy
import json
import re

import pytest

from benchledger.records.checks import check_record
from benchledger.records.pointer import resolve
from benchledger.records.schema import validate
from benchledger.records.store import Store

from tests.site_gen.site_support import ROOT, build
from tests.store_copies import shipped_copy

OFFLOAD = ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json"
SCHEMA = "gsh-llm-core-article/1"
PAGE = "articles/partial/2026-10-05.html"
FAILED_ID = "offload-72b-20"
REASON = "llama-server exited with status 1 before /health answered"
LOG = "llama_model_load: error loading model: <script>alert(1)</script> & more\n\nmain: exiting due to model loading error"


def partial_record(log_tail: str = LOG) -> dict:
    """Seed 000 with its third case failed the way the llama-server module records one: no
    groups, a reason, the log tail, and the layers the server reported placing."""
    data = json.loads(OFFLOAD.read_bytes())
    case = data["cases"][2]
    reported = copy.deepcopy(case["placement"])
    for key in ("placement", "completed_response_resources", "resources_by_phase", "record_sha256", "reviewed_export_sha256"):
        case.pop(key)
    case.update(status="failed", failure_reason=REASON, groups=[], server_log_tail=log_tail, reported_placement=reported)
    data["status"] = "partial"
    data["tested_at"] = "2026-10-05"
    return data


def test_the_partial_record_is_valid_and_consistent():
    data = partial_record()
    assert validate(data, SCHEMA, "partial.json") == []
    assert check_record(data, SCHEMA, "partial.json") == []
    data["status"] = "completed"
    assert [p.message for p in check_record(data, SCHEMA, "partial.json")]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("failed")
    records = shipped_copy(tmp)
    Store(records).seal_bytes(json.dumps(partial_record(), indent=1).encode(), SCHEMA, "partial/2026-10-05.json")
    return build(tmp, records).out_dir


def case_section(page: str, index: int) -> str:
    start = page.index(f'id="case-{index}"')
    end = page.find('id="case-', start + 1)
    return page[start:end if end > 0 else page.index('id="provenance"')]


def test_failed_case_shows_reason_log_tail_and_reported_placement(site):
    page = (site / PAGE).read_text(encoding="utf-8")
    failed = case_section(page, 2)
    # The heading names the requested placement (all a failed case has) and the outcome.
    assert re.search(r'id="case-2">Case offload-72b-20: 20 of 81 layers on the GPU \(failed\)', failed)
    assert "This case failed:</strong> " in failed and REASON in failed
    assert failed.index("bl-failure") < failed.index("Limitations of this case")
    log = re.search(r'<details class="bl-log"><summary>Server log, last 3 lines</summary>'
                    r'<pre data-pointer="/cases/2/server_log_tail"><code>(.*?)</code></pre></details>', failed, re.S)
    assert log is not None
    assert log.group(1) == ("llama_model_load: error loading model: &lt;script&gt;alert(1)&lt;/script&gt; &amp; more\n"
                            "\nmain: exiting due to model loading error")
    assert "<script>alert" not in page
    assert "Placement reported by the server" in failed and 'data-pointer="/cases/2/reported_placement/gpu_layers"' in failed
    assert "Per context" not in failed  # no groups, no empty table
    # Every traced number in the failed case resolves in the record.
    data = partial_record()
    for pointer in re.findall(r'data-pointer="([^"]*)"', failed):
        resolve(data, pointer)


def test_charts_and_headline_leave_the_failed_case_out_and_say_so(site):
    page = (site / PAGE).read_text(encoding="utf-8")
    note = f"1 of 3 cases failed: {FAILED_ID} (left out of these numbers)"
    head = page[:page.index('id="results-gpu-layers"')]
    assert note in head and "/cases/2/" not in head
    results = page[page.index('id="results-gpu-layers"'):page.index('id="case-0"')]
    assert note in results
    assert "Cases compared: 81 of 81 layers on the GPU, 40 of 81 layers on the GPU." in results
    assert "/cases/2/" not in results  # no chart point or data-table row comes from the failed case


def test_home_card_and_comparisons_leave_the_failed_case_out(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    card = home[home.index('href="articles/partial/2026-10-05.html"'):]
    card = card[:card.index('class="bl-card-foot"')]
    assert f'<p class="bl-left-out">1 of 3 cases failed: {FAILED_ID} (left out of these numbers)</p>' in card
    assert "/cases/2/" not in card
    index = (site / "comparisons" / "index.html").read_text(encoding="utf-8")
    # the partial record repeats two of the seed's placements: a gpu_layers comparison of both
    (link,) = re.findall(r'href="(gsh-llm-core-article-1/gpu-layers-[0-9a-f]{12}\.html)"', index)
    compared = (site / "comparisons" / link).read_text(encoding="utf-8")
    assert "partial/2026-10-05.json" in compared
    rows = re.findall(r"<tr>.*?</tr>", compared, re.S)
    assert not any("partial/2026-10-05.json" in row and FAILED_ID in row for row in rows)


def test_an_empty_log_tail_shows_no_log_block(tmp_path):
    records = shipped_copy(tmp_path)
    Store(records).seal_bytes(json.dumps(partial_record("")).encode(), SCHEMA, "partial/2026-10-05.json")
    page = (build(tmp_path, records).out_dir / PAGE).read_text(encoding="utf-8")
    assert REASON in case_section(page, 2) and "bl-log" not in page
