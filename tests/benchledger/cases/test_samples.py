"""Raw values through the case tables: a record that carries per-request figures or
per-repetition timings gives each measure its samples; the seeds (summaries only) give none."""

import pytest

from benchledger.cases.base import Better, Metric
from benchledger.cases.registry import kind_for
from benchledger.records.summaries import summarize
from tests.history import add_requests, graph_with_samples
from tests.store_copies import GSH, TGR, seed


def test_llm_measures_carry_their_per_request_values():
    data = add_requests(seed(GSH))
    [case, *_] = kind_for(GSH).cases(data, "a" * 64, "llm.json")
    point = case.points[0]
    decode = point.measures["decode_tokens_per_s"]
    assert decode.samples_pointer == "/cases/0/groups/0/requests"
    assert len(decode.samples) == decode.count == 5
    assert summarize(list(decode.samples))["median"] == pytest.approx(decode.value, rel=1e-12)
    assert min(decode.samples) == pytest.approx(decode.minimum, rel=1e-12)
    first = point.measures["first_token_s"]
    assert summarize(list(first.samples))["median"] == pytest.approx(first.value, rel=1e-12)
    assert point.measures["aggregate_tokens_per_s"].samples is None  # one number per group


def test_summary_only_records_have_no_samples():
    for schema in (GSH, TGR):
        for case in kind_for(schema).cases(seed(schema), "b" * 64, "x.json"):
            assert all(m.samples is None for p in case.points for m in p.measures.values())


def test_graph_replay_measures_carry_every_repetition():
    data = graph_with_samples()
    [case] = kind_for(TGR).cases(data, "c" * 64, "g.json")
    eager = case.points[0].measures["eager_ms"]
    assert len(eager.samples) == eager.count == 30
    assert sum(eager.samples) / 30 == pytest.approx(eager.value, rel=1e-12)
    assert eager.samples_pointer.endswith("/timing/eager/samples_ms")


def test_a_metric_with_samples_needs_its_statistic():
    with pytest.raises(ValueError, match="statistic"):
        Metric("x", "x", "s", Better.LOWER, value="/x", samples="/xs")
    with pytest.raises(ValueError, match="sample_formula"):
        Metric("x", "x", "s", Better.LOWER, value="/x", statistic="mean", samples="/xs", sample=lambda e: e)
