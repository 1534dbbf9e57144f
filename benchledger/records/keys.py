"""Ed25519 keys in the C2SP signed-note formats (the formats of golang.org/x/mod/sumdb/note):

- verifier key (public): `NAME+<8 hex key id>+<base64(0x01 || 32-byte public key)>`;
- signer key (private, kept out of the store and the site): `PRIVATE+KEY+NAME+<hex key id>+<base64(0x01 || 32-byte seed)>`;
- key id = the first 4 bytes of SHA-256(NAME || 0x0A || 0x01 || public key).

Parsing raises InputError naming the file (or the flag) the text came from and the reason."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from benchledger.errors import InputError

ALG_ED25519 = 0x01
SIGNER_PREFIX = "PRIVATE+KEY+"
_HEX_ID = re.compile(r"[0-9a-f]{8}")


def key_name_problem(name: str) -> str | None:
    """Why `name` cannot name a note key, or None. C2SP: non-empty, no spaces, no '+'; and
    ASCII, which the key file holds (a non-ASCII name crashed `key generate` halfway)."""
    if not name:
        return "is empty"
    if not all("!" <= c <= "~" and c != "+" for c in name):
        return "must be printable ASCII without spaces or '+' (letters, digits and punctuation, like example.com/benchmarks)"
    return None


def key_id(name: str, public_key: bytes) -> bytes:
    """SHA-256(name || 0x0A || 0x01 || public key)[:4]."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([ALG_ED25519]) + public_key).digest()[:4]


def _decode_key(text: str, shown: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(shown, "", f"{what}: the key is not valid base64") from None
    if len(raw) != 33 or raw[0] != ALG_ED25519:
        raise InputError(shown, "", f"{what}: expected base64 of 0x01 and a 32-byte Ed25519 key")
    return raw[1:]


@dataclass(frozen=True)
class VerifierKey:
    """A note verifier key: a name, its key id and an Ed25519 public key."""

    name: str
    key_id: bytes
    public_key: bytes

    def __post_init__(self):
        problem = key_name_problem(self.name)
        if problem:
            raise ValueError(f"key name {self.name!r} {problem}")
        if len(self.public_key) != 32 or self.key_id != key_id(self.name, self.public_key):
            raise ValueError("the key id does not belong to this name and public key")

    @classmethod
    def parse(cls, text: str, shown: str) -> "VerifierKey":
        """A verifier key line `NAME+HEXID+BASE64`; InputError (naming `shown`) when malformed."""
        text = text.strip()
        parts = text.split("+", 2)
        what = "verifier key (NAME+KEYID+BASE64)"
        if len(parts) != 3 or key_name_problem(parts[0]) or not _HEX_ID.fullmatch(parts[1]):
            raise InputError(shown, "", f"not a {what}: {text[:80]!r}")
        public = _decode_key(parts[2], shown, what)
        if key_id(parts[0], public).hex() != parts[1]:
            raise InputError(shown, "", f"{what}: key id {parts[1]} does not belong to the name and public key")
        return cls(parts[0], bytes.fromhex(parts[1]), public)

    @property
    def text(self) -> str:
        """The verifier key line."""
        return f"{self.name}+{self.key_id.hex()}+{base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()}"

    def verify(self, message: bytes, signature: bytes) -> bool:
        """Whether `signature` is this key's Ed25519 signature of `message`."""
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
            return True
        except InvalidSignature:
            return False


@dataclass(frozen=True, repr=False)  # repr=False: never print the seed in a traceback or log
class SignerKey:
    """A note signer key: a name and an Ed25519 private key (its 32-byte seed)."""

    name: str
    seed: bytes

    def __post_init__(self):
        problem = key_name_problem(self.name)
        if problem:
            raise ValueError(f"key name {self.name!r} {problem}")
        if len(self.seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")

    def __repr__(self) -> str:
        return f"SignerKey({self.name!r}, <private>)"

    @classmethod
    def generate(cls, name: str) -> "SignerKey":
        """A new random key pair named `name`."""
        private = Ed25519PrivateKey.generate()
        return cls(name, private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                               serialization.NoEncryption()))

    @classmethod
    def parse(cls, text: str, shown: str) -> "SignerKey":
        """A signer key `PRIVATE+KEY+NAME+HEXID+BASE64`; InputError (naming `shown`) when malformed."""
        text = text.strip()
        what = "signer key (PRIVATE+KEY+NAME+KEYID+BASE64, as `benchledger key generate` writes)"
        if not text.startswith(SIGNER_PREFIX):
            raise InputError(shown, "", f"not a {what}")
        parts = text[len(SIGNER_PREFIX):].split("+", 2)  # the base64 may itself contain '+'
        if len(parts) != 3 or key_name_problem(parts[0]) or not _HEX_ID.fullmatch(parts[1]):
            raise InputError(shown, "", f"not a {what}")
        key = cls(parts[0], _decode_key(parts[2], shown, what))
        if key.verifier.key_id.hex() != parts[1]:
            raise InputError(shown, "", f"{what}: key id {parts[1]} does not belong to the name and key")
        return key

    @property
    def text(self) -> str:
        """The signer key text (secret)."""
        return (f"{SIGNER_PREFIX}{self.name}+{self.verifier.key_id.hex()}+"
                f"{base64.b64encode(bytes([ALG_ED25519]) + self.seed).decode()}")

    @property
    def verifier(self) -> VerifierKey:
        """The matching verifier key."""
        public = self._private().public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return VerifierKey(self.name, key_id(self.name, public), public)

    def sign(self, message: bytes) -> bytes:
        """The 64-byte Ed25519 signature of `message`."""
        return self._private().sign(message)

    def _private(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.seed)
