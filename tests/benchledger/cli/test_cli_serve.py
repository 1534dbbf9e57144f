"""`benchledger serve` refuses a port outside 0-65535 before it builds anything."""

from __future__ import annotations

import pytest

from benchledger.cli.main import main


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_bad_port_is_one_usage_error_not_a_traceback(port, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--records", str(tmp_path / "absent"), "--out", str(tmp_path / "site"), f"--port={port}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"invalid port value: '{port}'" in err and "Traceback" not in err
    assert not (tmp_path / "site").exists()


def test_a_port_in_use_is_reported_before_anything_is_built(tmp_path, capsys):
    """Issue 11, class 9: serve built into --out before finding the port taken."""
    import socket

    from tests.store_copies import shipped_copy

    records = shipped_copy(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--records", str(records), "--out", str(tmp_path / "site"), f"--port={port}"])
    assert code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_get_of_a_nul_path_is_a_400_not_a_traceback(tmp_path):
    """Issue 11, class 9: `GET /%00` printed a traceback; the preview's handler answers 400."""
    import os
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    from tests.store_copies import shipped_copy

    records = shipped_copy(tmp_path)
    env = {**os.environ, "BENCHLEDGER_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "benchledger", "serve", "--records", str(records), "--out", str(tmp_path / "site"),
                             "--port=0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    try:
        line = ""
        deadline = time.monotonic() + 240
        while "serving" not in line and time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
        assert "serving" in line, proc.stderr.read() if proc.poll() is not None else "no 'serving' line"
        base = line.split(" on ", 1)[1].split(" ", 1)[0]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "%00", timeout=10)
        assert err.value.code == 400
        assert urllib.request.urlopen(base + "index.html", timeout=10).status == 200
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=30)
    assert "Traceback" not in stderr


def test_serve_rebuilds_when_an_article_changes_and_keeps_the_last_good_site_on_a_bad_one(tmp_path):
    """A writer saves an article and reloads the preview: the page is there. An article with a
    broken citation is reported on stderr, and the preview goes on serving the last good build."""
    import os
    import queue
    import subprocess
    import sys
    import threading
    import urllib.error
    import urllib.request

    from tests.site_gen.authored_support import OFFLOAD, copy_project, write_article

    records, articles = copy_project(tmp_path)
    env = {**os.environ, "BENCHLEDGER_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "benchledger", "serve", "--records", str(records), "--out", str(tmp_path / "site"),
                             "--port=0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env, cwd=tmp_path)
    lines: queue.Queue = queue.Queue()  # (stream name, line) from both pipes, as they come
    for name, stream in (("out", proc.stdout), ("err", proc.stderr)):
        threading.Thread(target=lambda n=name, s=stream: [lines.put((n, line)) for line in s], daemon=True).start()

    def next_line(wanted: str, stream: str) -> str:
        while True:
            try:
                name, line = lines.get(timeout=240)
            except queue.Empty:
                raise AssertionError(f"no {wanted!r} line (exit status {proc.poll()})") from None
            if wanted in line:
                assert name == stream, (name, line)
                return line

    try:
        base = next_line("serving", "out").split(" on ", 1)[1].split(" ", 1)[0]
        page = base + "posts/fresh-notes.html"
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(page, timeout=10)
        cite = '{{ cite("r", "/cases/0/groups/0/server_decode_tokens_per_second/median", unit="tokens/s") }}'
        write_article(articles, "fresh-notes", f"Decode ran at {cite}.\n", {"r": OFFLOAD})
        assert "fresh-notes.md" in next_line("rebuilt", "out")
        served = urllib.request.urlopen(page, timeout=10).read().decode()
        assert "Decode ran at" in served and "25.8" in served
        write_article(articles, "fresh-notes", 'Now {{ cite("r", "/cases/0/no_such_field") }}.\n', {"r": OFFLOAD})
        assert "fresh-notes.md" in next_line("rebuild failed", "err")
        next_line("still serving the last good build", "err")
        assert "Decode ran at" in urllib.request.urlopen(page, timeout=10).read().decode()
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_an_article_saved_before_the_watcher_first_looks_is_built(tmp_path, monkeypatch):
    """The watcher compares the inputs with those the served build read. It used to take its
    own first look after that build, on its thread: an article saved in between was taken in
    unbuilt, and the preview never showed it (CI saw the test above wait in vain for its
    rebuild once)."""
    import threading
    import time

    from benchledger.cli.commands.serve import rebuild_on_change, snapshot, watched_paths
    from benchledger.cli.main import make_parser
    from tests.site_gen.authored_support import OFFLOAD, copy_project, write_article

    records, articles = copy_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BENCHLEDGER_CACHE_DIR", str(tmp_path / "cache"))
    args = make_parser().parse_args(["serve", "--records", str(records), "--out", str(tmp_path / "site"), "--port=0"])
    inputs = snapshot(watched_paths(args))  # as the served build found them
    write_article(articles, "saved-early", "Saved while the first build ran.\n", {"r": OFFLOAD})
    stop = threading.Event()
    watcher = threading.Thread(target=rebuild_on_change, args=(args, stop, inputs), daemon=True)
    watcher.start()
    page = tmp_path / "site" / "posts" / "saved-early.html"
    try:
        deadline = time.monotonic() + 180
        while not page.exists() and watcher.is_alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert page.exists() and "Saved while the first build ran." in page.read_text(encoding="utf-8")
    finally:
        stop.set()
        watcher.join(timeout=240)


def test_no_watch_builds_once_and_says_so(tmp_path):
    """With --no-watch the preview is one build: the serving line promises no rebuild, and an
    article saved with a broken citation (which a watching server reports within seconds, see
    the test above) changes nothing: no rebuild, no message, the same pages."""
    import os
    import subprocess
    import sys
    import time

    from tests.site_gen.authored_support import OFFLOAD, copy_project, write_article
    from tests.store_copies import tree_digest

    records, articles = copy_project(tmp_path)
    env = {**os.environ, "BENCHLEDGER_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "benchledger", "serve", "--records", str(records),
                             "--out", str(tmp_path / "site"), "--port=0", "--no-watch"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env, cwd=tmp_path)
    try:
        line = ""
        while "serving" not in line and proc.poll() is None:
            line = proc.stdout.readline()
        assert line.rstrip().endswith("(Ctrl-C stops)"), line
        site = tree_digest(tmp_path / "site")
        write_article(articles, "fresh-notes", 'Now {{ cite("r", "/cases/0/no_such_field") }}.\n', {"r": OFFLOAD})
        time.sleep(12)  # a watching server polls each second and fails this build in a few
        assert proc.poll() is None and tree_digest(tmp_path / "site") == site
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert "rebuil" not in out + err, (out, err)
