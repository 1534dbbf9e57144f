"""Generated HTML handed to MkDocs as raw blocks that Python-Markdown only stashes.

benchledger renders its pages' tables, charts, limitation notes and audit blocks as HTML itself
(escaped for their context by site_gen/escape.py). Left to Python-Markdown, every such block
would be parsed again tag by tag twice: by `md_in_html` (to find where a block ends) and by
MkDocs (to collect the ids anchors may point to), about two thirds of a build's Markdown time.
So a generated page (articles, home, audit, methodology, comparisons, series, explorer,
transparency) wraps each run of HTML between two marker lines (`block()`; templates with the
`raw_html` filter, page code with `join()` of (is HTML, text) parts), and this
module's Markdown extension, `site_gen.raw_html` in mkdocs.yml, cuts each marked run out before
either parser runs, stores it in Python-Markdown's HTML stash and leaves its placeholder, which
the stash's postprocessor swaps back for the bytes unchanged. Headings stay Markdown, so the
table of contents, permalinks and heading anchors work as before; hand-written pages (authored
posts, a project's own pages) carry no markers and go through `md_in_html` as before.

The marker lines cannot come from a record: record text reaches a page HTML-escaped, so its
`<!--` is `&lt;!--`. The ids inside stashed blocks are given to MkDocs' anchor checks by
`on_page_content` in site_gen/mkdocs_hooks.py (`ids()`), so strict link checks still see them.

The blocks are kept in this extension's own stash, not Python-Markdown's: its postprocessor
scans every block it puts back for placeholders nested inside (a regex over each block's
text, a fifth of MkDocs' time on a generated site), and a marked block can hold none:
normalize_whitespace has removed every STX and ETX, which every placeholder holds, before the
block is cut out. The placeholders here are swapped back in one pass over the page's text, as
Python-Markdown's own would be. The same extension's `normalize_whitespace` skips the copies
and the regex Python-Markdown's would make of a text that holds none of what it normalises
(another tenth); both give the same bytes as before, and every page goes through them."""

from __future__ import annotations

import html
import re
from itertools import groupby
from typing import Iterable

from markdown import Extension, Markdown, util
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import NormalizeWhitespace, Preprocessor

START = "<!-- benchledger:html -->"
END = "<!-- /benchledger:html -->"
# Above fenced_code (25, which MkDocs always loads first: scanning every page's whole text for
# fences took 1.4 s of a 1,000-article build, and a line of backticks in generated HTML must not
# open a code block), MkDocs' anchor scan (21) and html_block / md_in_html (20): they see only
# placeholders. Below normalize_whitespace (30), which every preprocessor expects to have run.
PRIORITY = 26
# After raw_html (30) and amp_substitute (20) of Python-Markdown, which have nothing to do in
# these blocks (they hold no STX), so they need not scan them either.
POSTPROCESSOR_PRIORITY = 15

_ID = re.compile(r'\sid="([^"]*)"')
_ID_CANDIDATE = re.compile(r'id="([^"]*)"')  # a literal start: the regex engine skips straight to candidates
_PLACEHOLDER = util.STX + "benchledgerraw{}" + util.ETX
_PLACEHOLDERS = re.compile(f"<p>{util.STX}benchledgerraw([0-9]+){util.ETX}</p>|{util.STX}benchledgerraw([0-9]+){util.ETX}")
# What Python-Markdown's normalize_whitespace changes: control characters it removes, line
# ends and tabs it rewrites, and (its regex) lines holding only spaces.
_NORMALIZED = (util.STX, util.ETX, "\r", "\t", " \n")


def block(fragment: str) -> str:
    """`fragment` (generated HTML) as one raw block: stashed, never parsed as Markdown."""
    return f"{START}\n{fragment.strip(chr(10))}\n{END}"


def join(parts: Iterable[tuple[bool, str]]) -> str:
    """A page's Markdown from (is generated HTML, text) parts in order: Markdown parts as they
    are, each run of adjacent HTML parts one raw block, every part followed by a blank line."""
    out = []
    for is_html, group in groupby(((is_html, text.rstrip("\n")) for is_html, text in parts), key=lambda part: part[0]):
        texts = [text for _, text in group if text]
        if texts:
            out += [block("\n\n".join(texts))] if is_html else texts
    return "".join(text + "\n\n" for text in out)


def ids(page_html: str) -> set[str]:
    """The id attributes (double-quoted, as benchledger writes them) of a rendered page."""
    values = []
    for match in _ID_CANDIDATE.finditer(page_html):
        start = match.start()
        if start == 0 or not page_html[start - 1].isspace():
            # not an id ("data-id=..."), and its match may have swallowed where one starts: this
            # rare page is read with `_ID` itself, which tries every position (that was a tenth
            # of MkDocs' time on a generated site)
            values = _ID.findall(page_html)
            break
        values.append(match.group(1))
    return {html.unescape(value) if "&" in value else value for value in set(values)}


class RawBlockPreprocessor(Preprocessor):
    """Replaces each START...END run of lines by a stash placeholder in a paragraph of its own."""

    def __init__(self, md: Markdown, stash: list[str]):
        super().__init__(md)
        self.stash = stash

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        i, n = 0, len(lines)
        while i < n:
            line = lines[i]
            if line != START:
                out.append(line)
                i += 1
                continue
            try:
                end = lines.index(END, i + 1)
            except ValueError:  # an unclosed marker: leave the text to Markdown as it is
                out.append(line)
                i += 1
                continue
            out += ["", _PLACEHOLDER.format(len(self.stash)), ""]
            self.stash.append("\n".join(lines[i + 1 : end]))
            i = end + 1
        return out


class RawBlockPostprocessor(Postprocessor):
    """Puts each stashed block back where its placeholder is, as Python-Markdown's raw_html
    postprocessor does: a placeholder alone in a paragraph is replaced by the block when the
    block starts with a block-level tag, else the paragraph keeps it."""

    def __init__(self, md: Markdown, stash: list[str]):
        super().__init__(md)
        self.stash = stash

    def run(self, text: str) -> str:
        if not self.stash:
            return text
        is_block_level = self.md.postprocessors["raw_html"].isblocklevel

        def substitute(match: re.Match[str]) -> str:
            wrapped = match.group(1) is not None
            block = self.stash[int(match.group(1) if wrapped else match.group(2))]
            return f"<p>{block}</p>" if wrapped and not is_block_level(block) else block

        return _PLACEHOLDERS.sub(substitute, text)


class QuickNormalizeWhitespace(NormalizeWhitespace):
    """Python-Markdown's normalize_whitespace, without its copies of a text it leaves as it is."""

    def run(self, lines: list[str]) -> list[str]:
        source = "\n".join(lines) + "\n\n"  # as there: a last line of spaces then ends in "\n" too
        if any(part in source for part in _NORMALIZED):
            return super().run(lines)
        return source.split("\n")


class RawHtmlExtension(Extension):
    """Python-Markdown extension: marked generated HTML blocks are stashed, not parsed."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        self.stash: list[str] = []
        md.registerExtension(self)  # reset() below, between documents
        md.preprocessors.register(QuickNormalizeWhitespace(md), "normalize_whitespace", 30)
        md.preprocessors.register(RawBlockPreprocessor(md, self.stash), "benchledger_raw_html", PRIORITY)
        md.postprocessors.register(RawBlockPostprocessor(md, self.stash), "benchledger_raw_html", POSTPROCESSOR_PRIORITY)

    def reset(self) -> None:
        self.stash.clear()


def makeExtension(**kwargs) -> RawHtmlExtension:  # noqa: N802 (Python-Markdown's entry point)
    return RawHtmlExtension(**kwargs)
