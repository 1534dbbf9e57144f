"""Articles for `torch-graph-replay/1` records: eager vs CUDA-graph scoring at several token
lengths, with bitwise checks, capture memory and the flags that limit adoption."""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchledger.records.display import utc_date
from benchledger.records.numbers import is_number
from benchledger.records.pointer import resolve
from site_gen.charts import Series, line_chart, log_y_drawable
from site_gen.pages.records.base import (
    ArticleWriter, RecordRenderer, Summary, SummaryNumbers, at, audit_block, provenance, under, withheld_column_note,
    withheld_everywhere,
)
from site_gen.quantity import Trace, counted, rescaled

if TYPE_CHECKING:
    from site_gen.context import RecordView

PATHS = ("eager", "graph")
# A saving under this share of an eager call is said to be one the means alone cannot show.
SLIGHT = 0.01


def _measurements(data: dict) -> list[tuple[int, dict]]:
    return sorted(enumerate(data.get("measurements", [])), key=lambda im: (im[1].get("tokens", 0), im[0]))


class GraphReplayRenderer(RecordRenderer):
    schema = "torch-graph-replay/1"

    def summary(self, view: "RecordView") -> Summary:
        data = view.data
        title = (f"CUDA-graph replay vs eager scoring ({data.get('profile', '?')}) on {data.get('device', '?')}, "
                 f"torch {data.get('torch_version', '?')}")
        ms = _measurements(data)
        headline = "No measurements in this record."
        if ms:
            (i0, m0), (i1, m1) = ms[0], ms[-1]

            num = SummaryNumbers(view)

            first = f"/measurements/{i0}"
            last = f"/measurements/{i1}"
            if (m0.get("timing") or {}).get("graph") is None:  # a CPU run: no graph was captured
                headline = (f"No CUDA graph was captured in this run; at {num(first + '/tokens', 'tokens')}, eager scoring "
                            f"takes {num(first + '/timing/eager/mean_ms', 'ms')}.")
            else:
                def gain(m: dict) -> bool:  # a ratio below 1 is a loss: never a "speedup"
                    return not is_number(m.get("mean_speedup")) or m["mean_speedup"] >= 1

                ratio0, ratio1 = num(first + "/mean_speedup", "×"), num(last + "/mean_speedup", "×")
                headline = (
                    f"At {num(first + '/tokens', 'tokens')}, graph replay takes {num(first + '/timing/graph/mean_ms', 'ms')} "
                    f"against {num(first + '/timing/eager/mean_ms', 'ms')} eager, "
                    + (f"a speedup of {ratio0}" if gain(m0) else f"so replay is slower: {ratio0}")
                    + f"; at {num(last + '/tokens', 'tokens')} "
                    + (f"the speedup is {ratio1}." if gain(m1) else f"replay is slower: {ratio1}.")
                )
        finished = data.get("finished_epoch")
        date = utc_date(finished)
        reps = sorted({m.get("timing", {}).get("eager", {}).get("repetitions") for m in data.get("measurements", [])} - {None})
        measured = (
            f"Scoring time, eager vs CUDA-graph replay, with torch {data.get('torch_version', '?')} "
            f"on {data.get('device', '?')}: {counted(len(ms), 'token length')}, {'/'.join(map(str, reps)) or '?'} repetitions each; "
            f"timing scope: {data.get('timing_scope', '?')}."
        )
        return Summary(title, date, str(data.get("device", "?")), headline, measured)

    def case_anchor(self, case_pointer: str) -> str | None:
        return "per-token-length"  # the record is one case; its table per token length

    def body(self, page: ArticleWriter) -> None:
        data = page.view.data
        page.notes(at(""), "Limitations of the whole record")
        self._charts(page)
        self._table(page)
        self._checks(page)
        self._overlimit(page)
        provenance(page, [("Run", "")] + [("Original artifact hashes", "/original_artifact_hashes")])
        sources = data.get("sources") or []
        if sources:
            page.heading(3, "Sources named by the record")
            items = "".join(f"<li><code>{page.text(f'/sources/{i}')}</code></li>" for i in range(len(sources)))
            page.html(f'<ul class="bl-sources">{items}</ul>')
        audit_block(page)
        page.notes(lambda lim: True, "Other limitations")

    def _charts(self, page: ArticleWriter) -> None:
        data = page.view.data
        ms = _measurements(data)
        if not ms:
            return
        page.heading(2, "Results", "results")
        sha = page.view.sha256

        def at(i: int, pointer: str, unit: str = "") -> Trace:
            """Measurement i's value at `pointer`, charted at its token length."""
            return Trace(sha, f"/measurements/{i}/{pointer}", unit=unit, x_pointer=f"/measurements/{i}/tokens")

        timing = [
            Series(path, [(m["tokens"], m["timing"][path]["mean_ms"], at(i, f"timing/{path}/mean_ms"))
                          for i, m in ms if is_number((m.get("timing", {}).get(path) or {}).get("mean_ms"))])
            for path in PATHS
        ]
        speed = [Series("eager / graph", [(m["tokens"], m["mean_speedup"], at(i, "mean_speedup"))
                                          for i, m in ms if is_number(m.get("mean_speedup"))])]
        memory = [
            Series(kind, [(m["tokens"], rescaled(m[f"capture_{kind}_increase_bytes"], "B", "MiB"),
                           at(i, f"capture_{kind}_increase_bytes", "MiB"))
                          for i, m in ms if is_number(m.get(f"capture_{kind}_increase_bytes"))])
            for kind in ("allocated", "reserved")
        ]

        log_time = log_y_drawable(timing)  # a mean of 0 ms has no place on a log axis
        axes = "log axes" if log_time else "a log tokens axis"
        page.chart(line_chart("timing", f"Mean scoring time, eager vs graph ({axes.removeprefix('a ')})", timing,
                              x_title="tokens", y_title="mean time (ms)", series_title="path", log_x=True, log_y=log_time,
                              alt_text=f"Mean milliseconds against tokens on {axes}.", unit="ms"))
        page.chart(line_chart("speedup", "Speedup of graph replay (eager mean / graph mean)", speed,
                              x_title="tokens", y_title="speedup (×)", series_title="ratio", log_x=True,
                              reference=(1.0, "1× (no speedup)"),
                              alt_text="Speedup against tokens.", unit="×"))
        if any(s.points for s in memory):
            page.chart(line_chart("capture-memory", "Memory added by graph capture", memory,
                                  x_title="tokens", y_title="increase (MiB)", series_title="CUDA memory", log_x=True,
                                  alt_text="Capture memory increase against tokens.", unit="MiB"))

    def _table(self, page: ArticleWriter) -> None:
        page.heading(2, "Per token length", "per-token-length")
        rows, slight = [], []
        for i, m in _measurements(page.view.data):
            mp = f"/measurements/{i}"
            row = {"kind": page.text(f"{mp}/kind"), "tokens": page.num(f"{mp}/tokens", "")}
            for path in PATHS:
                tp = f"{mp}/timing/{path}"
                row[f"{path} mean"] = page.num(f"{tp}/mean_ms", "ms")
                row[f"{path} median"] = page.num(f"{tp}/median_ms", "ms")
                row[f"{path} p95"] = page.percentile(tp, "p95", "p95_ms", "ms")
                row[f"{path} runs"] = page.num(f"{tp}/repetitions")
            row["speedup"] = page.num(f"{mp}/mean_speedup", "×")
            eager = resolve(page.view.data, f"{mp}/timing/eager/mean_ms", default=None)
            graph = resolve(page.view.data, f"{mp}/timing/graph/mean_ms", default=None)
            means = {"eager.mean_ms": f"{mp}/timing/eager/mean_ms", "graph.mean_ms": f"{mp}/timing/graph/mean_ms"}
            if is_number(eager) and is_number(graph) and graph:
                row["saved per call"] = page.derived(eager - graph, "ms", "eager.mean_ms - graph.mean_ms", means)
            row["capture"] = page.num(f"{mp}/capture_seconds", "s")
            capture = m.get("capture_seconds")
            if is_number(eager) and is_number(graph) and 0 < eager - graph < SLIGHT * eager:
                slight.append(page.num(f"{mp}/tokens", ""))
            if is_number(eager) and is_number(graph) and is_number(capture) and eager > graph:
                # the one-off capture against what each replay saves: calls before replay is ahead
                row["capture repaid after"] = page.derived(
                    capture * 1000 / (eager - graph), "calls", "capture_seconds * 1000 / (eager.mean_ms - graph.mean_ms)",
                    {"capture_seconds": f"{mp}/capture_seconds", **means})
            elif is_number(eager) and is_number(graph) and eager <= graph:
                row["capture repaid after"] = "never: replay is not faster"
            row["capture memory (reserved)"] = page.num(f"{mp}/capture_reserved_increase_bytes", "B")
            rows.append(row)
        # the comparison first (both means, their ratio and difference), where a laptop shows it
        # without scrolling; then the spread and the run counts, path beside path
        columns = ["kind", "tokens"] + [f"{p} mean" for p in PATHS] + ["speedup", "saved per call"]
        # two columns of "withheld" in every row say nothing a sentence cannot
        withheld = withheld_everywhere(page, [f"/measurements/{i}/timing/{p}" for i, _ in _measurements(page.view.data) for p in PATHS])
        spread = ("median", "runs") if withheld else ("median", "p95", "runs")
        columns += [f"{p} {s}" for s in spread for p in PATHS] + ["capture", "capture repaid after", "capture memory (reserved)"]
        page.html('<div class="bl-scroll">')
        page.table(rows, columns)
        page.html("</div>")
        if withheld:
            withheld_column_note(page)
        if slight:
            # 0.9 ms of 241 ms over 5 runs, with no spread to weigh it by: "84 calls" read as exact
            at = ", ".join(slight[:-1]) + " and " + slight[-1] if len(slight) > 1 else slight[0]
            page.html(f'<p class="bl-caption">At {at} tokens replay saves under {SLIGHT:.0%} of a call, and the record '
                      "gives no spread of its runs: whether that saving is real, and so when the capture is repaid, "
                      "cannot be told from these numbers.</p>")
        page.notes(lambda lim: lim.scope.startswith("/measurements/"), "Limitations of these numbers")

    def _checks(self, page: ArticleWriter) -> None:
        page.heading(2, "Correctness checks", "correctness-checks")
        rows = []
        for i, m in _measurements(page.view.data):
            mp = f"/measurements/{i}"
            checks = m.get("expanded_path_checks") or []
            identical = sum(1 for c in checks if c.get("identical"))
            rows.append({
                "tokens": page.num(f"{mp}/tokens"),
                "comparisons": page.num(f"{mp}/comparisons"),
                "decision mismatches": page.num(f"{mp}/decision_mismatches"),
                "bitwise mismatches": page.num(f"{mp}/bitwise_mismatches"),
                "max abs error": page.num(f"{mp}/max_absolute_error"),
                "expanded path checks identical": f"{identical} of {len(checks)}" if checks else "none",
            })
        page.table(rows, ["tokens", "comparisons", "decision mismatches", "bitwise mismatches", "max abs error",
                          "expanded path checks identical"])

    def _overlimit(self, page: ArticleWriter) -> None:
        probes = page.view.data.get("overlimit") or []
        if not probes:
            return
        page.heading(3, "Over-limit probes")
        rows = [{
            "tokens": page.num(f"/overlimit/{i}/tokens"),
            "model forwards": page.num(f"/overlimit/{i}/model_forwards"),
            "graph replays": page.num(f"/overlimit/{i}/graph_replays"),
            "prediction": page.text(f"/overlimit/{i}/prediction"),
        } for i in range(len(probes))]
        page.table(rows, ["tokens", "model forwards", "graph replays", "prediction"])
        page.html('<p class="bl-lede">An input over the length limit was refused before any model forward.</p>')
        page.notes(under("/overlimit"))
