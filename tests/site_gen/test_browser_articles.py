"""Authored articles in Debian's chromium (Playwright, headless) against the built site served on
127.0.0.1: reached from the navigation, charts drawn, and a hovered cited number showing its
origin (record sha256 and JSON pointer). Screenshots of each article go to tests/artifacts/."""

from __future__ import annotations

import os

import pytest

from .authored_support import GRAPH, OFFLOAD, build_real, copy_project
from .site_support import ARTIFACTS, serve
from .test_browser import ARGS, CHROMIUM, Watch, charts_drawn

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="needs Debian's chromium (make chromium)"),
]

ARTICLES = [
    ("llama-cpp-cpu-offload-72b", OFFLOAD, "/cases/1/groups/0/server_decode_tokens_per_second/median", "1.08 tokens/s"),
    ("cuda-graph-replay-scoring", GRAPH, "/measurements/1/timing/graph/mean_ms", "4.72 ms"),
]


def test_authored_articles_hover_shows_origin(tmp_path):
    from playwright.sync_api import sync_playwright

    # the articles are the project's, not the install's: build from a copy of both
    site = build_real(tmp_path, *copy_project(tmp_path))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        for slug, sha256, pointer, shown in ARTICLES:
            page.goto(base + "index.html")
            page.get_by_role("link", name="Write-ups").first.click()
            page.wait_for_url(base + "posts/index.html")
            page.locator(f'.bl-post-title a[href="{slug}.html"]').click()
            page.wait_for_url(base + f"posts/{slug}.html")
            total, drawn = charts_drawn(page)
            assert total >= 1 and drawn > 0
            page.screenshot(path=str(ARTIFACTS / f"authored-{slug}.png"), full_page=True)

            number = page.locator(f'.bl-post p .bl-num[data-pointer="{pointer}"]').first
            assert number.inner_text().replace("\u202f", " ") == shown
            number.scroll_into_view_if_needed()
            number.hover()
            tip = number.evaluate("e => getComputedStyle(e, '::after').content")
            assert f"record sha256 {sha256}" in tip and f"pointer {pointer}" in tip
            page.screenshot(path=str(ARTIFACTS / f"authored-{slug}-hover.png"))

            derived = page.locator(".bl-post p .bl-num.bl-derived").first
            derived.hover()
            assert "derived: a / b = " in derived.evaluate("e => getComputedStyle(e, '::after').content")

            # no hovered number's box reaches past the window: one near the right edge of the text
            # made the page 1,468 px wide at 1,280
            numbers = page.locator(".bl-post :is(p, li) .bl-num")
            widest = 0
            for i in range(numbers.count()):
                numbers.nth(i).scroll_into_view_if_needed()
                numbers.nth(i).hover()
                widest = max(widest, page.evaluate("document.documentElement.scrollWidth"))
            assert numbers.count() > 20 and widest == 1280, (slug, widest)
        assert watch.errors == []
        assert watch.outside == []
        browser.close()


def test_on_a_phone_a_search_result_holding_a_whole_hash_wraps(tmp_path):
    """A result whose excerpt holds a 64-hex hash (a word with no break), and the "3 results for
    <hash>" line above the results, kept the search page wider than a phone's screen (504 px)
    until their text was allowed to break anywhere."""
    from playwright.sync_api import expect, sync_playwright

    from .authored_support import write_article
    from .test_browser import PHONE

    records, articles = copy_project(tmp_path)
    write_article(articles, "hash-notes", f"The offload record is {OFFLOAD} in full, sealed in the ledger.\n", {"r": OFFLOAD})
    site = build_real(tmp_path, records, articles)
    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(**PHONE)
        page = context.new_page()
        watch = Watch(page, base)
        page.goto(base + "search.html?q=" + OFFLOAD)
        result = page.locator('.pagefind-ui__result-link[href$="posts/hash-notes.html"]')
        expect(result).to_have_count(1)
        excerpts = page.locator(".pagefind-ui__result", has=result).locator(".pagefind-ui__result-excerpt").all_inner_texts()
        assert any(OFFLOAD in text for text in excerpts), excerpts
        assert page.evaluate("[innerWidth, document.documentElement.scrollWidth]") == [390, 390]
        page.screenshot(path=str(ARTIFACTS / "phone-search-hash.png"))
        context.close()
        browser.close()
        assert watch.errors == [] and watch.outside == []
