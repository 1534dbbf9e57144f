"""The explorer and a comparison page in Debian's chromium (Playwright, headless): the explorer
sorts, filters by a column and by text, and its link leads to the case on its article, over
http and from file://; the comparison page draws every chart and hovering a point shows its
record's sha256 and pointer; no console errors, no request leaving 127.0.0.1."""

from __future__ import annotations

import os
import re

import pytest

from tests.site_gen.site_support import ARTIFACTS, serve
from tests.site_gen.test_browser import CHROMIUM, Watch, browser, charts_drawn  # noqa: F401 (browser: the shared fixture)
from tests.site_gen.test_comparisons import links, variant_site

pytestmark = [pytest.mark.browser]
EXPLORER = "explore/gsh-llm-core-article-1.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("needs Debian's chromium (make chromium)")
    records, result = variant_site(tmp_path_factory.mktemp("browser-comparisons"))
    return result.out_dir


def headers(page) -> list[str]:
    return page.locator(".bl-explorer-table thead th").all_inner_texts()


def decode_column(page) -> list[float]:
    column = 1 + next(i for i, h in enumerate(headers(page)) if h.startswith("server decode (median)"))
    texts = page.locator(f".bl-explorer-table tbody tr td:nth-child({column})").all_inner_texts()
    return [float(re.sub(r"[^0-9.]", "", t)) for t in texts]


def drive_explorer(page) -> None:
    page.locator(".bl-explorer-table tbody tr").first.wait_for()
    # the case, then the settings that differ between rows, then the numbers; a setting with one
    # value in every row is said once above the table and its column comes last
    shown = [h.split(" (")[0] for h in headers(page)]
    assert shown[:5] == ["case", "GPU", "runtime release", "GPU layers", "context"], shown
    assert shown[5].startswith("server decode"), shown
    assert shown[-6:] == ["model", "quantisation", "CPU", "KV cache type", "threads", "tested"], shown
    assert page.locator(".bl-explorer-same").inner_text().split("\n")[0] == "Same in all 18 rows:"
    assert "model Qwen2.5-72B-Instruct" in page.locator(".bl-explorer-same").inner_text().replace("\n", " ")
    assert page.locator('select[data-column="model"]').count() == 0  # one value: nothing to pick
    # a whole header cell sorts, not only its words: the button fills the cell's width
    widths = page.evaluate("[...document.querySelectorAll('.bl-explorer-table th')].map(th => "
                           "[th.querySelector('button').offsetWidth, th.clientWidth - parseFloat(getComputedStyle(th).paddingLeft)"
                           " - parseFloat(getComputedStyle(th).paddingRight)])")
    assert all(abs(button - cell) <= 1 for button, cell in widths), widths
    decode = page.locator(".bl-explorer-sort", has_text="server decode (median)").bounding_box()
    assert decode["x"] + decode["width"] <= page.viewport_size["width"]  # in view without scrolling
    assert page.locator(".bl-explorer-table tbody tr").count() == 18
    assert page.locator(".bl-explorer-status").inner_text() == "18 of 18 rows match."
    # rows of several records: each case cell names its record, its case and its point
    first_case = page.locator(".bl-explorer-table tbody tr td:first-child").first.inner_text()
    assert re.fullmatch(r"llm-cpu-offload/\S+ · offload-72b-\S+ · context \d{1,3}(,\d{3})*", first_case), first_case
    header = page.locator(".bl-explorer-sort", has_text="server decode (median)")
    header.click()
    values = decode_column(page)
    assert values == sorted(values) and values[0] < 1
    header.click()
    values = decode_column(page)
    assert values == sorted(values, reverse=True) and values[0] > 30  # the H200's 81-layer case
    # a number carries its origin
    title = page.locator(".bl-explorer-table tbody tr").first.locator(".bl-num").first.get_attribute("title")
    assert re.search(r"record sha256 [0-9a-f]{64} · pointer /cases/0/groups/\d/server_decode_tokens_per_second/median", title)
    page.locator('select[data-column="gpu"]').select_option(label="NVIDIA H200 (6)")
    assert page.locator(".bl-explorer-table tbody tr").count() == 6
    page.locator(".bl-explorer-search").fill("offload-72b-40")
    assert page.locator(".bl-explorer-table tbody tr").count() == 2
    assert page.locator(".bl-explorer-status").inner_text() == "2 of 18 rows match."
    page.locator(".bl-explorer-search").fill("")
    page.locator('select[data-column="gpu"]').select_option("")
    page.locator(".bl-explorer-search").fill("b11200")
    assert page.locator(".bl-explorer-table tbody tr").count() == 6


def test_explorer_sorts_filters_and_links_to_the_case(site, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        page.goto(base + "comparisons/index.html")
        page.locator("a", has_text="Explore every case").first.click()
        page.wait_for_url(base + EXPLORER)
        drive_explorer(page)
        page.screenshot(path=str(ARTIFACTS / "explorer.png"), full_page=True)
        link = page.locator(".bl-explorer-table tbody tr").first.locator("a")
        href = link.get_attribute("href")
        assert href.startswith("../articles/llm-cpu-offload/b11200.html#case-")
        link.click()
        page.wait_for_url(re.compile(re.escape(base + "articles/llm-cpu-offload/b11200.html#case-") + r"\d"))
        assert page.locator(f"#{href.split('#')[1]}").is_visible()
        assert watch.errors == [] and watch.outside == []
        page.close()


def test_explorer_works_from_file(site, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    watch = Watch(page, "file://")
    page.goto((site / EXPLORER).as_uri())
    drive_explorer(page)
    assert watch.errors == [] and watch.outside == []
    page.close()


def test_comparison_page_draws_its_charts_and_hover_shows_the_origin(site, browser):
    index = (site / "comparisons" / "index.html").read_text(encoding="utf-8")
    target = "comparisons/" + links(index, "torch-graph-replay-1")["device"]
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        page.goto(base + "comparisons/index.html")
        page.locator(f'a[href="{target.split("/", 1)[1]}"]').click()
        page.wait_for_url(base + target)
        total, _ = charts_drawn(page)
        points = page.locator(".bl-chart-view .bl-chart-live svg g.mark-symbol.role-mark path")
        assert total == 3 and points.count() == 3 * 2 * 8  # three metrics, two devices, eight token lengths
        point = points.nth(7)  # the largest token length: points there lie apart
        point.hover(force=True)
        tooltip = page.locator("#vg-tooltip-element")
        tooltip.wait_for(state="visible")
        assert re.search(r"record [0-9a-f]{12} · pointer /measurements/\d/timing/eager/mean_ms", tooltip.inner_text())
        # numbers in decimal notation: 32,768 tokens read "3.277e+4"
        assert re.search(r"tokens\s+[0-9]{1,3}(,[0-9]{3})*\s", tooltip.inner_text()) and "e+" not in tooltip.inner_text()
        # the derived ratio's hover names its formula and both records' pointers
        ratio = page.locator('.bl-num.bl-derived[data-formula="B / A"]').first
        title = ratio.get_attribute("title")
        assert "derived: B / A" in title and re.search(r"A = record [0-9a-f]{64} pointer /measurements/\d/", title)
        page.screenshot(path=str(ARTIFACTS / "comparison-device.png"), full_page=True)
        # a record's 12-hex prefix is a name: it wrapped ("24492206c24" / "d") where the table
        # was squeezed, as on a phone
        page.set_viewport_size({"width": 390, "height": 844})
        prefix = page.locator("td code.bl-hash[title]").first
        assert prefix.evaluate("e => e.getBoundingClientRect().height") < 1.5 * prefix.evaluate(
            "e => parseFloat(getComputedStyle(e).lineHeight) || 16"), "the hash prefix wrapped"
        assert watch.errors == [] and watch.outside == []
        page.close()


def test_on_a_phone_the_explorer_keeps_the_case_beside_a_scrolled_to_measurement(site, browser):
    """At 390 px the table scrolls inside itself, not the page; scrolled to a measurement, the
    case's column stays at the left beside it, its link wrapped to fit beside the numbers."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    with serve(site) as base:
        page.goto(base + EXPLORER)
        page.locator(".bl-explorer-table tbody tr").first.wait_for()
        assert page.evaluate("document.documentElement.scrollWidth") == 390
        case = page.locator(".bl-explorer-table tbody tr").first.locator("td").first
        left = case.bounding_box()
        assert left["width"] < 200, left  # wrapped: room for numbers beside it
        header = page.locator(".bl-explorer-sort", has_text="server decode (median)")
        page.evaluate("h => { const t = h.closest('table'); t.scrollLeft = h.closest('th').offsetLeft - t.querySelector('th').offsetWidth; }",
                      header.element_handle())
        page.wait_for_timeout(100)
        shown = header.bounding_box()
        assert shown["x"] >= left["x"] + left["width"] - 1 and shown["x"] + shown["width"] <= 390, (left, shown)
        assert case.bounding_box()["x"] == left["x"]  # the case column did not scroll away
    context.close()
