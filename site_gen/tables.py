"""Tables: pandas DataFrames of already-rendered cells (traced numbers, escaped text) written as
HTML. `DataFrame.to_html` is deterministic (unlike `Styler`, whose ids change per render), so
two builds produce the same bytes."""

from __future__ import annotations

from typing import Iterable, Mapping

import pandas as pd


def frame(rows: Iterable[Mapping[str, str]], columns: list[str]) -> pd.DataFrame:
    """A DataFrame of rendered cells with the given column order (missing cells empty)."""
    return pd.DataFrame([{c: row.get(c, "") for c in columns} for row in rows], columns=columns)


def html_table(table: pd.DataFrame, caption: str | None = None) -> str:
    """The table as one HTML block. Cells and headers must already be safe HTML (escaped record
    text or markup from site_gen.quantity); nothing is escaped again here."""
    html = table.to_html(
        escape=False,
        index=False,
        border=0,
        classes=["bl-table"],
        na_rep="",
        justify="left",
    )
    # pandas adds a style attribute per header row; the site's stylesheet aligns instead.
    html = html.replace(' style="text-align: left;"', "")
    if caption:
        html = html.replace('<table border="0" class="dataframe bl-table">', f'<table class="dataframe bl-table">\n<caption>{caption}</caption>', 1)
    else:
        html = html.replace('<table border="0" class="dataframe bl-table">', '<table class="dataframe bl-table">', 1)
    return html
