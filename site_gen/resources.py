"""The generator's packaged resources, read through importlib.resources wherever the package
lives (a wheel in site-packages, an editable checkout): the Jinja templates and static assets
(package `site_gen.templates`, the repository's top-level templates/) and the default
hand-written pages: home intro, methodology, auditing and authoring guides (package
`site_gen.guides`, the repository's docs/ without its articles). The build configuration
(setup.py) maps both folders into the package; nothing here looks beside the source tree."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

TEMPLATES_PACKAGE = "site_gen.templates"
GUIDES_PACKAGE = "site_gen.guides"
GUIDES = ("home.md", "methodology.md", "auditing.md", "authoring.md")


def _root(package: str):
    try:
        return resources.files(package)
    except ModuleNotFoundError:
        # an install made before setup.py mapped templates/ and docs/ into the package
        raise RuntimeError(f"{package} is not installed; reinstall benchledger (in a checkout: "
                           "`pip install -e .`, or `make .venv/.core`) so templates/ and docs/ are mapped into it") from None


def _folder(package: str) -> Path:
    """The package's folder on disk (Jinja and MkDocs read files by path)."""
    root = _root(package)
    if not isinstance(root, Path):  # e.g. a zipped install: not supported, say so
        raise RuntimeError(f"{package} is not installed as files on disk ({root!r}); install benchledger with pip")
    return root


def templates_dir() -> Path:
    """The packaged templates/ folder (templates and assets/)."""
    return _folder(TEMPLATES_PACKAGE)


def guide_text(name: str) -> str:
    """One default hand-written page (`home.md`, `methodology.md`, ...), as written."""
    if name not in GUIDES:
        raise KeyError(f"{name!r} is not a packaged page; expected one of {', '.join(GUIDES)}")
    return _root(GUIDES_PACKAGE).joinpath(name).read_text(encoding="utf-8")


def template_names() -> list[str]:
    """Every packaged template and asset, as its path under templates/ ("assets/benchledger.css"),
    sorted: what a project's templates folder may replace."""
    root = templates_dir()
    return [p.relative_to(root).as_posix() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"]


def resource_files() -> list[tuple[str, bytes]]:
    """(name, bytes) of every packaged template, asset and default page, in a fixed order, for
    fingerprints: a changed resource changes what the generator renders."""
    root = templates_dir()
    files = [(f"templates/{name}", (root / name).read_bytes()) for name in template_names()]
    files += [(f"guides/{name}", guide_text(name).encode()) for name in GUIDES]
    return files
