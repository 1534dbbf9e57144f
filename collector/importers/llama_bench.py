"""The llama-bench importer: llama.cpp's `llama-bench -o json` (one array of test rows) and
`-o jsonl` (one row per line) as `llama-bench/1` records.

Each row is kept with its fields as llama-bench wrote them; the row fields and their types come
from the schema itself (`$defs/test`), so the importer and the record format cannot disagree.
Every problem in the file is reported at once, at its place in the file (`$[3].avg_ts`; for
JSONL also its line). What llama-bench prints in its other formats (its default Markdown
table, CSV, SQL) is recognised and refused with the option to use instead."""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
from typing import Any, Sequence

from benchledger.errors import InputError, Problem, RowsError
from benchledger.records import schema
from benchledger.records.checks import llama_bench_tool_version
from benchledger.records.jsonread import read_json_text
from benchledger.records.numbers import is_integer, is_number
from collector.importers.base import Importer, Source

SCHEMA = "llama-bench/1"
LIMITATION = ("These numbers were measured by llama-bench and imported from its output, not measured by "
              "benchledger's collector: no host or GPU telemetry was sampled, and the machine, model and settings "
              "are as llama-bench reported them.")
MODEL_NOT_HASHED = "llama-bench names the model file but does not hash it: the model is identified by its path, type and size only."
UNKNOWN_BUILD = "llama-bench was built without git metadata (commit unknown): the llama.cpp version it measured is not known exactly."

_TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
               "array": "a list", "object": "an object", "null": "null"}


def _row_schema() -> dict[str, Any]:
    return schema.loaded(SCHEMA).document["$defs"]["test"]


def _types(prop: dict[str, Any]) -> list[str]:
    kind = prop.get("type", [])
    return [kind] if isinstance(kind, str) else list(kind)


def _fits(value: Any, kind: str) -> bool:
    if kind == "integer":
        return is_integer(value)
    if kind == "number":
        return is_number(value)
    return isinstance(value, {"string": str, "boolean": bool, "array": list, "object": dict, "null": type(None)}[kind])


def _expected(prop: dict[str, Any]) -> str:
    words = " or ".join(_TYPE_WORDS[k] for k in _types(prop))
    if "array" in _types(prop):
        item = prop.get("items", {})
        words = f"a list of {_TYPE_WORDS[_types(item)[0]].removeprefix('an ').removeprefix('a ')}s"
        if "minimum" in item:
            words += f" >= {item['minimum']}"
        if prop.get("minItems"):
            words = "a non-empty " + words.removeprefix("a ")
    elif "minimum" in prop:
        words += f" >= {prop['minimum']}"
    return words


def _value_ok(value: Any, prop: dict[str, Any]) -> bool:
    if not any(_fits(value, k) for k in _types(prop)):
        return False
    if isinstance(value, list):
        item = prop.get("items", {})
        if len(value) < prop.get("minItems", 0):
            return False
        return all(_value_ok(v, item) for v in value)
    if "minimum" in prop and _fits(value, "number") and value < prop["minimum"]:
        return False
    return True


def row_problems(rows: list[Any], shown: str, lines: Sequence[int | None] | None = None) -> list[Problem]:
    """Every way `rows` differ from llama-bench test rows as the schema describes them."""
    spec = _row_schema()
    props, required = spec["properties"], spec["required"]
    problems = []
    for i, row in enumerate(rows):
        line = lines[i] if lines else None
        if not isinstance(row, dict):
            problems.append(Problem(shown, f"$[{i}]", "expected an object (one llama-bench test row)", line))
            continue
        for key in required:
            if key not in row:
                problems.append(Problem(shown, f"$[{i}].{key}", "missing: llama-bench writes it in every row", line))
        for key, value in row.items():
            prop = props.get(key)
            if prop is None:
                problems.append(Problem(shown, f"$[{i}].{key}" if key.isidentifier() else f"$[{i}][{json.dumps(key)}]",
                                        f"not a field schema {SCHEMA} describes (a newer llama-bench?)", line))
            elif not _value_ok(value, prop):
                problems.append(Problem(shown, f"$[{i}].{key}", f"expected {_expected(prop)}", line))
    return problems


# What llama-bench's other output formats start with, and what to do instead.
_OTHER_FORMATS = (
    (re.compile(r"\|\s*model\s*\|"), "llama-bench's Markdown table (-o md, its default)"),
    (re.compile(r"build_commit,"), "llama-bench's CSV (-o csv)"),
    (re.compile(r"CREATE TABLE", re.IGNORECASE), "llama-bench's SQL (-o sql)"),
)
_NOT_A_NUMBER = re.compile(r"-?(nan|inf)", re.IGNORECASE)


def _format_of(text: str, shown: str) -> str:
    start = text.lstrip()
    if not start:
        raise InputError(shown, "", "the file is empty: llama-bench wrote no results (did it fail? its messages go to stderr)")
    if start[0] == "[":
        return "json"
    if start[0] == "{":
        return "jsonl"
    for pattern, what in _OTHER_FORMATS:
        if pattern.match(start):
            raise InputError(shown, "", f"this is {what}, not JSON; run llama-bench again with -o json (or -o jsonl) and import that")
    first = start.splitlines()[0]
    raise InputError(shown, "", f"not llama-bench JSON output: it starts with {first[:60]!r}; import what "
                                "`llama-bench -o json` (or -o jsonl) prints on stdout")


def _parse_json(text: str, shown: str, line_offset: int = 0) -> Any:
    """One JSON document, strictly; a cut-off document and llama-bench's `nan` get their own message."""
    try:
        json.loads(text, parse_constant=lambda c: None)
    except RecursionError:  # too deep for this pre-check: the strict reader below says so, with its place
        pass
    except json.JSONDecodeError as err:
        line = err.lineno + line_offset
        # a string still open at the end, or nothing left where more was expected: cut off
        if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string"):
            raise InputError(shown, "", "the JSON ends before it is complete (an interrupted llama-bench run?); "
                                        "import the output of a run that finished", line) from None
        word = _NOT_A_NUMBER.match(text, err.pos)
        if word:
            raise InputError(shown, "", f"llama-bench printed {word.group(0)!r} where a number belongs (column {err.colno}); "
                                        "such a row has no usable value: run the test again", line) from None
    except ValueError:  # an integer past Python's 4,300 digits: the strict reader below names it, with its place
        pass
    try:
        return read_json_text(text, shown)
    except InputError as err:
        problem = err.problems[0]
        raise InputError(shown, problem.path, problem.message,
                         None if problem.line is None else problem.line + line_offset) from None


def parse_rows(raw: bytes, shown: str) -> tuple[str, list[Any], list[int] | None]:
    """(format, rows, line of each row for JSONL) from llama-bench's output bytes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(shown, "", f"not UTF-8: invalid byte 0x{raw[err.start]:02x} at offset {err.start}; "
                                    "llama-bench writes UTF-8 JSON", raw[: err.start].count(b"\n") + 1) from None
    text = text.removeprefix("\ufeff")  # a byte-order mark some tools write is not JSON (the source keeps its bytes)
    fmt = _format_of(text, shown)
    if fmt == "json":
        rows = _parse_json(text, shown)
        if not isinstance(rows, list):
            raise InputError(shown, "$", "expected a list of test rows, as `llama-bench -o json` writes")
        return fmt, rows, None
    rows, lines, problems = [], [], []
    # JSON Lines end at "\n" (and "\r\n") alone: splitlines() also ends one at U+2028, U+2029 and
    # U+0085, which a JSON string may hold as they are
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            rows.append(_parse_json(line, shown, number - 1))
            lines.append(number)
        except InputError as err:  # a problem of the whole line (a duplicate key) is placed on it
            problems.extend(dataclasses.replace(p, line=number) if p.line is None else p for p in err.problems)
    if problems:
        try:  # one object over several lines is not llama-bench's JSONL: say what it is instead
            whole = json.loads(text)
        except (ValueError, RecursionError):
            whole = None
        if isinstance(whole, dict) and len(rows) + len(problems) > 1:
            raise InputError(shown, "$", "one JSON object over several lines: expected llama-bench's output, a list of "
                                         "test rows (-o json) or one row per line (-o jsonl)")
        raise RowsError(problems, f"{shown}: {len(problems)} line(s) are not JSON; nothing was sealed")
    return fmt, rows, lines


def _is_date(text: str) -> bool:
    """Whether `text` is a real YYYY-MM-DD date (a test_time of 9999-99-99 named a store path)."""
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


class LlamaBenchImporter(Importer):
    tool = "llama-bench"
    schema = SCHEMA
    version = 1

    def record(self, source: Source, limitations: Sequence[str]) -> dict[str, Any]:
        fmt, rows, lines = parse_rows(source.raw, source.shown)
        if not rows:
            raise InputError(source.shown, "$", "no test rows: llama-bench wrote an empty list")
        problems = row_problems(rows, source.shown, lines)
        if problems:
            raise RowsError(problems, f"{source.shown}: {len(problems)} problem(s) in llama-bench's rows; nothing was sealed")
        own = [LIMITATION, MODEL_NOT_HASHED]
        if any(r["build_commit"] == "unknown" for r in rows):
            own.append(UNKNOWN_BUILD)
        return {
            "import": {
                "imported_at": source.imported_at,
                "imported_by": source.imported_by,
                "importer": self.importer_id,
                "output_format": fmt,
                "source_file_name": source.name,
                "source_sha256": source.sha256,
                "source_size_bytes": len(source.raw),
                "test_count": len(rows),
                "tool": self.tool,
                "tool_version": llama_bench_tool_version(rows),
            },
            "limitations": own + list(limitations),
            "schema": SCHEMA,
            "tests": rows,
        }

    def store_path(self, record: dict[str, Any], source: Source) -> str:
        """llama-bench/<date of the first test>-<12 hex digits of the file's sha256>.json"""
        first = str(record["tests"][0].get("test_time", ""))
        date = first[:10] if _is_date(first[:10]) else source.imported_at[:10]
        return f"llama-bench/{date}-{source.sha256[:12]}.json"

    def source_path(self, record_path: str) -> str | None:
        if record_path.startswith("$.tests[") or record_path == "$.tests":
            return "$" + record_path[len("$.tests"):]
        return None

    def source_of(self, record: dict[str, Any]) -> str | None:
        block = record.get("import") if isinstance(record, dict) else None
        return block.get("source_sha256") if isinstance(block, dict) else None
