"""Loading a plan: parsed and checked in general by `collector.plan` (which knows no module),
then checked by the measuring modules it names (`collector.modules.registry`), every problem
of both rounds reported at once. It stands above both, so neither imports the other."""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any, Iterator

from benchledger.errors import PlanError, Problem
from benchledger.records.numbers import MAX_SAFE_INTEGER
from benchledger.records.pointer import to_jsonpath
from collector.modules.registry import ModuleUnavailable, get_module
from collector.plan import Plan, merge_module_problems, read_plan


def load_plan(path: str | Path) -> Plan:
    """Read, parse and validate a plan; raise PlanError listing every problem, or InputError when
    the file cannot be read or is not TOML. Each case is also checked by its module's
    validate_case (this imports the module classes), in the same round: the modules see the plan
    with defaults in place of broken values, and what they find about a place already reported
    is left out."""
    plan, problems = read_plan(path)
    problems = merge_module_problems(plan, problems, check_plan_modules(plan))
    if problems:
        raise PlanError(problems, f"{plan.path}: {len(problems)} problem(s) in plan; nothing was run")
    return plan


def check_plan_modules(plan: Plan) -> list[Problem]:
    """Problems found by the modules themselves (unknown module, module-specific keys)."""
    problems: list[Problem] = []
    schemas: dict[str, str] = {}
    for name in sorted({plan.module, *(c.module for c in plan.cases)}):
        where = "$.module" if name == plan.module else next(f"{c.json_path}.module" for c in plan.cases if c.module == name)
        try:
            module = get_module(name)
        except ModuleUnavailable as err:
            problems.append(plan.problem(where, str(err)))
            continue
        schemas[name] = module.schema
        problems += module.validate_plan(plan)
    if plan.schema is not None and plan.module in schemas and plan.schema != schemas[plan.module]:
        problems.append(plan.problem("$.schema", f"module {plan.module!r} writes {schemas[plan.module]!r} records, "
                                                 f"not {plan.schema!r}; change the schema or the module"))
    if plan.module in schemas:
        for c in plan.cases:
            if c.module in schemas and schemas[c.module] != schemas[plan.module]:
                problems.append(plan.problem(f"{c.json_path}.module", f"module {c.module!r} writes {schemas[c.module]!r} but the plan's module {plan.module!r} writes {schemas[plan.module]!r}; one plan makes one record"))
    for c in plan.cases:
        if c.module in schemas:
            problems += get_module(c.module).validate_case(c)
    if plan.module in schemas:
        problems += check_model_metadata(plan, schemas[plan.module])
    return problems


def check_model_metadata(plan: Plan, schema_id: str) -> list[Problem]:
    """The metadata of each model the cases use ([models.ID] besides `files`), as the record will
    hold it, against the schema's model definition and what JSON can hold: a TOML date, a NaN or
    a name that is no string failed only after every case was measured (a traceback, or a
    schema error naming a record never written), and the fix, a new plan, measured them again."""
    try:  # here, not at the top: scripts/gpu_check_graph_replay.py --direct reads plans with torch alone
        import jsonschema

        from benchledger.records import schema
    except ImportError:
        return []  # the record is validated where it is sealed, as the script says
    document = schema.load_schema(schema_id)
    if "model" not in document.get("$defs", {}):
        return []

    validator = jsonschema.Draft202012Validator(schema.with_number_bounds({"$defs": document["$defs"], "$ref": "#/$defs/model"}))
    problems = []
    for mid in sorted({c.model.id for c in plan.cases if c.model is not None}):
        metadata = plan.models[mid].metadata
        found = list(_not_json(metadata))
        unfit = {parts[0] for parts, _ in found}  # the schema judges the rest
        entry = {"name": mid, **{k: v for k, v in metadata.items() if k not in unfit}, "id": mid,
                 "files": [{"bytes": 0, "name": "model", "sha256": "0" * 64}]}
        found += [(list(e.absolute_path), f"{e.message} (the record's models[] entry)") for e in validator.iter_errors(entry)]
        for parts, why in sorted(found, key=lambda item: [str(p) for p in item[0]]):
            problems.append(plan.problem(to_jsonpath(["models", mid, *parts]), why))
    return problems


def _not_json(value: Any, parts: list | None = None) -> Iterator[tuple[list, str]]:
    """Where a TOML value is nothing a record can hold: a date or a time, a number that is not
    finite, an integer past ±2^53 (inexact as a double and in JavaScript)."""
    parts = parts or []
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _not_json(item, parts + [key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _not_json(item, parts + [i])
    elif isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        yield parts, f"a TOML {type(value).__name__}, which a record (JSON) cannot hold; write it as a string (\"{value}\")"
    elif isinstance(value, float) and not math.isfinite(value):
        yield parts, f"{value} is not a finite number; records hold finite numbers"
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        yield parts, f"an integer past ±2^53 ({len(str(abs(value)))} digits), inexact as a double; write it as a string"
