"""Every citation kind an article may call, by the name it is called with."""

from __future__ import annotations

from site_gen.citations.base import CitationKind
from site_gen.citations.change import ChangeClaim
from site_gen.citations.chart import ChartBlock
from site_gen.citations.derived import Difference, Per, Ratio
from site_gen.citations.limits import Limitations
from site_gen.citations.provenance import Provenance
from site_gen.citations.table import Table
from site_gen.citations.value import Cite, Text

KINDS: dict[str, CitationKind] = {kind.name: kind for kind in (
        Cite(), Text(), Ratio(), Per(), Difference(), Table(), ChartBlock(), Limitations(), Provenance(), ChangeClaim(),
    )}
