"""bench/agreement.py runs end to end (the 3 MB model, one alternation) and prints its ratio
lines; the figures themselves come from a real run on the ~413 MB model, reported in its note."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_agreement_script_prints_its_ratios(llama_bench_binary, tmp_path):
    env = {**os.environ, "LLAMA_BENCH": str(llama_bench_binary)}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "agreement.py"), "--tiny", "--alternations", "1",
                           "--reps", "2", "--prompt", "32", "--gen", "8", "--keep-model", str(tmp_path / "tiny.gguf")],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("prompt_ratio_vs_llama_bench", "decode_ratio_vs_llama_bench", "decode_ratio_vs_llama_bench_tg_depth0"):
        match = re.search(rf"^{name}=(\d+\.\d+) spread=(\d+\.\d+)\.\.(\d+\.\d+) fastest=\d+\.\d+$", done.stdout, re.MULTILINE)
        assert match, done.stdout
        ratio, low, high = map(float, match.groups())
        assert ratio > 0 and low <= high
    assert "load average" in done.stdout
