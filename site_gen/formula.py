"""A derived number recomputed from the formula its page states (`data-formula`) and the values
of its inputs: how `verify --site` checks a ratio, a difference or a sum a page shows. The
formulas are the generator's own shapes: arithmetic (+ - * /, parentheses, numbers) over named
inputs ("capture_seconds * 1000 / (eager.mean_ms - graph.mean_ms)", "buffer 0 + buffer 1"),
"B / A, each F" (a ratio of two values, each derived by F from inputs named "A.x", "B.x"), a
citation's "a / b = X / Y" (the formula is the left side; the right repeats the values) and
"count of NAME" (the length of a list). Any other text is not recomputed (None)."""

from __future__ import annotations

import ast
import math
import operator
import re
from typing import Any, Callable, Mapping

# The longest formula the generator writes is a sum over a placement's buffers (under 200
# characters); one far longer is read as not recomputable rather than parsed.
MAX_FORMULA_CHARS = 10_000
_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def recompute(formula: str, values: Mapping[str, Any]) -> float | None:
    """The number `formula` gives for `values` (input name -> the value its pointer holds);
    None for a formula of another shape, an input that is not a finite number, a division by
    zero or a result out of range."""
    formula = formula.partition(" = ")[0]
    if formula.startswith("count of "):  # of the one input it names: "count of values", not of "the entries that give a value"
        value = values.get(formula.removeprefix("count of "))
        return len(value) if isinstance(value, list) and len(values) == 1 else None
    head, each, inner = formula.partition(", each ")
    if each:
        prefixes = sorted({name.partition(".")[0] for name in values if "." in name}, key=len, reverse=True)
        head = _names(prefixes).sub(lambda m: "(" + _prefixed(inner, m.group(0), values) + ")", head) if prefixes else head
    if len(head) > MAX_FORMULA_CHARS:  # an edited page's formula, nested past what the parser can hold
        return None
    try:
        result = _evaluate(head, values)
    except (ValueError, SyntaxError, ZeroDivisionError, OverflowError, RecursionError, MemoryError):
        return None
    return result if math.isfinite(result) else None


def _names(names: list[str]) -> re.Pattern[str]:
    """Any of `names` as a whole name: not part of a longer one ("buffer 1" in "buffer 10",
    "b" in "b.x"); the longest tried first."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])(?:{alternatives})(?![\w.])")


def _prefixed(inner: str, prefix: str, values: Mapping[str, Any]) -> str:
    """`inner` with each of its names n written as the input `prefix.n`."""
    names = [name.partition(".")[2] for name in values if name.startswith(prefix + ".")]
    return _names(names).sub(lambda m: f"{prefix}.{m.group(0)}", inner) if names else inner


def _evaluate(expression: str, values: Mapping[str, Any]) -> float:
    placeholders: dict[str, Any] = {}

    def placeholder(match: re.Match[str]) -> str:
        name = f"_input{len(placeholders)}"
        placeholders[name] = values[match.group(0)]
        return name

    tree = ast.parse(_names(list(values)).sub(placeholder, expression) if values else expression, mode="eval")
    return _value(tree.body, placeholders)


def _value(node: ast.AST, placeholders: dict[str, Any]) -> float:
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.left, placeholders), _value(node.right, placeholders))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand, placeholders)
    if isinstance(node, ast.Constant):
        return _number(node.value)
    if isinstance(node, ast.Name) and node.id in placeholders:
        return _number(placeholders[node.id])
    raise ValueError("not arithmetic over the inputs")


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("not a finite number")
    return value
