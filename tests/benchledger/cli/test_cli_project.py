"""Commands work on the project they are run in: the nearest benchledger.toml from the working
folder up (or --project DIR), with every default path the project's, never the install's.
Real builds (MkDocs), real stores."""

import shutil
from pathlib import Path

from benchledger.cli.main import main
from tests.store_copies import SHIPPED, tree_digest

REPO = Path(__file__).resolve().parents[3]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def copy_of_this_project(tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(REPO / "benchledger.toml", copy)
    shutil.copytree(SHIPPED, copy / "records")
    shutil.copytree(REPO / "docs" / "articles", copy / "docs" / "articles")
    return copy


def test_a_copy_of_the_checkout_publishes_its_own_articles(tmp_path, capsys, monkeypatch):
    copy = copy_of_this_project(tmp_path)
    article = copy / "docs" / "articles" / "llama-cpp-cpu-offload-72b.md"
    article.write_text(article.read_text().replace("title: What CPU offload costs", "title: Edited in the copy, what CPU offload costs"))
    repo_site = tree_digest(REPO / "site") if (REPO / "site").exists() else None
    monkeypatch.chdir(copy / "docs")  # from a subfolder: the project is found upwards
    code, out, err = run(capsys, "build")
    assert code == 0, err
    assert "built" in out and "into " in out
    page = (copy / "site" / "posts" / "index.html").read_text()
    assert "Edited in the copy" in page  # the copy's article, not the checkout's
    assert (copy / ".cache" / "benchledger").is_dir()  # the cache beside the project's records
    assert (tree_digest(REPO / "site") if (REPO / "site").exists() else None) == repo_site


def test_project_options_shape_the_site(tmp_path, capsys, monkeypatch):
    project = tmp_path / "lab"
    shutil.copytree(SHIPPED, project / "store")
    (project / "look" / "assets").mkdir(parents=True)
    css = (REPO / "templates" / "assets" / "benchledger.css").read_text()
    (project / "look" / "assets" / "benchledger.css").write_text(css + "\n/* lab override */\n")
    (project / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')
    (project / "about.md").write_text("# About the lab\n\nWe measure things.\n")
    (project / "benchledger.toml").write_text("""
[site]
name = "Lab benchmarks"
url = "https://example.org/lab/"
[paths]
records = "store"
templates = "look"
[theme]
logo = "logo.svg"
[theme.palette]
primary = "teal"
accent = "deep orange"
[[pages]]
title = "About: the lab"
source = "about.md"
""")
    monkeypatch.chdir(tmp_path)  # outside the project: --project names it
    code, out, err = run(capsys, "build", "--project", str(project))
    assert code == 0, err
    site = project / "site"
    home = (site / "index.html").read_text()
    assert "Lab benchmarks" in home.split("</title>")[0]  # the name in <title>
    assert 'data-md-color-primary="teal"' in home and 'data-md-color-accent="deep-orange"' in home
    assert 'src="assets/logo.svg"' in home and (site / "assets" / "logo.svg").is_file()
    assert 'href="pages/about.html"' in home and "About: the lab" in home
    assert "We measure things." in (site / "pages" / "about.html").read_text()
    assert "/* lab override */" in (site / "assets" / "benchledger.css").read_text()
    assert "https://example.org/lab/" in (site / "posts" / "feed.xml").read_text()
    assert not (tmp_path / "site").exists()  # nothing written where we stood


def test_a_changed_template_override_renders_again(tmp_path, capsys, monkeypatch):
    project = tmp_path / "p"
    shutil.copytree(SHIPPED, project / "records")
    (project / "look").mkdir()
    head = (REPO / "templates" / "article_head.md.j2").read_text()
    (project / "look" / "article_head.md.j2").write_text(head + "\nFIRST OVERRIDE\n")
    (project / "benchledger.toml").write_text("[paths]\ntemplates = 'look'\n")
    monkeypatch.chdir(project)
    assert run(capsys, "build")[0] == 0
    article = next((project / "site" / "articles").rglob("2026-09-27.html"))
    assert "FIRST OVERRIDE" in article.read_text()
    (project / "look" / "article_head.md.j2").write_text(head + "\nSECOND OVERRIDE\n")
    assert run(capsys, "build")[0] == 0  # the render cache must not serve the first rendering
    assert "SECOND OVERRIDE" in article.read_text() and "FIRST OVERRIDE" not in article.read_text()


def test_a_template_override_that_replaces_nothing_is_named_not_ignored(tmp_path, capsys, monkeypatch):
    """`look/benchledger.css` (the packaged one is assets/benchledger.css) was silently ignored."""
    project = tmp_path / "p"
    shutil.copytree(SHIPPED, project / "records")
    (project / "look").mkdir()
    (project / "look" / "benchledger.css").write_text("/* mine */")
    (project / "benchledger.toml").write_text("[paths]\ntemplates = 'look'\n")
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "build")
    assert code == 1 and not (project / "site").exists()
    assert err == [f"benchledger build: error: {project / 'look'}/benchledger.css: replaces no packaged template or asset, "
                   "so it would be ignored; did you mean assets/benchledger.css?"]


def test_record_commands_use_the_projects_store(tmp_path, capsys, monkeypatch):
    project = tmp_path / "p"
    (project / "data").mkdir(parents=True)
    (project / "benchledger.toml").write_text("[paths]\nrecords = 'data'\n")
    monkeypatch.chdir(project)
    seed = SHIPPED / "llm-cpu-offload" / "2026-09-27.json"
    code, out, err = run(capsys, "seal", str(seed), "--schema", "gsh-llm-core-article/1", "--as", "offload/run.json")
    assert code == 0, err
    assert "sealed data/offload/run.json" in out  # named as typed from here
    assert (project / "data" / "offload" / "run.json").read_bytes() == seed.read_bytes()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "verify", "--project", str(project))
    assert code == 0, err
    assert "all 1 record(s) hold" in out
    code, out, err = run(capsys, "--project", str(project), "show", "offload/run.json")
    assert code == 0, err


def test_a_broken_project_file_stops_every_command_with_every_problem(tmp_path, capsys, monkeypatch):
    (tmp_path / "benchledger.toml").write_text("[site]\nurl = 'ftp://x'\nname = ''\n[paths]\narticles = 'nowhere'\n")
    monkeypatch.chdir(tmp_path)
    for verb in (["build"], ["verify"], ["seal", "x.json", "--schema", "s"]):
        code, out, err = run(capsys, *verb)
        assert code == 1 and out == ""
        assert err == [
            f"benchledger {verb[0]}: error: benchledger.toml: $.site.name: expected a name of 1 to 80 printable characters without < > & \" ' ` \\ {{ }}",
            f"benchledger {verb[0]}: error: benchledger.toml: $.site.url: expected an absolute http(s) URL without query or fragment, e.g. 'https://example.org/bench/'; found 'ftp://x'",
            f"benchledger {verb[0]}: error: benchledger.toml: $.paths.articles: no such folder 'nowhere' in the project",
            f"benchledger {verb[0]}: error: benchledger.toml: 3 problem(s) in the project file; nothing was done",
        ]


def test_a_broken_template_override_is_named_at_its_line(tmp_path, capsys, monkeypatch):
    """A syntax error, an undefined name or non-UTF-8 bytes in an override were Jinja tracebacks."""
    project = tmp_path / "p"
    shutil.copytree(SHIPPED, project / "records")
    (project / "look").mkdir()
    (project / "benchledger.toml").write_text("[paths]\ntemplates = 'look'\n")
    monkeypatch.chdir(project)
    override = project / "look" / "home.md.j2"
    for text, place, reason in [(b"{% if %}", ":1", "Expected an expression"), (b"ok\n{{ nothing.x }}", ":2", "'nothing' is undefined"),
                                (b"\xff", "", "'utf-8' codec can't decode byte 0xff")]:
        override.write_bytes(text)
        code, out, err = run(capsys, "build")
        where = str(override) if place else "home.md.j2"
        assert code == 1 and len(err) == 1, err
        assert err[0].startswith(f"benchledger build: error: {where}{place}: the template home.md.j2 cannot be rendered: {reason}")


def build_with_page(tmp_path: Path, capsys, monkeypatch, text: str) -> tuple[Path, int, list[str]]:
    """(project, exit code, stderr lines) of `build` in a project whose one [[pages]] entry holds `text`."""
    project = tmp_path / "p"
    shutil.copytree(SHIPPED, project / "records")
    (project / "about.md").write_text(text)
    (project / "benchledger.toml").write_text('[[pages]]\ntitle = "About"\nsource = "about.md"\n')
    monkeypatch.chdir(project)
    code, _, err = run(capsys, "build")
    return project, code, err


def test_a_hand_written_page_that_loads_from_another_host_is_refused_by_the_build(tmp_path, capsys, monkeypatch):
    """It built, and then verify --site failed the site it made."""
    project, code, err = build_with_page(tmp_path, capsys, monkeypatch,
                                         "# About\n\n![x](http://evil.example/x.png)\n\n<script src=\"//cdn.example/a.js\"></script>\n")
    assert code == 1 and err == [f"benchledger build: error: {project / 'about.md'}: would load http://evil.example/x.png from outside "
                                 "the site (<img>) and 1 more; the site loads nothing from another host: put the file in the project "
                                 "and link it relatively"]
    assert not (project / "site").exists()


def test_a_broken_link_in_a_hand_written_page_names_the_projects_file(tmp_path, capsys, monkeypatch):
    project, code, err = build_with_page(tmp_path, capsys, monkeypatch, "# About\n\nSee [the missing page](missing.md).\n")
    assert code == 1 and len(err) == 1
    assert f"'pages/about.md' (the project's {(project / 'about.md').as_posix()}) contains a link 'missing.md'" in err[0]


def test_a_hand_written_page_publishes_the_files_it_shows_and_links_beside_it(tmp_path, capsys, monkeypatch):
    """`![Rig](img/rig.svg)` beside the page failed the strict build (nothing put it in the
    site), while the refusal of a remote image told the user to do exactly that."""
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>'
    (tmp_path / "p" / "img").mkdir(parents=True)
    (tmp_path / "p" / "img" / "rig.svg").write_bytes(svg)
    (tmp_path / "p" / "runs.csv").write_bytes(b"run,seconds\n1,2.5\n")
    project, code, err = build_with_page(tmp_path, capsys, monkeypatch, "# About\n\n![The rig](img/rig.svg)\n\n"
                                         "The [raw runs](./runs.csv#top), [the methodology](../methodology.md) and [mail](mailto:a@b.c).\n")
    assert code == 0, err
    site = project / "site"
    page = (site / "pages" / "about.html").read_text()
    assert 'src="img/rig.svg"' in page and 'href="runs.csv#top"' in page
    assert (site / "pages" / "img" / "rig.svg").read_bytes() == svg
    assert (site / "pages" / "runs.csv").read_bytes() == b"run,seconds\n1,2.5\n"
    assert run(capsys, "verify", "--site", str(site))[0] == 0  # listed in SHA256SUMS like every other file


def test_a_file_a_hand_written_page_shows_must_be_beside_it(tmp_path, capsys, monkeypatch):
    project, code, err = build_with_page(tmp_path, capsys, monkeypatch, "# About\n\n![The rig](img/rig.png)\n")
    assert code == 1 and err == [f"benchledger build: error: {project / 'about.md'}: shows or links img/rig.png, but there is "
                                 f"no {project / 'img' / 'rig.png'}; put the file there (the site publishes it as pages/img/rig.png) "
                                 "or fix the path"]
    assert not (project / "site").exists()
