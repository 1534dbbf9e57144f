"""Issue 11, keep going: an authored article's own prose. Record text was escaped everywhere,
but the author's Markdown reached MkDocs as written: `<script>`, `<img onerror>`, a
`javascript:` link, an image from another host and `{: style="display:none"}` on the paragraph
of a cited number (hiding its limitation marker) all built. Each is refused at its line; code
spans and fenced blocks stay text."""

from __future__ import annotations

import pytest

from benchledger.errors import ProblemsError
from site_gen.prose import prose_problems

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
