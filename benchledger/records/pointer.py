"""Locations inside a JSON document, in the two spellings users meet: RFC 6901 JSON pointers
(`/cases/0/id`, used for traceability on pages and in citations) and JSONPath-like paths
(`$.cases[0].id`, used in error messages)."""

from __future__ import annotations

from typing import Any, Iterable

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
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


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


def pointer_to_jsonpath(pointer: str) -> str:
    """"/cases/0/id" -> "$.cases[0].id" (numeric tokens shown as indexes)."""
    return to_jsonpath(int(t) if t.isdigit() else t for t in parse_pointer(pointer))


def resolve(document: Any, pointer: str, default: Any = _MISSING) -> Any:
    """The value at `pointer`; KeyError naming the first missing token unless `default` is given."""
    node = document
    for token in parse_pointer(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node) and (
            token == "0" or not token.startswith("0")
        ):
            node = node[int(token)]
        else:
            if default is not _MISSING:
                return default
            raise KeyError(f"no {token!r} at {pointer}")
    return node
