"""Explorer benchmark: the explorer page of N synthetic LLM records (the seed varied in GPU,
runtime release, threads, placement and date; 6 rows per record: 3 cases x 2 contexts), built
with the generator's own explorer code and template by a real MkDocs (Material) into a folder,
then opened from file:// in Debian's chromium to time filtering and sorting.

    .venv/bin/python bench/explorer.py [--records 1000] [--rows 10000] [--work DIR]

Prints, per size: the explorer's own bytes (page HTML + its data script + explorer.js; the
theme's CSS/JS are shared by every page and cached), and the time of each filter and sort as
the page measures it (data-filter-ms: select the rows, draw the first 100) and as seen from a
script around the event (wall). The last line is
`records=1000 page_bytes=B rows=10000 filter_ms_median=M filter_ms_max=M sort_ms_max=M`."""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchledger.cases.registry import KINDS  # noqa: E402
from site_gen.comparisons import kind_slug  # noqa: E402
from site_gen.explorer import SCRIPT, RecordRef, data_path, data_script, explorer_data, page_path  # noqa: E402
from site_gen.pages.records.llm_core import LlmCoreRenderer  # noqa: E402
from site_gen.templating import make_jinja_env, template_bytes, url  # noqa: E402

SEED = ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json"
SCHEMA = "gsh-llm-core-article/1"
GPUS = ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090", "NVIDIA L40S", "NVIDIA A100-SXM4-80GB")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def synthetic(k: int) -> bytes:
    """The seed, varied by k in what the explorer shows (values only; structure kept)."""
    data = json.loads(SEED.read_bytes())
    data["hardware"]["gpu"] = GPUS[k % len(GPUS)]
    data["runtime"]["release"] = f"b{11146 + k // 7}"
    data["tested_at"] = f"2026-{1 + k % 12:02d}-{1 + k % 28:02d}"
    for i, case in enumerate(data["cases"]):
        case["settings"]["threads"] = (4, 8, 16, 32)[(k + i) % 4]
        for group in case["groups"]:
            summary = group["server_decode_tokens_per_second"]
            factor = 1 + (k % 97) / 100
            for key in ("minimum", "median", "mean", "maximum"):
                summary[key] *= factor
    return json.dumps(data, indent=1).encode()


def write_site(work: Path, n: int) -> Path:
    """docs/ with the explorer page of n records, built by MkDocs into site/; returns the page."""
    kind = KINDS[SCHEMA]
    renderer = LlmCoreRenderer()
    path = page_path(kind)
    cases, refs, anchors = [], {}, {}
    for k in range(n):
        raw = synthetic(k)
        sha = hashlib.sha256(raw).hexdigest()
        store_path = f"bench/{k:05d}.json"
        refs[sha] = RecordRef(sha, store_path, str(url(path, f"articles/bench/{k:05d}.md")))
        for case in kind.cases(json.loads(raw), sha, store_path):
            cases.append(case)
            anchors[(sha, case.pointer)] = renderer.case_anchor(case.pointer)
    data = explorer_data(kind, cases, refs, anchors)
    slug = kind_slug(kind.schema)
    markdown = make_jinja_env().get_template("explorer.md.j2").render(
        title="Explore", kind=kind, slug=slug, page_path=path, records=len(data["records"]), rows=len(data["rows"]),
        data_src=url(path, data_path(kind)), script_src=url(path, SCRIPT), comparisons=url(path, "index.md"))
    docs = work / "docs"
    files = {path: markdown.encode(), data_path(kind): data_script(slug, data), SCRIPT: template_bytes(SCRIPT),
             "assets/benchledger.css": template_bytes("assets/benchledger.css"), "index.md": b"# bench\n"}
    for rel, content in files.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_bytes(content)
    (work / "mkdocs.yml").write_text(
        "site_name: bench\ndocs_dir: docs\nsite_dir: site\nuse_directory_urls: false\n"
        "theme:\n  name: material\n  font: false\nplugins: []\nextra_css: [assets/benchledger.css]\n"
        "markdown_extensions: [attr_list, md_in_html, tables]\n")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(str(work / "mkdocs.yml")))
    return work / "site" / path.replace(".md", ".html")


def measure(page_file: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_file.as_uri())
        page.locator(".bl-explorer-table tbody tr").first.wait_for()
        timings = page.evaluate("""() => {
            const root = document.querySelector('.bl-explorer'), box = root.querySelector('.bl-explorer-search');
            const out = {filter: [], filter_wall: [], sort: []};
            const type = (text) => {
                const t = performance.now();
                box.value = text; box.dispatchEvent(new Event('input'));
                out.filter_wall.push(performance.now() - t);
                out.filter.push(Number(root.dataset.filterMs));
            };
            for (let round = 0; round < 3; round++) {
                for (const text of ['h200', 'b1130', 'offload-72b-40', 'zzz-no-match', 'nvidia', '']) type(text);
                const select = root.querySelector('select[data-column="gpu"]');
                const t = performance.now();
                select.selectedIndex = 1; select.dispatchEvent(new Event('change'));
                out.filter_wall.push(performance.now() - t); out.filter.push(Number(root.dataset.filterMs));
                select.selectedIndex = 0; select.dispatchEvent(new Event('change'));
                for (const button of [...root.querySelectorAll('.bl-explorer-sort')].slice(-4)) {
                    const s = performance.now(); button.click(); out.sort.push(performance.now() - s);
                }
            }
            out.rows = root.explorer.rows.length;
            return out;
        }""")
        browser.close()
        if errors:
            raise SystemExit(f"page errors: {errors}")
        return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true", help="print every timing")
    args = parser.parse_args()
    print(f"load average: {Path('/proc/loadavg').read_text().strip()}")
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        results = {}
        for label, n in (("records", args.records), ("rows", -(-args.rows // 6))):
            work = Path(tmp) / label
            page_file = write_site(work, n)
            site = work / "site"
            own = {"page": page_file.stat().st_size,
                   "data": (site / "assets/explore/gsh-llm-core-article-1.js").stat().st_size,
                   "script": (site / SCRIPT).stat().st_size}
            timings = measure(page_file)
            results[label] = (n, own, timings)
            if args.verbose:
                print("  filter ms:", [round(x, 1) for x in timings["filter"]], "sort ms:", [round(x, 1) for x in timings["sort"]])
            print(f"{n} records, {timings['rows']} rows: page {own['page']:,} B + data {own['data']:,} B + explorer.js "
                  f"{own['script']:,} B = {sum(own.values()):,} B; filter (page-measured) median "
                  f"{statistics.median(timings['filter']):.1f} ms, max {max(timings['filter']):.1f} ms; "
                  f"filter (wall) max {max(timings['filter_wall']):.1f} ms; sort max {max(timings['sort']):.1f} ms")
        n, own, _ = results["records"]
        _, _, timings = results["rows"]
        print(f"records={n} page_bytes={sum(own.values())} rows={timings['rows']} "
              f"filter_ms_median={statistics.median(timings['filter_wall']):.1f} filter_ms_max={max(timings['filter_wall']):.1f} "
              f"sort_ms_max={max(timings['sort']):.1f}")


if __name__ == "__main__":
    main()
