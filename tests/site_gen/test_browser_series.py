"""A series page in Debian's chromium (Playwright, headless), served on 127.0.0.1: every chart
drawn by Vega, the detected change marked on the decode charts (a dashed rule and its label),
the claim's provenance on hover, the History index linking to it; no console errors and no
request leaving 127.0.0.1. A screenshot goes to tests/artifacts/ for a person to look at."""

from __future__ import annotations

import os
import re

import pytest

from tests.history import llm_history
from tests.site_gen.site_support import ARTIFACTS, serve
from tests.site_gen.test_browser import ARGS, CHROMIUM, PHONE, Watch, charts_drawn
from tests.site_gen.test_series_pages import SERIES, history_site

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("needs Debian's chromium (make chromium)")
    return history_site(tmp_path_factory.mktemp("browser-series"), llm_history(8, drop_from=6))


def test_the_series_page_draws_the_change(site):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        page.goto(base + "series/index.html")
        page.locator('a[href="bc915e547af1.html"]').click()
        page.wait_for_url(base + SERIES)
        total, drawn = charts_drawn(page)
        assert total == 10 and drawn >= 80  # ten tracks of eight records each
        # the change is drawn on the two decode charts: a dashed rule and its label
        labels = page.eval_on_selector_all(".bl-chart-live svg g.mark-text.role-mark text", "els => els.map(e => e.textContent)")
        assert sum(t.endswith("%, worse") for t in labels) == 2
        rules = page.eval_on_selector_all(".bl-chart-live svg g.mark-rule line[stroke-dasharray]",
                                          "els => els.map(e => e.getAttribute('aria-label'))")
        assert len(rules) == 2 and all("at: b11151; kind: worse" in r for r in rules)
        # on the first decode chart the rule stands exactly at the sixth record's point
        x_of = """(svg, sel) => {
            const el = svg.querySelector(sel);
            return el ? parseFloat(el.getAttribute('transform').match(/translate\\(([-0-9.]+)/)[1]) : null; }"""
        first = page.locator("#chart-track-0 .bl-chart-live svg")
        rule_x = first.evaluate(f"svg => ({x_of})(svg, 'g.mark-rule line[stroke-dasharray]')")
        point_x = first.evaluate(f"svg => ({x_of})(svg, 'g.mark-symbol path[aria-label*=\"b11151\"]')")
        assert rule_x is not None and rule_x == point_x
        assert first.locator("g.mark-text.role-mark text").first.evaluate("e => e.textContent").startswith("−1")
        # a point's source (its tooltip's "record", which Vega's label of the point repeats) is made by
        # the browser from its trace: the words the table behind the chart gives, from Python
        said = first.locator('g.mark-symbol path[aria-label*="b11151"]').get_attribute("aria-label")
        source = page.locator("#chart-track-0 .bl-chart-data tr", has_text="b11151").locator("td").last.text_content()
        assert re.fullmatch(r"record [0-9a-f]{12} · pointer /cases/0/groups/\d/\S+", source) and f"record: {source}" in said
        # the claim carries its provenance on hover
        claim = page.locator(".bl-changes .bl-claim").first
        title = claim.get_attribute("title")
        assert "record sha256" in title and "algorithm (e-divisive)" in title and "parameters:" in title
        claim.hover()
        page.screenshot(path=str(ARTIFACTS / "series-change.png"), full_page=True)
        assert watch.errors == []
        # a track without ranges (aggregate throughput) drew a range layer over null fields
        assert not [w for w in watch.warnings if "Infinite extent" in w], watch.warnings
        assert watch.outside == []
        browser.close()


def test_on_a_phone_the_change_label_stays_inside_its_chart(site):
    """At 390 px the label of a change near the last records ran past the plot: the charts' SVG
    grew wider than their column and the browser scaled their text down to 9 px. Vega also warned
    of conflicting sort properties (the segments' x2 had none)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(**PHONE)
        page = context.new_page()
        watch = Watch(page, base)
        page.goto(base + SERIES)
        charts_drawn(page)
        assert page.evaluate("[innerWidth, document.documentElement.scrollWidth]") == [390, 390]
        # every live chart drawn at its own size: the SVG no wider than its column, never scaled
        sizes = page.evaluate("[...document.querySelectorAll('.bl-chart-live svg')].map(s => "
                              "[s.getAttribute('width') - s.getBoundingClientRect().width, s.closest('.bl-chart-view').clientWidth - s.getBoundingClientRect().width])")
        assert len(sizes) == 10 and all(abs(scaled) < 0.5 and room >= 0 for scaled, room in sizes), sizes
        labels = page.eval_on_selector_all(".bl-chart-live svg g.mark-text.role-mark text", "els => els.map(e => e.getBoundingClientRect().height)")
        assert len(labels) == 2 and min(labels) >= 10, labels
        # whole, not cut with an ellipsis ("+13.4%, changed, bet…" on a phone)
        texts = page.eval_on_selector_all(".bl-chart-live svg g.mark-text.role-mark text", "els => els.map(e => e.textContent)")
        assert all(t.endswith("%, worse") for t in texts), texts
        page.locator("#chart-track-0").screenshot(path=str(ARTIFACTS / "phone-series-change.png"))
        assert watch.errors == [] and watch.outside == []
        assert not [w for w in watch.warnings if "sort" in w.lower()], watch.warnings
        context.close()
        browser.close()


def test_on_slate_a_change_label_is_drawn_in_the_dark_schemes_colour(site):
    """The label's red (#c0392b) read at 2.96:1 on the slate page; the spec's colours are
    swapped for the dark scheme's before the chart is drawn."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
        page = context.new_page()
        page.goto(base + SERIES)
        charts_drawn(page)
        fills = page.eval_on_selector_all(".bl-chart-live svg g.mark-text.role-mark text", "els => els.map(e => e.getAttribute('fill'))")
        assert fills == ["#ff8a80", "#ff8a80"], fills
        context.close()
        browser.close()
