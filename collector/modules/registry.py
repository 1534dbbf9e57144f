"""The measuring modules, by the name plans use. Values are import paths resolved on first use,
so importing this registry (or running a llama-server plan) never imports torch."""

from __future__ import annotations

import importlib
from functools import cache

from collector.modules.base import MeasuringModule

MODULES: dict[str, str] = {
    "llama_server": "collector.modules.llama_server:LlamaServerModule",
    "graph_replay": "collector.modules.graph_replay:GraphReplayModule",
    "phase_workload": "collector.modules.phase_workload:PhaseWorkloadModule",
}


class ModuleUnavailable(Exception):
    """The plan names a module that is unknown or cannot be imported."""


@cache
def get_module(name: str) -> MeasuringModule:
    """The (single) instance of the named module."""
    if name not in MODULES:
        raise ModuleUnavailable(f"unknown module {name!r}; expected one of {', '.join(sorted(MODULES))}")
    module_path, _, class_name = MODULES[name].partition(":")
    try:
        cls = getattr(importlib.import_module(module_path), class_name)
    except (ImportError, AttributeError) as err:
        raise ModuleUnavailable(f"module {name!r} cannot be loaded ({MODULES[name]}): {err}") from None
    if not (isinstance(cls, type) and issubclass(cls, MeasuringModule)):
        raise ModuleUnavailable(f"{MODULES[name]} is not a MeasuringModule")
    return cls()
