"""The graph-replay workload interface and plan settings: the built-in model is deterministic
and exact-length; user factories load from an import path; bad plans list every problem;
numerics settings are applied, recorded and restored."""

import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from benchledger.errors import PlanError  # noqa: E402
from collector.modules.graph_replay.experiment import Experiment, ExperimentError, cublas_workspace_problem  # noqa: E402
from collector.modules.graph_replay.settings import GraphReplaySettings  # noqa: E402
from collector.modules.graph_replay.workload import (  # noqa: E402
    builtin_classifier, builtin_text, inputs_sha256, load_workload, tensor_bytes, weights_sha256,
)
from collector.plan_loader import load_plan  # noqa: E402

pytestmark = pytest.mark.torch

SMALL = dict(token_limit=128, width=32, heads=2, layers=1, hidden=64, classes=3,
             frozen_short_tokens=[20, 16], frozen_per_length=2, frozen_longest_tokens=100)


def test_builtin_weights_and_inputs_are_fixed_by_the_seed():
    a, b = builtin_classifier(**SMALL), builtin_classifier(**SMALL)
    assert weights_sha256(a.model) == weights_sha256(b.model)
    assert inputs_sha256(a.frozen_inputs) == inputs_sha256(b.frozen_inputs)
    other = builtin_classifier(**{**SMALL, "seed": 1})
    assert weights_sha256(other.model) != weights_sha256(a.model)


def test_builtin_inputs_have_exact_lengths_and_score_to_a_decision():
    workload = builtin_classifier(**SMALL)
    assert [ids.numel() for ids in workload.frozen_inputs] == [20, 20, 16, 16]
    assert workload.frozen_longest.numel() == 100
    assert all(len(builtin_text(n, 3)) == n for n in (1, 7, 64, 1000))
    assert workload.make_synthetic(77, 5).numel() == 77
    with torch.no_grad():
        scores = workload.model(workload.frozen_inputs[0].unsqueeze(0))
    assert scores.shape == (1, 3) and torch.isfinite(scores).all()


def test_weights_hash_depends_on_dtype():
    workload = builtin_classifier(**SMALL)
    fp32 = weights_sha256(workload.model)
    assert weights_sha256(workload.model.to(torch.float16)) != fp32


def _factory_module(tmp_path, monkeypatch, name, body):
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_pair_factory_is_completed_from_the_plan(tmp_path, monkeypatch):
    _factory_module(tmp_path, monkeypatch, "pair_scorer", """
        import torch

        class Scorer(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Embedding(50, 4)

            def forward(self, tokens):
                return self.embed(tokens).mean(dim=1)

        def make(length=12):
            torch.manual_seed(0)
            return Scorer(), [torch.arange(length) % 50, (torch.arange(length) * 7) % 50]
    """)
    with pytest.raises(ValueError, match="must give token_limit and vocab_size"):
        load_workload("pair_scorer:make", {})
    workload = load_workload("pair_scorer:make", {"length": 10}, token_limit=32, vocab_size=50)
    assert [ids.numel() for ids in workload.frozen_inputs] == [10, 10]
    settings = GraphReplaySettings(workload="pair_scorer:make", workload_options={"length": 10},
                                   device="cpu", token_limit=32, vocab_size=50, short_repetitions=4,
                                   long_repetitions=2, warmup_repetitions=1, synthetic_tokens=(16,))
    record = Experiment(settings).run()
    assert [(m["kind"], m["tokens"], m["distinct_inputs"]) for m in record["measurements"]] == [
        ("frozen_short", 10, 2), ("synthetic_exact_text", 16, 1)]
    assert record["overlimit"][0]["tokens"] == 33 and record["overlimit"][0]["model_forwards"] == 0
    assert any(s.startswith("python:pair_scorer:make@sha256:") for s in record["sources"])


def test_unusable_workloads_fail_with_one_line(tmp_path, monkeypatch):
    _factory_module(tmp_path, monkeypatch, "bad_scorer", """
        import torch

        def wrong_type():
            return 42

        def too_long():
            from collector.modules.graph_replay.workload import ScoringWorkload
            return ScoringWorkload("x", torch.nn.Identity(), [torch.zeros(9, dtype=torch.int64)], 8, 4)
    """)
    with pytest.raises(ValueError, match="expected 'package.module:factory'"):
        load_workload("bad_scorer", {})
    with pytest.raises(ValueError, match="cannot import 'no_such_module:f'"):
        load_workload("no_such_module:f", {})
    with pytest.raises(ValueError, match="returned int"):
        load_workload("bad_scorer:wrong_type", {})
    with pytest.raises(ValueError, match=r"frozen_inputs\[0\]: 9 tokens exceed the token limit 8"):
        load_workload("bad_scorer:too_long", {})
    settings = GraphReplaySettings(workload="bad_scorer:wrong_type", device="cpu")
    with pytest.raises(ExperimentError, match="^workload: "):
        Experiment(settings).run()


def test_synthetic_lengths_over_the_limit_are_refused_before_running():
    settings = GraphReplaySettings(workload_options=SMALL, device="cpu", synthetic_tokens=(129,))
    with pytest.raises(ExperimentError, match=r"synthetic_tokens \[129\] exceed the workload's token limit 128"):
        Experiment(settings).run()


def test_a_bad_plan_lists_every_problem(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(textwrap.dedent("""
        article_key = "bad-graph-replay"
        module = "graph_replay"
        [settings]
        device = "tpu"
        profile = "fp8"
        synthetic_tokens = [0, 5]
        sdpa_backend = "fast"
        colour = "blue"
        [[cases]]
        id = "one"
        [[cases]]
        id = "two"
    """))
    with pytest.raises(PlanError) as caught:
        load_plan(plan)
    lines = caught.value.lines()
    for expected in ("$.cases: the graph_replay module makes one record from one case",
                     "$.settings.device: expected one of auto, cuda, cpu, got 'tpu'",
                     "$.settings.profile: expected one of fp32, fp16, bf16, got 'fp8'",
                     "$.settings.synthetic_tokens: expected a list of at most 256 positive token counts <= 1048576",
                     "$.settings.sdpa_backend: expected one of math, flash, efficient, cudnn",
                     "$.settings.colour: unknown setting for the graph_replay module"):
        assert any(expected in line for line in lines), (expected, lines)
    assert not any("$.cases[1].settings" in line for line in lines)  # the plan-wide values, once


def test_a_list_or_table_where_a_name_is_expected_is_a_plan_problem(tmp_path):
    """`profile = ["fp32"]` or a table for sdpa_backend: looked up in a dict, they raised
    TypeError (unhashable) from plan loading, even under --dry-run."""
    plan = tmp_path / "plan.toml"
    plan.write_text(textwrap.dedent("""
        article_key = "bad-graph-replay"
        module = "graph_replay"
        [settings]
        profile = ["fp32"]
        sdpa_backend = {name = "flash"}
        [[cases]]
        id = "one"
    """))
    with pytest.raises(PlanError) as caught:
        load_plan(plan)
    lines = caught.value.lines()
    assert any("$.settings.profile: expected one of fp32, fp16, bf16" in line for line in lines), lines
    assert any("$.settings.sdpa_backend: expected one of math, flash, efficient, cudnn" in line for line in lines), lines


def test_a_workload_module_that_is_not_there_is_a_plan_problem_not_a_failed_record(tmp_path):
    """`collect --dry-run` approved `workload = "nonexistent.mod:f"`; the real run then sealed a
    failed record for good."""
    plan = tmp_path / "plan.toml"
    plan.write_text('article_key = "gone"\nmodule = "graph_replay"\n[settings]\nworkload = "no_such_pkg_x.mod:f"\n[[cases]]\nid = "one"\n')
    with pytest.raises(PlanError) as caught:
        load_plan(plan)
    assert any(line.endswith("$.settings.workload: cannot find module 'no_such_pkg_x.mod' (No module named 'no_such_pkg_x'); "
                             "install it, or run collect where it is on the Python path") for line in caught.value.lines()), caught.value.lines()
    plan.write_text(plan.read_text().replace("no_such_pkg_x.mod:f", "no_such_module_x:f"))
    with pytest.raises(PlanError) as caught:
        load_plan(plan)
    assert any(line.endswith("$.settings.workload: no module named 'no_such_module_x'; install it, or run collect where it is "
                             "on the Python path") for line in caught.value.lines()), caught.value.lines()


def test_loading_the_module_and_checking_a_plan_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys; from collector.plan_loader import load_plan; "
            "load_plan('examples/graph-replay-cpu.toml'); "
            "from collector.modules.registry import get_module; get_module('graph_replay'); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[3])
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.int64, torch.bool])
def test_tensor_bytes_are_the_elements_bytes_in_order_without_numpy(dtype):
    base = (torch.arange(24) % 5).to(dtype)
    view = base[3:15:2]  # an offset, strided view: its own elements only
    expected = view.contiguous().view(torch.uint8).numpy().tobytes()
    assert tensor_bytes(view) == expected and len(expected) == 6 * base.element_size()
    assert tensor_bytes(base[:0]) == b""
    with pytest.raises(ValueError, match="needs a CPU tensor"):  # never a device pointer read as host memory
        tensor_bytes(torch.empty(2, device="meta"))


def test_deterministic_cublas_needs_its_workspace_config_on_cuda_only():
    on = GraphReplaySettings(deterministic_algorithms=True)
    assert cublas_workspace_problem(on, "cuda", ":4096:8") is None
    assert cublas_workspace_problem(on, "cuda", ":16:8") is None
    assert cublas_workspace_problem(on, "cpu", None) is None
    assert cublas_workspace_problem(GraphReplaySettings(), "cuda", None) is None
    problem = cublas_workspace_problem(on, "cuda", ":4096:2")  # the cuDNN RNN value, not cuBLAS's
    assert problem.startswith("deterministic_algorithms = true on CUDA needs CUBLAS_WORKSPACE_CONFIG "
                              "set to :4096:8 or :16:8 before the run starts (it is ':4096:2')")


def test_numerics_settings_are_applied_recorded_and_restored():
    def current():
        return (torch.backends.cuda.matmul.allow_tf32, torch.are_deterministic_algorithms_enabled(),
                torch.get_num_threads(), torch.backends.cuda.flash_sdp_enabled(), torch.backends.cuda.math_sdp_enabled())

    before = current()
    assert before[:2] == (False, False) and before[3:] == (True, True)  # torch's defaults
    settings = GraphReplaySettings(workload_options=SMALL, device="cpu", profile="bf16", short_repetitions=2,
                                   long_repetitions=1, warmup_repetitions=1, allow_tf32=True,
                                   deterministic_algorithms=True, sdpa_backend="flash", threads=1)
    record = Experiment(settings).run()
    assert record["determinism"] | {"CUBLAS_WORKSPACE_CONFIG": None} == {
        "cuda_matmul_allow_tf32": True, "cudnn_allow_tf32": True, "float32_matmul_precision": "high",
        "cuda_matmul_allow_fp16_reduced_precision_reduction": True,  # torch's default, left alone
        "cuda_matmul_allow_bf16_reduced_precision_reduction": True,
        "deterministic_algorithms": True, "cudnn_deterministic": False, "cudnn_benchmark": False,
        "sdpa_flash_enabled": True, "sdpa_mem_efficient_enabled": False, "sdpa_math_enabled": False,
        "sdpa_cudnn_enabled": False, "CUBLAS_WORKSPACE_CONFIG": None, "torch_threads": 1}
    assert set(record["original_artifact_hashes"]) == {"BF16_weight", "source_weight", "BF16_scores", "inputs"}
    assert current() == before
