"""The built site in Debian's chromium (Playwright, headless) served on 127.0.0.1: navigation
from home to the articles, every chart drawn, the hash check saying match and then mismatch
once the served copy is altered, search finding a record by model name, GPU and hash prefix, no
console errors, no request leaving 127.0.0.1. Screenshots go to tests/artifacts/ for a person
to look at."""

from __future__ import annotations

import hashlib
import json
import re
import os
from pathlib import Path

import pytest

from tests.site_gen.site_support import ARTIFACTS, GRAPH_PAGE, OFFLOAD_PAGE, build, serve

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="needs Debian's chromium (make chromium)"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build(tmp_path_factory.mktemp("browser")).out_dir


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


class Watch:
    """Console errors, page errors and every request that is not to the local server."""

    def __init__(self, page, base: str):
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("console", lambda m: self.warnings.append(m.text) if m.type == "warning" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def route(r):
            if r.request.url.startswith(base) or r.request.url.startswith("data:") or r.request.url.startswith("blob:"):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()

        page.route("**/*", route)


def charts_drawn(page) -> tuple[int, int]:
    """(charts on the page, charts whose live view has an svg with marks)."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('.bl-chart-view')].every(v => v.querySelector('.bl-chart-live svg .mark-line, .bl-chart-live svg .mark-symbol'))",
        timeout=30000,
    )
    total = page.locator(".bl-chart-view").count()
    drawn = page.locator(".bl-chart-view .bl-chart-live svg g.mark-symbol path").count()
    return total, drawn


def test_home_articles_charts_and_hash_check(site: Path, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        fetched: list[str] = []
        page.on("requestfinished", lambda r: fetched.append(r.url))
        page.goto(base + "index.html")
        assert page.locator(".bl-card").count() == 2
        page.screenshot(path=str(ARTIFACTS / "home.png"), full_page=True)
        page.wait_for_load_state("networkidle")
        # Vega's 900 KB bundle is fetched by a page with a chart to draw, not by one without
        assert not [url for url in fetched if "vega-bundle" in url]

        for target, shot in ((OFFLOAD_PAGE, "article-llm-cpu-offload.png"), (GRAPH_PAGE, "article-torch-graph-replay.png")):
            page.goto(base + "index.html")
            page.locator(f'.bl-card-title a[href="{target}"]').click()
            page.wait_for_url(base + target)
            total, drawn = charts_drawn(page)
            assert total >= 3 and drawn > 0
            assert [url for url in fetched if "vega-bundle" in url][-1] == base + "assets/vendor/vega-bundle.js"
            assert page.locator("img[src$='.svg']").count() == 0  # every static fallback replaced
            page.locator(".bl-verify").click()
            result = page.locator(".bl-verify-result")
            result.filter(has_text="match").wait_for()
            assert result.inner_text().startswith("match:")
            # the download is saved under the name the block's sha256sum line uses, with the bytes it names
            with page.expect_download() as saved:
                page.locator(".bl-audit a[download]").click()
            audit = page.locator(".bl-audit")
            assert audit.locator("pre code").inner_text().splitlines()[0] == "sha256sum " + saved.value.suggested_filename
            assert hashlib.sha256(Path(saved.value.path()).read_bytes()).hexdigest() == audit.get_attribute("data-sha256")
            page.screenshot(path=str(ARTIFACTS / shot), full_page=True)

        # Alter the served copy: the same button must now say mismatch.
        served = site / "records" / "torch-graph-replay" / "2026-10-28.json"
        original = served.read_bytes()
        try:
            served.write_bytes(original.replace(b"1", b"2", 1))
            page.locator(".bl-verify").click()
            page.locator(".bl-verify-result.bl-mismatch").wait_for()
            assert page.locator(".bl-verify-result").inner_text().startswith("mismatch:")
        finally:
            served.write_bytes(original)

        assert watch.errors == []
        assert watch.outside == []
        page.close()


def test_hash_check_from_file_url_with_picked_file(site: Path, browser):
    """Opened from file:// the fetch is blocked; picking the downloaded file still checks it."""
    page = browser.new_page()
    page.goto((site / GRAPH_PAGE).as_uri())
    total, drawn = charts_drawn(page)  # Vega's bundle loads from beside the site's script there too
    assert total >= 3 and drawn > 0
    page.locator(".bl-verify").click()
    page.locator(".bl-verify-result.bl-error").wait_for()
    page.locator(".bl-file").set_input_files(str(site / "records" / "torch-graph-replay" / "2026-10-28.json"))
    page.locator(".bl-verify-result.bl-match").wait_for()
    # Search needs http: from file:// the search page says so instead of failing silently.
    page.goto((site / "search.html").as_uri())
    page.locator(".bl-search-offline").wait_for()
    assert page.locator(".pagefind-ui__search-input").count() == 0
    page.close()


def test_search_merges_the_shards_of_a_large_sites_articles(tmp_path, browser, monkeypatch):
    """A site with enough articles has them indexed in shards beside the primary bundle
    (site_gen/search_index.py): the search page merges them, so a query finds an article
    whatever bundle holds it (here a shard per article or two)."""
    from playwright.sync_api import expect

    from site_gen import search_index

    monkeypatch.setattr(search_index, "PAGES_PER_SHARD", 1)
    sharded = build(tmp_path).out_dir
    assert json.loads((sharded / search_index.SHARDS_MANIFEST).read_bytes())  # no article left in the primary
    graph_prefix = hashlib.sha256((sharded / "records" / "torch-graph-replay" / "2026-10-28.json").read_bytes()).hexdigest()[:12]
    with serve(sharded) as base:
        page = browser.new_page()
        watch = Watch(page, base)
        fetched: list[str] = []
        page.on("requestfinished", lambda r: fetched.append(r.url))
        # (found, not ranked: a shard of one or two pages ranks its words far below the
        # primary's, which is why a real site's shards hold PAGES_PER_SHARD articles or more)
        for query, target in ((graph_prefix, GRAPH_PAGE), ("qwen25-72b-q4", OFFLOAD_PAGE)):
            page.goto(base + "search.html?q=" + query)
            expect(page.locator(f'.pagefind-ui__result-link[href="/{target}"]')).to_have_count(1)
        assert watch.errors == [] and watch.outside == []
        assert {url.split("/pagefind/shards/")[1].split("/")[0] for url in fetched if "/pagefind/shards/" in url and "/fragment/" in url}
        page.close()


def test_search_finds_a_record_by_model_name_gpu_and_hash_prefix(site: Path, browser):
    """Typed into the search page's box over http (Pagefind's index, fetched in pieces from the
    site itself): a model id only one record has, a GPU name, then the 12-hex prefix the home
    page shows for the other record; the first result is that record's article, and a result
    link opens it. `?q=` on the search page starts the same search."""
    from playwright.sync_api import expect

    graph_record = site / "records" / "torch-graph-replay" / "2026-10-28.json"
    graph_prefix = hashlib.sha256(graph_record.read_bytes()).hexdigest()[:12]
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        fetched: list[str] = []
        page.on("requestfinished", lambda r: fetched.append(r.url))
        page.goto(base + "index.html")
        page.locator("a.md-tabs__link", has_text="Search").click()
        page.wait_for_url(base + "search.html")
        for query, target in (("qwen25-72b-q4", OFFLOAD_PAGE), ("RTX 4090", GRAPH_PAGE), (graph_prefix, GRAPH_PAGE)):
            page.goto(base + "search.html")
            box = page.locator(".pagefind-ui__search-input")
            box.click()
            box.press_sequentially(query)
            top = page.locator(".pagefind-ui__result-link").first
            expect(top).to_have_attribute("href", "/" + target)
            top.click()
            page.wait_for_url(base + target)
        page.goto(base + "search.html?q=" + graph_prefix)
        expect(page.locator(".pagefind-ui__result-link").first).to_have_attribute("href", "/" + GRAPH_PAGE)
        # a result names the record's test date: repeated runs of one setup share their title
        expect(page.locator(".pagefind-ui__result-link").first).to_have_text(re.compile(r"torch 2\.9\.1\+cu128 \(2026-10-28\)$"))
        # a model's name finds its record and the write-up about it, not the listings that name
        # the write-up (tag pages, the write-ups' index)
        page.goto(base + "search.html?q=qwen")
        page.locator(".pagefind-ui__result-link").first.wait_for()
        expect(page.locator(".pagefind-ui__message")).to_contain_text("result")
        pages = {h.split("#")[0] for h in page.locator(".pagefind-ui__result-link").evaluate_all("els => els.map(e => e.getAttribute('href'))")}
        assert pages == {"/" + OFFLOAD_PAGE, "/posts/llama-cpp-cpu-offload-72b.html"}, pages
        # excerpts quote the page's text, not a table's header row ("field value. Run. ...")
        page.goto(base + "search.html?q=fp16")
        page.locator(".pagefind-ui__result-excerpt").first.wait_for()
        excerpts = page.locator(".pagefind-ui__result-excerpt").all_inner_texts()
        assert excerpts and not any("field value" in e for e in excerpts), excerpts
        assert watch.errors == []
        assert watch.outside == []
        assert any("/pagefind/fragment/" in url for url in fetched)  # pieces, not one whole index
        assert not any("search_index.json" in url for url in fetched)
        page.close()


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# the narrowest gap, in px, between neighbouring visible labels of each live chart's horizontal x axis
X_LABEL_GAPS = """[...document.querySelectorAll('.bl-chart-live svg g.role-axis')]
  .filter(axis => (axis.getAttribute('aria-label') || '').startsWith('X-axis'))
  .map(axis => [...axis.querySelectorAll('g.role-axis-label text')]
    .filter(t => t.textContent && t.getAttribute('opacity') !== '0' && !(t.getAttribute('transform') || '').includes('rotate'))
    .map(t => t.getBoundingClientRect()).sort((a, b) => a.left - b.left))
  .filter(boxes => boxes.length > 1)
  .map(boxes => Math.min(...boxes.slice(1).map((box, i) => box.left - boxes[i].right)))"""


@pytest.mark.parametrize("path", ["index.html", OFFLOAD_PAGE, GRAPH_PAGE, "methodology.html", "audit.html"])
def test_on_a_phone_no_page_runs_wider_than_the_screen_and_chart_text_stays_readable(site: Path, browser, path):
    """An audit at 390 px: unwrapped tables (a provenance row of long URLs, an opened chart-data
    panel) made pages 583-1036 px wide, and charts scaled their text down to 5 px."""
    with serve(site) as base:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        watch = Watch(page, base)
        page.goto(base + path)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.wait_for_timeout(100)
        # a phone widens the layout viewport to fit wide content (and zooms out): measure against the screen
        assert page.evaluate("[innerWidth, document.documentElement.scrollWidth]") == [390, 390]
        # a table wider than the screen scrolls inside itself, and an edge shadow that moves with
        # its rows says so (its cover gradients scroll with the content: attachment "local")
        cues = page.evaluate("[...document.querySelectorAll('table.bl-table')].filter(t => t.scrollWidth > t.clientWidth + 1)"
                             ".map(t => [getComputedStyle(t).backgroundAttachment, getComputedStyle(t).backgroundImage])")
        assert path != GRAPH_PAGE or cues, "the graph-replay article's measurement table is wider than a phone"
        assert all(a.startswith("local, local") and i.count("radial-gradient") == 2 for a, i in cues), cues
        if page.locator(".bl-chart-view").count():
            charts_drawn(page)
            smallest = page.evaluate("Math.min(...[...document.querySelectorAll('.bl-chart-live svg text')]"
                                     ".map(t => t.getBoundingClientRect().height).filter(h => h > 0))")
            assert smallest >= 8, smallest
            # unrotated x-axis labels a reader can see keep a gap between them (a log axis ran "100200")
            gaps = page.evaluate(X_LABEL_GAPS)
            assert all(gap >= 3 for gap in gaps), gaps
            labels = page.evaluate("[...document.querySelectorAll('.bl-chart-live')].map(v => v.getAttribute('aria-label'))")
            assert labels and all(label and any(c.isdigit() for c in label) for label in labels), labels
        # a limitation marker is a target a finger can hit: 24 px at least (WCAG 2.2), not its 10 px glyph
        sizes = page.evaluate("[...document.querySelectorAll('.bl-lim-mark')].filter(m => m.offsetParent)"
                              ".map(m => m.getBoundingClientRect()).map(r => [r.width, r.height])")
        assert path != OFFLOAD_PAGE or sizes, "the offload article marks limitations"
        assert all(w >= 24 and h >= 24 for w, h in sizes), sizes[:5]
        # ... on the line of the number it marks: a marker wrapped to the next line marked nothing there
        apart = page.evaluate("""[...document.querySelectorAll('.bl-num + .bl-lim-mark')].filter(m => m.offsetParent)
            .map(m => [m.previousElementSibling.getClientRects(), m.getBoundingClientRect()])
            .filter(([rects, mark]) => rects.length && mark.top >= rects[rects.length - 1].bottom).length""")
        assert apart == 0, f"{apart} limitation markers sit on another line than their number"
        # an article's facts stack under their names, each sentence the card's full width
        stacked = page.evaluate("[...document.querySelectorAll('.bl-facts dd')].map(d => [d.getBoundingClientRect().left,"
                                " d.previousElementSibling.getBoundingClientRect().left])")
        assert all(abs(dd - dt) < 1 for dd, dt in stacked), stacked
        if page.locator(".bl-head .bl-num").count():  # no hover on a phone: a tap shows the source, a second hides it
            number = page.locator(".bl-head .bl-num").first
            number.tap()
            assert page.locator(".bl-num-source").first.inner_text().startswith("record sha256 ")
            number.tap()
            assert page.locator(".bl-num-source").count() == 0
        page.screenshot(path=str(ARTIFACTS / f"phone-{path.replace('/', '-')}.png"), full_page=False)
        context.close()
        assert watch.errors == [] and watch.outside == []


def test_a_reader_can_switch_to_the_dark_scheme_and_charts_follow_it(site: Path, browser):
    """Charts drawn before the switch are drawn again on the slate ground with light text, not
    left as white boxes; one drawing each, still labelled for screen readers."""
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        page.goto(base + OFFLOAD_PAGE)
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "default"
        total, _ = charts_drawn(page)
        page.locator('label[for="__palette_1"]').first.click()
        page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
        page.wait_for_function("[...document.querySelectorAll('.bl-chart-live svg')].every(s => "
                               "getComputedStyle(s).backgroundColor !== 'rgb(255, 255, 255)')")
        drawn = page.evaluate("""[...document.querySelectorAll('.bl-chart-view')].map(v => [
            v.querySelectorAll('.bl-chart-live').length, v.querySelector('.bl-chart-live').getAttribute('aria-label'),
            getComputedStyle(v.querySelector('.bl-chart-live svg')).backgroundColor,
            v.querySelector('.bl-chart-live g.role-axis-label text').getAttribute('fill')])""")
        assert len(drawn) == total
        for count, label, ground, label_fill in drawn:
            assert count == 1 and label, (count, label)
            assert ground in ("rgba(0, 0, 0, 0)", "transparent"), ground  # the page's slate shows through
            assert label_fill.lower() in ("#fff", "#ffffff", "white"), label_fill  # light tick labels
        page.screenshot(path=str(ARTIFACTS / "dark.png"))
        page.close()
        assert watch.errors == [] and watch.outside == []


# WCAG contrast of an element's text (or outline) against the first opaque ground behind it.
CONTRAST_JS = """(el, what) => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => v / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  let ground = el, bg = null;
  while (ground) { const c = rgb(getComputedStyle(ground).backgroundColor); if (c.length < 4 || c[3] > 0) { bg = c; break; } ground = ground.parentElement; }
  bg = bg || [255, 255, 255];
  const fg = rgb(getComputedStyle(el)[what]);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def test_a_dark_system_gets_the_dark_scheme_and_its_controls_read(site: Path, browser):
    """An audit measured, on slate: the outlined download button at 2.35:1, links in the grey
    boxes at 4.13:1, the log check's result at 3.18:1; and a reader whose system is dark got
    the light scheme. Small text needs 4.5:1."""
    with serve(site) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
        page = context.new_page()
        watch = Watch(page, base)
        page.goto(base + OFFLOAD_PAGE)
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == "slate"
        page.locator(".bl-tlog-steps .bl-step-summary").wait_for()
        for selector in (".bl-audit a.md-button:not(.md-button--primary)", ".bl-head dd a", ".bl-audit caption a",
                         ".bl-tlog-steps .bl-step-summary", ".bl-tlog-check"):
            element = page.locator(selector).first
            assert element.evaluate(CONTRAST_JS, "color") >= 4.5, selector
        context.close()
        assert watch.errors == [] and watch.outside == []


def test_the_copy_button_copies_the_hash_and_says_so_aloud(site: Path, browser):
    """The button's text changed to "copied", which a screen reader does not announce."""
    with serve(site) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base.rstrip("/"))
        page = context.new_page()
        page.goto(base + "index.html")
        button = page.locator(".bl-copy").first
        sha = button.get_attribute("data-copy")
        button.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('.bl-announce') !== null")
        assert page.locator(".bl-announce").get_attribute("role") == "status"
        assert page.locator(".bl-announce").inner_text() == f"Copied the SHA-256 {sha}"
        assert button.inner_text() == "copied" and page.evaluate("navigator.clipboard.readText()") == sha
        assert page.locator(".bl-announce").bounding_box()["width"] <= 1  # heard, not seen
        context.close()


def test_keyboard_focus_shows_in_the_light_scheme(site: Path, browser):
    """The explorer's filter field showed no focus at all; Material's amber ring and link colour
    read at 1.9:1 on white, where a focus indicator needs 3:1."""
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base + "explore/gsh-llm-core-article-1.html")
        page.locator(".bl-explorer-search").focus()
        assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
        assert page.evaluate("parseFloat(getComputedStyle(document.activeElement).outlineWidth)") >= 2
        assert page.locator(".bl-explorer-search").evaluate(CONTRAST_JS, "outlineColor") >= 3
        page.goto(base + OFFLOAD_PAGE)
        for _ in range(40):  # to a link in the article, by keyboard (focus-visible)
            page.keyboard.press("Tab")
            if page.evaluate("!!document.activeElement.closest('.md-typeset') && document.activeElement.tagName === 'A'"):
                break
        link = page.locator(":focus")
        assert link.evaluate("el => el.matches(':focus-visible')")
        for what in ("outlineColor", "color"):
            assert link.evaluate(CONTRAST_JS, what) >= 3, what
        page.close()


def test_the_explorer_of_one_record_names_each_row_by_its_case_and_point(site: Path, browser):
    """The shipped offload record: its path is said once above the table, not in every row; a
    row's case cell names its point, so it still does scrolled to the last measurement; a column
    filter's "all" counts rows as each value's count does; a context reads with grouped
    digits and is found typed either way; a unit is said in the header only."""
    with serve(site) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = Watch(page, base)
        page.goto(base + "explore/gsh-llm-core-article-1.html")
        page.locator(".bl-explorer-table tbody tr").first.wait_for()
        cases = page.locator(".bl-explorer-table tbody tr td:first-child").all_inner_texts()
        assert cases[:2] == ["offload-72b-full · context 2,048", "offload-72b-full · context 8,192"], cases
        same = page.locator(".bl-explorer-same").inner_text().replace("\n", " ")
        assert "record llm-cpu-offload/2026-09-27.json" in same, same
        options = page.locator('select[data-column="context_tokens"] option').all_inner_texts()
        assert options == ["all (6)", "2,048 (3)", "8,192 (3)"], options
        for typed in ("8192", "8,192"):  # the record's text or the shown one finds the same rows
            page.locator(".bl-explorer-search").fill(typed)
            assert page.locator(".bl-explorer-status").inner_text() == "3 of 6 rows match.", typed
        page.locator(".bl-explorer-search").fill("")
        assert "from 1 record." in page.locator(".bl-lede").inner_text()
        header = page.locator(".bl-explorer-sort", has_text="server decode (median)").inner_text()
        decode = page.locator(".bl-explorer-table tbody tr").first.locator(".bl-num").first.inner_text()
        assert header.endswith("(tokens/s)") and decode == "25.8", (header, decode)
        assert watch.errors == [] and watch.outside == []
        page.close()
