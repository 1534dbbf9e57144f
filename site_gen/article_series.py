"""Article series: the sealed records that share an article_key, the runs of one plan over
time, and which run comes before and after each (the links between their articles).

A record names its series by its own `article_key` (gsh-llm-core-article/1 has one); a record
of a schema without one, by the store folder it was sealed into, where the collector files every
run of a plan (records/<article_key>/<tested_at>.json). A record at the store's root names none.
Runs are ordered as the article list orders records (`chronological`): by test date, then by
sealing order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from site_gen.context import RecordView


def series_key(view: "RecordView") -> str | None:
    """The article series `view`'s record is a run of (see the module docstring), or None."""
    key = view.data.get("article_key") if isinstance(view.data, dict) else None
    if isinstance(key, str) and key:
        return key
    return view.entry.path.rpartition("/")[0] or None


def chronological(date: str, view: "RecordView") -> tuple[str, int]:
    """The sort key of a record among others, oldest first: its test date as its summary shows
    it, then its ledger position, so that the order never depends on anything else. The article
    list (newest first) and every series sort by it."""
    return (date, view.entry.position)


@dataclass(frozen=True)
class Neighbours:
    """The runs on either side of a record in its series (None at an end)."""

    key: str  # the series: its article_key, or the store folder of a schema without one
    before: "RecordView | None"
    after: "RecordView | None"


def neighbours(dated: Iterable[tuple["RecordView", str]]) -> dict[str, Neighbours]:
    """Each record's neighbours in its series, by sha256, from (view, test date) pairs; records
    in no series, or alone in theirs, are left out."""
    series: dict[str, list[tuple[RecordView, str]]] = {}
    for view, date in dated:
        key = series_key(view)
        if key is not None:
            series.setdefault(key, []).append((view, date))
    out = {}
    for key, runs in series.items():
        if len(runs) < 2:
            continue
        ordered = [view for view, _ in sorted(runs, key=lambda run: chronological(run[1], run[0]))]
        for i, view in enumerate(ordered):
            out[view.sha256] = Neighbours(key, ordered[i - 1] if i else None, ordered[i + 1] if i + 1 < len(ordered) else None)
    return out
