"""TOML files the user writes (collection plans, benchledger.toml), read in one place: every way
the text can be wrong is an InputError naming the file (and the line where TOML knows it)."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from benchledger.errors import InputError


def read_toml(raw: bytes, shown: str, what: str = "") -> dict[str, Any]:
    """The document in `raw`; InputError when it is not UTF-8 or not TOML, or nests so deeply
    that the parser would overflow the stack (tomllib recurses once per level)."""
    prefix = f"{what} " if what else ""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(shown, "", f"{prefix}is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"\(at line (\d+), column \d+\)", str(err))
        raise InputError(shown, "", f"not valid TOML: {err}", int(m.group(1)) if m else None) from None
    except RecursionError:
        raise InputError(shown, "", "not readable TOML: arrays or tables nest too deeply (hundreds of levels); flatten them") from None
