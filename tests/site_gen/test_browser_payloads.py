"""Issue 11, class 1: no record or article text can run script. Records whose every string field
the schemas admit holds a payload (see payloads.py), plus an authored article whose front matter
is hostile, are sealed and built by the real build; every page is loaded in Debian's chromium over
http, focused and hovered, and must not have run a payload (it would set `data-pwned` on <html>),
carry an event handler or a `javascript:` URL derived from record text, or make a request that
leaves the server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchledger.records.store import Store
from site_gen.build import build_site
from site_gen.context import BuildOptions
from tests.site_gen.payloads import ENTITIES, JS, PAYLOADS, encode, hostile
from tests.site_gen.site_support import serve
from tests.site_gen.test_browser import ARGS, CHROMIUM
from tests.store_copies import GSH, TGR, seed

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="needs Debian's chromium (make chromium)"),
]

# What a page must not have, found in the live DOM after load, focus and hover.
DOM_CHECK = """() => {
  const bad = [];
  if (document.documentElement.hasAttribute('data-pwned')) bad.push('a payload ran');
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase(), value = a.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
      if (name.startsWith('on') && value.includes('data-pwned')) bad.push(`handler ${name} on <${el.tagName}>`);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data'].includes(name) && value.startsWith('javascript:'))
        bad.push(`javascript: URL in ${name} of <${el.tagName}>`);
    }
    if (el.tagName === 'SCRIPT' && (el.textContent || '').includes('data-pwned')) bad.push('a <script> holding a payload');
  }
  if (document.title.includes('<') && document.querySelector('title') === null) bad.push('title broken');
  return bad;
}"""


def hostile_article(articles: Path, names: dict[str, str]) -> None:
    """An authored article whose title, summary and authors are payloads, citing the records."""
    refs = "\n".join(f'  {name}: "{sha}"' for name, sha in names.items())
    title = json.dumps(PAYLOADS[0] + " " + PAYLOADS[4])
    summary = json.dumps(" ".join(PAYLOADS[1:9]))
    authors = json.dumps([PAYLOADS[2], PAYLOADS[7]])
    cites = "\n\n".join(f'{{{{ text("{name}", "/device") }}}}' if "graph" in name else f'{{{{ text("{name}", "/models/0/name") }}}}'
                        for name in names)
    (articles / "hostile.md").write_text(
        f"---\ntitle: {title}\ndate: 2026-12-01\nauthors: {authors}\ntags: [xss]\nsummary: {summary}\nrecords:\n{refs}\n---\n"
        f"## Cited\n\n{cites}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("payloads")
    store = Store(tmp / "records")
    (tmp / "records").mkdir()
    names = {}
    # four variants: the i-th string of a record holds payloads i, i+5, i+10 and i+15
    axis_breakouts = (PAYLOADS[2], PAYLOADS[5], PAYLOADS[4], PAYLOADS[3])  # id="...", {#...}, {: ...}
    for n, offset in enumerate((0, 5, 10, 15)):
        for schema_id, stem in ((GSH, "offload"), (TGR, "graph")):
            data, replaced = hostile(seed(schema_id), schema_id, offset)
            assert replaced >= (100 if schema_id == GSH else 10)
            if schema_id == GSH:  # the comparison axis lands in ids, anchors and headings
                data["comparisons"][0]["axis"] = axis_breakouts[n]
            entry = store.seal_bytes(encode(data), schema_id, f"{stem}/hostile-{n}.json")
            names[f"{stem}{n}"] = entry.sha256
    articles = tmp / "articles"
    articles.mkdir()
    hostile_article(articles, names)
    return build_site(tmp / "records", tmp / "site", cache_dir=tmp / "cache",
                      options=BuildOptions(articles_dir=articles)).out_dir


def test_no_payload_runs_on_any_page(hostile_site: Path):
    from playwright.sync_api import sync_playwright

    pages = sorted(p.relative_to(hostile_site).as_posix() for p in hostile_site.rglob("*.html"))
    assert len(pages) >= 10
    found: dict[str, list[str]] = {}
    outside: list[str] = []
    with sync_playwright() as p, serve(hostile_site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page()
        page.on("dialog", lambda d: (found.setdefault("dialog", []).append(d.message), d.dismiss()))

        def route(r):
            if r.request.url.startswith(base) or r.request.url.startswith(("data:", "blob:")):
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        for rel in pages:
            page.goto(base + rel)
            page.wait_for_load_state("load")
            # focus and hover what a payload could hang a handler on
            page.evaluate("""() => { for (const el of document.querySelectorAll('a, h1, h2, h3, em, span, [tabindex]')) {
                el.dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); try { el.focus(); } catch (e) {} } }""")
            page.wait_for_timeout(50)
            bad = page.evaluate(DOM_CHECK)
            if bad:
                found[rel] = sorted(set(bad))
        browser.close()
    assert found == {}
    assert outside == []


def test_payloads_reach_the_pages_as_text(hostile_site: Path):
    """The control: the payloads are on the pages, shown as the literal text they are."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, serve(hostile_site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page()
        page.goto(base + "posts/hostile.html")
        assert PAYLOADS[0] in page.title()  # the <title> shows the payload as text
        body = page.inner_text("body")
        assert f"<img src=x onerror=\"{JS}\">" in body
        page.goto(base + "index.html")
        assert "</title><script>" in page.inner_text("body")
        browser.close()


def test_search_results_show_payloads_as_text(hostile_site: Path):
    """Pagefind's results on the search page: excerpts and titles of the hostile pages run
    nothing and show the payloads as the text they are."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p, serve(hostile_site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page()
        for query, shown in (("onerror", PAYLOADS[1]), ("script", PAYLOADS[11]), ("jerry", ENTITIES)):
            page.goto(base + "search.html?q=" + query)
            expect(page.locator(".pagefind-ui__result").first).to_be_visible()
            excerpts = page.locator(".pagefind-ui__result-excerpt")
            expect(excerpts.first).to_contain_text(query, ignore_case=True)
            # each result loads its excerpt on its own: on a slow machine the first can show while
            # the one holding this payload is still loading, so it is waited for
            expect(excerpts.filter(has_text=shown).first).to_be_visible()
            assert page.evaluate(DOM_CHECK) == []
            # every excerpt holding the query shows the payload as typed, entities and all
            texts = [t for t in excerpts.all_inner_texts() if query in t.lower()]
            assert texts and any(shown in t for t in texts), (query, texts[:3])
            if query == "jerry":
                assert not any("Tom & Jerry" in t for t in texts), texts[:3]
        browser.close()


def test_a_site_of_hostile_records_verifies(hostile_site: Path):
    """verify --site reads every traced number, derived number and piece of record text of
    pages built from records full of payloads as the generator wrote them: escaping, folded
    whitespace and made-visible characters never read as an edit."""
    from site_gen.audit import verify_site

    assert verify_site(hostile_site) == []
