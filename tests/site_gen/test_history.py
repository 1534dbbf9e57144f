"""History over real record shapes: series of records made from the LLM seed (consistent with
the checks, differing only in runtime release), change detection on them, and the issue's
done-when cases."""

import pytest

from benchledger.cases.registry import kind_for
from benchledger.cases.series import find_series
from benchledger.records.checks import check_record
from site_gen.changes.claims import CHANGED, INCONCLUSIVE
from site_gen.changes.comparison import NO_RANGE, RANK_SUMMARY, WELCH_RECORDS, WELCH_VALUES
from site_gen.history import history
from tests.history import graph_with_samples, llm_history, llm_release
from tests.store_copies import GSH, TGR, seed


def _reports(records, schema=GSH):
    return history([(d, f"{i + 1:064x}", f"history/r{i + 1}.json", schema) for i, d in enumerate(records)])


def test_the_records_hold_together():
    for record in llm_history(8, drop_from=6) + llm_history(3, raw=False):
        assert check_record(record, GSH, "r.json") == []


@pytest.mark.parametrize("raw", [True, False])
def test_eight_records_with_a_drop_from_the_sixth_report_one_change_there(raw):
    reports = _reports(llm_history(8, drop_from=6, raw=raw))
    assert [r.series.field for r in reports] == ["runtime_release"] * 3  # one per placement
    changes = [c for r in reports for c in r.changes]
    assert len(changes) == 1
    [change] = changes
    assert change.at.values["runtime_release"].text == "b11151"  # the sixth record
    assert change.at.record_path == "history/r6.json"
    assert dict(change.series.fixed)["gpu_layers"] == "81"
    assert change.regression
    # the decode rate dropped, at both contexts, and only it
    assert {(f.track.metric.name, dict(f.track.point)["context_tokens"]) for f in change.findings} == {
        ("decode_tokens_per_s", "2048"), ("decode_tokens_per_s", "8192")}
    for f in change.findings:
        assert f.claim.verdict == CHANGED and f.claim.comparison.method == WELCH_RECORDS
        assert 0.86 < f.claim.ratio < 0.90
        assert f.claim.interval[1] < 1 - f.claim.delta
        assert f.records == [f"{i:064x}" for i in range(1, 9)]


@pytest.mark.parametrize("raw", [True, False])
def test_the_same_eight_records_without_the_drop_report_none(raw):
    reports = _reports(llm_history(8, raw=raw))
    assert [c for r in reports for c in r.changes] == []
    for r in reports:
        for track in r.tracks:
            assert track.detection.change_points == ()
            if track.detection.halves is not None and track.detection.halves.log_ratio is not None:
                # "no change found" comes with how large a change could have been found
                assert 0 < track.detection.halves.minimum_detectable(r.rule) < 0.05


def test_three_summary_only_records_report_what_n_allows_and_no_more():
    reports = _reports(llm_history(3, drop_from=3, raw=False))
    report = next(r for r in reports if dict(r.series.fixed)["gpu_layers"] == "81")
    decode = [t for t in report.tracks if t.metric.name == "decode_tokens_per_s"]
    for track, claims in zip(report.tracks, report.claims):
        for claim in claims:
            assert claim.interval is None  # summaries support no interval
            assert claim.comparison.method in (RANK_SUMMARY, NO_RANGE)
            if claim.comparison.p_value is not None:
                assert claim.comparison.p_value == pytest.approx(2 / 252)  # the best 5 vs 5 can do
            else:
                assert claim.verdict == INCONCLUSIVE
    for track in decode:
        [steady, dropped] = report.claims[report.tracks.index(track)]
        assert steady.verdict == INCONCLUSIVE
        assert dropped.comparison.separation.disjoint
    # every compared range is a test (12 here, 2 disjoint): 2/252 x 12 / 2 = 0.048 <= 0.05
    disjoint = [c for cs in report.claims for c in cs if c.adjusted_p is not None]
    assert len(disjoint) == 2  # the decode drop, at both contexts
    for claim in disjoint:
        assert claim.tests_on_page == 12 and claim.selected_on_page == 2
        assert claim.adjusted_p == pytest.approx(2 / 252 * 12 / 2)
    assert [c.at.values["runtime_release"].text for c in report.changes] == ["b11148"]


def test_three_records_with_raw_values_get_within_run_intervals():
    reports = _reports(llm_history(3, drop_from=3))
    report = next(r for r in reports if dict(r.series.fixed)["gpu_layers"] == "81")
    [change] = report.changes
    assert change.at.values["runtime_release"].text == "b11148"
    for f in change.findings:
        assert f.track.metric.name == "decode_tokens_per_s"
        assert f.claim.comparison.method == WELCH_VALUES and f.claim.interval is not None


def test_graph_replay_series_along_torch_versions():
    records = []
    for i, version in enumerate(["2.9.1+cu128", "2.10.0+cu128", "2.11.0+cu128"]):
        data = graph_with_samples(scale=1.0 + 0.3 * (i == 2))
        data["torch_version"] = version
        records.append(data)
    [report] = _reports(records, TGR)
    assert report.series.field == "torch_version"
    assert [report.series.value_of(c) for c in report.series.cases] == ["2.9.1+cu128", "2.10.0+cu128", "2.11.0+cu128"]
    [change] = report.changes
    assert change.at.values["torch_version"].text == "2.11.0+cu128" and change.regression


def test_series_of_repeats_run_along_the_test_date():
    records = [seed(GSH) for _ in range(3)]
    for i, r in enumerate(records):
        r["tested_at"] = f"2026-10-0{3 - i}"
        r["hardware"]["fan_profile"] = f"profile-{i}"  # context: never splits a series
    reports = _reports(records)
    assert {r.series.field for r in reports} == {"tested_at"}
    for r in reports:
        assert [r.series.value_of(c) for c in r.series.cases] == ["2026-10-01", "2026-10-02", "2026-10-03"]
        assert r.series.along_axis is False


def test_a_single_record_forms_no_series():
    kind = kind_for(GSH)
    assert find_series(kind, kind.cases(seed(GSH), "a" * 64, "x.json")) == []
    assert _reports([seed(GSH)]) == []


def test_repeats_along_the_finish_time_are_labelled_by_their_utc_date_and_time():
    """Graph-replay repeats of one setup run along `finished_epoch`: the series page, the claims
    and the History index labelled them "1793167319.0615695"."""
    records = [graph_with_samples() for _ in range(3)]
    for i, r in enumerate(records):
        r["finished_epoch"] = 1793167319.0615695 + 86400 * i
    [report] = _reports(records, TGR)
    assert report.series.field == "finished_epoch" and report.series.along_axis is False
    assert [report.series.shown_of(c) for c in report.series.cases] == [
        "2026-10-28 06:01:59 UTC", "2026-10-29 06:01:59 UTC", "2026-10-30 06:01:59 UTC"]
    assert report.series.value_of(report.series.cases[0]) == "1793167319.0615695"  # the JSON data keeps the record's number


def test_a_series_title_names_what_tells_it_from_the_other_series_of_its_benchmark():
    """Repeats of one release on one GPU (a date series) beside release series on two GPUs: the
    date series was titled by the model and placement alone, so its claims read in the index and
    the feed without the GPU or the release; graph replay read "CUDA-graph replay: CUDA-graph
    replay along torch"."""
    from site_gen.history import series_title
    from tests.variants import H200

    releases = llm_history(3) + [dict(r, hardware={**r["hardware"], "gpu": H200}) for r in llm_history(3)]
    repeats = [llm_release("b11146", index=10 + i) for i in range(2)]
    reports = _reports(releases + repeats)
    dated = [r for r in reports if r.series.field == "tested_at"]
    assert dated and all(", GPU NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition" in series_title(r.series, r.distinct)
                         and "runtime release b11146" in series_title(r.series, r.distinct) for r in dated)
    assert all(", GPU NVIDIA H200" in series_title(r.series, r.distinct) or "RTX" in series_title(r.series, r.distinct)
               for r in reports if r.series.field == "runtime_release")
    graph = []
    for version in ["2.9.1+cu128", "2.10.0+cu128"]:
        data = graph_with_samples()
        data["torch_version"] = version
        graph.append(data)
    [report] = _reports(graph, TGR)
    assert series_title(report.series, report.distinct) == "CUDA-graph replay along torch"
