"""Hostile text for the XSS tests: a battery of payloads, one for every context record text can
land in (HTML text and attributes, `<title>`, Markdown links and attr_list, JSON in a script,
URLs, Jinja), and records whose every string field the schema admits holds one of them.

Each payload, if it ever ran, would set `data-pwned` on `<html>`; the browser test asserts it
never does, and that no element carries a handler or a `javascript:` URL derived from one."""

from __future__ import annotations

import copy
import json
from typing import Any

from benchledger.records import checks, schema
from benchledger.records.pointer import parse_pointer

JS = "document.documentElement.setAttribute('data-pwned','1')"

PAYLOADS = (
    f"</title><script>{JS}</script>",
    f"<img src=x onerror=\"{JS}\">",
    f"\"><svg onload=\"{JS}\">",
    f"'><svg onload='{JS}'>",
    f"x {{: onfocus=\"{JS}\" autofocus tabindex=0 }}",
    f"x {{#a onfocus=\"{JS}\" autofocus tabindex=0}}",
    f"*em*{{: onmouseover=\"{JS}\" }}",
    f"[click me](javascript:{JS})",
    f"<a href=\"javascript:{JS}\">click me</a>",
    f"](javascript:{JS}) [x](javascript:{JS}",
    f"</script><script>{JS}</script>",
    f"&lt;script&gt;{JS}&lt;/script&gt;",
    f"javascript:{JS}",
    f"<javascript:{JS}>",
    f"]]><script>{JS}</script><![CDATA[",
    "{{ 7*7 }}{% raw %}${7*7}",
    f"<!--\n--><script>{JS}</script>",
    f"` <script>{JS}</script> `",
    f"| a | b |\n|---|---|\n| <script>{JS}</script> |",
    f"\\<script>{JS}\\</script>",
    f"\u2028<script>{JS}</script>\u2029",  # line separators end a Vega expression's string literal
    "Tom &amp; Jerry &#60;b&#62; &quot;q&quot;",  # entities as text: decoded once too often, the reader sees other text
)
ENTITIES = PAYLOADS[-1]


def _strings(value: Any, pointer: str = "") -> list[str]:
    """JSON pointers of every string value in `value`."""
    if isinstance(value, str):
        return [pointer]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _strings(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _strings(v, f"{pointer}/{i}")]
    return []


def _set(data: Any, pointer: str, value: Any) -> None:
    keys = parse_pointer(pointer)
    for key in keys[:-1]:
        data = data[int(key)] if isinstance(data, list) else data[key]
    last = keys[-1]
    data[int(last) if isinstance(data, list) else last] = value


def _get(data: Any, pointer: str) -> Any:
    for key in parse_pointer(pointer):
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def _to_pointer(json_path: str) -> str:
    """`$.a.b[0]['c d']` (a Problem's path) -> `/a/b/0/c d`."""
    out, i, path = [], 1, json_path
    while i < len(path):
        if path[i] == ".":
            j = i + 1
            while j < len(path) and path[j] not in ".[":
                j += 1
            out.append(path[i + 1:j])
            i = j
        elif path[i] == "[":
            j = path.index("]", i)
            token = path[i + 1:j]
            out.append(token.strip("'\"") if token[:1] in "'\"" else token)
            i = j + 1
        else:
            i += 1
    return "".join("/" + k.replace("~", "~0").replace("/", "~1") for k in out)


def hostile(data: Any, schema_id: str, offset: int = 0) -> tuple[Any, int]:
    """A copy of `data` with every string the schema and checks admit replaced by a payload
    (payload i % len for the i-th string); returns (copy, strings replaced)."""
    original = data
    pointers = _strings(data)
    hostile_data = copy.deepcopy(data)
    for i, pointer in enumerate(pointers):
        # numbered, so a check's message quoting a value names the one string it came from
        _set(hostile_data, pointer, f"p{i} " + PAYLOADS[(i + offset) % len(PAYLOADS)])
    kept = set(pointers)
    for _ in range(50):  # revert what the schema or a check refuses, until the record passes
        problems = schema.validate(hostile_data, schema_id, "x") or checks.check_record(hostile_data, schema_id, "x")
        if not problems:
            return hostile_data, len(kept)
        # first the strings a problem names exactly; only when none does, what lies under or above
        reverted = _revert(hostile_data, original, kept, [_to_pointer(p.path) for p in problems],
                           lambda p, at: p == at)
        if not reverted:
            reverted = _revert(hostile_data, original, kept, [_to_pointer(p.path) for p in problems],
                               lambda p, at: p.startswith(at + "/") or (at != "" and at.startswith(p)))
        if not reverted:  # a cross-reference: the message quotes the referenced value
            text = " ".join(str(p) for p in problems)
            for p in [p for p in kept if _get(hostile_data, p) in text or repr(_get(hostile_data, p)) in text]:
                _set(hostile_data, p, _get(original, p))
                kept.discard(p)
                reverted = True
        if not reverted:
            raise AssertionError(f"cannot make a valid hostile record: {[str(p) for p in problems][:5]}")
    raise AssertionError("hostile record did not converge")


def _revert(data: Any, original: Any, kept: set[str], at: list[str], match) -> bool:
    hits = {p for p in kept for a in at if match(p, a)}
    for p in hits:
        _set(data, p, _get(original, p))
    kept -= hits
    return bool(hits)


def encode(data: Any) -> bytes:
    return json.dumps(data, indent=1, ensure_ascii=False).encode()
