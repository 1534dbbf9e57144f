"""The one sha256 pattern and the (name, bytes) fingerprint."""

import hashlib

from hypothesis import given, strategies as st

from benchledger.records.digest import MIN_PREFIX_HEX, distinct_prefixes, is_sha256, is_sha256_prefix, named_bytes_sha256, sha256_hex

FULL = hashlib.sha256(b"x").hexdigest()


def test_a_sha256_is_64_lowercase_hex_digits():
    assert is_sha256(FULL) and sha256_hex(b"x") == FULL
    for bad in (FULL.upper(), FULL[:-1], FULL + "0", FULL[:-1] + "g", f"{FULL}\n", None, 7):
        assert not is_sha256(bad)


def test_a_prefix_names_a_record_from_12_digits_on():
    assert MIN_PREFIX_HEX == 12
    assert is_sha256_prefix(FULL[:12]) and is_sha256_prefix(FULL)
    for bad in (FULL[:11], FULL + "0", FULL[:12].upper(), "", "xyz123456789"):
        assert not is_sha256_prefix(bad)


def test_the_fingerprint_changes_with_any_name_or_byte_and_is_unambiguous():
    base = named_bytes_sha256([("a.py", b"1"), ("b.py", b"2")])
    assert base == named_bytes_sha256(iter([("a.py", b"1"), ("b.py", b"2")]))
    assert base != named_bytes_sha256([("a.py", b"1"), ("c.py", b"2")])
    assert base != named_bytes_sha256([("a.py", b"1"), ("b.py", b"3")])
    assert base != named_bytes_sha256([("b.py", b"2"), ("a.py", b"1")])
    # the separators keep a name from running into the bytes
    assert named_bytes_sha256([("ab", b"c")]) != named_bytes_sha256([("a", b"bc")])
    assert base == hashlib.sha256(b"a.py\x001\x00b.py\x002\x00").hexdigest()


HEX64 = st.text("0123456789abcdef", min_size=64, max_size=64)


@given(HEX64, HEX64)
def test_two_different_hashes_always_read_as_different(a, b):
    short_a, short_b = distinct_prefixes(a, b)
    assert a.startswith(short_a) and b.startswith(short_b) and len(short_a) == len(short_b) >= MIN_PREFIX_HEX
    assert (short_a != short_b) == (a != b)


def test_a_change_in_the_last_digit_shows_the_whole_hash():
    a = "a3e89ae3a2251d98f41f1c8e0289bc4db8156629e4e515918216d75b9e7465b7"
    assert distinct_prefixes(a, a[:-1] + "8") == (a, a[:-1] + "8")
    assert distinct_prefixes(a, "b" + a[1:]) == (a[:12], "b" + a[1:12])
