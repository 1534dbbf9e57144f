"""Citations expanded from sealed bytes: golden output for every kind on the shipped articles,
one test per failure (file and line in the message), hostile record text staying literal,
and articles pinned to the exact bytes they cite."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from benchledger.cli import main as cli
from benchledger.errors import ProblemsError
from benchledger.records.store import LedgerEntry, SealedRecord, Store
from site_gen.articles import Article

from .authored_support import GRAPH, OFFLOAD, ROOT, build_pages, build_real, check_golden, copy_project, write_article

KINDS_BODY = """\
cite: {{ cite("offload", "/cases/0/groups/0/server_decode_tokens_per_second/mean", unit="tokens/s") }}
text: {{ text("offload", "/hardware/gpu") }}
ratio: {{ ratio("graph", "/measurements/1/timing/eager/mean_ms", "/measurements/1/timing/graph/mean_ms") }}
per: {{ per("offload", "/cases/1/groups/0/resources/gpu_energy/joules", "/cases/1/groups/0/completed_output_tokens", unit="J/token") }}
difference: {{ difference("graph", "/measurements/1/timing/eager/mean_ms", "/measurements/1/timing/graph/mean_ms", unit="ms") }}
withheld: {{ cite("graph", "/measurements/3/timing/graph/p95_ms", unit="ms") }}
unavailable: {{ cite("offload", "/cases/0/resources_by_phase/baseline/gpu_energy/joules", unit="J") }}

{{ table("graph", rows="/measurements/*", columns=[["Tokens", "tokens"], ["Graph", "timing/graph/mean_ms", "ms"], {"label": "Speed-up", "ratio": ["timing/eager/mean_ms", "timing/graph/mean_ms"]}]) }}

{{ chart("graph", rows="/measurements/*", x="tokens", y="mean_speedup", x_title="tokens", y_title="speed-up", log_x=True) }}

{{ limitations("graph") }}

{{ provenance("offload") }}

literal: \\{{ not a citation }}

```
{{ code, not a citation }}
```
"""


@pytest.fixture()
def project(tmp_path):
    return copy_project(tmp_path)


def expand_problems(records, articles) -> list[str]:
    with pytest.raises(ProblemsError) as err:
        build_pages(records, articles)
    assert err.value.exit_code != 0
    return err.value.lines()


def test_shipped_articles_match_golden(project):
    pages = build_pages(*project)
    for slug in ("llama-cpp-cpu-offload-72b", "cuda-graph-replay-scoring"):
        check_golden(f"{slug}.md", pages[f"posts/{slug}.md"].markdown)


def test_each_citation_kind_matches_golden(project):
    records, articles = project
    write_article(articles, "kinds", KINDS_BODY, {"offload": OFFLOAD[:12], "graph": GRAPH})
    page = build_pages(records, articles)["posts/kinds.md"]
    check_golden("kinds.md", page.markdown)
    assert "{{ code, not a citation }}" in page.markdown
    assert "\\{{ not a citation }}" in page.markdown
    assert any(path.endswith(".svg") for path in page.assets)


def test_cited_number_carries_origin_and_formula(project):
    page = build_pages(*project)["posts/llama-cpp-cpu-offload-72b.md"].markdown
    assert f'data-sha256="{OFFLOAD}" data-pointer="/cases/1/groups/0/server_decode_tokens_per_second/median"' in page
    assert re.search(">1.08[\u202f ]tokens/s</span>", page)
    assert 'data-formula="a / b = 25.778169650885744 / 1.0769342620955185"' in page


def test_withheld_percentile_renders_withheld_with_reason(project):
    page = build_pages(*project)["posts/cuda-graph-replay-scoring.md"].markdown
    assert 'data-pointer="/measurements/3/timing/graph/p95_ms"' in page
    match = re.search(r'data-pointer="/measurements/3/timing/graph/p95_ms"[^>]*>([^<]*)</span> <span class="bl-withheld">\(([^)]*)', page)
    assert match and match.group(1) == "withheld"
    assert "p95 withheld: 5 samples, below 130" in match.group(2)
    assert "9.38" not in page  # the withheld value itself is not shown


def test_shipped_articles_type_no_measured_digit(project):
    """Prose outside citations holds no measured value: every number on the page comes from a
    citation. (Digits in the article source may only appear inside {{ }} or code.)"""
    records, articles = project
    for path in articles.glob("*.md"):
        article = Article.parse(path.name, path.read_text())
        prose = re.sub(r"\{\{.*?\}\}", "", article.body, flags=re.S)
        prose = re.sub(r"`[^`]*`", "", prose)
        assert not re.findall(r"\d", re.sub(r"\bp9[059]\b|72-billion|4-bit", "", prose)), path.name


FAILURES = [
    ("not sealed", {"r": "ab" * 8}, "x", 8, "records.r: no sealed record has sha256 abababababababab"),
    ("pointer missing", {"r": OFFLOAD}, 'a {{ cite("r", "/cases/7/id") }}', 10, "cite(): pointer /cases/7/id does not exist in record r"),
    ("object as number", {"r": OFFLOAD}, 'a\n{{ cite("r", "/cases/0") }}', 11, "cite(): /cases/0 in record r is an object"),
    ("string as number", {"r": OFFLOAD}, '{{ cite("r", "/hardware/gpu") }}', 10, "is a string ('NVIDIA RTX PRO 6000"),
    ("number as text", {"r": OFFLOAD}, '{{ text("r", "/cases/0/placement/gpu_layers") }}', 10, "is a number (81), not text"),
    ("unknown name", {"r": OFFLOAD}, '{{ cite("other", "/x") }}', 10, "'other' is not a record named in this article's front matter"),
    ("unknown kind", {"r": OFFLOAD}, '{{ quote("r", "/x") }}', 10, "quote(): unknown citation kind"),
    ("expression argument", {"r": OFFLOAD}, '{{ cite("r", "/a" + "/b") }}', 10, "arguments must be literals"),
    ("missing argument", {"r": OFFLOAD}, '{{ cite("r") }}', 10, "missing a required argument: 'pointer'"),
    ("missing arguments", {"r": OFFLOAD}, '{{ chart("r") }}', 10, "chart(): missing required arguments: rows, x, y, x_title, y_title"),
    ("block inline", {"r": OFFLOAD}, 'see {{ limitations("r") }}', 10, "a block citation must stand alone"),
    ("unclosed", {"r": OFFLOAD}, "x\n\ny {{ cite(", 12, "'{{' is not closed by '}}'"),
    ("short prefix", {"r": OFFLOAD[:8]}, "x", 8, "prefix 'ebcfc483' is too short"),
    ("withheld into a formula", {"r": GRAPH}, '{{ ratio("r", "/measurements/3/timing/eager/p95_ms", "/measurements/3/timing/graph/p95_ms") }}', 10, "is withheld (p95 withheld: 5 samples, below 130"),
    ("unexplained null", {"r": OFFLOAD}, '{{ cite("r", "/cases/0/groups/0/resources/gpu_energy/reason") }}', 10, "is null and no limitation explains why"),
    ("sort by a missing field", {"r": GRAPH}, '{{ table("r", rows="/measurements/*", columns=[["t", "tokens"]], sort="nope") }}', 10,
     "sort 'nope': row /measurements/0 has null there; every row needs a number there, or every row text"),
    ("sort by an object", {"r": GRAPH}, '{{ table("r", rows="/measurements/*", columns=[["t", "tokens"]], sort="-timing") }}', 10,
     "sort '-timing': row /measurements/0 has an object (keys: eager, graph) there"),
    ("rule not a number", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="tokens", y="mean_speedup", x_title="t", '
     'y_title="s", rule="one") }}', 10, "chart(): rule must be a number: the y value of the horizontal rule"),
    ("division by zero", {"r": OFFLOAD}, '{{ ratio("r", "/cases/0/placement/gpu_layers", "/cases/0/placement/requested_cpu_expert_layers") }}', 10, "is 0: cannot divide by it"),
    # a size or a duration cited in another unit of its ladder would read 1,000 or 1,024 times off
    ("milliseconds as seconds", {"r": GRAPH}, '{{ cite("r", "/measurements/1/timing/eager/mean_ms", unit="s") }}', 10,
     "cite(): unit names 's', but /measurements/1/timing/eager/mean_ms is in ms, as its field's name says: name 'ms' instead "
     "(a number is rescaled for reading where that fits: 0.048 s shows as 48.0 ms, bytes as KiB, MiB or GiB)"),
    ("seconds as milliseconds", {"r": GRAPH}, '{{ cite("r", "/measurements/0/capture_seconds", unit="ms") }}', 10,
     "cite(): unit names 'ms', but /measurements/0/capture_seconds is in s, as its field's name says: name 's' instead"),
    ("bytes as MiB in a table", {"r": GRAPH}, '{{ table("r", rows="/measurements/*", columns=[["peak", "peak_allocated_bytes", "MiB"]]) }}',
     10, "table(): unit names 'MiB', but /measurements/0/peak_allocated_bytes is in B, as its field's name says: name 'B' instead"),
    ("difference in another unit", {"r": GRAPH}, '{{ difference("r", "/measurements/1/timing/eager/mean_ms", '
     '"/measurements/1/timing/graph/mean_ms", unit="s") }}', 10, "difference(): unit names 's', but /measurements/1/timing/eager/mean_ms is in ms"),
    ("chart points in another unit", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="tokens", y="timing/eager/mean_ms", '
     'x_title="tokens", y_title="eager", unit="s") }}', 10, "chart(): unit names 's', but /measurements/0/timing/eager/mean_ms is in ms"),
    ("chart axis titled in another unit", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="tokens", y="timing/eager/mean_ms", '
     'x_title="tokens", y_title="eager mean (s), log scale", unit="ms") }}', 10,
     "chart(): y_title names 's', but /measurements/0/timing/eager/mean_ms is in ms, as its field's name says: name 'ms' instead "
     "(the axis shows the values as the record gives them)"),
    ("a ratio of milliseconds to seconds", {"r": GRAPH}, '{{ ratio("r", "/measurements/0/timing/eager/mean_ms", '
     '"/measurements/0/capture_seconds") }}', 10, "ratio(): /measurements/0/timing/eager/mean_ms is in ms and "
     "/measurements/0/capture_seconds in s, as their fields' names say: a ratio of them is off by the step between the two; "
     "cite two values in one unit"),
    ("a difference of seconds and milliseconds in a table", {"r": GRAPH}, '{{ table("r", rows="/measurements/*", columns=[{"label": '
     '"d", "difference": ["capture_seconds", "timing/graph/mean_ms"], "unit": "s"}]) }}', 10,
     "table(): /measurements/0/capture_seconds is in s and /measurements/0/timing/graph/mean_ms in ms"),
    ("chart x axis titled in another unit", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="timing/graph/mean_ms", '
     'y="mean_speedup", x_title="graph mean (s)", y_title="speed-up") }}', 10,
     "chart(): x_title names 's', but /measurements/0/timing/graph/mean_ms is in ms"),
    ("a chart of nulls", {"r": GRAPH}, '{{ chart("r", rows="/overlimit/*", x="tokens", y="prediction", x_title="tokens", '
     'y_title="prediction") }}', 10, "chart(): draws no point: y is null in every row (/overlimit/0/prediction and the rest); "
     "chart a value the rows give"),
    ("series values reading alike", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="tokens", y="timing/graph/mean_ms", '
     'x_title="tokens", y_title="graph", series="mean_speedup") }}', 10,
     "chart(): series values 1.0038133442770567 and 1.002467712252591 both read '1.00': their points would be joined as one "
     "line; name a series field whose values read apart"),
    # Vega draws a value of 0 or less on a log axis at its far end, as if it were the largest
    ("zero on a log y axis", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="tokens", y="max_absolute_error", '
     'x_title="tokens", y_title="error", log_y=True) }}', 10,
     "chart(): log_y=True, but /measurements/0/max_absolute_error is 0.0: a log axis cannot place 0 or less; leave log_y out or "
     "set it False"),
    ("zero on a log x axis", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="bitwise_mismatches", y="tokens", '
     'x_title="mismatches", y_title="tokens", log_x=True) }}', 10, "chart(): log_x=True, but /measurements/0/bitwise_mismatches is 0"),
    ("a rule at 0 on a log y axis", {"r": GRAPH}, '{{ chart("r", rows="/measurements/*", x="tokens", y="mean_speedup", '
     'x_title="tokens", y_title="speed-up", log_y=True, rule=0) }}', 10, "chart(): rule=0 cannot be drawn on a log y axis"),
]


@pytest.fixture(scope="module")
def chart_cache(tmp_path_factory):
    """One cache for the failing builds: the record pages' charts are rendered once."""
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("name,records_map,body,line,message", FAILURES, ids=[f[0] for f in FAILURES])
def test_build_fails_with_file_line_and_reason(project, tmp_path, chart_cache, capsys, name, records_map, body, line, message):
    """`benchledger build` exits non-zero and says file:LINE: reason; nothing is built."""
    records, articles = project
    write_article(articles, "broken", body, records_map)
    out = tmp_path / "site"
    code = cli.main(["build", "--records", str(records), "--out", str(out), "--articles", str(articles), "--cache", str(chart_cache)])
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    expected = f"benchledger build: error: docs/articles/broken.md:{line}: "
    assert any(l.startswith(expected) and message in l for l in err), err
    assert not out.exists()


def test_a_table_can_order_its_rows_by_a_field(project):
    """The graph record lists its lengths 338, 330, 322, ..., 32768, 28070: a table of them in
    that order read as if the longest came last; sort="tokens" orders them, "-tokens" reverses."""
    records, articles = project
    body = ('{{ table("g", rows="/measurements/*", columns=[["Tokens", "tokens", "tokens"]], sort="tokens") }}\n\n'
            '{{ table("g", rows="/measurements/*", columns=[["Kind", "kind"]], sort="-tokens") }}\n')
    write_article(articles, "sorted", body, {"g": GRAPH})
    page = build_pages(records, articles)["posts/sorted.md"].markdown
    pointers = re.findall(r'data-pointer="/measurements/(\d)/(tokens|kind)"', page)
    ascending = [int(i) for i, field in pointers if field == "tokens"]
    descending = [int(i) for i, field in pointers if field == "kind"]
    assert ascending == [2, 1, 0, 3, 4, 5, 7, 6], ascending  # 322, 330, 338, 1024, 4096, 16384, 28070, 32768
    assert descending == ascending[::-1]


def test_all_problems_reported_at_once(project):
    records, articles = project
    write_article(articles, "broken", '{{ cite("r", "/nope") }}\n{{ text("r", "/cases") }}\n', {"r": OFFLOAD})
    lines = expand_problems(records, articles)
    assert [l.split(": ")[0] for l in lines[:2]] == ["docs/articles/broken.md:10", "docs/articles/broken.md:11"]


def test_ambiguous_prefix_names_the_matches():
    """Two sealed hashes sharing 12 hex digits cannot be made on purpose; the rule is checked
    on SealedRecord values whose entries share a prefix."""
    def sealed(sha: str, path: str) -> SealedRecord:
        entry = LedgerEntry(0, path, sha, 2, "torch-graph-replay/1", "2026-01-01T00:00:00Z", "0" * 64, "0" * 64)
        return SealedRecord(entry, b"{}", {})

    text = '---\ntitle: t\ndate: 2026-01-01\nauthors: [a]\ntags: [t]\nsummary: s\nrecords:\n  r: "abcdefabcdef"\n---\n'
    article = Article.parse("docs/articles/t.md", text)
    with pytest.raises(ProblemsError) as err:
        article.resolve_records([sealed("abcdefabcdef" + "1" * 52, "a.json"), sealed("abcdefabcdef" + "2" * 52, "b.json")])
    (line,) = err.value.lines()
    assert line.startswith("docs/articles/t.md:8: records.r: prefix abcdefabcdef is ambiguous: it matches 2 sealed records")
    assert "(a.json)" in line and "(b.json)" in line


HOSTILE = '<script>alert(1)</script> **bold** [link](http://evil.example) {{ cite("h", "/x") }} {% raw %} | pipe'


def seal_hostile(records):
    data = json.loads((records / "llm-cpu-offload/2026-09-27.json").read_bytes())
    data["limitations"][0] = HOSTILE
    data["hardware"]["gpu"] = HOSTILE
    raw = json.dumps(data, indent=1).encode()
    entry = Store(records).seal_bytes(raw, "gsh-llm-core-article/1", "llm-cpu-offload/hostile.json")
    return entry.sha256


def test_hostile_record_text_stays_literal(project, tmp_path):
    records, articles = project
    sha = seal_hostile(records)
    write_article(articles, "hostile", 'GPU: {{ text("h", "/hardware/gpu") }}\n\n{{ limitations("h") }}\n\n{{ provenance("h") }}\n', {"h": sha})
    for path in articles.glob("*.md"):  # only the hostile article: keeps the build short
        if path.name != "hostile.md":
            path.unlink()
    html = (build_real(tmp_path, records, articles) / "posts" / "hostile.html").read_text()
    assert "<script>alert" not in html and "<strong>bold</strong>" not in html and 'href="http://evil.example"' not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3  # text, limitations, provenance
    assert '{{ cite("h", "/x") }}' in html.replace("&quot;", '"')  # Jinja-looking text is not expanded
    assert "**bold**" in html


def test_sealing_a_correction_leaves_the_article_citing_the_old_bytes(project):
    records, articles = project
    data = json.loads((records / "torch-graph-replay/2026-10-28.json").read_bytes())
    data["measurements"][1]["timing"]["graph"]["mean_ms"] = 9.5
    data["measurements"][1]["mean_speedup"] = data["measurements"][1]["timing"]["eager"]["mean_ms"] / 9.5
    corrected = Store(records).seal_bytes(json.dumps(data).encode(), "torch-graph-replay/1", "torch-graph-replay/2026-10-28-corrected.json")
    assert corrected.sha256 != GRAPH
    page = build_pages(records, articles)["posts/cuda-graph-replay-scoring.md"].markdown
    assert corrected.sha256 not in page
    assert f'data-sha256="{GRAPH}" data-pointer="/measurements/1/timing/graph/mean_ms"' in page
    assert re.search(">4.72[\u202f ]ms</span>", page)


def test_altered_sealed_bytes_fail_the_build_saying_so(project, tmp_path, chart_cache, capsys):
    records, articles = project
    path = records / "torch-graph-replay/2026-10-28.json"
    path.write_bytes(path.read_bytes().replace(b'"mean_ms": 4.7172745068868', b'"mean_ms": 3.7172745068868'))
    assert hashlib.sha256(path.read_bytes()).hexdigest() != GRAPH
    code = cli.main(["build", "--records", str(records), "--out", str(tmp_path / "site"), "--articles", str(articles), "--cache", str(chart_cache)])
    (line,) = capsys.readouterr().err.splitlines()
    assert code == 1
    assert "torch-graph-replay/2026-10-28.json: altered: sha256 is" in line and "but ledger line 2 sealed 24492206c24d" in line
    assert not (tmp_path / "site").exists()


def test_every_example_in_the_authoring_guide_expands(project):
    """docs/authoring.md's citation examples are real: each one builds against the shipped records."""
    records, articles = project
    guide = (ROOT / "docs" / "authoring.md").read_text()
    examples = re.findall(r"```text\n(\{\{.*?)```", guide, flags=re.S)
    assert len(examples) >= 5
    body = "\n\n".join(e.strip() for e in examples) + "\n"
    write_article(articles, "guide-examples", body, {"offload": OFFLOAD[:16], "graph": GRAPH[:16]})
    page = build_pages(records, articles)["posts/guide-examples.md"].markdown
    assert "{{" not in page
    assert "posts/authoring.md" in build_pages(records, articles)


CROSS_CHART = (
    '{{ chart(["a", "b"], rows="/cases/*/groups/*", x="/cases/{0}/placement/gpu_layers", '
    'y="server_decode_tokens_per_second/mean", series="context_tokens", x_title="GPU layers", y_title="tokens/s") }}\n'
)


def seal_variant(records, change) -> str:
    data = json.loads((records / "llm-cpu-offload/2026-09-27.json").read_bytes())
    change(data)
    return Store(records).seal_bytes(json.dumps(data).encode(), "gsh-llm-core-article/1", "llm-cpu-offload/variant.json").sha256


def test_chart_across_records_whose_comparison_keys_agree(project):
    records, articles = project
    sha = seal_variant(records, lambda d: d.update(tested_at="2026-10-01"))
    write_article(articles, "cross", CROSS_CHART, {"a": OFFLOAD, "b": sha})
    page = build_pages(records, articles)["posts/cross.md"]
    assert "a: 2,048" in page.markdown and "b: 8,192" in page.markdown
    assert any(p.endswith(".svg") for p in page.assets)


@pytest.mark.parametrize("variant,message", [
    (lambda d: d["models"][0].update(quantization="Q8_0"), "identity field 'quantisation' differs ('Q4_K_M' vs 'Q8_0')"),
    (lambda d: (d["hardware"].update(gpu="NVIDIA H200"), d["runtime"].update(release="b11200")),
     "confounded, they differ in 'GPU' ('NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition' vs 'NVIDIA H200'); "
     "'runtime release' ('b11146' vs 'b11200')"),
    (None, "schema differs (gsh-llm-core-article/1 vs torch-graph-replay/1)"),
], ids=["model differs", "confounded", "schema differs"])
def test_chart_across_records_refused_naming_the_key_that_differs(project, variant, message):
    records, articles = project
    other = seal_variant(records, variant) if variant else GRAPH
    write_article(articles, "cross", CROSS_CHART, {"a": OFFLOAD, "b": other})
    lines = expand_problems(records, articles)
    assert any(l.startswith("docs/articles/cross.md:11: chart(): records a and b cannot share a chart: ") and message in l for l in lines), lines


def test_record_text_holding_nul_markers_neither_crashes_nor_swallows_text(tmp_path):
    """Issue 11, class 5: citation markers were `NUL n NUL` substituted over the whole page, so
    record text holding `\\u0000 99 \\u0000` crashed the build and `\\u0000 0 \\u0000` was replaced."""
    import json as jsonlib

    from benchledger.records.store import Store
    from tests.site_gen.authored_support import build_pages, copy_project, write_article

    records, articles = copy_project(tmp_path)
    data = jsonlib.loads((records / "torch-graph-replay" / "2026-10-28.json").read_bytes())
    data["device"] = "GPU-A \u000099\u0000 middle \u00000\u0000 GPU-Z"
    entry = Store(records).seal_bytes(jsonlib.dumps(data).encode(), "torch-graph-replay/1", "nul/2026-12-01.json")
    write_article(articles, "nul-markers", 'On {{ text("g", "/device") }}, {{ cite("g", "/measurements/0/timing/graph/p95_ms", "ms") }} and '
                  '{{ cite("g", "/measurements/0/tokens") }}.\n', {"g": entry.sha256})
    page = build_pages(records, articles)["posts/nul-markers.md"].markdown
    # the record's text, whole, its NULs shown as code points (site_gen/escape.py)
    assert "GPU-A &#91;U+0000&#93;99&#91;U+0000&#93; middle &#91;U+0000&#93;0&#91;U+0000&#93; GPU-Z" in page
    # the real markers were placed: beside a number, or (one measured number) all in the common note
    assert "withheld" in page and ("bl-lim-mark" in page or "Every number cited from record g" in page)
    assert "\x00" not in page


# Issue 11, "keep going": the citation scanner on hostile article bodies.


def _scan_within(body: str, seconds: int = 60):
    """scan() of `body`, failing (not hanging the suite) if it has not returned in `seconds`:
    each of these bodies took minutes when every later `}}` was tried in turn."""
    import signal

    from site_gen.citations.syntax import scan

    def hung(*_):
        raise AssertionError(f"scan() of a {len(body)}-character body did not return within {seconds} s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        return scan("a.md", body, 5)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_nested_and_unclosed_braces_are_one_pass_and_each_reported_at_its_line():
    # 2,000 `{{ x ` then as many `}}`: 18 KB, which took minutes to scan before
    _, problems = _scan_within("{{ x " * 2000 + " }}" * 2000)
    assert [(p.line, p.message) for p in problems] == [(5, "citation is not a valid call: too many nested parentheses")]
    # a call left open ends with its paragraph: every one is reported, at its own line
    _, problems = _scan_within("{{ cite('a',\n\n" * 3 + "{{ cite('b') }}")
    assert [(p.line, p.message.split(" (")[0]) for p in problems] == [(n, "'{{' is not closed by '}}' before the paragraph ends") for n in (5, 7, 9)]
    # `}}` inside a string or closing a dict argument is not the citation's end
    parts, problems = _scan_within("{{ cite('a', 'x}}y', d={'k': {'j': 1}}) }} and {{ cite('b') }}")
    assert problems == [] and [(c.name, c.args, c.kwargs) for c in parts if not isinstance(c, str)] == [
        ("cite", ("a", "x}}y"), {"d": {"k": {"j": 1}}}), ("cite", ("b",), {})]
    # a lone surrogate in a literal: no page could hold it (UTF-8)
    _, problems = _scan_within("{{ cite('o', '/a', unit='\\ud800') }}")
    assert [p.message for p in problems] == ["cite(): an argument holds an unpaired UTF-16 surrogate ('\\ud800'): not Unicode text"]
    # what the parser refuses is a problem, never an exception
    _, problems = _scan_within("{{ cite('a\x00') }} {{ cite('a', " + "9" * 5000 + ") }}")
    assert [p.message.split(":")[0] for p in problems] == ["citation is not a valid call"] * 2


@pytest.mark.parametrize("log_y,scale", [("", "log"), (", log_y=False", None), (", log_y=True", "log")])
def test_a_chart_left_to_choose_puts_a_wide_span_on_a_log_axis(project, log_y, scale):
    """Decode speed at 81, 40 and 20 GPU layers (25.8, 1.08, 0.738 tokens/s) spans 35 times: an
    author who names no y scale gets a log axis that says so; one who chose keeps the choice."""
    records, articles = project
    write_article(articles, "decode", '{{ chart("r", rows="/cases/*/groups/*", x="/cases/{0}/placement/gpu_layers", '
                  'y="server_decode_tokens_per_second/median", series="context_tokens", x_title="GPU layers", '
                  f'y_title="decode (tokens/s)"{log_y}) }}}}\n', {"r": OFFLOAD})
    page = build_pages(records, articles)["posts/decode.md"].markdown
    spec = json.loads(re.search(r'<script type="application/json" id="spec-[^"]*">(.*?)</script>', page, re.S).group(1))
    y = spec["layer"][0]["encoding"]["y"]
    assert y["scale"].get("type") == scale
    assert (y["title"] == "decode (tokens/s), log scale") == (log_y == "")
