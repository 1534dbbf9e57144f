"""Records made from the seeds for history tests (series, change detection, `check`): the seed
with its raw values (per-request figures, per-repetition timings) and variants along a
runtime release, all consistent with benchledger/records/checks.py."""

from __future__ import annotations

import copy
import math
import random
from typing import Iterable

from benchledger.records.summaries import summarize, timing_summary
from tests.store_copies import GSH, TGR, seed


def five_values(stat: dict) -> list[float]:
    """Five values whose minimum, median, mean and maximum are exactly those of `stat` (a seed
    statistic block of sample_count 5), in an arbitrary but fixed order."""
    if stat["sample_count"] != 5:
        raise ValueError("five_values needs a statistic of five samples")
    low, mid, high, mean = stat["minimum"], stat["median"], stat["maximum"], stat["mean"]
    rest = 5 * mean - low - mid - high  # the 2nd and 4th values add up to this
    # the 2nd lies in [low, mid] and the 4th = rest - 2nd in [mid, high]
    second = min(max((low + mid) / 2, low, rest - high), mid, rest - mid)
    fourth = rest - second
    if not (low <= second <= mid <= fourth <= high):
        raise ValueError(f"no five values have this summary: {stat}")
    return [mid, low, fourth, high, second]


def add_requests(data: dict) -> dict:
    """Give every group of an LLM record its per-request figures (`requests`), consistent with
    its statistics: predicted_n = output_tokens, predicted_ms from the decode rate, prompt_ms
    from the first-token time, response_seconds as summarised."""
    for case in data["cases"]:
        out_tokens = case["settings"]["output_tokens"]
        for group in case.get("groups", []):
            response = five_values(group["response_seconds"])
            decode = five_values(group["server_decode_tokens_per_second"])
            first = five_values(group["synthetic_first_token_seconds"])
            requests = []
            for r, d, f in zip(response, decode, first):
                predicted_ms = (out_tokens - 1) / d * 1000
                requests.append({"predicted_ms": predicted_ms, "predicted_n": out_tokens,
                                 "predicted_per_second": out_tokens / predicted_ms * 1000,
                                 "prompt_ms": f * 1000, "prompt_n": group["context_tokens"], "response_seconds": r})
            group["requests"] = requests
            # the summaries recomputed from the requests (equal to the seed's to the last bits)
            group["response_seconds"] = summarize([q["response_seconds"] for q in requests])
            group["server_decode_tokens_per_second"] = summarize(
                [(q["predicted_n"] - 1) / q["predicted_ms"] * 1000 for q in requests])
            group["synthetic_first_token_seconds"] = summarize([q["prompt_ms"] / 1000 for q in requests])
    return data


def scale_requests(group: dict, *, decode: float = 1.0, first_token: float = 1.0) -> None:
    """Scale a group's decode rates and first-token times (requests and summaries together)."""
    for q in group["requests"]:
        q["predicted_ms"] /= decode
        q["predicted_per_second"] = q["predicted_n"] / q["predicted_ms"] * 1000
        q["prompt_ms"] *= first_token
    group["server_decode_tokens_per_second"] = summarize(
        [(q["predicted_n"] - 1) / q["predicted_ms"] * 1000 for q in group["requests"]])
    group["synthetic_first_token_seconds"] = summarize([q["prompt_ms"] / 1000 for q in group["requests"]])


def strip_requests(data: dict) -> dict:
    """The record as an older collector wrote it: summaries only."""
    for case in data["cases"]:
        for group in case.get("groups", []):
            group.pop("requests", None)
    return data


def llm_release(release: str, *, index: int, decode: dict[str, float] | None = None, noise: float = 0.0,
                rng: random.Random | None = None, raw: bool = True) -> dict:
    """The LLM seed at runtime `release` (commit derived from it), tested `index` days after the
    seed, with every case's decode rate and first-token time scaled by a factor drawn uniformly
    within ±`noise` (one per case and context) and case `id`'s decode by `decode[id]` besides."""
    data = add_requests(seed(GSH))
    data["runtime"]["release"] = release
    data["runtime"]["commit"] = (release.encode().hex() * 20)[:40]
    data["tested_at"] = f"2026-{10 + index // 28:02d}-{1 + index % 28:02d}"
    rng = rng or random.Random(index)
    for case in data["cases"]:
        for group in case["groups"]:
            scale_requests(group, decode=(1 + rng.uniform(-noise, noise)) * (decode or {}).get(case["id"], 1.0),
                           first_token=1 + rng.uniform(-noise, noise))
    return data if raw else strip_requests(data)


def llm_history(count: int, *, drop_from: int | None = None, drop: float = 0.88, case: str = "offload-72b-full",
                noise: float = 0.01, seed_value: int = 15, raw: bool = True) -> list[dict]:
    """`count` records along runtime releases b11146, b11147, ...: ±`noise` on every rate and, from
    record number `drop_from` (1-based) on, case `case`'s decode rate times `drop`."""
    rng = random.Random(seed_value)
    out = []
    for i in range(count):
        factor = drop if drop_from is not None and i + 1 >= drop_from else 1.0
        out.append(llm_release(f"b{11146 + i}", index=i, decode={case: factor}, noise=noise, rng=rng, raw=raw))
    return out


def add_samples(data: dict, *, scale: float = 1.0, rng: random.Random | None = None) -> dict:
    """Give every timing of a graph-replay record its per-repetition times (`samples_ms`), drawn
    around the seed's mean (spread from its p95) and scaled by `scale`; the summaries and the
    speedups are recomputed from them."""
    rng = rng or random.Random(0)
    for m in data["measurements"]:
        for path, timing in m["timing"].items():
            if timing is None:
                continue
            spread = max(timing["p95_ms"] - timing["median_ms"], 1e-3) / 1.645
            samples = [max(timing["mean_ms"] * scale + rng.gauss(0, spread * scale), 1e-3) for _ in range(timing["repetitions"])]
            m["timing"][path] = {**timing_summary(samples), "samples_ms": samples}
        graph = m["timing"].get("graph")
        if graph is not None:
            m["mean_speedup"] = m["timing"]["eager"]["mean_ms"] / graph["mean_ms"]
    return data


def graph_with_samples(**kwargs) -> dict:
    """The graph-replay seed with per-repetition times (see `add_samples`)."""
    return add_samples(copy.deepcopy(seed(TGR)), **kwargs)


def close_to(values: Iterable[float], target: float) -> bool:
    return all(math.isclose(v, target, rel_tol=1e-9) for v in values)
