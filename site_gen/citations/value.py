"""`cite` (a number) and `text` (a string) read from a sealed record by JSON pointer."""

from __future__ import annotations

from site_gen import escape, quantity
from site_gen.citations.base import CitationEnv, CitationKind, CitationProblem, check_unit, describe
from site_gen.limitations import Limitation


class Cite(CitationKind):
    """`{{ cite("rec", "/cases/0/groups/0/server_decode_tokens_per_second/mean", unit="tokens/s") }}`:
    the number formatted with its unit, its origin on hover, its limitations beside it. A
    withheld percentile shows as withheld with the reason; a null explained by a limitation
    (energy unavailable) shows as unavailable with the reason."""

    name = "cite"

    def render(self, env: CitationEnv, record: str, pointer: str, unit: str = "") -> str:
        shown, limits = self.markup(env, record, pointer, unit)
        return shown + env.marker(record, limits, counted=not env.is_input(record, pointer))

    def markup(self, env: CitationEnv, record: str, pointer: str, unit: str = "") -> tuple[str, list[Limitation]]:
        """The number's markup and the limitations to mark beside it."""
        if not isinstance(unit, str):
            raise CitationProblem(f"unit must be text such as \"tokens/s\", not {unit!r}")
        cited = env.number(record, pointer, as_cited=True)
        check_unit(unit, pointer)
        limits = env.applicable(cited)
        withheld = env.withheld(cited)
        if withheld is not None:
            shown = quantity.traced(None, unit, cited.sha256, pointer, text="withheld", reason=withheld.text)
            return f'{shown} <span class="bl-withheld">({escape.text(withheld.text)})</span>', limits
        if cited.value is None:
            # Only a limitation scoped at the value or the object holding it explains a null.
            parent = pointer[: pointer.rfind("/")]
            reasons = [lim for lim in limits if lim.scope in (pointer, parent) and lim.source == "generator"]
            if not reasons:
                raise CitationProblem(f"{pointer} in record {cited.name} is null and no limitation explains why; cite another value")
            reason = "; ".join(lim.text for lim in reasons)
            shown = quantity.traced(None, unit, cited.sha256, pointer, text="unavailable", reason=reason)
            return f'{shown} <span class="bl-withheld">({escape.text(reason)})</span>', limits
        return quantity.traced(cited.value, unit, cited.sha256, pointer), limits


class Text(CitationKind):
    """`{{ text("rec", "/hardware/gpu") }}`: a string (or true/false) from the record, escaped
    exactly as on record pages, with its origin on hover."""

    name = "text"

    def render(self, env: CitationEnv, record: str, pointer: str) -> str:
        shown, limits = self.markup(env, record, pointer)
        return shown + env.marker(record, limits, counted=False)

    def markup(self, env: CitationEnv, record: str, pointer: str) -> tuple[str, list[Limitation]]:
        """The text's markup and the limitations to mark beside it."""
        cited = env.value(record, pointer)
        if isinstance(cited.value, bool):
            shown = str(cited.value).lower()
        elif isinstance(cited.value, str):
            shown = cited.value
        else:
            raise CitationProblem(f"{pointer} in record {cited.name} is {describe(cited.value)}, not text; use cite() for numbers")
        return quantity.traced_text(shown, cited.sha256, pointer, name_record=True), env.applicable(cited)
