"""The strict JSON reader: every kind of bad input named in one line; what it accepts round-trips."""

import gc
import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.errors import InputError
from benchledger.records.jsonread import cycle_collection_paused, read_json_bytes, read_record_bytes
from benchledger.records.verification import record_verdict, validate_record

from tests.store_copies import leaves

RECORDS = Path(__file__).resolve().parents[3] / "records"


def rejected(raw: bytes, **kw) -> str:
    with pytest.raises(InputError) as caught:
        read_json_bytes(raw, "rec.json", **kw)
    (line,) = caught.value.lines()
    return line


@pytest.mark.parametrize(
    "raw, message",
    [
        (b'{"a": 1,\n "b": }', "rec.json:2: not JSON: Expecting value (column 7)"),
        (b"\xff\xfe{}", "rec.json:1: not UTF-8: invalid byte 0xff at offset 0"),
        (b'{"a": "\xc3"}', "rec.json:1: not UTF-8: invalid byte 0xc3 at offset 7"),
        (b"\xef\xbb\xbf{}", "rec.json: starts with a UTF-8 byte-order mark; records are plain UTF-8"),
        (b'{"a": 1, "a": 2}', "rec.json: $: duplicate key 'a' in one object"),
        (b'{"cases": [{"x": 1}, {"id": 1, "g": {"k": 1, "k": 1}}]}', "rec.json: $.cases[1].g: duplicate key 'k' in one object"),
        (b'{"a": NaN}', "rec.json:1: NaN is not a finite JSON number (NaN and infinities are not allowed; column 7)"),
        (b'[Infinity]', "rec.json:1: Infinity is not a finite JSON number (NaN and infinities are not allowed; column 2)"),
        (b'[-Infinity]', "rec.json:1: -Infinity is not a finite JSON number (NaN and infinities are not allowed; column 2)"),
        (b'{"watts": 1e999}', "rec.json:1: 1e999 is not a finite JSON number (too large for a double: it reads as infinity, and records hold finite numbers; column 11)"),
        (b"[" + b"9" * 300 + b"e99]", "rec.json:1: 9999999999999999...99999e99 (303 characters) is not a finite JSON number (too large for a double: it reads as infinity, and records hold finite numbers; column 2)"),
        (b"[-" + b"9" * 320 + b".5]", "rec.json:1: -999999999999999...999999.5 (323 characters) is not a finite JSON number (too large for a double: it reads as infinity, and records hold finite numbers; column 2)"),
        (b'{"a": 1}\n{"b": 2}', "rec.json:2: not JSON: trailing data after the JSON document (column 1)"),
        (b'{"a": 1} garbage', "rec.json:1: not JSON: trailing data after the JSON document (column 10)"),
        (b"", "rec.json: not JSON: the file is empty (0 bytes)"),
        (b" \n", "rec.json: not JSON: the file is empty (2 bytes, whitespace only)"),
        # a trailing comma: named at the comma, not where the parser stopped after it
        (b'{"a": 1,\n "b": [1, 2,\n ]\n}', "rec.json:2: not JSON: a comma after the last item (column 12), before the closing ']'; remove it"),
        (b'{"a": 1,\n}', "rec.json:1: not JSON: a comma after the last item (column 8), before the closing '}'; remove it"),
        (b"[" * 100_000, "rec.json: not JSON this reader accepts: nested too deeply"),
        # issue 11, keep going: a lone surrogate sealed, then no page could be written (UTF-8)
        (b'{"models": [{"name": "tiny \\ud800 model"}]}', "rec.json: $.models[0].name: a string holds an unpaired UTF-16 "
                                                         "surrogate (a \\uD800-\\uDFFF escape without its pair): not Unicode text"),
        (b'{"a": {"\\uDC00": 1}}', "rec.json: $.a: a string holds an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF escape "
                                    "without its pair): not Unicode text"),
    ],
)
def test_bad_input_is_named_in_one_line(raw, message):
    assert rejected(raw) == message


def test_size_limit_is_checked_before_parsing():
    assert rejected(b"[" + b"1," * 60 + b"1]", max_bytes=100) == "rec.json: file is 123 bytes, over the 100-byte limit for a record"


def test_file_reader_names_missing_files_and_folders(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_record_bytes(tmp_path / "absent.json")
    with pytest.raises(InputError, match="is a folder, not a record"):
        read_record_bytes(tmp_path)


def test_file_reader_refuses_devices_and_pipes_without_reading_them(tmp_path):
    """/dev/zero grew a seal until the kernel killed it, and a FIFO blocked it for ever."""
    with pytest.raises(InputError, match=r"^/dev/zero: is not a regular file \(a device, pipe or socket\), not a record$"):
        read_record_bytes(Path("/dev/zero"))
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(InputError, match="pipe.json: is not a regular file"):
        read_record_bytes(tmp_path / "pipe.json")


@pytest.mark.parametrize("name", ["llm-cpu-offload/2026-09-27.json", "torch-graph-replay/2026-10-28.json"])
def test_shipped_records_parse_like_the_standard_library(name):
    raw = read_record_bytes(RECORDS / name)
    assert read_json_bytes(raw, name) == json.loads(raw)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from([None, 2]), st.booleans())
def test_what_it_accepts_round_trips(value, indent, ascii_only):
    raw = json.dumps(value, indent=indent, ensure_ascii=ascii_only).encode("utf-8")
    assert read_json_bytes(raw, "rec.json") == value
    # and it agrees with the standard library on everything it accepts
    assert read_json_bytes(raw, "rec.json") == json.loads(raw)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=4), st.data())
def test_a_duplicated_key_is_named_with_its_place(obj, data):
    key = data.draw(st.sampled_from(sorted(obj)))
    body = json.dumps(obj)[1:-1]
    raw = ("{" + body + ", " + json.dumps(key) + ": 0}").encode()
    wrapped = b'{"outer": [' + raw + b"]}"
    assert rejected(wrapped) == f"rec.json: $.outer[0]: duplicate key {key!r} in one object"


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 400), st.integers(-400, 400), st.booleans())
def test_a_float_literal_is_read_exactly_or_named_when_it_overflows(digits, exponent, negative):
    literal = ("-" if negative else "") + "7" * (digits + 1) + f"e{exponent}"
    if math.isinf(float(literal)):
        assert rejected(f"[{literal}]".encode()).endswith("is not a finite JSON number (too large for a double: it reads as infinity, and records hold finite numbers; column 2)")
    else:
        assert read_json_bytes(f"[{literal}]".encode(), "rec.json") == [float(literal)]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_are_accepted_or_named_never_crash(raw):
    try:
        value = read_json_bytes(raw, "rec.json")
    except InputError as err:
        assert len(err.lines()) == 1 and err.lines()[0].startswith("rec.json")
    else:
        assert value == json.loads(raw)
        assert not any(isinstance(v, float) and not math.isfinite(v) for _, v in leaves(value))


def test_hex_digests_do_not_send_a_record_through_the_slow_float_hook():
    # "...b1e308..." inside a sha256 is not a number: the seeds parse with the C float parser
    from benchledger.records.jsonread import _may_overflow

    for seed in ("records/llm-cpu-offload/2026-09-27.json", "records/torch-graph-replay/2026-10-28.json"):
        text = (Path(__file__).resolve().parents[3] / seed).read_text(encoding="utf-8")
        assert not _may_overflow(text)
    assert not _may_overflow('{"h": "ab1e308cd", "g": "4e9918361c", "x": 1e-400, "y": 2e99}')
    for text in ('{"x": [2, -1.5E+400]}', '[1e309]', '{"a":12.5e+0400}', '"1e308"'):
        assert _may_overflow(text), text


@settings(max_examples=300, deadline=None)
@given(mantissa=st.from_regex(r"-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,3})?", fullmatch=True),
       exponent=st.integers(300, 999), e=st.sampled_from(["e", "E", "e+", "E+"]),
       before=st.sampled_from(["", " ", "\n", "1, ", '"ab1e308cd", ', '"4e991", ', '"\u00e9", ']),
       after=st.sampled_from(["", " ", ", 2", ', "4e9918361c"']))
def test_the_overflow_prefilter_never_misses_a_number_that_overflows(mantissa, exponent, e, before, after):
    """The prefilter may send harmless text to the slow path, never let an overflowing number
    through it: every such number, whatever stands beside it, is found."""
    from benchledger.records.jsonread import _may_overflow

    literal = f"{mantissa}{e}{exponent}"
    for text in (f"[{before}{literal}{after}]", f'{{"k": {literal}}}'):
        assert math.isinf(float(literal)) <= _may_overflow(text), text


def test_a_surrogate_pair_and_an_escaped_backslash_before_ud800_are_text():
    assert read_json_bytes(b'{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}', "rec.json") == {"a": "\U0001f600", "b": "\\ud800"}


# JSON text built piece by piece, so objects can repeat keys and strings can hold colons, escaped
# colons and escapes of every kind: where orjson's quick parse decides, it must decide as the
# strict reader does.
_string_bits = st.sampled_from(["a", ":", "\\u003a", "\\u003A", '\\"', "\\\\", "\\u00e9", "é", " ", "\\n", "x:y"])
_json_strings = st.lists(_string_bits, max_size=4).map(lambda bits: '"' + "".join(bits) + '"')
_numbers = st.one_of(st.integers(-(2**70), 2**70).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
                     st.sampled_from(["-0", "-0.0", "1E5", "1e-400", "9" * 19, "-" + "9" * 19, "0.1e1"]),
                     # the edges of what orjson holds as an integer, and far past them
                     st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**300, -(10**300)]).map(str))
_json_texts = st.recursive(
    st.one_of(_json_strings, _numbers, st.sampled_from(["true", "false", "null"])),
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(st.one_of(_json_strings, st.sampled_from(['"k"', '"k:"'])), children), max_size=4).map(
            lambda members: "{" + ", ".join(f"{k}: {v}" for k, v in members) + "}")),
    max_leaves=20,
)


def _typed(value) -> str:
    """The value as JSON text that tells an int from a float and keeps key order."""
    return json.dumps(value)


def _proofs() -> list:
    """Each no-duplicate-key proof of this install: the compiled one and the one in Python."""
    from benchledger.records import jsonread

    return [jsonread._compiled_reads_alike, jsonread._reads_alike_in_python]


def test_the_development_install_compiled_the_proof():
    """`make` builds the C proof into the checkout (setup.py): without it every test below of
    the compiled proof would quietly test the Python one twice, and verify would be slower."""
    from benchledger.records import _memberproof, jsonread

    assert jsonread._compiled_reads_alike is not None
    assert jsonread.reads_alike is jsonread._compiled_reads_alike
    # and compiled from the C file as it is now: an edit since would be tested in its old form
    source = Path(jsonread.__file__).with_name("_memberproof.c")
    assert Path(_memberproof.__file__).stat().st_mtime >= source.stat().st_mtime, \
        "benchledger/records/_memberproof.c changed since it was compiled: run make (or pip install -e .) again"


@settings(max_examples=1000, deadline=None)
@given(_json_texts)
def test_the_quick_orjson_parse_decides_only_what_the_strict_reader_would(text):
    from benchledger.records.jsonread import _UNSURE, _quick_parse, read_json_text

    quick = _quick_parse(text.encode("utf-8"))
    try:
        strict = read_json_text(text, "rec.json")
    except InputError:
        assert quick is _UNSURE  # a document the strict reader refuses is never let through
    else:
        assert quick is _UNSURE or _typed(quick) == _typed(strict)


@settings(max_examples=1000, deadline=None)
@given(_json_texts)
def test_each_proof_passes_only_what_the_strict_reader_reads_alike(text):
    """Both proofs, compiled and in Python, are held to the strict reader: a document that
    either passes reads the same there, ints and floats told apart."""
    import orjson

    from benchledger.records.jsonread import read_json_text

    raw = text.encode("utf-8")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return
    for proof in _proofs():
        if proof(raw, data):
            assert _typed(read_json_text(text, "rec.json")) == _typed(data), proof


@settings(max_examples=1000, deadline=None)
@given(_json_texts)
def test_the_compiled_proof_passes_every_document_without_a_repeated_key_or_a_wide_number(text):
    """Sound is not enough: a proof that never passed would send every record to the slow
    strict reader. Where orjson read every member (no repeated key) and no float that might
    have been a wider integer, the compiled proof passes, escaped colons and quotes included."""
    import orjson

    from benchledger.records import jsonread

    raw = text.encode("utf-8")
    try:
        data = orjson.loads(raw)
        strict = jsonread.read_json_text(text, "rec.json")
    except (orjson.JSONDecodeError, InputError):
        return
    # a float of 2**63 or more may have been an integer orjson could not hold
    plain = all(not isinstance(n, float) or abs(n) < 2.0**63 for _, n in leaves(data))
    if _typed(strict) == _typed(data) and plain:
        assert jsonread._compiled_reads_alike(raw, data)


@pytest.mark.parametrize("raw", [b'{"a": 1, "a": 2}', b'{"a": {"b:": 1}, "a": 2}', b'{"x": [{"y": 1, "y": 2}]}',
                                 b'{"\\"": 1, "\\"": 2}', b'{"a\\\\": 1, "a\\\\": 2}', b'[18446744073709551616]',
                                 b'[-9223372036854775809]', b'{"a": 1e+20, "b": 1}',
                                 # an escaped colon where a repeated key's member is missing
                                 b'{"x": "\\u003a", "k": 1, "k": 2}', b'{"\\u003A": 1, "k": 1, "k": 2}'])
def test_neither_proof_passes_a_repeated_key_or_an_integer_orjson_holds_as_a_float(raw):
    import orjson

    data = orjson.loads(raw)
    for proof in _proofs():
        assert not proof(raw, data), proof


def _aligned_members(count: int) -> bytes:
    """An object of `count` members of eight bytes each, `"kNN":0,`: every colon in one byte
    of the eight the proof counts in at a time."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    keys = [a + b for a in digits for b in digits][:count]
    return ("{" + ",".join(f'"k{k}":0' for k in keys) + "}").encode()


@pytest.mark.parametrize("raw", [_aligned_members(3000), b'{"k:;": ":;x", "u": 1, "v": "::;;"}', b'{"t": "12:00", "\xc3\xa9:": [":"]}',
                                 b'{"a": "\\\\", "b:": 1}', b'[":", {"c": ":"}, "x"]' + b" " * 13])
def test_the_compiled_proof_counts_every_colon_once(raw):
    """Text without a backslash is proven by counting all its colons eight bytes at a time:
    thousands in one byte lane, a colon beside a semicolon (one bit apart) and text whose
    length is not a multiple of eight are each counted once. (One with a backslash is read
    string by string.)"""
    import orjson

    from benchledger.records.jsonread import _compiled_reads_alike as proof

    assert proof(raw, orjson.loads(raw))
    assert not proof(raw, [orjson.loads(raw), {"one": "member too many"}])


def test_the_compiled_proof_reads_any_bytes_and_any_object_without_crashing():
    """It is meant for orjson's value of valid JSON, but a wrong call answers False, not a crash."""
    from benchledger.records.jsonread import _compiled_reads_alike as proof

    nested: list = []
    for _ in range(5000):
        nested = [nested]
    assert not proof(b"[" * 5000 + b"]" * 5000, nested)  # deeper than orjson nests: not proven
    assert not proof(b'{"a": "\\', {"a": 1})
    assert proof(b"{}", {}) and proof(bytearray(b'{"a": 1}'), {"a": 1}) and proof(memoryview(b"7"), 7)
    with pytest.raises(TypeError):
        proof("{}", {})
    with pytest.raises(TypeError):
        proof(b"{}")


@given(st.binary(max_size=300) | st.text(alphabet=":a\"\\", max_size=300).map(str.encode))
def test_colons_are_counted_as_bytes_count_counts_them_with_numpy_or_without(raw):
    import numpy

    from benchledger.records import jsonread

    saved = jsonread._numpy
    try:
        for jsonread._numpy in (None, numpy):
            assert jsonread._colons(raw) == raw.count(b":")
    finally:
        jsonread._numpy = saved


SEED = RECORDS / "llm-cpu-offload/2026-09-27.json"


def _in_a_fresh_python(script: str, record: Path | None = None, env: dict | None = None) -> list[str]:
    """The lines `script` prints, run by a new interpreter (numpy not loaded) with `record` as argv[1]."""
    argv = [sys.executable, "-c", script] + ([str(record)] if record is not None else [])
    return subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout.splitlines()


# The numpy colon counts serve the proof in Python only: these scripts use it, as an install
# where the C proof was not compiled does.
PYTHON_PROOF = "jsonread.reads_alike = jsonread._reads_alike_in_python\n"


def test_with_the_compiled_proof_a_worker_loads_no_numpy():
    """numpy (60 ms, and OpenBLAS's threads) only sped up the colon counts of the proof in Python."""
    script = (
        "import sys\n"
        "from benchledger.records import jsonread\n"
        "jsonread.count_colons_with_numpy()\n"
        "raw = open(sys.argv[1], 'rb').read()\n"
        "for _ in range(jsonread.NUMPY_AFTER_BYTES // len(raw) + 2):\n"
        "    jsonread.read_json_bytes(raw, 'r.json')\n"
        "print('numpy' in sys.modules)\n"
    )
    assert _in_a_fresh_python(script, SEED) == ["False"]


def test_numpy_is_loaded_only_on_request_and_then_with_one_blas_thread():
    """A command's one record is read without loading numpy (60 ms, and OpenBLAS's spinning
    threads); a pool worker asks for it, and gets it without OpenBLAS threads of its own, while
    what this process starts later gets the user's OpenBLAS setting back."""
    script = (
        "import os, sys\n"
        "from benchledger.records import jsonread\n"
        + PYTHON_PROOF +
        "raw = open(sys.argv[1], 'rb').read()\n"
        "jsonread.read_json_bytes(raw, 'r.json')\n"
        "print('numpy' in sys.modules)\n"
        "jsonread.count_colons_with_numpy()\n"
        "assert jsonread._colons(raw) == raw.count(b':')\n"
        "print('numpy' in sys.modules, len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _in_a_fresh_python(script, SEED, env) == ["False", "True 1 None"]


def test_a_process_that_reads_many_records_counts_with_numpy_once_past_the_threshold():
    """Past NUMPY_AFTER_BYTES of records a process loads numpy for its colon counts (a long run
    of seals); up to it, it does not. A user's OpenBLAS setting is left as it was."""
    script = (
        "import os, sys\n"
        "from benchledger.records import jsonread\n"
        + PYTHON_PROOF +
        "raw = open(sys.argv[1], 'rb').read()\n"
        "for _ in range(jsonread.NUMPY_AFTER_BYTES // len(raw)):\n"
        "    jsonread.read_json_bytes(raw, 'r.json')\n"
        "print('numpy' in sys.modules, jsonread._numpy is None)\n"
        "jsonread.read_json_bytes(raw, 'r.json')\n"
        "print('numpy' in sys.modules, jsonread._numpy is None, os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    assert _in_a_fresh_python(script, SEED, {**os.environ, "OPENBLAS_NUM_THREADS": "3"}) == ["False True", "True False 3"]


def test_where_numpy_cannot_be_loaded_records_are_still_read_and_counted_without_it():
    """numpy only makes counting faster: a broken install (its import fails) changes no result."""
    script = (
        "import sys\n"
        "sys.modules['numpy'] = None  # import numpy now raises ImportError\n"
        "from benchledger.records import jsonread\n"
        + PYTHON_PROOF +
        "raw = open(sys.argv[1], 'rb').read()\n"
        "for _ in range(jsonread.NUMPY_AFTER_BYTES // len(raw) + 2):\n"
        "    data = jsonread.read_json_bytes(raw, 'r.json')\n"
        "jsonread.count_colons_with_numpy()\n"
        "print(jsonread._numpy_tried, jsonread._numpy is None, jsonread._colons(raw) == raw.count(b':'), len(data))\n"
    )
    assert _in_a_fresh_python(script, SEED)[0].split() == ["True", "True", "True", str(len(json.loads(SEED.read_bytes())))]


def test_where_numpy_is_loaded_already_colons_are_counted_with_it_from_the_first_record():
    script = (
        "import sys, numpy\n"
        "from benchledger.records import jsonread\n"
        + PYTHON_PROOF +
        "jsonread.read_json_bytes(b'{\"a\": 1}', 'r.json')\n"
        "print(jsonread._numpy is numpy)\n"
    )
    assert _in_a_fresh_python(script) == ["True"]


def test_the_quick_parse_reads_the_shipped_records_and_leaves_duplicates_to_the_strict_reader():
    from benchledger.records.jsonread import _UNSURE, _quick_parse

    for name in ("llm-cpu-offload/2026-09-27.json", "torch-graph-replay/2026-10-28.json"):
        raw = (RECORDS / name).read_bytes()
        assert _typed(_quick_parse(raw)) == _typed(json.loads(raw))
    for raw in (b'{"a": 1, "a": 2}', b'{"a": {"b:": 1}, "a": 2}', b'{"\\u003a": 1, "x": {"y": 1, "y": 2}}',
                b'[18446744073709551616]', b'[-9223372036854775809]', b'{"a": 1e+20, "b": 1}'):
        assert _quick_parse(raw) is _UNSURE
    assert _quick_parse(b'[18446744073709551615, -9223372036854775808]') == [2**64 - 1, -(2**63)]  # orjson holds these


@settings(max_examples=1000, deadline=None)
@given(_json_texts)
def test_a_value_orjson_gave_holds_only_64_bit_integers_and_finite_floats(text):
    """What `parse_json_bytes` flags as orjson's lets the schema leave out the `number` bounds:
    the flag must never be set on a value holding a wider integer (the strict reader's, for
    `10**300`) or a non-finite float; and the value is the strict reader's either way."""
    from benchledger.records.jsonread import parse_json_bytes, read_json_text

    try:
        strict = read_json_text(text, "rec.json")
    except InputError:
        return
    value, from_orjson = parse_json_bytes(text.encode("utf-8"), "rec.json")
    assert _typed(value) == _typed(strict)
    if from_orjson:
        numbers = [n for _, n in leaves(value) if isinstance(n, (int, float)) and not isinstance(n, bool)]
        assert all(math.isfinite(n) if isinstance(n, float) else -(2**63) <= n < 2**64 for n in numbers)


def test_a_wide_integer_is_read_by_the_strict_reader_and_not_flagged():
    from benchledger.records.jsonread import parse_json_bytes

    assert parse_json_bytes(b'{"a": 1, "b": 2.5}', "rec.json") == ({"a": 1, "b": 2.5}, True)
    assert parse_json_bytes(f'{{"a": {10**400}}}'.encode(), "rec.json") == ({"a": 10**400}, False)


def test_an_integer_past_the_digit_limit_is_named_at_its_place():
    assert rejected(b'{\n "a": ' + b"7" * 4301 + b"}") == (
        "rec.json:2: an integer of 4301 digits (column 7): more than the 4300 this reader takes; no measured figure has that many")


def test_a_non_finite_number_is_named_where_it_stands_not_where_a_string_mentions_it():
    assert rejected(b'{"note": "NaN and 1e400 in text",\n "v": [1, 1e400]}') == (
        "rec.json:2: 1e400 is not a finite JSON number (too large for a double: it reads as infinity, and records hold finite numbers; column 11)")


class _CollectionsDuring:
    """Counts the cyclic collector's runs that start while `function` is running in this thread
    (gc.callbacks). Runs between its calls are left out: what one call leaves allocated is
    counted towards the next run wherever it falls, and another thread's allocations
    (pytest-xdist's worker has one) start runs in that thread."""

    def __init__(self, function):
        self.code = function.__code__
        self.thread = threading.get_ident()
        self.runs = 0

    def __call__(self, phase, info):
        if phase != "start" or threading.get_ident() != self.thread:
            return
        frame = sys._getframe(1)
        while frame is not None and frame.f_code is not self.code:
            frame = frame.f_back
        self.runs += frame is not None

    def __enter__(self):
        self.threshold = gc.get_threshold()
        gc.set_threshold(50)  # a run every 50 allocations: a record makes hundreds
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self)
        gc.set_threshold(*self.threshold)


def test_a_verdict_runs_no_cycle_collection_and_leaves_the_collector_as_it_found_it():
    raw = (RECORDS / "llm-cpu-offload/2026-09-27.json").read_bytes()
    job = (raw, "gsh-llm-core-article/1", "seed.json")
    with _CollectionsDuring(validate_record) as unpaused:  # the control: validating alone collects
        assert validate_record(job)[0] == "ok"
    assert unpaused.runs > 1
    with _CollectionsDuring(validate_record) as paused:
        for _ in range(3):
            assert record_verdict(job) == ("ok", [])
    assert paused.runs == 0 and gc.isenabled()
    gc.disable()  # a caller that paused it itself gets it back paused
    try:
        assert record_verdict((b'{"x": 1', "gsh-llm-core-article/1", "cut.json"))[0] == "not-json"
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_pause_ends_when_what_it_wraps_raises():
    with pytest.raises(InputError), cycle_collection_paused():
        assert not gc.isenabled()
        read_json_bytes(b"[1,]", "bad.json")
    assert gc.isenabled()
