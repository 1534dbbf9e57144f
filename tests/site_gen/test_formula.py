"""site_gen.formula: the generator's formulas recomputed from named inputs, and nothing else run."""

import math

import pytest
from hypothesis import given, strategies as st

from site_gen.formula import recompute


@pytest.mark.parametrize("formula, values, expected", [
    ("B / A", {"A": 2.0, "B": 1.0}, 0.5),
    ("B / A, each joules / completed_output_tokens",
     {"A.joules": 10, "A.completed_output_tokens": 5, "B.joules": 30, "B.completed_output_tokens": 5}, 3.0),
    ("capture_seconds * 1000 / (eager.mean_ms - graph.mean_ms)", {"capture_seconds": 0.05, "eager.mean_ms": 20.0, "graph.mean_ms": 10.0}, 5.0),
    (" + ".join(f"buffer {i}" for i in range(11)), {f"buffer {i}": 10 ** i for i in range(11)}, 11111111111),  # "buffer 1" is not in "buffer 10"
    ("a / b = 1.5 / 3", {"a": 1.5, "b": 3}, 0.5),  # a citation: the right side only repeats the values
    ("a - b = 4 - 1", {"a": 4, "b": 1}, 3),
    ("count of samples_ns", {"samples_ns": [1, 2, 3]}, 3),
])
def test_the_generators_formulas(formula, values, expected):
    assert recompute(formula, values) == expected


@pytest.mark.parametrize("formula, values", [
    ("count of the entries that give a value", {"values": [1, None]}),  # counted through a function it does not know
    ("a / b", {"a": 1, "b": 0}),
    ("a ** b", {"a": 2, "b": 3}),
    ("__import__('os').getpid()", {}),
    ("a.__class__", {"a": 1}),
    ("a", {"a": True}),
    ("a", {"a": "12"}),
    ("a", {"a": float("nan")}),
    ("a + c", {"a": 1}),
    ("max of a", {"a": 1}),
    ("1+" * 100_000 + "1", {}),  # an edited page's formulas, past what Python's parser holds
    ("-" * 100_000 + "1", {}),
    ("(" * 5_000 + "1" + ")" * 5_000, {}),
])
def test_anything_else_is_not_recomputed(formula, values):
    assert recompute(formula, values) is None


NAMES = st.sampled_from(["a", "b", "eager.mean_ms", "buffer 1", "buffer 10", "A.joules"])


@st.composite
def expressions(draw, depth=3):
    """(formula text, the same as a Python expression over a dict `v`)."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            name = draw(NAMES)
            return name, f"v[{name!r}]"
        number = draw(st.integers(0, 1000))
        return str(number), str(number)
    left, right = draw(expressions(depth=depth - 1)), draw(expressions(depth=depth - 1))
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    return f"({left[0]} {op} {right[0]})", f"({left[1]} {op} {right[1]})"


@given(expressions(), st.fixed_dictionaries({n: st.floats(-1e6, 1e6) for n in
                                              ["a", "b", "eager.mean_ms", "buffer 1", "buffer 10", "A.joules"]}))
def test_arithmetic_over_named_inputs_is_pythons(expression, v):
    formula, python = expression
    try:
        expected = eval(python)  # the reference: Python's own arithmetic on the same values
    except (ZeroDivisionError, OverflowError):
        expected = None
    got = recompute(formula, v)
    if expected is None or not math.isfinite(expected):
        assert got is None
    else:
        assert got == expected
