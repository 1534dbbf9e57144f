"""`provenance`: a box naming exactly which sealed bytes an article cites and what they say
about where they came from."""

from __future__ import annotations

from typing import Any

from benchledger.records.pointer import to_pointer
from site_gen import escape
from site_gen.citations.base import CitationEnv, CitationKind

MAX_FIELDS = 16


class Provenance(CitationKind):
    """`{{ provenance("rec") }}`: the record's ledger entry (sha256, position, path, schema,
    sealing time) and its own top-level descriptive fields; hashes inside the record are
    marked as claimed by it (the files they name are not published here)."""

    name = "provenance"
    block = True

    def render(self, env: CitationEnv, record: str) -> str:
        rec = env.record(record)
        e = rec.entry
        rows = [
            ("record sha256", f"<code>{e.sha256}</code> (verified: the build checks these exact bytes)"),
            ("ledger position", str(e.position)),
            ("path", f"<code>{escape.html(e.path)}</code>"),
            ("schema", escape.html(e.schema)),
            ("sealed at", escape.html(e.sealed_at)),
        ]
        for parts, value in _descriptive(rec.data)[:MAX_FIELDS]:
            label = ".".join(str(p) for p in parts)
            shown = escape.html(value if not isinstance(value, bool) else str(value).lower())
            if isinstance(parts[-1], str) and "sha256" in parts[-1] or (len(parts) > 1 and "hashes" in str(parts[0])):
                shown = f"<code>{shown}</code> (claimed by the record)"
            pointer = escape.attr(to_pointer(parts))
            rows.append((escape.html(label), f'<span title="record sha256 {e.sha256} · pointer {pointer}">{shown}</span>'))
        body = "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
        return (
            f'<details class="bl-provenance" id="provenance-{escape.attr(record)}">\n'
            f"<summary>Provenance of record {escape.html(record)}: <code>{e.sha256[:12]}</code>, "
            f"ledger position {e.position}, {escape.html(e.path)}</summary>\n"
            f"<table>\n{body}\n</table>\n</details>"
        )


def _descriptive(data: Any) -> list[tuple[list, Any]]:
    """Top-level scalars and the scalars of top-level objects (hardware, runtime, ...):
    what the record says about itself, not its measurements (those sit in lists)."""
    out: list[tuple[list, Any]] = []
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        # Flags (booleans) are limitations, listed by limitations(); here only descriptions.
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out.append(([key], value))
        elif isinstance(value, dict):
            for sub, inner in value.items():
                if isinstance(inner, (str, int, float)) and not isinstance(inner, bool):
                    out.append(([key, sub], inner))
    return out
