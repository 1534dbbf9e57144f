"""`verify --site` holds each record's summary (its article's headline and its cases left out,
and its card on the home page) and each ⚠ beside a number to what the served record makes: a
real build of the shipped records and a record with a failed case, edited as a host covering
its tracks would (SHA256SUMS listed again)."""

from __future__ import annotations

import json
import re

import pytest

from benchledger.records.store import Store
from site_gen.audit import verify_site
from site_gen.limitations import find_limitations
from tests.site_gen.site_support import ROOT, audited_after_edit, build
from tests.store_copies import shipped_copy

LLM = "articles/llm-cpu-offload/2026-09-27.html"
PARTIAL = "articles/partial/2026-09-27.html"
REASON = "server exited <during> load & left"
FAILED = json.loads((ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())["cases"][2]["id"]
LEFT_OUT = f"1 of 3 cases failed: {FAILED} (left out of these numbers)"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The shipped records and the LLM seed with its third case failed (its reason holding
    characters HTML escapes), built as `make site` builds."""
    tmp = tmp_path_factory.mktemp("summaries")
    records = shipped_copy(tmp)
    data = json.loads((records / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
    data["cases"][2].update(status="failed", failure_reason=REASON)
    data["status"] = "partial"
    Store(records).seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1", "partial/2026-09-27.json")
    return build(tmp, records).out_dir


def _sha(site, path: str) -> str:
    return next(e.sha256 for e in Store(site / "records").entries() if e.path == path)


def test_the_built_site_passes_and_says_what_was_left_out(built):
    partial = (built / PARTIAL).read_text(encoding="utf-8")
    assert f'<p class="bl-left-out">{LEFT_OUT}</p>' in partial
    assert 'class="bl-card-headline"' in (built / "index.html").read_text(encoding="utf-8")
    assert verify_site(built) == []


def test_a_headline_retold_on_its_article_is_reported(built, tmp_path):
    """The words around the traced numbers: "falling to" made "rising to" passed before. The
    message quotes both from a little before where they differ, past the first 80 characters."""
    found = audited_after_edit(built, tmp_path, LLM, lambda html: html.replace("falling to", "rising to", 1))
    sha = _sha(built, "llm-cpu-offload/2026-09-27.json")
    assert len(found) == 1
    assert found[0].startswith(f'SITE/{LLM}: leads with "…with 81 of 81 layers on the GPU, rising to 1.08')
    assert f'", but its record {sha[:12]} makes "…with 81 of 81 layers on the GPU, falling to 1.08' in found[0]
    assert found[0].endswith(": the page was edited")


def test_a_headline_whose_words_agree_but_markup_differs_is_told_apart_in_its_html(built, tmp_path):
    """A headline's number's hover retold reads the same to a reader: the message quotes the
    headline's HTML where the two differ (it quoted the same words twice)."""
    found = audited_after_edit(built, tmp_path, LLM, lambda html: html.replace(" · raw value 25.77", " · raw value 35.77", 1))
    headline = [f for f in found if " leads with " in f]
    assert len(headline) == 1
    shown, made = re.fullmatch(r'SITE/\S+: leads with "(.*)", but its record [0-9a-f]{12} makes "(.*)": the page was edited',
                               headline[0]).groups()
    assert shown.startswith("…") and "raw value 35.77" in shown and "raw value 25.77" in made


def test_a_card_retold_or_its_left_out_cases_cut_is_reported(built, tmp_path):
    sha = _sha(built, "partial/2026-09-27.json")

    def edit(html: str) -> str:
        cut = re.sub(r'(<p class="bl-card-headline">.*?</p>\n)<p class="bl-left-out">[^<]*</p>\n', r"\1", html, count=1, flags=re.S)
        return cut.replace("falling to", "rising to")

    found = audited_after_edit(built, tmp_path, "index.html", edit)
    assert [f for f in found if "says" in f] == [
        f'SITE/index.html: its card of {PARTIAL} says "no case was left out" where its record {sha[:12]} gives '
        f'"{LEFT_OUT}": the page was edited']
    assert len([f for f in found if ": its card of articles/" in f and " reads " in f]) == 2  # both LLM cards


def test_left_out_cases_cut_from_an_article_are_reported(built, tmp_path):
    sha = _sha(built, "partial/2026-09-27.json")
    said = f'<p class="bl-left-out">{LEFT_OUT}</p>'
    found = audited_after_edit(built, tmp_path, PARTIAL, lambda html: html.replace(said, ""))
    assert found == [f'SITE/{PARTIAL}: does not say "{LEFT_OUT}", '
                     f"which its record {sha[:12]} gives: the page was edited"]


@pytest.mark.parametrize("pointer, scope", [
    ("/cases/0/telemetry/maximum_host_gap_seconds", "/cases/0/telemetry/maximum_host_gap_seconds"),  # a number
    ("/cases/0/resources_by_phase/baseline/gpu_energy/available", "/cases/0/resources_by_phase/baseline/gpu_energy"),
])
def test_a_limitation_marker_removed_from_beside_its_number_is_reported(built, tmp_path, pointer, scope):
    """A ⚠ cut from beside a number, or from an energy block shown as "unavailable" (the
    block's caveat), its note left lower on the page, passed before."""
    sha = _sha(built, "llm-cpu-offload/2026-09-27.json")
    record = json.loads((built / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
    [lim] = [lim for lim in find_limitations(record) if lim.scope == scope]
    marked = re.compile(rf'(data-pointer="{pointer}" title="[^"]*">[^<]*</span>)&#8288;<a class="bl-lim-mark" [^>]*>&#9888;</a>')
    found = audited_after_edit(built, tmp_path, LLM, lambda html: marked.sub(r"\1", html, count=1))
    assert found == [f'SITE/{LLM}: shows {sha[:12]} {pointer} without the ⚠ of its limitation {lim.anchor} ({lim.rule_id}: '
                     f'"{lim.text[:80]}"): the page was edited']
