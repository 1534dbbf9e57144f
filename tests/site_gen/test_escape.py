"""Hostile record text renders literally: a sealed record whose strings carry HTML, Markdown and
Jinja syntax goes through the real build and shows up as text, never as markup or code."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchledger.records.store import Store
from site_gen import escape
from site_gen.build import build_site
from site_gen.context import BuildOptions
from tests.site_gen.site_support import ROOT
from tests.store_copies import shipped_copy

SCRIPT = "<script>alert(1)</script>"
MARKDOWN = "**bold** [link](http://example.invalid) `code` # heading | cell |"
JINJA = "{{ 7*7 }} {% if true %}yes{% endif %} {: .attr }"
HOSTILE = f"{SCRIPT} {MARKDOWN} {JINJA}"
# A comparison axis names the results' charts and heads their data tables; a long one made a chart
# id that stopped the build. An article file name makes its charts' ids too.
AXIS = f"{SCRIPT} layers kept on the GPU for this placement"
LONG_SLUG = "an-article-whose-file-name-runs-well-past-the-sixty-characters-of-an-anchor"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    records = shipped_copy(tmp)
    data = json.loads((ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
    data["limitations"].append(HOSTILE)
    data["hardware"]["gpu"] = SCRIPT
    data["cases"][0]["placement"]["meaning"] = JINJA
    data["models"][0]["name"] = MARKDOWN
    data["comparisons"][0]["axis"] = AXIS
    for i, case in enumerate(data["cases"]):
        case["placement"][AXIS] = 10 * (i + 1)
    sha = Store(records).seal_bytes(json.dumps(data).encode(), "gsh-llm-core-article/1", "hostile/2026-12-02.json").sha256
    articles = tmp / "articles"
    shutil.copytree(ROOT / "docs" / "articles", articles)
    (articles / f"{LONG_SLUG}.md").write_text(
        f'---\ntitle: Long\ndate: 2026-12-02\nauthors: [a]\ntags: [x]\nsummary: s\nrecords:\n  h: "{sha[:16]}"\n---\n'
        f'{{{{ chart("h", rows="/cases/*/groups/*", x="context_tokens", y="server_decode_tokens_per_second/mean", '
        f'x_title="{SCRIPT}", y_title="\\"><img src=x onerror=alert(2)>", series_title="<!-- /benchledger:html -->") }}}}\n',
        encoding="utf-8")
    result = build_site(records, tmp / "site", cache_dir=tmp / "cache", options=BuildOptions(articles_dir=articles))
    return result.out_dir


def test_script_tags_stay_text(page):
    for name in ("articles/hostile/2026-12-02.html", "index.html"):
        html = (page / name).read_text(encoding="utf-8")
        assert "<script>alert(1)" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_chart_tables_head_their_columns_with_text(page):
    """A record's axis and an article's chart titles head a chart's data table as text."""
    html = (page / "articles/hostile/2026-12-02.html").read_text(encoding="utf-8")
    assert "<th scope=\"col\">&lt;script&gt;alert(1)&lt;/script&gt; layers kept on the GPU for this placement</th>" in html
    post = (page / f"posts/{LONG_SLUG}.html").read_text(encoding="utf-8")
    assert "<script>alert(1)" not in post and "<img src=x" not in post and "<th scope=\"col\"><!--" not in post
    assert "<th scope=\"col\">&lt;script&gt;alert(1)&lt;/script&gt;</th>" in post
    assert f'id="chart-{escape.anchor(LONG_SLUG + "-1")}"' in post


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


@given(st.text(max_size=50))
def test_a_yaml_string_reads_back_as_its_text(value):
    """A character past U+FFFF was written as JSON's surrogate pair, read by YAML as two lone
    surrogates; an escaped backslash before `ud83d` must stay text."""
    import yaml

    for text in (value, f"{value}\U0001f680\\ud83d\\ude80\\\\ud83d"):
        written = escape.yaml_string(text)
        assert written.isascii() and yaml.safe_load(written) == text



@given(st.text(max_size=200))
def test_an_anchor_is_its_own_anchor(value):
    """Ids are built from anchors and checked with anchor() (a chart's id): a long comparison axis
    made an id past 48 characters that anchor() hashed again, and the build stopped with a traceback."""
    made = escape.anchor(value)
    assert escape.anchor(made) == made and len(made) <= 59
    assert set(made) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")


def test_what_a_reader_cannot_see_is_shown_as_its_code_point():
    """A record string holding U+202E made the cited numbers after it on the same line read
    backwards ("25.9" as "9.52"); control characters reached the HTML raw. Every context a
    reader sees as text shows each as [U+XXXX]; attributes keep it (a data-pointer names a key)."""
    record_text = "c2 ab\u202edc\u2067 x\x00y\x1b"
    for out in (escape.html(record_text), escape.text(record_text), escape.pre(record_text),
                escape.page_title(record_text), escape.chart_text(record_text)):
        assert not any(c in out for c in "\u202e\u2067\x00\x1b"), out
    assert escape.html(record_text) == "c2 ab&#91;U+202E&#93;dc&#91;U+2067&#93; x&#91;U+0000&#93;y&#91;U+001B&#93;"
    assert escape.attr(record_text) == record_text
    assert escape.html("plain, rtl \u05d0\u05d1 and marks \u200f stay") == "plain, rtl \u05d0\u05d1 and marks \u200f stay"


def test_an_attribute_holds_the_records_own_key_for_the_audit():
    """attr() folded whitespace: a metric named "gpu\\n\\nwatts  x" got a data-pointer naming
    "gpu watts x", which `verify --site` could not resolve in the record. It keeps the key, as
    character references where a line would end (a blank line inside a raw HTML block's tag
    would end the block for Markdown)."""
    from html.parser import HTMLParser

    key = "/cases/0/metrics/gpu\n\nwatts  x\t\u202f\"<y>"
    written = escape.attr(key)
    assert "\n" not in written and "\t" not in written and '"' not in written and "<" not in written

    class Attrs(HTMLParser):
        found: dict = {}

        def handle_starttag(self, tag, attrs):
            self.found = dict(attrs)

    parser = Attrs(convert_charrefs=True)
    parser.feed(f'<span data-pointer="{written}">1</span>')
    assert parser.found["data-pointer"] == key


def test_an_attribute_a_reader_sees_shows_what_cannot_be_seen():
    """Chart alt text and number tooltips kept a record's raw U+202E and controls (attr() keeps
    data exact); a tooltip is text a reader sees, as the page's text is."""
    from site_gen.charts import chart_html

    assert escape.shown_attr('GPU\u202e "x"\x1b\n<b>') == "GPU[U+202E] &quot;x&quot;[U+001B] &lt;b&gt;"
    from site_gen.charts import ChartCache, Series, line_chart
    from site_gen.quantity import Trace

    chart = line_chart("c", "T", [Series("s", [(1, 2.0, Trace("ab" * 32, "/x/0"))])], x_title="x", y_title="y", series_title="s",
                       alt_text="decode on H200\u202e 2048\x01")
    cache = ChartCache(None)
    try:
        html, _ = chart_html(chart, "articles/x.md", cache)
    finally:
        cache.close()
    assert 'alt="decode on H200[U+202E] 2048[U+0001] s: 1 → 2.00."' in html
