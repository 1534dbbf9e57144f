"""The Jinja environment the page kinds render with, and the two helpers templates and page
code share: `url` (a relative link between generated pages) and `code_ticks` (the generator's
own prose with `backticks` as <code>). It stands below `context`, `charts`, `render_cache` and
the page kinds, and imports none of them."""

from __future__ import annotations

import html
import posixpath
import traceback
from pathlib import Path

import jinja2
from markupsafe import Markup

from benchledger.errors import Problem
from site_gen import escape, raw_html
from site_gen.page import output_path
from site_gen.quantity import counted
from site_gen.resources import template_names, templates_dir



def url(from_page: str, target: str) -> str:
    """A relative URL from the page at docs path `from_page` to docs path `target`, as the built
    site has it (`.md` -> `.html`), for links inside raw HTML (which MkDocs does not rewrite)."""
    return Markup(html.escape(escape.url_path(relative_path(output_path(target), posixpath.dirname(from_page))), quote=True))


def relative_path(target: str, start: str) -> str:
    """`posixpath.relpath(target, start)` for two docs-relative paths: by their parts alone
    when both are plain (no '', '.' or '..' part), which every generated path is; relpath asks
    the OS for the working folder twice a call, and a build makes a hundred thousand links."""
    to, here = target.split("/"), start.split("/") if start else []
    if any(part in ("", ".", "..") for part in (*to, *here)):
        return posixpath.relpath(target, start or ".")
    common = 0
    for a, b in zip(to, here):
        if a != b:
            break
        common += 1
    return "/".join([".."] * (len(here) - common) + to[common:]) or "."


def code_ticks(value: str) -> Markup:
    """The generator's own prose (rule conditions) with `backticks` as <code>, inside HTML."""
    parts = str(Markup.escape(value)).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


def template_bytes(name: str, override_dir: Path | None = None) -> bytes:
    """A template or static asset (e.g. "assets/benchledger.css"): the project's override when
    its templates folder has one of that name, else the packaged file."""
    if override_dir is not None and (override_dir / name).is_file():
        return (override_dir / name).read_bytes()
    return (templates_dir() / name).read_bytes()


def override_problems(override_dir: Path, shown: str) -> list[Problem]:
    """A file of a project's templates folder (`shown` as the user names it) that replaces no
    packaged template or asset: it was silently ignored (a `benchledger.css` at the top where
    the packaged one is `assets/benchledger.css`)."""
    packaged = set(template_names())
    problems = []
    for path in sorted(p for p in override_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(override_dir).as_posix()
        if rel not in packaged:
            near = sorted(name for name in packaged if posixpath.basename(name) == path.name)
            hint = f"did you mean {' or '.join(near)}?" if near else f"the packaged ones are {', '.join(sorted(packaged))}"
            problems.append(Problem(f"{shown}/{rel}", "", f"replaces no packaged template or asset, so it would be ignored; {hint}"))
    return problems


def template_problem(name: str, err: Exception) -> str:
    """`file:line: reason` for a template that failed to load or render: a syntax error, a
    name it uses that no page gives it, bytes that are not UTF-8."""
    where, line = name, getattr(err, "lineno", None)
    if getattr(err, "filename", None):
        where = err.filename
    else:  # a rendering error: Jinja puts the template's own lines into the traceback
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename.endswith(".j2")]
        if frames:
            where, line = frames[-1].filename, frames[-1].lineno
    reason = getattr(err, "message", None) or str(err)
    return (f"{where}{f':{line}' if line else ''}: the template {name} cannot be rendered: {reason}; "
            "fix it, or remove a project override of it to use the packaged one")


def _join(items, sep: str = "") -> str:
    """Jinja's join for record text: plain text when every item is (the context's escaping then
    applies once, by finalize or a filter), else Markup with the plain items escaped for HTML
    text (the built-in escapes them for HTML only, leaving Markdown syntax live)."""
    items = list(items)
    if not any(isinstance(item, Markup) for item in items):
        return sep.join(str(item) for item in items)
    return Markup(escape.pre(sep).join(item if isinstance(item, Markup) else escape.html(item) for item in items))


def make_jinja_env(override_dir: Path | None = None) -> jinja2.Environment:
    """Jinja over the packaged templates (a project's templates folder first, when it has one) with
    autoescape on for every template (they produce HTML inside Markdown). `md` marks record
    text literal Markdown; `attr` escapes for attributes; `raw_html` marks a run of generated
    HTML as a raw block (site_gen/raw_html.py)."""
    loaders = [jinja2.FileSystemLoader(str(templates_dir()))]
    if override_dir is not None:
        loaders.insert(0, jinja2.FileSystemLoader(str(override_dir)))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        # every value a template prints goes through escape.html (HTML text, inert in Markdown),
        # unless a filter already made it Markup for its own context (md, attr, url, pre)
        finalize=lambda value: value if isinstance(value, Markup) else Markup(escape.html(value)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # templates do not change during a build; reloading checks would stat the file at every
        # get_template (4 s of a cold build at a thousand records)
        auto_reload=False,
    )
    env.filters["md"] = lambda value: Markup(escape.text(value))
    env.filters["attr"] = lambda value: Markup(escape.attr(value))
    env.filters["url"] = url
    # the built-in join escapes its items for HTML only: record text must stay inert in Markdown
    env.filters["join"] = _join
    env.filters["pre"] = lambda value: Markup(escape.pre(value))
    env.filters["ticks"] = code_ticks
    env.filters["counted"] = counted
    # `{% filter raw_html %}...{% endfilter %}`: generated HTML MkDocs stashes, not parses
    env.filters["raw_html"] = lambda value: Markup(raw_html.block(str(value)))
    return env
