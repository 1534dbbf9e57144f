"""What an article's own Markdown may hold. The site promises that its pages run no script of
their own making beyond the site's, load nothing from another host and show every limitation
beside the numbers it qualifies (verify --site checks the first two on a built copy). The HTML
of citations is the generator's; the author's prose around them could break each promise, so it
may not contain:

- raw HTML (`<script>`, `<img onerror=...>`, `<iframe>`, `<div style=...>`: any tag);
- attribute lists that do more than name an anchor (`{: style="display:none"}` on the
  paragraph of a cited number hides its limitation marker; `{: onclick=...}` runs script);
- a link whose URL has a scheme other than http, https or mailto (`javascript:`, `data:`,
  written with entities or control characters too);
- an image from anywhere but the site (an `http(s)://` or `//` source loads from another host).

Code spans and fenced code blocks are text, and left alone; each problem names its line, and
the message says to write the text as code (in backticks) to show it.

Patterns over Markdown source miss what Markdown reads differently (a tag written `<svg/onload=...>`,
a reference's URL on the next line, nested brackets in a link's text, a bare word in an attribute
list). So once the source passes, `rendered_problems` renders the author's Markdown, citations
replaced by inert words, with the site's own dialect (site_gen/dialect.py) and lets through only
what Markdown itself makes of plain prose: its elements, ids from `{#name}` and headings, links
with the schemes above and images from the site. Whatever else the page would hold is refused."""

from __future__ import annotations

import bisect
import re
from html.parser import HTMLParser
from typing import Iterable

from benchledger.errors import Problem
from site_gen import dialect, urls
from site_gen.raw_html import END as RAW_END, START as RAW_START

# a tag as browsers read one: attributes may follow a "/" as well as a space (`<svg/onload=...>`)
_TAG = re.compile(r"<(/?[A-Za-z][A-Za-z0-9-]*)(?:[\s/][^<>]*)?>")
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# the target of [text](target ...) and ![alt](target ...) (Markdown takes everything up to the
# `)` as the URL, tabs and newlines included, which browsers drop); `_links` finds the opening bracket
_LINK_TARGET = re.compile(r"\]\(([^)]*)")
_LINK_TEXT_CHARS = 2000  # how far back a link's opening bracket is looked for
_RAW_MARKER = re.compile(f"{re.escape(RAW_START)}|{re.escape(RAW_END)}")
_TITLE = re.compile(r"""\s+(?:"[^"]*"|'[^']*')\s*$""")
# a link reference definition; its URL may stand on the next line
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\n?[ \t]*<?([^\s>]*)", re.M)
# attr_list's tokens #id, .class and key=value (a list with bare words too, which braces in prose
# look like, is judged on the rendered page: rendered_problems)
_ATTR_TOKEN = r"""(?:[#.][\w-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}]+))"""
_ATTR_LIST = re.compile(r"\{:?[ \t]*(" + _ATTR_TOKEN + r"(?:[ \t]+" + _ATTR_TOKEN + r")*)[ \t]*\}")
_ANCHOR_ONLY = re.compile(r"#[\w-]+")
_LINK_SCHEMES = ("http", "https", "mailto")
_AS_CODE = "write it in backticks to show it as code"


def prose_problems(source: str, body: str, body_line: int, generated: Iterable[tuple[int, int]],
                   fenced: Iterable[tuple[int, int]]) -> list[Problem]:
    """Every problem of the author's Markdown in `body` (file line `body_line` at body[0]),
    leaving out the `generated` spans (citations) and the `fenced` code blocks, as offsets."""
    text = _masked(body, [*generated, *fenced])
    text = _masked(text, _code_spans(text))
    found: list[tuple[int, str]] = []
    for m in _TAG.finditer(text):
        found.append((m.start(), f"raw HTML <{m.group(1)}> is not allowed in an article (its page runs and loads only "
                                  f"what the site makes); write Markdown, or {_AS_CODE}"))
    for m in _ATTR_LIST.finditer(text):
        tokens = m.group(1).split()
        if not all(_ANCHOR_ONLY.fullmatch(t) for t in tokens):
            found.append((m.start(), f"the attribute list {m.group()[:60]!r} sets more than an anchor ({{#name}}): "
                                     f"it could hide a limitation or run script; remove it, or {_AS_CODE}"))
    for start, image, raw_target in _links(text):
        target = _TITLE.sub("", raw_target).strip().strip("<>")
        scheme = urls.scheme(target)
        if image and (scheme is not None or urls.other_host(target)):
            found.append((start, f"the image {target[:60]!r} would load from outside the site; put the file "
                                 "beside the article's page and link it relatively"))
        elif not image and scheme is not None and scheme not in _LINK_SCHEMES:
            found.append((start, f"a link to a {scheme}: URL is not allowed (http, https, mailto or a relative link)"))
    for m in _RAW_MARKER.finditer(text):
        found.append((m.start(), f"{m.group()} marks HTML the generator made; an article may not hold it: "
                                 f"remove it, or {_AS_CODE}"))
    for m in _REFERENCE.finditer(text):
        scheme = urls.scheme(m.group(1))
        if scheme is not None and scheme not in _LINK_SCHEMES:
            found.append((m.start(), f"a link to a {scheme}: URL is not allowed (http, https, mailto or a relative link)"))
    problems, line, counted = [], body_line, 0
    for offset, message in sorted(found):  # lines counted once, in order
        line += body.count("\n", counted, offset)
        counted = offset
        problems.append(Problem(source, "", message, line))
    return problems


def _links(text: str) -> Iterable[tuple[int, bool, str]]:
    """(offset, whether an image, raw target) of every inline link and image: the opening
    bracket is the one that balances the `]` before `(`, brackets nesting to any depth."""
    for m in _LINK_TARGET.finditer(text):
        depth, i, stop = 0, m.start(), max(-1, m.start() - _LINK_TEXT_CHARS)
        while i > stop:
            if text[i] == "]":
                depth += 1
            elif text[i] == "[":
                depth -= 1
                if depth == 0:
                    break
            i -= 1
        image = i > stop and i > 0 and text[i - 1] == "!"
        yield (i - 1 if image else max(i, 0)), image, m.group(1)


# What Markdown makes of plain prose, and the attributes it gives each element (`id` is allowed
# on every one: `{#name}` and heading anchors).
_ALLOWED: dict[str, frozenset[str]] = {
    **dict.fromkeys(("p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "blockquote", "ul", "ol", "li",
                     "hr", "br", "pre", "table", "thead", "tbody", "tr"), frozenset()),
    "a": frozenset({"href", "title", "class"}),  # class: the heading permalinks' "headerlink"
    "img": frozenset({"src", "alt", "title"}),
    "code": frozenset({"class"}),  # a fenced block's "language-..."
    "th": frozenset({"style"}), "td": frozenset({"style"}),  # the tables extension's alignment
}
_ALLOWED_VALUE = {
    ("a", "class"): re.compile(r"headerlink"),
    ("code", "class"): re.compile(r"language-[\w+#.-]+"),
    ("th", "style"): re.compile(r"text-align: (?:left|right|center);"),
    ("td", "style"): re.compile(r"text-align: (?:left|right|center);"),
    ("*", "id"): re.compile(r"[\w-]+"),
}
# Citations become these words in the Markdown rendered for the check: inert text.
CITATION_WORD = "blcitation{}x"


class _PageElements(HTMLParser):
    """What rendered prose holds beyond `_ALLOWED`: each as (what, the text to look for in
    the source), plus every id it gives an element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        allowed = _ALLOWED.get(tag)
        if allowed is None:
            self.found.append((f"an element <{tag}>", f"<{tag}"))
            return
        for name, value in attrs:
            value = value or ""
            rule = _ALLOWED_VALUE.get((tag, name)) or _ALLOWED_VALUE.get(("*", name))
            if name != "id" and name not in allowed or rule is not None and not rule.fullmatch(value):
                self.found.append((f"<{tag} {name}={value[:60]!r}>", value or name))
            elif name == "id":
                self.ids.append(value)
            elif name == "href":
                scheme = urls.scheme(value)
                if scheme is not None and scheme not in _LINK_SCHEMES:
                    self.found.append((f"a link to a {scheme}: URL", value))
            elif name == "src" and (urls.scheme(value) is not None or urls.other_host(value)):
                self.found.append((f"an image from {value[:60]!r}, outside the site", value))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag: str) -> None:
        if tag not in _ALLOWED and (f"an element <{tag}>", f"<{tag}") not in self.found:  # once per element
            self.found.append((f"an element </{tag}>", f"</{tag}"))

    def handle_comment(self, data: str) -> None:
        if "benchledger:" in data:
            self.found.append(("benchledger's own HTML marker", data.strip()))

    def handle_decl(self, decl: str) -> None:
        self.found.append((f"a declaration <!{decl[:40]}>", decl))

    def handle_pi(self, data: str) -> None:
        self.found.append((f"a processing instruction <?{data[:40]}>", data))

    def unknown_decl(self, data: str) -> None:
        self.found.append((f"a declaration <![{data[:40]}]>", data))


def rendered_problems(source: str, body: str, body_line: int, prose: str, generated_ids: Iterable[str]) -> list[Problem]:
    """Every problem of `prose` (the article's Markdown with each citation as a
    `CITATION_WORD`) as the page would hold it: what is beyond `_ALLOWED`, and an id an element of
    the generated part of the page (`generated_ids`) carries too, which would take its links
    (#lim-..., a chart's). Each problem names the body's line that holds what it found, where
    exactly one does."""
    parser = _PageElements()
    parser.feed(dialect.render(prose))
    parser.close()
    found = [(f"the article's Markdown would put {what} on its page, which an article may not hold (its page runs "
              f"and loads only what the site makes); write plain Markdown, or {_AS_CODE}", needle) for what, needle in parser.found]
    taken = set(generated_ids)
    found += [(f"the anchor #{name} (a heading's or a {{#name}}) is an id of the page's generated part too, whose links "
               "would lead to the article's text instead: choose another", name) for name in parser.ids if name in taken]
    problems, folded = [], body.lower()  # HTMLParser gives tag and attribute names in lower case
    for message, needle in found:
        # the line, where the body holds what was found exactly once (the message quotes it)
        at = folded.find(needle.lower()) if needle else -1
        once = at >= 0 and folded.find(needle.lower(), at + 1) < 0
        problems.append(Problem(source, "", message, body_line + body.count("\n", 0, at) if once else None))
    return problems


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of the code spans: a run of backticks up to the next run of the same length in
    its paragraph (as Markdown reads them), found in one pass over the runs."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    breaks = [m.start() for m in _BLANK_LINE.finditer(text)]
    paragraph = [bisect.bisect(breaks, start) for start, _ in runs]
    following: list[int | None] = [None] * len(runs)
    last: dict[tuple[int, int], int] = {}
    for i in range(len(runs) - 1, -1, -1):  # for each run, the next one of its length in its paragraph
        key = (paragraph[i], runs[i][1] - runs[i][0])
        following[i] = last.get(key)
        last[key] = i
    spans, i = [], 0
    while i < len(runs):
        j = following[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans


def _blank(text: str) -> str:
    """`text` with everything but newlines as spaces: offsets and line numbers stay."""
    return re.sub(r"[^\n]", " ", text)


def _masked(body: str, spans: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for start, end in sorted(spans):
        if start < pos:
            start = pos
        out.append(body[pos:start])
        out.append(_blank(body[start:end]))
        pos = max(pos, end)
    out.append(body[pos:])
    return "".join(out)
