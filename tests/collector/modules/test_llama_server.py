"""The llama-server lifecycle against the real binary: --version/--help parsing, refusal of
settings a build lacks, health wait and load report, and no orphan server on any exit path."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace

import psutil
import pytest

from collector.modules.llama_server.requests import SYNTHETIC_TEXT, Client, synthetic_prompt
from collector.modules.llama_server.server import (
    LlamaServer,
    ServerError,
    ServerSettings,
    UnsupportedSetting,
    _help_entries,
    command_line,
    find_binary,
    inspect_binary,
    parse_load_log,
)

pytestmark = pytest.mark.llama


@pytest.fixture(scope="module")
def info(llama_server_binary):
    return inspect_binary(llama_server_binary)


def settings(**kw):
    return ServerSettings(**{"context_tokens": 256, "threads": 1, **kw})


def wait_gone(pid, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


def test_binary_describes_itself(info):
    assert info.version_text.startswith("version:")
    for flag in ("-ngl", "-c", "-b", "-ub", "-t", "-np", "-fa", "--port", "-ot", "--n-cpu-moe"):
        assert info.supports(flag), flag
    assert info.accepts_value("-ngl", "all") and info.accepts_value("-fa", "off")
    assert not info.accepts_value("-ngl", "everything")


def test_binary_lookup_order(llama_server_binary, monkeypatch, tmp_path):
    monkeypatch.setenv("LLAMA_SERVER", str(llama_server_binary))
    assert find_binary(None) == llama_server_binary
    assert find_binary(str(llama_server_binary)) == llama_server_binary
    with pytest.raises(ServerError, match="settings.binary is not an executable file: /nowhere/llama-server"):
        find_binary("/nowhere/llama-server")
    monkeypatch.delenv("LLAMA_SERVER")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ServerError, match="no llama-server binary"):
        find_binary(None)


def test_settings_a_build_lacks_are_refused_all_at_once(info):
    """A build whose --help lacks --load-mode/--lazy-mode/--no-mmap and whose -ngl takes only a
    number (the real help with those entries removed) refuses instead of running otherwise."""
    help_lines = {f: t for f, t in info.help_lines.items() if f not in ("-lm", "--load-mode", "-lzm", "--lazy-mode")}
    help_lines["-ngl"] = help_lines["--gpu-layers"] = "-ngl, --gpu-layers N   max. number of layers to store in VRAM"
    older = replace(info, flags=frozenset(help_lines), help_lines=help_lines)
    with pytest.raises(UnsupportedSetting) as err:
        command_line(older, info.path, settings(gpu_layers="all", load_mode="none", lazy_mode="on"), 1)
    message = str(err.value)
    assert "gpu_layers needs -ngl all" in message
    assert "load_mode=none needs --no-mmap" in message
    assert "lazy_mode=on needs --lazy-mode" in message
    # what the older build can do still maps onto its flags
    argv = command_line(older, info.path, settings(gpu_layers=3), 1)
    assert argv[argv.index("-ngl") + 1] == "3" and "--load-mode" not in argv


def test_help_entries_span_continuation_lines():
    text = textwrap.dedent("""\
        -h,    --help, --usage                  print usage and exit
        -fa,   --flash-attn [on|off|auto]       set Flash Attention use
                                                (env: LLAMA_ARG_FLASH_ATTN)
        -ot,   --override-tensor <tensor name pattern>=<buffer type>,...
                                                override tensor buffer type
        """)
    entries = _help_entries(text)
    assert set(entries) == {"-h", "--help", "--usage", "-fa", "--flash-attn", "-ot", "--override-tensor"}
    assert "LLAMA_ARG_FLASH_ATTN" in entries["-fa"]


def test_start_serve_and_stop(info, tiny_model, tmp_path):
    log = tmp_path / "server.log"
    with LlamaServer(info, tiny_model, settings(), log, alias="lifecycle") as server:
        pid = server.pid
        assert server.health() == 200 and 0 < server.load_seconds < 30
        report = server.load_report
        assert report.model_layers == 4 and report.load_mode == "mmap"
        assert [b.device for b in report.buffers] == ["CPU_Mapped"] and report.buffers[0].reported_mib > 2
        client = Client(server.port, 30)
        prompt = synthetic_prompt(client.tokenize(SYNTHETIC_TEXT), 100)
        done = client.complete(prompt.tokens, 8, seed=1)
        client.close()
        assert (done.prompt_n, done.predicted_n) == (100, 8)
        assert done.decode_tokens_per_second == pytest.approx(7 / done.predicted_ms * 1000)
        assert done.response_seconds > done.first_token_seconds > 0
    assert not server.alive() and wait_gone(pid)
    assert "model buffer size" in log.read_text()


def test_a_wrapper_that_forks_the_server_is_ended_with_it(info, llama_server_binary, tiny_model, tmp_path):
    # a `binary` that runs llama-server as its child instead of exec'ing it: the listener is
    # the wrapper's child, and stopping must end it too, not only the wrapper
    wrapper = tmp_path / "llama-server-wrapper"
    wrapper.write_text(f'#!/bin/sh\n"{llama_server_binary}" "$@"\necho wrapper done\n')
    wrapper.chmod(0o755)
    wrapped = replace(inspect_binary(wrapper), path=wrapper)
    spawned: list[int] = []
    server = LlamaServer(wrapped, tiny_model, settings(), tmp_path / "server.log")
    server.start(on_spawn=spawned.append)
    try:
        assert server.health() == 200
        children = psutil.Process(server.pid).children(recursive=True)
        listener = [c.pid for c in children if any(k.laddr.port == server.port for k in c.net_connections(kind="tcp"))]
        assert len(listener) == 1 and listener[0] != server.pid
        # what is sampled from readiness on is the server, not the shell that started it
        assert spawned == [server.pid, listener[0]] and server.server_pid == listener[0]
    finally:
        server.stop()
    assert not server.alive() and wait_gone(listener[0]), "the forked server outlived stop()"
    server.stop()  # idempotent: nothing left to signal


def test_a_model_that_does_not_load_fails_with_the_log_tail(info, tmp_path):
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"GGUF but not really" * 10)
    server = LlamaServer(info, bad, settings(), tmp_path / "server.log", load_timeout_s=30)
    with pytest.raises(ServerError) as err:
        server.start()
    assert "before it became healthy" in err.value.reason
    assert err.value.log_tail.strip()
    assert not server.alive()


def test_a_load_timeout_stops_the_server(info, tiny_model, tmp_path):
    server = LlamaServer(info, tiny_model, settings(), tmp_path / "server.log", load_timeout_s=0.001)
    with pytest.raises(ServerError, match=r"not healthy after 0.001 s"):
        server.start()
    assert server.pid is not None and wait_gone(server.pid)


def test_an_exception_inside_the_with_block_stops_the_server(info, tiny_model, tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with LlamaServer(info, tiny_model, settings(), tmp_path / "server.log") as server:
            pid = server.pid
            raise KeyboardInterrupt
    assert wait_gone(pid)


def test_no_orphan_when_the_collector_is_killed(info, tiny_model, tmp_path):
    """SIGKILL leaves no finally/atexit to run: the kernel's parent-death signal stops the server."""
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from collector.modules.llama_server.server import LlamaServer, ServerSettings, inspect_binary
        server = LlamaServer(inspect_binary(Path({str(info.path)!r})), Path({str(tiny_model)!r}),
                             ServerSettings(context_tokens=256, threads=1), Path({str(tmp_path / 'server.log')!r}))
        server.start()
        print(server.pid, flush=True)
        time.sleep(60)
        """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    try:
        pid = int(parent.stdout.readline())
        assert psutil.pid_exists(pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert wait_gone(pid), f"llama-server {pid} outlived its killed parent"
    finally:
        parent.kill()
        parent.wait()


def test_no_orphan_after_ctrl_c_of_the_collector(info, tiny_model, tmp_path):
    # Ctrl-C as a terminal delivers it: a suite started in the background (`make test &`, some
    # CI runners) hands its children SIGINT ignored, and Python then never raises
    # KeyboardInterrupt, so the collector here restores the default handler first
    script = textwrap.dedent(f"""
        import signal, time
        from pathlib import Path
        from collector.modules.llama_server.server import LlamaServer, ServerSettings, inspect_binary
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with LlamaServer(inspect_binary(Path({str(info.path)!r})), Path({str(tiny_model)!r}),
                         ServerSettings(context_tokens=256, threads=1), Path({str(tmp_path / 'server.log')!r})) as server:
            print(server.pid, flush=True)
            time.sleep(60)
        """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        pid = int(parent.stdout.readline())
        parent.send_signal(signal.SIGINT)
        assert parent.wait(timeout=15) != 0
        assert wait_gone(pid)
    finally:
        parent.kill()
        parent.wait()


def test_load_log_parsing_of_gpu_lines():
    text = textwrap.dedent("""\
        print_info: n_layer               = 80
        load_tensors: loading model tensors, this can take a while... (load_mode = mmap)
        load_tensors: offloading 40 repeating layers to GPU
        load_tensors: offloaded 40/81 layers to GPU
        load_tensors:   CPU_Mapped model buffer size =  3796.51 MiB
        load_tensors:        CUDA0 model buffer size = 20662.52 MiB
        """)
    report = parse_load_log(text)
    assert (report.offloaded_layers, report.total_layers, report.model_layers) == (40, 81, 80)
    assert [(b.device, b.reported_mib) for b in report.buffers] == [("CPU_Mapped", 3796.51), ("CUDA0", 20662.52)]
