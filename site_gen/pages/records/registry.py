"""Record schema -> the renderer of its articles. A record of a schema listed nowhere here
stops the build (a page that silently skipped a record would break invariant 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchledger.errors import BuildError
from site_gen.pages.records.base import RecordRenderer, Summary
from site_gen.pages.records.graph_replay import GraphReplayRenderer
from site_gen.pages.records.llama_bench import LlamaBenchRenderer
from site_gen.pages.records.llm_core import LlmCoreRenderer

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext

RENDERERS: dict[str, RecordRenderer] = {r.schema: r for r in (LlmCoreRenderer(), GraphReplayRenderer(), LlamaBenchRenderer())}


def renderer_for(schema: str, path: str) -> RecordRenderer:
    """The renderer for `schema`; BuildError naming the record when there is none."""
    try:
        return RENDERERS[schema]
    except KeyError:
        raise BuildError(f"{path}: no article renderer for schema {schema!r} (known: {', '.join(sorted(RENDERERS))})") from None


def summary_of(site: "SiteContext", view: "RecordView") -> Summary:
    """A record's summary, made once per build: its article's head and its home card both show
    it (made for each, it was about 1 s of a cold 1,000-article build's own CPU)."""
    made = site.derived.setdefault("summaries", {})
    if view.sha256 not in made:
        made[view.sha256] = renderer_for(view.schema, view.entry.path).summary(view)
    return made[view.sha256]
