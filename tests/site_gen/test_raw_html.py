"""Generated HTML as raw blocks: real Python-Markdown with the extension stashes a marked run
verbatim (no Markdown inside it, blank lines and all), leaves the rest to Markdown, and a real
strict MkDocs build still checks links to ids that only a raw block holds (through the hooks)."""

from __future__ import annotations

import html

import markdown
import pytest
from hypothesis import example, given, settings, strategies as st
from markdown.preprocessors import NormalizeWhitespace

from site_gen import raw_html
from site_gen.build import HOOKS_FILE, _mkdocs_build
from benchledger.errors import BuildError

HTML = '<div class="x" id="deep">\n<pre><code>*not emphasis*\n\n# not a heading</code></pre>\n</div>'


def convert(text: str) -> str:
    return markdown.markdown(text, extensions=[raw_html.makeExtension(), "md_in_html", "attr_list", "toc"])


def test_a_marked_block_reaches_the_page_byte_for_byte():
    out = convert("# Title\n\n" + raw_html.block(HTML) + "\n\nAfter *this*.\n")
    assert HTML in out
    assert "<em>not emphasis</em>" not in out and "<h1 id=\"not-a-heading\"" not in out
    assert '<h1 id="title">Title</h1>' in out and "<em>this</em>" in out
    assert raw_html.START not in out and raw_html.END not in out


def test_runs_between_headings_stay_separate_and_headings_stay_markdown():
    text = raw_html.block("<p>one</p>") + "\n\n## Two {#two}\n\n" + raw_html.block("<p>three</p>") + "\n"
    out = convert(text)
    assert out.index("<p>one</p>") < out.index('<h2 id="two">Two</h2>') < out.index("<p>three</p>")


def test_a_fence_in_a_block_opens_no_code_block_with_mkdocs_extension_order():
    """MkDocs loads toc, tables and fenced_code before the project's extensions: the block is
    stashed before fenced_code looks for fences (a line of backticks in generated HTML, from a
    record's text, would otherwise swallow the block's end and what follows)."""
    fenced = "<p>note:\n```\n</p>\n<p>end</p>"
    text = raw_html.block(fenced) + "\n\nAfter\n\n```\ncode\n```\n"
    out = markdown.markdown(text, extensions=["toc", "tables", "fenced_code", raw_html.makeExtension()])
    assert fenced in out
    assert out.count("<pre><code>") == 1 and "<pre><code>code\n</code></pre>" in out


def test_an_unclosed_marker_is_left_to_markdown():
    out = convert(raw_html.START + "\n\n*emphasis*\n")
    assert "<em>emphasis</em>" in out


def test_escaped_record_text_cannot_close_a_block():
    hostile = "&lt;!-- /benchledger:html --&gt;"  # what escape.attr makes of the marker
    out = convert(raw_html.block(f"<p>{hostile}</p>\n<p>*still raw*</p>"))
    assert f"<p>{hostile}</p>\n<p>*still raw*</p>" in out


def test_ids_are_read_unescaped():
    assert raw_html.ids('<span id="a&amp;b"></span><h2 id="x">') == {"a&b", "x"}


@pytest.mark.parametrize("page", [
    '<p data-id="no" title="set id="><span id="yes">',  # a value ending in " id=" starts one
    'id="first"<b\tid="tab">', '<i id=""></i>\n<i\nid="nl"></i>', "", '<p class="grid">',
])
def test_ids_are_exactly_what_the_whitespace_id_pattern_finds(page):
    assert raw_html.ids(page) == {html.unescape(v) for v in raw_html._ID.findall(page)}


def _site(tmp_path, link: str, hooks: bool):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n" + raw_html.block('<p><span id="deep">here</span></p>') + "\n", encoding="utf-8")
    (docs / "other.md").write_text(f"# Other\n\n[to the raw anchor]({link})\n", encoding="utf-8")
    hook_lines = f"hooks:\n  - {HOOKS_FILE.as_posix()!r}\n" if hooks else ""
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"site_name: t\ndocs_dir: docs\nsite_dir: {str(tmp_path / 'site')!r}\nstrict: true\nuse_directory_urls: false\n"
        f"plugins: []\n{hook_lines}markdown_extensions:\n  - site_gen.raw_html\n  - md_in_html\n"
        "validation:\n  anchors: warn\n", encoding="utf-8")
    return config


def test_strict_mkdocs_sees_ids_inside_raw_blocks(tmp_path):
    _mkdocs_build(_site(tmp_path, "index.md#deep", hooks=True), 0)
    assert 'id="deep"' in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_strict_mkdocs_still_fails_a_link_to_a_missing_anchor(tmp_path):
    with pytest.raises(BuildError, match="nowhere"):
        _mkdocs_build(_site(tmp_path, "index.md#nowhere", hooks=True), 0)


def test_without_the_hooks_the_raw_id_would_be_missed(tmp_path):
    # the reason the hooks exist: MkDocs' own scan no longer sees inside stashed blocks
    with pytest.raises(BuildError, match="deep"):
        _mkdocs_build(_site(tmp_path, "index.md#deep", hooks=False), 0)


def test_join_makes_one_block_per_run_of_html_parts_and_keeps_markdown_parts():
    text = raw_html.join([(False, "# T\n"), (True, "<p>a</p>\n"), (True, ""), (True, "<p>b</p>"), (False, "## U"), (True, "")])
    assert text == f"# T\n\n{raw_html.START}\n<p>a</p>\n\n<p>b</p>\n{raw_html.END}\n\n## U\n\n"
    out = convert(text)
    assert out.index("<h1") < out.index("<p>a</p>") < out.index("<p>b</p>") < out.index("<h2")


@given(st.lists(st.sampled_from([" ", "\n", "id=", '"', "x", "&amp;", "<p ", ">", "data-"]), max_size=40).map("".join))
def test_ids_match_the_whitespace_id_pattern_on_any_text(page):
    assert raw_html.ids(page) == {html.unescape(v) for v in raw_html._ID.findall(page)}


@given(st.lists(st.sampled_from(["a", " ", "\n", "\t", "\r", "\r\n", "\x02", "\x03", "\f", "\v", "  \n", "é"]),
                max_size=30).map("".join))
@settings(max_examples=1000)
@example("\n ")  # a last line of spaces: Python-Markdown's regex sees it after appending "\n\n"
def test_quick_normalize_whitespace_gives_what_python_markdown_s_gives(text):
    """The shortcut holds only while Python-Markdown's normaliser changes nothing else: this
    fails on an upgrade that makes it normalise more."""
    md = markdown.Markdown()
    lines = text.split("\n")
    assert raw_html.QuickNormalizeWhitespace(md).run(list(lines)) == NormalizeWhitespace(md).run(list(lines))
