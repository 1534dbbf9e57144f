"""A wheel that works: benchledger built as a wheel from this checkout and installed into a fresh
venv outside it (only the wheel and its dependencies, nothing of the checkout on the path),
then used as a new user would: `init` a project, seal a copy of a shipped record into it, add
an article citing it, `build`, `verify --site` the result and `serve` it once over http.

What is heavy is cached: the dependencies' wheels, in ~/.cache/benchledger/wheelhouse/<key>
(key: Python version and the dependency list of pyproject.toml; $BENCHLEDGER_WHEELHOUSE moves
it), fetched once through pip. The benchledger wheel and the venv are made afresh every run."""

import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json"
# What a source distribution of the checkout holds: the tracked tree minus what git ignores.
SKIP = {".git", ".venv", "site", ".cache", "build", "runs", "tests", "__pycache__", ".hypothesis", ".pytest_cache"}

pytestmark = pytest.mark.wheel


def _wheelhouse() -> Path:
    """The dependencies' wheels, fetched once per (Python, dependency list)."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    key = hashlib.sha256(repr((platform.python_version(), platform.machine(), sorted(deps))).encode()).hexdigest()[:16]
    base = Path(os.environ.get("BENCHLEDGER_WHEELHOUSE", Path.home() / ".cache" / "benchledger" / "wheelhouse"))
    house = base / key
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".lock", "w") as lock:  # two test runs at once fetch once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (house / ".complete").is_file():
            partial = base / f".{key}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--wheel-dir", str(partial), *deps], check=True, timeout=1200)
            (partial / ".complete").write_text("\n".join(deps) + "\n")
            shutil.rmtree(house, ignore_errors=True)
            partial.rename(house)
    return house


def _source_copy(dest: Path) -> Path:
    """The checkout's files a wheel is built from, copied, so the build leaves nothing behind
    in the checkout and no stale build/ folder can leak into the wheel."""
    shutil.copytree(ROOT, dest, ignore=lambda folder, names: [n for n in names if n in SKIP or n.endswith((".egg-info", ".so"))])
    return dest


def _run(args, cwd, env, timeout=300):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv bin folder, environment) of a fresh venv holding the wheel built from this checkout."""
    work = tmp_path_factory.mktemp("wheel")
    house = _wheelhouse()
    source = _source_copy(work / "src")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(work / "dist"), str(source)],
                   check=True, timeout=600)
    (wheel,) = (work / "dist").glob("benchledger-*.whl")
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", str(work / "venv")], check=True, timeout=300)
    bin_dir = work / "venv" / "bin"
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(house), str(wheel)],
                   check=True, timeout=900)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "BENCHLEDGER_CACHE_DIR", "BENCHLEDGER_RUNS")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1", NO_MKDOCS_2_WARNING="1")
    return bin_dir, env, work


def test_the_wheel_carries_its_resources_and_nothing_of_the_checkout(installed):
    bin_dir, env, work = installed
    out = _run([str(bin_dir / "python"), "-c",
                "import site_gen, benchledger.records.schema as s, site_gen.resources as r, benchledger.records.jsonread as j; "
                "print(site_gen.__file__); print(r.templates_dir()); print(len(r.resource_files())); print(' '.join(s.schema_ids())); "
                "print(j.reads_alike is j._compiled_reads_alike); "
                "import benchledger.records.checks as c; print(c.check_record is c._twin.check_record); "
                "print(c.statistics_hold is not None); "
                "from collector.telemetry.host import HostSampler; print(HostSampler(10, pss_every_sample=False).compiled_ticks)"],
               cwd=work, env=env)
    package, templates, count, schemas, compiled, checks_compiled, statistics_compiled, ticks_compiled = out.splitlines()
    site_packages = str(work / "venv" / "lib")
    assert package.startswith(site_packages) and templates.startswith(site_packages)
    assert not package.startswith(str(ROOT)) and int(count) >= 10
    assert "gsh-llm-core-article/1" in schemas.split()
    assert compiled == "True"  # the wheel carries the no-duplicate-key proof compiled from C (setup.py)
    assert checks_compiled == "True"  # and the consistency checks compiled by Cython, from the source it ships
    assert statistics_compiled == "True"  # and the statistics proof compiled from C
    assert ticks_compiled == "True"  # and the host sampler's ticks read in C


def test_init_seal_cite_build_verify_and_serve_from_the_wheel(installed, tmp_path):
    bin_dir, env, _ = installed
    bl = str(bin_dir / "benchledger")
    _run([bl, "init", "lab"], cwd=tmp_path, env=env)
    project = tmp_path / "lab"
    # this venv has the base install only: a plan needing PyTorch is refused before it runs, so no
    # failed record is sealed for a missing package
    refused = subprocess.run([bl, "collect", "plans/graph-replay-cpu.toml"], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and "pip install 'benchledger[torch]'" in refused.stderr, refused.stderr
    assert (project / "records" / "ledger.jsonl").read_bytes() == b""
    record = tmp_path / "offload.json"
    shutil.copy(SEED, record)
    sealed = _run([bl, "seal", str(record), "--schema", "gsh-llm-core-article/1", "--as", "llm-cpu-offload/2026-09-27.json"], cwd=project, env=env)
    sha256 = re.search(r"sha256 ([0-9a-f]{64})", sealed).group(1)
    assert sha256 == hashlib.sha256(SEED.read_bytes()).hexdigest()
    (project / "docs" / "articles" / "offload.md").write_text(f"""---
title: What CPU offload costs
date: 2026-10-05
authors: [lab]
tags: [llama-cpp]
summary: Decode speed along GPU layers, cited from the sealed record.
records:
  run: "{sha256[:16]}"
---

Decode with every layer on the GPU: {{{{ cite("run", "/cases/0/groups/0/server_decode_tokens_per_second/median", unit="tokens/s") }}}}.

{{{{ chart("run", rows="/cases/*/groups/*", x="/cases/{{0}}/placement/gpu_layers", y="server_decode_tokens_per_second/median", series="context_tokens", x_title="GPU layers", y_title="decode tokens/s", series_title="context tokens") }}}}
""")
    # from a subfolder: the project is found upwards; --no-cache, as the scaffolded publishing workflow builds
    built = _run([bl, "build", "--no-cache"], cwd=project / "docs", env=env)
    # nothing of the build cached in the project (seal's validation passes live there already)
    assert not any((project / ".cache" / "benchledger" / sub).exists() for sub in ("mkdocs", "charts", "render"))
    assert "note: docs/articles/welcome.md: cites no sealed record yet" in built
    site = project / "site"
    page = (site / "posts" / "offload.html").read_text()
    assert f'data-sha256="{sha256}"' in page and "bl-chart" in page
    assert (site / "assets" / "benchledger.css").read_bytes() == (ROOT / "templates" / "assets" / "benchledger.css").read_bytes()
    assert "Methodology" in (site / "methodology.html").read_text()
    assert any((site / "assets" / "charts").glob("*.svg"))
    verified = _run([bl, "verify", "--site", "site", "--redraw-charts"], cwd=project, env=env)
    assert "every page's stated hashes match" in verified and "every chart's image is what this vl-convert draws" in verified

    server = subprocess.Popen([bl, "serve", "--port", "0"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        for line in server.stdout:
            found = re.search(r"on (http://127\.0\.0\.1:\d+/)", line)
            if found:
                url = found.group(1)
                break
        assert url, "serve printed no address"
        with urllib.request.urlopen(url + "posts/offload.html", timeout=30) as response:
            assert response.status == 200 and sha256 in response.read().decode()
        with urllib.request.urlopen(url + "records/llm-cpu-offload/2026-09-27.json", timeout=30) as response:
            assert hashlib.sha256(response.read()).hexdigest() == sha256  # the exact sealed bytes are served
    finally:
        server.terminate()  # the server this test started, by its own handle
        server.wait(timeout=30)


def test_without_a_c_compiler_the_wheel_still_builds_and_reads_records_with_the_proof_in_python(tmp_path):
    """The compiled no-duplicate-key proof, statistics proof, checks and sampler ticks are optional
    (setup.py): where the compiler fails the wheel is built without them, and the records core
    falls back to the same proof and rules in Python (every rule run), the sampler to ticks read
    in Python."""
    source = _source_copy(tmp_path / "src")
    env = {**os.environ, "CC": "false"}  # setuptools compiles with $CC: here it fails at once
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(source)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for extension in ("benchledger.records._memberproof", "benchledger.records._statsproof", "benchledger.records._checks_compiled",
                      "collector.telemetry._ticks"):
        assert f'building extension "{extension}" failed' in done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("benchledger-*.whl")
    unpacked = tmp_path / "unpacked"
    shutil.unpack_archive(wheel, unpacked, format="zip")
    assert not list(unpacked.rglob("*.so"))
    script = ("import sys, benchledger.records.jsonread as j\n"
              "print(j.__file__)\n"
              "print(j.reads_alike is j._reads_alike_in_python)\n"
              "print(len(j.read_json_bytes(open(sys.argv[1], 'rb').read(), 'seed.json')))\n"
              "print(j._quick_parse(b'{\"a\": 1, \"a\": 2}') is j._UNSURE)\n"
              "import benchledger.records.checks as c\n"
              "print(c.check_record is c.python_check_record)\n"
              "print(c.statistics_hold is None)\n"
              "from collector.telemetry.host import HostSampler\n"
              "print(HostSampler(10, pss_every_sample=False).compiled_ticks)\n")
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    out = _run([sys.executable, "-c", script, str(SEED)], cwd=tmp_path, env=env).splitlines()
    assert out[0].startswith(str(unpacked)) and out[1:] == ["True", str(len(json.loads(SEED.read_bytes()))), "True", "True", "True", "False"]
