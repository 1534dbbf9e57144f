"""`{{ change(...) }}` in an authored article: the claim rendered as on its series page, with
its provenance on hover; when new records arrive and the history no longer supports it, the
build fails and says what the history says now."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from benchledger.errors import ProblemsError
from benchledger.records.store import Store
from tests.history import llm_release
from tests.site_gen.authored_support import build_pages, write_article

CITE = 'Decode got slower: {{ change("dropped", "decode_tokens_per_s", point={"context_tokens": 2048}, case="offload-72b-full") }}.\n'


def _records(count: int) -> list[dict]:
    """Summary-only LLM records along releases; the third one's full-offload decode 12% lower."""
    rng = random.Random(15)
    return [llm_release(f"b{11146 + i}", index=i, decode={"offload-72b-full": 0.88 if i == 2 else 1.0}, noise=0.01,
                        rng=rng, raw=False) for i in range(count)]


def _store(tmp: Path, records: list[dict]) -> tuple[Path, list[str]]:
    path = tmp / "records"
    path.mkdir(exist_ok=True)
    store = Store(path)
    known = {e.path for e in store.entries()} if store.ledger_path.exists() else set()
    for data in records:
        rel = f"history/{data['runtime']['release']}.json"
        if rel not in known:
            store.seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1", rel)
    return path, [e.sha256 for e in store.entries()]


def test_a_cited_change_renders_with_its_provenance(tmp_path):
    records, hashes = _store(tmp_path, _records(3))
    articles = tmp_path / "articles"
    articles.mkdir()
    write_article(articles, "slower", CITE, {"dropped": hashes[2][:12]})
    page = build_pages(records, articles)["posts/slower.md"].markdown
    [claim] = re.findall(r'<span class="bl-claim bl-claim-changed bl-claim-worse"[^>]*>[^<]*</span>', page)
    assert re.search(r">−1\d\.\d%, changed, worse</span>", claim)  # summaries: no interval
    assert f'data-records="{hashes[1]} {hashes[2]}"' in claim
    assert "statistic (rank-summary)" in claim and "exact rank" not in claim.split("title=")[0]
    assert "ranges disjoint" in claim and "parameters: confidence 0.95" in claim
    assert re.search(r'<a class="bl-claim-link" href="\.\./series/[0-9a-f]{12}\.html#track-0">\(series\)</a>', page)


def test_when_new_records_no_longer_support_the_claim_the_build_fails(tmp_path):
    records, hashes = _store(tmp_path, _records(3))
    articles = tmp_path / "articles"
    articles.mkdir()
    path = write_article(articles, "slower", CITE, {"dropped": hashes[2][:12]})
    build_pages(records, articles)  # holds with three records
    records, _ = _store(tmp_path, _records(6))  # three more at the old level: the drop was one record
    with pytest.raises(ProblemsError) as caught:
        build_pages(records, articles)
    [line] = caught.value.lines()
    assert re.match(rf".*{path.parent.name}/slower\.md:10: change\(\): ", line)
    assert "change(): the claim no longer holds" in line and "no claim starts at that record now" in line
    assert "Update the article" in line


def test_a_wrong_verdict_says_what_the_history_says(tmp_path):
    records, hashes = _store(tmp_path, _records(3))
    articles = tmp_path / "articles"
    articles.mkdir()
    write_article(articles, "same", CITE.replace('case="offload-72b-full"', 'case="offload-72b-full", verdict="equivalent"'),
                  {"dropped": hashes[2][:12]})
    with pytest.raises(ProblemsError) as caught:
        build_pages(records, articles)
    [line] = caught.value.lines()
    assert "no 'equivalent' claim on decode_tokens_per_s" in line
    assert re.search(r"it now says: server decode \(median\) at context 2048 from b11148: −1\d\.\d%, changed, worse", line)


@pytest.mark.parametrize("call, message", [
    ('{{ change("dropped", "decode_tokens_per_s", case="offload-72b-full") }}', "name one with point=..."),
    ('{{ change("dropped", "decode_tokens_per_s", point={"context_tokens": 2048}) }}', "name one with case=..."),
    ('{{ change("dropped", "decode_tokens_per_s", point=[2048]) }}', "point must be a dict"),
    ('{{ change("dropped", "decode_tokens_per_s", verdict="maybe") }}', "verdict must be one of"),
    ('{{ change("nobody", "decode_tokens_per_s") }}', "'nobody' is not a record named in this article's front matter"),
])
def test_ambiguous_or_wrong_calls_are_refused(tmp_path, call, message):
    records, hashes = _store(tmp_path, _records(3))
    articles = tmp_path / "articles"
    articles.mkdir()
    write_article(articles, "bad", call + "\n", {"dropped": hashes[2][:12]})
    with pytest.raises(ProblemsError) as caught:
        build_pages(records, articles)
    assert message in caught.value.lines()[0]
