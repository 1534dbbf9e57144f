"""Record schema -> the renderer of its articles. A record of a schema listed nowhere here
stops the build (a page that silently skipped a record would break invariant 4)."""

from __future__ import annotations

from benchledger.errors import BuildError
from site_gen.pages.records.base import RecordRenderer
from site_gen.pages.records.graph_replay import GraphReplayRenderer
from site_gen.pages.records.llama_bench import LlamaBenchRenderer
from site_gen.pages.records.llm_core import LlmCoreRenderer

RENDERERS: dict[str, RecordRenderer] = {r.schema: r for r in (LlmCoreRenderer(), GraphReplayRenderer(), LlamaBenchRenderer())}


def renderer_for(schema: str, path: str) -> RecordRenderer:
    """The renderer for `schema`; BuildError naming the record when there is none."""
    try:
        return RENDERERS[schema]
    except KeyError:
        raise BuildError(f"{path}: no article renderer for schema {schema!r} (known: {', '.join(sorted(RENDERERS))})") from None
