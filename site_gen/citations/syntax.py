"""The citation syntax: `{{ kind(args...) }}` inside an article's Markdown.

Inside the braces is one call with literal arguments only (strings, numbers, lists, dicts,
True/False/None), parsed with Python's `ast` and never evaluated: no names, attributes,
operators or expressions, so an article cannot run code and record text can never be read as a
citation (record text is only ever produced by a citation, after this scan). `\\{{` writes a
literal `{{`; fenced code blocks are left alone."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from benchledger.errors import Problem
from benchledger.records.jsonread import first_lone_surrogate

OPEN, CLOSE = "{{", "}}"
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Call:
    """One citation as written: `{{ name(*args, **kwargs) }}` at `line` of the article."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(hash=False)
    line: int
    start: int  # offsets of the whole `{{ ... }}` in the body
    end: int
    alone: bool  # nothing but whitespace shares its lines


def scan(source: str, body: str, body_line: int) -> tuple[list[str | Call], list[Problem]]:
    """Split `body` into literal Markdown and calls; `body_line` is the file line of body[0]."""
    fenced = fenced_spans(body)
    parts: list[str | Call] = []
    problems: list[Problem] = []
    pos = 0
    search = 0
    counted, line = 0, body_line  # lines counted up to `counted`, incrementally: one pass in all
    while True:
        start = body.find(OPEN, search)
        if start < 0:
            break
        line += body.count("\n", counted, start)
        counted = start
        if (start > 0 and body[start - 1] == "\\") or any(a <= start < b for a, b in fenced):
            search = start + len(OPEN)
            continue
        call, end, problem = _parse_call(source, body, start, line)
        if problem:
            problems.append(problem)
            search = end
            continue
        parts.append(body[pos:start])
        parts.append(call)
        pos = search = end
    parts.append(body[pos:])
    return parts, problems


def _parse_call(source: str, body: str, start: int, line: int) -> tuple[Call | None, int, Problem | None]:
    """The call opened at `start`, closed by the first `}}` outside brackets and string literals
    (a dict literal may itself end in `}}`), within its paragraph. Each character is looked at
    once, whatever the text holds (trying every later `}}` in turn made a few KB of
    `{{ x {{ x ... }} }}` take minutes): a call that does not parse is reported and the scan
    goes on after its `}}`; one not closed before a blank line is reported and the scan goes
    on after that line."""
    close, stop = _matching_close(body, start + len(OPEN))
    if close is None:
        return None, stop, Problem(source, "", f"'{OPEN}' is not closed by '{CLOSE}' before the paragraph ends "
                                               f"(write \\{OPEN} for literal braces)", line)
    end = close + len(CLOSE)
    try:
        tree = ast.parse(body[start + len(OPEN):close].strip(), mode="eval")
    except SyntaxError as err:
        return None, end, Problem(source, "", f"citation is not a valid call: {err.msg}", line + max((err.lineno or 1) - 1, 0))
    except (ValueError, MemoryError, RecursionError) as err:  # nesting the parser cannot hold
        return None, end, Problem(source, "", f"citation is not a valid call: {type(err).__name__}", line)
    return _to_call(source, tree.body, body, start, end, line)


_QUOTES = "'\""
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


def _matching_close(body: str, pos: int) -> tuple[int | None, int]:
    """(offset of the `}}` that closes a citation whose inside starts at `pos`: the first one
    outside string literals and brackets opened inside, or None when a blank line or the end
    comes first; where the search stopped)."""
    depth, n = 0, len(body)
    while pos < n:
        c = body[pos]
        if c == "\n" and _BLANK_LINE.match(body, pos):
            return None, _BLANK_LINE.match(body, pos).end()
        if c in _QUOTES:
            quote = c * 3 if body.startswith(c * 3, pos) else c
            pos += len(quote)
            while pos < n and not body.startswith(quote, pos):
                if body[pos] == "\n" and (len(quote) == 1 or _BLANK_LINE.match(body, pos)):
                    break  # a one-quote string ends with its line; no string spans paragraphs
                pos += 2 if body[pos] == "\\" else 1  # a backslash escapes the next character, in raw strings too
            if body.startswith(quote, pos):
                pos += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]":
            depth = max(depth - 1, 0)
        elif c == "}":
            if depth == 0 and body.startswith(CLOSE, pos):
                return pos, pos
            depth = max(depth - 1, 0)
        pos += 1
    return None, n


def _to_call(source: str, node: ast.expr, body: str, start: int, end: int, line: int) -> tuple[Call | None, int, Problem | None]:
    def fail(msg: str) -> tuple[None, int, Problem]:
        return None, end, Problem(source, "", msg, line)

    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return fail("a citation is one call such as {{ cite(\"rec\", \"/pointer\") }}")
    name = node.func.id
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                return fail(f"{name}(): '**' is not allowed in a citation")
            kwargs[kw.arg] = ast.literal_eval(kw.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return fail(f"{name}(): arguments must be literals (text in quotes, numbers, lists, dicts), not expressions")
    if first_lone_surrogate([list(args), kwargs]) is not None:  # '\ud800' in a literal: no page could hold it
        return fail(f"{name}(): an argument holds an unpaired UTF-16 surrogate ('\\ud800'): not Unicode text")
    line_start = body.rfind("\n", 0, start) + 1
    line_end = body.find("\n", end)
    line_end = len(body) if line_end < 0 else line_end
    alone = not body[line_start:start].strip() and not body[end:line_end].strip()
    return Call(name, args, kwargs, line, start, end, alone), end, None


def fenced_spans(body: str) -> list[tuple[int, int]]:
    """Offsets of fenced code blocks (``` or ~~~), where braces are code, not citations."""
    spans, offset, opened, fence = [], 0, None, ""
    for text_line in body.splitlines(keepends=True):
        m = _FENCE.match(text_line)
        if m and opened is None:
            opened, fence = offset, m.group(1)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and opened is not None:
            spans.append((opened, offset + len(text_line)))
            opened = None
        offset += len(text_line)
    if opened is not None:
        spans.append((opened, offset))
    return spans
