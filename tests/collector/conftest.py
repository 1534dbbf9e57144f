"""Plans for the built-in phase_workload module, written into a test's tmp_path, and the tiny
model the llama tests run."""

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A ~3 MB random-weight llama GGUF written for this test session."""
    from collector.modules.llama_server.tiny_model import write_tiny_model

    return write_tiny_model(tmp_path_factory.mktemp("tiny-model") / "tiny.gguf", seed=0)


def case_table(case_id, **options):
    opts = ", ".join(f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"' for k, v in options.items())
    return f'[[cases]]\nid = "{case_id}"\nmodel = "blob"\noptions = {{ {opts} }}\n'


@pytest.fixture
def make_plan(tmp_path):
    """make_plan(cases={"id": {options}}, **settings) -> path of a phase_workload plan."""

    def make(cases=None, name="plan.toml", **settings):
        (tmp_path / "model.bin").write_bytes(os.urandom(100_000))
        values = {"contexts": [20, 40], "output_tokens": 16, "warmup_rounds": 1, "measured_rounds": 3, "baseline_seconds": 0.3, "host_sample_hz": 20.0}
        values.update(settings)
        lines = ['article_key = "phase-workload-test"', 'module = "phase_workload"', "[settings]"]
        lines += [f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"' for k, v in values.items()]
        lines += ["[models.blob]", 'files = ["model.bin"]', 'name = "random bytes"', ""]
        cases = cases or {"small": {"alloc_mib": 8}, "large": {"alloc_mib": 32}}
        text = "\n".join(lines) + "\n".join(case_table(cid, **opts) for cid, opts in cases.items())
        if len(cases) >= 2:
            text += f'\n[[comparisons]]\naxis = "alloc_mib"\ncases = {list(cases)!r}\n'.replace("'", '"')
        path = tmp_path / name
        path.write_text(text)
        return path

    return make
