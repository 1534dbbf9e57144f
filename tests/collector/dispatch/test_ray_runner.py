"""RayRunner's own reading of a run folder, without a cluster: what the record says of where the
cases ran."""

import json
from pathlib import Path

from collector.dispatch.ray_runner import RayRunner
from collector.plan_loader import load_plan


def test_the_ray_note_of_a_record_without_host_blocks_says_where_it_lacks_them(tmp_path):
    """A graph-replay record collected through Ray said "each case's host block the machine it ran
    on", but such a record has no host block: the node's CPU was recorded nowhere."""
    plan = load_plan(Path(__file__).resolve().parents[3] / "examples" / "graph-replay-cpu.toml")
    runner = RayRunner(plan, tmp_path / "records", tmp_path / "runs", "auto")
    case = plan.cases[0]
    result = {"id": case.id, "status": "completed", "attempts": [{"attempt": 1, "host_label": "node-a", "started_at": "2026-12-05T00:00:00Z"}]}
    runner.result_file(case).parent.mkdir(parents=True)
    runner.result_file(case).write_text(json.dumps(result))
    [note] = [x for x in runner.plan_view().limitations if "through Ray" in x]
    assert note.startswith("Cases ran through Ray on 1 host (node-a); the record's hardware and environment blocks describe the driver's")
    assert "host block" not in note and "holds no block for the machine a case ran on" in note
