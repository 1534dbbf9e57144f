"""`benchledger verify --site`: a built site holds; an altered served record, a page stating a
hash the ledger does not seal, an edited ledger or SHA256SUMS are each reported; with
`--redraw-charts`, a chart image edited in place too."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from benchledger.cli.main import main
from site_gen.audit import verify_site

from tests.pools import force_process_pool
from tests.site_gen.site_support import ROOT, build, chart_edited


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
    # the edit itself (against the site-wide SHA256SUMS), what the page now states, and the
    # headline it was made in, no longer its record's; all named as the site file they are (one
    # path for one file, whichever step found it)
    assert [p.file for p in problems] == [f"{site}/articles/llm-cpu-offload/2026-09-27.html"] * 3
    assert problems[0].message.startswith("altered: ") and "which the ledger does not seal" in problems[1].message
    assert problems[2].message.startswith("leads with ") and problems[2].message.endswith(": the page was edited")


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
    assert len(problems) == 3, problems  # the number was the headline's: its words are checked too
    assert problems[0].file == f"{site}/{OFFLOAD}" and problems[0].message.startswith("altered: ")
    assert problems[1].file == f"{site}/{OFFLOAD}" and 'shows "99.9 tokens/s"' in problems[1].message
    assert '("25.8 tokens/s" under the formatting rule)' in problems[1].message
    assert problems[2].message.startswith('leads with "Median server decode at a 2048\u2011token context: 99.9 tokens/s')
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


def test_a_file_or_another_schemes_address_is_not_called_a_missing_folder(tmp_path, capsys):
    """`verify --site benchledger.toml` and `--site ftp://x` both said "no such site folder", the
    second naming "ftp:/x"."""
    from benchledger.cli.main import main

    (tmp_path / "benchledger.toml").write_text("")
    for given, said in ((str(tmp_path / "benchledger.toml"), "a file, not a site folder"),
                        ("ftp://example.org/site/", "ftp:// addresses are not fetched (only http:// and https://)")):
        assert main(["verify", "--site", given]) == 1
        assert capsys.readouterr().err.splitlines() == [
            f"benchledger verify: error: {given}: {said}: give the folder `benchledger build --out` wrote, or an http(s) URL"]


# Issue 11, class 7: every file of the site against the site-wide SHA256SUMS.


def test_the_site_wide_list_covers_every_file_and_sha256sum_checks_it(site):
    from site_gen.checksums import SUMS_NAME, parse_sums

    listed, problems = parse_sums((site / SUMS_NAME).read_bytes(), SUMS_NAME)
    on_disk = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert problems == [] and sorted(listed) == sorted(set(on_disk) - {SUMS_NAME, ".benchledger-site"})
    assert list(listed) == sorted(listed, key=str.encode)  # byte order of the path: one order for every build
    assert {"index.html", "assets/benchledger.js", "records/ledger.jsonl", "sitemap.xml"} <= set(listed)
    assert any(p.startswith("pagefind/") for p in listed)  # written after MkDocs, still listed
    checked = subprocess.run(["sha256sum", "--check", "--strict", "--quiet", SUMS_NAME], cwd=site, capture_output=True, text=True)
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")


def test_an_edited_added_and_deleted_file_are_each_one_problem(site, capsys):
    css, js = site / "assets" / "benchledger.css", site / "assets" / "benchledger.js"
    css.write_bytes(css.read_bytes() + b"\nbody { display: none }\n")
    js.write_bytes(js.read_bytes().replace(b"function", b"function /*x*/", 1))
    (site / "assets" / "injected.js").write_text("document.title = 'pwned'")
    (site / "sitemap.xml").unlink()
    problems = verify_site(site)
    assert [(p.file, p.message.split(":")[0]) for p in problems] == [
        (f"{site}/assets/benchledger.css", "altered"),
        (f"{site}/assets/benchledger.js", "altered"),
        (f"{site}/sitemap.xml", "missing"),
        (f"{site}/assets/injected.js", "not in SHA256SUMS"),
    ]
    # the CLI reports them all at once, in text and in --json, with --expect-head honoured beside them
    assert main(["verify", "--site", str(site)]) == 1
    err = capsys.readouterr().err
    assert f"{site}/assets/injected.js: not in SHA256SUMS: the build did not make this file" in err
    assert "4 problem(s)" in err
    assert main(["verify", "--site", str(site), "--json", "--expect-head", "0" * 64]) == 1
    report = json.loads(capsys.readouterr().out)
    messages = [p["message"] for p in report["problems"]]
    assert [m.split(":")[0] for m in messages[:4]] == ["altered", "altered", "missing", "not in SHA256SUMS"]
    assert len(messages) == 5 and messages[4].endswith("was expected: entries were appended, removed or changed")


def test_a_missing_or_garbled_list_is_reported(site):
    from site_gen.checksums import SUMS_NAME

    sums = site / SUMS_NAME
    lines = sums.read_bytes().splitlines(keepends=True)
    sums.write_bytes(lines[0] + b"not a checksum line\n" + lines[0] + b"".join(lines[1:]))
    messages = [p.message for p in verify_site(site)]
    assert messages == ["line 2 is not a sha256, two spaces and a path (as sha256sum writes it)",
                        f"line 3 lists {lines[0].split()[1].decode()} a second time"]
    # a line with one space still names its file: the format is the problem, the file is not unlisted
    sums.write_bytes(lines[0].replace(b"  ", b" ", 1) + b"".join(lines[1:]))
    assert [str(p) for p in verify_site(site)] == [f"{sums}:1: line 1 is not a sha256, two spaces and a path (as sha256sum writes it)"]
    # a changed hash in the list: the page is named, and so is the list
    sums.write_bytes(lines[0][:63] + (b"0" if lines[0][63:64] != b"0" else b"1") + lines[0][64:] + b"".join(lines[1:]))
    (altered,) = verify_site(site)
    assert altered.message.startswith("altered: its sha256 is ") and altered.message.endswith(" (or that line of the list was changed)")
    assert len(altered.message.split(" lists ")[1].split()[0]) == 64  # the two differ in the last digit: shown in full
    sums.unlink()
    problems = verify_site(site)
    assert [p.file for p in problems] == [f"{site}/{SUMS_NAME}", f"{site}/audit.html"] and problems[0].message.startswith("missing: ")
    assert problems[1].message == f"links {SUMS_NAME!r}, which leads to no file of the site ({SUMS_NAME}): the link is dead"


def test_a_listed_path_outside_the_site_is_never_read(site, tmp_path):
    from site_gen.checksums import SUMS_NAME

    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    sums = site / SUMS_NAME
    sums.write_bytes(sums.read_bytes() + f"{'0' * 64}  ../outside.txt\n{'0' * 64}  {outside}\n".encode())
    problems = verify_site(site)
    assert [p.message.split(":")[0] for p in problems] == ["missing", "missing"]


def test_a_copy_over_http_is_bounded_and_a_listed_name_no_file_can_have_is_reported_missing(site, tmp_path):
    """Issue 11, keep going: a hostile server's SHA256SUMS listing `index.html/x` made the copy
    fail with a FileExistsError traceback; a copy had no bound on the bytes it wrote."""
    from benchledger.errors import InputError
    from site_gen.checksums import SUMS_NAME
    from site_gen.mirror import mirror_site
    from tests.site_gen.site_support import serve

    sums = site / SUMS_NAME
    sums.write_bytes(sums.read_bytes() + f"{'0' * 64}  index.html/x\n".encode())
    with serve(site) as url:
        copy = tmp_path / "copy"
        mirror_site(url, copy)
        problems = verify_site(copy)
        assert [(p.file, p.message.split(":")[0]) for p in problems] == [(f"{copy}/index.html/x", "missing")]
        with pytest.raises(InputError, match="more than 100000 bytes in all: not a benchledger site"):
            mirror_site(url, tmp_path / "small", max_total_bytes=100_000)


@pytest.mark.parametrize("url, reason", [("http://[::1", "Invalid IPv6 URL"), ("http://a:99999/", "Port out of range 0-65535"),
                                         ("http:///x", "no host")])
def test_a_site_url_that_names_no_host_is_refused_before_any_request(url, reason, capsys):
    assert main(["verify", "--site", url]) == 1
    assert capsys.readouterr().err.strip() == f"benchledger verify: error: {url}: not a URL a site can be read from: {reason}"


# What an audit of tampered copies got past `verify --site` (SHA256SUMS is unsigned, so each copy
# lists its edit again): loads from another host in forms the check did not read, and traced
# numbers edited in ways it did not see.
SPAN = ">25.8\u202ftokens/s</span>"
TAMPERED = {
    "base": ("</head>", '<base href="https://evil.example/"></head>', "from outside the site (<base>)"),
    "inline style": ("</body>", '<style>@import "https://evil.example/x.css";</style></body>', "from outside the site (<style>)"),
    "backslash src": ("</body>", '<script src="/\\evil.example/x.js"></script></body>', "from outside the site (<script>)"),
    "tab in scheme": ("</body>", '<script src="ht&#9;tps://evil.example/x.js"></script></body>', "from outside the site (<script>)"),
    "svg image": ("</body>", '<svg><image href="https://evil.example/x.png"/></svg></body>', "from outside the site (<image>)"),
    "srcdoc": ("</body>", '<iframe srcdoc="&lt;script src=https://evil.example/x.js&gt;&lt;/script&gt;"></iframe></body>',
               "from outside the site (<iframe>)"),
    "svg paint server": ("</body>", '<svg><rect width="9" height="9" fill="url(https://evil.example/p.svg#g)"/></svg></body>',
                         "loads https://evil.example/p.svg#g from outside the site (<rect>)"),
    "svg marker": ("</body>", '<svg><path d="M0 0" marker-end="u&#114;l(//evil.example/m.svg#k)"/></svg></body>',
                   "loads //evil.example/m.svg#k from outside the site (<path>)"),
    "chart data url": ('"data":{"name":"points"}', '"data":{"url":"https://evil.example/d.json"}', "from outside the site (<script>)"),
    "meta refresh": ("</head>", '<meta http-equiv="refresh" content="0;url=https://evil.example/"></head>', "from outside the site (<meta>)"),
    "fullwidth digits": (SPAN, ">\uff19\uff19.\uff19\u202ftokens/s</span>", "the page was edited"),
    "hidden nested span": (SPAN, '><span style="display:none">25.8</span>99.9\u202ftokens/s</span>', "the page was edited"),
    "uppercase hash": ('data-sha256="ebcfc483a547a02e0f9e7e00a6c699af613474daff04624c2863ae89c6af96a1"',
                       'data-sha256="EBCFC483A547A02E0F9E7E00A6C699AF613474DAFF04624C2863AE89C6AF96A1"', "which the ledger does not seal"),
}


@pytest.mark.parametrize("name", TAMPERED)
def test_a_tampered_copy_that_lists_its_edit_again_is_still_caught(site, name):
    from site_gen.checksums import site_sums

    old, new, expected = TAMPERED[name]
    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    assert old in html
    page.write_text(html.replace(old, new, 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p) for p in verify_site(site)]
    assert any(expected in m for m in messages), messages


def test_a_page_under_another_name_is_read_too(site):
    from site_gen.checksums import site_sums

    chart = next(site.rglob("*.svg"))  # a chart opened as a page of its own is a document too
    chart.write_text(chart.read_text(encoding="utf-8").replace("<rect ", '<rect clip-path="url(https://evil.example/c.svg#c)" ', 1),
                     encoding="utf-8")
    (site / "extra.htm").write_text('<script src="https://evil.example/x.js"></script>', encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p) for p in verify_site(site)]
    assert f"{site}/extra.htm: loads https://evil.example/x.js from outside the site (<script>)" in messages
    assert f"{chart.as_posix()}: loads https://evil.example/c.svg#c from outside the site (<rect>)" in messages


def test_pages_parsed_in_a_pool_of_workers_give_the_same_findings(site, monkeypatch):
    """Past a few hundred pages each worker parses its share (about 30 s on one CPU at 1,000
    articles); what they find must be what one process finds."""
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    old, new, _ = TAMPERED["svg paint server"]
    page.write_text(html.replace(old, new, 1).replace(SPAN, ">99.9\u202ftokens/s</span>", 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    alone = [str(p) for p in verify_site(site)]
    force_process_pool(monkeypatch)
    pooled = [str(p) for p in verify_site(site)]
    assert pooled == alone and any("evil.example" in m for m in alone) and any("the page was edited" in m for m in alone)


def test_a_served_record_edited_gives_the_same_findings_in_a_pool_of_workers(site, monkeypatch):
    """While the workers parse the pages, this process reads every served record's cases,
    limitations and series ahead of the steps (`SiteAudit._read_records`): a record not served
    intact must still be found as one process finds it, not stop the audit."""
    from site_gen.checksums import site_sums

    served = site / "records/llm-cpu-offload/2026-09-27.json"
    served.write_bytes(served.read_bytes().replace(b'"completed"', b'"Completed"', 1))
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    alone = [str(p) for p in verify_site(site)]
    force_process_pool(monkeypatch)
    assert [str(p) for p in verify_site(site)] == alone and any("2026-09-27.json" in m for m in alone)


# The hashes a reader is told to compare, in the page's words (an auditor changed each with
# SHA256SUMS listed again, and `verify --site` passed): each edit is one problem, naming the hash.
OFFLOAD_SHA = "ebcfc483a547a02e0f9e7e00a6c699af613474daff04624c2863ae89c6af96a1"
GRAPH_SHA = "24492206c24d2b9ed84f821d36e701636564c8365cc09ba52fb35703b9c4e2fe"


def _last_digit_changed(sha: str) -> str:
    return sha[:-1] + ("0" if sha[-1] != "0" else "1")


def _entry_sha(site, position: int) -> str:
    """The SHA-256 of a ledger line's bytes without its newline (the last line's: the head)."""
    import hashlib

    return hashlib.sha256((site / "records" / "ledger.jsonl").read_bytes().splitlines()[position]).hexdigest()


@pytest.mark.parametrize("where, before, message", [
    ("the audit block's full hash", f'<code class="bl-hash-full">{OFFLOAD_SHA}</code>',
     f"{OFFLOAD}: its audit block for {OFFLOAD_SHA[:12]} states sha256 {_last_digit_changed(OFFLOAD_SHA)}, which is not the record's"),
    ("the head's short hash title", f'<code class="bl-hash" title="{OFFLOAD_SHA}">',
     f"{OFFLOAD}: states sha256 {_last_digit_changed(OFFLOAD_SHA)} (shown as {OFFLOAD_SHA[:16]}), which the ledger does not hold"),
])
def test_a_changed_hash_in_an_article_is_reported(site, where, before, message):
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    assert html.count(before) == 1, where
    page.write_text(html.replace(before, before.replace(OFFLOAD_SHA, _last_digit_changed(OFFLOAD_SHA))), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    problems = [str(p) for p in verify_site(site)]
    assert len(problems) == 1 and problems[0].startswith(f"{site}/{message}"), problems


def test_a_changed_hash_on_the_audit_page_is_reported(site):
    from site_gen.checksums import site_sums

    page = site / "audit.html"
    html = page.read_text(encoding="utf-8")
    entry = _entry_sha(site, 0)
    changes = [(f'<code title="{entry}">', f'<code title="{_last_digit_changed(entry)}">'),  # the ledger table
               (f"{GRAPH_SHA}  torch-graph-replay/", f"{_last_digit_changed(GRAPH_SHA)}  torch-graph-replay/")]  # its SHA256SUMS
    for before, after in changes:
        assert html.count(before) == 1, before
        page.write_text(html.replace(before, after), encoding="utf-8")
        (site / "SHA256SUMS").write_bytes(site_sums(site))
        sha = after.split('"')[1] if after.startswith("<") else after.split()[0]
        assert [str(p) for p in verify_site(site)] == [f"{site}/audit.html: states sha256 {sha}, which the ledger does not hold"]
    # a path changed in the copy of records/SHA256SUMS: no hash is unknown, the list is not the ledger's
    page.write_text(html.replace("  torch-graph-replay/2026-10-28.json", "  torch-graph-replay/2026-10-29.json"), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p) for p in verify_site(site)] == [
        f"{site}/audit.html: its copy of records/SHA256SUMS is not the served ledger's list of records and hashes"]


def test_a_head_changed_in_its_last_digit_reads_as_different(site):
    """'states ledger head a3e89ae3a225 but the served ledger's head is a3e89ae3a225' read as the same."""
    from site_gen.checksums import site_sums

    page = site / "audit.html"
    html = page.read_text(encoding="utf-8")
    head = _entry_sha(site, -1)
    page.write_text(html.replace(f'<code class="bl-hash-full">{head}</code>',
                                 f'<code class="bl-hash-full">{_last_digit_changed(head)}</code>'), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p) for p in verify_site(site)] == [
        f"{site}/audit.html: states ledger head {_last_digit_changed(head)} but the served ledger's head is {head}"]


def test_an_edited_derived_number_is_reported(site):
    """A ratio or a per-token energy is recomputed from its formula and inputs: an auditor
    changed a comparison's 0.714x to 0.914x, listed SHA256SUMS again, and verify passed."""
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    assert html.count(">13.5\u202fJ/token</span>") == 1
    page.write_text(html.replace(">13.5\u202fJ/token</span>", ">15.5\u202fJ/token</span>"), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    (problem,) = verify_site(site)
    assert problem.file == f"{site}/{OFFLOAD}"
    assert problem.message.startswith('shows "15.5 J/token" for joules / completed_output_tokens (joules = /cases/0/groups/0/')
    assert problem.message.endswith('("13.5 J/token" under the formatting rule): the page was edited')


# A traced number's hover (its title) retold, its number and data attributes left as they were:
# the page, the title as it was, the title edited, and the one problem verify names.
_DECODE = "/cases/0/groups/0/server_decode_tokens_per_second/median"
_ENERGY = ("joules = /cases/0/groups/0/resources/gpu_energy/joules; "
           "completed_output_tokens = /cases/0/groups/0/completed_output_tokens")
_OTHER_ENERGY = _ENERGY.replace("groups/0/completed", "groups/1/completed")
_WITHHELD = ("p95 withheld: 5 samples, below 130 required by the generator&#x27;s default (MLPerf LoadGen early-stopping "
             f"minimum). · record sha256 {GRAPH_SHA} · pointer /measurements/3/timing/graph/p95_ms")
HOVER_EDITS = {
    "raw value": (OFFLOAD, f"pointer {_DECODE} · raw value 25.778169650885744", f"pointer {_DECODE} · raw value 35.778169650885744",
                  f'shows "25.8 tokens/s" for {OFFLOAD_SHA[:12]} {_DECODE} with a hover reading "raw value 35.778169650885744" '
                  'where its record makes "raw value 25.778169650885744": the page was edited'),
    "another record": (OFFLOAD, f"record sha256 {OFFLOAD_SHA} · pointer {_DECODE}", f"record sha256 {GRAPH_SHA} · pointer {_DECODE}",
                       f'shows "25.8 tokens/s" for {OFFLOAD_SHA[:12]} {_DECODE} with a hover reading "record sha256 {GRAPH_SHA}" '
                       f'where its record makes "record sha256 {OFFLOAD_SHA}": the page was edited'),
    "reason": ("posts/cuda-graph-replay-scoring.html", _WITHHELD, "p95 measured at 5 samples. · " + _WITHHELD.split(" · ", 1)[1],
               f'shows "withheld" for {GRAPH_SHA[:12]} /measurements/3/timing/graph/p95_ms with a hover giving the reason '
               f'"p95 measured at 5 samples.", which no limitation of {GRAPH_SHA[:12]} says: the page was edited'),
    "record text": (OFFLOAD, 'data-pointer="/cases/0/model" title="/cases/0/model"', 'data-pointer="/cases/0/model" title="/models/0/name"',
                    f'shows "qwen25-72b-q4" for {OFFLOAD_SHA[:12]} /cases/0/model with a hover reading "/models/0/name" where its '
                    'record makes "/cases/0/model": the page was edited'),
    # each part of a hover is quoted to its first 120 characters
    "derived inputs": (OFFLOAD, f"inputs: {_ENERGY} · result", f"inputs: {_OTHER_ENERGY} · result",
                       f'shows "13.5 J/token" for joules / completed_output_tokens with a hover reading "{f"inputs: {_OTHER_ENERGY}"[:120]}" '
                       f'where its inputs make "{f"inputs: {_ENERGY}"[:120]}": the page was edited'),
}


@pytest.mark.parametrize("name", HOVER_EDITS)
def test_a_traced_number_s_hover_retold_is_reported(site, name):
    """A reader audits a number by its hover (record, pointer, raw value; or formula, inputs and
    result; or why it is withheld): a hover naming another value, another record, a reason no
    limitation gives or other inputs, with SHA256SUMS listed again, passed where only the number
    and its data attributes were held."""
    from site_gen.checksums import site_sums

    rel, old, new, expected = HOVER_EDITS[name]
    page = site / rel
    text = page.read_text(encoding="utf-8")
    at = text.rindex(old)  # the last: a headline's first number is held by its words' check too
    page.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p).removeprefix(f"{site}/{rel}: ") for p in verify_site(site)] == [expected]


def test_every_derived_number_of_the_built_site_is_recomputed(built):
    """Each formula a page states is one the audit recomputes (a new shape of formula would be
    left unchecked without this failing), and each recomputes to what the page shows."""
    from benchledger.records.ledger import read_ledger
    from site_gen.audit import SiteAudit
    from site_gen.audit.numbers import check_derived_numbers, named
    from site_gen.formula import recompute
    from benchledger.records.pointer import resolve

    audit = SiteAudit(built, read_ledger((built / "records" / "ledger.jsonl").read_bytes(), "ledger"), "ledger", None)
    spans = [span for rel, _, _ in audit.pages for span in audit.scan(rel).derived]
    assert len(spans) > 20 and {s.formula for s in spans} >= {"joules / completed_output_tokens", "eager.mean_ms - graph.mean_ms"}
    for span in spans:
        inputs, records = named(span.inputs), named(span.input_sha256)
        values = {name: resolve(audit.record_data(records.get(name, span.sha256)), pointer) for name, pointer in inputs.items()}
        assert recompute(span.formula, values) is not None or span.formula == "count of the entries that give a value", span
    assert check_derived_numbers(audit) == []


def test_edited_record_text_is_reported(site):
    """Record text shown with its record and pointer is checked as numbers are: an auditor
    changed an article's GPU from H200 to B200, listed SHA256SUMS again, and verify passed."""
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    before = f'data-sha256="{OFFLOAD_SHA}" data-pointer="/cases/0/module" title="/cases/0/module">dense-offload</span>'
    assert html.count(before) == 1
    page.write_text(html.replace(before, before.replace(">dense-offload<", ">moe-offload<")), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p) for p in verify_site(site)] == [
        f'{site}/{OFFLOAD}: shows "moe-offload" for {OFFLOAD_SHA[:12]} /cases/0/module, but the record holds "dense-offload": the page was edited']


def test_an_edited_explorer_number_is_reported(site):
    """The explorer's data script holds every number it shows; an auditor changed one (4.03833
    to 9.03833), listed SHA256SUMS again, and verify passed."""
    from site_gen.checksums import site_sums

    script = site / "assets" / "explore" / "torch-graph-replay-1.js"
    text = script.read_text(encoding="utf-8")
    assert text.count(",4.03833]") == 1
    script.write_text(text.replace(",4.03833]", ",9.03833]"), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    (problem,) = verify_site(site)
    assert str(problem).startswith(f"{script.as_posix()}: $.rows[")
    assert problem.message == (f"holds 9.03833 for {GRAPH_SHA[:12]} /measurements/2/mean_speedup, but the record gives "
                               "4.038329471184343 (4.03833 to the explorer's digits)")
    script.write_text(text.replace('[0,"/measurements/2",', '[[0],"/measurements/2",'), encoding="utf-8")  # a row out of shape
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    (problem,) = verify_site(site)
    assert problem.message == "is not a row benchledger writes (record, point, cells)"
    script.write_text("window.benchledgerExplorer = 1;\n", encoding="utf-8")  # not what benchledger writes
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p) for p in verify_site(site)] == [f"{script.as_posix()}: not an explorer data script benchledger writes"]


# The LLM explorer's text retold, its numbers left as they were: the edit, and what verify names.
EXPLORER_TEXT_EDITS = {
    "a GPU": ('"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"', '"NVIDIA H200"', [
        f"$.rows[{row}]: shows GPU 'NVIDIA H200' for {OFFLOAD_SHA[:12]} /cases/{row // 2}/groups/{row % 2}, but the record "
        "gives 'NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition': the script was edited" for row in range(6)]),
    "a case's label": ('"offload-72b-40"', '"offload-72b-81"', [
        f"$.rows[{row}]: shows case 'offload-72b-81' for {OFFLOAD_SHA[:12]} /cases/1/groups/{row - 2}, but the record "
        "gives 'offload-72b-40': the script was edited" for row in (2, 3)]),
    # a record's entry out of shape: its rows are named, and the list of records is read no further
    "a record out of shape": ('"records":[[', '"records":[1,[', [
        f"$.rows[{row}]: is not a row benchledger writes (record, point, cells)" for row in range(6)]),
    "a record's path": ('"llm-cpu-offload/2026-09-27.json"', '"llm-cpu-offload/2026-10-27.json"', [
        f"$.records[0]: lists {OFFLOAD_SHA[:12]} as 'llm-cpu-offload/2026-10-27.json', but the ledger seals it as "
        "'llm-cpu-offload/2026-09-27.json': the script was edited"]),
}


@pytest.mark.parametrize("name", EXPLORER_TEXT_EDITS)
def test_edited_explorer_text_is_reported(site, name):
    """The explorer shows each case's label, GPU, model and setting from its data script, whose
    numbers alone were held: a GPU, a case's label or a record's path retold there, with
    SHA256SUMS listed again, passed."""
    from site_gen.checksums import site_sums

    old, new, expected = EXPLORER_TEXT_EDITS[name]
    script = site / "assets" / "explore" / "gsh-llm-core-article-1.js"
    text = script.read_text(encoding="utf-8")
    assert text.count(old) == 1
    script.write_text(text.replace(old, new), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p).removeprefix(f"{script.as_posix()}: ") for p in verify_site(site)] == expected


GRAPH = "articles/torch-graph-replay/2026-10-28.html"
EAGER_322 = "18.984041238824528"  # the eager mean at 322 tokens, charted and in the table behind it
AT_322 = '"x":322,"x_trace":{"pointer":"/measurements/2/tokens"}'  # its x, and where the record gives it
# the eager mean at 322 tokens as charted (a spec row) and as the table behind the chart shows it
CHART_EDITS = {
    "charted value": (f'{AT_322},"y":{EAGER_322}}}', f'{AT_322},"y":9.984041238824528}}', [
        f"script spec-timing $.datasets.points[0]: charts 9.984041238824528 for {GRAPH_SHA[:12]} "
        f"/measurements/2/timing/eager/mean_ms, but the record gives {EAGER_322}: the page was edited",
        f"script spec-timing: the table behind this chart shows row 1 as ('322', '{EAGER_322}', 'eager', "
        f"'record 24492206c24d · pointer /measurements/2/timing/eager/mean_ms'), but the chart's y there is "
        "'9.984041238824528': the page was edited"]),
    "table cell": (f"<td>{EAGER_322}</td>", "<td>9.98</td>", [
        "script spec-timing: the table behind this chart shows row 1 as ('322', '9.98', 'eager', "
        f"'record 24492206c24d · pointer /measurements/2/timing/eager/mean_ms'), but the chart's y there is "
        f"'{EAGER_322}': the page was edited"]),
    # the tooltip's source is made from the trace, so the table, which names it, no longer agrees either
    "trace dropped": (',"trace":{"pointer":"/measurements/2/timing/eager/mean_ms","sha256":"' + GRAPH_SHA + '"}', "", [
        f"script spec-timing $.datasets.points[0]: charts {EAGER_322} without the record and pointer it comes from: "
        "the page was edited",
        f"script spec-timing: the table behind this chart shows row 1 as ('322', '{EAGER_322}', 'eager', "
        "'record 24492206c24d · pointer /measurements/2/timing/eager/mean_ms'), but the chart's origin there is 'n/a': "
        "the page was edited"]),
    "inline data": ('"data":{"name":"points"}', '"data":{"values":[{"x":1,"y":99}]}', [
        "script spec-timing $.data.values: draws [{\"x\":1,\"y\":99}] where benchledger writes nothing for this chart's data "
        "and titles: the page was edited"]),
    "rescaled size": (f'"unit":"MiB"}},{AT_322},"y":8.13232421875}}', f'"unit":"MiB"}},{AT_322},"y":9.13232421875}}', None),
    # a pointer moved to text: the audit compared a number with a string and stopped on a TypeError
    "pointer to text": ('"pointer":"/measurements/2/timing/eager/mean_ms","sha256"', '"pointer":"/measurements/2/kind","sha256"', [
        f"script spec-timing $.datasets.points[0]: charts {EAGER_322} for {GRAPH_SHA[:12]} /measurements/2/kind, but the record "
        "gives 'frozen_short': the page was edited",
        f"script spec-timing: the table behind this chart shows row 1 as ('322', '{EAGER_322}', 'eager', "
        "'record 24492206c24d · pointer /measurements/2/timing/eager/mean_ms'), but the chart's origin there is "
        "'record 24492206c24d · pointer /measurements/2/kind': the page was edited"]),
}


@pytest.mark.parametrize("name", CHART_EDITS)
def test_an_edited_chart_or_the_table_behind_it_is_reported(site, name):
    """Every charted point is checked against its record through the trace its row carries,
    and the table behind the chart against the chart: an auditor halved the eager time of a
    chart (or of its table only), listed SHA256SUMS again, and verify passed."""
    from site_gen.checksums import site_sums

    old, new, expected = CHART_EDITS[name]
    page = site / GRAPH
    html = page.read_text(encoding="utf-8")
    assert html.count(old) >= 1
    page.write_text(html.replace(old, new, 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p).removeprefix(f"{site}/{GRAPH}: ") for p in verify_site(site)]
    if expected is None:  # capture memory charted in MiB from a _bytes field: 8,527,360 B is 8.13232421875 MiB
        assert messages[0] == (f"script spec-capture-memory $.datasets.points[0]: charts 9.13232421875 for {GRAPH_SHA[:12]} "
                               "/measurements/2/capture_allocated_increase_bytes, but the record gives 8.13232421875: the page was edited")
    else:
        assert messages == expected


LLAMA_POST = "posts/llama-cpp-cpu-offload-72b.html"  # a write-up with one chart


def test_a_chart_point_whose_shown_source_names_another_value_is_reported(site):
    """The source a reader sees for a point in its tooltip is made from its checked trace by
    `quantity.ORIGIN_EXPRESSION`: the expression made to name another measurement, with
    SHA256SUMS listed again, passed while the table behind the chart kept the true words."""
    real = "(isValid(datum.trace.pointer) ? ' · pointer ' + datum.trace.pointer"
    told = "(isValid(datum.trace.pointer) ? ' · pointer ' + replace(datum.trace.pointer, '/cases/0/', '/cases/1/')"
    assert _relisted(site, LLAMA_POST, real, told) == [
        "script spec-llama-cpp-cpu-offload-72b-1 $.layer[1].transform[0].calculate: draws \"…(isValid(datum.trace.pointer) ? "
        "' · pointer ' + replace(datum.trace.pointer, '/c\" where benchledger writes \"…(isValid(datum.trace.pointer) ? "
        "' · pointer ' + datum.trace.pointer + (datum.tra\" for this chart's data and titles: the page was edited"]


def test_a_chart_point_whose_source_is_written_in_its_row_is_reported(site):
    """Without the expression a tooltip shows what the rows say: a source of another measurement
    written into a row, or the transform that makes each point's source dropped, no longer passes."""
    from site_gen.quantity import ORIGIN_EXPRESSION

    page = (site / LLAMA_POST).read_text(encoding="utf-8")
    row, told = '{"series":"2,048","trace":', '{"origin":"record 000000000000 · pointer /elsewhere","series":"2,048","trace":'
    assert row in page
    (site / LLAMA_POST).write_text(page.replace(row, told, 1), encoding="utf-8")
    assert _relisted(site, LLAMA_POST, told, told) == [
        "script spec-llama-cpp-cpu-offload-72b-1 $.datasets.points[0]: carries fields benchledger does not write (origin), "
        "which no record traces: the page was edited"]
    assert _relisted(site, LLAMA_POST, told, row) == []
    transform = json.dumps([{"as": "origin", "calculate": ORIGIN_EXPRESSION}], ensure_ascii=False, separators=(",", ":"))
    assert _relisted(site, LLAMA_POST, f',"transform":{transform}', "") == [
        "script spec-llama-cpp-cpu-offload-72b-1 $.layer[1].transform: draws nothing where benchledger writes "
        "[{\"as\":\"origin\",\"calculate\":\"'record ' + substring(datum.trace.sha256, 0, 12) + (isValid(datum.trac… for "
        "this chart's data and titles: the page was edited"]


def test_a_source_computed_under_another_name_for_the_tooltip_is_reported(site):
    """The tooltip's "source" made to show a field the spec computes itself, the true one left in
    place, no longer passes: a spec draws only what benchledger writes for its data and titles."""
    from site_gen.quantity import ORIGIN_EXPRESSION

    transform = json.dumps([{"as": "origin", "calculate": ORIGIN_EXPRESSION}], ensure_ascii=False, separators=(",", ":"))
    page = (site / LLAMA_POST).read_text(encoding="utf-8")
    assert page.count('{"field":"origin","title":"source","type":"nominal"}') == 1
    (site / LLAMA_POST).write_text(page.replace('{"field":"origin","title":"source","type":"nominal"}',
                                                '{"field":"told","title":"source","type":"nominal"}'), encoding="utf-8")
    fake = '{"as":"told","calculate":"\'record 000000000000 · pointer /elsewhere\'"}'
    assert _relisted(site, LLAMA_POST, f',"transform":{transform}', f',"transform":{transform[:-1]},{fake}]') == [
        "script spec-llama-cpp-cpu-offload-72b-1 $.layer[1].encoding.tooltip[3].field: draws \"told\" where benchledger "
        "writes \"origin\" for this chart's data and titles: the page was edited"]


def _relisted(site, rel: str, old: str, new: str) -> list[str]:
    """`verify_site`'s findings after `old` on page `rel` became `new` and SHA256SUMS was listed again."""
    from site_gen.checksums import site_sums

    page = site / rel
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1
    page.write_text(text.replace(old, new), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    return [str(p).removeprefix(f"{site}/{rel}: ") for p in verify_site(site)]


def test_a_line_chart_s_unit_retold_with_its_alt_text_is_reported(site):
    """The unit a line chart gives its points, which its alt text reads out, is the one its
    records give them: "705 ms" told as "705 s" in the spec and the alt text alike (the SVG, drawn
    without it, keeps its name) passed every other check."""
    from site_gen.checksums import site_sums

    page = site / GRAPH
    html = page.read_text(encoding="utf-8")
    view = re.search(r'data-spec="spec-timing"><img [^>]*alt="([^"]*)"', html)
    assert html.count('"pointsUnit":"ms"') == 1 and view.group(1).count(" ms") == 16
    html = html[:view.start(1)] + view.group(1).replace(" ms", " s") + html[view.end(1):]
    page.write_text(html.replace('"pointsUnit":"ms"', '"pointsUnit":"s"'), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p).removeprefix(f"{site}/{GRAPH}: ") for p in verify_site(site)] == [
        "script spec-timing $.usermeta.pointsUnit: gives its points in 's', but point 0 "
        "(/measurements/2/timing/eager/mean_ms) is in 'ms' as its record gives it: the page was edited"]


def test_a_line_chart_s_y_axis_retitled_in_another_unit_is_reported(site):
    """The y axis's title names the unit a reader reads the chart in: "mean time (ms)" made
    "mean time (s)" wherever the chart and its table say it, the SVG drawn again, passed every
    other check; the axis would read 705 ms as 705 s."""
    from tests.site_gen.site_support import axis_retitled

    axis_retitled(site, site / GRAPH, "spec-timing", "mean time (ms)", "mean time (s)")
    assert [str(p).removeprefix(f"{site}/{GRAPH}: ") for p in verify_site(site, redraw_charts=True)] == [
        "script spec-timing $.layer[1].encoding.y.title: titles its y axis in 's', but point 0 "
        "(/measurements/2/timing/eager/mean_ms) is in 'ms' as its record gives it: the page was edited"]


def test_a_written_chart_s_x_axis_retitled_in_another_unit_is_reported(tmp_path):
    """A line chart's x axis names its unit too where its points' x is a duration ("graph mean
    (ms)" in a write-up's chart): made "(s)" wherever the chart and its table say it, the SVG
    drawn again, it passed every other check."""
    from tests.site_gen.authored_support import GRAPH as GRAPH_RECORD
    from tests.site_gen.authored_support import build_real, copy_project, write_article
    from tests.site_gen.site_support import axis_retitled

    records, articles = copy_project(tmp_path)
    write_article(articles, "by-time", '{{ chart("g", rows="/measurements/*", x="timing/graph/mean_ms", y="mean_speedup", '
                                       'x_title="graph mean (ms)", y_title="speed-up") }}\n', {"g": GRAPH_RECORD})
    site = build_real(tmp_path, records, articles)
    assert verify_site(site) == []
    axis_retitled(site, site / "posts" / "by-time.html", "spec-by-time-1", "graph mean (ms)", "graph mean (s)")
    assert [str(p).removeprefix(f"{site}/posts/by-time.html: ") for p in verify_site(site, redraw_charts=True)] == [
        "script spec-by-time-1 $.layer[1].encoding.x.title: titles its x axis in 's', but point 0 "
        "(/measurements/2/timing/graph/mean_ms) is in 'ms' as its record gives it: the page was edited"]


def test_a_line_chart_s_point_retold_in_its_alt_text_is_reported(site):
    """A screen reader reads a line chart's alt text in its place, every point listed: a point
    retold there (705 ms as 70.5), the chart and its table untouched, passed."""
    assert _relisted(site, GRAPH, "32,768 → 705 ms;", "32,768 → 70.5 ms;") == [
        'script spec-timing: lists its points to a screen reader as "…ms, 28,070 → 555 ms, 32,768 → 70.5 ms; graph: 322 → '
        '4.70 ms, 330 → 4.72 ms, 338 → …", but the chart draws "…ms, 28,070 → 555 ms, 32,768 → 705 ms; graph: 322 → 4.70 ms, '
        '330 → 4.72 ms, 338 → …" there: the page was edited']


def test_a_written_chart_s_alt_text_with_a_line_added_is_reported(site):
    """A `chart` citation's alt text lists its points too: a line the chart does not draw
    added to it no longer passes."""
    assert _relisted(site, "posts/llama-cpp-cpu-offload-72b.html", '81 → 24.8 tokens/s."',
                     '81 → 24.8 tokens/s; 4,096: 81 → 99.0 tokens/s."') == [
        'script spec-llama-cpp-cpu-offload-72b-1: lists its points to a screen reader as "…24.8 tokens/s; 4,096: 81 → 99.0 '
        'tokens/s.", but the chart draws "…tokens/s, 40 → 1.02 tokens/s, 81 → 24.8 tokens/s." there: the page was edited']


def test_a_line_chart_naming_no_unit_for_its_alt_text_is_reported(site):
    """The unit the alt text lists the points in is the spec's (`usermeta.pointsUnit`, left out
    of the static image): without it the points could not be held to the chart."""
    assert _relisted(site, "posts/cuda-graph-replay-scoring.html", '"pointsUnit":"ms"', '"pointsUnit":null') == [
        "script spec-cuda-graph-replay-scoring-1 $.usermeta.pointsUnit: names no unit for the points its alt text lists, "
        "as benchledger writes each line chart: the page was edited"]


def test_a_line_chart_point_on_no_line_is_reported_not_a_crash(site):
    """A point whose series label is gone cannot be listed in the alt text: a finding (beside
    the image's, whose spec no longer draws what the site names), not a KeyError."""
    messages = _relisted(site, GRAPH, '"series":"eager","trace":{"pointer":"/measurements/2/timing/eager/mean_ms"',
                         '"trace":{"pointer":"/measurements/2/timing/eager/mean_ms"')
    assert "script spec-timing: has a point on no line (its series is not text), as benchledger writes no chart: " \
           "the page was edited" in messages


def test_a_chart_without_the_table_behind_it_is_reported(site):
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    start = html.index('<details class="bl-chart-data">')
    page.write_text(html[:start] + html[html.index("</details>", start) + len("</details>"):], encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p) for p in verify_site(site)]
    assert messages[0] == f"{site}/{OFFLOAD}: has 6 chart specs and 5 tables behind charts: the page was edited (each chart shows its data below it)"


def test_every_chart_point_of_a_built_site_carries_a_trace_the_audit_follows(built):
    """Each chart of the built site draws traced points only, each one the audit recomputes
    (a point traced by a pointer, a rescaled size and a derived energy per token among them)."""
    from benchledger.records.ledger import read_ledger
    from site_gen.audit import SiteAudit
    from site_gen.audit.charts import check_chart_data

    audit = SiteAudit(built, read_ledger((built / "records" / "ledger.jsonl").read_bytes(), "ledger"), "ledger", None)
    traces = [row["trace"] for rel, _, _ in audit.pages for _, text in audit.scan(rel).specs
              for row in json.loads(text)["datasets"]["points"]]
    assert len(traces) > 100
    assert {"pointer", "unit", "formula"} <= {key for trace in traces for key in trace}
    assert check_chart_data(audit) == []


def test_an_edited_derived_chart_point_is_reported(site):
    """A point derived by a formula (energy per token) is recomputed from its inputs."""
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    old = '"x":81,"x_trace":{"pointer":"/cases/0/placement/gpu_layers"},"y":13.502285659906812}'
    assert html.count(old) == 1
    page.write_text(html.replace(old, old.replace("13.5", "11.5")), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    first = str(verify_site(site)[0]).removeprefix(f"{site}/{OFFLOAD}: ")
    assert first == ("script spec-gpu-layers-energy $.datasets.points[0]: charts 11.502285659906812 for 'joules / completed_output_tokens' "
                     f"over {OFFLOAD_SHA[:12]} joules = /cases/0/groups/0/resources/gpu_energy/joules; completed_output_tokens = "
                     "/cases/0/groups/0/completed_output_tokens, but the record gives 13.502285659906812: the page was edited")


# A chart's x moved, with the table behind it agreeing (the table alone was checked before): each
# edit on the page, and the one problem verify names with the file and the place.
X_EDITS = {
    "x moved": (GRAPH, AT_322, AT_322.replace('"x":322', '"x":1024'), ("322", "1024"),
                f"script spec-timing $.datasets.points[0].x: charts 1024 for {GRAPH_SHA[:12]} /measurements/2/tokens, "
                "but the record gives 322: the page was edited"),
    "x pointer moved": (GRAPH, AT_322, AT_322.replace("/measurements/2/", "/measurements/0/"), None,
                        f"script spec-timing $.datasets.points[0].x: charts 322 for {GRAPH_SHA[:12]} /measurements/0/tokens, "
                        "but the record gives 338: the page was edited"),
    "x trace dropped": (GRAPH, AT_322, '"x":322', None,
                        "script spec-timing $.datasets.points[0].x: charts 322 without the record and pointer it comes from: "
                        "the page was edited"),
    "x from another record": (GRAPH, AT_322, AT_322.replace('"pointer"', f'"sha256":"{OFFLOAD_SHA}","pointer"'), None,
                              "script spec-timing $.datasets.points[0].x: charts 322 without the record and pointer it comes from: "
                              "the page was edited"),
    "x to text": (GRAPH, AT_322, AT_322.replace("/tokens", "/kind"), None,
                  f"script spec-timing $.datasets.points[0].x: charts 322 for {GRAPH_SHA[:12]} /measurements/2/kind, "
                  "but the record gives 'frozen_short': the page was edited"),
    "cited chart's x moved": ("posts/cuda-graph-replay-scoring.html", '"x":338,"x_trace":{"pointer":"/measurements/0/tokens"}',
                              '"x":400,"x_trace":{"pointer":"/measurements/0/tokens"}', ("338", "400"),
                              f"script spec-cuda-graph-replay-scoring-1 $.datasets.points[2].x: charts 400 for {GRAPH_SHA[:12]} "
                              "/measurements/0/tokens, but the record gives 338: the page was edited"),
    "gpu layers moved": (OFFLOAD, '"x":81,"x_trace":{"pointer":"/cases/0/placement/gpu_layers"}',
                         '"x":60,"x_trace":{"pointer":"/cases/0/placement/gpu_layers"}', ("81", "60"),
                         f"script spec-gpu-layers-decode $.datasets.points[0].x: charts 60 for {OFFLOAD_SHA[:12]} "
                         "/cases/0/placement/gpu_layers, but the record gives 81: the page was edited"),
}


@pytest.mark.parametrize("name", X_EDITS)
def test_an_edited_chart_x_is_reported(site, name):
    """Each charted point's x is checked against the record value its row traces (a token length,
    a GPU-layer count): a point moved along x, with the table behind the chart edited to agree
    and SHA256SUMS listed again, passed verify, which compared the y values only."""
    rel, old, new, cell, expected = X_EDITS[name]
    chart_edited(site, site / rel, old, new, cell)
    assert [str(p) for p in verify_site(site)] == [f"{site}/{rel}: {expected}"]


def test_every_line_chart_point_of_a_built_site_traces_its_x(built):
    """Every point of every line chart the built site draws (articles and the posts' cited
    charts) says where its x comes from, and the x traces stay out of the static SVG."""
    from benchledger.records.ledger import read_ledger
    from site_gen.audit import SiteAudit

    audit = SiteAudit(built, read_ledger((built / "records" / "ledger.jsonl").read_bytes(), "ledger"), "ledger", None)
    rows = {rel: [row for _, text in audit.scan(rel).specs for row in json.loads(text)["datasets"]["points"] if "y" in row]
            for rel, _, _ in audit.pages}
    assert sum(map(len, rows.values())) > 100 and any(rel.startswith("posts/") and found for rel, found in rows.items())
    assert all(set(row["x_trace"]) == {"pointer"} for found in rows.values() for row in found)
    assert not any("x_trace" in p.read_text(encoding="utf-8") for p in (built / "assets" / "charts").glob("*.svg"))


TIMING_SVG, SPEEDUP_SVG = "assets/charts/532793fbc882dc85ed2a.svg", "assets/charts/4a09e9abd42e9e2c806b.svg"
# A chart's static SVG (all a reader without scripts sees) other than the spec the audit checks:
# another chart's image, or a spec edited where no record traces it (its y axis' words; its unit
# is held to the records').
IMAGE_EDITS = {
    "another chart's image": (f'data-spec="spec-timing"><img src="../../{TIMING_SVG}"', f'data-spec="spec-timing"><img src="../../{SPEEDUP_SVG}"',
                              f"script spec-timing <img>: shows '../../{SPEEDUP_SVG}', but this spec is drawn as {TIMING_SVG}: "
                              "the image is not of the data checked here (the page was edited)"),
    "spec's axis retitled": ('"title":"mean time (ms)"', '"title":"mean delay (ms)"',  # its tooltip's and axis' titles
                             f"script spec-timing <img>: shows '../../{TIMING_SVG}', but this spec is drawn as assets/charts/"),
}


@pytest.mark.parametrize("name", IMAGE_EDITS)
def test_a_static_svg_not_drawn_from_the_checked_spec_is_reported(site, name):
    """Each chart's <img> must be the SVG the site names by the hash of the very spec the audit
    checked (`static_chart.svg_path`): a chart showing another chart's SVG, or a spec edited where
    no trace reaches, passed verify."""
    from site_gen.checksums import site_sums

    old, new, expected = IMAGE_EDITS[name]
    page = site / GRAPH
    html = page.read_text(encoding="utf-8")
    assert old in html and (site / TIMING_SVG).is_file() and (site / SPEEDUP_SVG).is_file()
    page.write_text(html.replace(old, new), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    (problem,) = verify_site(site)
    assert str(problem).startswith(f"{site}/{GRAPH}: {expected}")


def test_a_chart_whose_static_svg_is_gone_is_reported(site):
    """The SVG a chart's spec names, removed and left out of SHA256SUMS, is named as missing."""
    from site_gen.checksums import site_sums

    (site / TIMING_SVG).unlink()
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p) for p in verify_site(site)] == [
        f"{site}/{GRAPH}: script spec-timing <img>: shows {TIMING_SVG}, which the site does not hold",
        f"{site}/{GRAPH}: links '../../{TIMING_SVG}', which leads to no file of the site ({TIMING_SVG}): the link is dead"]


def _filtered(spec: dict) -> None:
    for layer in spec["layer"]:
        layer["transform"] = [{"filter": "datum.y < 10"}, *layer.get("transform", [])]


def _y_reversed(spec: dict) -> None:
    for layer in spec["layer"]:
        layer["encoding"]["y"]["scale"]["reverse"] = True


# A chart drawn otherwise than benchledger draws its data, its SVG drawn again and named as the
# site names it: what the data, the alt text and the image's name alone let through.
DRAWING_EDITS = {
    "the slow points filtered out": (_filtered, '$.layer[0].transform: draws [{"filter":"datum.y < 10"}] where benchledger '
                                                "writes nothing"),
    "the points made invisible": (lambda spec: spec["layer"][1]["mark"].update(opacity=0),
                                  "$.layer[1].mark.opacity: draws 0 where benchledger writes 1"),
    "the y axis upside down": (_y_reversed, "$.layer[0].encoding.y.scale.reverse: draws true where benchledger writes nothing"),
}


@pytest.mark.parametrize("name", DRAWING_EDITS)
def test_a_chart_drawn_otherwise_than_its_data_is_reported_though_its_svg_was_redrawn(site, name):
    """All a chart's spec holds besides its data is what benchledger writes for that data and
    its titles (`chart_specs.rebuilt_spec`): a filter, a mark or a scale edited to hide or turn
    over points, the SVG drawn again from the edited spec and shown under its own name, passed
    every other check, the redraw too."""
    from tests.site_gen.site_support import chart_redrawn

    edit, expected = DRAWING_EDITS[name]
    chart_redrawn(site, site / GRAPH, "spec-timing", edit)
    assert [str(p) for p in verify_site(site, redraw_charts=True)] == [
        f"{site}/{GRAPH}: script spec-timing {expected} for this chart's data and titles: the page was edited"]


_DEEP = "[" * 5000 + "]" * 5000  # past what json itself reads (RecursionError)
_NESTED = "[" * 40 + "]" * 40  # under that, past what benchledger writes (MAX_JSON_DEPTH)


def _spec_timing(site) -> tuple[Path, str, re.Match]:
    page = site / GRAPH
    html = page.read_text(encoding="utf-8")
    return page, html, re.search(r'<script type="application/json" id="spec-timing">(.*?)</script>', html)


# JSON a file of the site holds, nested to stop a walk of it: each a finding, not a traceback.
NESTED_JSON = {
    "a chart spec past json's depth": (GRAPH, "script spec-timing: is not a chart spec benchledger writes"),
    "a chart row's trace past benchledger's depth": (GRAPH, "script spec-timing: is not a chart spec benchledger writes"),
    "the explorer's data": ("assets/explore/", "not an explorer data script benchledger writes"),
    "an inclusion proof": (f"ledger/inclusion/{GRAPH_SHA}.json", "format: not JSON"),
}


@pytest.mark.parametrize("name", NESTED_JSON)
def test_json_nested_too_deep_is_a_finding_not_a_crash(site, name, capsys):
    """A page's chart spec of 5,000 nested arrays stopped `verify --site` with a RecursionError
    traceback; one nested 40 levels would stop the walks of a spec. Every JSON file of the site
    the audit reads goes through `site.site_json`."""
    from site_gen.checksums import site_sums

    rel, expected = NESTED_JSON[name]
    if name == "a chart spec past json's depth":
        page, html, found = _spec_timing(site)
        page.write_text(html[:found.start(1)] + '{"datasets":{"points":[]},"layer":' + _DEEP + "}" + html[found.end(1):], encoding="utf-8")
    elif name == "a chart row's trace past benchledger's depth":
        page, html, found = _spec_timing(site)
        spec = found.group(1).replace('"trace":{', f'"trace":{{"deep":{_NESTED},', 1)
        page.write_text(html[:found.start(1)] + spec + html[found.end(1):], encoding="utf-8")
    elif name == "the explorer's data":
        (script,) = sorted((site / rel).glob("*.js"))[:1]
        text = script.read_text(encoding="utf-8")
        script.write_text(text[:text.index("]=") + 2] + _DEEP + ";\n", encoding="utf-8")
        rel = script.relative_to(site).as_posix()
    else:
        (site / rel).write_text(_DEEP, encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert any(str(p).startswith(f"{site}/{rel}: {expected}") for p in verify_site(site))
    assert main(["verify", "--site", str(site)]) == 1
    assert f"{site}/{rel}: {expected}" in capsys.readouterr().err


def test_a_second_view_of_a_chart_showing_another_image_is_reported(site):
    """Each chart view's image is checked, not only the last of one spec's: a view added before
    the real one, showing another chart's SVG, passed."""
    from site_gen.checksums import site_sums

    page = site / GRAPH
    html = page.read_text(encoding="utf-8")
    view = f'<div class="bl-chart-view" data-spec="spec-timing"><img src="../../{TIMING_SVG}"'
    assert html.count(view) == 1
    page.write_text(html.replace(view, view.replace(TIMING_SVG, SPEEDUP_SVG) + "></div>" + view), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    image, alt = verify_site(site)
    assert str(image).startswith(f"{site}/{GRAPH}: script spec-timing <img>: shows '../../{SPEEDUP_SVG}'")
    assert str(alt).startswith(f'{site}/{GRAPH}: script spec-timing: lists its points to a screen reader as "", but the chart draws')


# --- --redraw-charts: every checked chart's SVG drawn again and compared byte for byte -------


def _first_chart_svg(site) -> str:
    """The site path of the SVG the offload article's first chart shows."""
    from site_gen.static_chart import CHARTS_DIR

    name = re.search(rf'src="[./]*({CHARTS_DIR}/[0-9a-f]+\.svg)"', (site / OFFLOAD).read_text(encoding="utf-8")).group(1)
    assert (site / name).is_file()
    return name


def test_an_untouched_site_redraws_to_its_own_bytes(site, capsys):
    assert verify_site(site, redraw_charts=True) == []
    assert main(["verify", "--site", str(site), "--redraw-charts"]) == 0
    assert "every chart's image is what this vl-convert draws of its spec" in capsys.readouterr().out
    assert main(["verify", "--site", str(site), "--redraw-charts", "--json"]) == 0
    assert "redrawn_charts" in json.loads(capsys.readouterr().out)["steps"]


def test_an_svg_edited_in_place_is_found_only_by_drawing_it_again(site, capsys):
    """A label of the image changed (the chart's spec and the table behind it untouched), the
    list of sums redone: the file's name still matches the spec, so only a redraw can tell."""
    from site_gen.checksums import site_sums

    name = _first_chart_svg(site)
    svg = (site / name).read_text(encoding="utf-8")
    assert "GPU layers" in svg
    (site / name).write_text(svg.replace("GPU layers", "CPU layers", 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert verify_site(site) == []  # what the audit cannot see without drawing
    problems = verify_site(site, redraw_charts=True)
    assert [p.file for p in problems] == [f"{site}/{name}"]
    assert problems[0].message.startswith("is not what vl-convert-python ")
    assert f"draws of the chart {site}/{OFFLOAD} script spec-" in problems[0].message
    assert problems[0].message.endswith("whose data the audit checked: the image was edited")
    assert main(["verify", "--site", str(site), "--redraw-charts"]) == 1
    assert f"{site}/{name}: is not what vl-convert-python" in capsys.readouterr().err


def test_charts_checked_in_the_forked_process_are_drawn_again(site, monkeypatch):
    """Past a few hundred pages the chart step runs in a forked process (`FORKED_STEPS`): the
    charts it checked come back with its findings, so --redraw-charts still draws every one."""
    from site_gen.checksums import site_sums

    name = _first_chart_svg(site)
    svg = (site / name).read_text(encoding="utf-8")
    (site / name).write_text(svg.replace("GPU layers", "CPU layers", 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    alone = [str(p) for p in verify_site(site, redraw_charts=True)]
    force_process_pool(monkeypatch)
    assert [str(p) for p in verify_site(site, redraw_charts=True)] == alone
    assert [m.split(": ")[0] for m in alone] == [f"{site}/{name}"]


def test_a_bundle_this_vl_convert_did_not_make_is_the_one_finding(site):
    """Another vl-convert's bundle (or one edited by hand): no chart is compared, and the one
    problem says which vl-convert can draw them again."""
    import vl_convert

    from site_gen.static_chart import VEGA_BUNDLE_PATH
    from site_gen.checksums import site_sums

    bundle = site / VEGA_BUNDLE_PATH
    bundle.write_bytes(bundle.read_bytes() + b"\n// another build\n")
    name = _first_chart_svg(site)
    (site / name).write_bytes((site / name).read_bytes() + b"\n")  # would be a finding of its own
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    problems = verify_site(site, redraw_charts=True)
    assert [(p.file, p.message.split(":")[0]) for p in problems] == [
        (bundle.as_posix(), f"not the Vega bundle of the vl-convert-python here ({vl_convert.__version__})")]
    assert "audit with the vl-convert-python the site was built with, or without --redraw-charts" in problems[0].message
    bundle.unlink()
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [p.message.split(":")[0] for p in verify_site(site, redraw_charts=True)] == ["missing"]


def _limitation_notes(html: str) -> list[str]:
    return re.findall(r'<li class="bl-lim bl-lim-[a-z]+"><span id="lim-.*?</li>', html)


@pytest.mark.parametrize("edit", ["cut", "reworded", "page removed"])
def test_a_limitation_cut_from_its_record_s_page_or_reworded_is_reported(site, edit):
    """Every limitation of a record (its own and the generator's rules') stands on its page under
    its anchor: an auditor cut a caveat from the page, reworded one, or removed the page, listed
    SHA256SUMS again, and verify passed."""
    from site_gen.checksums import site_sums
    from site_gen.limitations import find_limitations

    page = site / OFFLOAD
    html = page.read_text(encoding="utf-8")
    record = json.loads((site / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
    lims = {lim.anchor: lim for lim in find_limitations(record)}
    note = next(n for n in _limitation_notes(html) if n.count('<span id="lim-') == 1)
    [anchor] = re.findall(r'<span id="(lim-[0-9a-f]+)">', note)
    lim = lims[anchor]
    if edit == "page removed":
        page.unlink()
    else:
        words = lim.text.split(" ", 1)[1]  # the wording past its first word, as the page has it
        new = "" if edit == "cut" else note.replace(f" {words}</li>", " (not a concern here)</li>")
        assert new != note
        page.write_text(html.replace(note, new, 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    messages = [str(p) for p in verify_site(site)]
    cut_text = lim.text[:80]
    expected = {
        "cut": [f'{site}/{OFFLOAD}: lacks the limitation {anchor} of {OFFLOAD_SHA[:12]} ({lim.rule_id}: "{cut_text}"): '
                "a caveat of the record was cut from its page"],
        "reworded": [f'{site}/{OFFLOAD}: shows the limitation {anchor} of {OFFLOAD_SHA[:12]} as '
                     f'"{lim.text.split(" ", 1)[0]} (not a concern here)", but the record\'s reads "{cut_text}" ({lim.rule_id}): '
                     "the page was edited"],
        "page removed": [f"{site}/records/llm-cpu-offload/2026-09-27.json: no page shows this record's audit block and "
                         "limitations: its page was removed or cut"],
    }[edit]
    if edit == "page removed":  # and every link to it is dead
        dead = messages[len(expected):]
        assert dead and all(f"which leads to no file of the site ({OFFLOAD}): the link is dead" in m for m in dead), dead
        messages = messages[:len(expected)]
    assert messages == expected


def test_a_record_saying_in_its_own_words_what_a_rule_says_passes(tmp_path):
    """Its page shows the words once, under the first of the two limitations' rules: the audit
    holds the note to either, so a record's text cannot make an honest page fail."""
    from benchledger.records.store import Store
    from site_gen.build import build_site
    from site_gen.context import BuildOptions
    from site_gen.limitations import find_limitations

    data = json.loads((ROOT / "records" / "llm-cpu-offload" / "2026-09-27.json").read_bytes())
    rule = next(lim for lim in find_limitations(data) if lim.source == "generator" and lim.scope == "")
    data["limitations"].insert(0, rule.text)
    (tmp_path / "records").mkdir()
    Store(tmp_path / "records").seal_bytes(json.dumps(data, indent=1).encode(), "gsh-llm-core-article/1", "echo.json")
    (tmp_path / "articles").mkdir()
    site = build_site(tmp_path / "records", tmp_path / "site", cache_dir=tmp_path / "cache",
                      options=BuildOptions(articles_dir=tmp_path / "articles")).out_dir
    page = (site / "articles" / "echo.html").read_text(encoding="utf-8")
    [note] = [n for n in _limitation_notes(page) if html.escape(rule.text) in n]
    assert note.count('<span id="lim-') == 2 and ">record-limitation</span>" in note
    assert verify_site(site) == []


@pytest.mark.parametrize("edit", ["hover", "link"])
def test_a_limitation_marker_retold_or_linked_elsewhere_is_reported(site, edit):
    """A ⚠ beside a number links to one of its record's limitations and its hover lists their
    words: an auditor made one's hover read "no concern", or linked it to no note, listed
    SHA256SUMS again, and verify passed."""
    from site_gen.checksums import site_sums

    page = site / OFFLOAD
    html_text = page.read_text(encoding="utf-8")
    mark = re.search(r'<a class="bl-lim-mark" href="#(lim-[0-9a-f]+)" aria-label="[^"]*" title="([^"]*)">&#9888;</a>', html_text)
    anchor, title = mark.groups()
    new = mark.group(0).replace(f'title="{title}"', 'title="No concern here."') if edit == "hover" else \
        mark.group(0).replace(f'href="#{anchor}"', 'href="#lim-0000000000"')
    page.write_text(html_text.replace(mark.group(0), new, 1), encoding="utf-8")
    (site / "SHA256SUMS").write_bytes(site_sums(site))
    assert [str(p) for p in verify_site(site)] == [
        f'{site}/{OFFLOAD}: marks a number with {anchor} of {OFFLOAD_SHA[:12]}, whose hover reads "No concern here.", not the '
        "record's limitations: the page was edited" if edit == "hover" else
        f"{site}/{OFFLOAD}: marks a number with lim-0000000000, which is no limitation of {OFFLOAD_SHA[:12]}: the page was edited"] + \
        ([] if edit == "hover" else [f"{site}/{OFFLOAD}: links '#lim-0000000000', but {OFFLOAD} has no element with the id "
                                     "'lim-0000000000': the link is dead"])


def test_a_marker_whose_record_words_hold_the_joining_dot_is_held_to_its_link_only():
    """A hover joins its limitations' words with " · ": where a record's own words hold that dot,
    they cannot be told apart, so only the marker's link is checked (an honest page never fails)."""
    from site_gen.audit.limitations import _marker_problems
    from site_gen.limitations import Limitation

    dotted = Limitation("record-limitation", "", "Alpha · beta", "record")
    rule = Limitation("synthetic-prompts", "/cases/0", "Gamma.", "generator")
    assert _marker_problems("p", OFFLOAD_SHA, [dotted, rule], [(dotted.anchor, "Alpha · beta · Gamma.", "2")]) == []
    plain = Limitation("record-limitation", "", "Alpha.", "record")
    assert _marker_problems("p", OFFLOAD_SHA, [plain, rule], [(plain.anchor, "Alpha. · Gamma.", "2")]) == []
    [problem] = _marker_problems("p", OFFLOAD_SHA, [plain, rule], [(plain.anchor, "Alpha. · Gamma.", "3")])
    assert "whose hover reads" in problem.message
