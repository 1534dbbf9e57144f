"""The methodology page: the hand-written intro (docs/methodology.md), the glossary generated
from the schemas' descriptions, and every limitation rule with its condition and wording."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from benchledger.cases import evidence
from benchledger.cases.registry import KINDS
from benchledger.records import schema as schemas
from benchledger.records.pointer import resolve_ref, to_pointer
from site_gen.changes.rule import DEFAULT_RULE
from site_gen.limitations import FLAG_WORDINGS, RULES
from site_gen.page import Page
from site_gen.pages.base import PageKind
from site_gen.resources import guide_text

if TYPE_CHECKING:
    from site_gen.context import SiteContext


@dataclass(frozen=True)
class Term:
    """One glossary line: where the field sits (JSON pointer, `*` for any array item), its
    type and its description (meaning and unit, from the schema)."""

    pointer: str
    type: str
    description: str


def glossary(schema: dict) -> list[Term]:
    """Every described property of a JSON Schema, depth first, with same-document `$ref`s followed."""

    def walk(node: Any, parts: list, seen: frozenset) -> Iterator[Term]:
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            target = resolve_ref(schema, ref, default={})
            target = target if isinstance(target, dict) else {}
            yield from walk({**target, **{k: v for k, v in node.items() if k != "$ref"}}, parts, seen | {ref})
            return
        for key, child in (node.get("properties") or {}).items():
            if isinstance(child, dict):
                desc = child.get("description")
                if desc is None and isinstance(child.get("$ref"), str) and child["$ref"].startswith("#/"):
                    target = resolve_ref(schema, child["$ref"], default={})
                    desc = target.get("description") if isinstance(target, dict) else None
                kind = child.get("type") or ("object" if "$ref" in child else "")
                yield Term(to_pointer(parts + [key]), kind if isinstance(kind, str) else " | ".join(kind), desc or "")
                yield from walk(child, parts + [key], seen)
        items = node.get("items")
        if isinstance(items, dict):
            yield from walk(items, parts + ["*"], seen)
        for combo in ("anyOf", "oneOf", "allOf"):
            for option in node.get(combo) or []:
                yield from walk(option, parts, seen)

    terms: dict[str, Term] = {}
    for term in walk(schema, [], frozenset()):
        terms.setdefault(term.pointer, term)
    return list(terms.values())


class MethodologyPage(PageKind):
    name = "methodology"

    def pages(self, site: "SiteContext") -> Iterable[Page]:
        intro = guide_text("methodology.md")
        documents = {sid: schemas.load_schema(sid) for sid in schemas.schema_ids()}
        sections = [
            {"id": sid, "title": doc.get("title", sid), "description": doc.get("description", ""), "terms": glossary(doc)}
            for sid, doc in documents.items()
        ]
        yield Page(
            "methodology.md",
            "Methodology",
            site.render("methodology.md.j2", intro=intro, rules=RULES, flags=FLAG_WORDINGS, schemas=sections,
                        change_rule=DEFAULT_RULE, kinds=list(KINDS.values()), alpha=evidence.ALPHA,
                        practical_percent=f"{evidence.PRACTICAL_PERCENT:g}"),
        )
