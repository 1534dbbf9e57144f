"""`benchledger check`: the issue's series sealed into a real store (the shipped records plus
eight LLM records along runtime releases): one regression reported with the records that show
it, exit 1 with --fail-on regression; the same series without the drop: none, exit 0;
--since limits the report to changes involving newer records; --json for scripts."""

import json
import os
from pathlib import Path

import pytest

from benchledger.records.store import Store
from tests.history import llm_history

GOLDEN = Path(__file__).parent / "golden" / "check-drop.txt"


@pytest.fixture
def store_dir(tmp_path) -> Path:
    """An empty store: the eight records are the whole history (the shipped LLM seed would join
    the series as a ninth record at b11146)."""
    path = tmp_path / "records"
    path.mkdir()
    return path


def _seal_history(records: Path, history: list[dict]) -> list[str]:
    """Seal the records as history/<release>.json; returns the ledger heads after each seal."""
    store = Store(records)
    heads = []
    for data in history:
        raw = json.dumps(data, indent=1).encode()
        store.seal_bytes(raw, "gsh-llm-core-article/1", f"history/{data['runtime']['release']}.json")
        heads.append(store.head_sha256())
    return heads


def test_a_drop_from_the_sixth_record_is_one_regression_and_fails_the_gate(store_dir, cli):
    records = store_dir
    _seal_history(records, llm_history(8, drop_from=6))
    result = cli("check", "--records", "records")
    assert (result.code, result.err) == (0, [])  # without --fail-on, a report only
    lines = result.out.splitlines()
    assert lines[-1] == "1 change(s) in 3 series (1 regression(s))"
    assert lines[0] == "REGRESSION: Qwen2.5-72B-Instruct Q4_K_M, GPU layers 81: LLM server along runtime release"
    assert lines[2].startswith("  from runtime_release b11151: records/history/b11151.json (")
    claims = [line for line in lines if line.startswith("  server decode")]
    assert len(claims) == 2 and all(": changed (worse)" in line for line in claims)
    golden = result.out
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(golden)
    assert golden == GOLDEN.read_text()
    gate = cli("check", "--records", "records", "--fail-on", "regression")
    assert (gate.code, gate.out) == (1, result.out)


def test_without_the_drop_nothing_is_reported_and_the_gate_passes(store_dir, cli):
    records = store_dir
    _seal_history(records, llm_history(8))
    result = cli("check", "--records", "records", "--fail-on", "regression")
    assert (result.code, result.err) == (0, [])
    assert result.out == "0 change(s) in 3 series (0 regression(s))\n"


def test_the_shipped_store_has_no_series(records, cli):
    result = cli("check", "--records", "records", "--fail-on", "regression")
    assert result.code == 0
    assert result.out == "no series: no two records of one kind differ only along an ordered field\n"


def test_since_reports_only_changes_involving_newer_records(store_dir, cli):
    records = store_dir
    heads = _seal_history(records, llm_history(8, drop_from=6))
    latest = cli("check", "--records", "records", "--since", heads[-1], "--fail-on", "regression")
    assert latest.code == 0 and latest.out.startswith("0 change(s) involving records sealed after")
    before_last = cli("check", "--records", "records", "--since", heads[-2][:12], "--fail-on", "regression")
    assert before_last.code == 1 and "1 change(s) involving records sealed after" in before_last.out
    # the head verify prints for an empty ledger: every record is newer
    from_start = cli("check", "--records", "records", "--since", "0" * 64, "--fail-on", "regression")
    assert from_start.code == 1 and "1 change(s) involving records sealed after" in from_start.out


def test_json_names_every_record_pointer_statistic_and_parameter(store_dir, cli):
    records = store_dir
    _seal_history(records, llm_history(8, drop_from=6))
    result = cli("check", "--records", "records", "--json")
    out = json.loads(result.out)
    assert out["regressions"] == 1 and out["series"] == 3
    [change] = out["changes"]
    assert change["at"]["path"] == "history/b11151.json" and change["along"] == "runtime_release"
    store = Store(records)
    for claim in change["claims"]:
        assert claim["verdict"] == "changed" and claim["regression"] is True
        assert claim["algorithm"]["name"] == "e-divisive" and claim["algorithm"]["parameters"]["min_segment_records"] == 2
        assert claim["statistic"]["method"] == "welch-records"
        assert [r["path"] for r in claim["before"]] == [f"history/b{11146 + i}.json" for i in range(5)]
        assert [r["path"] for r in claim["after"]] == [f"history/b{11151 + i}.json" for i in range(3)]
        for side in claim["before"] + claim["after"]:
            assert store.find(side["sha256"]).path == side["path"]
            assert side["value_pointer"].endswith("/server_decode_tokens_per_second/median")
            assert side["samples_pointer"].endswith("/requests")
        low, high = claim["interval"]
        assert low <= claim["ratio"] <= high < 1 - claim["delta"]


@pytest.mark.parametrize("since, message", [
    ("nothex", "--since needs a ledger head hash"),
    ("ab" * 32, "no entry of records/ledger.jsonl has this hash"),
])
def test_a_bad_since_is_one_clear_error(records, cli, since, message):  # the shipped copy
    result = cli("check", "--records", "records", "--since", since)
    assert result.code != 0 and result.out == ""
    assert len(result.err) == 1 and message in result.err[0] and "Traceback" not in result.err[0]


def test_three_summary_only_records_say_what_n_allows(store_dir, cli):
    records = store_dir
    _seal_history(records, llm_history(3, drop_from=3, raw=False))
    result = cli("check", "--records", "records", "--fail-on", "regression")
    assert result.code == 1
    claims = [line for line in result.out.splitlines() if line.startswith("  server decode")]
    assert len(claims) == 2
    for line in claims:
        # no interval from summaries; the exact rank p of disjoint ranges, controlled over the page
        assert "(no interval: ranges only)" in line and "rank-summary, neighbour-pairs" in line
        assert "p 0.048 (BH over 12)" in line
