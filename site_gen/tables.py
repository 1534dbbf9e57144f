"""Tables: pandas DataFrames of already-rendered cells (traced numbers, escaped text) written as
HTML. The writer emits the same markup as `DataFrame.to_html(escape=False, index=False)` (which
is deterministic, unlike `Styler`, whose ids change per render) without its per-cell formatting
machinery, which cost more than the rest of an article."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from site_gen import escape

if TYPE_CHECKING:
    import pandas as pd


def frame(rows: Iterable[Mapping[str, str]], columns: list[str]) -> pd.DataFrame:
    """A DataFrame of rendered cells with the given column order (missing cells empty)."""
    # rows as lists, not dicts: pandas' reading of a dict per row was most of making a table
    return object_frame([[row.get(c, "") for c in columns] for row in rows], columns)


def object_frame(rows: list[list], columns: list[str]) -> pd.DataFrame:
    """A DataFrame of `rows` (lists of scalar cells, one per column) whose cells stay the objects
    given: pandas 3 would otherwise infer (and build) a string array for every column, and a
    column of ints and floats would show 322 tokens as "322.0". Handed over as one 2-D object
    array, which pandas keeps as one block: half the time of its reading a list of lists column by
    column, a tenth of an article's rendering."""
    import numpy as np
    import pandas as pd  # here: `verify --site` reads cells as this module writes them, and never needs pandas (0.24 s)

    cells = np.empty((len(rows), len(columns)), dtype=object)
    if rows:  # numpy broadcasts no empty list into a (0, n) array
        cells[:] = rows
    return pd.DataFrame(cells, columns=columns, dtype=object, copy=False)


_ESCAPES = str.maketrans({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


def cell_text(value: object) -> str:
    """As pandas prints a cell: control characters spelled out, surrounding spaces dropped."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    text = str(value)
    # str.translate looks every character up in a dict: on the long markup of a traced number
    # that was most of writing a table. Three substring scans in C decide whether it is needed.
    if "\t" in text or "\n" in text or "\r" in text:
        text = text.translate(_ESCAPES)
    return text.strip()


def data_cell(value: object) -> str:
    """A cell of the table behind a chart: the value exactly as the chart has it, "n/a" where it
    has none (a point without a range)."""
    return "n/a" if value is None else escape.attr(value)


def html_row(cells: Iterable[object]) -> str:
    """One table row's cells as `html_table` writes them, one line each (`verify --site` looks
    for a row it makes again so)."""
    return "\n".join(f"      <td>{cell_text(v)}</td>" for v in cells)


def html_table(table: pd.DataFrame, caption: str | None = None, cell: Callable[[object], str] | None = None) -> str:
    """The table as one HTML block. Headers and the caption are plain text (a column can be named
    by record text: a comparison's axis, a case's value) and are escaped here, always. Cells must
    already be safe HTML (escaped record text or markup from site_gen.quantity), or `cell` makes
    each value so (as `table.map(cell)` would, without building a second DataFrame per table)."""
    # one conversion, not itertuples' column by column
    return table_html(list(table.columns), table.to_numpy(dtype=object).tolist(), caption, cell)


def table_html(columns: Iterable[object], rows: Iterable[Iterable[object]], caption: str | None = None,
               cell: Callable[[object], str] | None = None) -> str:
    """`html_table` of a table given as its column names and rows of cells: what `verify --site`
    makes again, without pandas, to find on a page."""
    lines = ['<table class="dataframe bl-table">']
    if caption:
        lines.append(f"<caption>{escape.html(caption)}</caption>")
    # a table's header row is no passage to quote: search excerpts read "field value. Run. ..."
    lines += ["  <thead data-pagefind-ignore>", "    <tr>"]
    lines += [f'      <th scope="col">{escape.html(c)}</th>' for c in columns]
    lines += ["    </tr>", "  </thead>", "  <tbody>"]
    for row in rows:
        lines += ["    <tr>", html_row(row if cell is None else map(cell, row)), "    </tr>"]
    lines += ["  </tbody>", "</table>"]
    return "\n".join(lines)
