"""Cache eviction: after a successful build, the render cache drops the values and blobs that
build did not use. Without it every change left its old renderings behind (a 17 MB series page
per record sealed into a 1,000-article site: 1.4 GB of values and blobs after a day of
rebuilds). The next build with the same ledger, options and code needs exactly what this one
used, so it still renders nothing; a build with other options renders what it needs again.

The chart cache keeps the SVG of every chart the built site shows, whether its page was
rendered or taken from the render cache (a build that takes every page from there asks for no
chart, yet the next page rendered again wants its charts back): a page names each chart's file
by the hash of its spec, as the cache names the entry.

Only names the caches themselves give their entries are removed (`own`): anything else in
their folders was not made by benchledger and stays."""

from __future__ import annotations

import os
import re
from pathlib import Path


def sweep(folder: Path | None, used: set[str], own: re.Pattern[str]) -> int:
    """Remove the files in `folder` whose names match `own` in full and are not in `used`;
    returns how many were removed."""
    if folder is None or not folder.is_dir():
        return 0
    removed = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name not in used and own.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                try:
                    os.unlink(entry.path)
                    removed += 1
                except FileNotFoundError:  # gone meanwhile
                    pass
    return removed
