"""Shared by the site tests: a temp copy of the shipped store, a built site, and a static HTTP
server on 127.0.0.1 serving it (the real build, the real MkDocs, a real server)."""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from site_gen.build import BuildResult, build_site
from site_gen.context import BuildOptions
from tests.store_copies import shipped_copy

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
OFFLOAD_PAGE = "articles/llm-cpu-offload/2026-09-27.html"
GRAPH_PAGE = "articles/torch-graph-replay/2026-10-28.html"


def build(tmp: Path, records: Path | None = None, name: str = "site") -> BuildResult:
    """Build the site from `records` (default: a copy of the shipped store) into tmp/name, with
    this project's articles, as `make site` does."""
    records = records or shipped_copy(tmp)
    return build_site(records, tmp / name, cache_dir=tmp / "cache", options=BuildOptions(articles_dir=ROOT / "docs" / "articles"))


def audited_after_edit(source: Path, tmp_path: Path, rel: str, edit: Callable[[str], str]) -> list[str]:
    """`verify_site`'s findings, the site folder written SITE, on a copy of the built site
    `source` whose file `rel` `edit` rewrote (it must change it) and whose SHA256SUMS is listed
    again: a host that edits its pages and covers its tracks."""
    import shutil

    from site_gen.audit import verify_site
    from site_gen.checksums import site_sums

    site = tmp_path / "site"
    shutil.copytree(source, site)
    path = site / rel
    text = path.read_text(encoding="utf-8")
    edited = edit(text)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    return [str(p).replace(str(site), "SITE") for p in verify_site(site)]


def chart_table_cell_edited(html: str, old: str, new: str) -> str:
    """`html` with the first cell reading `old` in the first table behind a chart made `new`
    (a chart tampered with where its table agrees)."""
    start = html.index('<details class="bl-chart-data">')
    end = html.index("</details>", start)
    assert f"<td>{old}</td>" in html[start:end]
    return html[:start] + html[start:end].replace(f"<td>{old}</td>", f"<td>{new}</td>", 1) + html[end:]


def chart_edited(site: Path, page: Path, old: str, new: str, cell: tuple[str, str] | None) -> None:
    """`page` of the built `site` with its first `old` made `new` (and, given `cell`, the table
    behind its first chart agreeing), and SHA256SUMS listed again: a tamperer covering tracks."""
    from site_gen.checksums import site_sums

    html = page.read_text(encoding="utf-8")
    assert old in html
    html = html.replace(old, new, 1)
    if cell is not None:
        html = chart_table_cell_edited(html, *cell)
    page.write_text(html, encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))


def chart_redrawn(site: Path, page: Path, view: str, edit: Callable[[dict], None]) -> None:
    """`page` of the built `site` with the spec of its chart `view` ("spec-timing") changed by
    `edit`, that chart's SVG drawn again from the edited spec by vl-convert and shown under the
    name the site gives it, and SHA256SUMS listed again: a tamperer with the build's own tools."""
    from site_gen.chart_workers import ChartWorkers
    from site_gen.charts import _script_json
    from site_gen.checksums import site_sums
    from site_gen.static_chart import static_sha256, static_spec, svg_path

    html = page.read_text(encoding="utf-8")
    # record pages and write-ups give the two attributes in different orders
    found = re.search(f'<script (?:type="application/json" id="{view}"|id="{view}" type="application/json")>(.*?)</script>', html)
    spec = json.loads(found.group(1))
    old_svg = svg_path(static_sha256(static_spec(spec)))
    edit(spec)
    drawn = static_spec(spec)
    workers = ChartWorkers()
    try:
        svg = workers.submit(drawn).result()
    finally:
        workers.close()
    (site / svg_path(static_sha256(drawn))).write_text(svg, encoding="utf-8")
    html = html[:found.start(1)] + _script_json(spec) + html[found.end(1):]
    assert html.count(f"/{old_svg}") == 1
    page.write_text(html.replace(f"/{old_svg}", f"/{svg_path(static_sha256(drawn))}"), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))


def axis_retitled(site: Path, page: Path, view: str, old: str, new: str) -> None:
    """`page` of the built `site` with every title `old` of its chart `view` (the y axis, the
    tooltip, the header of the table behind the chart) made `new`, the SVG drawn again from the
    edited spec and named as the site names it: a tamperer with the build's own tools."""
    from site_gen.checksums import site_sums

    def retitled(value):
        if isinstance(value, dict):
            return {k: retitled(v) for k, v in value.items()}
        if isinstance(value, list):
            return [retitled(v) for v in value]
        return new if value == old else value

    def edit(spec: dict) -> None:
        spec["layer"] = retitled(spec["layer"])

    chart_redrawn(site, page, view, edit)
    html = page.read_text(encoding="utf-8")
    header = f'<th scope="col">{old}</th>'
    assert header in html
    page.write_text(html.replace(header, f'<th scope="col">{new}</th>'), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))


def chart_labels_swapped(site: Path, page: Path, a: str, b: str) -> None:
    """`page` of the built `site` with the points labelled `a` and `b` in its first chart
    trading labels, the table behind the chart agreeing, and SHA256SUMS listed again: two
    records moved along a series chart by a tamperer covering tracks."""
    from site_gen.charts import _script_json  # a label as the spec writes it: "<" as \u003c
    from site_gen.checksums import site_sums
    from site_gen.tables import cell_text, data_cell  # a label as the table behind the chart writes it

    html = page.read_text(encoding="utf-8")
    spec = html.index('<script type="application/json" id="spec-')
    table = html.index('<details class="bl-chart-data">', spec)
    end = html.index("</details>", table)

    def swapped(text: str, form: Callable[[str], str]) -> str:
        assert form(a) in text and form(b) in text
        return text.replace(form(a), "\0", 1).replace(form(b), form(a), 1).replace("\0", form(b), 1)

    html = (html[:spec] + swapped(html[spec:table], lambda label: _script_json({"label": label})[1:-1])
            + swapped(html[table:end], lambda label: f"<td>{cell_text(data_cell(label))}</td>") + html[end:])
    page.write_text(html, encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve `directory` on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
