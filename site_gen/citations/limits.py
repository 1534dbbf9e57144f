"""`limitations`: the limitations list of a cited record, as a block in the prose."""

from __future__ import annotations

from site_gen import escape
from site_gen.citations.base import CitationEnv, CitationKind


class Limitations(CitationKind):
    """`{{ limitations("rec") }}`: every limitation of the record (its own list, flags and
    meanings, and the generator's rules), once per wording, with where it applies."""

    name = "limitations"
    block = True

    def render(self, env: CitationEnv, record: str) -> str:
        rec = env.record(record)
        scopes: dict[tuple[str, str], list[str]] = {}
        for lim in env.found(record):
            scopes.setdefault((lim.source, lim.text), []).append(lim.scope)
        lines = [f'<p class="bl-lim-head"><strong>What record <code>{rec.entry.sha256[:12]}</code> does not show</strong> ({len(scopes)} limitations)</p>', ""]
        for (source, text), where in scopes.items():
            said = "the record says" if source == "record" else "generator rule"
            places = sorted({w or "the whole record" for w in where})
            at = places[0] if len(places) == 1 else f"{len(places)} places ({places[0]}, …)"
            lines.append(f"- {escape.text(text)} <small>({said}; applies to {escape.text(at)})</small>")
        return "\n".join(lines)
