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
    fenced = _fenced_spans(body)
    parts: list[str | Call] = []
    problems: list[Problem] = []
    pos = 0
    search = 0
    while True:
        start = body.find(OPEN, search)
        if start < 0:
            break
        line = body_line + body.count("\n", 0, start)
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
    """The call opened at `start`: tries each later `}}` until the inside parses (a dict
    literal may itself end in `}}`)."""
    first_error = None
    close = body.find(CLOSE, start + len(OPEN))
    while close >= 0:
        inner = body[start + len(OPEN):close]
        try:
            tree = ast.parse(inner.strip(), mode="eval")
        except SyntaxError as err:
            first_error = first_error or err
            close = body.find(CLOSE, close + 1)
            continue
        end = close + len(CLOSE)
        return _to_call(source, tree.body, body, start, end, line)
    if first_error is None:
        return None, start + len(OPEN), Problem(source, "", f"'{OPEN}' is not closed by '{CLOSE}' (write \\{OPEN} for literal braces)", line)
    return None, start + len(OPEN), Problem(source, "", f"citation is not a valid call: {first_error.msg}", line + max((first_error.lineno or 1) - 1, 0))


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
    except (ValueError, TypeError, SyntaxError):
        return fail(f"{name}(): arguments must be literals (text in quotes, numbers, lists, dicts), not expressions")
    line_start = body.rfind("\n", 0, start) + 1
    line_end = body.find("\n", end)
    line_end = len(body) if line_end < 0 else line_end
    alone = not body[line_start:start].strip() and not body[end:line_end].strip()
    return Call(name, args, kwargs, line, start, end, alone), end, None


def _fenced_spans(body: str) -> list[tuple[int, int]]:
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
