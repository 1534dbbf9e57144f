"""`verify --site` follows every local link and load of every page: to a file the site holds,
and a #fragment to an element with that id on its page (a real build of the shipped records,
edited as a host covering its tracks would: SHA256SUMS listed again)."""

from __future__ import annotations

import re

import pytest

from tests.site_gen.site_support import audited_after_edit, build

OFFLOAD = "articles/llm-cpu-offload/2026-09-27.html"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("links")).out_dir


def _first_card_link(html: str) -> str:
    return re.search(r'<h2 class="bl-card-title" id="card-1"><a href="([^"]+)">', html).group(1)


def test_a_link_to_a_page_the_site_lacks_is_reported(built, tmp_path):
    def edit(html: str) -> str:
        link = _first_card_link(html)
        return html.replace(f'href="{link}#limitations"', 'href="articles/gone.html#limitations"', 1)

    assert audited_after_edit(built, tmp_path, "index.html", edit) == [
        "SITE/index.html: links 'articles/gone.html#limitations', which leads to no file of the site "
        "(articles/gone.html): the link is dead"]


def test_a_link_to_an_anchor_its_page_lacks_is_reported(built, tmp_path):
    def edit(html: str) -> str:
        link = _first_card_link(html)
        return html.replace(f'href="{link}#limitations"', f'href="{link}#limitationz"', 1)

    link = _first_card_link((built / "index.html").read_text(encoding="utf-8"))
    assert audited_after_edit(built, tmp_path, "index.html", edit) == [
        f"SITE/index.html: links '{link}#limitationz', but {link} has no element with the id 'limitationz': the link is dead"]


@pytest.mark.parametrize("ref, shown", [
    ("../../assets/benchledger-gone.js", "assets/benchledger-gone.js"),  # a script the page loads
    ("../../../outside.html", "../outside.html"),  # out of the site's folder
])
def test_a_load_the_site_lacks_or_a_link_out_of_it_is_reported(built, tmp_path, ref, shown):
    def edit(html: str) -> str:
        return html.replace('<script src="../../assets/benchledger.js"></script>', f'<script src="{ref}"></script>', 1)

    assert audited_after_edit(built, tmp_path, OFFLOAD, edit) == [
        f"SITE/{OFFLOAD}: links {ref!r}, which leads to no file of the site ({shown}): the link is dead"]


def test_links_into_folders_to_the_page_itself_and_site_paths_pass(built, tmp_path):
    """A folder's link leads to its index.html, a bare fragment to the page's own element; a
    site path (the 404 page's kind, written for the folder the site is served from) is not
    resolved, and another host's link is the reader's to follow."""
    extra = ('<a href="comparisons/">comparisons</a> <a href="#card-1">first</a> <a href="/somewhere/else.html">x</a> '
             '<a href="https://example.org/nowhere">y</a> <a href="mailto:someone@example.org">z</a></body>')
    assert audited_after_edit(built, tmp_path, "index.html", lambda html: html.replace("</body>", extra, 1)) == []
