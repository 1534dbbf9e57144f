"""Variant records made from the seeds, consistent with benchledger/records/checks.py: the same
benchmark on another GPU, in another profile, with a later runtime release. Numbers are scaled
where no check ties them to others (every statistic of a summary by one factor keeps its
order; a speedup is recomputed from its means)."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.store_copies import GSH, TGR, seed

H200 = "NVIDIA H200"


def _scale_summary(summary: dict, factor: float) -> None:
    for key in ("minimum", "median", "mean", "maximum"):
        if isinstance(summary.get(key), (int, float)):
            summary[key] *= factor


def llm_variant(*, gpu: str | None = None, release: str | None = None, commit: str | None = None,
                decode_factor: float = 1.0, first_token_factor: float = 1.0, tested_at: str | None = None,
                data: dict | None = None) -> dict:
    """The LLM seed (or `data`) with another GPU and/or runtime release; decode speeds scaled by
    `decode_factor`, first-token times by `first_token_factor` (both keep min <= median <= max)."""
    data = copy.deepcopy(data) if data is not None else seed(GSH)
    if gpu is not None:
        data["hardware"]["gpu"] = gpu
    if release is not None:
        data["runtime"]["release"] = release
        data["runtime"]["commit"] = commit or (release.encode().hex() * 10)[:40]
    if tested_at is not None:
        data["tested_at"] = tested_at
    for case in data["cases"]:
        for group in case.get("groups", []):
            _scale_summary(group["server_decode_tokens_per_second"], decode_factor)
            _scale_summary(group["synthetic_first_token_seconds"], first_token_factor)
    return data


def graph_variant(*, device: str | None = None, profile: str | None = None, eager_factor: float = 1.0,
                  graph_factor: float = 1.0, finished_offset_s: float = 0.0) -> dict:
    """The graph-replay seed on another device and/or profile, eager and graph timings scaled
    (mean, median and p95 together) and every speedup recomputed from the means."""
    data = seed(TGR)
    if device is not None:
        data["device"] = device
    if profile is not None:
        data["profile"] = profile
    data["finished_epoch"] += finished_offset_s
    for m in data["measurements"]:
        for path, factor in (("eager", eager_factor), ("graph", graph_factor)):
            timing = m["timing"][path]
            for key in ("mean_ms", "median_ms", "p95_ms"):
                timing[key] *= factor
        m["mean_speedup"] = m["timing"]["eager"]["mean_ms"] / m["timing"]["graph"]["mean_ms"]
    return data


def encoded(data: Any) -> bytes:
    return json.dumps(data, indent=1).encode()
