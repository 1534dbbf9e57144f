"""`benchledger import llama-bench`: real llama-bench outputs (captured on the tiny model) seal
records that verify; every malformed output gets one clear line, exit 1, and seals nothing."""

import json
import shutil

import pytest

from tests.llama_bench_support import captured
from tests.store_copies import tree_digest


@pytest.fixture
def outputs(tmp_path):
    """The captured outputs copied beside the store (as a user would have them)."""
    for name in ("tiny-threads-1.json", "tiny-threads-2.json", "tiny-threads-1.jsonl"):
        shutil.copy(captured(name), tmp_path / name)
    return tmp_path


def test_json_and_jsonl_import_seal_and_verify(records, outputs, cli):
    result = cli("import", "llama-bench", "tiny-threads-1.json", "--limitation", "Measured on a shared 2-core machine.",
                 "--imported-by", "ci")
    assert result.code == 0 and result.err == []
    path = result.out.split()[1]
    assert path.startswith("records/llama-bench/2026-12-01-") and path.endswith(".json")
    data = json.loads((outputs / path).read_bytes())
    rows = json.loads(captured("tiny-threads-1.json").read_bytes())
    assert data["tests"] == rows  # every field as llama-bench wrote it
    block = data["import"]
    assert block["source_sha256"] == __import__("hashlib").sha256(captured("tiny-threads-1.json").read_bytes()).hexdigest()
    assert (block["tool"], block["output_format"], block["imported_by"], block["test_count"]) == ("llama-bench", "json", "ci", 2)
    assert block["tool_version"] == "build 0, commit unknown"
    assert "not measured by benchledger's collector" in data["limitations"][0]
    assert data["limitations"][-1] == "Measured on a shared 2-core machine."

    result = cli("import", "llama-bench", "tiny-threads-1.jsonl", "--as", "llama-bench/threads-1-jsonl.json")
    assert result.code == 0, result.err
    assert json.loads((outputs / "records/llama-bench/threads-1-jsonl.json").read_bytes())["import"]["output_format"] == "jsonl"
    assert cli("verify").code == 0


def test_the_same_file_is_imported_once(records, outputs, cli):
    assert cli("import", "llama-bench", "tiny-threads-2.json").code == 0
    before = tree_digest(records)
    result = cli("import", "llama-bench", "tiny-threads-2.json", "--as", "llama-bench/again.json")
    assert result.code == 1 and len(result.err) == 1
    assert "this exact file" in result.err[0] and "was already imported as records/llama-bench/" in result.err[0]
    assert tree_digest(records) == before


def _rows():
    return json.loads(captured("tiny-threads-1.json").read_bytes())


def _truncated():
    raw = captured("tiny-threads-1.json").read_bytes()
    return raw[: len(raw) * 2 // 3]  # llama-bench killed mid-run


def _missing_avg_ts():
    rows = _rows()
    del rows[1]["avg_ts"]
    return json.dumps(rows, indent=2).encode()


def _samples_not_matching_average():
    rows = _rows()
    rows[0]["avg_ts"] = round(rows[0]["avg_ts"] * 1.1, 6)
    return json.dumps(rows, indent=2).encode()


def _markdown():
    # llama-bench's default output (-o md), as it prints it
    return (b"| model                          |       size |     params | backend    | threads |            test |                  t/s |\n"
            b"| ------------------------------ | ---------: | ---------: | ---------- | ------: | --------------: | -------------------: |\n"
            b"| llama ?B all F32               |   2.77 MiB |     0.73 M | CPU        |       1 |            pp16 |   31350.04 \xc2\xb1 1994.32 |\n"
            b"\nbuild: unknown (0)\n")


@pytest.mark.parametrize("make, line", [
    (_truncated, "bad.json:{line}: the JSON ends before it is complete (an interrupted llama-bench run?)"),
    (_missing_avg_ts, "bad.json: $[1].avg_ts: missing: llama-bench writes it in every row"),
    (_samples_not_matching_average, "bad.json: $[0].avg_ts: expected {mean} (mean of samples_ts), found {found} [check llama-bench-avg-ts]"),
    (_markdown, "bad.json: this is llama-bench's Markdown table (-o md, its default), not JSON; run llama-bench again with -o json"),
    (lambda: b"", "bad.json: the file is empty"),
    (lambda: b'{"build_commit": "unknown", "build_number": 0,\n', "bad.json:1: the JSON ends before it is complete"),
    (lambda: captured("tiny-threads-1.json").read_bytes().replace(b'"stddev_ts": ', b'"stddev_ts": -nan, "x": ', 1),
     "bad.json:{nan_line}: llama-bench printed '-nan' where a number belongs"),
    (lambda: b'{\n  "avg_ts": 1.0\n}\n', "bad.json: $: one JSON object over several lines"),
    # one JSONL line: its own problem, not "one object over several lines"; a duplicate key gets its line
    (lambda: b'{"avg_ts": NaN}\n', "bad.json:1: NaN is not a finite JSON number"),
    (lambda: b'{"avg_ts": 1.0}\n{"n_threads": 1, "n_threads": 2}\n', "bad.json:2: $: duplicate key 'n_threads' in one object"),
    (lambda: b"[1]", "bad.json: $[0]: expected an object (one llama-bench test row)"),
    # issue 11, keep going: deep nesting was a RecursionError traceback (the strict reader's own message now)
    (lambda: b"[" * 100000 + b"]" * 100000, "bad.json: not JSON this reader accepts: nested too deeply"),
    (lambda: b'{"a":' * 50000 + b"1" + b"}" * 50000 + b"\n", "bad.json:1: not JSON this reader accepts: nested too deeply"),
    # an integer past Python's 4,300 digits was a ValueError traceback from the pre-check
    (lambda: b'[{"n_prompt": ' + b"9" * 5000 + b"}]", "bad.json:1: an integer of 5000 digits (column 15): more than the 4300 this reader takes"),
], ids=["truncated", "missing-avg_ts", "samples-vs-average", "text-output", "empty", "truncated-jsonl", "nan", "one-object",
        "one-line-nan", "jsonl-duplicate-key", "not-rows", "deep-json", "deep-jsonl", "huge-integer"])
def test_malformed_output_one_error_and_nothing_sealed(records, cli, tmp_path, make, line):
    raw = make()
    (tmp_path / "bad.json").write_bytes(raw)
    before = tree_digest(records)
    result = cli("import", "llama-bench", "bad.json")
    assert result.code == 1 and result.out == ""
    assert len(result.err) == 1, result.err
    rows = _rows()
    text = raw.decode()
    expected = line.format(line=text.rstrip().count("\n") + 1, nan_line=text[: text.find("-nan")].count("\n") + 1,
                           mean=f"{sum(rows[0]['samples_ts']) / 5:.12g}",
                           found=round(rows[0]["avg_ts"] * 1.1, 6))
    assert result.err[0].startswith(f"benchledger import: error: {expected}"), result.err[0]
    assert tree_digest(records) == before


def test_every_row_problem_is_listed_at_once(records, cli, tmp_path):
    rows = _rows()
    rows[0]["avg_ts"] = "fast"
    rows[1]["samples_ns"] = []
    rows[1]["n_threads"] = 1.5
    rows[1]["novel_field"] = True
    (tmp_path / "bad.json").write_text(json.dumps(rows))
    before = tree_digest(records)
    result = cli("import", "llama-bench", "bad.json")
    assert result.code == 1
    assert result.err == [
        "benchledger import: error: bad.json: $[0].avg_ts: expected a number >= 0",
        "benchledger import: error: bad.json: $[1].n_threads: expected an integer >= 0",
        "benchledger import: error: bad.json: $[1].samples_ns: expected a non-empty list of integers >= 1",
        "benchledger import: error: bad.json: $[1].novel_field: not a field schema llama-bench/1 describes (a newer llama-bench?)",
        "benchledger import: error: bad.json: 4 problem(s) in llama-bench's rows; nothing was sealed",
    ]
    assert tree_digest(records) == before


def test_a_byte_order_mark_is_not_json_and_an_impossible_test_date_names_no_store_path(records, cli, tmp_path):
    """A UTF-8 BOM (some tools write one) made the file "not JSON"; a test_time of 9999-99-99
    became the store path's date. The sealed record keeps the file's exact bytes and sha256."""
    import hashlib

    raw = b"\xef\xbb\xbf" + captured("tiny-threads-1.json").read_bytes()
    (tmp_path / "bom.json").write_bytes(raw)
    result = cli("import", "llama-bench", "bom.json", "--imported-by", "t")
    assert result.code == 0, result.err
    rows = _rows()
    for row in rows:
        row["test_time"] = "9999-99-99T99:99:99Z"
    (tmp_path / "odd.json").write_text(json.dumps(rows))
    result = cli("import", "llama-bench", "odd.json", "--imported-by", "t")
    assert result.code == 0, result.err
    from benchledger.records.store import Store

    paths = [e.path for e in Store(records).entries()]
    sha = hashlib.sha256(raw).hexdigest()
    assert any(p.startswith("llama-bench/") and p.endswith(f"-{sha[:12]}.json") for p in paths)
    assert not any("9999-99-99" in p for p in paths), paths


def test_jsonl_lines_end_at_newlines_only(records, cli, tmp_path):
    """U+2028, U+2029 and U+0085 may stand in a JSON string as they are: splitting at them made
    a valid JSONL file two broken lines and every later line number one off."""
    rows = [json.loads(line) for line in captured("tiny-threads-1.jsonl").read_text().splitlines() if line.strip()]
    rows[0]["cpu_info"] = "AMD\u2028EPYC\u0085x\u2029"
    (tmp_path / "u.jsonl").write_text("\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    result = cli("import", "llama-bench", "u.jsonl")
    assert result.code == 0, result.err


@pytest.mark.parametrize("args, where", [
    (["--imported-by", "ci\udcff"], "$.import.imported_by"),
    (["--limitation", "shared\udcff host"], "$.limitations[3]"),
])
def test_text_that_is_not_unicode_is_named_not_called_a_non_finite_number(records, outputs, cli, args, where):
    """An undecodable byte of an argument (kept by Python as a lone surrogate) made the record
    unwritable, and `import` said "record contains a non-finite number"."""
    from collector.record import UNDECODABLE

    before = tree_digest(records)
    result = cli("import", "llama-bench", "tiny-threads-1.json", *args)
    assert result.code == 1 and result.err == [f"benchledger import: error: record {where} holds '\\udcff', which is not "
                                               f"valid Unicode: {UNDECODABLE}; refusing to write it"]
    assert tree_digest(records) == before
