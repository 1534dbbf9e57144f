"""The ledger's Merkle tree (RFC 9162, section 2.1): leaf hash = SHA-256(0x00 || the ledger
line's exact bytes without its newline), interior node = SHA-256(0x01 || left || right), the
leaves split at the largest power of two smaller than the size. Inclusion proofs (2.1.3) and
consistency proofs (2.1.4) with their verification algorithms.

The ledger's hash chain stays: the tree sits on top of it, so that a reader can check one
record's line against a signed root with log2(n) hashes instead of downloading the ledger, and
that two roots seen at different times belong to one append-only history."""

from __future__ import annotations

import hashlib
from typing import Sequence

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()  # MTH({}) = SHA-256() (RFC 9162 2.1.1)


def leaf_hash(entry: bytes) -> bytes:
    """SHA-256(0x00 || entry): the hash of one leaf (a ledger line without its newline)."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right): the hash of an interior node."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def split_point(n: int) -> int:
    """The largest power of two smaller than n (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


class MerkleTree:
    """The tree over a list of leaf hashes. Subtree hashes are memoised, so building every
    inclusion proof of an n-leaf tree costs about 2n hashes in all, not n per proof."""

    def __init__(self, leaf_hashes: Sequence[bytes]):
        if any(len(h) != HASH_SIZE for h in leaf_hashes):
            raise ValueError("leaf hashes must be 32-byte SHA-256 digests")
        self._leaves = list(leaf_hashes)
        self._memo: dict[tuple[int, int], bytes] = {}

    @classmethod
    def from_entries(cls, entries: Sequence[bytes]) -> "MerkleTree":
        """The tree whose leaves are these entries (ledger lines without newline)."""
        return cls([leaf_hash(e) for e in entries])

    @property
    def size(self) -> int:
        return len(self._leaves)

    def root(self, size: int | None = None) -> bytes:
        """MTH of the first `size` leaves (default: all of them)."""
        size = self.size if size is None else self._check_size(size)
        return self._hash(0, size) if size else EMPTY_ROOT

    def _check_size(self, size: int) -> int:
        if not 0 <= size <= self.size:
            raise ValueError(f"tree size {size} is outside 0..{self.size}")
        return size

    def _hash(self, start: int, end: int) -> bytes:
        """MTH(D[start:end]), end > start."""
        if end - start == 1:
            return self._leaves[start]
        key = (start, end)
        found = self._memo.get(key)
        if found is None:
            k = split_point(end - start)
            found = self._memo[key] = node_hash(self._hash(start, start + k), self._hash(start + k, end))
        return found

    def inclusion_proof(self, index: int, size: int | None = None) -> list[bytes]:
        """PATH(index, D[0:size]) (RFC 9162 2.1.3.1): the audit path of leaf `index`."""
        size = self.size if size is None else self._check_size(size)
        if not 0 <= index < size:
            raise ValueError(f"leaf index {index} is outside a tree of size {size}")
        path: list[bytes] = []
        start, end = 0, size
        while end - start > 1:  # walk down from the root; the path is built leaf first
            k = split_point(end - start)
            if index - start < k:
                path.append(self._hash(start + k, end))
                end = start + k
            else:
                path.append(self._hash(start, start + k))
                start += k
        return path[::-1]

    def consistency_proof(self, old_size: int, new_size: int | None = None) -> list[bytes]:
        """PROOF(old_size, D[0:new_size]) (RFC 9162 2.1.4.1); empty when old_size is 0 or equal."""
        new_size = self.size if new_size is None else self._check_size(new_size)
        if not 0 <= old_size <= new_size:
            raise ValueError(f"cannot prove size {old_size} consistent with the smaller size {new_size}")
        if old_size in (0, new_size):
            return []
        return self._subproof(old_size, 0, new_size, True)

    def _subproof(self, m: int, start: int, end: int, complete: bool) -> list[bytes]:
        n = end - start
        if m == n:
            return [] if complete else [self._hash(start, end)]
        k = split_point(n)
        if m <= k:
            return self._subproof(m, start, start + k, complete) + [self._hash(start + k, end)]
        return self._subproof(m - k, start + k, end, False) + [self._hash(start, start + k)]


def root_of(entries: Sequence[bytes]) -> bytes:
    """MTH of these entries (ledger lines without newline)."""
    return MerkleTree.from_entries(entries).root()


def inclusion_root(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes | None:
    """The root that `proof` proves leaf hash `leaf` at `index` into, for a tree of `size`
    leaves (RFC 9162 2.1.3.2); None when the proof cannot be for that index and size."""
    if not 0 <= index < size or any(len(p) != HASH_SIZE for p in proof):
        return None
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes) -> bool:
    """Whether `proof` shows leaf hash `leaf` at `index` in the tree of `size` leaves with `root`."""
    return inclusion_root(index, size, leaf, proof) == root


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """Whether `proof` shows the tree (old_size, old_root) is a prefix of (new_size, new_root)
    (RFC 9162 2.1.4.2). Equal sizes need an empty proof and equal roots; size 0 is a prefix of
    every tree (with an empty proof)."""
    if not 0 <= old_size <= new_size or any(len(p) != HASH_SIZE for p in proof):
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof and old_root == EMPTY_ROOT
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # an exact power of two: the old root is the first node
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0
