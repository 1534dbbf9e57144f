"""The authored article noun (front matter validated, all problems at once with lines) and the
pages readers get: index newest first with summaries and tags, tag pages, the records an
article cites with hashes and ledger positions, and the cite-this-article block."""

from __future__ import annotations

import os
import datetime as dt

import pytest

from benchledger.errors import ProblemsError
from benchledger.records.store import Store
from site_gen.articles import Article, load_articles

from .authored_support import GRAPH, OFFLOAD, build_pages, copy_project, write_article

VALID = """---
title: A title
date: 2026-10-05
authors: [Ann, Bo]
tags: [llama-cpp, energy]
summary: One line.
records:
  offload: "ebcfc483a547"
  graph: "24492206c24d2b9ed84f821d36e701636564c8365cc09ba52fb35703b9c4e2fe"
---
Body line one.
"""


def test_valid_front_matter_parses():
    a = Article.parse("docs/articles/a-title.md", VALID)
    assert (a.slug, a.title, a.date, a.authors, a.tags, a.summary) == (
        "a-title", "A title", dt.date(2026, 10, 5), ("Ann", "Bo"), ("llama-cpp", "energy"), "One line.")
    assert [(r.name, r.ref, r.line) for r in a.records] == [("offload", "ebcfc483a547", 8), ("graph", GRAPH, 9)]
    assert a.body == "Body line one.\n" and a.body_line == 11


def test_every_front_matter_problem_at_once_with_lines():
    text = """---
title: ""
date: October
authors: Ann
tags: [Not A Slug]
colour: blue
records:
  r1: "xyz"
  r2: 123456789012
---
"""
    with pytest.raises(ProblemsError) as err:
        Article.parse("docs/articles/Bad_Name.md", text)
    lines = err.value.lines()
    expected = [
        "docs/articles/Bad_Name.md:6: unknown front matter key 'colour'",
        "docs/articles/Bad_Name.md:1: front matter lacks 'summary'",
        "docs/articles/Bad_Name.md:1: file name 'Bad_Name' must be a slug",
        "docs/articles/Bad_Name.md:2: title must be non-empty text",
        "docs/articles/Bad_Name.md:3: date must be a date written YYYY-MM-DD",
        "docs/articles/Bad_Name.md:4: authors must be a non-empty list",
        "docs/articles/Bad_Name.md:5: tag 'Not A Slug' must be a slug",
        "docs/articles/Bad_Name.md:8: records.r1: 'xyz' is not a sha256",
        "docs/articles/Bad_Name.md:9: records.r2: write the hash in quotes",
    ]
    for want in expected:
        assert any(line.startswith(want) for line in lines), (want, lines)


def test_a_record_name_yaml_reads_as_a_boolean_or_null_is_refused_at_its_line():
    """`off:` was read as False and named 'False': citing "off" then failed with "'off' is not a
    record named in this article's front matter (named: False, new)". `off` and `no` both read as
    False, and were one entry."""
    text = VALID.replace('  offload: "ebcfc483a547"\n', '  off: "ebcfc483a547"\n  no: "ebcfc483a547"\n  Yes: "ebcfc483a547"\n  null: "ebcfc483a547"\n')
    with pytest.raises(ProblemsError) as err:
        Article.parse("docs/articles/a-title.md", text)
    assert err.value.lines() == [
        'docs/articles/a-title.md:8: records: YAML reads the name off as the boolean false, not as text; write it in quotes ("off": ...) as you do the hashes',
        'docs/articles/a-title.md:9: records: YAML reads the name no as the boolean false, not as text; write it in quotes ("no": ...) as you do the hashes',
        'docs/articles/a-title.md:10: records: YAML reads the name Yes as the boolean true, not as text; write it in quotes ("Yes": ...) as you do the hashes',
        'docs/articles/a-title.md:11: records: YAML reads the name null as null (no value), not as text; write it in quotes ("null": ...) as you do the hashes',
        "4 problem(s) found",
    ]
    quoted = VALID.replace('  offload: "ebcfc483a547"\n', '  "off": "ebcfc483a547"\n  \'no\': "ebcfc483a547"\n')
    assert [r.name for r in Article.parse("docs/articles/a-title.md", quoted).records] == ["off", "no", "graph"]


@pytest.mark.parametrize("text,message", [
    ("no front matter\n", "docs/articles/x.md:1: an article starts with a '---' front matter line"),
    ("---\ntitle: x\n", "docs/articles/x.md:1: front matter is not closed by a '---' line"),
    ("---\ntitle: [x\n---\n", "docs/articles/x.md:2: front matter is not valid YAML"),
    ("---\ntitle: x\ndate: 2026-13-45\n---\n", "docs/articles/x.md:3: date: cannot be read: month must be in 1..12"),
    ("---\ntitle: !!python/object:os.system x\n---\n", "docs/articles/x.md:2: title: cannot be read: could not determine a constructor"),
    # issue 11, class 6: aliases, duplicate keys and complex keys
    ("---\ntitle: x\nrecords:\n  a: &h \"ebcfc483a547\"\n  b: *h\n---\n", "docs/articles/x.md:4: front matter uses a YAML anchor or alias"),
    ("---\ntitle: x\nrecords:\n  o: \"ebcfc483a547\"\n  o: \"24492206c24d\"\n---\n", "docs/articles/x.md:5: key 'o' is given twice (first on line 4); keep one"),
    ("---\ntitle: x\ntitle: y\n---\n", "docs/articles/x.md:3: key 'title' is given twice (first on line 2)"),
    ("---\n? [a, b]\n: x\n---\n", "docs/articles/x.md:2: a key must be plain text, not a list or a mapping"),
    # issue 11, keep going: deep nesting was a RecursionError traceback after 16 s of parsing
    ("---\ntitle: " + "[" * 10000 + "]" * 10000 + "\n---\n", "docs/articles/x.md:2: front matter nests lists or mappings more than 16 deep"),
    ("---\ntitle: x\nsummary: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n---\n", "docs/articles/x.md:3: front matter nests lists or mappings more than 16 deep"),
    # a lone surrogate from a YAML escape: no page could hold it (UTF-8)
    ("---\ntitle: x\nsummary: \"a\\ud800\"\n---\n", "docs/articles/x.md:3: summary: cannot be read: it holds an unpaired UTF-16 surrogate"),
])
def test_malformed_files(text, message):
    with pytest.raises(ProblemsError) as err:
        Article.parse("docs/articles/x.md", text)
    assert err.value.lines()[0].startswith(message)


@pytest.mark.parametrize("key", ["title", "summary", "authors", "tags"])
def test_a_required_key_written_without_a_value_is_refused(key):
    """`title:` (or `title: null`) was taken as an empty title: the article built with none."""
    for empty in ("", " null", " ~"):
        text = VALID.replace(f"\n{key}: ", f"\n{key}:{empty}\n_was: ", 1)
        text = "\n".join(line for line in text.split("\n") if not line.startswith("_was: "))
        with pytest.raises(ProblemsError) as err:
            Article.parse("docs/articles/a-title.md", text)
        assert [line.split(": ", 1)[1].split(" must")[0] for line in err.value.lines()] == [key], err.value.lines()


def test_a_byte_order_mark_before_the_front_matter_is_not_text(tmp_path):
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf" + VALID.encode())
    assert [a.title for a in load_articles(tmp_path)] == ["A title"]


def test_load_articles_newest_first_and_all_files_checked(tmp_path):
    (tmp_path / "b.md").write_text(VALID.replace("2026-10-05", "2026-11-01"))
    (tmp_path / "a.md").write_text(VALID)
    assert [a.slug for a in load_articles(tmp_path)] == ["b", "a"]
    (tmp_path / "c.md").write_text("nope\n")
    (tmp_path / "d.md").write_bytes(b"---\n\xff\n")
    with pytest.raises(ProblemsError) as err:
        load_articles(tmp_path, display_root=tmp_path)
    assert [line.split(":")[0] for line in err.value.lines()[:2]] == ["c.md", "d.md"]


def test_an_unreadable_article_is_a_problem_not_a_traceback(tmp_path):
    (tmp_path / "a.md").write_text("nope\n")
    (tmp_path / "folder.md").mkdir()
    os.mkfifo(tmp_path / "pipe.md")  # reading one waited for a writer for ever
    with pytest.raises(ProblemsError) as err:
        load_articles(tmp_path, display_root=tmp_path)
    assert err.value.lines()[:3] == [
        "a.md:1: an article starts with a '---' front matter line",
        "folder.md: is a folder, not an article",
        "pipe.md: is not a regular file (a device, pipe or socket), not an article",
    ]


def test_an_article_in_a_subfolder_is_named_not_left_out(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "first.md").write_text("---\ntitle: x\n---\n")
    with pytest.raises(ProblemsError) as err:
        load_articles(tmp_path, display_root=tmp_path)
    assert err.value.lines() == ["sub/first.md: is in a subfolder of the articles folder, which is not read: move it up to "
                                 "publish it, or keep drafts outside the articles folder"]


@pytest.fixture()
def pages(tmp_path):
    records, articles = copy_project(tmp_path)
    write_article(articles, "older-note", 'Decode: {{ cite("o", "/cases/0/groups/0/server_decode_tokens_per_second/mean", unit="tokens/s") }}',
                  {"o": OFFLOAD[:12]}, date="2026-01-02", tags="[energy, notes]")
    return build_pages(records, articles, site_url="https://bench.example/"), Store(records)


def test_index_lists_articles_newest_first_with_summaries_and_tags(pages):
    pages, _ = pages
    index = pages["posts/index.md"].markdown
    order = [index.index(slug) for slug in ("cuda-graph-replay-scoring.html", "llama-cpp-cpu-offload-72b.html", "older-note.html")]
    assert order == sorted(order)
    assert "About older-note." in index and "does not halve decode speed" in index
    assert '<a class="bl-tag" href="tags/energy.html">energy</a>' in index
    assert '<a href="feed.xml" type="application/atom+xml">' in index


def test_tag_pages_list_only_their_articles(pages):
    pages, _ = pages
    energy = pages["posts/tags/energy.md"].markdown
    assert "llama-cpp-cpu-offload-72b.html" in energy and "older-note.html" in energy
    assert "cuda-graph-replay-scoring.html" not in energy
    assert sorted(p for p in pages if p.startswith("posts/tags/")) == [
        f"posts/tags/{t}.md" for t in sorted(["cpu-offload", "cuda-graphs", "energy", "latency", "llama-cpp", "notes", "pytorch"])]


def test_article_lists_cited_records_and_cite_block(pages):
    pages, store = pages
    page = pages["posts/older-note.md"].markdown
    entry = store.find(OFFLOAD)
    row = f"| o | [llm\\-cpu\\-offload/2026\\-09\\-27\\.json](../articles/llm-cpu-offload/2026-09-27.md) | <code>{OFFLOAD}</code> | {entry.position} |"
    assert row in page
    assert "https://bench.example/posts/older-note.html" in page
    assert f"Ledger head sha256 at build time: {store.head_sha256()}" in page
    assert 'Tester. "older-note". benchledger, 2026-01-02.' in page


def test_problems_of_every_article_reported_together(tmp_path):
    records, articles = copy_project(tmp_path)
    write_article(articles, "one", '{{ cite("r", "/nope") }}', {"r": OFFLOAD})
    write_article(articles, "two", '{{ cite("r", "/nope") }}', {"r": OFFLOAD})
    with pytest.raises(ProblemsError) as err:
        build_pages(records, articles)
    assert [line.split(":")[0] for line in err.value.lines()[:2]] == ["docs/articles/one.md", "docs/articles/two.md"]


def test_no_articles_still_gives_the_index_the_nav_links_to(tmp_path):
    records, articles = copy_project(tmp_path)
    for path in articles.glob("*.md"):
        path.unlink()
    pages = build_pages(records, articles)
    assert "No articles yet." in pages["posts/index.md"].markdown


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    """Issue 11, class 6: nine levels of nine aliases ("billion laughs") in `date:` took a minute
    and gigabytes before a MemoryError traceback; now the first alias is refused by line."""
    import time

    levels = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 9)}]" for i in range(1, 10)]
    text = "---\n" + "\n".join(levels) + "\ndate: *a9\n---\n"
    started = time.monotonic()
    with pytest.raises(ProblemsError) as err:
        Article.parse("docs/articles/x.md", text)
    assert time.monotonic() - started < 1.0
    assert err.value.lines()[0] == ("docs/articles/x.md:2: front matter uses a YAML anchor or alias (&name / *name); "
                                    "write each value out")


def test_an_article_named_like_a_page_of_the_site_is_refused_naming_its_file():
    """Issue 11, class 10: posts/index.md from an article collided with the listing and the error
    named no article file."""
    with pytest.raises(ProblemsError) as err:
        Article.parse("docs/articles/index.md", VALID)
    assert err.value.lines()[0].startswith("docs/articles/index.md:1: file name 'index' is a page the site makes itself")
