"""The Jinja environment the page kinds render with, and the two helpers templates and page
code share: `url` (a relative link between generated pages) and `code_ticks` (the generator's
own prose with `backticks` as <code>). It stands below `context`, `charts`, `render_cache` and
the page kinds, and imports none of them."""

from __future__ import annotations

import posixpath
from pathlib import Path

import jinja2
from markupsafe import Markup

from site_gen import escape

TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "templates"


def url(from_page: str, target: str) -> str:
    """A relative URL from the page at docs path `from_page` to docs path `target`, as the built
    site has it (`.md` -> `.html`), for links inside raw HTML (which MkDocs does not rewrite)."""
    if target.endswith(".md"):
        target = target[: -len(".md")] + ".html"
    return posixpath.relpath(target, posixpath.dirname(from_page) or ".")


def code_ticks(value: str) -> Markup:
    """The generator's own prose (rule conditions) with `backticks` as <code>, inside HTML."""
    parts = str(Markup.escape(value)).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


def template_bytes(name: str, override_dir: Path | None = None) -> bytes:
    """A template or static asset (e.g. "assets/benchledger.css"): the project's override when
    its templates folder has one of that name, else the packaged file."""
    if override_dir is not None and (override_dir / name).is_file():
        return (override_dir / name).read_bytes()
    return (TEMPLATES_DIR / name).read_bytes()


def make_jinja_env(override_dir: Path | None = None) -> jinja2.Environment:
    """Jinja over templates/ (a project's templates folder first, when it has one) with
    autoescape on for every template (they produce HTML inside Markdown). `md` marks record
    text literal Markdown; `attr` escapes for attributes."""
    loaders = [jinja2.FileSystemLoader(str(TEMPLATES_DIR))]
    if override_dir is not None:
        loaders.insert(0, jinja2.FileSystemLoader(str(override_dir)))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = lambda value: Markup(escape.text(value))
    env.filters["attr"] = lambda value: Markup(escape.attr(value))
    env.filters["url"] = url
    env.filters["ticks"] = code_ticks
    return env
