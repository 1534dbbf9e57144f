"""Comparison pages, the comparisons index, the articles' links and the explorer, on a real
build of the seeds plus variant records (tests/variants.py, consistent with the checks): the
graph-replay seed on an H200 (a device comparison) and on an H200 in bf16 (confounded with the
seed: device and profile), the LLM seed on an H200 and with a later llama.cpp release."""

from __future__ import annotations

import html as htmllib
import json
import re
import subprocess
from pathlib import Path

import pytest

from benchledger.records.store import Store
from site_gen import raw_html
from tests.site_gen.site_support import GRAPH_PAGE, OFFLOAD_PAGE, build
from tests.store_copies import GSH, TGR, shipped_copy
from tests.variants import H200, encoded, graph_variant, llm_variant

VARIANTS = (
    (TGR, "torch-graph-replay/h200.json", lambda: graph_variant(device=H200, eager_factor=0.6, graph_factor=0.7)),
    (TGR, "torch-graph-replay/h200-bf16.json", lambda: graph_variant(device=H200, profile="bf16", eager_factor=0.5, graph_factor=0.55)),
    (GSH, "llm-cpu-offload/h200.json", lambda: llm_variant(gpu=H200, decode_factor=1.5, first_token_factor=0.5)),
    (GSH, "llm-cpu-offload/b11200.json", lambda: llm_variant(release="b11200", decode_factor=1.05)),
)


def variant_site(tmp: Path):
    """The shipped store plus the variants, built; returns (records dir, BuildResult)."""
    records = shipped_copy(tmp)
    store = Store(records)
    for schema, path, make in VARIANTS:
        store.seal_bytes(encoded(make()), schema, path)
    return records, build(tmp, records)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return variant_site(tmp_path_factory.mktemp("comparisons"))


def page(site, path: str) -> str:
    return (site[1].out_dir / path).read_text(encoding="utf-8")


def shas(site) -> dict[str, str]:
    return {e.path: e.sha256 for e in Store(site[0]).entries()}


def links(index: str, kind: str) -> dict[str, str]:
    """axis slug -> page path, from the comparisons index."""
    found = re.findall(rf'href="({kind}/([a-z-]+)-[0-9a-f]{{12}}\.html)"', index)
    return {axis: href for href, axis in found}


def test_index_lists_each_comparison_by_kind_and_axis_then_the_confounded_pair(site):
    index = page(site, "comparisons/index.html")
    assert set(links(index, "torch-graph-replay-1")) == {"device", "profile"}
    assert set(links(index, "gsh-llm-core-article-1")) == {"gpu", "runtime-release"}
    confounded = index[index.index('id="confounded-2"'):]
    row = re.search(r"<tr><td>.*?</tr>", confounded, re.S).group(0)
    assert "torch-graph-replay/2026-10-28.json" in row and "torch-graph-replay/h200-bf16.json" in row
    assert "device: NVIDIA GeForce RTX 4090 vs NVIDIA H200; numeric profile: fp16 vs bf16" in row


def test_device_comparison_page_has_both_records_numbers_speedups_and_hashes(site):
    index = page(site, "comparisons/index.html")
    device = page(site, "comparisons/" + links(index, "torch-graph-replay-1")["device"])
    sha = shas(site)
    seed, h200 = sha["torch-graph-replay/2026-10-28.json"], sha["torch-graph-replay/h200.json"]
    assert "h200-bf16" not in device  # confounded with the seed, and the fp16 pair is one axis apart
    for record in (seed, h200):
        assert record[:12] in device
        # every measurement's speedup of both records, traced to its pointer
        for i in range(8):
            assert f'data-sha256="{record}" data-pointer="/measurements/{i}/mean_speedup"' in device
    # ratio to the baseline (the RTX 4090, first in sort order): a derived number naming both records
    ratios = re.findall(r'<span class="bl-num bl-derived"[^>]*data-formula="B / A"[^>]*>', device)
    assert len(ratios) == 3 * 8  # three headline metrics at eight token lengths
    assert all(f"A = {seed}; B = {h200}" in r for r in ratios)
    assert "0.857" in device  # eager 0.6x over graph 0.7x: the H200's speedup is 0.857 of the seed's
    assert device.count('class="bl-chart"') == 3
    # timings are means without their values: no difference is called, said once per metric
    # instead of "no range: no claim" in every row
    assert "higher (p" not in device and "lower (p" not in device
    assert "no range: no claim" not in device and ": difference</th>" not in device
    assert device.count("No difference is called here: the records give these numbers without their spread") == 3
    # points named as readers name them; the run's Unix time with its date
    assert ">tokens 16,384, length kind synthetic_exact_text</td>" in device
    assert re.search(r'data-pointer="/finished_epoch"[^>]*>1793167319.0615695</span> \(2026-10-28 UTC\)', device)
    # a record that is one case: no "case" column repeating its path beside the record's
    assert "<th scope=\"col\">case</th>" not in device and "<th scope=\"col\">record</th>" in device
    # limitations beside what they limit: the withheld p95 of five repetitions, under graph timings
    assert "percentile-p95-minimum-samples" in device


def test_llm_gpu_comparison_calls_disjoint_ranges_and_places_limitations(site):
    index = page(site, "comparisons/index.html")
    gpu = page(site, "comparisons/" + links(index, "gsh-llm-core-article-1")["gpu"])
    for path in ("llm-cpu-offload/2026-09-27.json", "llm-cpu-offload/h200.json"):
        assert path in gpu
    assert gpu.count('id="section-') == 3  # one section per placement held fixed (81, 40, 20 layers)
    assert gpu.count('class="bl-chart"') == 3 * 4  # four headline metrics each
    # decode 1.5x with ranges of 5 values disjoint: called, with the exact rank-test p
    assert gpu.count("higher (p = 0.0079, adjusted 0.0079)") == 6 and gpu.count("lower (p = 0.0079, adjusted 0.0079)") == 6
    assert ('title="B is higher: all 5 values of B lie above all 5 of A (exact rank test p = 2/C(10,5) = 0.0079; '
            'Benjamini-Hochberg adjusted p = 0.0079 over the 2 tests of this table)"') in gpu
    # energy per token is derived (no range): its ratio names the joules and tokens of both records
    assert "B / A, each joules / completed_output_tokens" in gpu
    assert "single-stream" in gpu and "Five repeated rounds share a process" in gpu
    assert gpu.count("<th scope=\"col\">case</th>") == 3  # cases of a record name themselves: offload-72b-full ...
    # what else differs, though never required to agree, is said in the lede too
    release = page(site, "comparisons/" + links(index, "gsh-llm-core-article-1")["runtime-release"])
    assert ("differ only in <strong>runtime release</strong>; context fields differ too (shown in the tables below, never "
            "required to agree): runtime commit.") in release


def test_a_later_release_with_overlapping_ranges_makes_no_claim_where_they_overlap(site):
    index = page(site, "comparisons/index.html")
    release = page(site, "comparisons/" + links(index, "gsh-llm-core-article-1")["runtime-release"])
    assert "b11146" in release and "b11200" in release
    assert "ranges overlap: no claim" in release


def test_articles_link_to_every_comparison_that_includes_them(site):
    index = page(site, "comparisons/index.html")
    graph = page(site, GRAPH_PAGE)
    assert 'class="bl-compared"' in graph
    assert links(index, "torch-graph-replay-1")["device"] in graph
    assert links(index, "torch-graph-replay-1")["profile"] not in graph  # the seed is not in the profile one
    offload = page(site, OFFLOAD_PAGE)
    for href in links(index, "gsh-llm-core-article-1").values():
        assert href in offload


def test_methodology_documents_the_tables_and_the_rule(site):
    methodology = page(site, "methodology.html")
    assert 'id="comparisons"' in methodology and 'id="calling-a-difference"' in methodology
    assert "2 / C(" in methodology and "0.0079" in methodology
    assert "<code>device</code> (device)</td><td>axis" in methodology
    assert "<code>context_tokens</code> (context)</td><td>identity" in methodology
    assert "<code>kernel</code> (kernel)</td><td>context" in methodology


def test_explorer_data_lists_every_case_of_every_record_once(site):
    out = site[1].out_dir
    script = (out / "assets/explore/gsh-llm-core-article-1.js").read_text()
    data = json.loads(script[script.index("]=") + 2:].rstrip().rstrip(";"))
    assert len(data["records"]) == 3 and len(data["rows"]) == 3 * 3 * 2  # records x cases x contexts
    assert {r[1] for r in data["records"]} == {"llm-cpu-offload/2026-09-27.json", "llm-cpu-offload/h200.json",
                                               "llm-cpu-offload/b11200.json"}
    graph = (out / "assets/explore/torch-graph-replay-1.js").read_text()
    assert graph.count('"/measurements/') == 3 * 8
    # loaded by its explorer page only
    users = [p.relative_to(out).as_posix() for p in out.rglob("*.html") if "explore/gsh-llm-core-article-1.js" in p.read_text(encoding="utf-8")]
    assert users == ["explore/gsh-llm-core-article-1.html"]


# A line that opens block-level HTML: Python-Markdown would parse it (md_in_html) unless stashed.
BLOCK_HTML = re.compile(r"<(div|table|p|details|ul|ol|dl|pre|figure|script|noscript|h[1-6])[\s>]")


def test_generated_html_reaches_mkdocs_as_raw_blocks_and_headings_stay_markdown(site):
    docs = site[1].docs_dir
    pages = [p for p in docs.rglob("*.md") if p.relative_to(docs).parts[0] in {"comparisons", "series", "explore", "articles"}]
    pages += [docs / name for name in ("transparency.md", "methodology.md", "index.md", "audit.md")]
    assert len([p for p in pages if "comparisons" in p.relative_to(docs).parts]) == 5  # the index and 4 comparisons
    for path in pages:
        inside = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line in (raw_html.START, raw_html.END):
                assert inside == (line == raw_html.END), f"{path}:{number}: unbalanced marker"
                inside = line == raw_html.START
            elif BLOCK_HTML.match(line):
                assert inside, f"{path}:{number}: generated HTML outside a raw block: {line[:80]}"
        assert not inside, f"{path}: unclosed raw block"
    # headings are still Markdown: in the table of contents, with their permalinks
    index = page(site, "comparisons/index.html")
    gpu = page(site, "comparisons/" + links(index, "gsh-llm-core-article-1")["gpu"])
    assert re.search(r'<h3 id="s0-decode-tokens-per-s">.*?<a class="headerlink" href="#s0-decode-tokens-per-s"', gpu)
    assert 'href="#section-1"' in gpu.split('class="md-content"')[0]  # the TOC sidebar lists the sections
    assert 'id="confounded-2"' in index and 'class="headerlink" href="#confounded-2"' in index


def test_a_setup_measured_many_times_is_bounded_and_says_what_it_left_out(tmp_path):
    records = shipped_copy(tmp_path)
    store = Store(records)
    for day in range(1, 5):  # four repeats of the seed's setup, then the seed on an H200
        store.seal_bytes(encoded(llm_variant(tested_at=f"2026-11-0{day}")), GSH, f"repeat/2026-11-0{day}.json")
    store.seal_bytes(encoded(llm_variant(gpu=H200, decode_factor=1.5)), GSH, "llm-cpu-offload/h200.json")
    out = build(tmp_path, records).out_dir
    index = (out / "comparisons" / "index.html").read_text(encoding="utf-8")
    gpu = (out / "comparisons" / links(index, "gsh-llm-core-article-1")["gpu"]).read_text(encoding="utf-8")
    # five RTX PRO 6000 cases per placement, three shown: the rest named, the explorer linked
    assert gpu.count("left out of this section") == 3
    assert "2 more with NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition" in gpu
    # the last three sealed: the seed and the first repeat are left out
    assert "repeat/2026-11-01.json" not in gpu and "repeat/2026-11-02.json" in gpu and "repeat/2026-11-04.json" in gpu
    assert "Repeats of one setup disagree" not in gpu  # repeats of equal numbers: nothing to say
    # four cases shown per section: a column group per case (each named by value and record),
    # one chart line per GPU through the points of all its cases
    section = gpu[gpu.index('id="section-0"'):gpu.index('id="section-1"')]
    # (the baseline is the H200, first in sort order)
    assert section.count("<th scope=\"col\">NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition · repeat/2026-11-02.json: "
                         "ratio to baseline</th>") == 4
    spec = json.loads(re.search(r'<script type="application/json" id="spec-s0-decode-tokens-per-s">(.*?)</script>', section).group(1))
    assert len({row["series"] for row in spec["datasets"][next(iter(spec["datasets"]))]}) == 2
    # the seed's placement sweep repeated by four records: nine cases shown, a row per point and case
    layers = (out / "comparisons" / links(index, "gsh-llm-core-article-1")["gpu-layers"]).read_text(encoding="utf-8")
    assert "<th scope=\"col\">ratio to baseline</th>" in layers and layers.count("left out of this section") == 1


def test_a_record_joining_a_comparison_rewrites_no_other_article(tmp_path):
    """The articles' "compared with" links carry no values or record counts: a fifth LLM record
    along runtime release joins that comparison page (whose title gains its value) and leaves
    every other article's Markdown as it was (with counts, each article of the kind changed),
    but for the link to the later run on the article of the run sealed before it."""
    records, first = variant_site(tmp_path)
    articles = {p: p.read_bytes() for p in (first.docs_dir / "articles").rglob("*.md")}
    Store(records).seal_bytes(encoded(llm_variant(release="b11300", decode_factor=1.1)), GSH, "llm-cpu-offload/b11300.json")
    again = build(tmp_path, records)
    changed = sorted(p.relative_to(again.docs_dir).as_posix() for p, before in articles.items() if p.read_bytes() != before)
    assert changed == ["articles/llm-cpu-offload/b11200.md"]  # the last run of the series before
    runs = re.compile(rb'<nav class="bl-runs".*?</nav>')
    last = again.docs_dir / changed[0]
    assert b'href="b11300.html" rel="next"' in last.read_bytes()
    assert runs.sub(b"", last.read_bytes()) == runs.sub(b"", articles[last])
    new = (again.docs_dir / "articles" / "llm-cpu-offload" / "b11300.md").read_text(encoding="utf-8")
    assert 'class="bl-compared"' in new and "runtime release" in new.lower()


def test_records_sharing_a_file_name_download_apart_and_their_shown_command_checks_them(site, tmp_path):
    """Two records called h200.json (one per benchmark folder) download under their whole store
    paths, and the `sha256sum` line each audit block shows, run on the file saved under that
    name, prints the line the block says it must."""
    names = []
    for path in ("torch-graph-replay/h200.json", "llm-cpu-offload/h200.json"):
        article = page(site, "articles/" + path[: -len(".json")] + ".html")
        audit = article[article.index('class="bl-audit"'):]
        name = re.search(r'download="([^"]+)">Download the record', audit).group(1)
        command, expected = re.search(r"<pre><code>(sha256sum [^\n]+)\n([^<]+)</code></pre>", audit).groups()
        assert command == f"sha256sum {name}"
        (tmp_path / name).write_bytes((site[1].out_dir / "records" / path).read_bytes())
        printed = subprocess.run(command.split(), cwd=tmp_path, capture_output=True, text=True, check=True).stdout
        assert printed == expected + "\n"
        names.append(name)
    assert names == ["torch-graph-replay+h200.json", "llm-cpu-offload+h200.json"]


def test_a_repeat_of_the_baseline_gets_no_verdict_and_the_baseline_is_the_repeat_with_raw_values(tmp_path):
    """Two H200 records of one setup (the H200 sorts first: the baseline value), 9% apart: the
    second was called "lower (p = 0.0079)" than the first on a page whose cases "differ only in
    GPU", and the first, summaries only, was the baseline although the second carried its values."""
    from tests.history import add_requests

    records = shipped_copy(tmp_path)
    store = Store(records)
    store.seal_bytes(encoded(llm_variant(gpu=H200, decode_factor=1.5)), GSH, "h200/summaries.json")
    store.seal_bytes(encoded(add_requests(llm_variant(gpu=H200, decode_factor=1.36))), GSH, "h200/values.json")
    out = build(tmp_path, records).out_dir
    index = (out / "comparisons" / "index.html").read_text(encoding="utf-8")
    gpu = (out / "comparisons" / links(index, "gsh-llm-core-article-1")["gpu"]).read_text(encoding="utf-8")
    section = gpu[gpu.index('id="section-0"'):gpu.index('id="section-1"')]
    table = next(t for t in re.findall(r"<table.*?</table>", section, re.S) if ": difference</th>" in t)  # decode, the first metric
    heads = re.findall(r'<th scope="col">([^<]*)</th>', table)
    assert "NVIDIA H200 · h200/summaries.json: difference" in heads  # set against the baseline ...
    assert "NVIDIA H200 · h200/values.json: difference" not in heads  # ... which is the record with values
    column = heads.index("NVIDIA H200 · h200/summaries.json: difference")
    cells = [re.findall(r"<td>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]]
    assert cells and all("repeat of the baseline: no claim" in row[column] for row in cells)
    assert all("higher" not in row[column] and "lower" not in row[column] for row in cells)
    # the other GPU is still judged against the baseline, on its values
    other = heads.index("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition · llm-cpu-offload/2026-09-27.json: difference")
    assert all("lower (p = " in row[other] for row in cells)
    # sizes among the context fields read in their unit ("GPU memory 102641958912" before), traced
    shared = section[section.index("Context shared by these cases"):]
    shared = shared[:shared.index("</details>")]
    memory = re.search(r"<td>GPU memory</td>\s*<td>(.*?)</td>", shared, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", memory) == "95.6\u202fGiB" and 'data-pointer="/hardware/gpu_vram_bytes"' in memory
    # the chart's contexts are whole numbers, in its spec and in the table behind it ("2048.0" before)
    behind = section[section.index('<details class="bl-chart-data">'):]
    behind = behind[:behind.index("</details>")]
    assert '"x":2048,' in section and "<td>2048</td>" in behind and "2048.0" not in behind
    # and the page says that its repeats differ beyond their runs' own spread, and by how much
    assert ("Repeats of one setup disagree here: the records of NVIDIA H200 differ from each other by up to 9.3 %, "
            "beyond the spread within each run.") in section
    from site_gen.audit import verify_site

    assert verify_site(out) == []  # every number these pages show reads as its record's


def test_a_record_that_is_one_case_is_named_once_in_a_long_table(tmp_path):
    """Past four cases a comparison lists a row per point and case, each naming its record and
    case: a graph-replay record is one case labelled by its path, which read "h100.json h100.json"."""
    records = shipped_copy(tmp_path)
    store = Store(records)
    for i, device in enumerate(["NVIDIA A100", "NVIDIA H100", "NVIDIA L40S", "NVIDIA H200"]):
        store.seal_bytes(encoded(graph_variant(device=device, eager_factor=1 + i / 10)), TGR, f"gpus/{i}.json")
    out = build(tmp_path, records).out_dir
    index = (out / "comparisons" / "index.html").read_text(encoding="utf-8")
    page = (out / "comparisons" / links(index, "torch-graph-replay-1")["device"]).read_text(encoding="utf-8")
    named = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r'<td><a href="[^"]*">([^<]*)</a></td>', page)]
    assert "gpus/1.json" in named and not [n for n in named if n.count(".json") > 1], named


def test_many_numeric_axis_values_are_charted_along_x_with_a_line_per_point(tmp_path):
    """A sweep of many GPU-layer values drew one line per value (39 at 1,000 records: colours
    repeated, Vega cut the legend); past MAX_CHART_LINES values that are numbers the chart turns:
    the axis on x, one line per context."""
    import copy

    from site_gen.pages.comparisons import MAX_CHART_LINES
    from tests.variants import seed

    data = seed(GSH)
    source = data["cases"][1]
    for layers in range(1, MAX_CHART_LINES + 1):  # the seed's three placements and ten more
        extra = copy.deepcopy(source)
        extra["id"] = f"offload-72b-{layers}"
        extra["placement"]["gpu_layers"] = layers
        extra["settings"]["placement"]["gpu_layers"] = layers
        data["cases"].append(extra)
    data["comparisons"] = [{"axis": "gpu_layers", "cases": [c["id"] for c in data["cases"]]}]
    data["tested_at"] = "2026-12-02"
    records = shipped_copy(tmp_path)
    Store(records).seal_bytes(encoded(data), GSH, "sweep/2026-12-02.json")
    out = build(tmp_path, records).out_dir
    index = (out / "comparisons" / "index.html").read_text(encoding="utf-8")
    layers_page = (out / "comparisons" / links(index, "gsh-llm-core-article-1")["gpu-layers"]).read_text(encoding="utf-8")
    specs = [json.loads(s) for s in re.findall(r'<script type="application/json" id="spec-s\d+-[a-z-]+">(.*?)</script>', layers_page, re.S)]
    turned = [s for s in specs if len({row["x"] for row in s["datasets"]["points"]}) > MAX_CHART_LINES]
    assert turned, "no chart has the GPU-layer values on x"
    for spec in turned:
        lines = {row["series"] for row in spec["datasets"]["points"]}
        assert lines == {"context 2,048", "context 8,192"}
        assert {1, 10} <= {row["x"] for row in spec["datasets"]["points"]}
    assert "one line per context" in layers_page and "by GPU layers, one line per" in layers_page


@pytest.mark.parametrize("edit", ["reworded", "moved to a record that lacks it"])
def test_a_limitation_shown_where_records_are_compared_is_one_its_record_has(site, tmp_path, edit):
    """A comparison page lists the limitations of the records it compares, with the records they
    apply to: one reworded ("Single stream" made "Many streams"), or named as another record's,
    with SHA256SUMS listed again, passed. Each record it no longer names as it is is then said
    to be shown without that caveat."""
    from site_gen.audit import verify_site
    from tests.site_gen.site_support import audited_after_edit

    out = site[1].out_dir
    assert verify_site(out) == []
    index = page(site, "comparisons/index.html")
    rel = "comparisons/" + links(index, "gsh-llm-core-article-1")["gpu"]
    note = re.search(r'<li class="bl-lim bl-lim-generator"><span class="bl-lim-rule">single-stream</span> ([^<]*) '
                     r'<span class="bl-lim-where">\(([^<]*)\)</span>', page(site, rel))
    words, where = note.groups()
    places = sorted(place.split(" ") for place in where.split("; "))
    path = where.split(" ", 1)[0]

    def cut(path: str, scope: str) -> str:
        anchor = next(lim.anchor for lim in _limitations(out, path) if lim.rule_id == "single-stream" and lim.scope == scope)
        return (f'SITE/{rel}: shows numbers of {path} without its limitation {anchor} (single-stream: '
                f'"{htmllib.unescape(words)[:80]}"), which applies to those under {scope}: a caveat was cut from the page')
    if edit == "reworded":
        new, expected = note.group(0).replace(words, "Many streams: throughput under load is measured."), \
            [f'SITE/{rel}: shows "Many streams: throughput under load is measured." (single-stream) as a limitation of {path}, '
             "which it is not: the page was edited"] + [cut(*place) for place in places]
    else:
        other = "torch-graph-replay/h200.json"
        new, expected = note.group(0).replace(f"({path} ", f"({other} "), \
            [f'SITE/{rel}: shows "{words}" (single-stream) as a limitation of {other}, which it is not: the page was edited',
             cut(path, next(scope for named, scope in places if named == path))]
    assert audited_after_edit(out, tmp_path, rel, lambda text: text.replace(note.group(0), new, 1)) == expected


def test_a_record_wide_limitation_cut_from_a_comparison_is_reported(site, tmp_path):
    """A comparison lists each limitation that applies to all of a compared record's numbers: one
    cut from its list (SHA256SUMS listed again) passed, where only what the lists show was held."""
    from tests.site_gen.site_support import audited_after_edit

    out = site[1].out_dir
    index = page(site, "comparisons/index.html")
    rel = "comparisons/" + links(index, "gsh-llm-core-article-1")["gpu"]
    block = page(site, rel).split("Limitations of the compared records", 1)[1].split("</ul>", 1)[0]
    note = re.search(r'<li class="bl-lim bl-lim-[a-z]+"><span class="bl-lim-rule">([^<]*)</span> [^<]* '
                     r'<span class="bl-lim-where">\(([^<]*)\)</span></li>', block)
    rule, where = note.groups()
    records = [place.split(" ", 1)[0] for place in where.split("; ")]
    assert records and " more" not in where  # every record it applies to is named
    found = audited_after_edit(out, tmp_path, rel, lambda text: text.replace(note.group(0), "", 1))
    assert [f.split(" without ", 1)[0] for f in found] == [f"SITE/{rel}: shows numbers of {path}" for path in sorted(records)]
    assert all(f"({rule}: " in f and f.endswith("which applies to all of them: a caveat was cut from the page") for f in found)


def _gpu_comparison(site) -> tuple[Path, str, str]:
    """The built site, the LLM GPU comparison's path in it and its HTML."""
    rel = "comparisons/" + links(page(site, "comparisons/index.html"), "gsh-llm-core-article-1")["gpu"]
    return site[1].out_dir, rel, page(site, rel)


def test_a_case_s_limitation_cut_from_a_comparison_is_reported(site, tmp_path):
    """A caveat scoped at a case ("single stream", under "Limitations of these cases") cut from
    the comparison showing that case's numbers, SHA256SUMS listed again, passed: only what the
    lists said and the record-wide caveats were held."""
    from tests.site_gen.site_support import audited_after_edit

    out, rel, html = _gpu_comparison(site)
    block = html.split("Limitations of these cases", 1)[1].split("</ul>", 1)[0]
    note = re.search(r'<li class="bl-lim bl-lim-generator"><span class="bl-lim-rule">single-stream</span> ([^<]*) '
                     r'<span class="bl-lim-where">\(([^<]*)\)</span></li>', block)
    words, where = htmllib.unescape(note.group(1)), note.group(2)
    places = [place.split(" ") for place in where.split("; ")]
    assert len(places) == 2 and {scope for _, scope in places} == {"/cases/0"}
    found = audited_after_edit(out, tmp_path, rel, lambda text: text.replace(note.group(0), "", 1))
    anchors = {path: next(lim.anchor for lim in _limitations(out, path) if lim.rule_id == "single-stream" and lim.scope == "/cases/0")
               for path, _ in places}
    assert found == [f'SITE/{rel}: shows numbers of {path} without its limitation {anchors[path]} (single-stream: "{words}"), '
                     "which applies to those under /cases/0: a caveat was cut from the page" for path, _ in sorted(places)]


@pytest.mark.parametrize("more", ["", " and 1 more", " and 99 more"])
def test_a_record_cut_from_where_a_comparison_s_limitation_applies_is_reported(site, tmp_path, more):
    """A number's caveat (p95 withheld, under its metric) listed with one of the records it
    applies to cut from its places passed; counted among "and 1 more" instead, it is still said;
    "and 99 more", more than the compared records have, would hide any place cut."""
    from site_gen.audit import verify_site
    from tests.site_gen.site_support import audited_after_edit

    out, rel, html = _gpu_comparison(site)
    note = re.search(r'<span class="bl-lim-rule">percentile-p95-minimum-samples</span> ([^<]*) '
                     r'<span class="bl-lim-where">\(([^<]*)\)</span>', html)
    places = note.group(2).split("; ")
    assert len(places) == 4
    cut = places[-1]
    path, scope = cut.split(" ")
    edited = note.group(0).replace(note.group(2), "; ".join(places[:-1]) + more)
    found = audited_after_edit(out, tmp_path, rel, lambda text: text.replace(note.group(0), edited, 1))
    words = htmllib.unescape(note.group(1))[:80]
    if more == " and 1 more":
        assert found == []
    elif more:  # the cut place, and four the page does not show in the same words (response time's p95, two groups of two records)
        assert found == [f'SITE/{rel}: counts 99 more places for "{words}" (percentile-p95-minimum-samples), where the records '
                         "it shows have 5 more: the page was edited"]
    else:
        lim = next(lim for lim in _limitations(out, path) if lim.rule_id == "percentile-p95-minimum-samples" and lim.scope == scope)
        assert found == [f"SITE/{rel}: shows numbers of {path} without its limitation {lim.anchor} "
                         f'(percentile-p95-minimum-samples: "{words}"), which applies to those under {scope}: a caveat was '
                         "cut from the page"]
    assert verify_site(out) == []


def _limitations(out: Path, path: str) -> list:
    """The limitations of the served record at `path` (site_gen.limitations)."""
    from site_gen.limitations import find_limitations

    return find_limitations(json.loads((out / "records" / path).read_bytes()))
