"""A benchledger project: the folder a user owns, holding its records, its articles and an
optional `benchledger.toml`. Every command finds it the way git finds `.git`: the working
folder or its nearest parent holding a `benchledger.toml`, or the folder `--project DIR`
names; without one, the working folder with the defaults. Every path a command reads or writes
by default is relative to the project root, never to where benchledger is installed.

```toml
[site]
name = "benchledger"              # the site's name (header, <title>, feed)
url = ""                          # where it is published, e.g. "https://example.org/bench/";
                                  # "" = unknown (relative links in the feed)

[paths]                           # relative to this file's folder
records = "records"               # the sealed-records store (with its ledger.jsonl)
articles = "docs/articles"        # authored articles (Markdown citing sealed records)
templates = ""                    # a folder whose files replace packaged templates of the same name

[theme]
logo = ""                         # an image in the project, shown in the header
[theme.palette]                   # Material for MkDocs colour names
primary = "indigo"
accent = "amber"

[[pages]]                         # extra hand-written pages, listed in the navigation
title = "About"
source = "docs/about.md"

[log]                             # the signed transparency log (records/checkpoints/)
verifier_keys = []                # NAME+KEYID+BASE64 lines that may sign checkpoints; when
                                  # empty, records/checkpoints/vkeys in the store lists them
```

Validated like plans: every problem at once, as `benchledger.toml: $.site.url: expected ...`.
This module is core level: it imports neither the collector nor the site generator."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import SplitResult, urlsplit

from benchledger.errors import InputError, Problem, ProjectError, os_reason
from benchledger.files import read_input
from benchledger.tomlread import read_toml

PROJECT_FILE = "benchledger.toml"
DEFAULT_RECORDS = "records"
DEFAULT_ARTICLES = "docs/articles"
DEFAULT_SITE_NAME = "benchledger"
# Material for MkDocs' palette names (https://squidfunk.github.io/mkdocs-material/setup/changing-the-colors/).
PRIMARY_COLOURS = ("red", "pink", "purple", "deep purple", "indigo", "blue", "light blue", "cyan", "teal", "green",
                   "light green", "lime", "yellow", "amber", "orange", "deep orange", "brown", "grey", "blue grey",
                   "black", "white")
ACCENT_COLOURS = PRIMARY_COLOURS[:16]  # no brown, grey, blue grey, black or white accents
LOGO_SUFFIXES = (".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp")
# The name lands in YAML (mkdocs.yml), HTML text and attributes, <title> and the Atom feed:
# plain printable text only, so no context needs an escape it might miss.
# no control characters (C0, DEL, C1: U+0085 ends a line), line or paragraph separators, or HTML/Markdown syntax
_SITE_NAME = re.compile(r"[^\x00-\x1f\x7f-\x9f\u2028\u2029<>&\"'`\\{}]{1,80}")
_PAGE_TITLE = _SITE_NAME
_PAGE_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class ExtraPage:
    """A hand-written page the project adds to the site and its navigation."""

    title: str
    source: Path  # absolute, inside the project
    slug: str  # the page's file name in the site: pages/<slug>.html


@dataclass(frozen=True)
class Theme:
    primary: str = "indigo"
    accent: str = "amber"
    logo: Path | None = None  # absolute, inside the project


@dataclass(frozen=True)
class Project:
    """A project folder and its settings, every path absolute."""

    root: Path
    config_file: Path | None  # None: no benchledger.toml, the defaults apply
    site_name: str = DEFAULT_SITE_NAME
    site_url: str = ""
    records_dir: Path = Path()
    articles_dir: Path = Path()
    templates_dir: Path | None = None
    theme: Theme = field(default_factory=Theme)
    pages: tuple[ExtraPage, ...] = ()
    verifier_keys: tuple[str, ...] = ()  # checkpoint verifier keys, validated

    @property
    def site_dir(self) -> Path:
        """Where `build` writes the site by default."""
        return self.root / "site"


def find_project(explicit: Path | str | None = None, start: Path | str | None = None) -> Project:
    """The project `explicit` names (a folder, with or without a benchledger.toml), else the
    nearest folder from `start` (default: the working folder) upwards holding a
    benchledger.toml, else `start` itself with the defaults."""
    if explicit is not None:
        root = Path(explicit).resolve()
        if not root.is_dir():
            what = "is a file, not a project folder" if root.exists() else "no such project folder"
            raise InputError(str(explicit), "", f"{what} (--project names a folder, optionally holding a benchledger.toml)")
        return load_project(root)
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if os.path.lexists(folder / PROJECT_FILE):  # one that cannot be read is named, not passed over
            return load_project(folder)
    return load_project(here)


def load_project(root: Path | str) -> Project:
    """The project in `root`: its benchledger.toml read and validated (ProjectError listing
    every problem), or the defaults when the folder has none."""
    root = Path(root).resolve()
    config = root / PROJECT_FILE
    if not os.path.lexists(config):  # a folder, a FIFO or a link loop there is read, and refused, below
        return Project(root, None, records_dir=root / DEFAULT_RECORDS, articles_dir=root / DEFAULT_ARTICLES)
    shown = _shown(config)
    raw = read_input(config, shown, what="a project file")
    doc = read_toml(raw, shown)
    return _build(root, config, shown, doc)


def _shown(config: Path) -> str:
    """How the file is named in messages: relative to the working folder when inside it."""
    try:
        return config.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return config.as_posix()


class _Reader:
    """Reads one table of the document, collecting every problem instead of stopping."""

    def __init__(self, root: Path, shown: str):
        self.root = root
        self.shown = shown
        self.problems: list[Problem] = []

    def bad(self, where: str, message: str) -> None:
        self.problems.append(Problem(self.shown, where, message))

    def table(self, doc: dict, key: str, where: str, keys: tuple[str, ...]) -> dict:
        value = doc.get(key, {})
        if not isinstance(value, dict):
            self.bad(f"{where}", "expected a table")
            return {}
        for unknown in sorted(set(value) - set(keys)):
            self.bad(f"{where}.{unknown}", f"unknown key; expected one of {', '.join(keys)}")
        return value

    def text(self, table: dict, key: str, where: str, default: str, check: Callable[[str], str | None] | None = None) -> str:
        value = table.get(key, default)
        if not isinstance(value, str):
            self.bad(where, f"expected text, found {type(value).__name__}")
            return default
        problem = check(value) if check else None
        if problem:
            self.bad(where, problem)
            return default
        return value

    def path(self, table: dict, key: str, where: str, default: str | None, kind: str) -> Path | None:
        """A path relative to the project, which must stay inside it; `kind` is "folder" or
        "file" (checked when the key is written, since a default may not exist yet)."""
        value = table.get(key, default)
        if value is None:
            return None
        if not isinstance(value, str):
            self.bad(where, f"expected a path relative to the project, found {type(value).__name__}")
            return None
        if value == "" or "\x00" in value or Path(value).is_absolute():
            self.bad(where, f"expected a path relative to the project folder, not {value!r} (leave the key out for the default)")
            return None
        try:
            path = (self.root / value).resolve()
            if not path.is_relative_to(self.root):
                self.bad(where, f"{value!r} leaves the project folder; keep every path inside it")
                return None
            if key in table:
                if kind == "folder" and not path.is_dir():
                    self.bad(where, f"no such folder {value!r} in the project")
                elif kind == "file" and not path.is_file():
                    self.bad(where, f"no such file {value!r} in the project")
        except OSError as err:  # a name too long for the file system, a loop of links
            self.bad(where, f"cannot use {value[:80]!r}: {os_reason(err)}")
            return None
        return path


def _site_name(value: str) -> str | None:
    if _SITE_NAME.fullmatch(value) and value.strip():
        return None
    return "expected a name of 1 to 80 printable characters without < > & \" ' ` \\ { }"


def split_url(value: str) -> SplitResult:
    """`value` split into its parts; ValueError (urllib's reason) for what urllib cannot split
    ("http://[::1": Invalid IPv6 URL) and a port past 65535, which it raises only when asked."""
    parts = urlsplit(value)
    parts.port  # noqa: B018 (a port out of range raises here)
    return parts


def site_url_problem(value: str) -> str | None:
    """Why `value` is not a usable site URL ("" is: unknown), or None."""
    if value == "":
        return None
    try:
        parts = split_url(value)
    except ValueError:
        parts = None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment
            or re.search(r"[\s<>\"'`\\{}]", value)):
        return f"expected an absolute http(s) URL without query or fragment, e.g. 'https://example.org/bench/'; found {value!r}"
    return None


def _colour(choices: tuple[str, ...]) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        return None if value in choices else f"expected a Material colour name, one of: {', '.join(choices)}; found {value!r}"

    return check


def _build(root: Path, config: Path, shown: str, doc: dict[str, Any]) -> Project:
    r = _Reader(root, shown)
    for unknown in sorted(set(doc) - {"site", "paths", "theme", "pages", "log"}):
        r.bad(f"$.{unknown}", "unknown key; expected one of site, paths, theme, pages, log")
    site = r.table(doc, "site", "$.site", ("name", "url"))
    name = r.text(site, "name", "$.site.name", DEFAULT_SITE_NAME, _site_name)
    url = r.text(site, "url", "$.site.url", "", site_url_problem)
    paths = r.table(doc, "paths", "$.paths", ("records", "articles", "templates"))
    records = r.path(paths, "records", "$.paths.records", DEFAULT_RECORDS, "folder") or root / DEFAULT_RECORDS
    if records == root:  # every project file would then be an unsealed file of the store
        r.bad("$.paths.records", "the records store is a folder of its own inside the project, not the project folder")
    articles = r.path(paths, "articles", "$.paths.articles", DEFAULT_ARTICLES, "folder") or root / DEFAULT_ARTICLES
    templates = r.path(paths, "templates", "$.paths.templates", None, "folder")
    theme_table = r.table(doc, "theme", "$.theme", ("logo", "palette"))
    logo = r.path(theme_table, "logo", "$.theme.logo", None, "file")
    if logo is not None and logo.suffix.lower() not in LOGO_SUFFIXES:
        r.bad("$.theme.logo", f"expected an image ({', '.join(LOGO_SUFFIXES)})")
        logo = None
    palette = r.table(theme_table, "palette", "$.theme.palette", ("primary", "accent"))
    theme = Theme(r.text(palette, "primary", "$.theme.palette.primary", "indigo", _colour(PRIMARY_COLOURS)),
                  r.text(palette, "accent", "$.theme.palette.accent", "amber", _colour(ACCENT_COLOURS)), logo)
    pages = _pages(r, doc.get("pages", []))
    keys = _verifier_keys(r, r.table(doc, "log", "$.log", ("verifier_keys",)).get("verifier_keys", []))
    if r.problems:
        raise ProjectError(r.problems, f"{shown}: {len(r.problems)} problem(s) in the project file; nothing was done")
    return Project(root, config, name, url, records, articles, templates, theme, pages, keys)


def _verifier_keys(r: _Reader, value: Any) -> tuple[str, ...]:
    """`[log] verifier_keys`: note verifier keys (NAME+KEYID+BASE64), each checked."""
    from benchledger.records.keys import VerifierKey  # keys need `cryptography`; only a [log] table does

    if not isinstance(value, list):
        r.bad("$.log.verifier_keys", "expected a list of verifier keys (NAME+KEYID+BASE64)")
        return ()
    keys = []
    for i, item in enumerate(value):
        where = f"$.log.verifier_keys[{i}]"
        if not isinstance(item, str):
            r.bad(where, f"expected a verifier key (NAME+KEYID+BASE64), found {type(item).__name__}")
            continue
        try:
            keys.append(VerifierKey.parse(item, r.shown).text)
        except InputError as err:
            r.bad(where, err.problems[0].message)
    return tuple(keys)


def _pages(r: _Reader, value: Any) -> tuple[ExtraPage, ...]:
    if not isinstance(value, list):
        r.bad("$.pages", "expected an array of tables: [[pages]] with title and source")
        return ()
    out: list[ExtraPage] = []
    for i, item in enumerate(value):
        where = f"$.pages[{i}]"
        if not isinstance(item, dict):
            r.bad(where, "expected a table with title and source")
            continue
        for unknown in sorted(set(item) - {"title", "source"}):
            r.bad(f"{where}.{unknown}", "unknown key; expected title, source")
        title = item.get("title")
        if "title" not in item:
            r.bad(f"{where}.title", "missing: the page's title in the navigation")
        elif not (isinstance(title, str) and _PAGE_TITLE.fullmatch(title) and title.strip()):
            r.bad(f"{where}.title", "expected a title of 1 to 80 printable characters without < > & \" ' ` \\ { }")
        if "source" not in item:
            r.bad(f"{where}.source", "missing: the Markdown file of the page, relative to the project")
            continue
        source = r.path(item, "source", f"{where}.source", None, "file")
        if source is None:
            continue
        if source.suffix != ".md":
            r.bad(f"{where}.source", "expected a Markdown file (.md)")
            continue
        slug = re.sub(r"[^a-z0-9]+", "-", source.stem.lower()).strip("-") or "page"
        if not _PAGE_SLUG.fullmatch(slug):
            slug = "page"
        if any(p.slug == slug for p in out):
            r.bad(f"{where}.source", f"another page is already published as pages/{slug}.html; rename the file")
            continue
        if isinstance(title, str):
            out.append(ExtraPage(title, source, slug))
    return tuple(out)
