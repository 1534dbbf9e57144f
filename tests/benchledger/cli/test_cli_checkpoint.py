"""`benchledger key generate`, `checkpoint`, `prove`, and `verify` of the stored checkpoints:
the real commands on a copy of the shipped store, and forged histories named by their step."""

from __future__ import annotations

import json
import os
import stat

import pytest

from benchledger.records.checkpoint import read_checkpoint
from benchledger.records.keys import SignerKey, VerifierKey
from benchledger.records.merkle import leaf_hash, verify_inclusion
from tests.forgeries import DEMO_KEY_FILE, demo_key, edit_line_rechained, remove_line_rechained, resign
from tests.store_copies import tree_digest

TGR = "torch-graph-replay/1"


def test_key_generate_writes_a_private_file_and_prints_the_verifier_key(records, cli, tmp_path):
    result = cli("key", "generate", "example.com/log", "--out", "signing.key")
    assert result.code == 0 and result.err == []
    vkey = VerifierKey.parse(result.out.strip(), "stdout")
    assert vkey.name == "example.com/log"
    assert stat.S_IMODE(os.stat(tmp_path / "signing.key").st_mode) == 0o600
    assert SignerKey.parse((tmp_path / "signing.key").read_text(), "k").verifier == vkey
    again = cli("key", "generate", "example.com/log", "--out", "signing.key")
    assert again.code == 1 and again.err == ["benchledger key: error: signing.key already exists; a key file is never overwritten"]
    inside = cli("key", "generate", "x", "--out", "records/x.key")
    assert inside.code == 1 and "never goes into the records store" in inside.err[0]
    assert not (records / "x.key").exists()
    in_site = cli("key", "generate", "x", "--out", "site/x.key")
    assert in_site.code == 1 and "never goes into the site folder" in in_site.err[0]
    bad = cli("key", "generate", "a b", "--out", "other.key")
    assert bad.code == 1 and bad.err == ["benchledger key: error: NAME: key name 'a b' must be printable ASCII without spaces "
                                         "or '+' (letters, digits and punctuation, like example.com/benchmarks)"]


def test_key_generate_refuses_a_name_the_key_file_cannot_hold_and_writes_nothing(records, cli, tmp_path):
    """A non-ASCII name passed the name check, then writing the ASCII key file stopped with a
    UnicodeEncodeError traceback and left a 0-byte file that a rerun said "already exists"."""
    before = sorted(os.listdir(tmp_path))
    for name in ("b\u00e4nch", "log\u202e", "x\U0001f680", "a\udcffb", "tab\tname"):
        result = cli("key", "generate", name, "--out", "k.key")
        assert result.code == 1 and result.err == [f"benchledger key: error: NAME: key name {name!r} must be printable ASCII "
                                                   "without spaces or '+' (letters, digits and punctuation, like example.com/benchmarks)"]
        assert sorted(os.listdir(tmp_path)) == before


def test_a_key_file_that_cannot_be_written_whole_is_not_left_behind(records, cli, tmp_path, monkeypatch):
    """The key file was opened in place, then written: a failed write left a partial file that
    a rerun refused to replace."""
    import errno

    from benchledger import atomic

    def full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    before = sorted(os.listdir(tmp_path))
    with monkeypatch.context() as patched:
        patched.setattr(atomic, "write_all", full)
        result = cli("key", "generate", "example.com/log", "--out", "k.key")
    assert result.code == 1 and result.err == ["benchledger key: error: cannot write k.key: No space left on device"]
    assert sorted(os.listdir(tmp_path)) == before
    assert cli("key", "generate", "example.com/log", "--out", "k.key").code == 0
    assert SignerKey.parse((tmp_path / "k.key").read_text(), "k.key").name == "example.com/log"


def test_checkpoint_after_a_seal_extends_the_log_and_prove_verifies(records, cli, valid, monkeypatch):
    assert cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json").code == 0
    behind = cli("verify")  # the new record is in no signed tree until the next checkpoint, and verify says so
    assert behind.code == 0 and ("latest tree size 2 of the ledger's 3 entries (origin " in behind.out
                                 and "; 1 sealed since are in no signed tree: run `benchledger checkpoint`\n" in behind.out)
    monkeypatch.setenv("BENCHLEDGER_SIGNING_KEY", str(DEMO_KEY_FILE))
    result = cli("checkpoint")
    assert result.code == 0 and result.err == []
    assert result.out.startswith("signed records/checkpoints/3: tree size 3, root ")
    assert sorted(os.listdir(records / "checkpoints")) == ["2", "3", "vkeys"]
    assert cli("checkpoint").out == "records/checkpoints/3 already covers all 3 ledger entries; nothing to sign\n"
    verified = cli("verify")
    assert verified.code == 0 and "checkpoints: 2 signed, latest tree size 3 of the ledger's 3 entries (origin " in verified.out
    proof = json.loads(cli("prove", "torch-graph-replay/2026-11-30.json").out)
    checkpoint, note = read_checkpoint((records / "checkpoints/3").read_bytes(), "3")
    assert (proof["leaf_index"], proof["tree_size"]) == (2, 3)
    assert proof["line"].encode() == (records / "ledger.jsonl").read_bytes().splitlines()[2]
    assert verify_inclusion(2, 3, leaf_hash(proof["line"].encode()), [bytes.fromhex(h) for h in proof["hashes"]], checkpoint.root)
    assert note.signed_by(demo_key().verifier)


def test_checkpoint_refuses_an_origin_that_is_not_one_printable_line_and_signs_nothing(records, cli):
    """An --origin holding a line break, U+202E or an undecodable byte reached the checkpoint's
    own check, which stopped the first `checkpoint` of a log with a ValueError traceback."""
    import shutil

    shutil.rmtree(records / "checkpoints")  # a log's first checkpoint takes --origin as given
    before = tree_digest(records)
    for origin in ("a\nb", "log\u202e", "log\udcff", "a\rb"):
        result = cli("checkpoint", "--key", str(DEMO_KEY_FILE), "--origin", origin)
        assert result.code == 1 and result.err == [
            f"benchledger checkpoint: error: --origin: origin {origin!r} must be one line of printable characters "
            "(no line breaks, control or bidi characters); pass the log's name, like example.com/benchmarks"]
        assert tree_digest(records) == before
    with pytest.raises(SystemExit) as empty:  # refused as every empty value is (benchledger/cli/arguments.py)
        cli("checkpoint", "--key", str(DEMO_KEY_FILE), "--origin", "")
    assert empty.value.code == 2
    assert tree_digest(records) == before


def test_prove_a_record_sealed_after_the_latest_checkpoint_says_so(records, cli, valid):
    cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    result = cli("prove", "torch-graph-replay/2026-11-30.json")
    assert result.code == 1
    assert result.err == ["benchledger prove: error: torch-graph-replay/2026-11-30.json: sealed after the latest checkpoint "
                          "(tree size 2): run `benchledger checkpoint` to sign a tree that includes it"]


def test_checkpoint_refuses_a_key_that_is_not_the_projects(records, cli, tmp_path, valid):
    cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    cli("key", "generate", "other", "--out", "other.key")
    before = tree_digest(records)
    result = cli("checkpoint", "--key", "other.key")
    assert result.code == 1 and "is not one of the project's verifier keys (records/checkpoints/vkeys)" in result.err[0]
    assert tree_digest(records) == before
    assert cli("checkpoint").err == ["benchledger checkpoint: error: --key: no signing key: pass --key FILE or set BENCHLEDGER_SIGNING_KEY to the key file"]
    (records / "demo.key").write_bytes(DEMO_KEY_FILE.read_bytes())
    inside = cli("checkpoint", "--key", "records/demo.key")
    assert inside.code == 1 and "a private key must not live in the records store" in inside.err[0]


def test_checkpoint_refuses_a_tree_inconsistent_with_the_last_checkpoint(records, cli):
    edit_line_rechained(records / "ledger.jsonl")
    before = tree_digest(records)
    result = cli("checkpoint", "--key", str(DEMO_KEY_FILE))
    assert result.code == 1
    assert result.err[0].startswith("benchledger checkpoint: error: records/checkpoints/2: root: signs root ")
    assert "the ledger's history was rewritten" in result.err[0]
    assert tree_digest(records) == before


def _verify_errors(cli) -> list[str]:
    result = cli("verify")
    assert result.code == 1
    return result.err


def test_verify_names_the_root_step_for_a_line_edited_and_rechained(records, cli):
    edit_line_rechained(records / "ledger.jsonl")
    errors = _verify_errors(cli)
    assert len(errors) == 1 and errors[0].startswith("benchledger verify: error: records/checkpoints/2: root: signs root ")
    assert "the ledger's history was rewritten (an entry edited, removed or inserted, even with the chain recomputed)" in errors[0]


def test_verify_names_the_root_step_for_a_line_removed_and_rechained(records, cli):
    remove_line_rechained(records / "ledger.jsonl")
    assert _verify_errors(cli) == ["benchledger verify: error: records/checkpoints/2: root: signs a tree of 2 entries but "
                                   "records/ledger.jsonl has only 1: entries were removed from the ledger"]


def test_verify_names_the_signature_step_for_a_history_rewritten_and_resigned(records, cli):
    edit_line_rechained(records / "ledger.jsonl")
    resign(records / "ledger.jsonl", records / "checkpoints/2", SignerKey.generate("attacker.example"),
           "demo.benchledger.invalid/DEMONSTRATION-KEY-NOT-SECRET")
    errors = _verify_errors(cli)
    assert len(errors) == 1
    assert errors[0].startswith("benchledger verify: error: records/checkpoints/2: signature: not signed by a key in records/checkpoints/vkeys")
    assert errors[0].endswith("its signature lines name attacker.example: the checkpoint was forged or re-signed with another key")


def test_verify_names_consistency_between_stored_checkpoints(records, cli, valid):
    """Two checkpoints of different histories, both signed by the project's key (a key holder
    who forked the log): each root and the consistency step fail."""
    cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    assert cli("checkpoint", "--key", str(DEMO_KEY_FILE)).code == 0
    edit_line_rechained(records / "ledger.jsonl")
    resign(records / "ledger.jsonl", records / "checkpoints/3", demo_key(), "demo.benchledger.invalid/DEMONSTRATION-KEY-NOT-SECRET")
    errors = _verify_errors(cli)
    assert any(": records/checkpoints/2: root: " in e for e in errors)
    assert any(e.startswith("benchledger verify: error: records/checkpoints/3: consistency: the tree of size 3 is not an extension "
                            "of the earlier one of size 2") for e in errors)


def test_stray_files_in_the_checkpoints_folder_are_named(records, cli):
    (records / "checkpoints" / "notes.txt").write_text("hello")
    (records / "checkpoints" / "5").write_text("not a note")
    errors = _verify_errors(cli)
    assert "benchledger verify: error: records/checkpoints/5: format: not a signed note: expected the text, a blank line, then signature lines '— NAME BASE64'" in errors
    assert any(e.startswith("benchledger verify: error: records/checkpoints/notes.txt: format: not a checkpoint") for e in errors)


def test_verifier_keys_in_benchledger_toml_take_over_from_the_store(records, cli, tmp_path, valid):
    """A project lists its verifier keys in benchledger.toml ([log] verifier_keys): checkpoints
    are checked against those, and only those keys may sign."""
    (tmp_path / "benchledger.toml").write_text(f'[log]\nverifier_keys = ["{demo_key().verifier.text}"]\n')
    (records / "checkpoints" / "vkeys").unlink()
    verified = cli("verify")
    assert verified.code == 0 and "checked against the keys in benchledger.toml [log] verifier_keys" in verified.out
    cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    cli("key", "generate", "other", "--out", "other.key")
    refused = cli("checkpoint", "--key", "other.key")
    assert refused.code == 1 and "is not one of the project's verifier keys (benchledger.toml [log] verifier_keys)" in refused.err[0]
    assert cli("checkpoint", "--key", str(DEMO_KEY_FILE)).code == 0
    assert not (records / "checkpoints" / "vkeys").exists()  # the keys stay where the project keeps them
    other = SignerKey.parse((tmp_path / "other.key").read_text(), "other.key").verifier.text
    (tmp_path / "benchledger.toml").write_text(f'[log]\nverifier_keys = ["{other}"]\n')
    errors = cli("verify").err
    assert any(": signature: not signed by a key in benchledger.toml [log] verifier_keys" in e for e in errors)
    (tmp_path / "benchledger.toml").write_text('[log]\nverifier_keys = ["nope"]\n')
    assert cli("verify").err[0] == "benchledger verify: error: benchledger.toml: $.log.verifier_keys[0]: not a verifier key (NAME+KEYID+BASE64): 'nope'"


def test_a_broken_vkeys_file_is_named_without_calling_the_checkpoints_forged(records, cli):
    """With no readable key no signature can be checked: each checkpoint was also called forged."""
    (records / "checkpoints" / "vkeys").write_text("not a key\n")
    errors = _verify_errors(cli)
    assert errors and all("records/checkpoints/vkeys" in e for e in errors), errors
    assert not any("forged" in e for e in errors)


def test_a_linked_or_special_checkpoint_file_is_named_not_followed(records, cli, tmp_path):
    """The store keeps plain files: a checkpoint or vkeys file that is a symbolic link is not
    followed (it could point anywhere), and a FIFO is refused at once instead of blocking."""
    folder = records / "checkpoints"
    (tmp_path / "elsewhere").write_bytes((folder / "vkeys").read_bytes())
    (folder / "vkeys").unlink()
    (folder / "vkeys").symlink_to(tmp_path / "elsewhere")
    os.mkfifo(folder / "7")
    errors = _verify_errors(cli)
    assert ("benchledger verify: error: records/checkpoints/vkeys: is a symbolic link, not a key list; "
            "the store keeps plain files only") in errors, errors
    assert "benchledger verify: error: records/checkpoints/7: format: is not a regular file (a device, pipe or socket), not a checkpoint" in errors, errors


def test_a_checkpoints_file_or_link_is_named_by_verify_checkpoint_and_prove(records, cli, tmp_path):
    """`checkpoints` as a file made `checkpoint` end in a FileExistsError traceback and `prove`
    say there was no checkpoint yet; a link to a folder elsewhere was followed by `checkpoint`
    while `verify` called it unsealed."""
    import shutil

    said = ("records/checkpoints: format: is not a folder (a file or a symbolic link); checkpoints/ holds the ledger's "
            "signed checkpoints: move it out of the store")
    shutil.move(records / "checkpoints", tmp_path / "kept")
    for make in ((lambda: (records / "checkpoints").write_text("x")), (lambda: (records / "checkpoints").symlink_to(tmp_path / "kept"))):
        make()
        errors = _verify_errors(cli)
        assert f"benchledger verify: error: {said}" in errors and sum("checkpoints" in e for e in errors) == 1, errors  # not also "unsealed"
        signed = cli("checkpoint", "--key", str(DEMO_KEY_FILE))
        assert signed.code == 1 and f"benchledger checkpoint: error: {said}" in signed.err and "Traceback" not in "\n".join(signed.err)
        proved = cli("prove", "llm-cpu-offload/2026-09-27.json")
        assert proved.code == 1 and f"benchledger prove: error: {said}" in proved.err
        (records / "checkpoints").unlink()


def test_a_seal_into_a_ledger_behind_its_checkpoints_or_emptied_is_refused(records, cli, valid):
    """An older ledger restored (or its last lines cut) under a signed checkpoint: a seal
    appended at the old position, forking the signed history for good; an emptied ledger
    started a new chain that left every record out."""
    ledger = records / "ledger.jsonl"
    whole = ledger.read_bytes()
    ledger.write_bytes(whole.splitlines(keepends=True)[0])
    before = tree_digest(records)
    behind = cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    assert behind.code == 1 and behind.err == [
        "benchledger seal: error: records/ledger.jsonl: holds 1 entry, but records/checkpoints/2 signs 2: the ledger lost "
        "entries; restore it from where the store came from (git, a backup, a built site's records/ledger.jsonl), then seal; "
        "nothing was sealed"]
    assert tree_digest(records) == before
    ledger.write_bytes(b"")
    emptied = cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json")
    assert emptied.code == 1 and "records/ledger.jsonl: empty, while the store holds files (" in "\n".join(emptied.err)
    ledger.write_bytes(whole)
    assert cli("seal", "new.json", "--schema", TGR, "--as", "torch-graph-replay/2026-11-30.json").code == 0
