"""`benchledger build`: verify the records, then render the site."""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchledger.cli.arguments import text
from benchledger.cli.locations import project_of, records_dir, shown_path, uses_cache
from benchledger.errors import InputError
from benchledger.project import site_url_problem

HELP = ("verify every record, then build the site (refuses to build on any failure); with the CI environment variable set, "
        "without a cache unless --cache DIR names one")


def add_arguments(parser):
    add_site_arguments(parser)
    parser.add_argument("--articles", type=text, default=None, help="authored articles to publish (default: the project's, docs/articles)")
    parser.add_argument("--site-url", type=text, default=None, help="the site's public URL, for absolute links in the feed and citations (default: the project's)")
    parser.add_argument("--cache", type=text, default=None, help="cache of validation passes, charts, renderings and generated docs (default: $BENCHLEDGER_CACHE_DIR, else .cache/benchledger beside the records; when the CI environment variable is set, none unless this flag names one)")
    parser.add_argument("--no-cache", action="store_true", help="validate and render everything afresh in a temporary cache, removed afterwards (the default when the CI environment variable is set)")


def add_site_arguments(parser):
    """The arguments `build` and `serve` share."""
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--out", type=text, default=None, help="where the site goes (default: site/ in the project)")


def build(args):
    """Build the site as the project and the flags say; returns the BuildResult."""
    from site_gen.build import build_site
    from site_gen.context import BuildOptions

    project = project_of(args)
    articles = getattr(args, "articles", None)
    if articles and not Path(articles).is_dir():  # a mistyped folder must not publish no articles
        raise InputError(articles, "", "no such articles folder")
    site_url = getattr(args, "site_url", None)
    if site_url is None:
        site_url = project.site_url
    elif site_url_problem(site_url):
        raise InputError("--site-url", "", site_url_problem(site_url))
    options = BuildOptions(
        site_name=project.site_name,
        site_url=site_url,
        articles_dir=Path(articles) if articles else project.articles_dir,
        palette_primary=project.theme.primary,
        palette_accent=project.theme.accent,
        logo=project.theme.logo,
        templates_dir=project.templates_dir,
        extra_pages=project.pages,
        project_root=project.root,
    )
    out = Path(args.out) if args.out else shown_path(project.site_dir)
    if getattr(args, "no_cache", False) and getattr(args, "cache", None):
        raise InputError("--no-cache", "", "give --cache DIR or --no-cache, not both")
    if hasattr(args, "no_cache") and not uses_cache(args):  # `build`, not `serve`'s preview
        with tempfile.TemporaryDirectory(prefix="benchledger-build-") as cache:
            return build_site(records_dir(args), out, cache_dir=cache, options=options)
    return build_site(records_dir(args), out, cache_dir=getattr(args, "cache", None), options=options)


def run(args) -> int:
    result = build(args)
    for note in result.notes:
        print(f"note: {note}")
    fresh = "" if uses_cache(args) else ", no cache" + (": the CI environment variable is set" if not args.no_cache else "")
    print(f"built {result.pages} pages into {result.out_dir} ({result.files_written} generated files changed, "
          f"{result.charts_rendered} charts rendered{fresh})")
    return 0
