"""Keys and signed checkpoints against the C2SP / golang.org/x/mod/sumdb/note reference example
(key id, key encodings and the exact signed note), and malformed or tampered notes."""

from __future__ import annotations

import pytest

from benchledger.errors import InputError
from benchledger.records.checkpoint import Checkpoint, parse_note, read_checkpoint, sign_checkpoint, sign_note
from benchledger.records.keys import SignerKey, VerifierKey

GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_NOTE = GO_TEXT + "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = ("This is an example message.\n\n\u2014 example.com/foo "
             "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n")


def test_reference_keys_and_note_byte_for_byte():
    signer = SignerKey.parse(GO_SKEY, "skey")
    assert signer.text == GO_SKEY
    assert signer.verifier.text == GO_VKEY
    assert VerifierKey.parse(GO_VKEY, "vkey") == signer.verifier
    assert sign_note(GO_TEXT, signer).encoded.decode() == GO_NOTE  # Ed25519 is deterministic
    assert parse_note(GO_NOTE.encode(), "note").signed_by(signer.verifier)


def test_spec_example_verifies():
    key = VerifierKey.parse(SPEC_VKEY, "vkey")
    assert key.key_id.hex() == "530d903a"
    note = parse_note(SPEC_NOTE.encode(), "note")
    assert note.signed_by(key)
    assert not note.signed_by(VerifierKey.parse(GO_VKEY, "vkey"))


def test_tampered_notes_fail():
    key = VerifierKey.parse(GO_VKEY, "vkey")
    assert not parse_note(GO_NOTE.replace("problem,", "problem;").encode(), "note").signed_by(key)
    other = SignerKey.generate("PeterNeumann")  # same name, other key: another key id
    forged = sign_note(GO_TEXT, other)
    assert not forged.signed_by(key)
    assert forged.signed_by(other.verifier)


@pytest.mark.parametrize("text,reason", [
    ("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "does not belong"),
    ("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T", "base64"),
    ("Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "not a verifier key"),
    ("", "not a verifier key"),
])
def test_malformed_verifier_keys_are_refused_with_a_reason(text, reason):
    with pytest.raises(InputError) as err:
        VerifierKey.parse(text, "keys.txt")
    assert str(err.value).startswith("keys.txt: ") and reason in str(err.value)


def test_checkpoint_round_trip_and_format():
    signer = SignerKey.generate("bench.example/log")
    checkpoint = Checkpoint("bench.example/log", 2, bytes(range(32)))
    assert checkpoint.body == "bench.example/log\n2\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"
    raw = sign_checkpoint(checkpoint, signer).encoded
    assert raw.startswith(checkpoint.body.encode() + b"\n\xe2\x80\x94 bench.example/log ")
    parsed, note = read_checkpoint(raw, "checkpoints/2")
    assert parsed == checkpoint and note.signed_by(signer.verifier)


@pytest.mark.parametrize("raw,reason", [
    (b"origin\n2\nAAEC\n\n\xe2\x80\x94 k AAAAAAAA\n", "root hash"),
    (b"origin\nx\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n\n\xe2\x80\x94 k AAAAAAAA\n", "tree size"),
    (b"origin\n2\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", "not a signed note"),
    (b"origin\n2\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n\n- k AAAAAAAA\n", "em dash"),
    (b"\xff\n\n", "UTF-8"),
])
def test_malformed_checkpoints_are_refused_with_a_reason(raw, reason):
    with pytest.raises(InputError) as err:
        read_checkpoint(raw, "checkpoints/2")
    assert str(err.value).startswith("checkpoints/2") and reason in str(err.value)
