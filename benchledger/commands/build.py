"""`benchledger build`: verify the records, then render the site."""

from __future__ import annotations

from pathlib import Path

HELP = "verify every record, then build the site (refuses to build on any failure)"


def add_arguments(parser):
    parser.add_argument("--records", default="records", help="the records store (default: ./records)")
    parser.add_argument("--out", default="site", help="where the site goes (default: ./site)")
    parser.add_argument("--cache", default=None, help="chart and generated-docs cache (default: .cache/benchledger beside the records)")


def run(args) -> int:
    from site_gen.build import build_site

    result = build_site(Path(args.records), Path(args.out), cache_dir=args.cache)
    print(f"built {result.pages} pages into {result.out_dir} ({result.files_written} generated files changed, "
          f"{result.charts_rendered} charts rendered)")
    return 0
