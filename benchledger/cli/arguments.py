"""Argument types every command shares: argparse turns what they raise into its usage error.

An empty value is refused wherever an option or argument takes one. It is nearly always a shell
variable that was never set (`--out "$SITE"`), and it would not fail on its own: an empty text
reads as "not given", so a default is quietly chosen, and `Path("")` is the working folder."""

from __future__ import annotations

import argparse
from pathlib import Path


def text(value: str) -> str:
    """A non-empty text."""
    if value == "":
        raise argparse.ArgumentTypeError("is empty (an unset shell variable?): give a value; an option left out takes its default")
    return value


def path(value: str) -> Path:
    """A non-empty path (an empty one would name the working folder)."""
    return Path(text(value))
