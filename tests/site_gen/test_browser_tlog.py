"""The transparency-log check in Debian's chromium (Playwright, headless) on a site served on
127.0.0.1: every step passes on the honest site, the pinned key is checked, and after the
served files are forged (the checkpoint replaced with one from a rewritten history, a line
edited or removed with the chain recomputed, a whole history rewritten and re-signed) the
failing step is named. Also from file:// with the downloaded files picked."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.forgeries import demo_key, edit_line_rechained, forged_store, remove_line_rechained, republish_proofs
from tests.site_gen.site_support import ARTIFACTS, GRAPH_PAGE, OFFLOAD_PAGE, build, serve
from tests.site_gen.test_browser import CHROMIUM, Watch, browser  # noqa: F401 (browser: the shared fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="needs Debian's chromium (make chromium)"),
]
SUMMARY = '.bl-tlog-steps [data-step="summary"][data-state]'
OFFLOAD_SHA = "ebcfc483a547a02e0f9e7e00a6c699af613474daff04624c2863ae89c6af96a1"


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("tlog-browser")
    honest = build(tmp).out_dir
    records, _ = forged_store(tmp)
    return honest, build(tmp, records, name="rewritten").out_dir


def publish(source: Path, served: Path) -> None:
    """Make the served folder hold exactly `source` (the server keeps serving the folder)."""
    for child in list(served.iterdir()):
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    shutil.copytree(source, served, dirs_exist_ok=True)


def steps(page) -> dict[str, tuple[str, str]]:
    """step -> (state, text) once the check has finished."""
    page.wait_for_selector(SUMMARY, timeout=30000)
    return {name: (state, text) for name, state, text in page.eval_on_selector_all(
        ".bl-tlog-steps li", "items => items.map(i => [i.dataset.step, i.dataset.state, i.textContent])")}


def states(found) -> dict[str, str]:
    return {name: state for name, (state, _) in found.items()}


def test_the_page_check_passes_then_fails_on_forged_histories(sites, browser, tmp_path):
    honest, rewritten = sites
    served = tmp_path / "served"
    served.mkdir()
    publish(honest, served)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serve(served) as base:
        context = browser.new_context()
        page = context.new_page()
        watch = Watch(page, base)

        # Honest site: the check runs by itself; every step passes, no key pinned yet.
        page.goto(base + OFFLOAD_PAGE)
        found = steps(page)
        assert states(found) == {"record": "pass", "line": "pass", "inclusion": "pass", "signature": "pass",
                                 "pinned": "skip", "consistency": "pass", "summary": "pass"}
        assert "first checkpoint this browser sees" in found["consistency"][1]
        assert page.locator(".bl-tlog .bl-demo-key").count() == 1  # the page says the key is a demonstration key

        # Pin the publisher's key: now checked too.
        page.fill(".bl-pin", demo_key().verifier.text)
        page.dispatch_event(".bl-pin", "change")
        page.click(".bl-tlog-check")
        assert states(steps(page))["pinned"] == "pass"
        page.screenshot(path=str(ARTIFACTS / "tlog-pass.png"), full_page=True)

        # The served checkpoint replaced with one from a rewritten history (signed by another key).
        shutil.copy(rewritten / "ledger" / "checkpoint", served / "ledger" / "checkpoint")
        page.reload()
        found = steps(page)
        assert states(found) == {"record": "pass", "line": "pass", "inclusion": "fail", "signature": "fail",
                                 "pinned": "fail", "consistency": "fail", "summary": "fail"}
        assert "history was rewritten" in found["consistency"][1]
        assert found["summary"][1].startswith("FAILED at step inclusion, signature, pinned, consistency")
        assert page.locator(".bl-tlog-warning[role=alert]").inner_text().startswith("Warning: this site's history was rewritten")
        page.screenshot(path=str(ARTIFACTS / "tlog-rewritten.png"), full_page=True)

        # A line edited and the chain recomputed, proofs made again, checkpoint as signed.
        publish(honest, served)
        edit_line_rechained(served / "records" / "ledger.jsonl")
        republish_proofs(served)
        page.reload()
        found = states(steps(page))
        assert found["inclusion"] == "fail" and found["signature"] == "pass" and found["summary"] == "fail"
        assert page.locator(".bl-tlog-warning").count() == 0  # the checkpoint itself still extends the one seen

        # A line removed and the chain recomputed: the other record's proof no longer fits.
        publish(honest, served)
        remove_line_rechained(served / "records" / "ledger.jsonl")
        republish_proofs(served)
        page.goto(base + GRAPH_PAGE)
        found = steps(page)
        assert found["inclusion"][0] == "fail" and "the proof is for tree size 1, the checkpoint signs 2" in found["inclusion"][1]

        # The whole site rebuilt from a rewritten history and re-signed: it holds together, but
        # this browser saw the honest checkpoint and pinned the publisher's key.
        publish(rewritten, served)
        page.goto(base + OFFLOAD_PAGE)
        found = steps(page)
        assert states(found)["signature"] == "pass"  # the forger's own key, published as the site's
        assert states(found)["pinned"] == "fail" and states(found)["consistency"] == "fail"
        assert "history was rewritten" in found["consistency"][1]
        assert watch.errors == [] and watch.outside == []

        # A fresh browser with no memory and no pin cannot tell: why the pin and the memory exist.
        fresh = browser.new_context().new_page()
        fresh.goto(base + OFFLOAD_PAGE)
        assert states(steps(fresh))["summary"] == "pass"
        fresh.context.close()
        context.close()


def test_the_page_check_from_file_url_with_picked_files(sites, browser):
    honest, _ = sites
    context = browser.new_context()
    page = context.new_page()
    page.goto((honest / OFFLOAD_PAGE).as_uri())
    page.wait_for_selector(".bl-tlog-files")
    page.set_input_files(".bl-tlog-files", [str(honest / p) for p in (
        "records/llm-cpu-offload/2026-09-27.json", "ledger/checkpoint", "ledger/vkey", f"ledger/inclusion/{OFFLOAD_SHA}.json")])
    assert states(steps(page)) == {"record": "pass", "line": "pass", "inclusion": "pass", "signature": "pass",
                                   "pinned": "skip", "consistency": "pass", "summary": "pass"}
    context.close()
