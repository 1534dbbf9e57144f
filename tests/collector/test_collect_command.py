"""`benchledger collect` as a user meets it: dry run, one case, bad plans, live progress."""

import io
import json
import os
import re
from pathlib import Path

import pytest

from benchledger.cli.main import main
from benchledger.errors import CollectError
from benchledger.records.store import Store
from collector.plan_loader import load_plan
from collector.progress import Progress
from collector.runner import Runner


def test_dry_run_runs_nothing(make_plan, tmp_path, capsys):
    plan = make_plan()
    assert main(["collect", str(plan), "--dry-run", "--records", str(tmp_path / "records"), "--runs", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"plan {plan} (sha256 ") and "article phase-workload-test, module phase_workload" in out[0]
    assert out[1].startswith("  case small: would run; module phase_workload, model blob, placement {}, contexts [20, 40], warmup 1, measured 3")
    # baseline 0.3 s + ready 0.2 s + (20 + 40) ms of work x (1 warmup + 3 measured) rounds = 0.74 s, rounded up
    assert out[2] == "    estimate: at least 0:00:01, typical 0:00:01, no upper bound: the workload child has no time limit"
    assert out[5] == "  comparison alloc_mib: small, large"
    assert out[6] == ("estimated duration of the 2 case(s) that would run, one after another: at least 0:00:02, typical 0:00:02, "
                      "no upper bound: case small: the workload child has no time limit; case large: the workload child has no time limit")
    assert not (tmp_path / "runs").exists()
    # a file where a folder goes: the dry run says so, as the real run would (it said nothing)
    (tmp_path / "afile").write_text("x")
    for option in ("--runs", "--records"):
        args = {"--records": str(tmp_path / "records"), "--runs": str(tmp_path / "runs"), option: str(tmp_path / "afile")}
        assert main(["collect", str(plan), "--dry-run", *[x for pair in args.items() for x in pair]]) == 1
        assert capsys.readouterr().err.strip() == f"benchledger collect: error: {tmp_path / 'afile'}: is not a folder; pass {option} a folder (one is made where none is)"


GOLDEN_DRY_RUN = Path(__file__).parent / "golden" / "dry-run-llama-server.txt"
LLAMA_PLAN = """article_key = "dry-run"
module = "llama_server"
[settings]
contexts = [512, 2048]
output_tokens = 32
warmup_rounds = 1
measured_rounds = 5
baseline_seconds = 2.0
ready_seconds = 3.0
load_timeout_s = 120
request_timeout_s = 60
binary = "/nonexistent/llama-server"
[models.tiny]
files = ["model.gguf"]
[[cases]]
id = "few"
model = "tiny"
[[cases]]
id = "many"
model = "tiny"
[cases.settings]
measured_rounds = 100
[cases.dispatch]
timeout_s = 600
"""


def test_dry_run_estimates_each_case_and_the_plan_from_its_waits_rounds_and_timeouts(tmp_path, capsys):
    """Golden output. By hand, for `few`: at least baseline 2 + 2 contexts x ready 3 = 8 s; at most
    2 + 4 inspections x 30 + load 120 + one health check 2 + ready 2 x 3 + 2 x (tokenize 1 +
    warmup 1 + measured 5) requests x 60 + 2 stops x 10 = 1110 s = 0:18:30; `many` has 2 x 102
    requests: 12510 s = 3:28:30. Under --ray, `many`'s dispatch timeout_s 600 x (1 + 2 system
    retries) = 1800 s bounds it instead."""
    (tmp_path / "model.gguf").write_bytes(b"GGUF")
    plan = tmp_path / "plan.toml"
    plan.write_text(LLAMA_PLAN)
    common = [str(plan), "--dry-run", "--records", str(tmp_path / "records"), "--runs", str(tmp_path / "runs")]
    assert main(["collect", *common]) == 0
    local = capsys.readouterr().out
    assert main(["collect", *common, "--ray", "auto"]) == 0  # a dry run connects to nothing
    ray = capsys.readouterr().out
    got = (local + "--- with --ray\n" + ray).replace(str(tmp_path), "TMP")
    got = re.sub(r"sha256 [0-9a-f]{16}", "sha256 PLAN", got)
    got = re.sub(r"dry-run-[0-9a-f]{16}", "dry-run-PLAN", got)
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        GOLDEN_DRY_RUN.parent.mkdir(exist_ok=True)
        GOLDEN_DRY_RUN.write_text(got)
    assert got == GOLDEN_DRY_RUN.read_text()
    assert "    estimate: at least 0:00:08, at most 0:18:30 (every step to its time limit)" in local.splitlines()
    assert "at least 0:00:16, at most 3:47:00 (every step to its time limit)" in local.splitlines()[-2]
    assert "    estimate: at least 0:00:08, at most 0:30:00 (every step to its time limit)" in ray.splitlines()


def test_one_case_makes_a_record_of_that_case(make_plan, tmp_path, capsys):
    (tmp_path / "records").mkdir()
    plan = make_plan()
    args = ["collect", str(plan), "--case", "large", "--records", str(tmp_path / "records"), "--runs", str(tmp_path / "runs")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("sealed phase-workload-test/") and "(1 completed, 0 failed)" in out
    (entry,) = Store(tmp_path / "records").entries()
    record = json.loads((tmp_path / "records" / entry.path).read_bytes())
    assert [c["id"] for c in record["cases"]] == ["large"] and record["comparisons"] == []
    assert record["sources"][0]["plan_sha256"] == __import__("hashlib").sha256(plan.read_bytes()).hexdigest()


def test_bad_plan_and_missing_store_are_one_line_errors(make_plan, tmp_path, capsys):
    plan = make_plan()
    assert main(["collect", str(plan), "--case", "nope", "--records", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"benchledger collect: error: {plan}: no case with id 'nope'; cases: small, large"
    assert main(["collect", str(plan), "--records", str(tmp_path / "absent"), "--runs", str(tmp_path / "runs")]) == 1
    assert capsys.readouterr().err.strip() == f"benchledger collect: error: {tmp_path / 'absent'}: no such records folder (create it, or pass --records)"
    (tmp_path / "a-file").write_text("")
    assert main(["collect", str(plan), "--records", str(tmp_path), "--runs", str(tmp_path / "a-file")]) == 1
    err = capsys.readouterr().err
    assert err == f"benchledger collect: error: {tmp_path / 'a-file'}: is not a folder; pass --runs a folder (one is made where none is)\n"
    assert not list(tmp_path.glob("ledger*"))
    (tmp_path / "ledger.jsonl").write_text("not a ledger\n")
    assert main(["collect", str(plan), "--records", str(tmp_path), "--runs", str(tmp_path / "runs")]) == 1
    assert capsys.readouterr().err.strip() == f"benchledger collect: error: {tmp_path / 'ledger.jsonl'}:1: not JSON: Expecting value (column 1)"
    assert not (tmp_path / "runs").exists()  # refused before measuring anything
    (tmp_path / "ledger.jsonl").unlink()
    plan.write_text(plan.read_text().replace("measured_rounds = 3", "measured_rounds = 0"))
    assert main(["collect", str(plan), "--records", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip() == f"benchledger collect: error: {plan}: $.settings.measured_rounds: expected a positive integer <= 10000, got 0"


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_progress_plain_lines_and_live_line():
    clock = Clock()
    out = io.StringIO()
    p = Progress(2, stream=out, tty=False, clock=clock)
    p.case("a")
    p.phase("responses")
    clock.t = 10.0
    p.round(1, 4)
    p.case_done("completed")
    lines = out.getvalue().splitlines()
    assert lines[0] == "case 1/2 a phase - elapsed 0m00s eta ?"
    # one of two cases a quarter done after 10 s: 1/8 of the work, so 70 s remain
    assert lines[2] == "case 1/2 a phase responses round 1/4 elapsed 0m10s eta 1m10s"
    assert lines[3] == "case a: completed"

    tty = io.StringIO()
    p = Progress(1, stream=tty, tty=True, clock=clock)
    p.case("b")
    clock.t = 10.05
    p.round(1, 2)  # within 0.1 s of the last draw: not redrawn
    clock.t = 10.5
    p.round(2, 2)
    p.note("kept")
    p.finish()
    text = tty.getvalue()
    assert "\n" not in text.replace("kept\n", "")  # the live line is rewritten in place
    assert "round 1/2" not in text and "\r\x1b[Kcase 1/1 b phase - round 2/2 elapsed 0m00s eta 0m00s" in text
    assert text.endswith("\r\x1b[Kkept\n\r\x1b[K")


def test_a_model_file_gone_before_assembly_is_a_collect_error(make_plan, tmp_path):
    (tmp_path / "records").mkdir()
    plan = load_plan(make_plan(cases={"only": {"alloc_mib": 1}}, contexts=[5], measured_rounds=1, warmup_rounds=0, baseline_seconds=0.0))
    (tmp_path / "model.bin").unlink()  # after the plan was checked, before the run hashes it
    runner = Runner(plan, tmp_path / "records", tmp_path / "runs", progress=Progress(1, stream=io.StringIO()))
    with pytest.raises(CollectError) as err:
        runner.run()
    assert str(err.value) == f"{tmp_path / 'model.bin'}: cannot read it for its sha256 (No such file or directory); restore it and run the plan again (completed cases are kept)"
    assert list((tmp_path / "records").iterdir()) == []


def test_every_case_failing_seals_the_record_and_exits_non_zero(make_plan, tmp_path, capsys):
    """Issue 11, class 9: collect exited 0 when every case failed."""
    (tmp_path / "records").mkdir()
    plan = make_plan(cases={"one": {"alloc_mib": 8, "fail_phase": "load"}})
    args = ["collect", str(plan), "--records", str(tmp_path / "records"), "--runs", str(tmp_path / "runs")]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "(0 completed, 1 failed (one))" in captured.out
    (entry,) = Store(tmp_path / "records").entries()  # the failure is sealed, not lost
    # one line, through the one error handler
    assert captured.err.splitlines()[-1] == (f"benchledger collect: error: every case failed (one); the record says why "
                            f"(`benchledger show {entry.sha256[:12]}`); fix the cause and run the plan again")


def test_model_metadata_a_record_cannot_hold_is_refused_before_anything_runs(make_plan, tmp_path, capsys):
    """A TOML date in [models.ID] ended a collect in a traceback after every case was measured; a
    NaN, a name that is no string or a hash that is none failed the same way at the end, naming
    a record that was never written; and the fixed plan, a new one, measured everything again."""
    plan = make_plan()
    plan.write_text(plan.read_text().replace('name = "random bytes"', "\n".join([
        "name = 5", "released = 1979-05-27", "size = nan", "tokenizer_sha256 = \"not-a-sha\"",
        "params = 1" + "0" * 30, "meta = {at = 07:32:00}"])))
    (tmp_path / "records").mkdir()
    assert main(["collect", str(plan), "--records", str(tmp_path / "records"), "--runs", str(tmp_path / "runs")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[:6] == [
        f"benchledger collect: error: {plan}: $.models.blob.meta.at: a TOML time, which a record (JSON) cannot hold; write it as a string (\"07:32:00\")",
        f"benchledger collect: error: {plan}: $.models.blob.name: 5 is not of type 'string' (the record's models[] entry)",
        f"benchledger collect: error: {plan}: $.models.blob.params: an integer past ±2^53 (31 digits), inexact as a double; write it as a string",
        f"benchledger collect: error: {plan}: $.models.blob.released: a TOML date, which a record (JSON) cannot hold; write it as a string (\"1979-05-27\")",
        f"benchledger collect: error: {plan}: $.models.blob.size: nan is not a finite number; records hold finite numbers",
        f"benchledger collect: error: {plan}: $.models.blob.tokenizer_sha256: 'not-a-sha' is not valid under any of the given schemas (the record's models[] entry)",
    ], err
    assert not (tmp_path / "runs").exists()  # refused before measuring anything


def test_a_model_file_name_with_trailing_spaces_or_a_newline_is_read(make_plan, tmp_path, capsys):
    """The workload child read its commands a line at a time, stripped: a model named "model.bin "
    (or holding a newline) failed with "workload child stopped during 'read'"."""
    plan = make_plan(cases={"only": {"alloc_mib": 8}}, contexts=[50], measured_rounds=2)
    for name in ("model.bin ", "model\nbin"):
        (tmp_path / name).write_bytes(os.urandom(1000))
        plan.write_text(plan.read_text().replace('files = ["model.bin"]', f"files = [{json.dumps(name)}]"))
        records = tmp_path / f"records-{len(name)}-{name.isprintable()}"
        records.mkdir()
        assert main(["collect", str(plan), "--records", str(records), "--runs", str(tmp_path / "runs"), "--fresh"]) == 0, capsys.readouterr()
        assert "completed" in capsys.readouterr().out
        plan.write_text(plan.read_text().replace(f"files = [{json.dumps(name)}]", 'files = ["model.bin"]'))
