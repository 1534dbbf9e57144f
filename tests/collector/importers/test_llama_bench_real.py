"""The real llama-bench on the tiny model, its output imported with `benchledger import`, the
site built, and its numbers found on the article page; its Markdown table is refused."""

import html
import json
import re
import subprocess

from benchledger.cli.main import main
from benchledger.records.store import Store
from site_gen.build import build_site
from tests.store_copies import shipped_copy, tree_digest


def _llama_bench(binary, model, *args):
    done = subprocess.run([str(binary), "-m", str(model), "-p", "16", "-n", "4", "-r", "3", *args],
                          capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout


def test_real_llama_bench_output_imports_verifies_and_renders(llama_bench_binary, tiny_model, tmp_path, capsys):
    records = shipped_copy(tmp_path)
    (tmp_path / "t1.json").write_bytes(_llama_bench(llama_bench_binary, tiny_model, "-t", "1", "-o", "json"))
    (tmp_path / "t2.jsonl").write_bytes(_llama_bench(llama_bench_binary, tiny_model, "-t", "2", "-o", "jsonl"))
    (tmp_path / "table.md").write_bytes(_llama_bench(llama_bench_binary, tiny_model, "-t", "1"))

    before = tree_digest(records)
    assert main(["import", "llama-bench", str(tmp_path / "table.md"), "--records", str(records)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "this is llama-bench's Markdown table (-o md, its default), not JSON" in err[0]
    assert tree_digest(records) == before

    for name in ("t1.json", "t2.jsonl"):
        assert main(["import", "llama-bench", str(tmp_path / name), "--records", str(records)]) == 0
    capsys.readouterr()
    store = Store(records)
    report = store.verify()
    assert report.problems == [] and len(report.records) == 4
    imported = [r for r in store.load_verified() if r.entry.schema == "llama-bench/1"]
    assert [r.data["import"]["output_format"] for r in imported] == ["json", "jsonl"]

    result = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    for sealed in imported:
        rows = sealed.data["tests"]
        assert [(r["n_prompt"], r["n_gen"]) for r in rows] == [(16, 0), (0, 4)]
        page = (result.out_dir / "articles" / (sealed.entry.path[: -len(".json")] + ".html")).read_text()
        assert "not measured by benchledger's collector" in html.unescape(page)
        for i, row in enumerate(rows):
            # the number llama-bench printed, traced to its record and pointer
            span = re.search(rf'<span class="bl-num" data-sha256="{sealed.entry.sha256}" data-pointer="/tests/{i}/avg_ts" '
                             rf'title="([^"]*)">([^<]*)</span>', page)
            assert span, f"avg_ts of test {i} not on the page"
            assert f"raw value {row['avg_ts']!r}" in html.unescape(span.group(1))
            for j in range(len(row["samples_ts"])):
                assert f'data-pointer="/tests/{i}/samples_ts/{j}"' in page
    # the two imports differ in threads only: same identity, one axis apart
    from benchledger.cases.comparison import cases_of, find
    from benchledger.cases.registry import kind_for

    kind = kind_for("llama-bench/1")
    found = find(kind, cases_of(kind, [(r.data, r.entry.sha256, r.entry.path) for r in imported]))
    assert sorted(c.axis for c in found.comparisons) == ["n_threads", "n_threads"] and found.confounded == []
    assert json.loads((records / imported[1].entry.path).read_bytes())["tests"][0]["n_threads"] == 2
