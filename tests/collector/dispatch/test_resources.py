"""What a case asks Ray for, and the check that a live node can give it."""

import pytest

from collector.dispatch.resources import case_needs, node_label, unmet
from collector.plan_loader import load_plan

PLAN = """
article_key = "t"
module = "phase_workload"
[settings]
contexts = [20]
output_tokens = 4
[models.blob]
files = ["m.bin"]
[[cases]]
id = "plain"
model = "blob"
[[cases]]
id = "alone"
model = "blob"
dispatch = { host_exclusive = true, gpus = 2, cpus = 4 }
[[cases]]
id = "pinned"
model = "blob"
dispatch = { host = "node-b", gpus = 0 }
"""


@pytest.fixture
def cases(tmp_path):
    (tmp_path / "m.bin").write_bytes(b"x")
    (tmp_path / "p.toml").write_text(PLAN)
    return {c.id: c for c in load_plan(tmp_path / "p.toml").cases}


def node(alive=True, **resources):
    return {"Alive": alive, "Resources": resources}


def test_exclusive_cases_take_a_whole_host_and_every_other_case_a_share(cases):
    assert case_needs(cases["plain"], True).as_dict() == {"CPU": 1.0, "GPU": 1.0, "benchledger_host": 0.001}
    assert case_needs(cases["alone"], True).as_dict() == {"CPU": 4.0, "GPU": 2.0, "benchledger_host": 1.0}
    assert case_needs(cases["pinned"], False).as_dict() == {"CPU": 1.0, "host:node-b": 0.001}
    assert case_needs(cases["plain"], False).options() == {"num_gpus": 1, "num_cpus": 1.0, "resources": {}}


def test_a_case_no_live_node_can_take_is_named_with_the_reason(cases):
    nodes = [node(CPU=8, GPU=1, **{"host:node-a": 1, "benchledger_host": 1}), node(False, CPU=8, GPU=1, **{"host:node-b": 1})]
    assert unmet(case_needs(cases["plain"], True), nodes, None) is None
    assert unmet(case_needs(cases["pinned"], False), nodes, "node-b").startswith("host unavailable: no live node of the cluster has resource host:node-b")
    why = unmet(case_needs(cases["alone"], True), nodes, None)
    assert why.startswith("no live node of the cluster offers CPU 4, GPU 2, benchledger_host 1") and "ray start" in why
    assert node_label({"CPU": 1, "host:node-a": 1}) == "node-a" and node_label({"CPU": 1}) is None
