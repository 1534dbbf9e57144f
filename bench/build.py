"""Build-time benchmark: N synthetic articles shaped like the two seeds, built cold (empty caches,
empty output), warm (a rebuild with nothing changed), after sealing one more record (the rebuild
a user waits for after `seal`), and a bare `mkdocs build` of exactly the Markdown and assets
benchledger generated; then the bytes a reader downloads for one search query, measured in
Debian's chromium against the built site served on 127.0.0.1.

    .venv/bin/python bench/build.py [--sizes 10,100,1000] [--repeat 2] [--work DIR] [--no-search]

Each build runs in a fresh Python process, as a user's `benchledger build` / `mkdocs build`
would. One line per size, and the last line repeats the largest:
`articles=1000 cold_s=S warm_s=S one_more_s=S bare_mkdocs_s=S search_query_bytes=B verify_site_s=S
largest_page_bytes=B` (`verify_site_s`: an auditor's `verify --site` of the built folder, which
must pass; `largest_page_bytes`: the largest HTML page of the site, what a reader downloads for
that one page before its images, styles and scripts, with the three largest named above it).
`search_query_bytes` is the largest, over three queries (a model, a GPU, a 12-hex hash prefix),
of the bytes of every search file the page fetched (index, worker, fragments), from opening
the page to the first results."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchledger.records.store import Store  # noqa: E402
from tests.site_gen.site_support import serve  # noqa: E402  (the one static server of the browser tests)
from tests.site_gen.test_browser import ARGS as CHROMIUM_ARGS, CHROMIUM  # noqa: E402  (the browser tests' chromium)

SEEDS = {
    "gsh-llm-core-article/1": ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json",
    "torch-graph-replay/1": ROOT / "records" / "torch-graph-replay" / "2026-10-28.json",
}


def synthetic(schema: str, k: int) -> bytes:
    """The seed of `schema`, varied by `k` where no consistency check ties the value to others
    (axis values, token lengths, dates), so every article and chart is distinct."""
    data = json.loads(SEEDS[schema].read_bytes())
    if schema == "gsh-llm-core-article/1":
        for case in data["cases"][1:]:
            layers = max(1, case["placement"]["gpu_layers"] - k % 19)
            case["placement"]["gpu_layers"] = layers
            case["settings"]["placement"]["gpu_layers"] = layers
        data["tested_at"] = f"2026-{1 + k % 12:02d}-{1 + k % 28:02d}"
    else:
        for m in data["measurements"]:
            m["tokens"] += k
        for probe in data["overlimit"]:
            probe["tokens"] += k
        data["finished_epoch"] += 86400 * k
    return json.dumps(data, indent=1).encode()


SCHEMAS = list(SEEDS)


def seal_synthetic(store: Store, k: int) -> None:
    schema = SCHEMAS[k % 2]
    store.seal_bytes(synthetic(schema, k), schema, f"synthetic/{schema.split('/')[0]}-{k:04d}.json")


def make_store(root: Path, n: int) -> Path:
    """A store of the two shipped records plus `n` sealed synthetic ones (half of each shape)."""
    records = root / "records"
    records.mkdir(parents=True)
    store = Store(records)
    # The shipped records too: the authored articles in docs/articles cite them.
    for schema, seed in SEEDS.items():
        store.seal_bytes(seed.read_bytes(), schema, seed.relative_to(ROOT / "records").as_posix())
    for k in range(n):
        seal_synthetic(store, k)
    return records


def timed(code: str) -> float:
    """Wall seconds of a fresh Python process running `code` (from the project root)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    return time.perf_counter() - start


def _is_search_file(url: str) -> bool:
    path = urlparse(url).path
    return "/pagefind/" in path or "/search/" in path or "/workers/search" in path


def search_query_bytes(site: Path, queries: list[str]) -> tuple[int, dict[str, int]]:
    """(largest, per query) bytes of search files fetched by a fresh browser page that opens the
    site and runs one query until results show. Works for the site's Pagefind search
    (search.html) and for Material's lunr search (the header search box)."""
    from playwright.sync_api import sync_playwright

    pagefind = (site / "pagefind").is_dir()
    per_query: dict[str, int] = {}
    with sync_playwright() as p, serve(site) as base:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            for query in queries:
                context = browser.new_context()  # empty HTTP cache: what a first-time reader loads
                page = context.new_page()
                sizes: dict[str, int] = {}

                def finished(request, sizes=sizes) -> None:
                    if _is_search_file(request.url):
                        response = request.response()
                        if response is not None:
                            sizes[request.url] = len(response.body())

                page.on("requestfinished", finished)
                if pagefind:
                    page.goto(base + "search.html")
                    box = page.locator(".pagefind-ui__search-input")
                    result = ".pagefind-ui__result"
                else:
                    page.goto(base + "index.html")
                    box = page.locator("input.md-search__input")
                    result = ".md-search-result__item"
                box.click()
                box.press_sequentially(query)
                page.locator(result).first.wait_for(timeout=120000)
                page.wait_for_load_state("networkidle")
                per_query[query] = sum(sizes.values())
                context.close()
        finally:
            browser.close()
    return max(per_query.values()), per_query


def queries_for(records: Path) -> list[str]:
    """A model id, a GPU name ("RTX PRO 6000") and the 12-hex prefix of a record's sha256."""
    seed = json.loads(SEEDS["gsh-llm-core-article/1"].read_bytes())
    graph = records / "torch-graph-replay" / "2026-10-28.json"
    return [seed["models"][0]["id"], " ".join(seed["hardware"]["gpu"].split()[1:4]),
            hashlib.sha256(graph.read_bytes()).hexdigest()[:12]]


def bench(work: Path, n: int, repeat: int, search: bool) -> dict:
    base = work / f"n{n}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    records = make_store(base, n)
    out, cache = base / "site", base / "cache"
    build = (f"from site_gen.build import build_site; "
             f"r = build_site({str(records)!r}, {str(out)!r}, cache_dir={str(cache)!r}); "
             f"print(f'  pages={{r.pages}} written={{r.files_written}} charts_rendered={{r.charts_rendered}} reused={{r.renderings_reused}}')")
    cold = timed(build)
    bare_code = (f"import os; os.environ['NO_MKDOCS_2_WARNING'] = '1'; "
                 f"from mkdocs.config import load_config; from mkdocs.commands.build import build; "
                 f"build(load_config({str(cache / 'mkdocs' / 'mkdocs.yml')!r}, site_dir={str(base / 'bare-site')!r}))")
    # Warm and bare alternate and the best of `repeat` counts: other work on a shared machine
    # only ever adds time.
    warm, bare = [], []
    for _ in range(repeat):
        warm.append(timed(build))
        bare.append(timed(bare_code))
    seal_synthetic(Store(records), n)
    one_more = timed(build)
    # what an auditor waits for: `benchledger verify --site` of the built folder (it must pass)
    audit = timed(f"from site_gen.audit import verify_site; p = verify_site({str(out)!r}); "
                  f"assert not p, [str(x) for x in p[:3]]")
    result = {"articles": n, "cold_s": cold, "warm_s": min(warm), "one_more_s": one_more, "bare_mkdocs_s": min(bare),
              "verify_site_s": audit, "largest_pages": largest_pages(out)}
    if search:
        result["search_query_bytes"], result["per_query"] = search_query_bytes(out, queries_for(records))
    shutil.rmtree(base / "bare-site", ignore_errors=True)
    return result


def largest_pages(site: Path, count: int = 3) -> list[tuple[int, str]]:
    """The `count` largest HTML pages of `site`, as (bytes, site path), largest first: the pages
    that grow with the number of records (a long series, a comparison of every record, the
    audit page's ledger table)."""
    return sorted(((p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*.html")), reverse=True)[:count]


def line(r: dict) -> str:
    text = (f"articles={r['articles']} cold_s={r['cold_s']:.2f} warm_s={r['warm_s']:.2f} one_more_s={r['one_more_s']:.2f} "
            f"bare_mkdocs_s={r['bare_mkdocs_s']:.2f}")
    if "search_query_bytes" in r:
        text += f" search_query_bytes={r['search_query_bytes']}"
    # the fields first, in its order, then these two
    return text + f" verify_site_s={r['verify_site_s']:.2f} largest_page_bytes={r['largest_pages'][0][0]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--repeat", type=int, default=2, help="warm and bare builds per size (best counts)")
    parser.add_argument("--work", default=None, help="working folder (default: a temp dir, removed afterwards)")
    parser.add_argument("--no-search", action="store_true", help="skip the browser measurement of search")
    args = parser.parse_args()
    search = not args.no_search and os.access(CHROMIUM, os.X_OK)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bl-bench-"))
    results = []
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            r = bench(work, n, args.repeat, search)
            results.append(r)
            if "per_query" in r:
                print("  search bytes per query: " + " ".join(f"{q!r}={b}" for q, b in r["per_query"].items()))
            print("  largest pages: " + " ".join(f"{path}={size}" for size, path in r["largest_pages"]))
            print(line(r), flush=True)
        by_n = {r["articles"]: r for r in results}
        for small, big in ((100, 1000),) + tuple((a, b) for a, b in zip(sorted(by_n), sorted(by_n)[1:]) if (a, b) != (100, 1000)):
            if small in by_n and big in by_n:
                s, b = by_n[small], by_n[big]
                print(f"scaling {big}/{small}: cold {b['cold_s'] / s['cold_s']:.2f}x warm {b['warm_s'] / s['warm_s']:.2f}x "
                      f"one_more {b['one_more_s'] / s['one_more_s']:.2f}x (linear: {big / small:g}x)")
        print(line(results[-1]))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
