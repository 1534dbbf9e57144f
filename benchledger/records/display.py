"""Record text as a reader sees it, in any output: the page (site_gen.escape builds on this) and
the terminal (`show`, `compare`). Two steps every such context needs, together `readable()`:

- `one_line()`: whitespace runs, newlines included, as one space, so a value ends no line, no
  table row and no raw HTML block, and cannot fake a line of a command's output;
- `visible()`: what a reader cannot see but changes what is shown, written as its code point:
  bidi embeddings, overrides and isolates (after U+202E the cited "25.9 tokens/s" further on
  the line read "s/snekot 9.52") and control characters (ESC starts a terminal's colour and
  title sequences)."""

from __future__ import annotations

import datetime
import re

from benchledger.records.numbers import is_number

# whitespace controls are left to one_line(); every other control, and the bidi formatting characters
_INVISIBLE = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """`text` with every invisible character written as "[U+XXXX]"."""
    if text.isprintable():  # nearly all text, decided in C: controls and format characters are not printable
        return text
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def one_line(value: object) -> str:
    """`value` as text with its whitespace runs (newlines included) folded into one space."""
    return " ".join(str(value).split())


def readable(value: object) -> str:
    """Record text as shown anywhere (a page, a feed, a command's output): one line, nothing
    invisible. Each output then escapes it for its own syntax (site_gen/escape.py)."""
    return visible(one_line(value))


def names_unix_time(key: str) -> bool:
    """Whether a field (its key, or a pointer ending in it) holds a Unix time by the project's
    naming rule (`finished_epoch`): shown with its UTC date wherever it is shown."""
    return key.endswith("epoch")


def utc_date(epoch_s: object, *, time: bool = False) -> str:
    """A Unix time as its UTC date (YYYY-MM-DD), with `time` its time of day too (YYYY-MM-DD
    HH:MM:SS); "" when it is not a number or names no date a calendar can show (the schema
    admits any finite double, e.g. year 10000)."""
    if not is_number(epoch_s):
        return ""
    try:
        when = datetime.datetime.fromtimestamp(epoch_s, datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return ""
    return when.strftime("%Y-%m-%d %H:%M:%S" if time else "%Y-%m-%d")
