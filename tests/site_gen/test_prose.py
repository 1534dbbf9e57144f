"""Issue 11, keep going: an authored article's own prose. Record text was escaped everywhere,
but the author's Markdown reached MkDocs as written: `<script>`, `<img onerror>`, a
`javascript:` link, an image from another host and `{: style="display:none"}` on the paragraph
of a cited number (hiding its limitation marker) all built. Each is refused at its line; code
spans and fenced blocks stay text."""

from __future__ import annotations

import pytest

from benchledger.errors import ProblemsError
from site_gen.prose import prose_problems, rendered_problems

from .authored_support import OFFLOAD, build_pages, copy_project, write_article

HTML = "raw HTML <{}> is not allowed in an article"
LINK = "a link to a {}: URL is not allowed"
IMAGE = "the image {!r} would load from outside the site"


@pytest.mark.parametrize("body, expected", [
    ("Hi <script>alert(1)</script>", [HTML.format("script"), HTML.format("/script")]),
    ("<img src=x\nonerror=alert(1)>", [HTML.format("img")]),
    ("<div markdown>x</div>", [HTML.format("div"), HTML.format("/div")]),
    ("[x](javascript:alert(1))", [LINK.format("javascript")]),
    ("[x](&#106;avascript:alert(1))", [LINK.format("javascript")]),
    ("[x](java\tscript:alert(1))", [LINK.format("javascript")]),
    ("[x]( data:text/html;base64,PHNjcmlwdD4= )", [LINK.format("data")]),
    ("[ref]: vbscript:x", [LINK.format("vbscript")]),
    ("![i](https://evil.example/p.png)", [IMAGE.format("https://evil.example/p.png")]),
    ("![i](//evil.example/p.png \"t\")", [IMAGE.format("//evil.example/p.png")]),
    ('Number {: style="display:none"}', ["the attribute list '{: style=\"display:none\"}' sets more than an anchor"]),
    ("## Heading {onclick=alert(1)}", ["the attribute list '{onclick=alert(1)}' sets more than an anchor"]),
    ("`\n\n<script>x</script>\n\n`", [HTML.format("script"), HTML.format("/script")]),  # a code span ends with its paragraph
])
def test_what_prose_may_not_hold_is_named(body, expected):
    problems = prose_problems("a.md", body, 1, [], [])
    assert len(problems) == len(expected), problems
    assert all(p.message.startswith(want) for p, want in zip(problems, expected)), problems


def test_markdown_code_links_and_anchors_pass():
    body = ("`<script>` and ``a ` <b> `` are code; a < b and c > d; 1<2.\n\n"
            "[web](https://example.org \"t\") [mail](mailto:a@b.c) [page](../index.md) [p](foo(bar)) <https://example.org>\n\n"
            "![chart](../assets/x.png) {#my-anchor}\n\n## Heading {#h2}\n")
    assert prose_problems("a.md", body, 1, [], []) == []


def test_a_hostile_article_is_refused_at_each_line_and_citations_are_not_prose(tmp_path):
    records, articles = copy_project(tmp_path)
    cited = '{{ cite("o", "/cases/0/groups/0/server_decode_tokens_per_second/mean", unit="tokens/s") }}'
    body = (f"Speed {cited} is shown.\n\n"
            "```html\n<script>in a fence: text</script>\n```\n\n"
            "Then <script>alert(1)</script>\n\n"
            f"Hidden {cited} {{: style=\"display:none\"}}\n")
    write_article(articles, "probe", body, {"o": OFFLOAD[:16]})
    with pytest.raises(ProblemsError) as err:
        build_pages(records, articles)
    lines = [line for line in err.value.lines() if line.startswith("docs/articles/probe.md")]
    assert [line.split(": ", 1)[0] for line in lines] == ["docs/articles/probe.md:16"] * 2 + ["docs/articles/probe.md:18"]
    assert "raw HTML <script>" in lines[0] and "sets more than an anchor" in lines[2]


# What an audit of the built site found getting through (each ran script in Chromium): a tag whose
# attributes follow a "/", a reference whose URL stands on the next line, a link text with brackets
# nested twice, the generator's own raw-HTML markers, and an image from another host written with
# backslashes (attribute lists with bare words: the rendered check, below).
@pytest.mark.parametrize("body, expected", [
    ("<svg/onload=alert('F')>", [HTML.format("svg")]),
    ("<details/open/ontoggle=alert('H')>", [HTML.format("details")]),
    ("Click [here][evil]\n\n[evil]:\n  javascript:alert('B')", [LINK.format("javascript")]),
    ("[a[b[c]]](javascript:alert(3))", [LINK.format("javascript")]),
    ("![a[b[c]]](https://evil.example/p.png)", [IMAGE.format("https://evil.example/p.png")]),
    ("<!-- benchledger:html -->\nx\n<!-- /benchledger:html -->",
     ["<!-- benchledger:html --> marks HTML the generator made", "<!-- /benchledger:html --> marks HTML"]),
    ("![p](/\\evil.example/x.png)", [IMAGE.format("/\\evil.example/x.png")]),
    ("![p](\\\\evil.example/x.png)", [IMAGE.format("\\\\evil.example/x.png")]),
])
def test_what_markdown_reads_differently_is_named_too(body, expected):
    problems = prose_problems("a.md", body, 1, [], [])
    assert len(problems) == len(expected), problems
    assert all(p.message.startswith(want) for p, want in zip(problems, expected)), problems


RENDERED = "the article's Markdown would put {} on its page"


@pytest.mark.parametrize("prose, expected, line", [
    ("x\n\n<!-- benchledger:html -->\n<svg/onload=alert('F')>\n<!-- /benchledger:html -->", "an element <svg>", 4),
    ("<details/open/ontoggle=alert('H')>\n\ntext", "an element <details>", 1),
    ("[here][evil]\n\n[evil]:\n  javascript:alert('B')", "a link to a javascript: URL", 4),
    ("[a[b[c]]](javascript:alert(3))", "a link to a javascript: URL", 1),
    ("Text\n{: onclick=\"alert('I')\" }", "<p onclick=\"alert('I')\">", 2),
    ("## I2 heading { x onmouseover=alert('I2') }", "<h2 onmouseover=\"alert('I2')\">", 1),
    ("<!-- benchledger:html -->\n<b>x</b>\n<!-- /benchledger:html -->", "an element <b>", 2),
    ("![p](/\\evil.example/x.png)", "an image from '/\\\\evil.example/x.png', outside the site", 1),
    ("<?php echo 1 ?>", "a processing instruction <?php echo 1 ?>", 1),
])
def test_what_the_page_would_hold_is_refused_when_the_source_check_misses_it(prose, expected, line):
    """The check on the rendered page, on its own: it judges Markdown as MkDocs reads it."""
    problems = rendered_problems("a.md", prose, 1, prose, [])
    assert (line, RENDERED.format(expected)) in [(p.line, p.message.split(", which an article")[0]) for p in problems], problems


def test_an_anchor_the_generated_part_uses_is_refused():
    """A heading whose anchor is a chart's id (or a limitation note's) would take its links."""
    prose = "Intro\n\n## Chart gpu layers decode\n\nblcitation1x"
    problems = rendered_problems("a.md", prose, 1, prose, ["chart-gpu-layers-decode", "lim-1"])
    assert [(p.line, p.message.split(" (")[0]) for p in problems] == [(None, "the anchor #chart-gpu-layers-decode")]
    assert rendered_problems("a.md", prose, 1, prose, ["lim-1"]) == []


def test_plain_markdown_renders_to_nothing_refused():
    prose = ("## Results {#results}\n\nSpeed blcitation1x is *fast*, **very**, `code` and [a link](https://x.org \"t\"), "
             "[mail](mailto:a@b.c), [page](../index.md), ![chart](img/x.png \"t\").\n\n"
             "| a | b |\n|:--|--:|\n| 1 | 2 |\n\n> quoted\n\n1. one\n2. two\n\n- x\n\n---\n\n"
             "```python\nprint('<b>')\n```\n\nblcitation2x\n")
    assert rendered_problems("a.md", prose, 1, prose, ["lim-1"]) == []


def test_an_article_the_source_check_passes_is_refused_for_what_its_page_would_hold(tmp_path):
    """End to end: an attribute list with a bare word gets past the patterns, not the build."""
    records, articles = copy_project(tmp_path)
    cited = '{{ cite("o", "/cases/0/groups/0/server_decode_tokens_per_second/mean", unit="tokens/s") }}'
    write_article(articles, "probe", f"Speed {cited} is shown.\n{{: x onclick=\"alert(1)\" }}\n", {"o": OFFLOAD[:16]})
    with pytest.raises(ProblemsError) as err:
        build_pages(records, articles)
    lines = [line for line in err.value.lines() if line.startswith("docs/articles/probe.md")]
    assert lines and all(line.startswith("docs/articles/probe.md:11: the article's Markdown would put <p ") for line in lines), lines
    assert any("onclick" in line for line in lines)
