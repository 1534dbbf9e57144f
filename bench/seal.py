"""Sealing throughput: N synthetic records (bench/verify.py's, generated before the clock starts)
sealed one by one into a fresh store, each through `Store.seal_bytes` as `benchledger seal FILE`
and `collect` do: strict parse, schema, consistency checks, atomic write, fsync, ledger append.

    .venv/bin/python bench/seal.py [--records 10000] [--fresh 200] [--workdir DIR]

It prints the time per record over the first and the last tenth (constant per record means the
two agree), then the cost of a seal by a fresh `Store` (as a new `benchledger seal` process sees
the store: nothing remembered) at the final ledger size, then the same N records written to
files and sealed by `Store.seal_files` as `benchledger seal FILE... --schema ID` does (one run
per schema: every file read and validated first, in a pool of processes, then each sealed in
turn), and ends with `records=N seal_s=S per_record_ms=MS batch_seal_s=S batch_per_record_ms=MS
json_loads_s=S seal_over_json_loads=R growth=R reused_growth=R` (json.loads alone over the same
bytes: the floor of any strict parse in Python, in one process; the growths are last tenth over
first, see below).

A control comes first (`plain_writes`): the same bytes written to fresh files with open/write
alone, then removed, timed per tenth as the seals are. On the development machine (a VM) such
writes into tmpfs cost 0.05 ms each for the first few hundred MB and 0.28-0.30 ms from there on
(or from the start, when the machine had taken its memory back), without benchledger; writing
them again right after they were removed was sometimes fast throughout and sometimes not. So
the control says how much of a rise from the seals' first tenth to their last is the machine
handing out fresh memory rather than the ledger growing (measured apart, a seal's validation
stayed at 1.53-1.59 ms while its write of the file rose with the control). The same seals are
then timed again into a second store whose files are removed as soon as each seal is timed: its
ledger grows the same, and every write goes to memory freed a moment before; its last/first
(`reused_growth`) is the growth that is sealing's own."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.verify import GSH, SEEDS, TGR, synthetic_article, synthetic_graph_record  # noqa: E402
from benchledger.cpus import usable_cpus  # noqa: E402
from benchledger.records.store import Store  # noqa: E402
from benchledger.records.validation_cache import ValidationCache  # noqa: E402


def generate(count: int, rng: random.Random, start: int = 0) -> list[tuple[bytes, str, str]]:
    """(bytes, schema, store path) of `count` distinct records, one in ten a graph-replay record."""
    seeds = {k: json.loads(p.read_bytes()) for k, p in SEEDS.items()}
    out = []
    for i in range(start, start + count):
        if i % 10 == 9:
            data, schema_id, kind = synthetic_graph_record(seeds[TGR], rng, i), TGR, "torch-graph-replay"
        else:
            data, schema_id, kind = synthetic_article(seeds[GSH], rng, i), GSH, "llm"
        out.append((json.dumps(data, indent=1).encode(), schema_id, f"{kind}/{i // 1000:02d}/{i:05d}.json"))
    return out


def first_and_last_tenth_ms(times: list[float]) -> tuple[float, float]:
    """The mean of `times` (seconds) over the first and over the last tenth, in ms."""
    tenth = max(1, len(times) // 10)
    return sum(times[:tenth]) / tenth * 1000, sum(times[-tenth:]) / tenth * 1000


def plain_writes(folder: Path, blobs: list[bytes]) -> list[float]:
    """The seconds a plain write of each blob to a fresh file in `folder` took (the files are
    removed again): the machine's cost, for comparison."""
    folder.mkdir()
    times = []
    for number, blob in enumerate(blobs):
        start = time.perf_counter()
        (folder / str(number)).write_bytes(blob)
        times.append(time.perf_counter() - start)
    shutil.rmtree(folder)
    return times


def timed_seals(folder: Path, cache: Path, jobs: list[tuple[bytes, str, str]], remove_files: bool = False) -> list[float]:
    """The seconds each `Store.seal_bytes` of `jobs` took, one by one into a new store at
    `folder`; with `remove_files`, each sealed file is removed once its seal is timed."""
    folder.mkdir()
    store = Store(folder, ValidationCache(cache))
    times = []
    for raw, schema_id, path in jobs:
        start = time.perf_counter()
        store.seal_bytes(raw, schema_id, path)
        times.append(time.perf_counter() - start)
        if remove_files:
            (folder / path).unlink()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--fresh", type=int, default=200, help="seals by a fresh Store each, after the N (0: skip)")
    parser.add_argument("--workdir", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir() else None,
                        help="where to build the store (default: /dev/shm, a tmpfs, as in every run in bench/HISTORY.md; on the "
                             "development machine's ext4 disk a seal took 2.8-4.0 ms, its three fsyncs 0.2 ms each)")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    jobs = generate(args.records, rng)
    extra = generate(args.fresh, rng, start=args.records)
    if args.workdir is not None:  # a --workdir that does not exist yet: made, not a FileNotFoundError from mkdtemp
        args.workdir.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="benchledger-seal-", dir=args.workdir))
    try:
        control = plain_writes(workdir / "control", [raw for raw, _, _ in jobs])
        control_first, control_last = first_and_last_tenth_ms(control)
        print(f"# control: plain writes of the same bytes to fresh files, {control_first:.3f} ms a write in the first "
              f"tenth, {control_last:.3f} in the last")
        folder = workdir / "records"
        times = timed_seals(folder, workdir / "cache", jobs)
        total = sum(times)
        tenth = max(1, len(times) // 10)
        first, last = first_and_last_tenth_ms(times)
        print(f"# first {tenth}: {first:.2f} ms/record, last {tenth}: {last:.2f} ms/record (last/first {last / first:.2f})")
        if extra:
            fresh = []
            for raw, schema_id, path in extra:
                start = time.perf_counter()
                Store(folder, ValidationCache(workdir / "cache")).seal_bytes(raw, schema_id, path)
                fresh.append(time.perf_counter() - start)
            print(f"# fresh Store per seal at {args.records} records: {sum(fresh) / len(fresh) * 1000:.2f} ms/record "
                  f"({len(fresh)} seals)")
        shutil.rmtree(folder)
        # the same seals into a second store whose files are removed once each seal is timed: the
        # ledger, its index and head grow as before, while every write reuses memory already handed out
        reused_folder = workdir / "records-reused"
        reused = timed_seals(reused_folder, workdir / "cache-reused", jobs, remove_files=True)
        r_first, r_last = first_and_last_tenth_ms(reused)
        print(f"# files removed after each seal (the ledger grows, memory is reused): first {tenth}: {r_first:.2f} ms/record, "
              f"last {tenth}: {r_last:.2f} ms/record (last/first {r_last / r_first:.2f})")
        shutil.rmtree(reused_folder)
        # `benchledger seal FILE... --schema ID`: the files of each schema in one run
        inputs = workdir / "inputs"
        by_schema: dict[str, list[Path]] = {}
        for number, (raw, schema_id, _) in enumerate(jobs):
            source = inputs / f"{number:05d}.json"
            source.parent.mkdir(exist_ok=True)
            source.write_bytes(raw)
            by_schema.setdefault(schema_id, []).append(source)
        batch_folder = workdir / "batch-records"
        batch_folder.mkdir()
        batch_store = Store(batch_folder, ValidationCache(workdir / "batch-cache"))
        start = time.perf_counter()
        for schema_id, sources in by_schema.items():
            batch_store.seal_files(sources, schema_id)
        batch = time.perf_counter() - start
        print(f"# seal_files: {batch:.2f} s for {args.records} records in {len(by_schema)} runs "
              f"({batch / args.records * 1000:.3f} ms/record; {usable_cpus()} CPUs)")
        # the floor of any strict parse in Python: the C json parser alone over the same bytes
        start = time.perf_counter()
        for raw, _, _ in jobs:
            json.loads(raw)
        parse_s = time.perf_counter() - start
        mib = sum(len(raw) for raw, _, _ in jobs) / 2**20
        print(f"# {mib:.0f} MiB of records; json.loads alone over them: {parse_s:.2f} s; load average {os.getloadavg()[0]:.2f}")
        print(f"records={args.records} seal_s={total:.2f} per_record_ms={total / args.records * 1000:.3f} "
              f"batch_seal_s={batch:.2f} batch_per_record_ms={batch / args.records * 1000:.3f} "
              f"json_loads_s={parse_s:.2f} seal_over_json_loads={total / parse_s:.2f} growth={last / first:.2f} "
              f"reused_growth={r_last / r_first:.2f}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
