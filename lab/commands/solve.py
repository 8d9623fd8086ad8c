"""Solve a game for one vira or all ten and write its tables to ``data/``.

``lab solve cardplay [--vira V | --all] [--target 1e-4] [--replace]`` solves the card-play
game (stake fixed, no betting) with the public-tree CFR solver and writes the
``cardplay`` and ``cardplay_summary`` tables (see :mod:`lab.tables`), merging its viras
into them (``--replace``: only its viras; without it a table on disk that cannot be read
while it holds other viras is refused before the solve, never dropped).

``lab solve full [--vira V ... | --all] [--scheduler ADDRESS]`` solves the full
hand game with the truco ladder, one dask task per vira (see
:mod:`lab.commands.solve_full`).

``lab solve match [--jobs J]`` runs the backward induction over every score
on the card-play tables (and the full game's, once all ten viras are solved),
solving each vira's mão de onze exactly, and writes the ``match_equity`` and
``mao_de_onze`` tables.

``lab solve lock --vira V (--profile FILE | --adjust ...) --out DIR`` exploits an
opponent's habits (see :mod:`lab.commands.solve_lock`).

``lab solve policy --checkpoints DIR`` stores the full game's solved strategy as a compact
policy (see :mod:`lab.commands.solve_policy`).

``lab solve score --score M,P --checkpoints DIR`` measures the points solution's
leak at one score in match-win probability and re-solves that score with match
payoffs (see :mod:`lab.commands.solve_score`); ``lab solve match-play --checkpoints DIR``
re-solves many (vira, score) that way, resumably, and builds the match equity on them (see
:mod:`lab.commands.solve_match_play`).

Every one takes ``--rules NAME`` and ``--rule KEY=VALUE``. These tables hold the lab's own
rules; under a house rule set ``lab solve full --rules NAME --vira V`` solves the full game
where its normal hands differ and records it in that rule set's what-if (see
:mod:`lab.commands.solve_full`); the other games are solved under house rules by ``lab
whatif --rules NAME``, and saying so is the answer to ``lab solve cardplay|match|score|policy
--rules NAME``.
"""

from __future__ import annotations

import math
import sys

from ..cli import chosen_viras
from ..options import count, positive, UsageError

def add_arguments(parser) -> None:
    from ..cli import add_rule_options
    from .solve_full import add_arguments as add_full_arguments

    games = parser.add_subparsers(dest="game", metavar="GAME", required=True,
                                  parser_class=type(parser))
    cardplay = games.add_parser("cardplay", help="hand equity per vira (card play, no betting)")
    add_cardplay_arguments(cardplay)
    match = games.add_parser("match", help="match equity by score and the mão de onze")
    match.add_argument("--jobs", type=count, default=1, metavar="J",
                       help="solve J mão de onze games at once in separate processes")
    match.add_argument("--no-progress", action="store_true", help="no progress bar")
    full = games.add_parser("full", help="the full hand game with the truco ladder "
                            "(points EV, betting strategy), one dask task per vira")
    add_full_arguments(full)
    from .solve_score import add_arguments as add_score_arguments

    score = games.add_parser("score", help="the points strategy's leak at a score (match-win "
                             "probability) and a score-aware re-solve")
    add_score_arguments(score)
    from .solve_policy import add_arguments as add_policy_arguments

    policy = games.add_parser("policy", help="store the full game's solved strategy as a "
                              "compact policy (from the full solves' checkpoints)")
    add_policy_arguments(policy)
    from .solve_match_play import add_arguments as add_match_play_arguments

    match_play = games.add_parser("match-play", help="re-solve the hands of many (vira, score) "
                                  "with match-win payoffs, resumable (score-aware play)")
    add_match_play_arguments(match_play)
    for sub in (cardplay, match, full, score, policy, match_play):
        add_rule_options(sub)
    from .solve_lock import add_arguments as add_lock_arguments

    lock = games.add_parser("lock", help="exploit an opponent's habits (a saved profile or "
                            "stated shifts): lock them and re-solve a vira (points)")
    add_lock_arguments(lock)


def lab_rules_only(game: str, rules) -> None:
    """InputError unless ``rules`` are the lab's own: ``lab solve GAME`` (other than
    ``full``) writes the tables of those rules only, and says what solves it under others."""
    from ..errors import InputError
    from ..rules import DEFAULT_RULES
    from ..tables.whatif import whatif_command

    if rules == DEFAULT_RULES:
        return
    where = {"cardplay": "its card play and double dummy", "match": "its match equity and "
             "mão de onze"}.get(game)
    if where is None:
        raise InputError(f"--rules {rules.name}: `lab solve {game}` works on the full game "
                         "of the lab's own rules only (its stored checkpoints and policies)")
    raise InputError(f"--rules {rules.name}: `lab solve {game}` writes the tables of the lab's "
                     f"own rules; `{whatif_command(rules)}` solves {where} under these rules")


def add_cardplay_arguments(parser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--vira", action="append", metavar="V",
                       help="a vira rank or card (4, Q, 7c ...); repeat for several")
    which.add_argument("--all", action="store_true", help="all ten viras (the default)")
    parser.add_argument("--target", type=positive, default=None, metavar="EPS",
                        help="stop at this exploitability, win probability (default 1e-4)")
    parser.add_argument("--max-iterations", type=count, default=None, metavar="N",
                        help="stop after N iterations at most")
    parser.add_argument("--jobs", type=count, default=1, metavar="J",
                        help="solve J viras at once in separate processes (default 1)")
    from .solve_full import add_replace_option

    add_replace_option(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def settings_from(args) -> dict:
    """The solver settings asked for on the command line (defaults filled in)."""
    from ..tables import CARDPLAY_SETTINGS

    settings = dict(CARDPLAY_SETTINGS)
    if args.target is not None:
        if not 0 < args.target < 1:
            raise UsageError(f"--target {args.target}: give an exploitability between 0 and 1 "
                             "(win probability)")
        settings["target_exploitability"] = args.target
    if args.max_iterations is not None:
        settings["max_iterations"] = args.max_iterations
    return settings


def run_match(args) -> int:
    """``lab solve match``: the match tables over all ten viras."""
    from ..match import MODEL_DESCRIPTIONS
    from ..tables import build_match_tables, check_data_writable, table_paths

    check_data_writable()
    tables = build_match_tables(progress=not args.no_progress, jobs=args.jobs)
    me = tables["match_equity"]
    start = me[(me["score_mao"] == 0) & (me["score_pe"] == 0)].iloc[0]
    print(f"0-0: the first hand's mão wins the match with probability {start.p_mao:.6f}")
    for model, rows in me.groupby("model"):
        expl = rows.exploitability.max()
        expl = "exploitability not measured" if math.isnan(expl) else \
            f"exploitability <= {expl:.2e} (match-win probability)"
        print(f"{model}: {len(rows)} scores, {expl} - {MODEL_DESCRIPTIONS[model]}")
    for name, df in tables.items():
        print(f"wrote {table_paths(name)[0]} ({len(df)} rows)")
    return 0


def run(args) -> int:
    from ..tables import (CARDPLAY_SETTINGS, build_cardplay_tables, check_data_writable,
                          table_paths)

    from ..cli import rules_from

    if args.game == "lock":
        from .solve_lock import run as run_lock

        return run_lock(args)
    if args.game != "full":
        lab_rules_only(args.game, rules_from(args))
    if args.game == "match":
        return run_match(args)
    if args.game == "full":
        from .solve_full import run as run_full

        return run_full(args)
    if args.game == "score":
        from .solve_score import run as run_score

        return run_score(args)
    if args.game == "match-play":
        from .solve_match_play import run as run_match_play

        return run_match_play(args)
    if args.game == "policy":
        from .solve_policy import run as run_policy

        return run_policy(args)
    viras = chosen_viras(args.vira)
    settings = settings_from(args)
    check_data_writable()
    tables = build_cardplay_tables(viras, settings, progress=not args.no_progress,
                                   jobs=args.jobs, replace=args.replace)
    summary = tables["cardplay_summary"]
    for row in summary[summary["vira"].isin(viras)].itertuples():
        print(f"vira {row.vira}: mão wins {row.value_mao:.6f} (double dummy "
              f"{row.double_dummy_mao:.6f}), exploitability {row.exploitability:.2e}, "
              f"{row.iterations} iterations, {row.seconds:.1f} s")
        if row.exploitability > settings["target_exploitability"]:
            print(f"warning: vira {row.vira} stopped at exploitability "
                  f"{row.exploitability:.2e} above the target "
                  f"{settings['target_exploitability']:.0e}", file=sys.stderr)
    for name, df in tables.items():
        print(f"wrote {table_paths(name)[0]} ({len(df)} rows, viras "
              f"{''.join(df['vira'].unique())})")
    from ..tables import table_status

    for name in ("match_equity", "mao_de_onze"):
        status = table_status(name)
        if status != "ok" and "computed from another" in status:
            print(f"note: {status}", file=sys.stderr)
    if settings != CARDPLAY_SETTINGS:
        print(f"note: built with settings {settings}, not the defaults {CARDPLAY_SETTINGS}; "
              "lab.tables.load_table reports such tables as stale", file=sys.stderr)
    return 0
