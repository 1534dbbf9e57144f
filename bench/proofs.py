"""Transparency-log benchmark: proof sizes and the build time the log adds at 10,000 ledger
entries (targets: an inclusion proof under 1 KB; proofs for every record adding under 10% to a
build).

    .venv/bin/python bench/proofs.py [--entries 10000] [--articles 40] [--work DIR]

Part 1 makes a 10,000-line ledger (real canonical lines, chained) with checkpoints at half and
full size, and times what the log adds to a build at that size: every inclusion and
consistency document (site_gen.pages.transparency.log_files), writing them into the generated
docs folder (the build's DocsTree.write) and copying them into the site (as MkDocs copies static
files). Part 2 builds a real site of --articles synthetic articles cold, with and without a
checkpoint, for the per-article build cost that a 10,000-article build is extrapolated from
(builds scale about linearly: bench/build.py). Report the load average beside the figures."""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchledger.records.checkpoint import Checkpoint, sign_checkpoint  # noqa: E402
from benchledger.records.keys import SignerKey  # noqa: E402
from benchledger.records.ledger import new_entry  # noqa: E402
from benchledger.records.tlog import PublishedLog, StoredCheckpoint, ledger_tree  # noqa: E402
from site_gen.docs_tree import DocsTree  # noqa: E402
from site_gen.pages.transparency import log_files  # noqa: E402


@dataclass
class LogOnly:
    """The two fields of a SiteContext that log_files reads."""

    entries: list
    log: PublishedLog


def synthetic_ledger(n: int) -> list:
    entries = []
    for k in range(n):
        sha = hashlib.sha256(f"record {k}".encode()).hexdigest()
        entry, _ = new_entry(entries, f"synthetic/record-{k:05d}.json", sha, 10_000 + k, "torch-graph-replay/1",
                             "2026-11-30T00:00:00Z")
        entries.append(entry)
    return entries


def signed(tree, size: int, key: SignerKey) -> StoredCheckpoint:
    cp = Checkpoint("bench.example/log", size, tree.root(size))
    note = sign_checkpoint(cp, key)
    return StoredCheckpoint(f"checkpoints/{size}", note.encoded, cp, note)


def part1(n: int, work: Path, repeat: int) -> dict:
    entries = synthetic_ledger(n)
    key = SignerKey.generate("bench.example/log")
    tree = ledger_tree(entries)
    log = PublishedLog((signed(tree, n // 2, key), signed(tree, n, key)), key.verifier)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        files = log_files(LogOnly(entries, log))
        times.append(time.perf_counter() - start)
    inclusion = [v for k, v in files.items() if k.startswith("ledger/inclusion/")]
    consistency = [v for k, v in files.items() if k.startswith("ledger/consistency/")]
    hashes_max = max(v.count(b'"', v.index(b'"hashes"')) // 2 - 1 for v in inclusion)
    write_s, copy_s = [], []
    for i in range(repeat):
        docs = work / f"docs{i}"
        start = time.perf_counter()
        DocsTree(docs).write(files)
        write_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        shutil.copytree(docs, work / f"site{i}")
        copy_s.append(time.perf_counter() - start)
    return {
        "entries": n, "files": len(files), "generate_s": min(times), "write_s": min(write_s), "copy_s": min(copy_s),
        "inclusion_hashes_max": hashes_max, "inclusion_proof_bytes_max": 32 * hashes_max,
        "inclusion_json_bytes_max": max(map(len, inclusion)), "inclusion_json_bytes_mean": statistics.mean(map(len, inclusion)),
        "consistency_json_bytes": max(map(len, consistency)), "checkpoint_bytes": len(log.latest.raw),
        "all_files_bytes": sum(map(len, files.values())),
    }


def timed_build(records: Path, out: Path, cache: Path) -> float:
    code = (f"from site_gen.build import build_site; build_site({str(records)!r}, {str(out)!r}, cache_dir={str(cache)!r})")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    return time.perf_counter() - start


def part2(articles: int, work: Path) -> dict:
    spec = importlib.util.spec_from_file_location("bench_build", ROOT / "bench" / "build.py")
    bench_build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_build)
    from benchledger.records.signing import append_checkpoint
    from benchledger.records.store import Store

    records = bench_build.make_store(work / "store", articles)
    without = timed_build(records, work / "site-plain", work / "cache-plain")
    append_checkpoint(Store(records), SignerKey.generate("bench.example/log"))
    with_log = timed_build(records, work / "site-log", work / "cache-log")
    warm = timed_build(records, work / "site-log", work / "cache-log")  # nothing changed: the floor
    return {"articles": articles + 2, "cold_without_log_s": without, "cold_with_log_s": with_log, "warm_with_log_s": warm}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--articles", type=int, default=40, help="synthetic articles of the real build (part 2)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", default=None, help="working folder (default: a temp dir, removed afterwards)")
    args = parser.parse_args()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bl-proofs-"))
    try:
        print(f"loadavg {Path('/proc/loadavg').read_text().split()[:3]}", flush=True)
        p1 = part1(args.entries, work / "part1", args.repeat)
        added_s = p1["generate_s"] + p1["write_s"] + p1["copy_s"]
        print(f"entries={p1['entries']} files={p1['files']} inclusion_hashes_max={p1['inclusion_hashes_max']} "
              f"inclusion_proof_bytes_max={p1['inclusion_proof_bytes_max']} inclusion_json_bytes_max={p1['inclusion_json_bytes_max']} "
              f"inclusion_json_bytes_mean={p1['inclusion_json_bytes_mean']:.0f} consistency_json_bytes={p1['consistency_json_bytes']} "
              f"checkpoint_bytes={p1['checkpoint_bytes']} all_log_files_bytes={p1['all_files_bytes']}", flush=True)
        print(f"entries={p1['entries']} generate_s={p1['generate_s']:.3f} write_s={p1['write_s']:.3f} "
              f"copy_s={p1['copy_s']:.3f} log_added_s={added_s:.3f}", flush=True)
        p2 = part2(args.articles, work / "part2")
        per_article = p2["cold_without_log_s"] / p2["articles"]
        estimate = per_article * args.entries
        warm_estimate = p2["warm_with_log_s"] / p2["articles"] * args.entries
        print(f"articles={p2['articles']} cold_without_log_s={p2['cold_without_log_s']:.2f} "
              f"cold_with_log_s={p2['cold_with_log_s']:.2f} warm_with_log_s={p2['warm_with_log_s']:.2f} "
              f"per_article_cold_s={per_article:.3f}", flush=True)
        # The log is rewritten whole when a checkpoint is signed, so compare it with a cold build;
        # the warm build (nothing changed) is the lowest a build of that size can cost.
        print(f"entries={args.entries} log_added_s={added_s:.2f} cold_build_estimate_s={estimate:.0f} "
              f"added_pct={100 * added_s / estimate:.2f} (target < 10) warm_build_estimate_s={warm_estimate:.0f} "
              f"added_pct_of_warm={100 * added_s / warm_estimate:.2f} inclusion_proof_bytes={p1['inclusion_proof_bytes_max']} "
              f"(target < 1024) inclusion_json_bytes={p1['inclusion_json_bytes_max']} loadavg {Path('/proc/loadavg').read_text().split()[:3]}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
