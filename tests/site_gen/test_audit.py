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
