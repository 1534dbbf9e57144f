"""What counts as a number in a record or a plan: JSON and TOML give int and float, and Python
counts a boolean as an int, so every check that wants a number excludes bool here, once."""

from __future__ import annotations

from typing import Any

MAX_SAFE_INTEGER = 2**53  # the largest integer a double (and JavaScript) holds exactly, and every one below
_PLAIN_NUMBERS = frozenset((int, float))  # what a parser gives: one set lookup decides nearly every value


def is_number(value: Any) -> bool:
    """An int or float, not a boolean."""
    return type(value) in _PLAIN_NUMBERS or isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """An int, not a boolean."""
    return type(value) is int or isinstance(value, int) and not isinstance(value, bool)
