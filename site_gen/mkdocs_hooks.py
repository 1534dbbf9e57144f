"""MkDocs hooks of the generated site (mkdocs.yml `hooks:`), loaded by MkDocs from this file."""

from __future__ import annotations

from site_gen import dirty_build, raw_html


def on_page_content(html, page, config, files):
    """Ids inside raw blocks (site_gen/raw_html.py) that MkDocs' own scan no longer sees are
    added to the page's anchors, so strict anchor checks of links to them still hold."""
    page.present_anchor_ids = (page.present_anchor_ids or set()) | raw_html.ids(html)
    return html


def on_env(env, config, files):
    """After every page is read, before links are checked: the anchors of the pages a dirty
    build reused, and the record of every page's anchors for the next build
    (site_gen/dirty_build.py)."""
    dirty_build.restore_anchors(files)
    return env
