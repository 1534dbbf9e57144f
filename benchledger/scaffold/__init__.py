"""`benchledger init`: a new project folder, ready to seal, build and publish.

    benchledger.toml               every setting, commented out (the defaults apply)
    records/ledger.jsonl           an empty store
    docs/articles/welcome.md       an example article explaining the citation syntax (cites nothing yet)
    .gitignore                     site/, .cache/, runs/
    .github/workflows/publish.yml  build with --no-cache and publish on GitHub Pages
    plans/                         the example plans (README.md, *.toml) to collect a first record

The files are package data (`files/`), read through importlib.resources. A folder that holds
anything is refused: init never overwrites or deletes what it did not make."""

from __future__ import annotations

import datetime as dt
import os
from importlib import resources
from pathlib import Path

from benchledger import __version__
from benchledger.errors import InputError, os_reason
from benchledger.project import PROJECT_FILE

# target in the project -> packaged file
FILES = {
    PROJECT_FILE: "benchledger.toml",
    ".gitignore": "gitignore",
    "docs/articles/welcome.md": "welcome.md",
    ".github/workflows/publish.yml": "publish.yml",
}
LEDGER = "records/ledger.jsonl"
# the repository's examples/ (package data): copied as plans/, their "examples/" paths with them
EXAMPLES_PACKAGE, PLANS = "benchledger.examples", "plans"


def create_project(folder: Path | str, today: dt.date | None = None) -> list[str]:
    """Scaffold a project in `folder` (created when missing; refused unless empty). Returns the
    paths written, relative to the folder."""
    folder = Path(folder)
    try:
        if folder.is_symlink() and not folder.exists():  # mkdir says "File exists" of a dangling link
            raise InputError(folder.as_posix(), "", f"is a symbolic link to {os.readlink(folder)}, which does not exist; "
                                                    "give a new or empty folder for the project")
        if folder.exists() and not folder.is_dir():
            raise InputError(folder.as_posix(), "", "is a file; give a new or empty folder for the project")
        if folder.is_dir() and any(folder.iterdir()):
            raise InputError(folder.as_posix(), "", "is not empty; init makes a project in a new or empty folder and never touches existing files")
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # a name too long for the file system, a read-only parent
        raise InputError(folder.as_posix()[:200], "", f"cannot make the project folder: {os_reason(err)}") from None
    values = {"__DATE__": (today or dt.date.today()).isoformat(), "__VERSION__": __version__}
    written = []
    for target, packaged in FILES.items():
        text = resources.files(__name__).joinpath("files", packaged).read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace(key, value)
        path = folder / target
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as out:  # "x": never over a file that appeared meanwhile
            out.write(text)
        written.append(target)
    (folder / PLANS).mkdir()
    for example in sorted(resources.files(EXAMPLES_PACKAGE).iterdir(), key=lambda e: e.name):
        if example.name.endswith((".toml", ".md")):
            target = f"{PLANS}/{example.name}"
            with open(folder / target, "x", encoding="utf-8") as out:
                out.write(example.read_text(encoding="utf-8").replace("examples/", f"{PLANS}/"))
            written.append(target)
    (folder / LEDGER).parent.mkdir(parents=True, exist_ok=True)
    with open(folder / LEDGER, "xb"):
        pass
    written.append(LEDGER)
    return sorted(written)
