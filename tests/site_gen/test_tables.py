"""The table writer emits exactly what pandas' `to_html(escape=False, index=False)` emits for
tables of rendered cells whose column names are escaped (so pages stay byte-identical to the
pandas rendering), with a caption when asked; headers and the caption are text, escaped here."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen import escape
from site_gen.tables import frame, html_table

# What pages put in tables: words of markup and text separated by single spaces (record text is
# whitespace-collapsed by site_gen.escape), or nothing.
WORDS = r"[a-z0-9<>&;=\"/.\u00b5\u202f-]+( [a-z0-9<>&;=\"/.\u00b5\u202f-]+)*"
cells = st.one_of(st.just(""), st.from_regex(WORDS, fullmatch=True))


def pandas_html(table) -> str:
    out = table.to_html(escape=False, index=False, border=0, classes=["bl-table"], na_rep="", justify="left")
    return (out.replace(' style="text-align: left;"', "").replace('<table border="0" class="dataframe bl-table">', '<table class="dataframe bl-table">')
            .replace("<thead>", "<thead data-pagefind-ignore>")  # a header row is not indexed for search
            .replace("<th>", '<th scope="col">'))  # and its cells say which way they head


@settings(deadline=None)  # the first example imports pandas (a quarter second), in `frame`
@given(st.lists(st.from_regex(WORDS, fullmatch=True), min_size=1, max_size=4, unique=True), st.data())
def test_same_bytes_as_pandas(columns, data):
    rows = data.draw(st.lists(st.fixed_dictionaries({c: cells for c in columns}), max_size=4))
    table = frame(rows, columns)
    assert html_table(table) == pandas_html(table.set_axis([escape.html(c) for c in columns], axis=1))


def test_caption_and_missing_cells():
    html = html_table(frame([{"a": "<b>1</b>"}], ["a", "b"]), caption="Runtime buffers")
    assert html.startswith('<table class="dataframe bl-table">\n<caption>Runtime buffers</caption>\n  <thead data-pagefind-ignore>')
    assert "<td><b>1</b></td>" in html and "<td></td>" in html


def test_headers_and_caption_are_text():
    """A column named by record text (a comparison's axis) cannot open a tag in the header."""
    axis = '<img src=x onerror=alert(1)>'
    html = html_table(frame([{axis: "1"}], [axis]), caption="</caption><script>x</script>")
    assert "<img" not in html and "<script>" not in html
    assert "<th scope=\"col\">&lt;img src=x onerror=alert(1)&gt;</th>" in html
    assert "<caption>&lt;/caption&gt;&lt;script&gt;x&lt;/script&gt;</caption>" in html
