"""The shipped schemas: seeds validate unchanged, CPU-only records our collector writes validate,
violations are all listed with their paths, and every property is described for the glossary."""

import copy
import subprocess
import sys
from pathlib import Path

import jsonschema
import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.records.schema import load_schema, schema_ids, undescribed_keys, validate, with_number_bounds

from tests.llama_bench_support import LLB, record as llama_bench_record
from tests.store_copies import GSH, TGR, seed

ROOT = Path(__file__).resolve().parents[3]


def test_shipped_schema_ids_and_their_ids():
    assert schema_ids() == [GSH, LLB, TGR]
    for schema_id in schema_ids():
        schema = load_schema(schema_id)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"urn:benchledger:schema:{schema_id}"


@pytest.mark.parametrize("schema_id", [GSH, TGR])
def test_seeds_validate_unchanged(schema_id):
    assert validate(seed(schema_id), schema_id, "seed.json") == []


def _properties(node, where):
    """(location, property schema) for every property, through $defs, items and if/then."""
    if isinstance(node, dict):
        for name, prop in node.get("properties", {}).items():
            yield f"{where}/properties/{name}", prop
        for key, child in node.items():
            yield from _properties(child, f"{where}/{key}")
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from _properties(child, f"{where}/{i}")


@pytest.mark.parametrize("schema_id", [GSH, TGR, LLB])
def test_every_property_has_a_description(schema_id):
    schema = load_schema(schema_id)
    # properties inside if/then/else only tighten a described property; they need no text
    undescribed = [where for where, prop in _properties(schema, "#")
                   if "description" not in prop and not any(k in where for k in ("/if/", "/then/", "/else/"))]
    assert undescribed == []
    assert all(len(prop["description"]) > 10 for where, prop in _properties(schema, "#") if "description" in prop)


@pytest.mark.parametrize("schema_id", [GSH, TGR])
def test_every_key_of_the_seeds_is_described(schema_id):
    # the collector's own records are walked where they are collected (tests/collector)
    assert undescribed_keys(seed(schema_id), schema_id) == []


def test_every_key_of_an_imported_llama_bench_record_is_described():
    assert undescribed_keys(llama_bench_record(), LLB) == []
    assert undescribed_keys(llama_bench_record("tiny-threads-1.jsonl"), LLB) == []


def test_undescribed_keys_are_named_once_with_wildcard_indexes():
    record = seed(GSH)
    for case in record["cases"]:
        case["novel_seconds"] = 1.0  # an open schema accepts it, but no reader can learn what it is
    record["cases"][0]["resources_by_phase"]["load"]["novel_bytes"] = 2  # through a $ref
    record["cases"][0]["resources_by_phase"]["load"]["metrics"]["novel_metric"] = None  # a map key: the map describes it
    assert validate(record, GSH, "r.json") == []
    assert undescribed_keys(record, GSH) == ["$.cases[*].resources_by_phase.load.novel_bytes", "$.cases[*].novel_seconds"]


def test_every_violation_is_listed_with_its_path():
    record = seed(GSH)
    del record["tested_at"]
    record["cases"][0]["groups"][0]["completed_request_count"] = -1
    record["cases"][0]["groups"][0]["resources"]["metrics"]["gpu_board_watts"] = "x"
    record["cases"][1]["status"] = "finished"
    record["models"][0]["files"][0]["sha256"] = "ABC"
    record["cases"][2]["resources_by_phase"]["teardown"] = record["cases"][2]["resources_by_phase"]["cleanup"]
    lines = [str(p) for p in validate(record, GSH, "r.json")]
    assert lines == [
        "r.json: $: 'tested_at' is a required property",
        "r.json: $.cases[0].groups[0].completed_request_count: -1 is less than the minimum of 0",
        "r.json: $.cases[0].groups[0].resources.metrics.gpu_board_watts: \"x\" is not any of: statistic, null",
        "r.json: $.cases[1]: 'failure_reason' is a required property",
        "r.json: $.cases[1].status: 'finished' is not one of ['completed', 'failed', 'skipped']",
        "r.json: $.cases[2].resources_by_phase: 'teardown' is not one of ['baseline', 'load', 'ready', 'warmup', 'responses', 'cleanup']",
        "r.json: $.models[0].files[0].sha256: 'ABC' does not match '^[0-9a-f]{64}$'",
    ]


def test_the_pure_python_validator_is_loaded_only_for_a_failing_record():
    """A valid record is decided by jsonschema-rs alone: the jsonschema package (a quarter of a
    `seal` command's start) is imported only when a record fails and its errors are listed."""
    script = (
        "import sys\n"
        "from benchledger.records.schema import validate\n"
        "from tests.store_copies import GSH, seed\n"
        "record = seed(GSH)\n"
        "assert validate(record, GSH, 'r.json') == []\n"
        "print('jsonschema' in sys.modules)\n"
        "del record['tested_at']\n"
        "print([str(p) for p in validate(record, GSH, 'r.json')])\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["False", "[\"r.json: $: 'tested_at' is a required property\"]", "True"]


def test_unknown_schema_id_is_a_problem_not_a_crash():
    (problem,) = validate({}, "nope/1", "r.json")
    assert str(problem) == "r.json: schema 'nope/1': unknown schema id; known: gsh-llm-core-article/1, llama-bench/1, torch-graph-replay/1"


def cpu_only_article():
    """What our collector writes on a machine without a GPU: energy and GPU metrics unavailable."""
    record = seed(GSH)
    record["hardware"].update(gpu=None, gpu_nominal_vram_gb=None, gpu_vram_bytes=None, fan_profile=None)
    record["environment"]["nvidia_driver"] = None
    case = record["cases"][0]
    case["placement"]["buffers"] = [{"device": "CPU", "reported_mib": 12.5}]
    case["settings"]["contexts"] = [128, 256, 512]
    blocks = [case["completed_response_resources"], *case["resources_by_phase"].values(), *(g["resources"] for g in case["groups"])]
    for block in blocks:
        block["gpu_energy"] = {"available": False, "joules": None, "reason": "no_gpu"}
        block["gpu_sample_count"] = 0
        for name in list(block["metrics"]):
            if name.startswith("gpu_"):
                block["metrics"][name] = None
    failed = copy.deepcopy(case)
    failed.update(id="failed-case", status="failed", failure_reason="llama-server exited with status 1 before ready", groups=[])
    for key in ("completed_response_resources", "resources_by_phase", "telemetry", "placement"):
        del failed[key]
    record["cases"] = [case, failed]
    record["status"] = "partial"
    return record


def test_cpu_only_article_with_a_failed_case_validates():
    assert validate(cpu_only_article(), GSH, "cpu.json") == []


def test_unavailable_energy_needs_a_reason_and_no_joules():
    record = cpu_only_article()
    record["cases"][0]["completed_response_resources"]["gpu_energy"] = {"available": False, "joules": 0.0, "reason": None}
    lines = [str(p) for p in validate(record, GSH, "cpu.json")]
    assert lines == [
        "cpu.json: $.cases[0].completed_response_resources.gpu_energy.joules: 0.0 is not of type 'null'",
        "cpu.json: $.cases[0].completed_response_resources.gpu_energy.reason: null is not of type 'string'",
    ]


def cpu_only_graph_record():
    record = seed(TGR)
    record.update(schema=TGR, device="cpu", graph_capture_and_replay_executed=False, CPU_fallback=True)
    for m in record["measurements"]:
        m["timing"]["graph"] = None
        m.update(mean_speedup=None, capture_seconds=None, max_absolute_error=None)
        for key in list(m):
            if key.endswith("_bytes"):
                m[key] = None
    del record["measurements"][0]["timing"]["graph"]
    return record


def test_cpu_only_graph_record_validates_with_and_without_schema_field():
    record = cpu_only_graph_record()
    assert validate(record, TGR, "cpu.json") == []
    del record["schema"]
    assert validate(record, TGR, "cpu.json") == []


def test_graph_record_claiming_replay_needs_graph_timing():
    record = cpu_only_graph_record()
    record["graph_capture_and_replay_executed"] = True
    lines = [str(p) for p in validate(record, TGR, "g.json")]
    assert "g.json: $.measurements[0].timing: 'graph' is a required property" in lines
    assert "g.json: $.measurements[1].mean_speedup: null is not of type 'number'" in lines


def test_wrong_schema_field_is_rejected():
    record = seed(TGR)
    record["schema"] = "torch-graph-replay/2"
    assert [str(p) for p in validate(record, TGR, "g.json")] == ["g.json: $.schema: 'torch-graph-replay/1' was expected"]


# Values on both sides of every edge of the two number ranges the fast validator is given.
_EDGES = [0, 1, -1, 2**53, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**308, 10**309, -(10**309), 10**400,
          1.7976931348623157e308, -1.7976931348623157e308, 9.3e18, -9.3e18, 0.5, 5e-324]


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.sampled_from(_EDGES), st.integers(), st.integers(-(10**320), 10**320),
                       st.floats(allow_nan=False, allow_infinity=False)),
       kind=st.sampled_from(["number", "integer", ["number", "null"]]),
       stated=st.sampled_from([{}, {"minimum": 0}, {"maximum": 10}, {"exclusiveMaximum": 2**70}]))
def test_the_fast_validator_bounds_numbers_exactly_as_the_detailed_one(value, kind, stated):
    """The pass/fail validator states the `number` bound in two ranges (the slow exact path of
    jsonschema-rs is only reached by values outside 64 bits); it must admit exactly what the
    plainly bounded schema admits."""
    document = {"type": "object", "properties": {"v": {"type": kind, **stated}}}
    plain = jsonschema.Draft202012Validator(with_number_bounds(copy.deepcopy(document)))
    fast = jsonschema_rs.Draft202012Validator(with_number_bounds(copy.deepcopy(document), fast=True))
    assert fast.is_valid({"v": value}) == plain.is_valid({"v": value})


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.sampled_from([v for v in _EDGES if isinstance(v, float) or -(2**63) <= v < 2**64]),
                       st.integers(-(2**63), 2**64 - 1), st.floats(allow_nan=False, allow_infinity=False)),
       kind=st.sampled_from(["number", "integer", ["number", "null"]]),
       stated=st.sampled_from([{}, {"minimum": 0}, {"maximum": 10}, {"exclusiveMaximum": 2**70}]))
def test_without_number_bounds_the_validator_decides_64_bit_integers_and_finite_floats_as_with_them(value, kind, stated):
    """`validate(..., integers_fit_64_bits=True)` uses a validator without the `number` bounds:
    on what orjson can give (64-bit integers, finite floats) it must decide as the bounded one."""
    document = {"type": "object", "properties": {"v": {"type": kind, **stated}}}
    plain = jsonschema.Draft202012Validator(with_number_bounds(copy.deepcopy(document)))
    unbounded = jsonschema_rs.Draft202012Validator(with_number_bounds(copy.deepcopy(document), number_bounds=False))
    assert unbounded.is_valid({"v": value}) == plain.is_valid({"v": value})


def test_the_integer_bounds_hold_for_data_whose_integers_fit_64_bits():
    record = seed(TGR)
    record["measurements"][0]["tokens"] = 2**53 + 1
    for fits in (False, True):
        lines = [str(p) for p in validate(record, TGR, "g.json", integers_fit_64_bits=fits)]
        assert lines == ["g.json: $.measurements[0].tokens: 9007199254740993 is greater than the maximum 9007199254740992 "
                         "(integers lie within ±2^53)"], lines
