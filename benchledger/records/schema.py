"""Record schemas: the versioned JSON Schemas (Draft 2020-12) shipped in benchledger/records/schemas/.

A schema id such as "gsh-llm-core-article/1" lives in `schemas/gsh-llm-core-article-1.schema.json`
with `$id` "urn:benchledger:schema:gsh-llm-core-article/1". The pass/fail path uses the compiled
jsonschema-rs validator (fast); only a failing record goes through the pure-Python `jsonschema`
validator, whose errors carry the paths and messages users read.

Every number a schema admits is bounded, so no check or renderer meets a value it cannot
compute with: an `integer` lies within ±2^53 (exact as a double, as JavaScript reads it) and a
`number` within the finite doubles, unless the schema itself states a bound (`with_number_bounds`
adds these when the schema is loaded)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from benchledger.errors import InputError, Problem
from benchledger.records.digest import sha256_hex
from benchledger.records.numbers import MAX_SAFE_INTEGER
from benchledger.records.pointer import resolve_ref, to_jsonpath

if TYPE_CHECKING:
    import jsonschema

_SUFFIX = ".schema.json"
# The bounds every schema gets where it states none.
MAX_DOUBLE = 1.7976931348623157e308
# jsonschema-rs compares a value with a bound that is a float, or an integer beyond 64 bits,
# through a slow exact path (~3 us a comparison: 2.3 of a seal's 6 ms); with a bound inside
# the 64-bit integers it takes nanoseconds. So its `number` bound is split in two: a fast range
# that holds nearly every value, and the full one, reached only by the rest. Same verdicts.
_FAST_RANGE = {"minimum": -(2**63), "maximum": 2**63 - 1}


def _file_name(schema_id: str) -> str:
    name, _, version = schema_id.rpartition("/")
    return f"{name}-{version}{_SUFFIX}"


def schema_ids() -> list[str]:
    """Every schema id shipped, sorted."""
    return list(_shipped_ids())


@cache
def _shipped_ids() -> tuple[str, ...]:
    ids = []
    for entry in resources.files("benchledger.records.schemas").iterdir():
        if entry.name.endswith(_SUFFIX):
            name, _, version = entry.name[: -len(_SUFFIX)].rpartition("-")
            ids.append(f"{name}/{version}")
    return tuple(sorted(ids))


@dataclass(frozen=True)
class LoadedSchema:
    """One schema with its exact bytes' hash (part of validation cache keys) and compiled validators."""

    schema_id: str
    raw: bytes
    sha256: str
    document: dict
    fast: Any  # jsonschema_rs validator: pass/fail
    # the same without the `number` bounds, for data whose integers all fit in 64 bits (see `validate`)
    fast_64_bit: Any

    @cached_property
    def detailed(self) -> "jsonschema.Draft202012Validator":
        """The pure-Python validator, whose errors carry paths and messages. Only a failing record
        needs it, so it is built, and the jsonschema package imported (60 ms, a quarter of a
        `seal` command's start), on first use."""
        import jsonschema

        return jsonschema.Draft202012Validator(with_number_bounds(json.loads(self.raw)))


def unknown_schema_message() -> str:
    """What to say of a schema id no schema has: the ids there are."""
    return f"unknown schema id; known: {', '.join(schema_ids())}"


@cache
def loaded(schema_id: str) -> LoadedSchema:
    """The schema `schema_id`, compiled; raises InputError for an unknown id."""
    if schema_id not in _shipped_ids():
        raise InputError(schema_id, "", unknown_schema_message())
    raw = resources.files("benchledger.records.schemas").joinpath(_file_name(schema_id)).read_bytes()
    document = json.loads(raw)
    return LoadedSchema(
        schema_id=schema_id,
        raw=raw,
        sha256=sha256_hex(raw),
        document=document,
        fast=jsonschema_rs.Draft202012Validator(with_number_bounds(json.loads(raw), fast=True)),
        fast_64_bit=jsonschema_rs.Draft202012Validator(with_number_bounds(json.loads(raw), number_bounds=False)),
    )


def with_number_bounds(node: Any, fast: bool = False, number_bounds: bool = True) -> Any:
    """`node` (a schema document, changed in place) with `minimum`/`maximum` added to every
    subschema that admits integers or numbers and states no bound of its own: ±2^53 for
    `integer`, ±the largest double for `number`. A 400-digit integer is valid JSON; bounded,
    it is refused at seal time instead of crashing a check or a later build. `fast` states the
    `number` bound as `anyOf` [the 64-bit integer range, the finite doubles] for jsonschema-rs
    (see `_FAST_RANGE`): the same set of values. Without `number_bounds`, only `integer` gets its
    bounds."""
    if isinstance(node, list):
        for item in node:
            with_number_bounds(item, fast, number_bounds)
        return node
    if not isinstance(node, dict):
        return node
    types = node.get("type")
    types = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    limit = MAX_DOUBLE if "number" in types else MAX_SAFE_INTEGER if "integer" in types else None
    bounds = {}
    if limit is not None:
        if "maximum" not in node and "exclusiveMaximum" not in node:
            bounds["maximum"] = limit
        if "minimum" not in node and "exclusiveMinimum" not in node:
            bounds["minimum"] = -limit
    for key, value in node.items():
        if key not in ("const", "enum", "default", "examples"):
            with_number_bounds(value, fast, number_bounds)
    if limit == MAX_DOUBLE and not number_bounds:
        return node
    if fast and limit == MAX_DOUBLE and bounds:
        fast_range = {k: v for k, v in _FAST_RANGE.items() if k in bounds}
        node.setdefault("allOf", []).append({"anyOf": [fast_range, bounds]})
    else:
        node.update(bounds)
    return node


def load_schema(schema_id: str) -> dict:
    """The schema document for `schema_id` (a fresh copy the caller may keep)."""
    return json.loads(loaded(schema_id).raw)


def validate(data: Any, schema_id: str, file: str, integers_fit_64_bits: bool = False) -> list[Problem]:
    """Every violation of `schema_id` by `data`, each as `file: $.path: message`; [] when valid.

    `integers_fit_64_bits`: the caller knows that every integer in `data` fits in 64 bits and every
    float is finite (what orjson parses, see `jsonread.parse_json_bytes`). No such value can cross
    a `number` bound (±1.8e308), so the pass/fail check leaves those out: their comparisons were
    a third of jsonschema-rs's time on a record."""
    if schema_id not in _shipped_ids():
        return [Problem(file, "", f"schema {schema_id!r}: {unknown_schema_message()}")]
    schema = loaded(schema_id)
    if (schema.fast_64_bit if integers_fit_64_bits else schema.fast).is_valid(data):
        return []
    # document order: indexes compare as numbers ([2] before [10])
    errors = sorted(schema.detailed.iter_errors(data), key=lambda e: ([(isinstance(p, str), p) for p in e.absolute_path], e.message))
    return [Problem(file, to_jsonpath(e.absolute_path), _message(e)) for e in errors]


def _as_json(value: Any, limit: int) -> str:
    """`value` as JSON text, cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(error: "jsonschema.ValidationError") -> str:
    """The validator's message, shortened: a whole sub-document is not repeated back."""
    if error.validator in ("oneOf", "anyOf"):
        # name the alternatives ("statistic, null") rather than echo the whole schema path
        shapes = [alt.get("$ref", "").rpartition("/")[2] or str(alt.get("type", alt.get("const", "?"))) for alt in error.validator_value]
        return f"{_as_json(error.instance, 60)} is not any of: {', '.join(shapes)}"
    if error.validator == "type":  # the value as the record writes it: null, true, "x", not None, True, 'x'
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"{_as_json(error.instance, 60)} is not of type {', '.join(repr(t) for t in wanted)}"
    bound = error.validator_value
    if error.validator in ("maximum", "minimum") and isinstance(bound, (int, float)) and abs(bound) in (MAX_SAFE_INTEGER, MAX_DOUBLE):
        # one of the bounds every schema gets: say which rule it is, and never echo 400 digits
        found = repr(error.instance)
        found = found if len(found) <= 24 else f"a number of {len(found.lstrip('-'))} digits"
        side = "greater than the maximum" if error.validator == "maximum" else "less than the minimum"
        rule = "integers lie within ±2^53" if abs(bound) == MAX_SAFE_INTEGER else "numbers are finite doubles"
        return f"{found} is {side} {bound!r} ({rule})"
    message = error.message
    if len(message) > 200:
        message = message[:197] + "..."
    return message


def undescribed_keys(data: Any, schema_id: str) -> list[str]:
    """JSON paths (array indexes as `[*]`, each path once) of the object keys in `data` that
    `schema_id` does not describe: keys matching no property with a `description` (directly or
    through its `$ref`) and no schema for free-named keys (`additionalProperties` or
    `patternProperties`, i.e. a map such as metric name -> statistic). The methodology glossary
    is generated from descriptions, so such a key is invisible to readers."""
    document = loaded(schema_id).document
    found: list[str] = []

    def applicable(node: Any) -> list[dict]:
        """`node` and every subschema that applies to the same instance ($ref, combinators, if/then/else)."""
        if not isinstance(node, dict):
            return []
        out = [node]
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            out += applicable(resolve_ref(document, ref, default={}))
        for combo in ("allOf", "anyOf", "oneOf"):
            for option in node.get(combo) or []:
                out += applicable(option)
        for branch in ("if", "then", "else"):
            out += applicable(node.get(branch))
        return out

    def walk(value: Any, schemas: list[dict], parts: list) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                named = [s["properties"][key] for s in schemas if key in (s.get("properties") or {})]
                free = [s["additionalProperties"] for s in schemas if isinstance(s.get("additionalProperties"), dict)]
                free += [sub for s in schemas for pattern, sub in (s.get("patternProperties") or {}).items() if re.search(pattern, key)]
                children = [c for n in named for c in applicable(n)]
                if not any("description" in c for c in children) and not free:
                    path = re.sub(r"\[\d+\]", "[*]", to_jsonpath(parts + [key]))
                    if path not in found:
                        found.append(path)
                walk(child, children + [c for f in free for c in applicable(f)], parts + [key])
        elif isinstance(value, list):
            for i, child in enumerate(value):
                items = [s["items"] for s in schemas if isinstance(s.get("items"), dict)]
                items += [s["prefixItems"][i] for s in schemas if i < len(s.get("prefixItems") or [])]
                walk(child, [c for it in items for c in applicable(it)], parts + [i])

    walk(data, applicable(document), [])
    return found
