"""`benchledger build`: verify the records, then render the site."""

from __future__ import annotations

from pathlib import Path

from benchledger.errors import InputError

HELP = "verify every record, then build the site (refuses to build on any failure)"


def add_arguments(parser):
    parser.add_argument("--records", default="records", help="the records store (default: ./records)")
    parser.add_argument("--out", default="site", help="where the site goes (default: ./site)")
    parser.add_argument("--articles", default=None, help="authored articles to publish (default: docs/articles of the project)")
    parser.add_argument("--site-url", default="", help="the site's public URL, for absolute links in the feed and citations")
    parser.add_argument("--cache", default=None, help="cache of validation passes, charts, renderings and generated docs (default: $BENCHLEDGER_CACHE_DIR, else .cache/benchledger beside the records)")


def run(args) -> int:
    from site_gen.build import build_site
    from site_gen.context import BuildOptions

    if args.articles and not Path(args.articles).is_dir():  # a mistyped folder must not publish no articles
        raise InputError(args.articles, "", "no such articles folder")
    options = BuildOptions(articles_dir=Path(args.articles) if args.articles else None, site_url=args.site_url)
    result = build_site(Path(args.records), Path(args.out), cache_dir=args.cache, options=options)
    print(f"built {result.pages} pages into {result.out_dir} ({result.files_written} generated files changed, "
          f"{result.charts_rendered} charts rendered)")
    return 0
