"""Record, plan and article text is untrusted: it must render as literal text wherever it lands.
One function per context, and nothing else escapes:

- `text()`: Markdown text (headings, table cells, list items);
- `html()`: HTML text, inert also where Markdown processes that HTML (inside a paragraph, a
  table cell or a `markdown` block: no link, emphasis or `{: attr_list}` can form);
- `pre()`: HTML text inside `<pre>` (lines kept);
- `attr()`: a double-quoted HTML attribute value holding data, exactly (data-pointer=, href=);
- `shown_attr()`: a double-quoted attribute a reader sees (title=, alt=);
- `anchor()`: an HTML id / attr_list `{#...}` anchor / file-name part: `[a-z0-9-]` only;
- `url_path()`: a relative URL built from store and page paths (percent-encoded, never a scheme);
- `yaml_string()`: a YAML double-quoted scalar (mkdocs.yml values, front matter);
- `page_title()`: the front-matter `title:` MkDocs writes into `<title>` and the header unescaped;
- `xml_chars()`: text vl-convert writes into a static SVG (XML 1.0 cannot hold every character);
- `xml_text()`, `xml_attr()`: text and attribute values of the Atom feed;
- JSON inside `<script>` is `charts._script_json` (no `<`, `>`, `&`)."""

from __future__ import annotations

import html as _html
import json
import re
from urllib.parse import quote
from xml.sax.saxutils import escape as _xml_escape
from xml.sax.saxutils import quoteattr as _xml_quoteattr

from benchledger.records.digest import sha256_hex
from benchledger.records.display import readable, visible

# Python-Markdown's escapable characters (plus `|` from the tables extension); escaping any
# other character would leave a visible backslash.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")
# Characters that start Markdown inline syntax inside HTML text: written as character references,
# which HTML reads as the character and Markdown leaves alone. `_` only where it could open or
# close emphasis (Python-Markdown ignores it inside a word, as in gpu_layers).
_MD_INLINE = re.compile(r"[\\`*{}\[\]|]|(?<!\w)_|_(?!\w)")
_ANCHOR_SAFE = re.compile(r"[A-Za-z0-9_-]+")
_ANCHOR = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # what anchor() returns
_SLUG_CHARS = 48
_ANCHOR_CHARS = _SLUG_CHARS + 11  # a slug, "-" and ten hex digits


def text(value: object) -> str:
    """Record text as literal Markdown: HTML-escaped, Markdown syntax backslash-escaped,
    newlines folded into spaces (so a string cannot end a table row or open a block)."""
    s = shown_attr(value)
    # html.escape produced entities such as &lt; whose '&' and ';' must survive as is.
    parts = re.split(r"(&[a-z]+;|&#x?[0-9a-f]+;)", s)
    return "".join(p if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


def html(value: object) -> str:
    """Record text as HTML text (an element's content): HTML-escaped, whitespace folded, and
    Markdown's inline syntax characters written as character references, so the same string is
    literal whether or not Markdown runs over it."""
    return _MD_INLINE.sub(lambda m: f"&#{ord(m.group())};", shown_attr(value))


def pre(value: object) -> str:
    """Record text inside `<pre>`: like `html()`, but its lines kept."""
    return "\n".join(_MD_INLINE.sub(lambda m: f"&#{ord(m.group())};", _html.escape(visible(line), quote=True))
                     for line in str(value).split("\n"))


# whitespace that would end a line of the page: a blank line inside an attribute of a raw HTML
# block ends the block for Markdown. As character references it is the same value to a browser
# and to html.parser (which drops a reference to another control, such as &#11;: those stay raw).
_LINE_WHITESPACE = str.maketrans({"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def attr(value: object) -> str:
    """Record text inside a double-quoted HTML attribute that holds data (data-*=, href=),
    exactly: not made `visible` and not folded (a key holding a newline or two spaces was folded,
    and the data-pointer an audit resolves no longer named the record's own key). Line-ending
    whitespace is written as character references, so no line break falls inside a tag."""
    return _html.escape(str(value), quote=True).translate(_LINE_WHITESPACE)


def shown_attr(value: object) -> str:
    """Record text inside an attribute a reader sees (a tooltip's title=, an image's alt=):
    `readable` (one line, controls and bidi overrides as their code points), HTML-escaped. The
    text contexts below build on it."""
    return _html.escape(readable(value), quote=True)


def anchor(value: object) -> str:
    """An id for HTML and for attr_list's `{#...}` (and a safe file-name part): lowercase
    letters, digits and '-'. A value that is not already a plain word gets a hash suffix, so
    two different values never share an anchor. An anchor is its own anchor, whatever its length
    (ids are made from anchors and checked with this)."""
    raw = str(value)
    if len(raw) <= _ANCHOR_CHARS and _ANCHOR.fullmatch(raw):
        return raw
    slug = re.sub(r"[^a-z0-9]+", "-", raw.lower()).strip("-")[:_SLUG_CHARS].strip("-")
    if slug and _ANCHOR_SAFE.fullmatch(raw) and len(raw) <= _SLUG_CHARS:
        return slug
    digest = sha256_hex(raw.encode("utf-8", "surrogatepass"))[:10]
    return f"{slug}-{digest}" if slug else f"h-{digest}"


def url_path(path: str) -> str:
    """A relative URL path, percent-encoded: no character in it can end a Markdown link target
    or an attribute, and a first segment like `javascript:x` cannot be read as a scheme."""
    return quote(path, safe="/-_.~")


# An escape in JSON's ASCII output: a surrogate pair (a character past U+FFFF), or any other,
# matched whole so that an escaped backslash's next characters are never read as an escape.
_JSON_ESCAPE = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|\\.")


def _yaml_escape(match: re.Match[str]) -> str:
    if match[1] is None:
        return match[0]
    return f"\\U{0x10000 + ((int(match[1], 16) - 0xD800) << 10) + int(match[2], 16) - 0xDC00:08x}"


def yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar, ASCII only. JSON's escaping, which YAML reads as
    the same text, except a character past U+FFFF: JSON writes it as a surrogate pair, whose
    halves PyYAML reads as two lone surrogates (MkDocs then failed writing an emoji site name
    as UTF-8), so it is YAML's \\UXXXXXXXX escape."""
    return _JSON_ESCAPE.sub(_yaml_escape, json.dumps(value, ensure_ascii=True))


def page_title(value: object) -> str:
    """The value of a page's front-matter `title:` (a YAML double-quoted scalar). MkDocs and
    Material write `page.meta.title` into `<title>` and the header as is, so it carries the
    HTML-escaped text."""
    return yaml_string(shown_attr(value))


# What XML 1.0 cannot hold: C0 controls but tab, newline and return, lone surrogates, U+FFFE/FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_chars(value: str) -> str:
    """Text for a chart spec that vl-convert renders to SVG: every character XML 1.0 cannot hold
    as U+FFFD. vl-convert writes text into the SVG as is and then parses it, and a NUL in a
    title or label made it panic and abort the whole build process, with no message."""
    return _NOT_XML.sub("\ufffd", value)


def xml_text(value: object) -> str:
    """Text inside an XML element of the Atom feed: whitespace folded, controls and bidi
    overrides shown as their code points, what XML 1.0 cannot hold as U+FFFD, and & < >
    escaped. One sealed record whose release held a control character made the whole feed
    ill-formed, and feed readers reject an ill-formed feed entirely."""
    return _xml_escape(xml_chars(readable(value)))


def xml_attr(value: object) -> str:
    """A quoted XML attribute value (the feed's href= and term=), made as `xml_text` makes text."""
    return _xml_quoteattr(xml_chars(readable(value)))


# JavaScript's line terminators end a line inside a Vega expression's string literal: a parse error
_LINE_TERMINATORS = str.maketrans({"\n": " ", "\r": " ", "\u2028": " ", "\u2029": " "})
_HAS_LINE_TERMINATOR = re.compile("[\n\r\u2028\u2029]")


def chart_text(value: str) -> str:
    """Text for a chart's titles and labels, which Vega-Lite writes into Vega expressions (a
    sort order compares each label, a tooltip is keyed by the titles) as string literals it
    does not escape line terminators in: a newline, a return, U+2028 or U+2029 in a record's
    axis name or label ended the literal and failed the build (static SVG) and the live chart.
    Each becomes a space, and what `visible` shows is shown."""
    value = visible(value)
    return value.translate(_LINE_TERMINATORS) if _HAS_LINE_TERMINATOR.search(value) else value
