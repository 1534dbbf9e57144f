"""Resuming after a fix: a case that failed because its llama-server binary was missing runs
again on the next plain `benchledger collect` (no --fresh), the completed case is kept with its
measurements, and a run whose cases all completed is sealed once."""

import json

import pytest

from benchledger.cli.main import main
from benchledger.records.store import Store

pytestmark = pytest.mark.llama

PLAN = """\
article_key = "llm-tiny-resume"
module = "llama_server"

[settings]
contexts = [64]
output_tokens = 8
warmup_rounds = 1
measured_rounds = 2
baseline_seconds = 0.1
ready_seconds = 0.1
threads = 1

[models.tiny]
files = ["{model}"]

[[cases]]
id = "pinned"
model = "tiny"
settings = {{ binary = "{binary}" }}

[[cases]]
id = "from-env"
model = "tiny"
"""


def test_a_failed_case_runs_again_on_resume_and_the_completed_one_is_kept(tmp_path, llama_server_binary, tiny_model, monkeypatch, capsys):
    records, runs = tmp_path / "records", tmp_path / "runs"
    records.mkdir()
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.format(model=tiny_model, binary=llama_server_binary))
    collect = ["collect", str(plan), "--records", str(records), "--runs", str(runs)]

    monkeypatch.setenv("LLAMA_SERVER", str(tmp_path / "missing" / "llama-server"))
    assert main(collect) == 0
    first = Store(records).entries()[-1]
    assert f"sealed {first.path} sha256 {first.sha256} (1 completed, 1 failed (from-env)); " in capsys.readouterr().out
    partial = json.loads((records / first.path).read_bytes())
    assert [c["status"] for c in partial["cases"]] == ["completed", "failed"]
    assert "$LLAMA_SERVER is not an executable file" in partial["cases"][1]["failure_reason"]

    assert main([*collect, "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert "  case pinned: completed, kept;" in dry and "  case from-env: failed earlier, would run again;" in dry

    monkeypatch.setenv("LLAMA_SERVER", str(llama_server_binary))  # the fix
    assert main(collect) == 0
    out, err = capsys.readouterr()
    second = Store(records).entries()[-1]
    assert second.path != first.path
    assert f"sealed {second.path} sha256 {second.sha256} (2 completed, 0 failed); " in out
    assert "case pinned: completed (kept from an earlier run)" in err
    assert "case from-env: failed in an earlier run; running it again" in err and "case from-env: completed" in err
    complete = json.loads((records / second.path).read_bytes())
    assert complete["status"] == "completed"
    assert complete["cases"][0] == partial["cases"][0]  # the same measurements, not a new run

    assert main(collect) == 0  # nothing failed: the same record, sealed once
    assert capsys.readouterr().out.startswith(f"already sealed {second.path} sha256 {second.sha256} (2 completed, 0 failed)")
    assert Store(records).entries()[-1] == second and Store(records).verify().ok
