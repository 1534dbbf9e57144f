"""One rule for "a number" in records and plans: booleans are ints to Python but never numbers here."""

import enum
import json

from hypothesis import given, strategies as st

from benchledger.records.numbers import is_integer, is_number


class Level(enum.IntEnum):
    LOW = 1


def test_booleans_are_not_numbers():
    assert not is_number(True) and not is_number(False)
    assert not is_integer(True) and not is_integer(False)


def test_subclasses_of_int_and_float_count():
    assert is_integer(Level.LOW) and is_number(Level.LOW)


def test_text_null_and_containers_are_not_numbers():
    for value in ("1", None, [1], {"a": 1}, b"1"):
        assert not is_number(value) and not is_integer(value)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=3), max_leaves=5))
def test_agrees_with_json_types(value):
    """What JSON would write as a number is a number; an integer is a number without a fraction part."""
    text = json.dumps(value)
    is_json_number = not isinstance(value, (bool, str, list)) and value is not None
    assert is_number(value) == is_json_number, text
    assert is_integer(value) == (is_json_number and isinstance(value, int)), text
