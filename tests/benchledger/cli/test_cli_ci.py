"""Issue 11, class 8: CI and publishing builds run without caches. With the CI environment
variable set, `build` and `verify` judge and render everything afresh (a cache carried between
CI runs must not be able to change what is published); `--cache DIR` still opts in, and
CI=false (or 0, no, off, empty) is not CI."""

from __future__ import annotations

import shutil

import pytest

from benchledger.cli.main import main
from tests.store_copies import SHIPPED

PASSES = "validation-passes.txt"


@pytest.fixture
def store(tmp_path):
    return shutil.copytree(SHIPPED, tmp_path / "records")


def _default_cache(tmp_path):
    return tmp_path / ".cache" / "benchledger"  # beside the records, where a build caches by default


def test_verify_under_ci_uses_no_cache_unless_one_is_named(store, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("BENCHLEDGER_CACHE_DIR", raising=False)
    monkeypatch.setenv("CI", "true")
    assert main(["verify", "--records", str(store)]) == 0
    assert not _default_cache(tmp_path).exists()
    # --cache DIR opts in, under CI too
    assert main(["verify", "--records", str(store), "--cache", str(tmp_path / "mine")]) == 0
    assert len((tmp_path / "mine" / PASSES).read_text().splitlines()) == 2
    assert main(["verify", "--records", str(store), "--cache", str(tmp_path / "mine"), "--no-cache"]) == 1
    assert "give --cache DIR or --no-cache, not both" in capsys.readouterr().err
    # CI=false is not CI: the default cache is used again
    monkeypatch.setenv("CI", "false")
    assert main(["verify", "--records", str(store)]) == 0
    assert len((_default_cache(tmp_path) / PASSES).read_text().splitlines()) == 2


def test_build_under_ci_uses_no_cache_unless_one_is_named(store, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("BENCHLEDGER_CACHE_DIR", raising=False)
    monkeypatch.setenv("CI", "1")
    args = ["build", "--records", str(store), "--out", str(tmp_path / "site"), "--articles", str(tmp_path / "none")]
    (tmp_path / "none").mkdir()
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("charts rendered, no cache: the CI environment variable is set)"), out
    assert not _default_cache(tmp_path).exists() and (tmp_path / "site" / "SHA256SUMS").is_file()
    assert main([*args, "--cache", str(tmp_path / "mine")]) == 0
    assert "no cache" not in capsys.readouterr().out and (tmp_path / "mine" / PASSES).is_file()
    assert any((tmp_path / "mine" / "charts").iterdir())


def test_a_cache_folder_inside_the_store_or_the_articles_is_refused_before_anything_is_written(store, tmp_path, monkeypatch, capsys):
    """`verify --cache records` left validation-passes.txt in the store, which every later verify
    then called an unsealed file; `build --cache docs/articles` filled the articles folder with
    the build's own tree, and every later build failed on it."""
    from tests.store_copies import tree_digest

    monkeypatch.delenv("BENCHLEDGER_CACHE_DIR", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.chdir(tmp_path)
    articles = tmp_path / "docs" / "articles"
    articles.mkdir(parents=True)
    before = tree_digest(store)
    for argv, where in ((["verify", "--records", "records", "--cache", "records"], "records"),
                        (["build", "--records", "records", "--cache", "records/llm-cpu-offload"], (store / "llm-cpu-offload").as_posix())):
        assert main(argv) == 1
        assert capsys.readouterr().err.splitlines() == [
            f"benchledger {argv[0]}: error: {where}: the cache folder lies inside the records store records; "
            "choose one outside it (--cache DIR or BENCHLEDGER_CACHE_DIR)"]
    assert main(["build", "--records", "records", "--cache", "docs/articles/cache"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"benchledger build: error: the cache folder {(articles / 'cache').as_posix()} lies inside the articles folder "
        f"({articles.as_posix()}); the build writes there: choose another cache folder (--cache DIR or BENCHLEDGER_CACHE_DIR)"]
    assert tree_digest(store) == before and list(articles.iterdir()) == [] and not (tmp_path / "site").exists()
