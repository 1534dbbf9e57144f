"""The graph-replay measuring module: a PyTorch scoring path run eagerly and as a replayed CUDA
graph, timed, compared bit for bit, with capture memory and an over-limit probe
(record schema torch-graph-replay/1). torch is imported lazily, inside functions."""

from collector.modules.graph_replay.module import GraphReplayModule

__all__ = ["GraphReplayModule"]
