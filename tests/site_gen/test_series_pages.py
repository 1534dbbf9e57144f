"""Series pages in a real build (MkDocs, charts rendered by vl-convert) from a store holding the
issue's eight LLM records along runtime releases: the change marked on the page and on the
chart, every claim's provenance on hover, the index and the methodology's rule; the same
series without the drop says no change and what could have been found."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from benchledger.records.store import Store
from site_gen.build import build_site
from site_gen.pages import series as series_pages
from site_gen.context import BuildOptions
from tests.history import llm_history
from tests.site_gen.site_support import audited_after_edit

SERIES = "series/bc915e547af1.html"  # the full-offload case (gpu_layers 81) along runtime_release


def history_site(tmp: Path, records_data: list[dict]) -> Path:
    store_dir = tmp / "records"
    store_dir.mkdir()
    store = Store(store_dir)
    for data in records_data:
        store.seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1",
                         f"history/{data['runtime']['release']}.json")
    (tmp / "articles").mkdir()
    return build_site(store_dir, tmp / "site", cache_dir=tmp / "cache",
                      options=BuildOptions(articles_dir=tmp / "articles")).out_dir


@pytest.fixture(scope="module")
def drop_site(tmp_path_factory) -> Path:
    return history_site(tmp_path_factory.mktemp("drop"), llm_history(8, drop_from=6))


@pytest.fixture(scope="module")
def steady_site(tmp_path_factory) -> Path:
    return history_site(tmp_path_factory.mktemp("steady"), llm_history(8))


def _titles(page: str, css: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(rf'<span class="{css}[^"]*"[^>]*title="([^"]*)"', page)]


def test_the_change_is_on_the_page_with_its_records(drop_site):
    page = (drop_site / SERIES).read_text()
    assert "Detected changes" in page
    [change] = re.findall(r'<li class="bl-change bl-change-worse" id="change-bc915e547af1-5">(.*?)</li>', page, re.S)
    assert "from runtime release b11151" in change
    assert change.count('data-verdict="changed"') == 2  # decode at both contexts
    records = set(re.findall(r'data-records="([0-9a-f ]+)"', change)[0].split())
    store = Store(drop_site.parent / "records")
    assert records == {e.sha256 for e in store.entries()}  # all eight records feed the claim
    # every record of the series is listed and linked to its article
    for entry in store.entries():
        assert entry.sha256[:12] in page and f"{entry.path}</a>" in page


def test_every_claim_names_its_statistic_inputs_algorithm_and_parameters(drop_site):
    page = (drop_site / SERIES).read_text()
    titles = _titles(page, "bl-claim bl-claim-changed")
    assert titles
    for title in titles:
        assert "statistic (welch-records)" in title
        assert "algorithm (e-divisive)" in title and "min_segment_records 2" in title and "max_pvalue 0.001" in title
        assert "Benjamini-Hochberg adjusted" in title
        assert title.count("record sha256 ") == 8
        assert "/server_decode_tokens_per_second/median" in title
        assert "delta ±0.03" in title


def test_the_chart_marks_the_change(drop_site):
    page = (drop_site / SERIES).read_text()
    specs = [json.loads(s) for s in re.findall(r'<script type="application/json" id="spec-track-\d+">(.*?)</script>', page, re.S)]
    marked = [s for s in specs if any(rows and "at" in rows[0] for rows in s["datasets"].values())]
    assert len(marked) == 2  # the two decode tracks
    for spec in marked:
        rows = [row for values in spec["datasets"].values() for row in values]
        [mark] = [r for r in rows if "at" in r]
        assert mark["at"] == "b11151" and mark["kind"] == "worse" and re.fullmatch(r"−\d+\.\d%, worse", mark["text"])
        assert "changed, worse" in mark["claim"]  # the whole claim, in the tooltip
        segments = [r for r in rows if "median" in r]
        assert [(s["first"], s["last"]) for s in segments] == [("b11146", "b11150"), ("b11151", "b11153")]
        points = [r for r in rows if "trace" in r]  # each point's source in its tooltip is made from its trace
        assert len(points) == 8 and all(re.match(r"/cases/0/groups/\d/", p["trace"]["pointer"]) for p in points)
        assert all(len(p["trace"]["sha256"]) == 64 for p in points)
    # the static fallback draws it too
    svgs = re.findall(r'<img src="([^"]+\.svg)"', page)
    drawn = [(drop_site / "series" / s).resolve().read_text() for s in svgs]
    assert sum(re.search(r">−\d+\.\d%, worse</text>", svg) is not None for svg in drawn) == 2


def test_the_index_lists_series_and_changes(drop_site):
    index = (drop_site / "series/index.html").read_text()
    assert index.count('href="bc915e547af1.html"') == 1
    assert 'href="bc915e547af1.html#change-bc915e547af1-5"' in index
    assert "d9716aca4b45.html" in index and "06c79fbd8441.html" in index
    # the three placements' series share all their setup but GPU layers: said once, above
    shared = re.search(r"Every series below holds fixed: ([^<]*)\.</p>", index).group(1)
    assert "threads 16" in shared and "GPU layers" not in shared
    setups = re.findall(r'</a></td>\s*<td>([^<]*)</td>', index)
    assert sorted(setups) == ["GPU layers 20", "GPU layers 40", "GPU layers 81"], setups
    assert re.search(r"<td>[^<\s]+&nbsp;→&nbsp;[^<\s]+</td>", index)  # "b0 → b7" never breaks


def test_methodology_states_the_rule_delta_and_parameters(drop_site):
    page = (drop_site / "methodology.html").read_text()
    assert 'id="change-detection"' in page
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "δ = max(3%, 2 × the noise seen within the segments)" in text
    assert "Benjamini-Hochberg at q = 0.05" in text
    for name, value in (("window_records", "50"), ("max_pvalue", "0.001"), ("first_pass_pvalue", "0.01"),
                        ("min_segment_records", "2"), ("edivisive_min_records", "6")):
        assert re.search(rf"<code>{name}</code></td><td>{re.escape(value)}</td>", page), name


def test_without_the_drop_the_page_says_no_change_and_what_could_be_found(steady_site):
    page = (steady_site / SERIES).read_text()
    assert "No change detected in this series." in page
    assert 'data-verdict="changed"' not in page
    assert re.search(r"no change beyond ±delta found over 8 records; a step of about \d\.\d% between the halves would have been found", page)
    index = (steady_site / "series/index.html").read_text()
    assert "No change detected in any series." in index


def test_rebuilding_from_the_same_ledger_gives_the_same_bytes(drop_site, tmp_path):
    again = build_site(drop_site.parent / "records", tmp_path / "site", cache_dir=tmp_path / "cache",
                       options=BuildOptions(articles_dir=drop_site.parent / "articles")).out_dir
    for name in ("series/index.html", SERIES, "posts/feed.xml", "methodology.html"):
        assert (again / name).read_bytes() == (drop_site / name).read_bytes(), name


def test_a_series_page_is_kept_in_the_render_cache_and_made_again_when_a_record_joins(tmp_path):
    """Warm, a series page comes from the render cache (it was a third of a warm build at 1,000
    articles); once a record joins the series its page is made again, byte for byte as a build
    with an empty cache makes it."""
    history = llm_history(4)
    site = history_site(tmp_path, history[:3])
    records, cache, articles = tmp_path / "records", tmp_path / "cache", tmp_path / "articles"
    cached = [p for p in (cache / "render" / "values").iterdir() if b'"path": "series/bc915e547af1.md"' in p.read_bytes()]
    assert len(cached) == 1
    before = sorted((cache / "render" / "values").iterdir())
    build_site(records, site, cache_dir=cache, options=BuildOptions(articles_dir=articles))
    assert sorted((cache / "render" / "values").iterdir()) == before  # nothing made again
    joined = history[3]
    Store(records).seal_bytes(json.dumps(joined, indent=1).encode(), "gsh-llm-core-article/1",
                              f"history/{joined['runtime']['release']}.json")
    build_site(records, site, cache_dir=cache, options=BuildOptions(articles_dir=articles))
    fresh = build_site(records, tmp_path / "fresh", cache_dir=tmp_path / "fresh-cache",
                       options=BuildOptions(articles_dir=articles)).out_dir
    page = (site / SERIES).read_bytes()
    assert f"history/{joined['runtime']['release']}.json</a>".encode() in page
    assert page == (fresh / SERIES).read_bytes()


def test_past_the_chart_limit_changed_tracks_are_charted_first_and_the_rest_get_a_row_each(tmp_path, monkeypatch):
    """A series with more tracks than MAX_TRACK_CHARTS (2 here) charts the tracks with a detected
    change, and lists every other track in one table, each row under its own `track-N` anchor
    (a strict MkDocs build checks every link to one) with its first and last value and what was
    found; with the limit above the track count the same page charts them all."""
    monkeypatch.setattr(series_pages, "MAX_TRACK_CHARTS", 2)
    (tmp_path / "capped").mkdir()
    capped = history_site(tmp_path / "capped", llm_history(8, drop_from=6))
    page = (capped / SERIES).read_text()
    charted = [int(i) for i in re.findall(r'<h3 id="track-(\d+)">', page)]
    assert len(charted) == 2 and page.count('<script type="application/json" id="spec-track-') == 2
    for i in charted:  # the two decode tracks, whose drop was found
        section = page.split(f'<h3 id="track-{i}">', 1)[1].split("<h3", 1)[0]
        assert 'data-verdict="changed"' in section
    rows = re.findall(r'<td><span id="track-(\d+)">([^<]*)</span></td>\s*<td>(\d+)</td>\s*<td>([^<]*)</td>\s*<td>([^<]*)</td>', page)
    assert rows and not {int(r[0]) for r in rows} & set(charted)
    assert "Tracks not charted" in page and f"the other {len(rows)}</a>" in page
    for _, label, records, first, last in rows:
        assert records == "8" and first.startswith("b11146: ") and last.startswith("b11153: "), (label, first, last)
    monkeypatch.setattr(series_pages, "MAX_TRACK_CHARTS", 48)
    (tmp_path / "full").mkdir()
    full = history_site(tmp_path / "full", llm_history(8, drop_from=6))
    page = (full / SERIES).read_text()
    assert "Tracks not charted" not in page
    assert sorted(int(i) for i in re.findall(r'<h3 id="track-(\d+)">', page)) == sorted(charted + [int(r[0]) for r in rows])


def test_a_release_holding_a_line_separator_is_charted(tmp_path):
    """A series' labels are record text (runtime releases here), which Vega-Lite writes into the
    chart's sort expression; U+2028 ended the string literal there and failed the build."""
    history = llm_history(3)
    history[1]["runtime"]["release"] = "b11147\u2028rc"
    (tmp_path / "records").mkdir()
    store = Store(tmp_path / "records")
    for i, data in enumerate(history):
        store.seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1", f"history/{i}.json")
    (tmp_path / "articles").mkdir()
    site = build_site(tmp_path / "records", tmp_path / "site", cache_dir=tmp_path / "cache",
                      options=BuildOptions(articles_dir=tmp_path / "articles")).out_dir
    page = next(p for p in (site / "series").glob("*.html") if "b11147" in p.read_text() and p.name != "index.html")
    svgs = [(page.parent / s).resolve().read_text() for s in re.findall(r'<img src="([^"]+\.svg)"', page.read_text())]
    assert svgs and all("b11147 rc" in svg for svg in svgs)


def test_each_charted_range_end_is_traced_to_its_point_s_record_and_audited(drop_site, tmp_path):
    """A series chart draws each record's range (minimum to maximum) beside its median; the
    audit checked the median only, so an edited end (a narrower range) passed, as did an end
    taken from another record."""
    import shutil

    from site_gen.audit import verify_site
    from site_gen.checksums import site_sums

    site = tmp_path / "site"
    shutil.copytree(drop_site, site)
    page = site / SERIES
    text = page.read_text(encoding="utf-8")
    specs = [json.loads(s) for s in re.findall(r'<script type="application/json" id="spec-track-\d+">(.*?)</script>', text, re.S)]
    ranged = [row for spec in specs for row in spec["datasets"]["points"] if row["low"] is not None]
    # each end names its pointer in the point's record, which is not repeated
    assert ranged and all(set(row["low_trace"]) == set(row["high_trace"]) == {"pointer"} for row in ranged)
    assert verify_site(site) == []

    def audited(old: str, new: str) -> list[str]:
        assert text.count(old) >= 1, old
        page.write_text(text.replace(old, new, 1), encoding="utf-8")
        (site / "SHA256SUMS").write_bytes(site_sums(site))
        return [str(p).removeprefix(f"{site}/{SERIES}: ") for p in verify_site(site)]

    first = ranged[0]
    low = json.dumps(first["low"])
    messages = audited(f'"low":{low},', f'"low":{json.dumps(first["low"] * 1.01)},')
    assert any(m.startswith("script spec-track-0 $.datasets.points[0].low: charts ") and
               f"for {first['trace']['sha256'][:12]} {first['low_trace']['pointer']}, but the record gives {low}: the page was edited" in m
               for m in messages), messages
    other = next(row["trace"]["sha256"] for row in ranged if row["trace"]["sha256"] != first["trace"]["sha256"])
    messages = audited(f'"high_trace":{{"pointer":"{first["high_trace"]["pointer"]}"}}',
                       f'"high_trace":{{"pointer":"{first["high_trace"]["pointer"]}","sha256":"{other}"}}')
    assert messages == [f"script spec-track-0 $.datasets.points[0].high: charts {first['high']!r} from record {other[:12]!r}, "
                        f"not from its point's record {first['trace']['sha256'][:12]!r}: the page was edited"]
    messages = audited(f',"low_trace":{{"pointer":"{first["low_trace"]["pointer"]}"}}', "")
    assert messages == [f"script spec-track-0 $.datasets.points[0].low: charts {first['low']!r} without the record and pointer "
                        "it comes from: the page was edited"]


def test_a_series_point_draws_a_range_only_with_where_its_ends_come_from():
    from site_gen.charts import SeriesPoint
    from site_gen.quantity import Trace

    trace = Trace("a" * 64, "/x/median")
    with pytest.raises(ValueError, match="give low, high and range_trace together"):
        SeriesPoint("b1", 2.0, 1.0, 3.0, trace)
    assert SeriesPoint("b1", 2.0, None, None, trace).range_trace is None
    with pytest.raises(ValueError, match="a range's ends come from the point's own record"):
        SeriesPoint("b1", 2.0, 1.0, 3.0, trace, (Trace("a" * 64, "/x/minimum"), Trace("b" * 64, "/x/maximum")))


def test_each_segment_median_and_claim_rule_is_audited_against_the_chart_s_points(drop_site, tmp_path):
    """A series chart draws each segment's median as a rule and each change as a rule at a
    record; neither carried a trace, so an edited median (the regression drawn smaller) or a
    claim moved to a record that is not on the chart passed `verify --site`."""
    import shutil
    import statistics

    from site_gen.audit import verify_site
    from site_gen.checksums import site_sums

    site = tmp_path / "site"
    shutil.copytree(drop_site, site)
    page = site / SERIES
    text = page.read_text(encoding="utf-8")
    specs = [json.loads(s) for s in re.findall(r'<script type="application/json" id="spec-track-\d+">(.*?)</script>', text, re.S)]
    n, spec = next((n, s) for n, s in enumerate(specs) if s["datasets"].get("segments") and s["datasets"].get("claims"))
    labels = [row["label"] for row in spec["datasets"]["points"]]
    for seg in spec["datasets"]["segments"]:  # what the audit recomputes holds for what the build drew
        run = spec["datasets"]["points"][labels.index(seg["first"]):labels.index(seg["last"]) + 1]
        assert seg["median"] == statistics.median(row["value"] for row in run)
    assert verify_site(site) == []

    def audited(old: str, new: str) -> list[str]:
        assert text.count(old) >= 1, old  # the first is in the first chart that has it
        page.write_text(text.replace(old, new, 1), encoding="utf-8")
        (site / "SHA256SUMS").write_bytes(site_sums(site))
        return [str(p).removeprefix(f"{site}/{SERIES}: ") for p in verify_site(site)]

    last = spec["datasets"]["segments"][-1]
    old = f'"median":{json.dumps(last["median"])}'
    messages = audited(old, f'"median":{json.dumps(last["median"] * 1.05)}')
    assert messages == [f"script spec-track-{n} $.datasets.segments[{len(spec['datasets']['segments']) - 1}]: draws the median of "
                        f"{last['first']!r} to {last['last']!r} as {last['median'] * 1.05!r}, but the chart's points there give "
                        f"{last['median']!r}: the page was edited"]
    claim = spec["datasets"]["claims"][0]
    messages = audited(f'"at":{json.dumps(claim["at"])}', '"at":"b99999"')
    assert len(messages) == 1 and re.fullmatch(r"script spec-track-\d+ \$\.datasets\.claims\[\d+\]: marks a claim at no record of "
                                               r"this chart: the page was edited", messages[0]), messages


def _block(text: str) -> str:
    """A series page's "Detected changes" (or its note that none was found), as served."""
    return re.search(r'<div class="bl-changes" id="changes">.*?</ul></div>|<p class="bl-no-change" id="changes">.*?</p>',
                     text, re.S).group(0)


@pytest.mark.parametrize("edit", ["regression called no regression", "change hidden", "no change called a change"])
def test_detected_changes_edited_on_a_series_page_are_reported(drop_site, steady_site, tmp_path, edit):
    """The audit made each series again from the served records, but not what its page says
    was found: a regression relabelled, a change hidden or one made up, with SHA256SUMS listed
    again, passed."""
    import shutil

    from site_gen.audit import verify_site
    from site_gen.checksums import site_sums

    source = steady_site if edit == "no change called a change" else drop_site
    site = tmp_path / "site"
    shutil.copytree(source, site)
    page = site / SERIES
    text = page.read_text(encoding="utf-8")
    block = _block(text)
    edited = {"regression called no regression": block.replace('class="bl-change bl-change-worse"', 'class="bl-change"', 1),
              "change hidden": _block((steady_site / SERIES).read_text(encoding="utf-8")),
              "no change called a change": _block((drop_site / SERIES).read_text(encoding="utf-8"))}[edit]
    assert edited != block
    page.write_text(text.replace(block, edited, 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    found = "0 change(s)" if source is steady_site else "1 change(s) (bc915e547af1-5)"
    messages = [str(p) for p in verify_site(site)]
    assert messages[0] == (f"{site}/{SERIES}: does not say what change detection finds in the served records of this series, "
                           f'{found}: its "Detected changes" was edited')
    # a change made up shows the claims of its two tracks, which change detection does not make;
    # a change hidden leaves the history index's link to it dead
    assert len(messages) == (3 if edit == "no change called a change" else 2 if edit == "change hidden" else 1), messages
    if edit == "change hidden":
        assert messages[1] == (f"{site}/series/index.html: links 'bc915e547af1.html#change-bc915e547af1-5', but {SERIES} has "
                               "no element with the id 'change-bc915e547af1-5': the link is dead")
    else:
        assert all(m.startswith(f"{site}/{SERIES}: shows a claim change detection does not make") for m in messages[1:])


def test_a_series_page_removed_is_reported(drop_site, tmp_path):
    import shutil

    from site_gen.audit import verify_site
    from site_gen.checksums import site_sums

    site = tmp_path / "site"
    shutil.copytree(drop_site, site)
    (site / SERIES).unlink()
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p) for p in verify_site(site)]
    assert messages[0] == (
        f"{site}/{SERIES}: missing: the served records hold the series 'Qwen2.5-72B-Instruct Q4_K_M, GPU layers 81: LLM "
        "server along runtime release', in which change detection finds 1 change(s) (bc915e547af1-5), and this is its page")
    # and every link to it is dead (the history index's, its records' articles')
    assert messages[1:] and all(f"which leads to no file of the site ({SERIES}): the link is dead" in m for m in messages[1:])


def _section(text: str, i: int) -> str:
    return text.split(f'<h3 id="track-{i}">', 1)[1].split('<div class="bl-chart"', 1)[0]


@pytest.mark.parametrize("edit", ["claim retold", "claim cut", "no-change note retold", "section cut"])
def test_a_charted_track_s_findings_edited_are_reported(drop_site, steady_site, tmp_path, edit):
    """Above each track's chart, its claims (or what it could have found) as change detection
    makes them again from the served records: the "Detected changes" block was checked, but a
    track's own claim retold or cut, its no-change note made bolder, or its whole section
    removed, passed."""
    changed = next(i for i in range(40) if 'data-verdict="changed"' in _section((drop_site / SERIES).read_text(), i))
    steady = 0

    def retell(text):
        head, section = text.split(f'<h3 id="track-{changed}">', 1)
        return head + f'<h3 id="track-{changed}">' + section.replace("changed, worse", "changed, better", 1)

    def cut_claims(text):
        section = _section(text, changed)
        return text.replace(section, section.split("\n", 1)[0] + "\n", 1)

    def bolder(text):
        section = _section(text, steady)
        return text.replace(section, re.sub(r"a step of about [0-9.]+%", "a step of about 0.1%", section), 1)

    def cut_section(text):
        head, rest = text.split(f'<h3 id="track-{steady}">', 1)
        return head + rest.split("</details>", 1)[1]

    source, track, action = {"claim retold": (drop_site, changed, retell), "claim cut": (drop_site, changed, cut_claims),
                             "no-change note retold": (steady_site, steady, bolder),
                             "section cut": (steady_site, steady, cut_section)}[edit]
    messages = audited_after_edit(source, tmp_path, SERIES, action)
    label = re.search(rf'<h3 id="track-{track}">([^<]*)</h3>', (source / SERIES).read_text()).group(1)
    claims = _section((source / SERIES).read_text(), track).count('<span class="bl-claim')
    expected = (f"SITE/{SERIES}: track-{track}: does not say what change detection finds along {html.unescape(label)!r} in the "
                f"served records ({claims} claim(s)), above its chart or in its row: the page was edited")
    if edit == "section cut":  # its chart went with it
        assert expected in messages, messages
    elif edit == "claim retold":  # and the claim itself is one change detection does not make
        assert messages[0] == expected and len(messages) == 2, messages
        assert messages[1].startswith(f"SITE/{SERIES}: shows a claim change detection does not make from the served records, ")
    else:
        assert messages == [expected]


@pytest.mark.parametrize("cell", ["last", "found"])
def test_a_track_s_row_among_those_not_charted_is_audited(tmp_path, monkeypatch, cell):
    """Past the chart limit a track's findings are a table row (its first and last values and
    what was found): the audit passes the page as built and reports a row edited."""
    from site_gen.audit import verify_site

    monkeypatch.setattr(series_pages, "MAX_TRACK_CHARTS", 2)
    (tmp_path / "capped").mkdir()
    capped = history_site(tmp_path / "capped", llm_history(8, drop_from=6))
    assert verify_site(capped) == []
    text = (capped / SERIES).read_text()
    i, label, first, last = re.search(r'<td><span id="track-(\d+)">([^<]*)</span></td>\s*<td>\d+</td>\s*<td>([^<]*)</td>\s*'
                                      r"<td>([^<]*)</td>", text).groups()

    def edit(text):
        row = text.split(f'<span id="track-{i}">', 1)[1].split("</tr>", 1)[0]
        value = re.search(r"b11153: ([0-9.]+)", last).group(1)
        new = row.replace(f"b11153: {value}", f"b11153: {float(value) * 2:g}", 1) if cell == "last" else \
            re.sub(r"a step of about [0-9.]+%", "a step of about 0.1%", row)
        return text.replace(row, new, 1)

    assert audited_after_edit(capped, tmp_path, SERIES, edit) == [
        f"SITE/{SERIES}: track-{i}: does not say what change detection finds along {html.unescape(label)!r} in the served "
        "records (0 claim(s)), above its chart or in its row: the page was edited"]


@pytest.mark.parametrize("edit", ["lede", "setup table", "records table"])
def test_the_series_stated_otherwise_than_its_records_give_it_is_reported(drop_site, tmp_path, edit):
    """A series page's lede (how many cases of which records), the setup every record shares and
    the table of its records are made again from the served records: a case count, a model or a
    record's hash edited on the page passed."""
    def lede(text):
        return text.replace('<p class="bl-lede">8 cases from 8 records', '<p class="bl-lede">9 cases from 9 records', 1)

    def setup(text):
        table = text.split('<details class="bl-setup">', 1)[1].split("</details>", 1)[0]
        cell = re.findall(r"<td>([^<]*)</td>\s*<td>identity</td>", table)[0]
        return text.replace(table, table.replace(f"<td>{cell}</td>", f"<td>{cell}-Instruct-AWQ</td>", 1), 1)

    def records(text):
        short = re.search(r'<code title="([0-9a-f]{64})">([0-9a-f]{12})</code>', text).group(2)
        return text.replace(f">{short}</code>", f">{short[::-1]}</code>", 1)

    messages = audited_after_edit(drop_site, tmp_path, SERIES, {"lede": lede, "setup table": setup, "records table": records}[edit])
    title = re.search(r"<title>([^<]*?) - ", (drop_site / SERIES).read_text()).group(1)
    assert messages == [f"SITE/{SERIES}: does not state the series {html.unescape(title)[:80]!r} as its served records give it: "
                        f"its {edit} was edited"], messages
