"""Record text is untrusted: it must render as literal text in Markdown, HTML and Jinja.

Every string that comes from a record goes through `text()` (for Markdown body and table cells)
or `attr()` (for HTML attribute values) before it reaches a page."""

from __future__ import annotations

import html
import re

# Python-Markdown's escapable characters (plus `|` from the tables extension); escaping any
# other character would leave a visible backslash.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")


def text(value: object) -> str:
    """Record text as literal Markdown: HTML-escaped, Markdown syntax backslash-escaped,
    newlines folded into spaces (so a string cannot end a table row or open a block)."""
    s = " ".join(str(value).split())
    s = html.escape(s, quote=True)
    # html.escape produced entities such as &lt; whose '&' and ';' must survive as is.
    parts = re.split(r"(&[a-z]+;|&#x?[0-9a-f]+;)", s)
    return "".join(p if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


def attr(value: object) -> str:
    """Record text inside a double-quoted HTML attribute (title=, data-*=)."""
    return html.escape(" ".join(str(value).split()), quote=True)
