"""Empty values on the command line (benchledger/cli/arguments.py): each was read as "not given"
(`--out ""` built into the project's site/, `--as ""` sealed under the file's own name) or, as a
path, as the working folder."""

import pytest

from benchledger.cli.main import main

EMPTY = "is empty (an unset shell variable?): give a value; an option left out takes its default"


@pytest.mark.parametrize("args, named", [
    (["seal", "new.json", "--schema", "torch-graph-replay/1", "--as", ""], "benchledger seal: error: argument --as"),
    (["seal", "new.json", "--schema", "torch-graph-replay/1", "--as="], "benchledger seal: error: argument --as"),
    (["seal", "", "--schema", "torch-graph-replay/1"], "benchledger seal: error: argument FILE"),
    (["build", "--out", ""], "benchledger build: error: argument --out"),
    (["verify", "--records", ""], "benchledger verify: error: argument --records"),
    (["verify", "--site", ""], "benchledger verify: error: argument --site"),
    (["import", "llama-bench", "bench.json", "--limitation", ""], "benchledger import: error: argument --limitation"),
    (["key", "generate", "example.com/x", "--out", ""], "benchledger key generate: error: argument --out"),
    (["collect", ""], "benchledger collect: error: argument plan"),
    (["--project", "", "verify"], "benchledger: error: argument --project"),
    (["verify", "--project", ""], "benchledger verify: error: argument --project"),
])
def test_an_empty_value_is_refused_before_anything_runs(args, named, records, valid, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"{named}: {EMPTY}"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing made or changed
