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

``--write --exploits DIR`` works out instead the report of every exploit under ``DIR``
(``DIR/OPPONENT``, as ``lab solve lock --out`` writes them: about 10 s a vira) beside the
equilibrium's, with each exploit's figures, and stores them in the ``exploit_summary`` and
``exploit_report`` tables (:mod:`lab.exploit_report`), in place of what they held; the
exploit page reads them.

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
    parser.add_argument("--exploits", metavar="DIR",
                        help="with --write: store the report of every exploit under DIR "
                             "(DIR/OPPONENT, written by `lab solve lock`) in the "
                             "exploit_summary and exploit_report tables")
    add_output_form(parser, "the report")


def run(args) -> int:
    target = None
    if args.csv is not None:
        target = Path(args.csv)
        if not str(args.csv).strip() or target.is_dir():
            raise InputError(f"--csv {args.csv!r}: give a file name, not a folder")
        if not target.parent.is_dir():
            raise InputError(f"--csv {args.csv}: the folder {target.parent} does not exist")
    if args.exploits is not None:
        return write_exploits(args)
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


def write_exploits(args) -> int:
    """``--write --exploits DIR``: the exploit tables, and what they hold in one line per
    opponent."""
    from ..exploit_report import SUMMARY, played, write_exploit_tables
    from ..exploit import MAX_EXPLOITABILITY
    from ..tables import table_paths

    if not args.write:
        raise InputError("--exploits DIR: give --write too (the exploit tables are stored, "
                         "then read by the exploit page and lab.load)")
    summary, _ = write_exploit_tables(args.exploits)
    print(f"wrote {table_paths(SUMMARY)[0].parent} (exploit_summary, exploit_report)",
          file=sys.stderr)
    lines = []
    for name, rows in summary.groupby("opponent", sort=True):
        at = played(rows, MAX_EXPLOITABILITY)
        lines.append({"opponent": name, "viras": len(rows), "gain": at["gain"],
                      "equilibrium_gain": at["equilibrium_gain"],
                      "exploitability_at_most": at["exploitability_at_most"],
                      "exploit_gain": at["exploit_gain"],
                      "exploit_exploitability": at["exploitability"],
                      "unit": "points per hand", "max_exploitability": MAX_EXPLOITABILITY})
    if in_words(args):
        for r in lines:
            print(f"{r['opponent']}: {r['viras']} viras; the exploit wins "
                  f"{r['exploit_gain']:+.3f} points per hand against his model (the "
                  f"equilibrium {r['equilibrium_gain']:+.3f}) and gives away up to "
                  f"{r['exploit_exploitability']:.3f}; within "
                  f"{r['max_exploitability']} the play wins {r['gain']:+.3f}")
    else:
        print_json(lines)
    return 0
