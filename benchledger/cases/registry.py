"""Record schema -> its case table (`CaseKind`). A kind listed here joins the comparisons, the
explorer, `benchledger compare` and the series; a kind listed nowhere is simply not compared
(its records still get their articles)."""

from __future__ import annotations

from benchledger.cases import graph_replay, llama_bench, llm_core
from benchledger.cases.base import CaseKind

KINDS: dict[str, CaseKind] = {k.schema: k for k in (llm_core.KIND, graph_replay.KIND, llama_bench.KIND)}


def kind_for(schema: str) -> CaseKind | None:
    """The case table of `schema`, or None when records of that schema are not compared."""
    return KINDS.get(schema)
