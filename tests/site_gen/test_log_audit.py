"""`benchledger verify --site` on the transparency log of a real built site (and of one served
over http by `benchledger serve`): the honest site passes, with a pinned key and a kept
checkpoint too; forged histories fail, each naming its step."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchledger.cli.main import main
from tests.forgeries import (demo_key, edit_line_rechained, forged_store, remove_line_rechained, republish_proofs)
from tests.site_gen.site_support import build
from tests.store_copies import SHIPPED

KEPT = SHIPPED / "checkpoints" / "2"  # the shipped store's checkpoint, as an auditor kept it


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("honest")).out_dir


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> Path:
    """A whole site built from a rewritten history, re-signed with the forger's key."""
    tmp = tmp_path_factory.mktemp("rewritten")
    records, _ = forged_store(tmp)
    return build(tmp, records).out_dir


@pytest.fixture
def site(honest, tmp_path) -> Path:
    return Path(shutil.copytree(honest, tmp_path / "site"))


def verify(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["verify", *args])
    return code, capsys.readouterr().err.splitlines()


def test_the_honest_site_passes_with_a_pinned_key_and_a_kept_checkpoint(site, capsys):
    assert main(["verify", "--site", str(site), "--vkey", demo_key().verifier.text, "--checkpoint", str(KEPT)]) == 0
    said = capsys.readouterr()
    assert said.err == "" and said.out.startswith(f"{site}: every file matches the site's SHA256SUMS and none is added, ")
    assert said.out.endswith(", and the signed log holds for 2 of the ledger's 2 entries\n"), said.out
    for rel in ("ledger/checkpoint", "ledger/vkey", "ledger/checkpoints/2"):
        assert (site / rel).is_file()
    assert (site / "ledger/checkpoint").read_bytes() == KEPT.read_bytes()


def test_a_line_edited_and_rechained_fails_the_root_and_inclusion_steps(site, capsys):
    edit_line_rechained(site / "records" / "ledger.jsonl")
    republish_proofs(site)
    code, err = verify(capsys, "--site", str(site))
    assert code == 1
    assert any(e.startswith(f"benchledger verify: error: {site}/ledger/checkpoint: root: signs root ") for e in err)
    assert any(e.startswith(f"benchledger verify: error: {site}/ledger/inclusion/") and ": inclusion: the proof does not lead" in e for e in err)


def test_a_line_removed_and_rechained_fails_the_root_and_inclusion_steps(site, capsys):
    removed = remove_line_rechained(site / "records" / "ledger.jsonl")
    republish_proofs(site)
    code, err = verify(capsys, "--site", str(site))
    assert code == 1
    assert (f"benchledger verify: error: {site}/ledger/checkpoint: root: signs a tree of 2 entries but "
            f"{site}/records/ledger.jsonl has only 1: entries were removed from the ledger") in err
    assert any(": inclusion: proves into a tree of size 1, the latest checkpoint signs 2" in e for e in err)
    assert removed == "llm-cpu-offload/2026-09-27.json"


def test_a_history_rewritten_and_resigned_fails_against_a_pinned_key_or_a_kept_checkpoint(rewritten, capsys):
    # On its own the forged site holds together: its key signed its own history.
    assert verify(capsys, "--site", str(rewritten)) == (0, [])
    code, err = verify(capsys, "--site", str(rewritten), "--vkey", demo_key().verifier.text)
    assert code == 1 and err[0].startswith(f"benchledger verify: error: {rewritten}/ledger/checkpoint: pinned: not signed by the key you pinned")
    code, err = verify(capsys, "--site", str(rewritten), "--checkpoint", str(KEPT))
    assert code == 1
    assert err[0] == (f"benchledger verify: error: {KEPT}: signature: the checkpoint you kept is not signed by the site's key or a "
                      "pinned one (signature lines name demo.benchledger.invalid/DEMONSTRATION-KEY-NOT-SECRET): the site's key changed")
    assert err[1].startswith(f"benchledger verify: error: {rewritten}/ledger/checkpoint: consistency: ")
    assert "history was rewritten" in err[1]


def test_a_checkpoint_replaced_by_one_of_a_rewritten_history_fails(site, rewritten, capsys):
    shutil.copy(rewritten / "ledger" / "checkpoint", site / "ledger" / "checkpoint")
    code, err = verify(capsys, "--site", str(site))
    steps = {e.split(": ")[3] for e in err[:-1]}
    assert code == 1 and {"signature", "root", "inclusion"} <= steps


def test_the_summary_says_how_much_of_the_ledger_the_log_signs_and_whether_its_key_was_pinned(tmp_path, capsys):
    """An auditor read 'the signed log holds' for a checkpoint that signed 2 of 9 entries, the
    other 7 open to a rewrite, and with the key the site itself serves."""
    from benchledger.records.store import Store
    from tests.store_copies import shipped_copy
    from tests.variants import encoded, graph_variant

    records = shipped_copy(tmp_path)
    Store(records).seal_bytes(encoded(graph_variant(device="NVIDIA H200", eager_factor=0.5, graph_factor=0.45, finished_offset_s=86400)),
                              "torch-graph-replay/1", "tgr/h200.json")
    site = build(tmp_path, records).out_dir
    assert main(["verify", "--site", str(site)]) == 0
    said = capsys.readouterr().out
    assert said.endswith(", and the signed log holds for 2 of the ledger's 3 entries (1 sealed after its latest checkpoint are in no "
                         "signed tree); it is signed with the key the site serves: pass --vkey with the publisher's key to pin it\n"), said
    assert main(["verify", "--site", str(site), "--json"]) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    assert report["signed_log"] == {"signed_entries": 2, "ledger_entries": 3, "key_pinned": False}
    assert report["steps"] == ["every_file", "served_records", "sums", "stated_hashes", "head", "displayed_numbers",
                               "derived_numbers", "displayed_text", "limitations", "summaries", "explorer_data", "chart_data", "series_pages",
                               "change_listings", "links", "no_external_loads", "site_log"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_verify_site_over_http_against_benchledger_serve(tmp_path, rewritten, capsys):
    """The deployed case: `benchledger serve` on 127.0.0.1, audited by URL."""
    records = Path(shutil.copytree(SHIPPED, tmp_path / "records"))
    port = _free_port()
    server = subprocess.Popen([str(Path(sys.executable).parent / "benchledger"), "serve", "--records", str(records),
                               "--out", str(tmp_path / "served"), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "benchledger serve did not start"
                time.sleep(0.5)
        assert main(["verify", "--site", url, "--vkey", demo_key().verifier.text, "--checkpoint", str(KEPT)]) == 0
        said = capsys.readouterr()
        # over http only the listed files are fetched: an added one cannot be seen, and the line says so
        assert said.err == "" and said.out.startswith(f"{url}: every file SHA256SUMS lists matches it (over http, a file it "
                                                      "does not list cannot be seen), "), said.out
        # Replace the served checkpoint with the rewritten history's: named over http too.
        shutil.copy(rewritten / "ledger" / "checkpoint", tmp_path / "served" / "ledger" / "checkpoint")
        code, err = verify(capsys, "--site", url, "--checkpoint", str(KEPT))
        assert code == 1
        assert any(e.startswith(f"benchledger verify: error: {url}ledger/checkpoint: signature: not signed by the site's key") for e in err)
        assert any(e.startswith(f"benchledger verify: error: {url}ledger/checkpoint: consistency: ") for e in err)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_transparency_page_gives_the_checkpoints_base64_root_in_hex_too(honest):
    """The note writes the root hash in base64 (C2SP), the table and articles in hex: the page
    says they are one hash, and the hex it gives is the base64's."""
    import base64
    import re

    page = (honest / "transparency.html").read_text(encoding="utf-8")
    note = re.search(r'<pre class="bl-checkpoint"><code>([^<]*)</code></pre>', page).group(1)
    root_b64 = note.split("\n")[2]
    lines = re.search(r'<p class="bl-checkpoint-lines">(.*?)</p>', page, re.S).group(1)
    assert f'<code class="bl-hash">{base64.b64decode(root_b64).hex()}</code> in hex' in lines
    assert "<th>root hash (hex)</th>" in page and f"<code>{base64.b64decode(root_b64).hex()}</code>" in page
