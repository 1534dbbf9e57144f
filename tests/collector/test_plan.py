"""Plans are validated completely before anything runs; every problem names the file, the key
and what is expected."""

import pytest

from benchledger.errors import InputError, PlanError
from collector.plan_loader import load_plan

GOOD = """
article_key = "llm-cpu-offload"
module = "phase_workload"
timezone = "Europe/Warsaw"
limitations = ["One machine."]
[settings]
contexts = [20, 40]
output_tokens = 8
measured_rounds = 2
host_sample_hz = 5
[models.blob]
files = ["m.bin"]
name = "blob"
[[cases]]
id = "a"
model = "blob"
options = { alloc_mib = 32 }
[cases.settings]
measured_rounds = 4
[[cases]]
id = "b"
model = "blob"
[[comparisons]]
axis = "alloc_mib"
cases = ["a", "b"]
"""
# the same plan for llama_server, whose module keys (threads) and placement pass through
LLAMA = (GOOD.replace('module = "phase_workload"', 'module = "llama_server"').replace("host_sample_hz = 5\n", "host_sample_hz = 5\nthreads = 4\n")
         .replace("options = { alloc_mib = 32 }\n", "placement = { gpu_layers = 10 }\n").replace("measured_rounds = 4\n", "measured_rounds = 4\nthreads = 8\n")
         .replace('axis = "alloc_mib"', 'axis = "threads"'))


def refused(tmp_path, text) -> str:
    """Every line of the PlanError the plan `text` raises, as one text."""
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, text))
    return "\n".join(err.value.lines())


def write(tmp_path, text, name="plan.toml"):
    (tmp_path / "m.bin").write_bytes(b"x")
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_good_plan_with_case_overrides(tmp_path):
    plan = load_plan(write(tmp_path, GOOD))
    a, b = plan.cases
    assert plan.article_key == "llm-cpu-offload" and plan.timezone == "Europe/Warsaw" and len(plan.sha256) == 64
    assert a.settings.measured_rounds == 4 and b.settings.measured_rounds == 2
    assert a.settings.extra == {} and a.options == {"alloc_mib": 32} and b.options == {}
    assert a.settings.host_sample_hz == 5.0 and a.settings.warmup_rounds == 1  # default
    assert a.placement == {} and a.model.files == ((tmp_path / "m.bin").resolve(),)
    assert plan.comparisons[0].cases == ("a", "b")
    llama = load_plan(write(tmp_path, LLAMA, "llama.toml"))
    a, b = llama.cases
    assert a.settings.extra == {"threads": 8} and b.settings.extra == {"threads": 4}
    assert a.placement == {"gpu_layers": 10} and b.placement == {}
    assert a.settings.as_dict()["contexts"] == [20, 40] and a.settings.as_dict()["threads"] == 8


def test_phase_workload_refuses_what_it_would_leave_out_of_its_run(tmp_path):
    """Another module's setting or a placement in a phase_workload plan was silently dropped: the
    record said gpu_layers 0 and carried no threads while the plan compared along them."""
    text = LLAMA.replace('module = "llama_server"', 'module = "phase_workload"')
    f = str(tmp_path / "plan.toml")
    assert refused(tmp_path, text).splitlines() == [
        f"{f}: $.cases[0].settings.threads: not a phase_workload setting (it takes only the core settings; "
        "its own keys are [cases.options]: alloc_mib, write_bytes, ready_seconds, fail_phase)",
        f"{f}: $.cases[0].placement: phase_workload runs on the CPU only and takes no placement; remove it",
        f"{f}: $.settings.threads: not a phase_workload setting (it takes only the core settings; "
        "its own keys are [cases.options]: alloc_mib, write_bytes, ready_seconds, fail_phase)",
        f"{f}: 3 problem(s) in plan; nothing was run",
    ]


def test_every_problem_is_reported_at_once(tmp_path):
    bad = """
article_key = "Bad Key"
module = "phase_workload"
colour = "blue"
[settings]
contexts = [20, -1]
host_sample_hz = 0
pss_mode = "sometimes"
[models.blob]
files = ["missing.bin"]
[[cases]]
id = "a"
model = "nope"
placement = 3
[[cases]]
id = "a"
extra = 1
[cases.settings]
measured_rounds = "five"
[[comparisons]]
axis = "threads"
cases = ["a", "zzz"]
"""
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, bad))
    lines = err.value.lines()
    f = str(tmp_path / "plan.toml")
    expected = [
        f"{f}: $.colour: unknown key",
        f"{f}: $.article_key: expected a lowercase key",
        f"{f}: $.settings.contexts: expected a list of at most 256 distinct positive integers <= 1048576, got [20, -1]",
        f"{f}: $.settings.host_sample_hz: expected a number > 0 and <= 1000, got 0",
        f"{f}: $.settings.pss_mode: expected 'every_sample' or 'boundaries'",
        f"{f}: $.models.blob.files[0]: expected an existing file",
        f"{f}: $.cases[0].model: expected the id of a [models.ID] table; known: blob",
        f"{f}: $.cases[0].placement: expected a table",
        f"{f}: $.cases[1].extra: unknown key",
        f"{f}: $.cases[1].id: duplicate case id 'a'",
        f"{f}: $.cases[1].settings.measured_rounds: expected a positive integer <= 10000, got 'five'",
        f"{f}: $.comparisons[0].cases[1]: no case has id 'zzz'",
        # the module's own problems come in the same round, where the value is (not) written...
        f"{f}: $.settings.output_tokens: expected a positive integer",
        f"{f}: $.cases[1].model: expected a model id",
    ]
    for want in expected:
        assert any(line.startswith(want) for line in lines), (want, lines)
    # ...once, and not again for places already reported (case 0's model, the plan-wide contexts).
    assert sum("$.cases[0].model:" in line for line in lines) == 1
    assert sum("output_tokens" in line for line in lines) == 1
    assert not any(".settings.contexts: expected at least one" in line for line in lines)
    assert lines[-1].endswith("14 problem(s) in plan; nothing was run")


def test_a_module_problem_is_reported_where_the_value_is_written(tmp_path):
    """A bad plan-wide module setting is one problem at $.settings, not one per case; a case's
    own override is reported at the case."""
    text = GOOD.replace("output_tokens = 8\n", "").replace(
        '[[cases]]\nid = "b"', '[[cases]]\nid = "b"\nsettings = { output_tokens = 0 }')
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, text))
    f = str(tmp_path / "plan.toml")
    assert err.value.lines() == [
        f"{f}: $.cases[1].settings.output_tokens: expected a positive integer <= 1048576, got 0",
        f"{f}: $.settings.output_tokens: expected a positive integer",
        f"{f}: 2 problem(s) in plan; nothing was run",
    ]
    # A module-specific key (llama_server's threads) with three cases: one problem, not three.
    llama = LLAMA.replace("threads = 4", 'threads = "four"')
    llama = llama.replace("threads = 8\n", "").replace("[[comparisons]]", '[[cases]]\nid = "c"\nmodel = "blob"\n[[comparisons]]')
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, llama))
    assert [line for line in err.value.lines() if "threads" in line] == [
        f"{f}: $.settings.threads: expected a positive integer, got 'four'"]


def test_module_problems_come_from_the_module(tmp_path):
    text = GOOD.replace('[[cases]]\nid = "b"', '[[cases]]\nid = "b"\noptions = { alloc_mib = -1, colour = 1 }')
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, text))
    lines = err.value.lines()
    assert any(line.endswith("$.cases[1].options.alloc_mib: expected an integer 0..4096, got -1") for line in lines)
    assert any("$.cases[1].options.colour: unknown option" in line for line in lines)


def test_unknown_module(tmp_path):
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, GOOD.replace('module = "phase_workload"', 'module = "no_such"')))
    assert "$.module: unknown module 'no_such'; expected one of" in str(err.value)


def test_schema_pins_the_record_format_the_module_writes(tmp_path):
    plan = load_plan(write(tmp_path, 'schema = "gsh-llm-core-article/1"\n' + GOOD))
    assert plan.schema == "gsh-llm-core-article/1"
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, 'schema = "torch-graph-replay/1"\n' + GOOD))
    assert err.value.lines()[0].endswith(
        "$.schema: module 'phase_workload' writes 'gsh-llm-core-article/1' records, not "
        "'torch-graph-replay/1'; change the schema or the module")
    with pytest.raises(PlanError, match=r"\$\.schema: expected a schema id"):
        load_plan(write(tmp_path, "schema = 1\n" + GOOD))


def test_toml_syntax_error_names_the_line(tmp_path):
    with pytest.raises(InputError) as err:
        load_plan(write(tmp_path, 'article_key = "x"\nmodule = \n'))
    assert err.value.problems[0].line == 2 and "not valid TOML" in str(err.value)
    with pytest.raises(InputError, match="absent.toml: no such file"):
        load_plan(tmp_path / "absent.toml")


def test_dispatch_needs_default_to_a_whole_gpu_and_cases_override_the_plan(tmp_path):
    text = GOOD.replace('[[cases]]\nid = "a"', '[dispatch]\nsystem_retries = 1\ntimeout_s = 600\n[[cases]]\nid = "a"\ndispatch = { host = "node-b", host_exclusive = true, gpus = 0 }', 1)
    plan = load_plan(write(tmp_path, text))
    a, b = plan.cases
    assert (a.dispatch.host, a.dispatch.host_exclusive, a.dispatch.gpus, a.dispatch.timeout_s, a.dispatch.system_retries) == ("node-b", True, 0, 600.0, 1)
    assert (b.dispatch.host, b.dispatch.host_exclusive, b.dispatch.gpus, b.dispatch.cpus, b.dispatch.system_retries) == (None, False, 1, 1.0, 1)
    default = load_plan(write(tmp_path, GOOD, "plain.toml")).cases[0].dispatch
    assert (default.gpus, default.timeout_s, default.system_retries) == (1, None, 2)


def test_every_dispatch_problem_is_reported_at_once(tmp_path):
    text = GOOD.replace('[[cases]]\nid = "a"', '[dispatch]\ngpus = 0.5\nsystem_retries = -1\nwhere = "x"\n[[cases]]\nid = "a"\ndispatch = { host = "Node B", timeout_s = 0, host_exclusive = "yes" }', 1)
    text = text.replace('[[cases]]\nid = "b"', '[[cases]]\nid = "b"\ndispatch = "node-a"')
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, text))
    found = {p.path: p.message for p in err.value.problems}
    assert set(found) == {"$.dispatch.gpus", "$.dispatch.system_retries", "$.dispatch.where", "$.cases[0].dispatch.host",
                          "$.cases[0].dispatch.timeout_s", "$.cases[0].dispatch.host_exclusive", "$.cases[1].dispatch"}
    assert "fractions would share a GPU" in found["$.dispatch.gpus"] and "unknown key" in found["$.dispatch.where"]
    assert all(str(p).startswith(str(tmp_path / "plan.toml") + ": $.") for p in err.value.problems)


@pytest.mark.parametrize("kind, said", [("folder", "is a folder"), ("device", "is not a regular file"), ("missing", "does not exist")])
def test_a_model_path_says_what_it_is_when_it_is_not_a_file(tmp_path, kind, said):
    """Issue 11, class 10: a folder or a device given as a model file was reported as missing."""
    target = {"folder": str(tmp_path), "device": "/dev/null", "missing": str(tmp_path / "nope.bin")}[kind]
    text = f'article_key = "x"\nmodule = "phase_workload"\n[models.m]\nfiles = ["{target}"]\n[[cases]]\nid = "a"\nmodel = "m"\n'
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, text))
    assert any("$.models.m.files[0]: expected an existing file" in line and said in line for line in err.value.lines()), err.value.lines()


def test_a_deeply_nested_plan_is_an_error_not_a_recursion_traceback(tmp_path):
    """Issue 11, class 9: tomllib recurses per nesting level; 100,000 levels raised RecursionError."""
    text = 'article_key = "x"\nmodule = "phase_workload"\ndeep = ' + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(InputError) as err:
        load_plan(write(tmp_path, text))
    assert "nest too deeply" in err.value.lines()[0]


def test_plan_numbers_have_upper_bounds(tmp_path):
    """Issue 11, class 9: `measured_rounds = 9223372036854775807` was accepted and ran for ever."""
    text = refused(tmp_path, 'article_key = "x"\nmodule = "phase_workload"\n[settings]\nmeasured_rounds = 9223372036854775807\n'
                             'contexts = [20, 2000000]\nseed = 18446744073709551615\n')
    assert "$.settings.measured_rounds: expected a positive integer <= 10000, got 9223372036854775807" in text
    assert "$.settings.contexts: expected a list of at most 256 distinct positive integers <= 1048576" in text
    assert "$.settings.seed: expected an integer within ±2^53" in text


def test_module_numbers_that_set_how_long_a_case_runs_have_upper_bounds_too(tmp_path):
    """Issue 11, class 9, beyond the core keys: timeouts (the dry run's "at most" adds them up),
    graph_replay's repetitions and lengths, and the number of contexts a case lists."""
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    llama = ('article_key = "x"\nmodule = "llama_server"\n[settings]\ncontexts = [64]\noutput_tokens = 8\n'
             'request_timeout_s = 1e308\nload_timeout_s = 86401\n[models.m]\nfiles = ["m.gguf"]\n[[cases]]\nid = "a"\nmodel = "m"\n')
    text = refused(tmp_path, llama)
    assert "$.settings.request_timeout_s: expected a number of seconds > 0 and <= 86400, got 1e+308" in text
    assert "$.settings.load_timeout_s: expected a number of seconds > 0 and <= 86400, got 86401" in text
    replay = ('article_key = "x"\nmodule = "graph_replay"\n[settings]\nshort_repetitions = 9223372036854775807\n'
              f'synthetic_tokens = {list(range(1, 258))}\nvocab_size = 4294967296\n[[cases]]\nid = "a"\n')
    text = refused(tmp_path, replay)
    assert "$.settings.short_repetitions: expected a positive integer <= 10000, got 9223372036854775807" in text
    assert "$.settings.synthetic_tokens: expected a list of at most 256 positive token counts <= 1048576" in text
    assert "$.settings.vocab_size: expected a positive integer <= 2147483647, got 4294967296" in text
    many = 'article_key = "x"\nmodule = "phase_workload"\n[settings]\n' + f"contexts = {list(range(1, 258))}\n"
    assert "$.settings.contexts: expected a list of at most 256 distinct positive integers" in refused(tmp_path, many)


def test_a_model_path_the_system_cannot_hold_and_a_case_compared_with_itself_are_plan_errors(tmp_path):
    """Issue 11, keep going: a NUL or an over-long name in a model path was a ValueError/OSError
    traceback; `cases = ["a", "a"]` was a comparison of a case with itself."""
    text = ('article_key = "x"\nmodule = "phase_workload"\n[settings]\ncontexts = [20]\noutput_tokens = 4\n'
            '[models.m]\nfiles = ["m\\u0000.bin", "' + "a" * 5000 + '"]\n[[cases]]\nid = "a"\nmodel = "m"\n'
            '[[comparisons]]\naxis = "alloc_mib"\ncases = ["a", "a"]\n')
    with pytest.raises(PlanError) as err:
        load_plan(write(tmp_path, text))
    lines = err.value.lines()
    assert any("$.models.m.files[0]: expected a file path; 'm\\x00.bin' cannot be one (embedded null byte)" in line for line in lines), lines
    assert any("$.models.m.files[1]: expected a file path; 'aaaa" in line and "(File name too long)" in line for line in lines), lines
    assert any("$.comparisons[0].cases: expected distinct case ids; 'a' listed twice" in line for line in lines), lines


def test_ids_with_a_trailing_newline_are_refused(tmp_path):
    """`$` also matches before a final newline: "demo\\n" passed as an article key, a dry run
    printed it over two lines, and the real run measured every case before the seal refused it."""
    text = (GOOD.replace('article_key = "llm-cpu-offload"', 'article_key = "demo\\n"')
                .replace('id = "a"', 'id = "a\\n"', 1).replace('cases = ["a", "b"]', 'cases = ["a\\n", "b"]'))
    lines = refused(tmp_path, text)
    assert "$.article_key: expected a lowercase key" in lines and "$.cases[0].id:" in lines


@pytest.mark.parametrize("key, named", [("checkpoints", "the folder of the ledger's signed checkpoints"), ("ledger.jsonl", "the ledger")])
def test_an_article_key_naming_the_stores_own_files_is_refused(tmp_path, key, named):
    """`collect --dry-run` passed such a key, and a real run measured every case before the seal
    refused the record's path (`target path 'checkpoints/...' is inside checkpoints/`)."""
    text = GOOD.replace('article_key = "llm-cpu-offload"', f'article_key = "{key}"')
    assert refused(tmp_path, text).splitlines() == [
        f"{tmp_path / 'plan.toml'}: $.article_key: {key!r} names {named} in the records store; choose another key like 'llm-cpu-offload'"]


def test_a_plan_file_name_holding_an_undecodable_byte_is_refused_before_anything_runs(tmp_path):
    """`plans/g\\xffr.toml` loaded, every case ran, and the record (which names its plan file)
    then failed with "record contains a non-finite number (... can't encode character '\\udcff')"."""
    import os

    from collector.record import UNDECODABLE

    name = os.fsdecode(b"g\xffr.toml")
    write(tmp_path, GOOD, name)
    with pytest.raises(PlanError) as err:
        load_plan(tmp_path / name)
    assert err.value.lines() == [f"{tmp_path / name}: the plan's file name is not valid Unicode: {UNDECODABLE}"]


@pytest.mark.parametrize("zone", ["Nope/Zone", "America", "Europe/", "../etc", "x" * 300])
def test_a_time_zone_that_is_not_one_is_named(tmp_path, zone):
    """Each way zoneinfo refuses a name (not found, a folder, not a key, too long) is the plan's
    problem, not a crash of the loader."""
    text = GOOD.replace('timezone = "Europe/Warsaw"', f'timezone = "{zone}"')
    assert f"$.timezone: unknown time zone {zone!r}; expected an IANA name such as 'Europe/Warsaw'" in refused(tmp_path, text)
