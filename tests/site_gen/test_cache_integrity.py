"""Issue 11, class 8: caches cannot change results. A cache entry counts only with its HMAC under
this user's secret (benchledger.records.cache_mac); a forged or edited entry is a miss and the
value is computed again, so a forged validation pass, an edited rendering or an edited Vega
bundle never reaches `verify` or the site."""

from __future__ import annotations

import hashlib
import json

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
    edited = 0
    for value in (cache / "render").rglob("*.json"):
        raw = value.read_bytes()
        if b"25.8\\u202ftokens/s" in raw or "25.8\u202ftokens/s".encode() in raw:
            value.write_bytes(raw.replace(b"25.8", b"99.9"))
            edited += 1
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
