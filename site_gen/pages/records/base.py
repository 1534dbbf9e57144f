"""The record-renderer interface (one module per record schema) and the pieces every article
shares: traced numbers, limitation notes beside what they limit, provenance and the audit block."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable, Sequence

from benchledger.cases.base import value_text
from benchledger.cases.registry import kind_for
from benchledger.records.display import names_unix_time, utc_date
from benchledger.records.pointer import parse_pointer, resolve, resolve_held, to_pointer
from site_gen import escape, raw_html
from site_gen.charts import Chart, chart_html
from site_gen.limitations import Limitation, beside_value, by_scope, withheld_percentile
from site_gen.quantity import DIGITS, limitations_marker, traced, traced_range, traced_text, unit_for
from site_gen.tables import frame, html_table

if TYPE_CHECKING:
    from site_gen.context import RecordView, SiteContext


@dataclass(frozen=True)
class Summary:
    """What the home page card and the article head say about a record."""

    title: str  # plain text (escape when rendering)
    date: str
    hardware: str
    headline_html: str  # one sentence built from the data, with traced numbers
    measured: str = ""  # plain text: what was measured, how often, on what
    left_out: str = ""  # plain text: cases left out of the numbers ("1 of 3 cases failed: x")


class SummaryNumbers:
    """Traced numbers for a record's summary (its article's headline and its home card), each
    with one marker for the limitations a write-up citing it would mark (`beside_value`). A
    marker links to the note on the article: `#lim-...`, which the home page points at the
    article (`on_home`)."""

    def __init__(self, view: "RecordView"):
        self.view = view
        kind = kind_for(view.schema)
        self._inputs = kind.input_pointers(view.data) if kind is not None else set()

    def __call__(self, pointer: str, unit: str = "") -> str:
        view = self.view
        value, held = resolve_held(view.data, pointer)
        limits = beside_value(view.data, pointer, view.limitations, pointer in self._inputs)
        return traced(value, unit, view.sha256, held) + limitations_marker(limits)


def on_home(summary_html: str, article_url: str) -> str:
    """A summary's HTML as the home page shows it: its limitation markers link to the notes on
    the article at `article_url` (an escaped relative URL). Only the generator writes
    `href="#lim-`: record text reaches the HTML escaped, its quotes as entities."""
    return summary_html.replace('href="#lim-', f'href="{article_url}#lim-')


class RecordRenderer(ABC):
    """Renders the article for records of one schema."""

    schema: ClassVar[str]

    @abstractmethod
    def summary(self, view: "RecordView") -> Summary:
        """Title, date, hardware and headline for the card and the article head."""

    @abstractmethod
    def body(self, page: "ArticleWriter") -> None:
        """Write the article's sections (results, cases, provenance) into `page`."""

    def case_anchor(self, case_pointer: str) -> str | None:
        """The id of the section of the article that shows the case at `case_pointer` (a
        `benchledger.cases` case), or None to link to the article itself."""
        return None


@dataclass
class ArticleWriter:
    """Accumulates an article's Markdown and assets; keeps track of which limitations have been
    placed so that every one appears once, beside what it limits."""

    view: "RecordView"
    site: "SiteContext"
    parts: list[tuple[bool, str]] = field(default_factory=list)  # (is generated HTML, text)
    assets: dict[str, bytes] = field(default_factory=dict)
    placed: set[Limitation] = field(default_factory=set)

    @property
    def path(self) -> str:
        return self.view.page_path

    def add(self, markdown: str) -> None:
        """Append Markdown (headings, templates that mark their own HTML)."""
        self.parts.append((False, markdown.rstrip("\n")))

    def html(self, fragment: str) -> None:
        """Append generated HTML: it reaches the page as a raw block MkDocs does not parse."""
        self.parts.append((True, fragment.rstrip("\n")))

    def heading(self, level: int, text: str, anchor: str | None = None) -> None:
        suffix = f" {{#{escape.anchor(anchor)}}}" if anchor else ""
        self.add("#" * level + " " + escape.text(text) + suffix)

    def num(self, pointer: str, unit: str = "", text: str | None = None, limited_at: str | None = None,
            digits: int = DIGITS) -> str:
        """The traced number at `pointer`, with markers for limitations scoped at it (or at
        `limited_at`, e.g. the energy block whose `available` flag is shown)."""
        value, held = resolve_held(self.view.data, pointer)
        lims = self._limitations_by_scope.get(limited_at if limited_at is not None else pointer, ())
        return traced(value, unit, self.view.sha256, held, limitations=lims, text=text, digits=digits)

    def num_range(self, summary: str, unit: str = "") -> str:
        """"minimum–maximum unit" of the summary at `summary`, each end traced (`traced_range`)."""
        ends = [f"{summary}/{end}" for end in ("minimum", "maximum")]
        (low, low_at), (high, high_at) = (resolve_held(self.view.data, p) for p in ends)
        lims = self._limitations_by_scope
        return traced_range(low, high, unit, self.view.sha256, (low_at, high_at), (lims.get(ends[0], ()), lims.get(ends[1], ())))

    @cached_property
    def _limitations_by_scope(self) -> dict[str, list[Limitation]]:
        return by_scope(self.view.limitations)

    def derived(self, value: float | None, unit: str, formula: str, inputs: dict[str, str]) -> str:
        """A number computed here from record values: shows its formula and input pointers."""
        return traced(value, unit, self.view.sha256, None, formula=formula, inputs=inputs)

    def percentile(self, summary_pointer: str, name: str, value_key: str | None, unit: str) -> str:
        """Percentile `name` of the summary at `summary_pointer`: the value (if the record has it
        under `value_key`) or 'withheld' with the reason beside it."""
        lim = withheld_percentile(self.view.limitations, summary_pointer, name)
        if lim is not None:
            return traced(None, unit, self.view.sha256, summary_pointer, limitations=[lim], text="withheld",
                          reason=lim.text)
        if value_key is None:
            return "n/a"
        return self.num(f"{summary_pointer}/{value_key}", unit)

    def text(self, pointer: str) -> str:
        """A record string at `pointer`, escaped for HTML, with its origin in the title."""
        # as the record's JSON writes it (true / false, not Python's True / False), as case tables
        # do and as verify --site reads it back
        return traced_text(value_text(resolve(self.view.data, pointer, default=None)), self.view.sha256, pointer, name_record=False)

    def table(self, rows: Iterable[dict[str, str]], columns: list[str], caption: str | None = None) -> None:
        self.html(html_table(frame(rows, columns), caption))

    def chart(self, chart: Chart) -> None:
        html, assets = chart_html(chart, self.path, self.site.charts)
        self.assets.update(assets)
        self.html(html)

    def notes(self, where: Callable[[Limitation], bool], title: str | None = None) -> None:
        """Place the not-yet-placed limitations selected by `where` here (same text once)."""
        chosen = [lim for lim in self.view.limitations if where(lim) and lim not in self.placed]
        if not chosen:
            return
        self.placed.update(chosen)
        by_text: dict[str, list[Limitation]] = {}
        for lim in chosen:
            by_text.setdefault(lim.text, []).append(lim)
        items = []
        for text, lims in by_text.items():
            first = lims[0]
            anchors = "".join(f'<span id="{lim.anchor}"></span>' for lim in lims)
            scopes = sorted({lim.scope or "/" for lim in lims})
            where_text = ", ".join(scopes[:4]) + (f" and {len(scopes) - 4} more" if len(scopes) > 4 else "")
            items.append(
                f'<li class="bl-lim bl-lim-{first.source}">{anchors}'
                f'<span class="bl-lim-rule" title="applies to {escape.shown_attr(where_text)}">{escape.html(first.rule_id)}</span> '
                f"{escape.html(text)}</li>"
            )
        head = f'<p class="bl-limits-title">{escape.html(title)}</p>' if title else ""
        self.html(f'<div class="bl-limits">{head}<ul>{"".join(items)}</ul></div>')

    def markdown(self) -> str:
        """The page: Markdown parts as they are, each run of HTML parts one raw block."""
        return raw_html.join(self.parts)


def under(pointer: str) -> Callable[[Limitation], bool]:
    """Selects limitations scoped at `pointer` or anywhere below it."""
    base = parse_pointer(pointer)
    return lambda lim: parse_pointer(lim.scope)[: len(base)] == base


def at(*pointers: str) -> Callable[[Limitation], bool]:
    """Selects limitations scoped exactly at one of `pointers`."""
    chosen = set(pointers)
    return lambda lim: lim.scope in chosen


def kv_rows(page: ArticleWriter, pointer: str, units: dict[str, str] | None = None) -> list[dict[str, str]]:
    """Rows (field, value) for the scalar fields of the object at `pointer`: fields named as a
    reader reads them (`field_label`, the record's key on hover), numbers traced, strings escaped
    (hex digests as code), nested objects skipped (they get their own table). A `meaning` string
    is left out: it is a limitation note, placed once below the table (limitations.py)."""
    node = resolve(page.view.data, pointer, default={})
    rows = []
    for key, value in (node.items() if isinstance(node, dict) else []):
        child = pointer + to_pointer([key])
        if key == "meaning" and isinstance(value, str):
            continue

        if isinstance(value, bool) or value is None:
            shown = page.text(child)
        elif isinstance(value, (int, float)) and _IDENTIFIER.search(key):
            # a seed or a Unix time names something; it is no quantity to round and group
            # ("20,260,927"): its digits as the record holds them, a time with its date
            date = utc_date(value) if names_unix_time(key) else ""
            shown = page.text(child) + (f" ({date} UTC)" if date else "")
        elif isinstance(value, (int, float)):
            shown = page.num(child, (units or {}).get(key, unit_for(key)))
        elif isinstance(value, str):
            shown = _text_or_hash(page, child, value)
        elif isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
            # Sentences and hashes one per line: ", " between sentences reads as ".,".
            sep = "<br>" if any(isinstance(v, str) for v in value) else ", "
            shown = sep.join(_text_or_hash(page, f"{child}/{i}", v) for i, v in enumerate(value))
        else:
            continue
        rows.append({"field": _field_cell(key), "value": shown})
    return rows


# Words of a record's keys that readers write otherwise (gpu_layers -> GPU layers).
_WORDS = {
    "gpu": "GPU", "gpus": "GPUs", "cpu": "CPU", "cpus": "CPUs", "kv": "KV", "os": "OS", "id": "ID", "ids": "IDs",
    "uuid": "UUID", "url": "URL", "urls": "URLs", "sha256": "SHA-256", "ram": "RAM", "rss": "RSS", "numa": "NUMA",
    "cuda": "CUDA", "nvml": "NVML", "nvidia": "NVIDIA", "pid": "PID", "api": "API", "http": "HTTP", "eos": "EOS",
    "hz": "Hz", "mib": "MiB", "gib": "GiB", "gb": "GB", "mhz": "MHz", "utc": "UTC", "ai": "AI", "llm": "LLM",
    "vram": "VRAM", "mem": "memory", "ctx": "context", "ubatch": "micro-batch", "fp16": "FP16", "bf16": "BF16",
    "fp32": "FP32", "tf32": "TF32", "sdpa": "SDPA", "ttft": "TTFT", "gguf": "GGUF", "mmap": "mmap",
}
# Whole keys whose words alone would mislead: a record's own hash is on the page's audit block, so
# the hash of the upstream record it was made from must not read as that one.
_LABELS = {"record_sha256": "Upstream record SHA-256"}
# Key endings that only name the unit the value shows beside itself ("1.77 s").
_UNIT_WORDS = {"seconds", "s", "ms", "bytes", "mib", "gb", "percent", "watts", "mhz"}
_PLAIN_KEY = re.compile(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*")


def field_label(key: str) -> str:
    """A record's snake_case key as a reader reads it, in plain text: words split, acronyms
    capitalised, a closing unit word dropped where the value shows its unit
    (maximum_host_gap_seconds -> "Maximum host gap"); a word a record already capitalised stays
    as written (CPU_fallback -> "CPU fallback"). Any other key is returned as it is."""
    if key in _LABELS:
        return _LABELS[key]
    if not _PLAIN_KEY.fullmatch(key):
        return key
    words = key.split("_")
    if len(words) > 1 and words[-1] in _UNIT_WORDS and unit_for(key):
        words.pop()
    words = [_WORDS.get(w, w) for w in words]
    return words[0][:1].upper() + words[0][1:] + "".join(" " + w for w in words[1:])


def _field_cell(key: str) -> str:
    """The field column of a key/value table: the reader's label, the record's key on hover."""
    label = field_label(key)
    if label == key:
        return escape.html(key)
    return f'<span class="bl-field" title="{escape.shown_attr(key)}">{escape.html(label)}</span>'


_HEX_DIGEST = re.compile(r"[0-9a-f]{40,128}")
_IDENTIFIER = re.compile(r"(^|_)(seed|epoch|id)$")


def _text_or_hash(page: ArticleWriter, pointer: str, value: object) -> str:
    """A record string; a hex digest as code that may wrap anywhere, so that 64 hex digits do
    not widen the page on a phone."""
    if isinstance(value, str) and _HEX_DIGEST.fullmatch(value):
        return f'<code class="bl-hash">{page.text(pointer)}</code>'
    return page.text(pointer)


def withheld_everywhere(page: ArticleWriter, summaries: Sequence[str], name: str = "p95") -> bool:
    """Whether every summary at `summaries` has its percentile `name` withheld (too few samples):
    a table leaves out such a column of "withheld" and says why once, with `withheld_column_note`."""
    return bool(summaries) and all(withheld_percentile(page.view.limitations, s, name) is not None for s in summaries)


def withheld_column_note(page: ArticleWriter, name: str = "p95") -> None:
    """The sentence under a table that stands for its column of percentile `name`, withheld in
    every row; the notes that say why follow it."""
    page.html(f'<p class="bl-caption">No {name} here: every row withholds it, too few samples for a '
              f"{name[1:]}th percentile (the notes below say how many it takes).</p>")


def provenance(page: ArticleWriter, sections: Sequence[tuple[str, str]]) -> None:
    """The provenance section: one key/value table per (title, pointer); hashes are labelled as
    claimed by the record (this site does not have those upstream files)."""
    page.heading(2, "Provenance", "provenance")
    page.html(
        '<p class="bl-claimed">Hashes below are <strong>claimed by the record</strong>: they name '
        "upstream files (models, binaries, plans) that this site does not publish, so they cannot "
        "be checked here. The record itself is verified: see <a href=\"#audit-this-page\">Audit this page</a>.</p>"
    )
    for title, pointer in sections:
        rows = kv_rows(page, pointer)
        if rows:
            page.heading(3, title)
            page.table(rows, ["field", "value"])
            page.notes(at(pointer))


def audit_block(page: ArticleWriter) -> None:
    """'Audit this page': hash, ledger entry, download, sha256sum and the in-browser check."""
    view, site = page.view, page.site
    page.heading(2, "Audit this page", "audit-this-page")
    page.html(site.render("audit_block.html.j2", view=view, page_path=page.path))
