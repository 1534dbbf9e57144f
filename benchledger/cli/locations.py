"""Where a command reads and writes: the project (`--project DIR`, else the nearest folder from
the working folder up holding a benchledger.toml, else the working folder), unless a flag such
as `--records` names a place itself. Flags are relative to the working folder, as typed; every
default is relative to the project."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchledger.cli.arguments import text
from benchledger.project import Project, find_project


def add_project_argument(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """`--project DIR`, accepted before the verb and after it."""
    parser.add_argument("--project", type=text, metavar="DIR", default=None if top else argparse.SUPPRESS,
                        help="the project folder (default: the nearest folder from here up holding a benchledger.toml, else this one)")


def project_of(args: argparse.Namespace) -> Project:
    """The command's project, found once per command."""
    found = getattr(args, "_project", None)
    if found is None:
        found = find_project(getattr(args, "project", None))
        args._project = found
    return found


def shown_path(path: Path) -> Path:
    """`path` as messages should name it: relative to the working folder when inside it."""
    try:
        rel = Path(os.path.relpath(path, Path.cwd()))
    except ValueError:
        return path
    return path if rel.parts[:1] == ("..",) else rel


def records_dir(args: argparse.Namespace) -> Path:
    """`--records` as typed, else the project's records folder."""
    records = getattr(args, "records", None)
    if records:
        return Path(records)
    return shown_path(project_of(args).records_dir)


# CI=... values that mean "not CI" (some runners set CI=false to say so)
_NOT_CI = {"", "0", "false", "no", "off"}


def under_ci() -> bool:
    """Whether the `CI` environment variable marks this as a CI run: set to anything but
    empty, 0, false, no or off (every common CI service sets CI=true)."""
    return os.environ.get("CI", "").strip().lower() not in _NOT_CI


def uses_cache(args: argparse.Namespace) -> bool:
    """Whether `build` or `verify` may reuse cached work: not with `--no-cache`, and under CI
    only when `--cache DIR` names a cache (a CI or publishing build judges everything afresh:
    a cache carried between runs must not be able to change what is published)."""
    if getattr(args, "no_cache", False):
        return False
    return getattr(args, "cache", None) is not None or not under_ci()
