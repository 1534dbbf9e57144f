"""Articles for `gsh-llm-core-article/1` records: an LLM server measured in several cases (one
placement or setting each), each case with groups per context length.

Everything comes from the record: the cases, their contexts, the declared comparison axes and
their values. Metric names below are the schema's field names."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable

from benchledger.cases.llm_core import FIELDS, PHASES
from benchledger.records.checks import THERMAL_KINDS, THERMAL_STATES
from benchledger.records.numbers import is_integer, is_number
from benchledger.records.pointer import resolve, to_pointer
from site_gen import escape
from site_gen.charts import Series, line_chart
from site_gen.limitations import Limitation
from site_gen.pages.records.base import (
    ArticleWriter, RecordRenderer, Summary, SummaryNumbers, at, audit_block, kv_rows, provenance, under,
    withheld_column_note, withheld_everywhere,
)
from site_gen.quantity import Trace, counted, declared_unit, rescaled

if TYPE_CHECKING:
    from site_gen.context import RecordView

# Per-group summaries shown in the context table: (field, label, unit).
GROUP_SUMMARIES = (
    ("response_seconds", "response", "s"),
    ("server_decode_tokens_per_second", "server decode", "tokens/s"),
    ("synthetic_first_token_seconds", "synthetic first token", "s"),
)
# Phase metrics shown in the resources table: (metric, statistic, label, unit).
PHASE_METRICS = (
    ("gpu_board_watts", "mean", "GPU board power (mean)", "W"),
    ("gpu_utilization_percent", "mean", "GPU utilisation (mean)", "%"),
    ("gpu_memory_used_bytes", "maximum", "GPU memory (max)", "B"),
    ("process_rss_bytes", "maximum", "process RSS (max)", "B"),
    ("cgroup_memory_current_bytes", "maximum", "cgroup memory (max)", "B"),
)
def _axis_value(case: dict, axis: str) -> tuple[Any, str | None]:
    """The case's value of `axis` and where it sits in the case (placement, settings, the
    requested placement in settings, which is all a failed case may have, or the case)."""
    for where in ("placement", "settings", "settings/placement"):
        node = resolve(case, f"/{where}", default=None)
        if isinstance(node, dict) and axis in node:
            return node[axis], f"/{where}/{axis}"
    if axis in case:
        return case[axis], f"/{axis}"
    return None, None


def _axis_phrase(case: dict, axis: str) -> str:
    value, _ = _axis_value(case, axis)
    placement = case.get("placement") or case.get("reported_placement") or {}  # total_layers is the model's
    if axis == "gpu_layers" and isinstance(placement.get("total_layers"), int):
        return f"{value} of {placement['total_layers']} layers on the GPU"
    return f"{axis} {value}"


def _completed(data: dict) -> list[int]:
    """Indexes of the cases that completed: only they count in headlines, charts and comparisons."""
    return [i for i, c in enumerate(data.get("cases", [])) if c.get("status") == "completed"]


def _left_out(data: dict) -> str:
    """'1 of 3 cases failed: x (left out of these numbers)', or '' when every case completed."""
    cases = data.get("cases", [])
    by_status: dict[str, list[str]] = {}
    for c in cases:
        if c.get("status") != "completed":
            by_status.setdefault(str(c.get("status")), []).append(str(c.get("id")))
    return "; ".join(
        f"{len(ids)} of {counted(len(cases), 'case')} {status}: {', '.join(ids)} (left out of these numbers)"
        for status, ids in by_status.items()
    )


def axis_label(axis: str) -> str:
    """A plan's comparison axis as readers read it: the kind's label for the field ("GPU
    layers" for gpu_layers), else the name with spaces."""
    return next((f.label for f in FIELDS if f.name == axis), axis.replace("_", " "))


def _comparisons(data: dict) -> list[tuple[str, list[int]]]:
    """(axis, indexes of completed cases in declared order) per declared comparison; cases named
    but missing are skipped (the schema checks catch them)."""
    done = set(_completed(data))
    index = {c.get("id"): i for i, c in enumerate(data.get("cases", [])) if i in done}
    return [
        (comp["axis"], [index[c] for c in comp.get("cases", []) if c in index])
        for comp in data.get("comparisons", [])
    ]


def _in_every_case(page: ArticleWriter) -> Callable[[Limitation], bool]:
    """Selects the limitations that every case of a record of several has, in the same words
    (synthetic prompts, one stream): said once above the cases instead of once in each."""
    cases = {f"/cases/{i}" for i in range(len(page.view.data.get("cases", [])))}
    texts: dict[str, set[str]] = {}
    for lim in page.view.limitations:
        if lim.scope in cases:
            texts.setdefault(lim.text, set()).add(lim.scope)
    common = {text for text, scopes in texts.items() if scopes == cases} if len(cases) > 1 else set()
    return lambda lim: lim.scope in cases and lim.text in common


def _rounds(count: object) -> str:
    return counted(count, "measured round") if is_integer(count) else "? measured rounds"


def _buffer_rows(page: ArticleWriter, pp: str, buffers: list) -> list[dict[str, str]]:
    """One row per device of the runtime's buffers, in the order reported: a device with several
    (llama.cpp reports one CPU_Mapped buffer per mapped model file chunk) shows their sum, its
    inputs on hover, instead of a row each."""
    by_device: dict[str, list[int]] = {}
    for b, buffer in enumerate(buffers):
        by_device.setdefault(str(buffer.get("device")), []).append(b)
    rows = []
    for indexes in by_device.values():
        first = f"{pp}/buffers/{indexes[0]}"
        sizes = [buffers[b].get("reported_mib") for b in indexes]
        if len(indexes) == 1 or not all(is_number(v) for v in sizes):
            reported = ", ".join(page.num(f"{pp}/buffers/{b}/reported_mib", "MiB") for b in indexes)
        else:
            inputs = {f"buffer {b}": f"{pp}/buffers/{b}/reported_mib" for b in indexes}
            reported = page.derived(sum(sizes), "MiB", " + ".join(inputs), inputs)
        rows.append({"device": page.text(f"{first}/device"), "buffers": str(len(indexes)), "reported": reported})
    return rows


def _contexts(data: dict) -> list[int]:
    cases = data.get("cases", [])
    return sorted({g["context_tokens"] for i in _completed(data) for g in cases[i].get("groups", [])})


def _group_index(case: dict, context: int) -> int | None:
    for i, g in enumerate(case.get("groups", [])):
        if g.get("context_tokens") == context:
            return i
    return None


def _energy_per_token(data: dict, group_pointer: str) -> float | None:
    """GPU energy per output token of the group at `group_pointer` (joules / completed output
    tokens), or None when energy is unavailable or no token completed."""
    joules = resolve(data, f"{group_pointer}/resources/gpu_energy/joules", default=None)
    tokens = resolve(data, f"{group_pointer}/completed_output_tokens", default=None)
    return joules / tokens if is_number(joules) and tokens else None


class LlmCoreRenderer(RecordRenderer):
    schema = "gsh-llm-core-article/1"

    def summary(self, view: "RecordView") -> Summary:
        data = view.data
        model = (data.get("models") or [{}])[0]
        hw = data.get("hardware", {})
        runtime = data.get("runtime", {})
        comps = _comparisons(data)
        axis_text = f" across {axis_label(comps[0][0])}" if comps else ""
        # the GPU and the runtime's release in the title: records of one model on two GPUs or two
        # releases had the same <title> and the same home card heading
        where = hw.get("gpu") or hw.get("cpu") or "?"
        release = f" {runtime['release']}" if runtime.get("release") else ""
        title = (f"{model.get('name', '?')} {model.get('quantization', '')} on {where}, {runtime.get('name', '?')}{release}"
                 f"{axis_text}")
        headline = self._headline(view)
        cases = data.get("cases", [])
        settings = (cases[0].get("settings") or {}) if cases else {}
        measured = (
            f"{runtime.get('name', '?')} {runtime.get('release', '')} serving {model.get('name', '?')} "
            f"{model.get('quantization', '')} through {settings.get('endpoint', '?')}: {counted(len(cases), 'case')} × "
            f"{counted(len(_contexts(data)), 'context length')}, {_rounds(settings.get('measured_rounds'))} of "
            f"{settings.get('output_tokens', '?')} output tokens each, concurrency {settings.get('concurrency', '?')}."
        )
        return Summary(title, str(data.get("tested_at", "")), f"{hw.get('gpu', '?')} · {hw.get('cpu', '?')}",
                       headline, measured, _left_out(data))

    def _headline(self, view: "RecordView") -> str:
        """One sentence from the data: decode speed at the smallest context along the first axis."""
        data = view.data
        num = SummaryNumbers(view)

        contexts = _contexts(data)
        comps = _comparisons(data)
        if not contexts:
            return "No completed groups in this record."
        context = contexts[0]
        order = comps[0][1] if comps and comps[0][1] else _completed(data)
        axis = comps[0][0] if comps else None
        points = []
        for i in order:
            case = data["cases"][i]
            g = _group_index(case, context)
            if g is None:
                continue
            ptr = f"/cases/{i}/groups/{g}/server_decode_tokens_per_second/median"
            label = _axis_phrase(case, axis) if axis else str(case.get("id", i))
            points.append((label, num(ptr, "tokens/s"), resolve(data, ptr, default=None)))
        if not points:
            return "No completed groups in this record."
        first_label, first, first_value = points[0]
        if len(points) == 1:
            sentence = f"With {escape.html(first_label)}, server decode runs at {first} (median, context {context} tokens)."
        else:
            last_value = points[-1][2]
            numeric = is_number(first_value) and is_number(last_value)
            verb = "changing to" if not numeric or last_value == first_value else "falling to" if last_value < first_value else "rising to"
            rest = "; ".join(f"{v} with {escape.html(lbl)}" for lbl, v, _ in points[1:])
            sentence = (
                # a non-breaking hyphen: a phone broke the line inside "2048-token"
                f"Median server decode at a {context}\u2011token context: {first} with {escape.html(first_label)}, "
                f"{verb} {rest}."
            )
        return sentence

    def case_anchor(self, case_pointer: str) -> str | None:
        # `_case` heads each case with id="case-<index>"
        tail = case_pointer.rsplit("/", 1)[-1]
        return f"case-{tail}" if case_pointer.startswith("/cases/") and tail.isdigit() else None

    def body(self, page: ArticleWriter) -> None:
        data = page.view.data
        page.notes(at(""), "Limitations of the whole record")
        page.notes(_in_every_case(page), "Limitations of every case")
        comps = _comparisons(data)
        for axis, order in comps:
            self._comparison(page, axis, order)
        first_axis = comps[0][0] if comps else None  # what each case's heading names
        for i, case in enumerate(data.get("cases", [])):
            self._case(page, i, case, first_axis)
        provenance(page, [
            ("Environment", "/environment"), ("Operating system", "/environment/os"),
            ("Hardware", "/hardware"), ("Runtime", "/runtime"),
        ] + [(f"Model {m.get('id', i)}", f"/models/{i}") for i, m in enumerate(data.get("models", []))]  # page.heading escapes
          + [(f"Source {i + 1} of {len(data['sources'])}" if len(data["sources"]) > 1 else "Source", f"/sources/{i}")
             for i in range(len(data.get("sources", [])))]
          + [("Record", "")])
        self._model_files(page)
        audit_block(page)
        page.notes(lambda lim: True, "Other limitations")

    # -- sections -------------------------------------------------------------------------
    def _comparison(self, page: ArticleWriter, axis: str, order: list[int]) -> None:
        data = page.view.data
        label = axis_label(axis)
        page.heading(2, f"Results along {label}", f"results-{axis}".replace("_", "-"))  # the anchor keeps the field's name
        contexts = _contexts(data)
        labels = ", ".join(escape.html(_axis_phrase(data["cases"][i], axis)) for i in order)
        page.html(f'<p class="bl-lede">Cases compared: {labels}. One line per context length.</p>')
        left_out = _left_out(data)
        if left_out:
            page.html(f'<p class="bl-left-out">{escape.html(left_out)}</p>')

        def group_series(value_of) -> list[Series]:
            out = []
            for context in contexts:
                points = []
                for i in order:
                    case = data["cases"][i]
                    g = _group_index(case, context)
                    x, x_at = _axis_value(case, axis)
                    if g is None or not is_number(x):
                        continue
                    y, origin = value_of(i, g)
                    if y is not None:
                        points.append((x, y, dataclasses.replace(origin, x_pointer=f"/cases/{i}{x_at}")))
                out.append(Series(f"context {context}", points))
            return out

        sha = page.view.sha256

        def field(path: str, unit: str = ""):
            """The value at `path` of each group, rescaled to `unit` from the unit its name
            declares where given (the chart shows GiB of a bytes field)."""
            def value_of(i: int, g: int):
                ptr = f"/cases/{i}/groups/{g}/{path}"
                v = resolve(data, ptr, default=None)
                if not is_number(v):
                    return None, None
                return (rescaled(v, declared_unit(ptr), unit) if unit else v), Trace(sha, ptr, unit=unit)
            return value_of

        def energy_per_token(i: int, g: int):
            base = f"/cases/{i}/groups/{g}"
            value = _energy_per_token(data, base)
            if value is None:
                return None, None
            return value, Trace(sha, formula="joules / completed_output_tokens",
                                inputs=(("joules", f"{base}/resources/gpu_energy/joules"),
                                        ("completed_output_tokens", f"{base}/completed_output_tokens")))

        charts = [
            ("decode", "Server decode speed (median)", "tokens/s", field("server_decode_tokens_per_second/median")),
            ("first-token", "Synthetic first-token time (median)", "s", field("synthetic_first_token_seconds/median")),
            ("aggregate", "Aggregate output throughput", "tokens/s", field("aggregate_output_tokens_per_second")),
            ("energy", "GPU board energy per output token (derived: joules / completed output tokens)", "J/token", energy_per_token),
            ("gpu-util", "GPU utilisation during responses (mean)", "%", field("resources/metrics/gpu_utilization_percent/mean")),
            ("memory", "Process resident memory during responses (max)", "GiB", field("resources/metrics/process_rss_bytes/maximum", "GiB")),
        ]
        for chart_id, title, unit, value_of in charts:
            series = group_series(value_of)
            if not any(s.points for s in series):
                continue
            page.chart(line_chart(
                escape.anchor(f"{axis}-{chart_id}"), title, series,
                x_title=label, y_title=f"{title.split(' (')[0]} ({unit})", series_title="context",
                alt_text=f"{title} against {label}.", unit=unit,
            ))
        page.notes(lambda lim: lim.rule_id == "energy-unavailable" and "/groups/" in lim.scope)

    def _case(self, page: ArticleWriter, i: int, case: dict, axis: str | None) -> None:
        base = f"/cases/{i}"
        label = str(case.get("id", i))
        status = "" if case.get("status") == "completed" else f" ({case.get('status')})"
        page.heading(2, f"Case {label}" + (f": {_axis_phrase(case, axis)}" if axis else "") + status, f"case-{i}")
        page.html(
            f'<p class="bl-lede">Module {page.text(base + "/module")}, model {page.text(base + "/model")}, '
            f'status {page.text(base + "/status")}, wall time {page.num(base + "/case_wall_seconds", "s")}.</p>'
        )
        if case.get("status") != "completed":
            self._failure(page, base, case)
        self._host(page, base, case)
        page.notes(at(base), "Limitations of this case")
        if case.get("groups"):
            self._groups(page, base, case)
        self._placement(page, base, case)
        self._placement(page, base, case, "reported_placement")
        self._phases(page, base, case)
        self._telemetry(page, base)
        settings = kv_rows(page, f"{base}/settings")
        if settings:
            page.heading(3, "Settings")
            page.html('<details class="bl-settings"><summary>All settings of this case</summary>')
            page.table(settings, ["field", "value"])
            page.html("</details>")
        page.notes(under(base), "Other limitations of this case")

    def _host(self, page: ArticleWriter, base: str, case: dict) -> None:
        """Where a dispatched case ran (its `host`, measured there) and every attempt at it;
        nothing for a case run locally, whose machine is the record's."""
        host = case.get("host")
        if isinstance(host, dict):
            hp = f"{base}/host"
            gpus = host.get("gpus") if isinstance(host.get("gpus"), list) else []
            gpu_text = "; ".join(f'{page.text(f"{hp}/gpus/{g}/name")} <code class="bl-hash">{page.text(f"{hp}/gpus/{g}/uuid")}</code>'
                                 for g in range(len(gpus))) or "none seen through NVML"
            page.html(
                f'<p class="bl-host">Ran on host {page.text(hp + "/label")} ({page.text(hp + "/hostname")}): '
                f'CPU {page.text(hp + "/cpu")}, kernel {page.text(hp + "/kernel")}, NVIDIA driver {page.text(hp + "/nvidia_driver")}, '
                f'GPUs {gpu_text}; GPU check: {page.text(hp + "/gpu_check")}.</p>')
        attempts = case.get("attempts")
        if isinstance(attempts, list) and attempts:
            page.heading(3, "Attempts")
            rows = [{
                "attempt": page.num(f"{base}/attempts/{a}/attempt"),
                "outcome": page.text(f"{base}/attempts/{a}/outcome"),
                "host": page.text(f"{base}/attempts/{a}/host_label") + " " + page.text(f"{base}/attempts/{a}/hostname"),
                "started": page.text(f"{base}/attempts/{a}/started_at"),
                "finished": page.text(f"{base}/attempts/{a}/finished_at"),
                "reason": page.text(f"{base}/attempts/{a}/reason"),
            } for a in range(len(attempts))]
            page.table(rows, ["attempt", "outcome", "host", "started", "finished", "reason"])

    def _groups(self, page: ArticleWriter, base: str, case: dict) -> None:
        page.heading(3, "Per context")
        page.html('<p class="bl-lede">Medians with the range (minimum–maximum) of the requests below them.</p>')
        rows, summaries = [], []
        for g, group in enumerate(case.get("groups", [])):
            gp = f"{base}/groups/{g}"
            row = {
                "context": page.num(f"{gp}/context_tokens", "tokens"),
                "requests": page.num(f"{gp}/completed_request_count") + " ok, " + page.num(f"{gp}/failed_request_count") + " failed",
            }
            for fld, label, unit in GROUP_SUMMARIES:
                sp = f"{gp}/{fld}"
                if resolve(page.view.data, sp, default=None) is None:
                    continue
                # The space keeps median and range apart in the search index's text.
                row[f"{label} median"] = (
                    page.num(f"{sp}/median", unit) + ' <br><small class="bl-range">'
                    + page.num_range(sp, unit) + "</small>")
                summaries.append(sp)
            row["aggregate output"] = page.num(f"{gp}/aggregate_output_tokens_per_second", "tokens/s")
            per_token = _energy_per_token(page.view.data, gp)
            if per_token is not None:
                row["GPU energy / token"] = page.derived(
                    per_token, "J/token", "joules / completed_output_tokens",
                    {"joules": f"{gp}/resources/gpu_energy/joules", "completed_output_tokens": f"{gp}/completed_output_tokens"},
                )
            else:
                row["GPU energy / token"] = page.num(f"{gp}/resources/gpu_energy/available", text="unavailable",
                                                     limited_at=f"{gp}/resources/gpu_energy")
            row["CPU (one logical CPU = 100%)"] = page.num(f"{gp}/cpu_snapshot_intervals/one_logical_cpu_percent", "%")
            rows.append(row)
        # The record keeps no p95 of these summaries: a p95 column could only say "withheld" (too
        # few requests) or "n/a" in every row; the notes below say which percentiles are withheld.
        columns = ["context", "requests"] + [f"{label} median" for _, label, _ in GROUP_SUMMARIES]
        columns += ["aggregate output", "GPU energy / token", "CPU (one logical CPU = 100%)"]
        page.html('<div class="bl-scroll">')
        page.table(rows, [c for c in columns if any(c in r for r in rows)])
        page.html("</div>")
        if withheld_everywhere(page, summaries):
            withheld_column_note(page)
        page.notes(lambda lim: lim.scope.startswith(f"{base}/groups/"), "Limitations of these numbers")

    def _failure(self, page: ArticleWriter, base: str, case: dict) -> None:
        """Why the case did not complete, and the server log's last lines (escaped, folded)."""
        parts = [f'<div class="bl-failure"><p><strong>This case {escape.html(case.get("status"))}:</strong> '
                 f'{page.text(base + "/failure_reason")}</p>']
        tail = case.get("server_log_tail")
        lines = tail.splitlines() if isinstance(tail, str) else [str(line) for line in tail or []]
        if any(line.strip() for line in lines):
            log = escape.pre("\n".join(lines))
            parts.append(
                f'<details class="bl-log"><summary>Server log, last {len(lines)} lines</summary>'
                f'<pre data-pointer="{escape.attr(base)}/server_log_tail"><code>{log}</code></pre></details>')
        page.html("".join(parts) + "</div>")

    def _placement(self, page: ArticleWriter, base: str, case: dict, key: str = "placement") -> None:
        """The placement as requested (`placement`) or, when the server placed layers otherwise,
        as it reported (`reported_placement`)."""
        placement = case.get(key)
        if not isinstance(placement, dict):
            return
        pp = f"{base}/{key}"
        if key == "placement":
            page.heading(3, "Placement")
        else:
            page.heading(3, "Placement reported by the server")
            page.html('<p class="bl-lede">As the server reported it. It is kept apart from <code>placement</code>, '
                     "which holds only a placement as requested.</p>")
        page.table(kv_rows(page, pp), ["field", "value"])
        rows = _buffer_rows(page, pp, placement.get("buffers") or [])
        if rows:
            page.table(rows, ["device", "buffers", "reported"], caption="Runtime buffers (as reported by the runtime)")
        page.notes(under(pp))

    def _phases(self, page: ArticleWriter, base: str, case: dict) -> None:
        phases = case.get("resources_by_phase") or {}
        if not phases:
            return
        page.heading(3, "Resources by phase")
        rows = []
        # in time order (a record's keys are sorted: cleanup came second)
        for name in sorted(phases, key=lambda n: (PHASES.index(n) if n in PHASES else len(PHASES), n)):
            pp = f"{base}/resources_by_phase/{name}"
            row = {"phase": escape.html(name), "duration": page.num(f"{pp}/response_union_seconds", "s")}
            energy = phases[name].get("gpu_energy") or {}
            if energy.get("available"):
                row["GPU energy"] = page.num(f"{pp}/gpu_energy/joules", "J")
            else:
                row["GPU energy"] = page.num(f"{pp}/gpu_energy/available", text="unavailable", limited_at=f"{pp}/gpu_energy")
            for metric, stat, label, unit in PHASE_METRICS:
                if isinstance((phases[name].get("metrics") or {}).get(metric), dict):
                    row[label] = page.num(f"{pp}/metrics/{metric}/{stat}", unit)
                else:
                    row[label] = page.num(f"{pp}/metrics/{metric}", text="not sampled")
            rows.append(row)
        columns = ["phase", "duration", "GPU energy"] + [m[2] for m in PHASE_METRICS]
        page.html('<div class="bl-scroll">')
        page.table(rows, columns)
        page.html("</div>")
        phases_under, total_under = under(f"{base}/resources_by_phase"), under(f"{base}/completed_response_resources")
        page.notes(lambda lim: phases_under(lim) or total_under(lim))

    def _telemetry(self, page: ArticleWriter, base: str) -> None:
        rows = kv_rows(page, f"{base}/telemetry")
        if not rows:
            return
        page.heading(3, "Telemetry")
        states = resolve(page.view.data, f"{base}/telemetry/thermal_slowdown_states", default={})
        # the kinds and states the schema names (an object it leaves open may hold other keys)
        for kind in (k for k in THERMAL_KINDS if isinstance(states, dict) and isinstance(states.get(k), dict)):
            sp = f"{base}/telemetry/thermal_slowdown_states" + to_pointer([kind])
            rows.append({
                # labelled as kv_rows labels the rows above it ("Thermal slowdown fully available")
                "field": f"Thermal slowdown ({escape.html(kind)})",
                "value": " · ".join(f"{escape.html(k.replace('_', ' '))} {page.num(sp + to_pointer([k]))}"
                                   for k in THERMAL_STATES if k in states[kind]),
            })
        page.table(rows, ["field", "value"])
        page.notes(under(f"{base}/telemetry"))

    def _model_files(self, page: ArticleWriter) -> None:
        for m, model in enumerate(page.view.data.get("models", [])):
            files = model.get("files") or []
            if not files:
                continue
            rows = [
                {"file": str(f + 1), "size": page.num(f"/models/{m}/files/{f}/bytes", "B"),
                 "sha256 (claimed)": f'<code>{page.text(f"/models/{m}/files/{f}/sha256")}</code>'}
                for f in range(len(files))
            ]
            page.html(f'<details class="bl-files"><summary>Model files of {escape.html(model.get("id", m))} ({len(files)})</summary>')
            page.table(rows, ["file", "size", "sha256 (claimed)"])
            page.html("</details>")
