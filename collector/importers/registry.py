"""The importers, by the tool name `benchledger import TOOL` takes."""

from __future__ import annotations

from benchledger.errors import InputError
from collector.importers.base import Importer
from collector.importers.llama_bench import LlamaBenchImporter

IMPORTERS: dict[str, Importer] = {i.tool: i for i in (LlamaBenchImporter(),)}


def importer_for(tool: str) -> Importer:
    """The importer of `tool`; InputError naming the known ones otherwise."""
    try:
        return IMPORTERS[tool]
    except KeyError:
        raise InputError(tool, "", f"no importer for this tool; known: {', '.join(sorted(IMPORTERS))}") from None
