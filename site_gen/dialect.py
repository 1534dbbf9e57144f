"""The Markdown dialect the site is built with: the extensions mkdocs.yml names, from here, and
those MkDocs loads on every build. The article prose check (site_gen/prose.py) renders an
author's Markdown with the same dialect, so it judges what the page will hold, not a guess."""

from __future__ import annotations

# What mkdocs.yml's markdown_extensions lists, in order, and their settings.
EXTENSIONS = ("site_gen.raw_html", "attr_list", "md_in_html", "tables", "toc")
CONFIGS = {"toc": {"permalink": True}}
# MkDocs loads these on every build, whatever mkdocs.yml says (config_options.MarkdownExtensions).
MKDOCS_BUILTINS = ("toc", "tables", "fenced_code")


def mkdocs_yaml() -> str:
    """The `markdown_extensions:` section of mkdocs.yml."""
    lines = ["markdown_extensions:"]
    for name in EXTENSIONS:
        settings = CONFIGS.get(name)
        if settings is None:
            lines.append(f"  - {name}")
            continue
        lines.append(f"  - {name}:")
        lines += [f"      {key}: {'true' if value is True else value}" for key, value in settings.items()]
    return "\n".join(lines)


def render(text: str) -> str:
    """`text` as HTML, the way MkDocs' Markdown makes a page's body."""
    import markdown  # only for articles: a build without any loads it in MkDocs alone

    names = list(dict.fromkeys([*MKDOCS_BUILTINS, *EXTENSIONS]))
    return markdown.markdown(text, extensions=names, extension_configs=CONFIGS)
