"""`--ray ADDRESS` where nothing answers: refused at once, with the system's reason, instead of
Ray trying the address for about a minute. Real sockets on 127.0.0.1; no cluster needed."""

from __future__ import annotations

import re
import socket

import pytest

from benchledger.errors import CollectError
from collector.dispatch.ray_runner import connect, unreachable

pytest.importorskip("ray", reason="needs benchledger[ray] (make test installs it)")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once the socket is closed


def test_an_address_nothing_answers_at_is_refused_naming_why():
    port = closed_port()
    with pytest.raises(CollectError) as err:
        connect(f"127.0.0.1:{port}")
    assert str(err.value) == (f"--ray 127.0.0.1:{port}: cannot connect to a Ray cluster (Connection refused); "
                              "start one with `ray start --head` (see README) or pass its address")


def test_an_address_that_answers_and_auto_are_left_to_ray():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert unreachable(f"127.0.0.1:{port}") is None
        assert unreachable(f"ray://127.0.0.1:{port}") is None
    assert unreachable("auto") is None
    assert unreachable(f"ray://127.0.0.1:{closed_port()}") == "Connection refused"


def test_auto_is_checked_at_the_address_ray_finds_for_it(monkeypatch):
    """`--ray auto` skipped the check, and Ray tried an address it detected but could not reach
    for minutes (here $RAY_ADDRESS, the first place Ray looks)."""
    port = closed_port()
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    with pytest.raises(CollectError) as err:
        connect("auto")
    # (Ray writes 127.0.0.1 as this host's address)
    assert re.fullmatch(rf"--ray auto: cannot connect to a Ray cluster at [0-9.]+:{port}, as found by Ray \(Connection refused\); "
                        r"start one with `ray start --head` \(see README\) or pass its address", str(err.value)), str(err.value)
