"""`verify --site --redraw-charts`: every chart's static SVG drawn again from the spec the audit
checked, and compared byte for byte with the SVG the site serves.

Without it the audit checks an image by its name only: the site names each SVG by the hash of
the spec it is drawn from (`charts._chart_image`), so an image of other data is named
otherwise, but an SVG edited in place, with SHA256SUMS listed again, passes. Drawing it again
catches that. vl-convert draws the same bytes of the same spec in every process and on every
machine with one build of it (its workers load no system font: site_gen/chart_workers.py), and
the site serves that build's own Vega bundle (`javascript_bundle()`), so the bundle says whether
the vl-convert here is the one the site was drawn with: when it is not, nothing is drawn and that
is the one finding (a bundle edited by hand, which the live charts run, is found the same way).
A chart costs 20-30 ms of CPU to draw, about a minute for the 2,000 of a 1,000-article site,
spread over one worker process per CPU."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchledger.errors import Problem


@dataclass(frozen=True)
class ShownChart:
    """A chart whose data the audit checked: the spec its SVG is drawn from, and the first place
    that shows it, as problems name it."""

    static_spec: dict
    page: str  # the page, as the audit names files
    where: str  # the chart on it ("script spec-0")


def redraw_problems(site: Path, charts: dict[str, ShownChart]) -> list[Problem]:
    """Every SVG of `charts` (its site path -> the chart it shows) that is not what this
    vl-convert draws of its spec; or the one problem that this vl-convert did not draw the site."""
    import vl_convert

    from site_gen.chart_workers import ChartWorkers
    from site_gen.static_chart import VEGA_BUNDLE_PATH

    version = vl_convert.__version__
    workers = ChartWorkers()
    try:
        bundle = site / VEGA_BUNDLE_PATH
        served = bundle.read_bytes() if bundle.is_file() else None
        if served != workers.vega_bundle().encode("utf-8"):
            state = "missing" if served is None else f"not the Vega bundle of the vl-convert-python here ({version})"
            return [Problem(bundle.as_posix(), "", f"{state}: the charts cannot be drawn again to the byte; audit with "
                                                    "the vl-convert-python the site was built with, or without --redraw-charts")]
        drawn = {rel: workers.submit(chart.static_spec) for rel, chart in sorted(charts.items())}
        problems = []
        for rel, future in drawn.items():
            chart, svg = charts[rel], site / rel
            try:
                again = future.result().encode("utf-8")
            except ValueError as err:  # vl-convert's own message
                problems.append(Problem(svg.as_posix(), "", f"cannot be drawn again from the spec of {chart.page} {chart.where}: {err}"))
                continue
            if svg.read_bytes() != again:
                problems.append(Problem(svg.as_posix(), "", f"is not what vl-convert-python {version} draws of the chart "
                                                            f"{chart.page} {chart.where} shows, whose data the audit checked: "
                                                            "the image was edited"))
        return problems
    finally:
        workers.close()
