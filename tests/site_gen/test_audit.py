"""`benchledger verify --site`: a built site holds; an altered served record, a page stating a
hash the ledger does not seal, an edited ledger or SHA256SUMS are each reported."""

from __future__ import annotations

import shutil

import pytest

from benchledger.cli.main import main
from site_gen.audit import verify_site

from tests.site_gen.site_support import build


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("audit")).out_dir


@pytest.fixture()
def site(built, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(built, copy)
    return copy


def test_built_site_verifies(site, capsys):
    assert verify_site(site) == []
    assert main(["verify", "--site", str(site)]) == 0
    assert "every page's stated hashes match" in capsys.readouterr().out


def test_altered_served_record_is_reported(site, capsys):
    target = site / "records" / "torch-graph-replay" / "2026-10-28.json"
    target.write_bytes(target.read_bytes() + b" ")
    problems = verify_site(site)
    assert len(problems) == 1 and "altered" in problems[0].message
    assert main(["verify", "--site", str(site)]) == 1
    assert "torch-graph-replay/2026-10-28.json: altered" in capsys.readouterr().err


def test_page_stating_an_unsealed_hash_is_reported(site):
    page = site / "articles" / "llm-cpu-offload" / "2026-09-27.html"
    text = page.read_text(encoding="utf-8")
    sha = "ebcfc483a547a02e0f9e7e00a6c699af613474daff04624c2863ae89c6af96a1"
    page.write_text(text.replace(f'data-sha256="{sha}"', f'data-sha256="{"f" * 64}"', 1), encoding="utf-8")
    problems = verify_site(site)
    assert [p.file for p in problems] == ["articles/llm-cpu-offload/2026-09-27.html"]


def test_edited_ledger_and_sums_are_reported(site):
    ledger = site / "records" / "ledger.jsonl"
    ledger.write_bytes(ledger.read_bytes().replace(b'"size_bytes":68844', b'"size_bytes":68845'))
    (site / "records" / "SHA256SUMS").write_text("", encoding="utf-8")
    messages = " | ".join(str(p) for p in verify_site(site))
    assert "ledger.jsonl" in messages and "SHA256SUMS" in messages


# Issue 11, class 7: `verify --site` is an audit, not a hash listing.

OFFLOAD = "articles/llm-cpu-offload/2026-09-27.html"


def test_an_edited_displayed_number_is_reported(site, capsys):
    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    assert ">25.8\u202ftokens/s</span>" in html
    page.write_text(html.replace(">25.8\u202ftokens/s</span>", ">99.9\u202ftokens/s</span>", 1), encoding="utf-8")
    problems = verify_site(site)
    assert len(problems) == 1, problems
    assert problems[0].file == OFFLOAD and 'shows "99.9 tokens/s"' in problems[0].message
    assert '("25.8 tokens/s" under the formatting rule)' in problems[0].message
    assert main(["verify", "--site", str(site)]) == 1


def test_an_injected_external_script_is_reported(site):
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace("</head>", '<script src="https://evil.example/beacon.js"></script></head>', 1), encoding="utf-8")
    (site / "assets" / "extra.css").write_text("body { background: url(https://evil.example/p.png) }")
    messages = [p.message for p in verify_site(site)]
    assert "loads https://evil.example/beacon.js from outside the site (<script>)" in messages
    assert "loads https://evil.example/p.png from outside the site (CSS)" in messages


def test_expect_head_and_json_are_honoured_with_site(site, capsys):
    import json

    assert main(["verify", "--site", str(site), "--expect-head", "0" * 64]) == 1
    assert "was expected" in capsys.readouterr().err
    head = (site / "records" / "ledger.jsonl").read_bytes().rstrip(b"\n").split(b"\n")[-1]
    import hashlib

    assert main(["verify", "--site", str(site), "--expect-head", hashlib.sha256(head).hexdigest()]) == 0
    capsys.readouterr()
    assert main(["verify", "--site", str(site), "--json", "--expect-head", "0" * 64]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and any("was expected" in p["message"] for p in report["problems"])


def test_a_missing_site_folder_is_named_as_such(tmp_path):
    problems = verify_site(tmp_path / "nope")
    assert len(problems) == 1 and "no such site folder" in problems[0].message and "ledger.jsonl" not in problems[0].file
