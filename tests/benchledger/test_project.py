"""benchledger.project: the project folder is found like git finds .git, its benchledger.toml is
validated with every problem at once, and every path is the project's, never the install's."""

from pathlib import Path

import pytest

from benchledger.errors import InputError
from benchledger.errors import ProjectError
from benchledger.project import PROJECT_FILE, find_project, load_project

REPO = Path(__file__).resolve().parents[2]


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PROJECT_FILE).write_text(text)
    return folder


def test_without_a_file_the_defaults_apply_in_the_working_folder(tmp_path):
    project = find_project(start=tmp_path)
    assert project.root == tmp_path.resolve() and project.config_file is None
    assert project.records_dir == tmp_path.resolve() / "records"
    assert project.articles_dir == tmp_path.resolve() / "docs" / "articles"
    assert project.site_dir == tmp_path.resolve() / "site"
    assert (project.site_name, project.site_url, project.pages, project.templates_dir) == ("benchledger", "", (), None)


def test_the_nearest_parent_with_a_file_is_the_project(tmp_path):
    outer = write(tmp_path / "outer", "[site]\nname = 'outer'\n")
    inner = write(outer / "a", "[site]\nname = 'inner'\n[paths]\nrecords = 'store'\n")
    (inner / "store").mkdir()
    deep = inner / "b" / "c"
    deep.mkdir(parents=True)
    project = find_project(start=deep)
    assert project.root == inner.resolve() and project.site_name == "inner"
    assert project.records_dir == inner.resolve() / "store"  # relative to the file, not to where we stand
    (outer / "elsewhere").mkdir()
    assert find_project(start=outer / "elsewhere").site_name == "outer"


def test_project_names_the_folder_explicitly(tmp_path, monkeypatch):
    monkeypatch.chdir(write(tmp_path / "here", "[site]\nname = 'here'\n"))
    other = write(tmp_path / "other", "[site]\nname = 'other'\n")
    assert find_project(other).site_name == "other"
    (tmp_path / "bare").mkdir()
    bare = find_project(tmp_path / "bare")  # a folder without a file: its defaults, not the working folder's file
    assert (bare.root, bare.config_file, bare.site_name) == ((tmp_path / "bare").resolve(), None, "benchledger")
    with pytest.raises(InputError, match="no such project folder"):
        find_project(tmp_path / "absent")
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(InputError, match="run.json: is a file, not a project folder"):
        find_project(tmp_path / "run.json")


def test_this_repository_is_a_project_with_the_shipped_defaults():
    project = find_project(start=REPO / "docs" / "articles")
    assert project.root == REPO and project.config_file == REPO / PROJECT_FILE
    assert project.records_dir == REPO / "records" and project.articles_dir == REPO / "docs" / "articles"
    assert (project.theme.primary, project.theme.accent, project.site_name) == ("indigo", "amber", "benchledger")


def test_every_setting_is_read(tmp_path):
    (tmp_path / "data" / "store").mkdir(parents=True)
    (tmp_path / "posts").mkdir()
    (tmp_path / "look").mkdir()
    (tmp_path / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path / "about.md").write_text("# About\n")
    (tmp_path / "Team Page.md").write_text("# Team\n")
    write(tmp_path, """
[site]
name = "Lab benchmarks"
url = "https://example.org/bench/"
[paths]
records = "data/store"
articles = "posts"
templates = "look"
[theme]
logo = "logo.svg"
[theme.palette]
primary = "deep purple"
accent = "light blue"
[[pages]]
title = "About: us"
source = "about.md"
[[pages]]
title = "Team"
source = "Team Page.md"
""")
    p = load_project(tmp_path)
    root = tmp_path.resolve()
    assert (p.site_name, p.site_url) == ("Lab benchmarks", "https://example.org/bench/")
    assert (p.records_dir, p.articles_dir, p.templates_dir) == (root / "data/store", root / "posts", root / "look")
    assert (p.theme.primary, p.theme.accent, p.theme.logo) == ("deep purple", "light blue", root / "logo.svg")
    assert [(x.title, x.source, x.slug) for x in p.pages] == [("About: us", root / "about.md", "about"), ("Team", root / "Team Page.md", "team-page")]


def test_every_problem_is_reported_at_once(tmp_path, monkeypatch):
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "A.md").write_text("x")
    (tmp_path / "b.md").write_text("x")
    write(tmp_path, """
colour = "red"
[site]
name = "<script>"
url = "javascript:alert(1)"
extra = 1
[paths]
records = "../elsewhere"
articles = "/etc"
templates = "missing"
[theme]
logo = "notes.txt"
[theme.palette]
primary = "chartreuse"
accent = "black"
[[pages]]
title = "A"
source = "a.md"
[[pages]]
title = 5
source = "A.md"
[[pages]]
title = "No source"
[[pages]]
titel = "Typo"
source = "b.md"
""")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ProjectError) as caught:
        load_project(tmp_path)
    lines = caught.value.lines()
    where = [line.split(": ")[1] for line in lines[:-1]]
    assert all(line.startswith("benchledger.toml: $.") for line in lines[:-1])
    assert where == ["$.colour", "$.site.extra", "$.site.name", "$.site.url", "$.paths.records", "$.paths.articles",
                     "$.paths.templates", "$.theme.logo", "$.theme.palette.primary", "$.theme.palette.accent",
                     "$.pages[1].title", "$.pages[1].source", "$.pages[2].source", "$.pages[3].titel", "$.pages[3].title"]
    assert "leaves the project folder" in lines[4] and "expected an absolute http(s) URL" in lines[3]
    # a misspelt key: named as unknown, and the title as missing (not as a title of bad characters)
    assert lines[-2] == "benchledger.toml: $.pages[3].title: missing: the page's title in the navigation"
    assert lines[-1] == "benchledger.toml: 15 problem(s) in the project file; nothing was done"


def test_a_file_that_is_not_toml_names_the_line(tmp_path):
    write(tmp_path, "[site]\nname = \n")
    with pytest.raises(InputError) as caught:
        load_project(tmp_path)
    problem = caught.value.problems[0]
    assert problem.line == 2 and "not valid TOML" in problem.message and problem.file.endswith(PROJECT_FILE)


@pytest.mark.parametrize("text, where", [
    ("site = 1\n", "$.site"), ("pages = 'x'\n", "$.pages"), ("[theme]\npalette = 'red'\n", "$.theme.palette"),
    ("[paths]\nrecords = 3\n", "$.paths.records"), ("[[pages]]\ntitle = 'T'\nsource = 'x.txt'\n", "$.pages[0].source"),
])
def test_wrong_shapes_are_named(tmp_path, text, where):
    (tmp_path / "x.txt").write_text("")
    write(tmp_path, text)
    with pytest.raises(ProjectError) as caught:
        load_project(tmp_path)
    assert [p.path for p in caught.value.problems] == [where]


@pytest.mark.parametrize("url", ["https://[::1/", "http://a:99999/"])
def test_a_url_urllib_cannot_split_is_a_problem_not_a_traceback(tmp_path, url):
    """An unclosed IPv6 bracket raised ValueError from urlsplit; a port past 65535 passed."""
    (tmp_path / PROJECT_FILE).write_text(f'[site]\nurl = "{url}"\n')
    with pytest.raises(ProjectError) as err:
        load_project(tmp_path)
    assert err.value.lines() == [f"{tmp_path / PROJECT_FILE}: $.site.url: expected an absolute http(s) URL without query or fragment, "
                                 f"e.g. 'https://example.org/bench/'; found {url!r}"]


@pytest.mark.parametrize("toml, where, message", [
    ('[paths]\nrecords = "."\n', "$.paths.records", "the records store is a folder of its own inside the project, not the project folder"),
    ('[paths]\nrecords = ""\n', "$.paths.records", "expected a path relative to the project folder, not '' (leave the key out for the default)"),
    ('[site]\nname = "a\\u0085b"\n', "$.site.name", "expected a name of 1 to 80 printable characters"),
    ('[site]\nname = "a\\u2028b"\n', "$.site.name", "expected a name of 1 to 80 printable characters"),
])
def test_values_that_read_but_cannot_work_are_named(tmp_path, toml, where, message):
    (tmp_path / PROJECT_FILE).write_text(toml)
    with pytest.raises(ProjectError) as err:
        load_project(tmp_path)
    assert err.value.lines()[0].startswith(f"{tmp_path / PROJECT_FILE}: {where}: {message}")


def test_a_project_file_that_cannot_be_read_is_named_not_ignored(tmp_path, monkeypatch):
    """A benchledger.toml that was a symbolic-link loop (or a folder) was passed over: commands
    ran with the defaults, the project's settings silently dropped."""
    import pytest

    from benchledger.errors import InputError
    from benchledger.project import find_project

    (tmp_path / "benchledger.toml").symlink_to(tmp_path / "benchledger.toml")
    with pytest.raises(InputError, match="benchledger.toml: cannot read: Too many levels of symbolic links"):
        find_project(start=tmp_path)
    (tmp_path / "benchledger.toml").unlink()
    (tmp_path / "benchledger.toml").mkdir()
    with pytest.raises(InputError, match="benchledger.toml: is a folder, not a project file"):
        find_project(start=tmp_path / "benchledger.toml" / "..")
