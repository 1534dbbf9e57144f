"""Articles of imported llama-bench records (two real captured runs, threads 1 and 2): a golden
file for what a reader sees, every test's numbers traced to their pointers, the varying field
named, and the schema in the methodology glossary."""

from __future__ import annotations

import json
import re
import os
import shutil
from pathlib import Path

import pytest

from benchledger.records.store import Store
from site_gen.audit import verify_site
from site_gen.build import build_site
from tests.llama_bench_support import LLB, record_bytes, seal_at_fixed_time
from tests.site_gen.site_support import chart_edited
from tests.store_copies import shipped_copy

GOLDEN = Path(__file__).resolve().parent / "golden_site" / "article-llama-bench.md"
THREADS = {"1": "llama-bench/threads-1.json", "2": "llama-bench/threads-2.json", "1-2": "llama-bench/threads-1-2.json"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("llama-bench-site")
    records = shipped_copy(tmp)
    for threads, path in THREADS.items():
        seal_at_fixed_time(records, path, record_bytes(f"tiny-threads-{threads}.json"))
    store = Store(records)
    return store, build_site(records, tmp / "site", cache_dir=tmp / "cache")


def test_article_markdown_matches_golden(built):
    _, result = built
    text = (result.docs_dir / "articles/llama-bench/threads-1.md").read_text(encoding="utf-8")
    if os.environ.get("BENCHLEDGER_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8"), "rerun with BENCHLEDGER_UPDATE_GOLDEN=1 and review the diff"


def test_every_test_number_is_on_its_page_with_its_origin(built):
    store, result = built
    for sealed in (r for r in store.load_verified() if r.entry.schema == LLB):
        page = (result.out_dir / "articles" / sealed.entry.path.replace(".json", ".html")).read_text(encoding="utf-8")
        assert '<h2 id="results">Results' in page and "Every repetition" in page
        for i, row in enumerate(sealed.data["tests"]):
            for field in ("avg_ts", "stddev_ts", "avg_ns", "stddev_ns"):
                assert f'data-sha256="{sealed.entry.sha256}" data-pointer="/tests/{i}/{field}"' in page
            for j, value in enumerate(row["samples_ts"]):
                assert f'data-pointer="/tests/{i}/samples_ts/{j}" title="record sha256 {sealed.entry.sha256} · ' \
                       f'pointer /tests/{i}/samples_ts/{j} · raw value {value!r}"' in page
        assert sealed.data["import"]["source_sha256"] in page
        assert "id=\"chart-speed-per-repetition\"" in page


def test_a_field_that_varies_inside_a_record_is_named_and_charted(built):
    _, result = built
    page = (result.docs_dir / "articles/llama-bench/threads-1-2.md").read_text(encoding="utf-8")
    assert "across threads" in next(line for line in page.splitlines() if line.startswith("# "))
    assert "Fields that differ between rows: threads." in page
    assert 'id="chart-speed-by-n-threads"' in page and 'id="chart-speed-per-repetition"' in page
    for i in range(4):  # the threads column of the results table is traced too
        assert f'data-pointer="/tests/{i}/n_threads"' in page


def test_two_imports_differing_in_threads_get_comparison_pages(built):
    store, result = built
    shas = {r.entry.path: r.entry.sha256 for r in store.load_verified()}
    pages = sorted((result.docs_dir / "comparisons" / "llama-bench-1").glob("n-threads-*.md"))
    assert len(pages) == 2  # one per test (pp16, tg8): same model and test, threads 1 vs 2
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for rel in THREADS.values():  # all three records contribute a threads-1 or threads-2 case
            assert f'data-sha256="{shas[rel]}"' in text
        assert "data-pointer=\"/tests/" in text and "/avg_ts" in text
        assert "#test-" in text  # each case links to its row on its article
    article = (result.docs_dir / "articles/llama-bench/threads-1.md").read_text(encoding="utf-8")
    assert '<span id="test-0"></span>pp16' in article and "comparisons/llama-bench-1/n-threads-" in article
    script = (result.docs_dir / "assets/explore/llama-bench-1.js").read_text(encoding="utf-8")
    table = json.loads(script.split('window.benchledgerExplorer["llama-bench-1"]=', 1)[1].rstrip().rstrip(";"))
    # every test of every import is a row of the kind's explorer: (record, case pointer)
    imported = [r for r in store.load_verified() if r.entry.schema == LLB]
    expected = {(r.entry.sha256, f"/tests/{i}") for r in imported for i in range(len(r.data["tests"]))}
    assert {(table["records"][row[0]][0], row[1]) for row in table["rows"]} == expected


def test_methodology_lists_the_schema_and_its_checks(built):
    _, result = built
    page = (result.out_dir / "methodology.html").read_text(encoding="utf-8")
    assert "llama-bench/1" in page and "/tests/&#42;/samples_ts" in page  # `*` as a reference: no emphasis


def test_the_built_site_with_llama_bench_comparisons_passes_its_own_audit(built):
    """A comparison's "n =" of a llama-bench case counts the samples: it was shown as the value at
    the samples array's pointer, and verify --site called an unedited site edited."""
    _, result = built
    assert verify_site(result.out_dir) == []
    page = next((result.out_dir / "comparisons" / "llama-bench-1").glob("n-threads-*.html")).read_text(encoding="utf-8")
    assert 'data-formula="count of values"' in page


# The repetition chart's first point (x the repetition's number, its place in samples_ts) moved
# along x, the table behind the chart agreeing, or said to be another sample's place.
REPETITION = '"x":1,"x_trace":{"position":"/tests/0/samples_ts/0"}'
REPETITION_EDITS = {
    "moved": (REPETITION.replace('"x":1', '"x":2'), ("1", "2"),
              "charts 2 as the place of {sha} '/tests/0/samples_ts/0' in its array, but it is number 1 there: the page was edited"),
    "another sample's place": (REPETITION.replace('samples_ts/0"', 'samples_ts/1"'), None,
                               "charts 1 as the place of '/tests/0/samples_ts/1', not of its point's value '/tests/0/samples_ts/0': "
                               "the page was edited"),
}


@pytest.mark.parametrize("name", REPETITION_EDITS)
def test_a_repetition_charted_at_another_place_is_reported(built, tmp_path, name):
    """A repetition's x is its sample's place in the record's array, which the audit checks."""
    store, result = built
    site = tmp_path / "site"
    shutil.copytree(result.out_dir, site)
    new, cell, expected = REPETITION_EDITS[name]
    page = site / "articles" / "llama-bench" / "threads-1.html"
    chart_edited(site, page, REPETITION, new, cell)
    sha = next(r.entry.sha256 for r in store.load_verified() if r.entry.path == THREADS["1"])
    assert [str(p) for p in verify_site(site)] == [
        f"{page.as_posix()}: script spec-speed-per-repetition $.datasets.points[0].x: " + expected.format(sha=sha[:12])]


def test_an_import_with_a_repeated_row_builds(tmp_path):
    """A llama-bench output holding one row twice imports and verifies; its chart's points were
    sorted as (x, speed, Trace) tuples, and two equal points compared their Traces: a TypeError
    that failed every later build of the store."""
    from collector.importers.base import build_record
    from collector.importers.llama_bench import LlamaBenchImporter
    from tests.llama_bench_support import captured, source

    rows = json.loads(captured("tiny-threads-1-2.json").read_bytes())
    repeated = tmp_path / "repeated-row.json"
    repeated.write_text(json.dumps([rows[0], rows[2], rows[0]]), encoding="utf-8")
    records = shipped_copy(tmp_path)
    seal_at_fixed_time(records, "llama-bench/repeated-row.json", build_record(LlamaBenchImporter(), source(repeated)))
    result = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    page = (result.out_dir / "articles" / "llama-bench" / "repeated-row.html").read_text(encoding="utf-8")
    assert 'id="spec-speed-by-n-threads"' in page
    # the repeated test's repetitions are a line of their own, numbered, not a zigzag back along the first's
    spec = json.loads(re.search(r'<script type="application/json" id="spec-speed-per-repetition">(.*?)</script>', page).group(1))
    labels = [row["series"] for row in spec["datasets"]["points"]]
    first, second, third = dict.fromkeys(labels)
    assert third == f"{first} #2" and labels.count(first) == labels.count(third) == len(rows[0]["samples_ts"])
    assert verify_site(result.out_dir) == []


def test_a_repetition_placed_at_a_digit_no_int_reads_is_reported(built, tmp_path):
    """A place written with a superscript digit ("³" is a digit to str.isdigit, not to int())
    stopped the audit with a ValueError."""
    from site_gen.checksums import site_sums

    _, result = built
    site = tmp_path / "site"
    shutil.copytree(result.out_dir, site)
    page = site / "articles" / "llama-bench" / "threads-1.html"
    html = page.read_text(encoding="utf-8")
    assert html.count('/tests/0/samples_ts/0"') >= 2  # the point's trace and its x's
    page.write_text(html.replace('/tests/0/samples_ts/0"', '/tests/0/samples_ts/\u00b3"'), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p) for p in verify_site(site)]
    assert any("$.datasets.points[0].x: charts 1 as the place of" in m and "but it is number '\u00b3' there" in m for m in messages), messages
