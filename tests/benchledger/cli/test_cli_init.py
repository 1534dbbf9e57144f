"""`benchledger init DIR`: a new project that builds at once, then publishes a sealed record
cited by an article; a folder that holds anything is refused and left as it was."""

from pathlib import Path

from benchledger.cli.main import main
from benchledger.project import load_project
from tests.store_copies import SHIPPED, tree_digest

SEED = SHIPPED / "llm-cpu-offload" / "2026-09-27.json"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def test_init_scaffolds_a_project_that_builds_and_then_cites_a_sealed_record(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "init", "lab")
    assert code == 0, err
    project = tmp_path / "lab"
    files = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    plans = ["plans/README.md", "plans/graph-replay-cpu.toml", "plans/graph-replay-gpu.toml", "plans/llama-tiny.toml", "plans/ray-cpu.toml"]
    assert files == [".github/workflows/publish.yml", ".gitignore", "benchledger.toml", "docs/articles/welcome.md", *plans,
                     "records/ledger.jsonl"]
    # a pip user has no examples/ folder: the plans come with the project, their paths its own
    assert "benchledger collect plans/graph-replay-cpu.toml" in (project / "plans" / "graph-replay-cpu.toml").read_text()
    assert "examples/" not in "".join((project / p).read_text() for p in plans)
    assert (project / "records" / "ledger.jsonl").read_bytes() == b""
    assert load_project(project).config_file == (project / "benchledger.toml").resolve()  # every key commented: valid, defaults
    toml = (project / "benchledger.toml").read_text()
    for key in ("name", "url", "records", "articles", "templates", "logo", "primary", "accent", "title", "source"):
        assert f"# {key} = " in toml
    assert {"site/", ".cache/"} <= set((project / ".gitignore").read_text().split())
    workflow = (project / ".github" / "workflows" / "publish.yml").read_text()
    assert "benchledger build --no-cache" in workflow and "actions/deploy-pages" in workflow and "__VERSION__" not in workflow

    monkeypatch.chdir(project)
    code, out, err = run(capsys, "build")
    assert code == 0, err
    assert "note: docs/articles/welcome.md: cites no sealed record yet" in out
    welcome = (project / "site" / "posts" / "welcome.html").read_text()
    assert "{{ cite(" in welcome  # the syntax is shown, not expanded
    assert run(capsys, "verify", "--site", "site")[0] == 0

    code, out, err = run(capsys, "seal", str(SEED), "--schema", "gsh-llm-core-article/1", "--as", "offload/run.json")
    assert code == 0, err
    sha256 = out.split("sha256 ")[1].split()[0]
    (project / "docs" / "articles" / "offload.md").write_text(f"""---
title: Decode speed with every layer on the GPU
date: 2026-10-01
authors: [lab]
tags: [llama-cpp]
summary: One number, cited from the sealed record.
records:
  run: "{sha256[:16]}"
---

Decode ran at {{{{ cite("run", "/cases/0/groups/0/server_decode_tokens_per_second/median", unit="tokens/s") }}}}.
""")
    code, out, err = run(capsys, "build")
    assert code == 0, err
    assert "offload.md" not in out  # it cites a record: no note
    page = (project / "site" / "posts" / "offload.html").read_text()
    assert f'data-sha256="{sha256}"' in page
    code, out, err = run(capsys, "verify", "--site", "site")
    assert (code, err) == (0, []) and "every page's stated hashes match" in out


def test_init_refuses_a_folder_that_holds_anything(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / ".keep").write_text("mine")
    before = tree_digest(folder)
    code, out, err = run(capsys, "init", str(folder))
    assert code == 1 and out == ""
    assert err == [f"benchledger init: error: {folder.as_posix()}: is not empty; init makes a project in a new or empty folder and never touches existing files"]
    assert tree_digest(folder) == before
    (tmp_path / "file").write_text("x")
    code, _, err = run(capsys, "init", str(tmp_path / "file"))
    assert code == 1 and "is a file" in err[0]


def test_init_makes_missing_parents_and_accepts_an_empty_folder(tmp_path, capsys):
    assert run(capsys, "init", str(tmp_path / "a" / "b"))[0] == 0
    (tmp_path / "empty").mkdir()
    assert run(capsys, "init", str(tmp_path / "empty"))[0] == 0
    assert Path(tmp_path / "empty" / "benchledger.toml").is_file()


def test_a_folder_with_a_space_is_quoted_in_the_next_step_and_a_dangling_link_is_named(tmp_path, capsys, monkeypatch):
    """`next: cd sp ace/x && ...` did not run as printed; a symbolic link to nothing gave
    "cannot make the project folder: File exists"."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "init", "sp ace/x")
    assert code == 0 and any(line.startswith("next: cd 'sp ace/x' && benchledger build;") for line in out.splitlines())
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    code, _, err = run(capsys, "init", "link")
    assert code == 1 and err == [f"benchledger init: error: link: is a symbolic link to {tmp_path / 'gone'}, which does not exist; "
                                 "give a new or empty folder for the project"]
    assert not (tmp_path / "gone").exists()


def test_a_name_too_long_for_the_file_system_is_an_error_not_a_traceback(tmp_path, capsys):
    code, out, err = run(capsys, "init", str(tmp_path / ("a" * 300)))
    assert code == 1 and out == "" and len(err) == 1
    assert err[0].endswith(": cannot make the project folder: File name too long")
    (tmp_path / "benchledger.toml").write_text(f'[paths]\nrecords = "{"a" * 300}"\n')
    code, _, err = run(capsys, "verify", "--project", str(tmp_path))
    assert code == 1 and err == [f"benchledger verify: error: {tmp_path / 'benchledger.toml'}: $.paths.records: "
                                 f"cannot use {'a' * 80!r}: File name too long"]
