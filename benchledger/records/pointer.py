"""Locations inside a JSON document, in the two spellings users meet: RFC 6901 JSON pointers
(`/cases/0/id`, used for traceability on pages and in citations) and JSONPath-like paths
(`$.cases[0].id`, used in error messages), and the one walk over every location of a document."""

from __future__ import annotations

from typing import Any, Iterable, Iterator
from urllib.parse import unquote  # a $ref fragment may percent-encode characters (RFC 6901, section 6)

_MISSING = object()


def to_pointer(parts: Iterable[str | int]) -> str:
    """Parts -> RFC 6901 pointer: ["cases", 0, "a/b"] -> "/cases/0/a~1b"."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def parse_pointer(pointer: str) -> list[str]:
    """RFC 6901 pointer -> unescaped reference tokens. Raises ValueError when malformed."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON pointer {pointer!r} must start with '/'")
    tokens = pointer[1:].split("/")
    if "~" not in pointer:  # nothing escaped (nearly every pointer): no two replaces per token
        return tokens
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def to_jsonpath(parts: Iterable[str | int]) -> str:
    """Parts -> "$.cases[0].id" (keys that are not identifiers are quoted: $["a b"])."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p.isidentifier():
            out += f".{p}"
        else:
            out += '["' + p.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return out


def resolve(document: Any, pointer: str, default: Any = _MISSING) -> Any:
    """The value at `pointer`; KeyError naming the first missing token unless `default` is given."""
    node = document
    for token in parse_pointer(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isascii() and token.isdigit() and int(token) < len(node) and (  # "³": a digit int() refuses
            token == "0" or not token.startswith("0")
        ):
            node = node[int(token)]
        else:
            if default is not _MISSING:
                return default
            raise KeyError(f"no {token!r} at {pointer}")
    return node


def resolve_held(document: Any, pointer: str) -> tuple[Any, str]:
    """(the value at `pointer`, `pointer`) when `document` holds it, else (None, its nearest
    ancestor that it holds): a page that shows "n/a" for a value the record lacks (a CPU run's
    graph timing under a null `timing.graph`) must point at what the record holds, or an audit
    cannot follow it."""
    absent = object()
    value = resolve(document, pointer, default=absent)
    if value is not absent:
        return value, pointer
    parts = parse_pointer(pointer)
    while parts and resolve(document, to_pointer(parts), default=absent) is absent:
        parts.pop()
    return None, to_pointer(parts)


def walk(document: Any) -> Iterator[tuple[list[str | int], Any]]:
    """Every (parts, value) of `document` in document order, the root first (parts [], object
    keys as str, array indexes as int). Iterative, so a deeply nested record cannot exhaust the
    interpreter's recursion limit; each `parts` is a fresh list."""
    stack: list[tuple[list[str | int], Any]] = [([], document)]
    while stack:
        parts, node = stack.pop()
        yield parts, node
        if isinstance(node, dict):
            stack.extend((parts + [key], value) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((parts + [index], node[index]) for index in range(len(node) - 1, -1, -1))


def resolve_ref(document: Any, ref: str, default: Any = _MISSING) -> Any:
    """The target of a same-document JSON Schema `$ref` ("#/$defs/statistic": a URI fragment
    holding a JSON pointer); KeyError unless `default` is given, ValueError for any other ref."""
    if not ref.startswith("#"):
        raise ValueError(f"$ref {ref!r} is not a reference inside this document (#/...)")
    return resolve(document, unquote(ref[1:]), default)
