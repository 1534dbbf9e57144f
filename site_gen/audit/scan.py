"""One parse of a page for every step that reads its elements (`scan_page`): what it loads, its
traced numbers and record text, and its charts' specs, images and data tables; and what a page
loads and links (`external_loads`, `local_references`), which the hand-written pages' checks
read too."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from site_gen import urls
from site_gen.quantity import Formatted

_SPEC_URL = re.compile(r'"url"\s*:\s*"((?:[^"\\]|\\.)*)"')
_CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""")
# Elements whose URL attribute the browser fetches on load (a plain <a href> only navigates).
_LOAD_ATTRS = {"script": "src", "img": "src", "iframe": "src", "frame": "src", "embed": "src", "source": "src",
               "audio": "src", "video": "src", "track": "src", "object": "data", "input": "src"}
_LINK_LOADS = {"stylesheet", "preload", "prefetch", "icon", "modulepreload", "manifest", "apple-touch-icon"}
# SVG presentation attributes whose url() Chromium fetches from another host too (fill, stroke,
# mask, clip-path, markers and cursor did, in a test of an SVG opened as a page)
_PRESENTATION_URLS = ("fill", "stroke", "filter", "mask", "clip-path", "marker", "marker-start", "marker-mid",
                      "marker-end", "cursor")


def is_external(url: str) -> bool:
    """Whether a browser would fetch `url` from another host (site_gen/urls.py: as it reads it)."""
    return urls.as_read(url).startswith(("http:", "https:", "//", "ftp:", "ws:", "wss:"))


def css_urls(css: str) -> list[str]:
    """The URLs a style sheet or style attribute loads, its CSS escapes (\\68 for h) decoded."""
    if "(" not in css and "@" not in css:  # no url( and no @import, however escaped: most values
        return []
    decoded = re.sub(r"\\([0-9a-fA-F]{1,6})\s?", lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) <= 0x10FFFF else "", css)
    return _CSS_URL.findall(decoded)


class Loads(HTMLParser):
    """What a page loads from another host: (tag, URL) in `external`. A <base> that names
    another host, inline <style> and srcdoc documents are looked at too; any attribute that
    holds a URL the browser fetches without a click counts, whatever the element."""

    def __init__(self, keep_local: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.external: list[tuple[str, str]] = []
        # with keep_local, every other URL it loads or links too (`local_references`)
        self.local: list[str] | None = [] if keep_local else None
        self._in_style = self._in_spec = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        urls = []
        if tag in _LOAD_ATTRS:
            urls.append(values.get(_LOAD_ATTRS[tag], ""))
        if tag in ("link", "base") and (tag == "base" or set(values.get("rel", "").lower().split()) & _LINK_LOADS):
            urls.append(values.get("href", ""))  # a <base> on another host makes every relative load go there
        if tag in ("image", "use", "feimage"):  # HTML's <image> is <img>; SVG's load their href
            urls += [values.get("src", ""), values.get("href", ""), values.get("xlink:href", "")]
        urls += [values.get(name, "") for name in ("poster", "background", "data")]
        if tag in ("img", "source"):
            urls += [part.split()[0] for part in values.get("srcset", "").split(",") if part.strip()]
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            urls.append(values.get("content", "").partition("=")[2].strip("'\" "))
        if values.get("srcdoc"):  # a document of its own, loaded with the page
            self.external += [(tag, u) for _, u in external_loads(values["srcdoc"])]
        urls += css_urls(values.get("style", ""))
        urls += [u for name in _PRESENTATION_URLS if name in values for u in css_urls(values[name])]
        self.external += [(tag, u) for u in urls if u and is_external(u)]
        if self.local is not None:
            links = [values.get("href", "")] if tag in ("a", "area") else []
            self.local += [u for u in urls + links if u and not is_external(u)]
        self._in_style = tag == "style"
        # a chart's spec: Vega fetches a "url" it names (data from another host, drawn as the record's)
        self._in_spec = tag == "script" and values.get("type", "").lower() == "application/json"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = self._in_spec = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.external += [("style", u) for u in css_urls(data) if is_external(u)]
        elif self._in_spec:
            self.external += [("script", u) for u in _SPEC_URL.findall(data) if is_external(u.replace("\\/", "/"))]


def external_loads(html: str) -> list[tuple[str, str]]:
    """(tag, URL) of everything `html` would load from another host."""
    parser = Loads()
    parser.feed(html)
    parser.close()
    return parser.external


def local_references(html: str) -> list[str]:
    """Every URL `html` loads or links that is not on another host, as written (relative paths,
    site paths, fragments, mailto: and the like), in document order."""
    parser = Loads(keep_local=True)
    parser.feed(html)
    parser.close()
    return parser.local


@dataclass(frozen=True)
class _Shown:
    sha256: str
    pointer: str
    text: str
    title: str = ""  # its hover, as the browser reads it


@dataclass(frozen=True)
class _Derived:
    """A derived number as its page states it: record, formula, inputs ("name = pointer; ..."),
    the inputs' records where they are not `sha256`'s ("name = sha256; ..."), and its text."""

    sha256: str
    formula: str
    inputs: str
    input_sha256: str
    text: str
    title: str = ""


class _Numbers(HTMLParser):
    """The traced numbers of a page: `<span class="bl-num" data-sha256 data-pointer>TEXT` in
    `found`, and those derived by a formula (`data-formula`, `data-inputs`) in `derived`; and
    its record text, `<span class="bl-text" data-sha256 data-pointer>TEXT`, in `texts`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[_Shown] = []
        self.derived: list[_Derived] = []
        self.texts: list[_Shown] = []  # record text: <span class="bl-text" data-sha256 data-pointer>
        self._open: dict[str, str] | None = None  # the open span's attributes
        self._kind = ""  # and what it shows: "number", "derived" or "text"
        self._text: list[str] = []
        self._depth = 0  # spans opened inside the traced one: its text is all of theirs too

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._open is not None:
            self._depth += tag == "span"
            return
        if tag != "span":  # most of a page's millions of tags: looked at no further
            return
        values = {k: v or "" for k, v in attrs}
        classes = values.get("class", "").split()
        if "bl-text" in classes and "data-sha256" in values:  # record text shown with its origin
            self._kind = "text"
        elif "bl-num" in classes:
            self._kind = "derived" if "bl-derived" in classes or "data-formula" in values else "number"
        else:
            return
        # a traced number that names no record or pointer is shown as "" for "": it fails the check
        self._open, self._text = values, []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._open is not None:
            if self._depth:
                self._depth -= 1
                return
            # a range's first end shows its number only, its unit written once after the range
            text, attr = "".join(self._text), self._open.get
            if self._kind == "text":
                self.texts.append(_Shown(attr("data-sha256", ""), attr("data-pointer", ""), text, attr("title", "")))
            elif self._kind == "derived":
                self.derived.append(_Derived(attr("data-sha256", ""), attr("data-formula", ""), attr("data-inputs", ""),
                                             attr("data-input-sha256", ""), text, attr("title", "")))
            else:
                unit = attr("data-unit", "")
                self.found.append(_Shown(attr("data-sha256", ""), attr("data-pointer", ""), str(Formatted(text, unit)) if unit else text,
                                         attr("title", "")))
            self._open = None


class _Charts(HTMLParser):
    """A page's chart data as the browser gets it: the text of every JSON script but MkDocs'
    own configuration (`specs`: (id, text), each a chart spec benchledger.js may draw), the
    cells of every table behind a chart (`tables`, in page order: rows of cell text), and the
    static image each chart view shows until its spec is drawn (`images`: (spec id, src, alt))."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.specs: list[tuple[str, str]] = []
        self.tables: list[list[list[str]]] = []
        self.images: list[tuple[str, str, str]] = []
        self._view: str | None = None  # the data-spec of the chart view just opened, until its <img>
        self._script: tuple[str, list[str]] | None = None
        self._details = 0  # depth inside <details class="bl-chart-data">
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            values = {k: v or "" for k, v in attrs}
            if values.get("type", "").strip().lower() == "application/json" and values.get("id") != "__config":
                self._script = (values.get("id", ""), [])
        elif tag == "div" and "bl-chart-view" in ({k: v or "" for k, v in attrs}.get("class") or "").split():
            self._view = {k: v or "" for k, v in attrs}.get("data-spec", "")
        elif tag == "img" and self._view is not None:
            values = {k: v or "" for k, v in attrs}
            self.images.append((self._view, values.get("src", ""), values.get("alt", "")))
            self._view = None
        elif tag == "details":
            if self._details or "bl-chart-data" in ({k: v or "" for k, v in attrs}.get("class") or "").split():
                self._details += 1
                if self._details == 1:
                    self.tables.append([])
        elif self._details and tag == "tr":
            self.tables[-1].append([])
        elif self._details and tag == "td" and self.tables[-1]:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.specs.append((self._script[0], "".join(self._script[1])))
            self._script = None
        elif tag == "div":
            self._view = None
        elif tag == "details" and self._details:
            self._details -= 1
        elif tag == "td" and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script[1].append(data)
        elif self._cell is not None:
            self._cell.append(data)


class _PageScan(HTMLParser):
    """One pass over a page for every step that reads its elements: what it loads and links
    (`loads`, a `Loads`), its traced numbers (`numbers`, a `_Numbers`) and its charts' data
    (`charts`, a `_Charts`). At 1,000 articles the pages and
    chart SVGs are tens of megabytes, and parsing them was most of `verify --site`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loads, self.numbers, self.charts = Loads(keep_local=True), _Numbers(), _Charts()

    def updatepos(self, i: int, j: int) -> int:
        """Where the parser is, without the line and column it would count: no finding names a
        line, and counting the newlines before every tag was a tenth of a page's scan."""
        return j

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.loads.handle_starttag(tag, attrs)
        self.numbers.handle_starttag(tag, attrs)
        self.charts.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.loads.handle_endtag(tag)
        self.numbers.handle_endtag(tag)
        self.charts.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        self.loads.handle_data(data)
        self.numbers.handle_data(data)
        self.charts.handle_data(data)


@dataclass(frozen=True)
class Scanned:
    """What one page loads from another host, (tag, URL) each, every other URL it loads or links
    (`links`, as written), its traced numbers, plain and derived, its record text, and its
    charts' specs and data tables (`_Charts`)."""

    loads: tuple[tuple[str, str], ...]
    links: tuple[str, ...]
    numbers: tuple["_Shown", ...]
    derived: tuple["_Derived", ...]
    texts: tuple["_Shown", ...]
    specs: tuple[tuple[str, str], ...]
    tables: tuple[tuple[tuple[str, ...], ...], ...]
    images: tuple[tuple[str, str, str], ...]


def scan_page(html: str) -> Scanned:
    """`html` parsed once, for what it loads and the traced numbers it shows (plain data, which
    a pool worker sends back)."""
    parser = _PageScan()
    parser.feed(html)
    parser.close()
    return Scanned(tuple(parser.loads.external), tuple(parser.loads.local or ()), tuple(parser.numbers.found),
                   tuple(parser.numbers.derived),
                   tuple(parser.numbers.texts), tuple(parser.charts.specs),
                   tuple(tuple(tuple(row) for row in table if row) for table in parser.charts.tables),  # not the header's
                   tuple(parser.charts.images))


def scan_file(path: Path) -> Scanned:
    """A pool worker's part: one page file read (as `SiteAudit.pages` reads it) and parsed."""
    return scan_page(path.read_text(encoding="utf-8", errors="replace"))
