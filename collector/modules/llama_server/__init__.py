"""llama.cpp ``llama-server`` placement runs (see module.py); tiny_model.py writes a test model."""

from collector.modules.llama_server.module import LlamaServerModule

__all__ = ["LlamaServerModule"]
