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
        scopes: dict[tuple[str, str, str], list[str]] = {}
        for lim in env.found(record):
            scopes.setdefault((lim.rule_id, lim.source, lim.text), []).append(lim.scope)
        # What the record says of itself in so many words comes first; the generator's rules
        # and the record's `meaning` strings of single parts fold away under it.
        first = [(k, v) for k, v in scopes.items() if k[0] in PROMINENT or v == [""]]
        rest = [(k, v) for k, v in scopes.items() if (k, v) not in first]
        lines = [
            f'<p class="bl-lim-head"><strong>What record {escape.html(record)} (<code>{rec.entry.sha256[:12]}</code>) does not show</strong></p>',
            "",
            *(_item(k, v) for k, v in first),
        ]
        if rest:
            lines += ["", f'<details class="bl-lim-more" markdown="1"><summary>{len(rest)} more, on parts of the record</summary>', "", *(_item(k, v) for k, v in rest), "", "</details>"]
        return "\n".join(lines)


PROMINENT = ("record-limitation", "record-flag")


def _item(key: tuple[str, str, str], where: list[str]) -> str:
    _, source, text = key
    said = "the record says" if source == "record" else "generator rule"
    places = sorted({w or "the whole record" for w in where})
    at = places[0] if len(places) == 1 else f"{len(places)} places ({places[0]}, …)"
    return f"- {escape.text(text)} <small>({said}; applies to {escape.text(at)})</small>"
