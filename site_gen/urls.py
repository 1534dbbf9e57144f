"""A URL as a browser reads it, for the checks that judge where a link goes or what a page
loads (site_gen/prose.py for an article's prose, site_gen/audit/scan.py for a built site): entities
decoded, the tabs, newlines and control characters browsers drop removed, and a backslash read
as a slash, as browsers read it in http(s) URLs."""

from __future__ import annotations

import html
import re

_DROPPED = re.compile(r"[\x00-\x20\x7f]")
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):")


def as_read(url: str) -> str:
    """`url` as the browser reads it (see the module docstring), lower-cased."""
    return _DROPPED.sub("", html.unescape(url)).replace("\\", "/").lower()


def scheme(url: str) -> str | None:
    """The scheme a browser reads in `url`, None for a relative URL."""
    m = _SCHEME.match(as_read(url))
    return m.group(1) if m else None


def other_host(url: str) -> bool:
    """Whether `url`, without a scheme, still names another host (`//host`, `/\\host`, ...)."""
    return as_read(url).startswith("//")
