"""Hostile record text renders literally: a sealed record whose strings carry HTML, Markdown and
Jinja syntax goes through the real build and shows up as text, never as markup or code."""

from __future__ import annotations

import json

import pytest

from benchledger.records.store import Store
from site_gen import escape
from tests.site_gen.site_support import ROOT, build
from tests.store_copies import shipped_copy

SCRIPT = "<script>alert(1)</script>"
MARKDOWN = "**bold** [link](http://example.invalid) `code` # heading | cell |"
JINJA = "{{ 7*7 }} {% if true %}yes{% endif %} {: .attr }"
HOSTILE = f"{SCRIPT} {MARKDOWN} {JINJA}"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    records = shipped_copy(tmp)
    data = json.loads((ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
    data["limitations"].append(HOSTILE)
    data["hardware"]["gpu"] = SCRIPT
    data["cases"][0]["placement"]["meaning"] = JINJA
    data["models"][0]["name"] = MARKDOWN
    Store(records).seal_bytes(json.dumps(data).encode(), "gsh-llm-core-article/1", "hostile/2026-12-02.json")
    result = build(tmp, records)
    return result.out_dir


def test_script_tags_stay_text(page):
    for name in ("articles/hostile/2026-12-02.html", "index.html"):
        html = (page / name).read_text(encoding="utf-8")
        assert "<script>alert(1)" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_markdown_and_jinja_stay_text(page):
    import html as html_lib

    # Markdown's syntax characters are written as character references; the text is the same
    html = html_lib.unescape((page / "articles/hostile/2026-12-02.html").read_text(encoding="utf-8"))
    assert "<strong>bold</strong>" not in html and "**bold**" in html
    assert 'href="http://example.invalid"' not in html
    assert "{{ 7*7 }}" in html and ">49<" not in html
    assert "{% if true %}yes{% endif %}" in html


def test_escape_functions():
    assert escape.text("*a* <b>") == "\\*a\\* &lt;b&gt;"
    assert escape.attr('"x" <y>') == "&quot;x&quot; &lt;y&gt;"
    assert escape.text("line\n| cell") == "line \\| cell"


def test_each_context_has_one_escaper_and_none_lets_syntax_through():
    """Issue 11 class 1, unit level: the escapers of escape.py, one per context."""
    # HTML text that Markdown may also process: no link, emphasis or attr_list can form
    out = escape.html('*a* _b_ [x](javascript:y) {: onclick=z} | <b> c_d')
    assert "*" not in out and "[" not in out and "{" not in out and "|" not in out and "<b>" not in out
    assert "c_d" in out  # inside a word `_` means nothing to Markdown: kept readable
    # anchors are [a-z0-9-]; different hostile values never share one
    assert escape.anchor("gpu_layers") == "gpu-layers"
    hostile = ['"><svg onload=x>', "x onfocus=y autofocus", "x onfocus=y  autofocus"]
    anchors = [escape.anchor(v) for v in hostile]
    assert all(a and set(a) <= set("abcdefghijklmnopqrstuvwxyz0123456789-") for a in anchors)
    assert len(set(anchors)) == 3
    # URL paths: no scheme, nothing that ends a link target or an attribute
    assert escape.url_path("javascript:alert(1).html") == "javascript%3Aalert%281%29.html"
    assert escape.url_path("a b/c)d].html") == "a%20b/c%29d%5D.html"
    # <title> via front matter: a YAML string holding the HTML-escaped text
    assert escape.page_title("</title><script>") == '"&lt;/title&gt;&lt;script&gt;"'

