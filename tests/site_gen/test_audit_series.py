"""`benchledger verify --site` on a series chart's x: each point's label is its record's value of
the series field (a test date here, repeats of one setup, two on one day), numbered #2 for a
repeat; the points in series order and placed by those labels. Labels swapped or edited, with
the table behind the chart agreeing and SHA256SUMS listed again, passed before."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from benchledger.records.store import Store
from site_gen.audit import verify_site
from site_gen.build import build_site
from site_gen.context import BuildOptions
from tests.history import llm_release
from tests.site_gen.site_support import chart_edited, chart_labels_swapped

DAYS = (0, 1, 1, 2)  # 2026-10-01, two on 2026-10-02, 2026-10-03


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("series-audit")
    (tmp / "records").mkdir()
    (tmp / "articles").mkdir()
    store = Store(tmp / "records")
    for n, day in enumerate(DAYS):  # one setup, its decode rate a little different each time
        data = llm_release("b11146", index=day, noise=0.01, rng=random.Random(n))
        store.seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1", f"history/{n}.json")
    return build_site(tmp / "records", tmp / "site", cache_dir=tmp / "cache",
                      options=BuildOptions(articles_dir=tmp / "articles")).out_dir


@pytest.fixture()
def site(built, tmp_path) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(built, copy)
    return copy


def _page(site: Path) -> tuple[str, list[dict]]:
    """The first series page and its first chart's points."""
    page = min(p for p in (site / "series").glob("*.html") if p.name != "index.html")
    text = page.read_text(encoding="utf-8")
    spec = re.search(r'<script type="application/json" id="spec-track-0">(.*?)</script>', text, re.S).group(1)
    return page.relative_to(site).as_posix(), json.loads(spec)["datasets"]["points"]


def _of(point: dict) -> str:
    """A point's record and case, as the audit names them ("231ed62100bf /cases/1")."""
    return f"{point['trace']['sha256'][:12]} {re.match(r'/cases/[0-9]+', point['trace']['pointer']).group(0)}"


def _found(site: Path, rel: str) -> list[str]:
    return [str(p).removeprefix(f"{site}/{rel}: ") for p in verify_site(site)]


def test_an_untouched_series_site_verifies_with_its_repeats_numbered(site):
    rel, points = _page(site)
    assert [p["label"] for p in points] == ["2026-10-01", "2026-10-02", "2026-10-02 #2", "2026-10-03"]
    assert verify_site(site) == []


def test_two_points_trading_labels_is_reported(site):
    """The first and the last test dates swapped: a record moved three days in time (a change
    made to look as if it came first) is named at each point, with the domain that still
    places the points by the labels they had."""
    rel, points = _page(site)
    chart_labels_swapped(site, site / rel, "2026-10-01", "2026-10-03")
    found = _found(site, rel)
    assert found[:3] == [
        "script spec-track-0 $.layer[0].encoding.x.scale.domain: places the points in another order than its rows' labels "
        "(a series chart's x domain is its points' labels in row order): the page was edited",
        f"script spec-track-0 $.datasets.points[0].label: labels '2026-10-03' the point of {_of(points[0])}, whose tested "
        "is '2026-10-01': the page was edited",
        f"script spec-track-0 $.datasets.points[3].label: labels '2026-10-01' the point of {_of(points[3])}, whose tested "
        "is '2026-10-03': the page was edited"], found
    assert all(m.startswith("script spec-track-0 ") for m in found)


def test_a_label_edited_to_another_date_is_reported(site):
    rel, points = _page(site)
    chart_edited(site, site / rel, '"label":"2026-10-03"', '"label":"2026-10-04"', ("2026-10-03", "2026-10-04"))
    found = _found(site, rel)
    assert f"script spec-track-0 $.datasets.points[3].label: labels '2026-10-04' the point of {_of(points[3])}, " \
           "whose tested is '2026-10-03': the page was edited" in found, found


def test_repeats_of_one_date_trading_numbers_is_reported(site):
    """The two runs of 2026-10-02 swapped: each label is of its record's date, but the repeat
    numbered #2 comes first."""
    rel, _ = _page(site)
    chart_labels_swapped(site, site / rel, "2026-10-02", "2026-10-02 #2")
    assert "script spec-track-0 $.datasets.points[2].label: numbers '2026-10-02' repeat 1 of '2026-10-02' after repeat 2 " \
           "(repeats are numbered in series order): the page was edited" in _found(site, rel)


def test_points_moved_out_of_series_order_with_their_labels_are_reported(site):
    """The first two points traded whole, each keeping its label, the domain and the table
    listing them so: every label is its record's, but the chart runs back in time."""
    from site_gen.checksums import site_sums

    rel, _ = _page(site)
    page = site / rel
    html = page.read_text(encoding="utf-8")
    start = html.index('id="spec-track-0">') + len('id="spec-track-0">')
    end = html.index("</script>", start)
    spec = json.loads(html[start:end])
    rows = spec["datasets"]["points"]
    rows[:2] = rows[1::-1]
    for layer in spec["layer"]:
        layer["encoding"]["x"]["scale"]["domain"] = [row["label"] for row in rows]
    html = html[:start] + json.dumps(spec, sort_keys=True, separators=(",", ":")) + html[end:]
    table = html.index("<tbody>", html.index('<details class="bl-chart-data">'))
    first, second = re.findall(r"<tr>.*?</tr>", html[table:], re.S)[:2]
    html = html[:table] + html[table:].replace(first + "\n    " + second, second + "\n    " + first, 1)
    page.write_text(html, encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert _found(site, rel) == ["script spec-track-0 $.datasets.points[1].label: charts '2026-10-01' after '2026-10-02', but its "
                                 "tested comes before that one's in the series' order: the page was edited"]


@pytest.mark.parametrize(("old", "new", "expected"), [
    pytest.param('"domain":["2026-10-01","2026-10-02"', '"domain":["2026-10-02","2026-10-01"',
                 "script spec-track-0 $.layer[0].encoding.x.scale.domain: places the points in another order than its rows' labels "
                 "(a series chart's x domain is its points' labels in row order): the page was edited", id="domain reordered"),
    pytest.param('"title":"tested"', '"title":"runtime release"',
                 "script spec-track-0: titles its x axis 'runtime release, tested', which names no ordered field of a "
                 "gsh-llm-core-article/1 record: the page was edited", id="axis retitled to another field"),
])
def test_an_x_axis_edited_elsewhere_than_its_points_is_reported(site, old, new, expected):
    rel, _ = _page(site)
    chart_edited(site, site / rel, old, new, None)
    assert _found(site, rel) == [expected]


def test_a_series_chart_drawn_otherwise_than_its_points_is_reported_though_its_svg_was_redrawn(site):
    """A series chart's spec is rebuilt from its rows and titles as for a line chart
    (`chart_specs.rebuilt_spec`): its dots shrunk to nothing, the SVG drawn again and named as the
    site names it, passed every other check."""
    from tests.site_gen.site_support import chart_redrawn

    rel, _ = _page(site)
    dots = []

    def shrunk(spec: dict) -> None:
        dots.append(next(i for i, layer in enumerate(spec["layer"]) if layer["mark"]["type"] == "point"))
        spec["layer"][dots[0]]["mark"]["size"] = 0

    chart_redrawn(site, site / rel, "spec-track-0", shrunk)
    assert [str(p).removeprefix(f"{site}/{rel}: ") for p in verify_site(site, redraw_charts=True)] == [
        f"script spec-track-0 $.layer[{dots[0]}].mark.size: draws 0 where benchledger writes 60 for this chart's data and "
        "titles: the page was edited"]


def test_a_series_chart_s_y_axis_retitled_in_another_unit_is_reported(site):
    """A series chart's y axis names its unit as a line chart's does ("response time (median)
    (s)"): made "(ms)" wherever the chart and its table say it, the SVG drawn again, it passed
    every other check, and 0.5 s read as 0.5 ms."""
    from tests.site_gen.site_support import axis_retitled

    rel, _ = _page(site)
    text = (site / rel).read_text(encoding="utf-8")
    view, title = next((m.group(1), t) for m in re.finditer(r'<script type="application/json" id="(spec-track-[0-9]+)">(.*?)</script>', text)
                       for t in [json.loads(m.group(2))["layer"][0]["encoding"]["y"]["title"]] if t.endswith(" (s)"))
    axis_retitled(site, site / rel, view, title, title.replace(" (s)", " (ms)"))
    found = [str(p).removeprefix(f"{site}/{rel}: ") for p in verify_site(site, redraw_charts=True)]
    assert len(found) == 1 and re.fullmatch(
        rf"script {view} \$\.layer\[[0-9]+\]\.encoding\.y\.title: titles its y axis in 'ms', but point 0 \(/cases/[0-9]+/"
        r"\S+\) is in 's' as its record gives it: the page was edited", found[0]), found


def test_repeats_of_a_value_cut_short_are_checked_by_the_hash_their_labels_end_with(tmp_path):
    """A release past MAX_LABEL_CHARS (holding a line separator and markup besides) is cut on the
    chart, with a hash of the whole label ending it, its repeats' numbers inside the hash: the
    audit finds each repeat's number there, and two repeats trading labels are named."""
    long = "b11146 \u2028<script>" + "x" * 80
    (tmp_path / "records").mkdir()
    (tmp_path / "articles").mkdir()
    store = Store(tmp_path / "records")
    for n, release in enumerate((long, long, long, "b11147")):
        data = llm_release(release, index=n, noise=0.01, rng=random.Random(n))
        store.seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1", f"history/{n}.json")
    site = build_site(tmp_path / "records", tmp_path / "site", cache_dir=tmp_path / "cache",
                      options=BuildOptions(articles_dir=tmp_path / "articles")).out_dir
    rel, points = _page(site)
    labels = [p["label"] for p in points]
    assert len(labels) == 4 and all("…" in label for label in labels[:3]) and len(set(labels)) == 4
    assert verify_site(site) == []
    chart_labels_swapped(site, site / rel, labels[1], labels[2])
    assert f"script spec-track-0 $.datasets.points[2].label: numbers {labels[1]!r} repeat 2 of {long[:80]!r} " \
           "after repeat 3 (repeats are numbered in series order): the page was edited" in _found(site, rel)


def _track_0(site: Path, rel: str) -> tuple[str, int, int, int]:
    """The page's text and where its first chart's spec and the table behind it are."""
    html = (site / rel).read_text(encoding="utf-8")
    spec = html.index('id="spec-track-0">') + len('id="spec-track-0">')
    table = html.index('<details class="bl-chart-data">', spec)
    return html, spec, table, html.index("</details>", table)


def test_a_repeat_numbered_past_its_place_is_reported(site):
    """The second run of 2026-10-02 numbered #3 wherever the chart names it: still a repeat of
    its record's date, numbered after #1, so it passed; the series' records make it #2."""
    from site_gen.checksums import site_sums

    rel, points = _page(site)
    html, spec, _, end = _track_0(site, rel)
    (site / rel).write_text(html[:spec] + html[spec:end].replace("2026-10-02 #2", "2026-10-02 #3") + html[end:], encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert _found(site, rel) == [f"script spec-track-0 $.datasets.points[2].label: labels '2026-10-02 #3' the point of "
                                 f"{_of(points[2])}, which the series' served records, in order, label '2026-10-02 #2': "
                                 "the page was edited"]


def test_two_repeats_of_one_date_trading_places_under_their_labels_is_reported(site):
    """The two runs of 2026-10-02 traded places in the chart and its table, the labels left in
    order: each label is of its record's date, numbered in order, and the dates tie, so it
    passed; the series' records label each run otherwise."""
    from site_gen.checksums import site_sums

    rel, points = _page(site)
    html, spec_at, table, end = _track_0(site, rel)
    spec_end = html.index("</script>", spec_at)
    spec = json.loads(html[spec_at:spec_end])
    rows = spec["datasets"]["points"]
    rows[1], rows[2] = {**rows[2], "label": rows[1]["label"]}, {**rows[1], "label": rows[2]["label"]}
    first, second = re.findall(r"<tr>.*?</tr>", html[html.index("<tbody>", table):end], re.S)[1:3]
    moved = (second.replace("<td>2026-10-02 #2</td>", "<td>2026-10-02</td>", 1) + "\n    "
             + first.replace("<td>2026-10-02</td>", "<td>2026-10-02 #2</td>", 1))
    html = (html[:spec_at] + json.dumps(spec, sort_keys=True, separators=(",", ":")) + html[spec_end:table]
            + html[table:end].replace(first + "\n    " + second, moved, 1) + html[end:])
    (site / rel).write_text(html, encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert _found(site, rel) == [
        f"script spec-track-0 $.datasets.points[1].label: labels '2026-10-02' the point of {_of(points[2])}, which the "
        "series' served records, in order, label '2026-10-02 #2': the page was edited",
        f"script spec-track-0 $.datasets.points[2].label: labels '2026-10-02 #2' the point of {_of(points[1])}, which the "
        "series' served records, in order, label '2026-10-02': the page was edited"]


def test_a_chart_s_alt_text_retold_is_reported(site):
    """What a screen reader reads in place of a track's chart (the track, its records and each
    change it marks, or that none was detected) is the served records': a change added to it,
    with SHA256SUMS listed again, passed where the chart and its findings above were held."""
    from site_gen.checksums import site_sums

    rel, _ = _page(site)
    page = site / rel
    text = page.read_text(encoding="utf-8")
    alt = re.search(r'<div class="bl-chart-view" data-spec="spec-track-0"><img src="[^"]*" alt="([^"]*)"', text).group(1)
    assert alt.endswith(": no change detected.")
    told = alt.replace("no change detected", "from 2026-10-03: +12.0%, worse")
    page.write_text(text.replace(f'alt="{alt}"', f'alt="{told}"', 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert _found(site, rel) == [f'track-0: describes its chart to a screen reader as "{told}", but the served records make '
                                 f'"{alt}": the page was edited']
