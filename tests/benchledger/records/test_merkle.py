"""The Merkle tree against the RFC 6962 reference vectors (the CT test suite's leaves, roots and
proofs), against pymerkle (an independent RFC 9162 implementation) for every tree size up to
300, and tampered proofs; plus hypothesis properties."""

from __future__ import annotations

import hashlib

import pymerkle
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchledger.records.merkle import (EMPTY_ROOT, MerkleTree, inclusion_root, leaf_hash, node_hash,
                                        verify_consistency, verify_inclusion)

# The CT reference tree (RFC 6962 test data): 8 leaves, the root of every prefix, and proofs.
LEAVES = [bytes.fromhex(h) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
INCLUSION = [  # (0-based leaf index, tree size, path)
    (0, 1, []),
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
CONSISTENCY = [  # (old size, new size, proof)
    (1, 1, []),
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]
TREE = MerkleTree.from_entries(LEAVES)


def hexes(hashes):
    return [h.hex() for h in hashes]


def test_hashes_are_domain_separated_sha256():
    assert leaf_hash(b"") == hashlib.sha256(b"\x00").digest()
    assert node_hash(b"a" * 32, b"b" * 32) == hashlib.sha256(b"\x01" + b"a" * 32 + b"b" * 32).digest()
    assert EMPTY_ROOT.hex() == ROOTS[0]


@pytest.mark.parametrize("size", range(len(ROOTS)))
def test_roots_match_the_reference_vectors(size):
    assert TREE.root(size).hex() == ROOTS[size]


@pytest.mark.parametrize("index,size,path", INCLUSION)
def test_inclusion_proofs_match_the_reference_vectors(index, size, path):
    proof = TREE.inclusion_proof(index, size)
    assert hexes(proof) == path
    assert verify_inclusion(index, size, leaf_hash(LEAVES[index]), proof, TREE.root(size))


@pytest.mark.parametrize("old,new,path", CONSISTENCY)
def test_consistency_proofs_match_the_reference_vectors(old, new, path):
    proof = TREE.consistency_proof(old, new)
    assert hexes(proof) == path
    assert verify_consistency(old, new, TREE.root(old), TREE.root(new), proof)


def pymerkle_tree(entries):
    tree = pymerkle.InmemoryTree(algorithm="sha256")
    for entry in entries:
        tree.append_entry(entry)
    return tree


MAX_SIZE = 300
ENTRIES = [f'{{"position":{i},"line":"entry {i}"}}'.encode() for i in range(MAX_SIZE)]
OURS = MerkleTree.from_entries(ENTRIES)
THEIRS = pymerkle_tree(ENTRIES)


def test_roots_agree_with_pymerkle_for_every_size():
    for size in range(1, MAX_SIZE + 1):
        assert OURS.root(size) == THEIRS.get_root(size), size


def test_inclusion_proofs_agree_with_pymerkle_for_every_size_and_index():
    """pymerkle's path starts with the leaf itself, then the RFC 9162 audit path."""
    for size in range(1, MAX_SIZE + 1, 7):
        root = OURS.root(size)
        for index in range(size):
            ours = OURS.inclusion_proof(index, size)
            theirs = THEIRS.prove_inclusion(index + 1, size)
            assert [bytes.fromhex(h) for h in theirs.serialize()["path"][1:]] == ours, (index, size)
            assert verify_inclusion(index, size, leaf_hash(ENTRIES[index]), ours, root)


def test_every_inclusion_proof_verifies_up_to_a_few_hundred_leaves():
    for size in range(1, MAX_SIZE + 1):
        root = OURS.root(size)
        for index in range(0, size, max(1, size // 17)):
            assert verify_inclusion(index, size, leaf_hash(ENTRIES[index]), OURS.inclusion_proof(index, size), root)


def test_consistency_proofs_verify_with_pymerkle_roots_for_every_pair_of_sizes():
    """Our proofs from size m to n verify against the roots pymerkle computes, and pymerkle
    accepts the two states as consistent."""
    for new in range(1, MAX_SIZE + 1, 3):
        new_root = THEIRS.get_root(new)
        for old in range(1, new + 1, max(1, new // 23)):
            proof = OURS.consistency_proof(old, new)
            assert verify_consistency(old, new, THEIRS.get_root(old), new_root, proof), (old, new)
            pymerkle.verify_consistency(THEIRS.get_root(old), new_root, THEIRS.prove_consistency(old, new))


def flip(h: bytes) -> bytes:
    return bytes([h[0] ^ 1]) + h[1:]


def test_tampered_inclusion_proofs_fail_for_every_size():
    for size in range(1, 130):
        root = OURS.root(size)
        for index in {0, size // 2, size - 1}:
            leaf = leaf_hash(ENTRIES[index])
            proof = OURS.inclusion_proof(index, size)
            for i in range(len(proof)):  # any hash changed
                assert not verify_inclusion(index, size, leaf, proof[:i] + [flip(proof[i])] + proof[i + 1:], root)
            if proof:
                assert not verify_inclusion(index, size, leaf, proof[:-1], root)  # a hash dropped
            assert not verify_inclusion(index, size, leaf, proof + [root], root)  # one added
            assert not verify_inclusion(index, size, flip(leaf), proof, root)  # another leaf
            assert not verify_inclusion(index, size, leaf_hash(ENTRIES[index] + b" "), proof, root)
            if size > 1:
                assert not verify_inclusion((index + 1) % size, size, leaf, proof, root)  # another index
            assert not verify_inclusion(index, size, leaf, proof, flip(root))


def test_tampered_consistency_proofs_fail():
    for new in range(2, 130):
        for old in {1, new // 2, new - 1}:
            proof = OURS.consistency_proof(old, new)
            old_root, new_root = OURS.root(old), OURS.root(new)
            assert verify_consistency(old, new, old_root, new_root, proof)
            for i in range(len(proof)):
                assert not verify_consistency(old, new, old_root, new_root, proof[:i] + [flip(proof[i])] + proof[i + 1:])
            assert not verify_consistency(old, new, old_root, new_root, proof[:-1])
            assert not verify_consistency(old, new, old_root, new_root, proof + [new_root])
            assert not verify_consistency(old, new, flip(old_root), new_root, proof)
            assert not verify_consistency(old, new, old_root, flip(new_root), proof)
            # a history rewritten before `old`: the old root no longer is a prefix
            forked = MerkleTree.from_entries(ENTRIES[:old - 1] + [b"forged"] + ENTRIES[old:new])
            assert not verify_consistency(old, new, old_root, forked.root(), forked.consistency_proof(old, new))


def test_edge_cases():
    assert verify_consistency(0, 5, EMPTY_ROOT, OURS.root(5), [])
    assert verify_consistency(5, 5, OURS.root(5), OURS.root(5), [])
    assert not verify_consistency(5, 5, OURS.root(5), OURS.root(6), [])
    assert not verify_consistency(6, 5, OURS.root(6), OURS.root(5), [])
    assert not verify_consistency(3, 5, OURS.root(3), OURS.root(5), [])  # m < n needs a proof
    assert inclusion_root(0, 0, leaf_hash(b""), []) is None
    assert inclusion_root(0, 1, leaf_hash(b""), [b"short"]) is None
    with pytest.raises(ValueError):
        OURS.inclusion_proof(5, 5)
    with pytest.raises(ValueError):
        OURS.consistency_proof(6, 5)
    assert MerkleTree([]).root() == EMPTY_ROOT


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=12), min_size=1, max_size=70), st.data())
def test_property_every_proof_verifies_and_roots_are_prefix_roots(entries, data):
    tree = MerkleTree.from_entries(entries)
    size = data.draw(st.integers(1, len(entries)))
    index = data.draw(st.integers(0, size - 1))
    old = data.draw(st.integers(0, size))
    assert tree.root(size) == MerkleTree.from_entries(entries[:size]).root()
    assert verify_inclusion(index, size, leaf_hash(entries[index]), tree.inclusion_proof(index, size), tree.root(size))
    assert verify_consistency(old, size, tree.root(old), tree.root(size), tree.consistency_proof(old, size))
    assert len(tree.inclusion_proof(index, size)) <= max(0, (size - 1).bit_length())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=8), min_size=2, max_size=40, unique=True), st.data())
def test_property_a_changed_entry_breaks_its_proof_and_consistency(entries, data):
    size = len(entries)
    index = data.draw(st.integers(0, size - 1))
    tree = MerkleTree.from_entries(entries)
    changed = list(entries)
    changed[index] = entries[index] + b"!"
    other = MerkleTree.from_entries(changed)
    assert other.root() != tree.root()
    assert not verify_inclusion(index, size, leaf_hash(changed[index]), tree.inclusion_proof(index, size), tree.root())
    if index + 1 < size:  # the old head (before the change) is not a prefix of the changed tree
        old = data.draw(st.integers(index + 1, size - 1))
        assert not verify_consistency(old, size, tree.root(old), other.root(), other.consistency_proof(old, size))
