"""Collection plans: one TOML file describes one article run. Validated completely before
anything runs; every problem is reported at once as `PLAN: $.json.path: expected ...`.

```toml
article_key = "llm-cpu-offload"      # records/<article_key>/<date>.json
module = "llama_server"              # the module that runs cases and assembles the record
timezone = "Europe/Warsaw"           # optional, IANA name for tested_at (default "UTC")
limitations = ["..."]                # optional, appended to the module's own limitations
schema = "gsh-llm-core-article/1"    # optional: run only if the module writes records of this schema

[settings]                           # defaults for every case; a case's [cases.settings] overrides
contexts = [2048, 8192]              # context lengths in tokens (module decides if needed)
output_tokens = 256
warmup_rounds = 1
measured_rounds = 5
seed = 20260927
p95_minimum_requests = 200           # a p95 is withheld below this many requests
host_sample_hz = 10.0                # host + process sampler rate
gpu_sample_hz = 10.0                 # NVML sampler rate
gpu_index = 0                        # NVML device index
gpu_power_method = "power_usage"     # nvmlDeviceGetPowerUsage; "instant"/"average": field values
pss_mode = "boundaries"              # PSS (smaps_rollup: slow, stalls huge mmaps) read at phase
                                     # boundaries only, summarised as resources.boundary_pss_bytes;
                                     # "every_sample": in every process sample (metrics.process_pss_bytes)
baseline_seconds = 1.0               # how long modules idle in the baseline phase
# any other key is module-specific and checked by the module's validate_case

[models.tiny-llama]                  # id -> files (relative to the plan) + free metadata
files = ["models/tiny.gguf"]
name = "tiny random llama"

[[cases]]
id = "threads-1"
module = "llama_server"              # optional; defaults to the top-level module
model = "tiny-llama"                 # optional; must name a [models.*] table
placement = { gpu_layers = 0 }       # optional table, module-specific meaning
[cases.settings]                     # optional overrides of [settings]
threads = 1
[cases.options]                      # optional module-specific table

[[comparisons]]
axis = "threads"
cases = ["threads-1", "threads-2"]

[dispatch]                           # optional: how `collect --ray` places cases (ignored locally)
gpus = 1                             # whole GPUs per case (default 1; 0 for a CPU-only case)
cpus = 1                             # CPUs Ray reserves per case (default 1)
host_exclusive = false               # true: no other case shares the host while this one runs
host = "node-a"                      # pin to the node started with resource "host:node-a"
timeout_s = 3600                     # a case running longer is cancelled and recorded as timed out
system_retries = 2                   # new attempts after a worker/node died, an object was lost, OOM
# a case's [cases.dispatch] table overrides these keys for that case
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from benchledger.errors import Problem, os_reason
from benchledger.files import read_input
from benchledger.records.digest import sha256_hex
from benchledger.records.jsonread import first_lone_surrogate
from benchledger.records.ledger import store_own_name
from benchledger.records.numbers import MAX_SAFE_INTEGER, is_integer, is_number
from benchledger.records.pointer import to_jsonpath
from benchledger.tomlread import read_toml
from collector.record import UNDECODABLE


@dataclass(frozen=True)
class PlanKey:
    """One settings or options key: its default, the check a written value must pass, and what
    the check expects (the end of the problem message, e.g. "a positive integer")."""

    default: Any
    check: Callable[[Any], bool]
    expected: str


ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}\Z")  # \Z: "$" also matches before a final newline
# The largest context or output a plan may ask for, and the most rounds of a phase.
MAX_TOKENS = 1_048_576
MAX_ROUNDS = 10_000
MAX_LIST = 256  # the most context lengths (or other lengths) one case may list
CORE_SETTINGS = {
    # upper bounds too: `measured_rounds = 9223372036854775807` would run for ever, and every
    # number here lands in a record, whose integers lie within ±2^53
    "contexts": PlanKey((), lambda v: isinstance(v, list) and len(v) <= MAX_LIST and all(_pos_int(x, MAX_TOKENS) for x in v)
                        and len(set(v)) == len(v), f"a list of at most {MAX_LIST} distinct positive integers <= {MAX_TOKENS}"),
    "output_tokens": PlanKey(None, lambda v: _pos_int(v, MAX_TOKENS), f"a positive integer <= {MAX_TOKENS}"),
    "warmup_rounds": PlanKey(1, lambda v: _nonneg_int(v) and v <= MAX_ROUNDS, f"an integer in [0, {MAX_ROUNDS}]"),
    "measured_rounds": PlanKey(5, lambda v: _pos_int(v, MAX_ROUNDS), f"a positive integer <= {MAX_ROUNDS}"),
    "seed": PlanKey(0, lambda v: is_integer(v) and abs(v) <= MAX_SAFE_INTEGER, "an integer within ±2^53"),
    "p95_minimum_requests": PlanKey(200, lambda v: _pos_int(v, MAX_ROUNDS * 100), f"a positive integer <= {MAX_ROUNDS * 100}"),
    "host_sample_hz": PlanKey(10.0, lambda v: is_number(v) and 0 < v <= 1000, "a number > 0 and <= 1000"),
    "gpu_sample_hz": PlanKey(10.0, lambda v: is_number(v) and 0 < v <= 1000, "a number > 0 and <= 1000"),
    "gpu_index": PlanKey(0, lambda v: _nonneg_int(v), "an integer >= 0"),
    "baseline_seconds": PlanKey(1.0, lambda v: is_number(v) and 0 <= v <= 3600, "a number of seconds in [0, 3600]"),
    "pss_mode": PlanKey("boundaries", lambda v: v in ("every_sample", "boundaries"), "'every_sample' or 'boundaries'"),
    "gpu_power_method": PlanKey("power_usage", lambda v: v in ("power_usage", "instant", "average"), "one of 'power_usage', 'instant', 'average'"),
}
TOP_KEYS = {"article_key", "module", "timezone", "limitations", "settings", "models", "cases", "comparisons", "schema", "dispatch"}
CASE_KEYS = {"id", "module", "model", "placement", "settings", "options", "dispatch"}
# [dispatch] / [cases.dispatch]: what a case needs and where it may run under `collect --ray`
DISPATCH_KEYS = {
    "gpus": PlanKey(1, lambda v: _nonneg_int(v) and v <= 64, "a whole number of GPUs in [0, 64] (fractions would share a GPU)"),
    "cpus": PlanKey(1, lambda v: is_number(v) and 0 < v <= 1024, "a number of CPUs > 0 and <= 1024"),
    "host_exclusive": PlanKey(False, lambda v: isinstance(v, bool), "true or false"),
    "host": PlanKey(None, lambda v: isinstance(v, str) and bool(ID_RE.match(v)), "a host label like 'node-a' ([a-z0-9._-], at most 64 characters)"),
    "timeout_s": PlanKey(None, lambda v: is_number(v) and 0 < v <= 7 * 86400, "a number of seconds > 0 and <= 604800"),
    "system_retries": PlanKey(2, lambda v: _nonneg_int(v) and v <= 10, "an integer in [0, 10]"),
}

def _pos_int(v: Any, most: int = MAX_SAFE_INTEGER) -> bool:
    return is_integer(v) and 0 < v <= most


def _nonneg_int(v: Any) -> bool:
    return is_integer(v) and v >= 0

@dataclass(frozen=True)
class Settings:
    """A case's effective settings: the plan's [settings] with the case's overrides applied."""

    contexts: tuple[int, ...]
    output_tokens: int | None
    warmup_rounds: int
    measured_rounds: int
    seed: int
    p95_minimum_requests: int
    host_sample_hz: float
    gpu_sample_hz: float
    gpu_index: int
    baseline_seconds: float
    pss_mode: str  # every_sample: PSS in every process sample; boundaries: only at phase boundaries
    gpu_power_method: str  # power_usage: nvmlDeviceGetPowerUsage; instant/average: NVML field values
    extra: dict[str, Any] = field(default_factory=dict)  # module-specific keys, as written

    def as_dict(self) -> dict[str, Any]:
        """All settings as plain JSON values (core keys and module keys together)."""
        out = {k: getattr(self, k) for k in CORE_SETTINGS}
        out["contexts"] = list(self.contexts)
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class ModelSpec:
    id: str
    files: tuple[Path, ...]  # absolute paths
    metadata: dict[str, Any]  # every other key of the [models.ID] table


@dataclass(frozen=True)
class Dispatch:
    """What a case needs and where it may run when dispatched through Ray (see [dispatch])."""

    gpus: int = 1
    cpus: float = 1.0
    host_exclusive: bool = False
    host: str | None = None  # pinned host label: the node offering resource "host:<label>"
    timeout_s: float | None = None
    system_retries: int = 2


@dataclass(frozen=True)
class CaseSpec:
    id: str
    file: str  # the plan file, for Problems
    index: int  # position in the plan's [[cases]], for error paths ($.cases[index])
    module: str
    model: ModelSpec | None
    placement: dict[str, Any]
    settings: Settings
    options: dict[str, Any]
    own_settings: frozenset[str] = frozenset()  # keys set in the case's [cases.settings]
    dispatch: Dispatch = Dispatch()
    folder: Path = Path("/")  # the plan's folder, absolute: what a relative path in a setting is relative to

    def plan_relative(self, path: str) -> str:
        """A path a setting names, relative to the plan's folder as model files are ("~" and
        absolute paths as they are): from the folder a command ran in, a plan that worked in its
        own folder found nothing elsewhere, nor on a Ray worker."""
        return path if path.startswith("~") else str(self.folder / path)

    @property
    def json_path(self) -> str:
        return f"$.cases[{self.index}]"

    def problem(self, subpath: str, message: str) -> Problem:
        """A Problem at `$.cases[i].<subpath>` of the plan, e.g. case.problem("options.port", "expected ...")."""
        return Problem(self.file, f"{self.json_path}.{subpath}" if subpath else self.json_path, message)

    def key_problems(self, where: str, table: dict[str, Any], keys: dict[str, PlanKey], unknown: str) -> list[Problem]:
        """Problems of a module's table (e.g. "options", `case.options`, its PlanKeys): every
        unknown key (`unknown`, then the keys expected), then every value failing its check."""
        problems = [self.problem(f"{where}.{key}", f"{unknown}; expected one of {', '.join(keys)}") for key in sorted(set(table) - set(keys))]
        for key, spec in keys.items():
            if key in table and not spec.check(table[key]):
                problems.append(self.problem(f"{where}.{key}", f"expected {spec.expected}, got {table[key]!r}"))
        return problems


@dataclass(frozen=True)
class Comparison:
    axis: str
    cases: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    path: Path
    raw: bytes
    sha256: str
    article_key: str
    module: str
    timezone: str
    limitations: tuple[str, ...]
    settings: Settings
    models: dict[str, ModelSpec]
    cases: tuple[CaseSpec, ...]
    comparisons: tuple[Comparison, ...]
    schema: str | None = None  # the record schema the author expects the module to write

    def problem(self, path: str, message: str) -> Problem:
        """A Problem located in this plan file (what modules return from validate_case)."""
        return Problem(str(self.path), path, message)


def read_plan(path: str | Path) -> tuple[Plan, list[Problem]]:
    """Read and parse a plan: the plan (a broken value replaced by its default, so the modules
    can still check the rest) and every general problem. Raises InputError when the file cannot
    be read or is not TOML. The modules' own checks are not run here (plan parsing knows no
    module): `collector.plan_loader.load_plan` runs both and reports them together."""
    path = Path(path)
    raw = read_input(path, str(path), what="a plan")
    doc = read_toml(raw, str(path), "plan")
    return _build(path, raw, doc)


def merge_module_problems(plan: Plan, problems: list[Problem], from_modules: list[Problem]) -> list[Problem]:
    """The general problems plus what the modules found, each once, at the place the author
    wrote the value, leaving out what follows from a place already reported."""
    merged = list(problems)
    for found in dict.fromkeys(_where_written(p, plan) for p in from_modules):  # once each
        if not _follows_from(found, problems):
            merged.append(found)
    return merged


def _where_written(found: Problem, plan: Plan) -> Problem:
    """A module checks each case's effective settings; a problem with a value the case took from
    the plan-wide [settings] is moved there (`$.cases[2].settings.threads` -> `$.settings.threads`)."""
    m = re.match(r"^\$\.cases\[(\d+)\]\.settings\.(\w+)", found.path)
    if m:
        case = next((c for c in plan.cases if c.index == int(m.group(1))), None)
        if case is not None and m.group(2) not in case.own_settings:
            return replace(found, path="$.settings." + found.path[len(m.group(0)) - len(m.group(2)):])
    return found


def _follows_from(found: Problem, reported: list[Problem]) -> bool:
    """Whether a module's problem is about a place already reported, at it or inside it (the
    module saw the default that replaced the broken value)."""
    return any(found.path == earlier.path or found.path.startswith((earlier.path + ".", earlier.path + "["))
               for earlier in reported)


def _build(path: Path, raw: bytes, doc: dict[str, Any]) -> tuple[Plan, list[Problem]]:
    """The plan with every general problem; a broken value is replaced by its default, so the
    modules can still check the rest."""
    problems: list[Problem] = []

    def bad(where: str, message: str) -> None:
        problems.append(Problem(str(path), where, message))

    if first_lone_surrogate(path.name) is not None:  # a record names its plan file: refused here, not after every case
        bad("", f"the plan's file name is not valid Unicode: {UNDECODABLE}")
    for key in sorted(set(doc) - TOP_KEYS):
        bad(f"$.{key}", f"unknown key; expected one of {', '.join(sorted(TOP_KEYS))}")
    article_key = doc.get("article_key")
    if not (isinstance(article_key, str) and ID_RE.match(article_key)):
        bad("$.article_key", "expected a lowercase key like 'llm-cpu-offload' ([a-z0-9._-], at most 64 characters)")
    elif own := store_own_name(article_key):  # refused here, not at the seal after every case has run
        bad("$.article_key", f"{article_key!r} names {own} in the records store; choose another key like 'llm-cpu-offload'")
    module = doc.get("module")
    if not (isinstance(module, str) and module):
        bad("$.module", "expected the name of a measuring module, e.g. 'llama_server'")
        module = ""
    timezone = doc.get("timezone", "UTC")
    if not isinstance(timezone, str):
        bad("$.timezone", "expected an IANA time zone name such as 'Europe/Warsaw'")
        timezone = "UTC"
    else:
        try:
            from zoneinfo import ZoneInfo

            ZoneInfo(timezone)
        except (KeyError, ValueError, OSError):  # not found; not a name ("../x", "Europe/"); a folder or too long
            bad("$.timezone", f"unknown time zone {timezone!r}; expected an IANA name such as 'Europe/Warsaw'")
            timezone = "UTC"
    limitations = doc.get("limitations", [])
    if not (isinstance(limitations, list) and all(isinstance(x, str) and x for x in limitations)):
        bad("$.limitations", "expected a list of non-empty strings")
        limitations = []
    schema = doc.get("schema")
    if schema is not None and not isinstance(schema, str):
        bad("$.schema", "expected a schema id such as 'gsh-llm-core-article/1'")
        schema = None

    base_settings = doc.get("settings", {})
    if not isinstance(base_settings, dict):
        bad("$.settings", "expected a table")
        base_settings = {}
    settings = _settings(base_settings, "$.settings", bad)
    base_dispatch = doc.get("dispatch", {})
    if not isinstance(base_dispatch, dict):
        bad("$.dispatch", "expected a table, e.g. [dispatch] with gpus = 1")
        base_dispatch = {}
    _dispatch(base_dispatch, "$.dispatch", bad)

    models: dict[str, ModelSpec] = {}
    raw_models = doc.get("models", {})
    if not isinstance(raw_models, dict):
        bad("$.models", "expected a table of [models.ID] tables")
        raw_models = {}
    for mid, table in raw_models.items():
        where = to_jsonpath(["models", mid])  # a quote in an id escaped, as every path is
        if not ID_RE.match(mid):
            bad(where, "model id must be lowercase [a-z0-9._-], at most 64 characters")
        if not isinstance(table, dict):
            bad(where, "expected a table with 'files'")
            continue
        files = table.get("files")
        if not (isinstance(files, list) and files and all(isinstance(f, str) and f for f in files)):
            bad(f"{where}.files", "expected a non-empty list of file paths (relative to the plan)")
            files = []
        resolved = []
        for i, f in enumerate(files):
            try:
                p = (path.parent / f).resolve()
                if not p.is_file():
                    what = ("is a folder" if p.is_dir() else "is not a regular file (a device, socket or pipe)" if p.exists()
                            else "does not exist")
                    bad(f"{where}.files[{i}]", f"expected an existing file; {p} {what}")
            except (OSError, ValueError) as err:  # a NUL in the name, a name longer than the system allows
                p = path.parent / "\ufffd"  # never opened: the plan does not load
                bad(f"{where}.files[{i}]", f"expected a file path; {f[:80]!r}{'...' if len(f) > 80 else ''} cannot be one "
                                           f"({os_reason(err)})")
            resolved.append(p)
        models[mid] = ModelSpec(mid, tuple(resolved), {k: v for k, v in table.items() if k != "files"})

    cases: list[CaseSpec] = []
    raw_cases = doc.get("cases")
    if not (isinstance(raw_cases, list) and raw_cases):
        bad("$.cases", "expected at least one [[cases]] table")
        raw_cases = []
    seen: set[str] = set()
    for i, c in enumerate(raw_cases):
        where = f"$.cases[{i}]"
        if not isinstance(c, dict):
            bad(where, "expected a table")
            continue
        for key in sorted(set(c) - CASE_KEYS):
            bad(f"{where}.{key}", f"unknown key; expected one of {', '.join(sorted(CASE_KEYS))} (module options go in [cases.options])")
        cid = c.get("id")
        if not (isinstance(cid, str) and ID_RE.match(cid)):
            bad(f"{where}.id", "expected a case id: lowercase [a-z0-9._-], at most 64 characters")
            cid = f"#{i}"
        elif cid in seen:
            bad(f"{where}.id", f"duplicate case id {cid!r}")
        seen.add(cid)
        cmod = c.get("module", module)
        if not (isinstance(cmod, str) and cmod):
            bad(f"{where}.module", "expected the name of a measuring module")
        model = None
        if "model" in c:
            if not isinstance(c["model"], str) or c["model"] not in raw_models:
                bad(f"{where}.model", f"expected the id of a [models.ID] table; known: {', '.join(sorted(raw_models)) or 'none'}")
            else:
                model = models.get(c["model"])
        placement = c.get("placement", {})
        if not isinstance(placement, dict):
            bad(f"{where}.placement", "expected a table, e.g. { gpu_layers = 20 }")
            placement = {}
        options = c.get("options", {})
        if not isinstance(options, dict):
            bad(f"{where}.options", "expected a table of module options")
            options = {}
        overrides = c.get("settings", {})
        if not isinstance(overrides, dict):
            bad(f"{where}.settings", "expected a table of setting overrides")
            overrides = {}
        case_settings = _settings({**base_settings, **overrides}, f"{where}.settings", bad, only=set(overrides))
        own_dispatch = c.get("dispatch", {})
        if not isinstance(own_dispatch, dict):
            bad(f"{where}.dispatch", "expected a table, e.g. { host = \"node-a\" }")
            own_dispatch = {}
        _dispatch(own_dispatch, f"{where}.dispatch", bad)
        dispatch = _dispatch({**base_dispatch, **own_dispatch}, "", None)
        cases.append(CaseSpec(cid, str(path), i, cmod if isinstance(cmod, str) else "", model, placement, case_settings, options,
                              frozenset(overrides), dispatch, path.parent.resolve()))

    comparisons: list[Comparison] = []
    raw_cmp = doc.get("comparisons", [])
    if not isinstance(raw_cmp, list):
        bad("$.comparisons", "expected [[comparisons]] tables")
        raw_cmp = []
    for i, cmp in enumerate(raw_cmp):
        where = f"$.comparisons[{i}]"
        if not isinstance(cmp, dict):
            bad(where, "expected a table with 'axis' and 'cases'")
            continue
        for key in sorted(set(cmp) - {"axis", "cases"}):
            bad(f"{where}.{key}", "unknown key; expected 'axis' and 'cases'")
        axis = cmp.get("axis")
        if not (isinstance(axis, str) and axis):
            bad(f"{where}.axis", "expected the name of the varied setting, e.g. 'gpu_layers'")
        ccases = cmp.get("cases")
        if not (isinstance(ccases, list) and len(ccases) >= 2 and all(isinstance(x, str) for x in ccases)):
            bad(f"{where}.cases", "expected a list of at least two case ids")
            ccases = []
        elif len(set(ccases)) != len(ccases):  # ["a", "a"] compared a case with itself
            twice = sorted({x for x in ccases if ccases.count(x) > 1})
            bad(f"{where}.cases", f"expected distinct case ids; {', '.join(map(repr, twice))} listed twice")
            ccases = list(dict.fromkeys(ccases))
        for j, x in enumerate(ccases):
            if x not in seen:
                bad(f"{where}.cases[{j}]", f"no case has id {x!r}")
        comparisons.append(Comparison(axis if isinstance(axis, str) else "", tuple(ccases)))

    plan = Plan(
        path=path,
        raw=raw,
        sha256=sha256_hex(raw),
        article_key=article_key if isinstance(article_key, str) else "",
        module=module,
        timezone=timezone,
        limitations=tuple(limitations),
        settings=settings,
        models=models,
        cases=tuple(cases),
        comparisons=tuple(comparisons),
        schema=schema,
    )
    return plan, problems


def _dispatch(table: dict[str, Any], where: str, bad) -> Dispatch:
    """A Dispatch from a [dispatch] table; every unknown key and bad value reported through
    `bad` (None: already reported), a bad value replaced by its default."""
    values: dict[str, Any] = {}
    for key in sorted(set(table) - set(DISPATCH_KEYS)):
        if bad is not None:
            bad(f"{where}.{key}", f"unknown key; expected one of {', '.join(DISPATCH_KEYS)}")
    for key, spec in DISPATCH_KEYS.items():
        if key in table:
            if spec.check(table[key]):
                values[key] = table[key]
                continue
            if bad is not None:
                bad(f"{where}.{key}", f"expected {spec.expected}, got {table[key]!r}")
    if "cpus" in values:
        values["cpus"] = float(values["cpus"])
    if "timeout_s" in values:
        values["timeout_s"] = float(values["timeout_s"])
    return Dispatch(**values)


def _settings(table: dict[str, Any], where: str, bad, only: set[str] | None = None) -> Settings:
    """Typed Settings from a table; problems reported for core keys (only those in `only`, when
    given, so a case does not repeat the plan's problems)."""
    values: dict[str, Any] = {}
    for key, spec in CORE_SETTINGS.items():
        if key in table:
            v = table[key]
            if spec.check(v):
                values[key] = v
                continue
            if only is None or key in only:
                bad(f"{where}.{key}", f"expected {spec.expected}, got {v!r}")
        values[key] = spec.default
    values["contexts"] = tuple(values["contexts"])
    for key in ("host_sample_hz", "gpu_sample_hz", "baseline_seconds"):
        values[key] = float(values[key])
    extra = {k: v for k, v in table.items() if k not in CORE_SETTINGS}
    return Settings(**values, extra=extra)
