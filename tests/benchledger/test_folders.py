"""`folders.relation`: how two real folders lie, symlinks resolved."""

from benchledger.folders import CONTAINS, IS, LIES_INSIDE, relation, within


def test_relations_of_real_folders_and_links(tmp_path):
    store = tmp_path / "records"
    (store / "llm").mkdir(parents=True)
    (tmp_path / "site").mkdir()
    (tmp_path / "link-to-store").symlink_to(store)
    assert relation(store, store) == IS
    assert relation(tmp_path / "link-to-store", store) == IS
    assert relation(store / "llm", store) == LIES_INSIDE
    assert relation(tmp_path / "link-to-store" / "llm" / "not-yet", store) == LIES_INSIDE
    assert relation(tmp_path, store) == CONTAINS
    assert relation(tmp_path / "site", store) is None
    assert relation(tmp_path / "records-2", store) is None  # a shared name prefix is not a folder inside
    assert within(store / "llm" / "a.json", store) and within(store, store)
    assert not within(tmp_path, store) and not within(tmp_path / "site", store)
