"""`benchledger collect PLAN.toml`: run a collection plan, write its record once and seal it."""

from __future__ import annotations

from benchledger.cli.arguments import path, text
from benchledger.cli.locations import project_of, records_dir, shown_path
from benchledger.errors import CollectError, InputError

HELP = "run a collection plan (TOML) and seal the record it produces"


def add_arguments(parser):
    parser.add_argument("plan", type=path, help="the plan file (TOML)")
    parser.add_argument("--case", type=text, action="append", dest="cases", metavar="ID", help="run only this case (repeatable); the record then holds only the selected cases")
    parser.add_argument("--dry-run", action="store_true", help="validate the plan and print what would run, with each case's estimated duration and the total (at least / typical / at most, from the plan's waits, rounds and timeouts); run nothing")
    parser.add_argument("--records", type=text, default=None, help="the records store (default: the project's, ./records)")
    parser.add_argument("--runs", type=path, default=None, help="where runs keep their case results and logs (default: $BENCHLEDGER_RUNS, else runs/ in the project)")
    parser.add_argument("--ray", type=text, metavar="ADDRESS", default=None, help="dispatch the cases to the Ray cluster at ADDRESS (host:port, or 'auto'); needs benchledger[ray]; see the plan's [dispatch]")
    parser.add_argument("--fresh", action="store_true", help="run every case again; without it, an earlier run of the same plan is resumed: its completed cases are kept, failed and unfinished ones run")


def run(args) -> int:
    from collector.plan_loader import load_plan
    from collector.runner import Runner, default_runs_dir, dry_run_lines

    plan = load_plan(args.plan)
    records, runs = records_dir(args), args.runs or default_runs_dir(shown_path(project_of(args).root))
    for option, folder in (("--records", records), ("--runs", runs)):  # a dry run says so too, not only a real one
        if folder.exists() and not folder.is_dir():
            raise InputError(folder.as_posix(), "", f"is not a folder; pass {option} a folder (one is made where none is)")
    if args.ray:
        from collector.dispatch.ray_runner import RayRunner

        runner = RayRunner(plan, records, runs, args.ray, args.cases)
    else:
        runner = Runner(plan, records, runs, args.cases)
    if args.dry_run:
        print("\n".join(dry_run_lines(plan, runner)))
        return 0
    outcome = runner.run(fresh=args.fresh)
    failed = sorted(cid for cid, status in outcome.statuses.items() if status != "completed")
    counts = f"{len(outcome.statuses) - len(failed)} completed, {len(failed)} failed" + (f" ({', '.join(failed)})" if failed else "")
    verb = "already sealed" if outcome.already_sealed else "sealed"
    print(f"{verb} {outcome.store_path} sha256 {outcome.sha256} ({counts}); run directory {outcome.run_dir}")
    if outcome.statuses and len(failed) == len(outcome.statuses):
        # the record is sealed (a failure is a result worth keeping) but nothing was measured
        raise CollectError(f"every case failed ({', '.join(failed)}); the record says why "
                           f"(`benchledger show {outcome.sha256[:12]}`); fix the cause and run the plan again")
    return 0
