"""Derived numbers: `ratio`, `difference` and `per` (e.g. energy per token) of two values of
one record, shown with their formula and both inputs' pointers on hover."""

from __future__ import annotations

from typing import Callable, ClassVar

from site_gen import quantity
from site_gen.citations.base import CitationEnv, CitationKind, CitationProblem, check_unit
from site_gen.limitations import Limitation


class Derived(CitationKind):
    """`{{ ratio("rec", "/a", "/b") }}` = a / b; subclasses set the operation and default unit."""

    symbol: ClassVar[str]
    default_unit: ClassVar[str | None] = None  # None: the author must name the unit
    # whether a and b must be in one unit: a ratio of 19.1 ms to 0.0048 s is no speed-up of 3,979
    same_unit: ClassVar[bool] = False
    operate: ClassVar[Callable[[float, float], float]]

    def render(self, env: CitationEnv, record: str, a: str, b: str, unit: str | None = None) -> str:
        unit = self.default_unit if unit is None else unit
        if unit is None:
            raise CitationProblem("name the result's unit, e.g. unit=\"J/token\" (see the authoring guide, posts/authoring.html in your built site)")
        shown, limits = self.markup(env, record, a, b, unit)
        return shown + env.marker(record, limits)

    def markup(self, env: CitationEnv, record: str, a: str, b: str, unit: str) -> tuple[str, list[Limitation]]:
        """The derived number's markup and the limitations of its inputs."""
        if not isinstance(unit, str):
            raise CitationProblem(f"unit must be text such as \"J/token\", not {unit!r}")
        left, right = env.number(record, a), env.number(record, b)
        check_unit(unit, a)  # the result is read in a's unit (`verify --site`: `audit.numbers`)
        b_unit = quantity.declared_unit(b)
        if self.same_unit and (a_unit := quantity.misread_unit(b_unit, a)) is not None:
            raise CitationProblem(f"{a} is in {a_unit} and {b} in {b_unit}, as their fields' names say: "
                                  f"a {self.name} of them is off by the step between the two; cite two values in one unit")
        if self.symbol == "/" and right.value == 0:
            raise CitationProblem(f"{b} in record {right.name} is 0: cannot divide by it")
        value = type(self).operate(left.value, right.value)
        limits = env.applicable(left) + env.applicable(right)
        formula = f"a {self.symbol} b = {left.value!r} {self.symbol} {right.value!r}"
        return quantity.traced(value, unit, left.sha256, None, formula=formula, inputs={"a": a, "b": b}), limits


class Ratio(Derived):
    """a / b, shown as a factor (`3.94×`): a speed-up, a slowdown."""

    name = "ratio"
    symbol = "/"
    default_unit = "×"
    same_unit = True
    operate = staticmethod(lambda x, y: x / y)


class Per(Derived):
    """a / b in a unit the author names: energy per token (`J/token`), tokens per joule..."""

    name = "per"
    symbol = "/"
    operate = staticmethod(lambda x, y: x / y)


class Difference(Derived):
    """a - b in the inputs' unit (the author names it)."""

    name = "difference"
    symbol = "-"
    same_unit = True
    operate = staticmethod(lambda x, y: x - y)
