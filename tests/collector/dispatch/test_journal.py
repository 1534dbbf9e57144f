"""The dispatch journal: durable lines keyed by (plan sha256, case, attempt), folded into
attempts; a line torn by kill -9 is cut off, lines of other plans are ignored."""

import json

from collector.dispatch.journal import Journal

PLAN = "a" * 64


def test_events_fold_into_numbered_attempts_and_in_flight_ones_are_found(tmp_path):
    path = tmp_path / "dispatch.jsonl"
    j = Journal(path, PLAN)
    j.append("x", 1, "submitted")
    j.append("x", 1, "started", started_at="2026-12-01T10:00:00+00:00", hostname="h1", label="node-a", ray_node_id="n1")
    j.append("x", 1, "system_failure", reason="NodeDiedError: gone.")
    j.append("x", 2, "submitted")
    j.append("x", 2, "started", hostname="h2", label="node-b", ray_node_id="n2")
    again = Journal(path, PLAN)  # what a restarted driver reads
    attempts = again.attempts("x")
    assert [(a.number, a.outcome) for a in attempts] == [(1, "system_failure"), (2, None)]
    assert attempts[0].started_at == "2026-12-01T10:00:00+00:00" and attempts[0].reason == "NodeDiedError: gone."
    assert attempts[1].as_record()["host_label"] == "node-b"
    assert [a.number for a in again.in_flight("x")] == [2] and again.next_attempt("x") == 3
    assert again.attempts("y") == [] and again.next_attempt("y") == 1


def test_a_torn_last_line_is_cut_off_and_other_plans_are_ignored(tmp_path):
    path = tmp_path / "dispatch.jsonl"
    Journal(path, PLAN).append("x", 1, "submitted")
    Journal(path, "b" * 64).append("x", 7, "submitted")
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"at": "2026-12-01T1')  # the kill came mid-write
    j = Journal(path, PLAN)
    assert path.read_bytes() == whole
    assert j.next_attempt("x") == 2 and [a.number for a in j.in_flight("x")] == [1]
    j.append("x", 2, "submitted")
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_forgotten_attempts_leave_the_record_but_keep_their_numbers(tmp_path):
    j = Journal(tmp_path / "dispatch.jsonl", PLAN)
    j.append("x", 1, "submitted")
    j.append("x", 1, "completed")
    j.append("x", 0, "forgotten")
    assert j.attempts("x") == [] and j.next_attempt("x") == 2
    j.append("x", 2, "submitted")
    j.append("x", 2, "completed")
    j.append("x", 2, "failed")  # a second outcome line does not rewrite the first
    assert [(a.number, a.outcome) for a in j.attempts("x")] == [(2, "completed")]



def test_an_attempt_lost_with_its_driver_says_whether_it_had_started(tmp_path):
    j = Journal(tmp_path / "dispatch.jsonl", PLAN)
    j.append("ran", 1, "submitted")
    j.append("ran", 1, "started", started_at="2026-12-01T10:00:00+00:00", hostname="h1", label="node-a", ray_node_id="n1")
    j.append("waited", 1, "submitted")  # queued for a GPU no node had free
    ran, = j.in_flight("ran")
    waited, = j.in_flight("waited")
    assert "while this attempt ran" in ran.lost_with_driver()
    assert "before this attempt reported its start" in waited.lost_with_driver()
    assert "ran" not in waited.lost_with_driver().split(";")[0]
