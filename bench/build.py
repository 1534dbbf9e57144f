"""Build-time benchmark: N synthetic articles shaped like the two seeds, built cold (empty caches,
empty output), warm (a rebuild with nothing changed), and a bare `mkdocs build` of exactly the
Markdown and assets benchledger generated (the floor for any MkDocs site of those pages).

    .venv/bin/python bench/build.py [--sizes 10,100,1000] [--work DIR]

Each build runs in a fresh Python process, as a user's `benchledger build` / `mkdocs build`
would. The last line is
`articles=1000 cold_s=S warm_s=S bare_mkdocs_s=S cold_ratio=R warm_ratio=R`."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchledger.records.store import Store  # noqa: E402

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


def make_store(root: Path, n: int) -> Path:
    """A store of the two shipped records plus `n` sealed synthetic ones (half of each shape)."""
    records = root / "records"
    records.mkdir(parents=True)
    store = Store(records)
    # The shipped records too: the authored articles in docs/articles cite them.
    for schema, seed in SEEDS.items():
        store.seal_bytes(seed.read_bytes(), schema, seed.relative_to(ROOT / "records").as_posix())
    schemas = list(SEEDS)
    for k in range(n):
        schema = schemas[k % 2]
        store.seal_bytes(synthetic(schema, k), schema, f"synthetic/{schema.split('/')[0]}-{k:04d}.json")
    return records


def timed(code: str) -> float:
    """Wall seconds of a fresh Python process running `code` (from the project root)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    return time.perf_counter() - start


def bench(work: Path, n: int, repeat: int) -> dict:
    base = work / f"n{n}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    records = make_store(base, n)
    out, cache = base / "site", base / "cache"
    build = (f"from site_gen.build import build_site; "
             f"r = build_site({str(records)!r}, {str(out)!r}, cache_dir={str(cache)!r}); "
             f"print(f'  pages={{r.pages}} written={{r.files_written}} charts_rendered={{r.charts_rendered}} reused={{r.renderings_reused}}')")
    cold = timed(build)
    bare_code = (f"from mkdocs.config import load_config; from mkdocs.commands.build import build; "
                 f"build(load_config({str(cache / 'mkdocs' / 'mkdocs.yml')!r}, site_dir={str(base / 'bare-site')!r}))")
    # Warm and bare alternate and the best of `repeat` counts: other work on a shared machine
    # only ever adds time.
    warm, bare = [], []
    for _ in range(repeat):
        warm.append(timed(build))
        bare.append(timed(bare_code))
    return {"articles": n, "cold_s": cold, "warm_s": min(warm), "bare_mkdocs_s": min(bare)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--repeat", type=int, default=2, help="warm and bare builds per size (best counts)")
    parser.add_argument("--work", default=None, help="working folder (default: a temp dir, removed afterwards)")
    args = parser.parse_args()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bl-bench-"))
    results = []
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            r = bench(work, n, args.repeat)
            results.append(r)
            print(f"articles={n} cold_s={r['cold_s']:.2f} warm_s={r['warm_s']:.2f} bare_mkdocs_s={r['bare_mkdocs_s']:.2f} "
                  f"cold_ratio={r['cold_s'] / r['bare_mkdocs_s']:.2f} warm_ratio={r['warm_s'] / r['bare_mkdocs_s']:.2f}", flush=True)
        by_n = {r["articles"]: r for r in results}
        if 100 in by_n and 1000 in by_n:
            print(f"scaling 1000/100: cold {by_n[1000]['cold_s'] / by_n[100]['cold_s']:.2f}x "
                  f"warm {by_n[1000]['warm_s'] / by_n[100]['warm_s']:.2f}x (goal <= 11x)")
        last = results[-1]
        print(f"articles={last['articles']} cold_s={last['cold_s']:.2f} warm_s={last['warm_s']:.2f} "
              f"bare_mkdocs_s={last['bare_mkdocs_s']:.2f} cold_ratio={last['cold_s'] / last['bare_mkdocs_s']:.2f} "
              f"warm_ratio={last['warm_s'] / last['bare_mkdocs_s']:.2f}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
