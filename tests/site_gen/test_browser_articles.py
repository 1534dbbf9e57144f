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
    ("llama-cpp-cpu-offload-72b", OFFLOAD, "/cases/1/groups/0/server_decode_tokens_per_second/mean", "1.08 tokens/s"),
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
        assert watch.errors == []
        assert watch.outside == []
        browser.close()
