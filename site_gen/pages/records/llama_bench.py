"""Articles for `llama-bench/1` records: llama.cpp's llama-bench results, imported from its JSON
output. Prompt-processing and generation speed per configuration, charts along whatever varies
inside the record, every repetition's sample, and where the file came from.

Every number is the record's (avg_ts, stddev_ts, samples_ts, ...), traced to its pointer; the
configuration fields that differ between rows are found from the data, never assumed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchledger.records.numbers import is_number
from site_gen import escape
from site_gen.chart_labels import LOG_SCALE
from site_gen.charts import Series, line_chart, log_y_drawable
from site_gen.pages.records.base import (
    ArticleWriter, RecordRenderer, Summary, SummaryNumbers, at, audit_block, kv_rows, under,
)
from site_gen.quantity import Trace, counted

if TYPE_CHECKING:
    from site_gen.context import RecordView

# Configuration fields of a row, in the order a reader scans them: (field, label, unit).
CONFIG = (
    ("model_type", "model", ""), ("model_size", "model size", "B"), ("model_n_params", "parameters", ""),
    ("model_filename", "model file", ""), ("backends", "backends", ""), ("gpu_info", "GPU", ""), ("cpu_info", "CPU", ""),
    ("build_number", "build", ""), ("build_commit", "commit", ""),
    ("n_threads", "threads", ""), ("n_gpu_layers", "GPU layers", ""), ("n_cpu_moe", "CPU MoE layers", ""),
    ("n_batch", "batch", "tokens"), ("n_ubatch", "ubatch", "tokens"), ("type_k", "K cache", ""), ("type_v", "V cache", ""),
    ("flash_attn", "flash attention", ""), ("split_mode", "split mode", ""), ("main_gpu", "main GPU", ""),
    ("tensor_split", "tensor split", ""), ("tensor_buft_overrides", "tensor overrides", ""), ("devices", "devices", ""),
    ("no_kv_offload", "KV off GPU", ""), ("load_mode", "load mode", ""), ("use_mmap", "mmap", ""),
    ("lazy_mode", "lazy mode", ""), ("repack", "repack", ""), ("embeddings", "embeddings", ""),
    ("no_op_offload", "no op offload", ""), ("no_host", "no host buffers", ""), ("cpu_mask", "CPU mask", ""),
    ("cpu_strict", "strict CPU", ""), ("poll", "poll", ""), ("fit_target", "fit target", "MiB"),
    ("fit_min_ctx", "fit min context", "tokens"), ("n_depth", "depth", "tokens"),
)
_LABEL = {name: label for name, label, _ in CONFIG}
_UNIT = {name: unit for name, _, unit in CONFIG}


def test_name(row: dict[str, Any]) -> str:
    """llama-bench's own test name: pp512, tg128, pp512+tg128, with ' @ d4096' at a depth."""
    p, g, d = row.get("n_prompt", 0), row.get("n_gen", 0), row.get("n_depth", 0)
    name = f"pp{p}+tg{g}" if p and g else f"pp{p}" if p else f"tg{g}"
    return name + (f" @ d{d}" if d else "")


def _kind(row: dict[str, Any]) -> str:
    p, g = row.get("n_prompt", 0), row.get("n_gen", 0)
    return "prompt processing" if p and not g else "generation" if g and not p else "prompt + generation"


def varying(rows: list[dict[str, Any]]) -> list[str]:
    """The configuration fields whose value differs between rows, in CONFIG order."""
    return [name for name, _, _ in CONFIG if len({repr(r.get(name)) for r in rows}) > 1]


def _show(value: Any) -> str:
    return "n/a" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


class LlamaBenchRenderer(RecordRenderer):
    schema = "llama-bench/1"

    def summary(self, view: "RecordView") -> Summary:
        data = view.data
        rows = data.get("tests", [])
        first = rows[0] if rows else {}
        block = data.get("import", {})
        moving = varying(rows)
        along = f" across {', '.join(_LABEL[f] for f in moving[:2])}" if moving else ""
        where = first.get("gpu_info") or first.get("cpu_info") or "?"
        title = f"llama-bench: {first.get('model_type', '?')} on {where}{along}"

        traced_number = SummaryNumbers(view)

        def num(i: int) -> str:
            return traced_number(f"/tests/{i}/avg_ts", "tokens/s")

        picks = []
        for kind in ("prompt processing", "generation", "prompt + generation"):
            i = next((i for i, r in enumerate(rows) if _kind(r) == kind), None)
            if i is not None:
                picks.append((kind, i))
        parts = [f"{kind} {escape.html(test_name(rows[i]))} at {num(i)}" for kind, i in picks]
        config = ", ".join(f"{_LABEL[f]} {escape.html(_show(first.get(f)))}" for f in ("n_threads", "n_gpu_layers") if f in first)
        headline = (f"llama-bench measured {'; '.join(parts)} (mean of the repetitions; {config})."
                    if parts else "No tests in this record.")
        reps = sorted({len(r.get("samples_ns", [])) for r in rows})
        measured = (f"llama.cpp's llama-bench ({block.get('tool_version', '?')}), imported from "
                    f"{block.get('source_file_name', '?')} ({block.get('output_format', '?')}): {counted(len(rows), 'test')}, "
                    f"{'/'.join(map(str, reps)) or '?'} {'repetition' if reps == [1] else 'repetitions'} each. Measured by llama-bench, not by benchledger's collector.")
        hardware = " · ".join(x for x in (first.get("gpu_info") or "no GPU", first.get("cpu_info"), first.get("backends")) if x)
        return Summary(title, str(first.get("test_time", ""))[:10], hardware, headline, measured)

    def case_anchor(self, case_pointer: str) -> str | None:
        # a case of llama-bench/1 is a test row; its row in the results table has id="test-<index>"
        tail = case_pointer.rsplit("/", 1)[-1]
        return f"test-{tail}" if case_pointer.startswith("/tests/") and tail.isdigit() else None

    def body(self, page: ArticleWriter) -> None:
        rows = page.view.data.get("tests", [])
        page.notes(at(""), "Limitations of the whole record")
        self._results(page, rows)
        self._charts(page, rows)
        self._samples(page, rows)
        self._configuration(page, rows)
        page.heading(2, "Provenance", "provenance")
        page.html('<p class="bl-claimed">The imported file is identified by its SHA-256 below; the model file and '
                 "the machine are as llama-bench named them (the model is not hashed). The record itself is verified: "
                 'see <a href="#audit-this-page">Audit this page</a>.</p>')
        page.heading(3, "Import")
        page.table(kv_rows(page, "/import"), ["field", "value"])
        page.notes(under("/import"))
        audit_block(page)
        page.notes(lambda lim: True, "Other limitations")

    # -- sections -------------------------------------------------------------------------
    def _results(self, page: ArticleWriter, rows: list[dict[str, Any]]) -> None:
        page.heading(2, "Results", "results")
        moving = varying(rows)
        page.html('<p class="bl-lede">One row per llama-bench test: the mean speed over the repetitions '
                 "(avg_ts) and its sample standard deviation, as llama-bench computed them."
                 + (f" Fields that differ between rows: {escape.html(', '.join(_LABEL[f] for f in moving))}." if moving else "")
                 + "</p>")
        table = []
        for i, row in enumerate(rows):
            base = f"/tests/{i}"
            # the row's id is where comparison pages link this test (case_anchor)
            line = {"test": f'<span id="test-{i}"></span>{escape.html(test_name(row))}', "kind": escape.html(_kind(row))}
            for name in moving:
                line[_LABEL[name]] = self._field(page, f"{base}/{name}", row.get(name))
            line["speed (mean)"] = page.num(f"{base}/avg_ts", "tokens/s")
            line["± std. dev."] = page.num(f"{base}/stddev_ts", "tokens/s")
            line["repetitions"] = page.derived(len(row.get("samples_ns", [])), "", "count of samples_ns",
                                               {"samples_ns": f"{base}/samples_ns"})
            line["time per repetition (mean)"] = page.num(f"{base}/avg_ns", "ns")
            table.append(line)
        columns = ["test", "kind"] + [_LABEL[f] for f in moving] + ["speed (mean)", "± std. dev.", "repetitions",
                                                                      "time per repetition (mean)"]
        page.html('<div class="bl-scroll">')
        page.table(table, columns)
        page.html("</div>")
        page.notes(under("/tests"), "Limitations of these numbers")

    @staticmethod
    def _field(page: ArticleWriter, pointer: str, value: Any) -> str:
        return page.num(pointer, _UNIT.get(pointer.rsplit("/", 1)[1], "")) if is_number(value) else page.text(pointer)

    def _charts(self, page: ArticleWriter, rows: list[dict[str, Any]]) -> None:
        """Speed along each numeric field that varies (one line per test and the other fields' values),
        and every repetition's speed in order (warm-up effects and drift show there)."""
        moving = varying(rows)
        for axis in [f for f in moving if all(is_number(r.get(f)) for r in rows)]:
            others = [f for f in moving if f != axis]
            lines: dict[str, list[tuple[float, float, Trace]]] = {}
            for i, row in enumerate(rows):
                label = ", ".join([test_name(row)] + [f"{_LABEL[f]} {_show(row.get(f))}" for f in others])
                if is_number(row.get("avg_ts")):
                    lines.setdefault(label, []).append((row[axis], row["avg_ts"], Trace(page.view.sha256, f"/tests/{i}/avg_ts", x_pointer=f"/tests/{i}/{axis}")))
            series = [Series(label, sorted(points, key=lambda p: p[0])) for label, points in lines.items()]  # by x alone: Traces do not order
            log = log_y_drawable(series)  # a speed of 0 has no place on a log axis
            page.chart(line_chart(
                f"speed-by-{axis}".replace("_", "-"), f"Mean speed along {_LABEL[axis]} ({axis})", series,
                x_title=_LABEL[axis], y_title="speed (tokens/s)", series_title="test", log_y=log,
                alt_text=f"Mean tokens per second against {_LABEL[axis]}{LOG_SCALE if log else ''}.", unit="tokens/s"))
        series = []
        for i, row in enumerate(rows):
            label = ", ".join([test_name(row)] + [f"{_LABEL[f]} {_show(row.get(f))}" for f in moving])
            samples = row.get("samples_ts", [])
            series.append(Series(label, [(j + 1, v, Trace(page.view.sha256, f"/tests/{i}/samples_ts/{j}", x_position=True)) for j, v in enumerate(samples) if is_number(v)]))
        if any(len(s.points) > 1 for s in series):
            log = log_y_drawable(series)
            page.chart(line_chart(
                "speed-per-repetition", "Speed of each repetition, in the order llama-bench ran them", series,
                x_title="repetition", y_title="speed (tokens/s)", series_title="test", log_y=log,
                alt_text=f"Tokens per second of each repetition{LOG_SCALE if log else ''}.", unit="tokens/s"))

    def _samples(self, page: ArticleWriter, rows: list[dict[str, Any]]) -> None:
        page.heading(2, "Every repetition", "samples")
        page.html('<p class="bl-lede">llama-bench\'s per-repetition samples (after its warm-up run): wall time and '
                 "speed, (n_prompt + n_gen) / time.</p>")
        table = []
        for i, row in enumerate(rows):
            base = f"/tests/{i}"
            speeds = ", ".join(page.num(f"{base}/samples_ts/{j}", "tokens/s") for j in range(len(row.get("samples_ts", []))))
            times = ", ".join(page.num(f"{base}/samples_ns/{j}", "ns") for j in range(len(row.get("samples_ns", []))))
            table.append({"test": escape.html(test_name(row)), "started": page.text(f"{base}/test_time"),
                          "speed per repetition": speeds, "time per repetition": times,
                          "time std. dev.": page.num(f"{base}/stddev_ns", "ns")})
        page.html('<div class="bl-scroll">')
        page.table(table, ["test", "started", "speed per repetition", "time per repetition", "time std. dev."])
        page.html("</div>")

    def _configuration(self, page: ArticleWriter, rows: list[dict[str, Any]]) -> None:
        """The fields every row shares, shown once (with the first row's pointers)."""
        if not rows:
            return
        moving = set(varying(rows))
        page.heading(2, "Configuration shared by every test", "configuration")
        table = [{"field": escape.html(name), "meaning": escape.html(label),
                  "value": self._field(page, f"/tests/0/{name}", rows[0].get(name))}
                 for name, label, _ in CONFIG if name in rows[0] and name not in moving]
        page.html('<p class="bl-lede">As llama-bench wrote them (pointers into the first row); fields that differ '
                 "between rows are in the results table.</p>")
        page.table(table, ["field", "meaning", "value"])
