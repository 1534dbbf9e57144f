"""Links between generated pages: the relative path of `url` is posixpath.relpath's."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from site_gen.templating import relative_path, url

_parts = st.sampled_from(["a", "b", "llm", "00", "index.md", "x.html", "é", ".", "..", ""])
_paths = st.lists(_parts, min_size=1, max_size=4).map("/".join).filter(bool)  # relpath refuses ""


@settings(max_examples=2000, deadline=None)
@given(target=_paths, start=st.lists(_parts, max_size=3).map("/".join))
def test_relative_path_is_relpath(target, start):
    assert relative_path(target, start) == posixpath.relpath(target, start or ".")


def test_url_links_pages_in_other_folders_and_escapes_the_path():
    assert url("llm/00/00012.md", "compare/a b.md") == "../../compare/a%20b.html"
    assert url("index.md", "llm/00/00012.md") == "llm/00/00012.html"
    assert url("llm/x.md", "llm/x.md") == "x.html"
