"""``python -m kgmem_bench [--suite NAME ...] [--quick] [--out DIR] [--trials N] [--seed S] [--list]``."""

from __future__ import annotations

import argparse
import sys

from .runner import DEFAULT_OUT, available_suites, main_cli, rerender


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgmem_bench", description="Run kgmem benchmark suites.")
    parser.add_argument(
        "--suite", action="append", default=[], metavar="NAME", help="suite to run (repeatable; default: all)"
    )
    parser.add_argument("--quick", action="store_true", help="fewer trials and smaller sizes")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="result directory (default: bench/results)")
    parser.add_argument("--trials", type=int, default=None, help="override the number of trials")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--list", action="store_true", help="list the suites and exit")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="re-draw the plots and REPORT.md from the JSON results in --out, run nothing",
    )
    args = parser.parse_args(argv)
    if args.report_only:
        print(f"wrote {rerender(args.out)}")
        return 0
    if args.list:
        for name in available_suites():
            print(name)
        return 0
    return main_cli(args.suite, args.quick, args.out, trials=args.trials, seed=args.seed)


if __name__ == "__main__":
    sys.exit(main())
