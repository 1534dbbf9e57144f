"""Loading a plan: parsed and checked in general by `collector.plan` (which knows no module),
then checked by the measuring modules it names (`collector.modules.registry`), every problem
of both rounds reported at once. It stands above both, so neither imports the other."""

from __future__ import annotations

from pathlib import Path

from benchledger.errors import PlanError, Problem
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
    return problems
