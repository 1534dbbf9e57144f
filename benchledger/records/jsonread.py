"""The strict JSON reader for record bytes and ledger lines.

Python's `json` accepts things a sealed record must not contain: duplicate keys (the last one
silently wins), `NaN`/`Infinity`, numbers that overflow to infinity, a byte-order mark, a string
holding an unpaired surrogate. This reader rejects each of them with one `Problem` naming the
file, the place (line, or the JSON path of the object holding a duplicate key) and the reason.

Record bytes are first parsed by orjson, four times faster than Python's parser and as strict
about NaN, infinities, lone surrogates and UTF-8; where it cannot say as much as the strict
reader (a duplicate key, an integer past 64 bits, any error) the strict reader reads the bytes
again and has the last word, so the two accept the same documents and give the same values
(`_quick_parse`). Sealing and verifying 10,000 records spent half their time parsing."""

from __future__ import annotations

import gc
import json
import math
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import orjson

from benchledger.errors import InputError
from benchledger.files import read_input
from benchledger.records.pointer import to_jsonpath, walk

# A record is a few hundred KiB at most; anything far larger is not a record (and would make
# verification of a store unbounded in memory).
MAX_RECORD_BYTES = 16 * 1024 * 1024


# Only a number with a positive 3-digit exponent or 200+ digits can overflow a float (1.8e308);
# text without one is parsed with the C float parser, text with one through the checking hook.
# The test runs on the text's bytes mapped to classes (`_CLASSES`: every digit to "0", e and E
# to "e", other word characters to "a", ".+-" kept, the rest to " "), where C does the scanning:
# a run of 200 digits is a plain substring search, and `_EXPONENT` finds an exponent of 3+
# digits that is a whole token's end (the hex digests every record holds, "...b1e308f...", are
# not), starting from the literal "e" so the regex engine skips straight to candidates. A
# string that merely looks like such a number costs the slow path, never a wrong answer.
_CLASSES = bytes(ord("0") if chr(c).isdigit() and c < 128 else ord("e") if c in b"eE"
                 else ord("a") if chr(c).isalpha() and c < 128 or c == ord("_") else c if c in b".+-" else ord(" ")
                 for c in range(256))
_LONG_RUN = b"0" * 200
_EXPONENT = re.compile(rb"e(?<=0e)\+?0{3,}(?![0ae.])")
_TOKEN_CLASSES = b"0ae."


def _may_overflow(text: str) -> bool:
    """Whether `text` holds a number token that could overflow to infinity (see above)."""
    classes = text.encode("utf-8", "surrogatepass").translate(_CLASSES)
    if _LONG_RUN in classes:
        return True
    for match in _EXPONENT.finditer(classes):
        begin = match.start()  # walk back over the mantissa: digits and a point
        while begin > 0 and classes[begin - 1] in b"0.":
            begin -= 1
        if classes[begin] != ord("0"):
            continue  # ".e308": no digit starts it
        if begin > 0 and classes[begin - 1] == ord("-"):
            begin -= 1
        if begin == 0 or classes[begin - 1] not in _TOKEN_CLASSES:
            return True
    return False


_UNSURE = object()  # what `_quick_parse` returns when the strict reader must decide
# orjson reads an integer past 64 bits (below -2**63 or from 2**64 on) as a float, and writes a
# float of that size (from 9.2e18, short of 1.8e308) as "<mantissa>e+<18 to 308>", ending the
# number where a comma, bracket or brace (or the text) ends: its re-encoding then holds this.
# A string can hold such text too ("1e+20,"): that only costs the strict reader.
_WIDE_FLOAT = re.compile(rb"e\+(?:1[89]|[2-9][0-9]|[12][0-9][0-9]|30[0-8])(?:[,\]}]|\Z)")


def _quick_parse(raw: bytes) -> Any:
    """`raw` parsed by orjson when that is provably what the strict reader gives, else _UNSURE.

    orjson keeps the last of duplicate keys silently, and reads an integer past 64 bits as a
    float: `reads_alike` proves neither happened."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:  # the strict reader says what is wrong, in its own words
        return _UNSURE
    return data if reads_alike(raw, data) else _UNSURE


def _reads_alike_in_python(raw: bytes, data: Any) -> bool:
    """Whether orjson's `data` from `raw` provably is what the strict reader reads (the proof of
    an install where `_memberproof.c` was not compiled; False means "not proven").

    A document without a duplicate key has as many colons outside its strings as its objects
    have members, which is the number of colons outside the strings of orjson's re-encoding of
    what it read; with one, the dropped members (and their strings' colons) are missing from the
    re-encoding. So equal counts of all colons, in the bytes and in the re-encoding, prove there
    was none, provided every colon of a string in the bytes is written as one (an escaped one,
    `\\u003a`, would decode to an uncounted colon: then the strict reader decides; bytes without
    a backslash have no escape at all). An integer orjson could not hold shows in the re-encoding
    as a wide float (`_WIDE_FLOAT`). The re-encoding is searched rather than the bytes: it is
    smaller, and its numbers have one spelling."""
    global _quick_bytes
    _quick_bytes += len(raw)
    if not _numpy_tried and (_quick_bytes > NUMPY_AFTER_BYTES or "numpy" in sys.modules):
        count_colons_with_numpy()
    if b"\\" in raw and (b"\\u003a" in raw or b"\\u003A" in raw):
        return False
    try:
        again = orjson.dumps(data)
    except orjson.JSONEncodeError:  # e.g. nested deeper than orjson writes
        return False
    return _colons(raw) == _colons(again) and not _holds_wide_float(again)


try:
    # The same proof in C, counting the colons outside the strings of `raw` and the members of
    # `data`'s dicts: 0.12 ms for a 145 KB record against 0.19 for orjson's re-encoding and two
    # counts (bench/HISTORY.md, 12-07). It is compiled where the package is installed from source
    # with a C compiler (setup.py).
    from benchledger.records._memberproof import reads_alike as _compiled_reads_alike
except ImportError:
    _compiled_reads_alike = None
reads_alike = _compiled_reads_alike or _reads_alike_in_python


_numpy = None  # numpy, once `count_colons_with_numpy` has loaded it in this process
_numpy_tried = False  # whether `count_colons_with_numpy` has run (numpy is loaded at most once)
# Record bytes this process has read through the quick path so far. Past NUMPY_AFTER_BYTES (about
# 500 records of 130 KB) it is reading many, and loading numpy (60 ms) pays for itself within
# 600 more (0.1 ms saved each): a process that stops right after loses at most that 60 ms on
# the 0.6 s it had spent. Where numpy is loaded already (pandas in a build), it costs nothing.
_quick_bytes = 0
NUMPY_AFTER_BYTES = 64 * 1024 * 1024


def _colons(text: bytes) -> int:
    """How many colons `text` holds (a record's quick path counts twice). With numpy (in a process
    that called `count_colons_with_numpy`) all the bytes are compared at once, 0.03 ms for a 144 KB
    record; otherwise bytes.replace finds each colon with memchr, 0.08 ms (bytes.count goes a byte
    at a time: 0.11)."""
    if _numpy is None:
        return len(text) - len(text.replace(b":", b""))
    return int(_numpy.count_nonzero(_numpy.frombuffer(text, _numpy.uint8) == 58))  # 58: ord(":")


def count_colons_with_numpy() -> None:
    """Count colons with numpy from now on, in a process that reads many records (a validating
    pool worker, or any process past NUMPY_AFTER_BYTES): 0.1 ms saved a record. Not done for a
    command's one record: loading numpy takes 60 ms, and its OpenBLAS starts a thread for each
    further CPU that spins for about 70 ms of CPU time (measured on 2 CPUs), so where numpy is not
    loaded yet it is loaded with OpenBLAS on one thread (the setting is read once, as OpenBLAS
    loads, and put back after: programs this process starts later get the user's). Where numpy
    cannot be loaded (a broken install), colons are counted as before: the count is the same."""
    global _numpy, _numpy_tried
    if reads_alike is not _reads_alike_in_python:
        return  # the compiled proof counts colons itself, faster than numpy does
    _numpy_tried = True
    unset = "numpy" not in sys.modules and "OPENBLAS_NUM_THREADS" not in os.environ
    if unset:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy
    except ImportError:
        return
    finally:
        if unset:
            del os.environ["OPENBLAS_NUM_THREADS"]
    _numpy = numpy


def _holds_wide_float(again: bytes) -> bool:
    """Whether orjson's re-encoding `again` holds a float too wide for an integer (`_WIDE_FLOAT`).
    Only an exponent's "+" can start one, and a record has few: the regex is tried at each
    (found with memchr) instead of run over every byte, where it was an eighth of the quick path."""
    plus = again.find(b"+")
    while plus != -1:
        if _WIDE_FLOAT.match(again, plus - 1):
            return True
        plus = again.find(b"+", plus + 1)
    return False


class _DuplicateKeys(dict):
    """An object that had repeated keys; marks where the duplicate is, found after parsing."""

    duplicates: list[str]


class _NonFinite(ValueError):
    def __init__(self, literal: str):
        super().__init__(literal)
        self.literal = literal


def _trailing_comma(text: str, pos: int) -> int | None:
    """Where the comma is, when the parser stopped at a } or ] right after one ("[1, 2,]")."""
    if pos >= len(text) or text[pos] not in "}]":
        return None
    before = len(text[:pos].rstrip(" \t\n\r")) - 1
    return before if before >= 0 and text[before] == "," else None


def _reject_constant(literal: str) -> Any:
    raise _NonFinite(literal)


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NonFinite(text)
    return value


@contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while records are parsed and checked.

    A parsed record is a tree: reference counting frees it whole, and the cyclic collector never
    finds anything in it. Left on, it ran two or three times during each record's parse (a record's
    ~3,300 values are as many allocations) and walked every young value each time: paused, parse,
    proof, schema and checks took 0.78 ms a record instead of 0.84-1.26 (bench/HISTORY.md,
    12-07). Whatever cycle is made meanwhile is collected once the pause ends."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def read_json_bytes(raw: bytes, file: str | Path, max_bytes: int = MAX_RECORD_BYTES) -> Any:
    """Parse `raw` as one strict JSON document; raise InputError naming `file` and the reason."""
    return parse_json_bytes(raw, file, max_bytes)[0]


def parse_json_bytes(raw: bytes, file: str | Path, max_bytes: int = MAX_RECORD_BYTES) -> tuple[Any, bool]:
    """`read_json_bytes`, and whether orjson's parse gave the value: then every integer in it fits
    in 64 bits (orjson holds no wider one) and every float is finite, which lets the schema leave
    out bounds no such number can cross (`schema.validate`'s `integers_fit_64_bits`)."""
    file = str(file)
    if len(raw) > max_bytes:
        raise InputError(file, "", f"file is {len(raw)} bytes, over the {max_bytes}-byte limit for a record")
    if raw.startswith(b"\xef\xbb\xbf"):
        raise InputError(file, "", "starts with a UTF-8 byte-order mark; records are plain UTF-8")
    data = _quick_parse(raw)
    if data is not _UNSURE:
        return data, True
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise InputError(file, "", f"not UTF-8: invalid byte 0x{raw[err.start]:02x} at offset {err.start}", line) from None
    return read_json_text(text, file), False



def read_json_text(text: str, file: str | Path) -> Any:
    """Parse already-decoded `text` strictly (see module docstring)."""
    file = str(file)
    found_duplicates = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict:
        nonlocal found_duplicates
        obj = dict(pairs)
        if len(obj) != len(pairs):
            found_duplicates = True
            obj = _DuplicateKeys(pairs)
            seen: set[str] = set()
            obj.duplicates = [k for k, _ in pairs if k in seen or seen.add(k)]
        return obj

    try:
        parse_float = _finite_float if _may_overflow(text) else None
        data = json.loads(text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant, parse_float=parse_float)
    except _NonFinite as err:
        literal = err.literal if len(err.literal) <= 40 else f"{err.literal[:16]}...{err.literal[-8:]} ({len(err.literal)} characters)"
        line, column = _place(text, _outside_strings(text, err.literal))
        reason = ("NaN and infinities are not allowed" if err.literal in ("NaN", "Infinity", "-Infinity")
                  else "too large for a double: it reads as infinity, and records hold finite numbers")
        raise InputError(file, "", f"{literal} is not a finite JSON number ({reason}; column {column})", line) from None
    except json.JSONDecodeError as err:
        if not text.strip():
            raise InputError(file, "", f"not JSON: the file is empty ({len(text)} bytes{', whitespace only' if text else ''})") from None
        comma = _trailing_comma(text, err.pos)
        if comma is not None:
            line, column = _place(text, comma)
            raise InputError(file, "", f"not JSON: a comma after the last item (column {column}), before the closing "
                                       f"{text[err.pos]!r}; remove it", line) from None
        reason = "trailing data after the JSON document" if err.msg == "Extra data" else err.msg
        raise InputError(file, "", f"not JSON: {reason} (column {err.colno})", err.lineno) from None
    except ValueError as err:  # an integer longer than Python's digit limit
        digits = _LONG_INTEGER.search(text)
        if digits is None:
            raise InputError(file, "", f"not JSON this reader accepts: {err}") from None
        line, column = _place(text, digits.start())
        raise InputError(file, "", f"an integer of {len(digits.group())} digits (column {column}): more than the "
                                   f"{sys.get_int_max_str_digits()} this reader takes; no measured figure has that many", line) from None
    except RecursionError:
        raise InputError(file, "", "not JSON this reader accepts: nested too deeply") from None
    if found_duplicates:
        path, keys = _first_duplicate(data)
        raise InputError(file, path, f"duplicate key {keys[0]!r} in one object")
    # A lone surrogate (\ud800 unpaired) is valid JSON but no Unicode text: such a record sealed
    # and then no page could be written (UTF-8 cannot encode it). Only a \uD8xx-\uDFxx escape
    # makes one (strict UTF-8 decoding refuses encoded surrogates): a substring test in C first.
    if "\\ud" in text or "\\uD" in text:
        lone = first_lone_surrogate(data)
        if lone is not None:
            raise InputError(file, lone, "a string holds an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF escape "
                                         "without its pair): not Unicode text")
    return data


_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_INTEGER = re.compile(r"\d{%d,}" % (sys.get_int_max_str_digits() + 1))


def _place(text: str, offset: int) -> tuple[int, int]:
    """(line, column), from 1, of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _outside_strings(text: str, token: str) -> int:
    """The offset of the first `token` (a JSON literal such as NaN or 1e400) outside the
    document's strings (0 if none: it came from somewhere)."""
    pattern = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.+-])(' + re.escape(token) + r")(?![\w.])")
    return next((m.start(1) for m in pattern.finditer(text) if m.group(1)), 0)


def first_lone_surrogate(data: Any) -> str | None:
    """The JSON path of the first string (or key) in `data` holding a lone surrogate, None when
    none does (json pairs a high and a low surrogate escape into one character). Also for other
    parsed input whose escapes can make one (YAML front matter, citation literals)."""
    for parts, node in walk(data):
        if isinstance(node, str) and _SURROGATE.search(node):
            return to_jsonpath(parts)
        if isinstance(node, dict) and any(_SURROGATE.search(key) for key in node):
            return to_jsonpath(parts)
    return None


def _first_duplicate(data: Any) -> tuple[str, list[str]]:
    """The JSON path and repeated keys of the first object (in document order) built with repeated keys."""
    return next((to_jsonpath(parts), node.duplicates) for parts, node in walk(data) if isinstance(node, _DuplicateKeys))


def read_record_bytes(path: Path, shown_as: str | None = None, max_bytes: int = MAX_RECORD_BYTES) -> bytes:
    """A record file's exact bytes; InputError (naming the file) when missing, not a regular
    file, too large or unreadable."""
    return read_input(path, shown_as, max_bytes, "a record")
