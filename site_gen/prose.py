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
the message says to write the text as code (in backticks) to show it."""

from __future__ import annotations

import bisect
import html
import re
from typing import Iterable

from benchledger.errors import Problem

_TAG = re.compile(r"<(/?[A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?/?>")
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# [text](target ...) and ![alt](target ...), one level of brackets inside the text
# (Markdown takes everything up to the `)` as the URL, tabs and newlines included, which browsers drop)
_LINK = re.compile(r"(!?)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^)]*)")
_TITLE = re.compile(r"""\s+(?:"[^"]*"|'[^']*')\s*$""")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]*)", re.M)
_ATTR_TOKEN = r"""(?:[#.][\w-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}]+))"""
_ATTR_LIST = re.compile(r"\{:?[ \t]*(" + _ATTR_TOKEN + r"(?:[ \t]+" + _ATTR_TOKEN + r")*)[ \t]*\}")
_ANCHOR_ONLY = re.compile(r"#[\w-]+")
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):")
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
    for m in _LINK.finditer(text):
        image, target = m.group(1) == "!", _TITLE.sub("", m.group(2)).strip().strip("<>")
        scheme = _scheme(target)
        if image and (scheme is not None or target.startswith("//")):
            found.append((m.start(), f"the image {target[:60]!r} would load from outside the site; put the file "
                                     "beside the article's page and link it relatively"))
        elif not image and scheme is not None and scheme not in _LINK_SCHEMES:
            found.append((m.start(), f"a link to a {scheme}: URL is not allowed (http, https, mailto or a relative link)"))
    for m in _REFERENCE.finditer(text):
        scheme = _scheme(m.group(1))
        if scheme is not None and scheme not in _LINK_SCHEMES:
            found.append((m.start(), f"a link to a {scheme}: URL is not allowed (http, https, mailto or a relative link)"))
    problems, line, counted = [], body_line, 0
    for offset, message in sorted(found):  # lines counted once, in order
        line += body.count("\n", counted, offset)
        counted = offset
        problems.append(Problem(source, "", message, line))
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


def _scheme(target: str) -> str | None:
    """The URL scheme a browser would read in a link target (entities decoded, the tabs,
    newlines and other control characters it drops removed), None for a relative URL."""
    cleaned = re.sub(r"[\x00-\x20\x7f]", "", html.unescape(target)).lower()
    m = _SCHEME.match(cleaned)
    return m.group(1) if m else None


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
