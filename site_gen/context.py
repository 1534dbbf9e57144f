"""What every page kind renders from: the verified records, the ledger, and the shared tools
(Jinja environment, chart cache, options). Built once per build by `build_site`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from benchledger.errors import BuildError
from benchledger.project import ExtraPage
from site_gen.limitations import Limitation, find_limitations
from site_gen.render_cache import RenderCache
from site_gen.templating import make_jinja_env, template_problem

if TYPE_CHECKING:
    from benchledger.cases.base import Case
    from site_gen.history import SeriesReport
    from benchledger.records.store import LedgerEntry, SealedRecord
    from site_gen.charts import ChartCache
    from benchledger.records.tlog import PublishedLog


@dataclass(frozen=True)
class BuildOptions:
    """Settings of one build (all have defaults; nothing here depends on the clock)."""

    site_name: str = "benchledger"
    # Where the served copies of the records live inside the site.
    records_prefix: str = "records"
    articles_prefix: str = "articles"
    # Where the site will be published, for absolute links in the Atom feed and "cite this
    # article"; "" when unknown (relative links).
    site_url: str = ""
    # Authored articles (page kind `authored`); None: none.
    articles_dir: Path | None = None
    # The project's look and extra pages (benchledger.toml's [theme], [paths].templates, [[pages]]).
    palette_primary: str = "indigo"
    palette_accent: str = "amber"
    logo: Path | None = None
    templates_dir: Path | None = None  # files here replace packaged templates of the same name
    extra_pages: tuple[ExtraPage, ...] = ()
    # The project folder, which a build must never write its site over (None: not known).
    project_root: Path | None = None


@dataclass
class RecordView:
    """One sealed record as pages see it: where its article and its served bytes live, and its
    limitations (computed once)."""

    record: "SealedRecord"
    options: BuildOptions
    # the published log's verifier key ("" when none) and latest tree size: the audit block names
    # them, so they are part of what a cached article rendering depends on
    log_key: str = ""
    log_size: int = 0
    # where its limitations are kept between builds (None: computed every build)
    render_cache: "RenderCache | None" = field(default=None, repr=False, compare=False)

    @property
    def entry(self) -> "LedgerEntry":
        return self.record.entry

    @property
    def data(self) -> Any:
        return self.record.data

    @property
    def sha256(self) -> str:
        return self.record.entry.sha256

    @property
    def schema(self) -> str:
        return self.record.entry.schema

    @property
    def page_path(self) -> str:
        """The article's Markdown path in the docs dir: articles/<store path without .json>.md,
        except that a record named README gets README~.md: MkDocs publishes README.md as its
        folder's index, and beside a record named index the build failed for good (a store path
        never holds "~", so no other record's page is named so)."""
        stem = self.entry.path[: -len(".json")] if self.entry.path.endswith(".json") else self.entry.path
        if stem.rsplit("/", 1)[-1] == "README":
            stem += "~"
        return f"{self.options.articles_prefix}/{stem}.md"

    @property
    def raw_path(self) -> str:
        """Where the exact sealed bytes are served, relative to the site root."""
        return f"{self.options.records_prefix}/{self.entry.path}"

    @property
    def download_name(self) -> str:
        """The file name a download of the record is saved under: its whole store path, '/'
        written as '+' (a character store paths cannot hold), so records in different folders
        that share a file name (two `h200.json`) do not overwrite each other in a downloads folder."""
        return self.entry.path.replace("/", "+")

    @property
    def download_arg(self) -> str:
        """`download_name` as a shell argument: './' ahead of a name that starts with '-', which
        `sha256sum` would read as an option."""
        return f"./{self.download_name}" if self.download_name.startswith("-") else self.download_name

    @cached_property
    def limitations(self) -> list[Limitation]:
        # Every comparison page reads the limitations of each record it draws from: walking a
        # record for every rule costs tens of ms, so a warm build reads them from the cache.
        if self.render_cache is None:
            return find_limitations(self.data)
        found = self.render_cache.memo(self, "limitations", lambda: [dataclasses.asdict(lim) for lim in find_limitations(self.data)])
        return [Limitation(**lim) for lim in found]


@dataclass
class SiteContext:
    """Everything a page kind needs. `records` are verified (Store.load_verified())."""

    records: list["SealedRecord"]
    entries: list["LedgerEntry"]
    head_sha256: str
    charts: "ChartCache"
    ledger_bytes: bytes = b""  # records/ledger.jsonl as read, served for download
    options: BuildOptions = field(default_factory=BuildOptions)
    # Per-record renderings kept between builds (none kept unless the build gives a folder).
    render_cache: "RenderCache" = field(default_factory=lambda: RenderCache(None))
    env: jinja2.Environment = field(default_factory=lambda: make_jinja_env())
    # the signed checkpoints published under ledger/ (None: the store has none yet)
    log: "PublishedLog | None" = None
    # What the build should tell its user without failing (e.g. an article citing nothing yet).
    notes: list[str] = field(default_factory=list)
    # Values computed once per build from all the records, by the module that owns them (e.g.
    # site_gen.comparisons.comparisons_of), so that every page kind shares one computation.
    derived: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def views(self) -> list[RecordView]:
        """One view per record, in ledger order."""
        key, size = (self.log.key.text, self.log.latest.checkpoint.size) if self.log else ("", 0)
        return [RecordView(r, self.options, key, size, self.render_cache) for r in self.records]

    @cached_property
    def history(self) -> list["SeriesReport"]:
        """Every series of the records with its change detection (computed once per build;
        series pages, the `change` citation and the feed read the same report)."""
        from site_gen.history import history

        return history([(r.data, r.entry.sha256, r.entry.path, r.entry.schema) for r in self.records],
                       cases_by_schema=self.cases)

    @cached_property
    def cases(self) -> dict[str, list["Case"]]:
        """Every record's cases (benchledger.cases), per schema that has a case table, in ledger
        order: read once per build, for the comparisons and the series alike."""
        from benchledger.cases.registry import kind_for

        out: dict[str, list["Case"]] = {}
        for view in self.views:
            kind = kind_for(view.schema)
            if kind is not None:
                out.setdefault(kind.schema, []).extend(kind.cases(view.data, view.sha256, view.entry.path))
        return out

    @cached_property
    def _views_by_sha256(self) -> dict[str, RecordView]:
        return {v.sha256: v for v in self.views}

    def view(self, sha256: str) -> RecordView:
        """The view of the record with this sha256 (KeyError if none)."""
        return self._views_by_sha256[sha256]

    def render(self, template: str, **values: Any) -> str:
        """Render templates/<template> (autoescaped) with `site` and `values`; BuildError naming
        the template file and line when it cannot be (a project's override with a mistake)."""
        try:
            return self.env.get_template(template).render(site=self, **values)
        except (jinja2.TemplateError, UnicodeDecodeError) as err:
            raise BuildError(template_problem(template, err)) from None
