"""JSON pointers (RFC 6901) and paths: keys holding `/` and `~`, the escape order (`~1` is
decoded before `~0`, `~` is encoded before `/`), list indexes, the one document walk and `$ref`
resolution."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.records.pointer import parse_pointer, resolve, resolve_ref, to_jsonpath, to_pointer, walk

# Keys made of the characters the escaping is about, so that collisions are likely.
KEYS = st.text(alphabet="~/01a", max_size=6)


def test_keys_holding_slash_and_tilde_are_escaped():
    assert to_pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0"
    # "~1" as a key: its "~" is escaped first, so it reads back as "~1", not as "/"
    assert to_pointer(["~1"]) == "/~01"
    assert to_pointer(["/~", "~/"]) == "/~1~0/~0~1"


def test_tokens_are_decoded_slash_first_then_tilde():
    # RFC 6901 section 4: "~01" is "~1", never "/"
    assert parse_pointer("/~01") == ["~1"]
    assert parse_pointer("/a~1b/c~0d") == ["a/b", "c~d"]
    assert parse_pointer("/~0~1/~1~0") == ["~/", "/~"]
    assert parse_pointer("") == []
    assert parse_pointer("/") == [""]


def test_keys_with_slash_and_tilde_resolve():
    doc = {"a/b": {"c~d": 1}, "~1": 2, "/": 3, "a": {"b": "wrong"}}
    assert resolve(doc, "/a~1b/c~0d") == 1
    assert resolve(doc, "/~01") == 2
    assert resolve(doc, "/~1") == 3
    assert resolve(doc, to_pointer(["a/b", "c~d"])) == 1


def test_a_pointer_without_a_leading_slash_is_refused():
    with pytest.raises(ValueError, match="must start with '/'"):
        parse_pointer("cases/0")


def test_array_indexes_are_decimal_without_leading_zeros():
    doc = {"xs": [10, 20, 30]}
    assert resolve(doc, "/xs/0") == 10
    assert resolve(doc, "/xs/2") == 30
    for bad in ("/xs/01", "/xs/3", "/xs/-", "/xs/-1", "/xs/x"):
        assert resolve(doc, bad, default=None) is None
        with pytest.raises(KeyError):
            resolve(doc, bad)


def test_a_missing_token_is_named():
    with pytest.raises(KeyError, match="'b'"):
        resolve({"a": {}}, "/a/b")


@settings(max_examples=300, deadline=None)
@given(st.lists(KEYS, max_size=6))
def test_pointers_round_trip(parts):
    pointer = to_pointer(parts)
    assert parse_pointer(pointer) == parts
    assert pointer.count("/") == len(parts)  # every "/" inside a key was escaped


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, st.integers(), min_size=1, max_size=8))
def test_each_key_of_an_object_resolves_to_its_own_value(doc):
    # keys such as "~1", "/" and "~01" side by side: a wrong escape order finds a neighbour
    for key, value in doc.items():
        assert resolve(doc, to_pointer([key])) == value
    assert len({to_pointer([key]) for key in doc}) == len(doc)


def test_jsonpaths_quote_keys_that_are_not_identifiers():
    assert to_jsonpath(["cases", 0, "id"]) == "$.cases[0].id"
    assert to_jsonpath(["a b", 'q"x', "back\\slash"]) == '$["a b"]["q\\"x"]["back\\\\slash"]'


def test_walk_visits_every_location_in_document_order():
    doc = {"b": [1, {"c": None}], "a": "x"}
    assert list(walk(doc)) == [
        ([], doc), (["b"], doc["b"]), (["b", 0], 1), (["b", 1], {"c": None}), (["b", 1, "c"], None), (["a"], "x"),
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_every_walked_location_resolves_to_its_value(doc):
    seen = set()
    for parts, value in walk(doc):
        pointer = to_pointer(parts)
        assert resolve(doc, pointer) is value
        seen.add(pointer)
    assert len(seen) == sum(1 for _ in walk(doc))  # no location twice


def test_walk_is_not_limited_by_recursion_depth():
    doc: list = []
    node = doc
    for _ in range(5000):
        node.append([])
        node = node[0]
    assert sum(1 for _ in walk(doc)) == 5001


def test_refs_resolve_through_pointers():
    schema = {"$defs": {"a/b": {"type": "string"}, "sp ace": {"type": "integer"}, "t~": {"const": 1}}}
    assert resolve_ref(schema, "#/$defs/a~1b") == {"type": "string"}
    assert resolve_ref(schema, "#/$defs/sp%20ace") == {"type": "integer"}  # a URI fragment may percent-encode
    assert resolve_ref(schema, "#/$defs/t~0") == {"const": 1}
    assert resolve_ref(schema, "#") is schema
    assert resolve_ref(schema, "#/$defs/none", default={}) == {}
    with pytest.raises(ValueError, match="inside this document"):
        resolve_ref(schema, "other.json#/x")


def test_an_index_of_digits_other_than_ascii_is_no_index():
    """RFC 6901 indexes are ASCII digits: "³" (a digit to str.isdigit that int() refuses) raised
    a ValueError out of resolve, and "١" read as index 1."""
    assert resolve([10, 11], "/\u00b3", default=None) is None
    assert resolve([10, 11], "/\u0661", default=None) is None
    assert resolve([10, 11], "/1") == 11
