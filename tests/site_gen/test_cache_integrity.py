"""Issue 11, class 8: caches cannot change results. A cache entry counts only with its HMAC under
this user's secret (benchledger.records.cache_mac); a forged or edited entry is a miss and the
value is computed again, so a forged validation pass, an edited rendering or an edited Vega
bundle never reaches `verify` or the site."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from benchledger.errors import BuildError

from benchledger.records.ledger import new_entry
from benchledger.records.store import Store
from benchledger.records.validation_cache import ValidationCache
from site_gen.build import build_site
from tests.store_copies import TGR, shipped_copy

OFFLOAD_PAGE = "articles/llm-cpu-offload/2026-09-27.html"


def test_a_forged_ledger_entry_plus_an_appended_pass_line_does_not_pass_verify(tmp_path):
    records = shipped_copy(tmp_path)
    cache = ValidationCache(tmp_path / "cache")
    store = Store(records, cache)
    assert store.verify().ok
    bad = json.dumps({"not": "a torch-graph-replay record"}).encode()
    (records / "forged.json").write_bytes(bad)
    sha = hashlib.sha256(bad).hexdigest()
    _, line = new_entry(store.entries(), "forged.json", sha, len(bad), TGR)
    with open(records / "ledger.jsonl", "ab") as out:
        out.write(line + b"\n")
    key = ValidationCache.key(sha, TGR)
    with open(tmp_path / "cache" / "validation-passes.txt", "a") as out:  # bare, and with a made-up MAC
        out.write(f"{key}\n{key} {'0' * 64}\n")
    report = Store(records, ValidationCache(tmp_path / "cache")).verify()
    assert not report.ok
    assert [r.status for r in report.records if r.path == "forged.json"] == ["invalid"]


def test_edited_renderings_and_an_edited_vega_bundle_never_reach_the_site(tmp_path):
    records = shipped_copy(tmp_path)
    cache = tmp_path / "cache"
    first = build_site(records, tmp_path / "site", cache_dir=cache)
    page = (first.out_dir / OFFLOAD_PAGE).read_text(encoding="utf-8")
    assert ">25.8\u202ftokens/s<" in page
    edited = edited_blobs = 0
    for value in (cache / "render").rglob("*"):  # MAC-sealed values and hash-named blobs (page Markdown)
        raw = value.read_bytes() if value.is_file() else b""
        if b"25.8\\u202ftokens/s" in raw or "25.8\u202ftokens/s".encode() in raw:
            value.write_bytes(raw.replace(b"25.8", b"99.9"))
            edited += 1
            edited_blobs += value.parent.name == "blobs"
    assert edited_blobs  # the article's own Markdown was among them
    bundles = list((cache / "charts").glob("vega-bundle-*.js"))
    assert edited and bundles
    for bundle in bundles:
        bundle.write_bytes(bundle.read_bytes() + b"\nnew Image().src='https://evil.example/beacon';\n")
    second = build_site(records, tmp_path / "site", cache_dir=cache)
    page = (second.out_dir / OFFLOAD_PAGE).read_text(encoding="utf-8")
    assert ">25.8\u202ftokens/s<" in page and ">99.9\u202ftokens/s<" not in page
    served = b"".join(p.read_bytes() for p in (second.out_dir / "assets").rglob("vega-bundle*.js"))
    assert served and b"evil.example" not in served
    # and the entries were re-written with a valid MAC: the next build reuses them
    assert b"evil.example" not in b"".join(p.read_bytes() for p in bundles)


# Issue 11, keep going: a cache folder damaged or planted with links.


def test_a_garbled_pass_file_is_a_miss_not_a_type_error(tmp_path):
    """Non-ASCII bytes in validation-passes.txt made hmac.compare_digest raise TypeError."""
    records = shipped_copy(tmp_path)
    assert Store(records, ValidationCache(tmp_path / "cache")).verify().ok
    passes = tmp_path / "cache" / "validation-passes.txt"
    key = passes.read_text().split()[0]
    passes.write_bytes(passes.read_bytes() + f"{key} \u00e9\u00e9\n".encode() + bytes(range(256)) + b"\n")
    report = Store(records, ValidationCache(tmp_path / "cache")).verify()
    assert report.ok and [r.status for r in report.records] == ["ok", "ok"]


def test_a_link_planted_in_the_generated_docs_is_removed_not_written_through(tmp_path):
    """A folder link in the cache's MkDocs tree took the build's writes to wherever it pointed,
    and MkDocs published what that folder held."""
    records = shipped_copy(tmp_path)
    first = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    before = {p.relative_to(first.out_dir).as_posix() for p in first.out_dir.rglob("*") if p.is_file()}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the build's")
    assets = first.docs_dir / "assets"
    shutil.rmtree(assets)
    assets.symlink_to(elsewhere, target_is_directory=True)
    (first.docs_dir / "page.md").symlink_to(elsewhere / "keep.txt")
    again = build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert [p.name for p in elsewhere.iterdir()] == ["keep.txt"] and (elsewhere / "keep.txt").read_text() == "not the build's"
    after = {p.relative_to(again.out_dir).as_posix() for p in again.out_dir.rglob("*") if p.is_file()}
    assert after == before and not assets.is_symlink()


def test_something_the_build_did_not_write_in_the_cache_is_named_with_what_to_do(tmp_path):
    records = shipped_copy(tmp_path)
    build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    shutil.rmtree(tmp_path / "cache" / "charts")
    (tmp_path / "cache" / "charts").write_text("a file where the chart cache goes")
    with pytest.raises(BuildError) as err:
        build_site(records, tmp_path / "site", cache_dir=tmp_path / "cache")
    assert str(err.value).endswith("holds something the build did not write there: remove that folder, or build with --no-cache")
    assert f"the cache {tmp_path / 'cache'} " in str(err.value)


def test_a_secret_file_cut_short_is_replaced_once_and_then_shared(tmp_path):
    """A process killed between creating the cache secret and writing it left a short file: every
    later process then drew a secret of its own, no cache entry ever held, and the validation
    cache grew by a full copy on every verify."""
    import os
    import subprocess
    import sys

    secret = tmp_path / "cache-secret"
    secret.write_bytes(b"torn")
    secret.chmod(0o600)
    code = "from benchledger.records import cache_mac; print(cache_mac.mac(b'x'))"
    env = {**os.environ, "BENCHLEDGER_CACHE_SECRET": str(secret)}
    macs = {subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
            for _ in range(3)}
    assert len(macs) == 1  # one secret for every process again
    assert len(secret.read_bytes()) == 32 and oct(secret.stat().st_mode & 0o777) == "0o600"
    assert not [p for p in tmp_path.iterdir() if p.name != "cache-secret"]  # no temp file left
