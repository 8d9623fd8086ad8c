"""The strategy report: how often the solved points play calls, runs and raises.

``lab report [--vira V] [--csv FILE] [--json | --text] [--write]``

Per vira (``--vira 4``), or over all viras each equally likely (the default,
``--vira all``): how often each seat calls the hand's truco in each round, runs from the
other side's truco, re-raises to 6, 9 and 12, and how his trucos split by the strength of
his hand (weak, middle, strong thirds of the deals). Exact sums over the stored points
policies (:mod:`lab.strategy_report` defines every measure), read at once from the stored
``strategy_report`` table; a table that is missing, or stale because a vira's stored
points policy changed since, is one ``error:`` line naming ``lab report --write``.

``--write`` works the report out again from the stored policies (about 8 s a vira, 80 s
for the ten, with a progress bar on stderr when stderr is a terminal) and writes it into
the table: every vira, or only the vira of ``--vira``; the rows of other viras are kept.
Then it prints the report as without it.

``--csv FILE`` writes the rows (vira, measure, round, seat, bucket, value, base) to FILE
as CSV; ``--json`` prints them as one JSON list; ``--text`` (the default on a terminal)
in words.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..cli import add_output_form, in_words, print_json
from ..errors import InputError
from ..strategy_report import (ALL_VIRAS, TABLE, check_vira, report_text, strategy_report,
                               to_csv, write_report)


def add_arguments(parser) -> None:
    parser.add_argument("--vira", default=ALL_VIRAS, metavar="V",
                        help="the vira's rank (4, 5, ..., 3), or all (the default: every "
                             "vira, each equally likely)")
    parser.add_argument("--csv", metavar="FILE", help="also write the rows to FILE as CSV")
    parser.add_argument("--write", action="store_true",
                        help="work the report out again from the stored policies (about "
                             "8 s a vira) and store it in the strategy_report table: every "
                             "vira, or the one of --vira")
    add_output_form(parser, "the report")


def run(args) -> int:
    target = None
    if args.csv is not None:
        target = Path(args.csv)
        if not str(args.csv).strip() or target.is_dir():
            raise InputError(f"--csv {args.csv!r}: give a file name, not a folder")
        if not target.parent.is_dir():
            raise InputError(f"--csv {args.csv}: the folder {target.parent} does not exist")
    every = str(args.vira).strip().lower() == ALL_VIRAS
    if not every:
        check_vira(args.vira)
    if args.write:
        from ..tables import table_paths

        written = write_report(None if every else [args.vira])
        print(f"wrote {table_paths(TABLE)[0]} ({written['vira'].nunique()} "
              f"vira{'s' if written['vira'].nunique() > 1 else ''})", file=sys.stderr)
    frame = strategy_report(args.vira)
    if target is not None:
        try:
            target.write_text(to_csv(frame), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"--csv {args.csv}: cannot write there "
                             f"({exc.strerror or exc})") from None
    if in_words(args):
        print(report_text(frame))
    else:
        print_json(frame.to_dict(orient="records"))
    return 0
