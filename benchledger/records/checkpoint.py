"""Checkpoints: the C2SP `tlog-checkpoint` body (origin line, decimal tree size, base64 root
hash, each ending in a newline) inside a C2SP signed note:

    <origin>\\n<size>\\n<base64 root>\\n
    \\n
    — <key name> <base64(4-byte key id || 64-byte Ed25519 signature)>\\n

The signature covers the body exactly (its final newline included, not the blank line).
Parsing raises InputError naming the file and the reason."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from benchledger.errors import InputError
from benchledger.records.keys import SignerKey, VerifierKey, key_name_problem
from benchledger.records.merkle import HASH_SIZE

SIG_PREFIX = "\u2014 "  # an em dash and a space start every signature line
_SIZE = re.compile(r"0|[1-9][0-9]{0,19}")
MAX_NOTE_BYTES = 1 << 20  # far above any checkpoint; a bigger file is not one


def origin_problem(origin: str) -> str | None:
    """Why `origin` cannot be a checkpoint's origin line, or None."""
    if not origin:
        return "is empty"
    if not origin.isprintable():  # a line break, a control or bidi character, an undecodable byte
        return "must be one line of printable characters (no line breaks, control or bidi characters)"
    return None


@dataclass(frozen=True)
class Checkpoint:
    """A tree head: the log's origin, its size and its root hash."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()  # further body lines, kept as read

    def __post_init__(self):
        problem = origin_problem(self.origin)
        if problem:
            raise ValueError(f"a checkpoint origin {problem}")
        if self.size < 0 or len(self.root) != HASH_SIZE:
            raise ValueError("a checkpoint needs a size >= 0 and a 32-byte root")

    @property
    def body(self) -> str:
        """The checkpoint's text, the bytes a signature covers."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def parse_body(cls, body: str, shown: str) -> "Checkpoint":
        """A checkpoint body; InputError naming `shown` when malformed."""
        lines = body.split("\n")
        if len(lines) < 4 or lines[-1] != "":
            raise InputError(shown, "", "not a checkpoint: expected an origin line, a tree size line and a base64 root line, each ending in a newline")
        origin, size, root, *extensions = lines[:-1]
        if origin_problem(origin):
            raise InputError(shown, "", "checkpoint line 1 (origin) must be a non-empty printable line", 1)
        if not _SIZE.fullmatch(size):
            raise InputError(shown, "", f"checkpoint line 2 (tree size) must be a decimal number, found {size[:40]!r}", 2)
        try:
            root_hash = base64.b64decode(root, validate=True)
        except (binascii.Error, ValueError):
            root_hash = b""
        if len(root_hash) != HASH_SIZE:
            raise InputError(shown, "", "checkpoint line 3 (root hash) must be the base64 of 32 bytes", 3)
        if any(not line for line in extensions):
            raise InputError(shown, "", "a checkpoint has no empty lines before its signatures")
        return cls(origin, int(size), root_hash, tuple(extensions))


@dataclass(frozen=True)
class NoteSignature:
    """One signature line of a note."""

    name: str
    key_id: bytes
    signature: bytes

    @property
    def line(self) -> str:
        return f"{SIG_PREFIX}{self.name} {base64.b64encode(self.key_id + self.signature).decode()}\n"


@dataclass(frozen=True)
class SignedNote:
    """A note's text and its signature lines, as read (nothing verified yet)."""

    text: str
    signatures: tuple[NoteSignature, ...]

    @property
    def encoded(self) -> bytes:
        """The note as a file holds it."""
        return (self.text + "\n" + "".join(s.line for s in self.signatures)).encode("utf-8")

    def signed_by(self, key: VerifierKey) -> bool:
        """Whether a signature line carries `key`'s name and id and a valid signature of the text."""
        message = self.text.encode("utf-8")
        return any(s.name == key.name and s.key_id == key.key_id and key.verify(message, s.signature)
                   for s in self.signatures)

    def key_names(self) -> list[str]:
        """The key names of the signature lines (unverified)."""
        return [s.name for s in self.signatures]


def sign_note(text: str, signer: SignerKey) -> SignedNote:
    """`text` (ending in a newline) signed by `signer`."""
    if not text.endswith("\n"):
        raise ValueError("a note's text ends with a newline")
    sig = signer.sign(text.encode("utf-8"))
    return SignedNote(text, (NoteSignature(signer.name, signer.verifier.key_id, sig),))


def parse_note(raw: bytes, shown: str) -> SignedNote:
    """A signed note's bytes -> SignedNote; InputError naming `shown` when malformed."""
    if len(raw) > MAX_NOTE_BYTES:
        raise InputError(shown, "", f"{len(raw)} bytes is too large for a signed note")
    try:
        encoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(shown, "", "not UTF-8: a signed note is text") from None
    if "\r" in encoded:
        raise InputError(shown, "", "a signed note has no carriage returns")
    split = encoded.rfind("\n\n")
    if split < 0 or not encoded.endswith("\n"):
        raise InputError(shown, "", "not a signed note: expected the text, a blank line, then signature lines '— NAME BASE64'")
    text, sig_block = encoded[: split + 1], encoded[split + 2:]
    signatures = []
    for number, line in enumerate(sig_block.split("\n")[:-1], start=text.count("\n") + 2):
        if not line.startswith(SIG_PREFIX):
            raise InputError(shown, "", "a signature line starts with an em dash and a space ('— NAME BASE64')", number)
        name, _, blob = line[len(SIG_PREFIX):].partition(" ")
        try:
            decoded = base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if key_name_problem(name) or len(decoded) < 5:
            raise InputError(shown, "", "a signature line is '— NAME BASE64(key id || signature)'", number)
        signatures.append(NoteSignature(name, decoded[:4], decoded[4:]))
    if not signatures:
        raise InputError(shown, "", "the note carries no signature")
    return SignedNote(text, tuple(signatures))


def sign_checkpoint(checkpoint: Checkpoint, signer: SignerKey) -> SignedNote:
    """The checkpoint as a note signed by `signer`."""
    return sign_note(checkpoint.body, signer)


def read_checkpoint(raw: bytes, shown: str) -> tuple[Checkpoint, SignedNote]:
    """A signed checkpoint file -> (checkpoint, note); InputError naming `shown` when malformed."""
    note = parse_note(raw, shown)
    return Checkpoint.parse_body(note.text, shown), note
