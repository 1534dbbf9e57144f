"""The benchmarks under bench/ run, at sizes that take seconds, and end with the line issue 13
asks of each: its fields in order, each a number. Their figures are not judged here (speed
goals live in the benchmarks' output, not in timed tests); that they can be read is."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NUMBER = r"-?\d+(?:\.\d+)?"


def last_lines(script: str, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def fields(line: str, names: list[str]) -> dict[str, float]:
    """The `name=value` fields of `line`, which must start with `names`, in that order."""
    found = re.findall(rf"(\w+)=({NUMBER})(?=\s|$)", line)
    assert [name for name, _ in found][: len(names)] == names, line
    assert " ".join(f"{n}={v}" for n, v in found) == line, f"not only name=number fields: {line}"
    values = {name: float(value) for name, value in found}
    assert all(math.isfinite(v) and v >= 0 for v in values.values()), line
    return values


@pytest.mark.parametrize(("script", "args", "names", "count"), [
    ("seal.py", ["--records", "40", "--fresh", "4"], ["records", "seal_s", "per_record_ms"], ("records", 40)),
    ("sampler.py", ["--seconds", "0.3"], ["hz", "cpu_percent_of_core", "wait_floor_percent", "psutil_loop_percent"], ("hz", 10)),
])
def test_last_line_has_the_issue_fields(script, args, names, count):
    values = fields(last_lines(script, *args)[-1], names)
    assert values[count[0]] == count[1]


def test_verify_names_the_steps_its_floor_is_made_of():
    *_, steps, last = last_lines("verify.py", "--sizes", "9", "24")
    values = fields(last, ["records", "cold_s", "warm_s", "sha256_s", "cold_ratio", "warm_ratio", "sha256sum_s",
                           "cold_ratio_sha256sum", "validation_ms", "cpus", "parts_floor_ratio"])
    parts = dict(re.findall(rf"(\w+)=({NUMBER})", steps.partition(":")[2]))
    assert list(parts) == ["read", "sha256", "parse", "duplicate_key_proof", "schema", "checks", "free", "sum"]
    # the parts, each printed to 3 decimals (off by up to 0.0005), against their sum printed the same way
    step_ms = [float(v) for k, v in parts.items() if k != "sum"]
    assert float(parts["sum"]) == pytest.approx(sum(step_ms), abs=len(step_ms) * 0.0005 + 1e-9)
    assert float(parts["sum"]) == pytest.approx(values["validation_ms"], abs=0.0005)
    assert values["records"] == 24 and values["cpus"] >= 1 and values["parts_floor_ratio"] > 0
    assert values["checks_compiled"] == 1  # the development install compiled them (setup.py)
    assert values["statistics_proven"] == 1  # and the statistics proof, which holds for every record made here


def test_build_prints_a_line_per_size_and_repeats_the_largest():
    lines = last_lines("build.py", "--sizes", "1,2", "--repeat", "1")
    names = ["articles", "cold_s", "warm_s", "one_more_s", "bare_mkdocs_s", "search_query_bytes"]
    per_size = [fields(line, names) for line in lines if line.startswith("articles=")]
    assert [v["articles"] for v in per_size] == [1, 2, 2]
    assert per_size[-1] == per_size[-2]
    assert all(v["search_query_bytes"] > 0 for v in per_size)
    assert all(v["largest_page_bytes"] > 0 for v in per_size)
    assert any(line.startswith("  largest pages: ") for line in lines)
