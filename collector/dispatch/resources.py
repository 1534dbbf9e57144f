"""What a case asks Ray for, from its plan's [dispatch] table, and whether a live node of the
cluster can give it (Ray itself would leave an infeasible task waiting forever).

Nodes are described by Ray resources they are started with (`ray start --resources`):
`host:<label>` names a node for pinned cases, and `benchledger_host` (1 per node) makes
host-exclusive cases possible: when any case of the plan is host-exclusive, every case asks
for a share of it (an exclusive case for all of it), so an exclusive case never shares a node."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from collector.plan import CaseSpec

HOST_RESOURCE = "benchledger_host"
LABEL_PREFIX = "host:"
SHARE = 0.001  # of HOST_RESOURCE / a label: up to 1,000 non-exclusive cases per node


@dataclass(frozen=True)
class Needs:
    """Ray's scheduling options for one case's task."""

    num_gpus: int
    num_cpus: float
    resources: dict[str, float]

    def options(self) -> dict[str, Any]:
        return {"num_gpus": self.num_gpus, "num_cpus": self.num_cpus, "resources": dict(self.resources)}

    def as_dict(self) -> dict[str, float]:
        """Every resource asked for, as Ray names them (CPU, GPU, custom)."""
        return {"CPU": self.num_cpus, **({"GPU": float(self.num_gpus)} if self.num_gpus else {}), **self.resources}

    def text(self) -> str:
        return ", ".join(f"{k} {v:g}" for k, v in sorted(self.as_dict().items()))


def case_needs(case: CaseSpec, any_exclusive: bool) -> Needs:
    """The resources of one case; `any_exclusive`: some case of the plan is host-exclusive."""
    d = case.dispatch
    resources: dict[str, float] = {}
    if any_exclusive:
        resources[HOST_RESOURCE] = 1.0 if d.host_exclusive else SHARE
    if d.host is not None:
        resources[LABEL_PREFIX + d.host] = SHARE
    return Needs(d.gpus, d.cpus, resources)


def node_label(node_resources: dict[str, float]) -> str | None:
    """A node's host label: the name of its `host:<label>` resource (None without one)."""
    labels = sorted(k[len(LABEL_PREFIX):] for k in node_resources if k.startswith(LABEL_PREFIX))
    return labels[0] if labels else None


def unmet(needs: Needs, nodes: list[dict[str, Any]], pinned: str | None) -> str | None:
    """None when some live node's total resources hold `needs`; else why not, starting with
    "host unavailable" for a pinned case whose node is gone. `nodes` is ray.nodes()."""
    wanted = needs.as_dict()
    alive = [n.get("Resources", {}) for n in nodes if n.get("Alive")]
    if any(all(res.get(k, 0.0) >= v for k, v in wanted.items()) for res in alive):
        return None
    if pinned is not None and not any(LABEL_PREFIX + pinned in res for res in alive):
        return f"host unavailable: no live node of the cluster has resource {LABEL_PREFIX}{pinned}"
    return (f"no live node of the cluster offers {needs.text()}; start nodes with such resources "
            f"(ray start --num-gpus N --resources '{{\"{HOST_RESOURCE}\": 1, \"{LABEL_PREFIX}NAME\": 1}}')")
