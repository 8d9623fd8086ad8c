"""Exploit a known opponent: ``lab solve lock --vira V|all (--profile FILE | --adjust ...)
--out DIR``.

The opponent's habits come from a saved profile (``lab profile FILE --player NAME --save
PROFILE``: each betting cell whose interval excludes the solver's mean; the cells are
situations, the standing in rounds and the live cards, unless ``--model dealt`` asks for
the buckets of the dealt hand) or are stated,
``--adjust SPOT:BUCKET:MOVE:SHIFT`` (repeatable; for instance
``answer_truco:middle:run:+0.2``: runs from a raise 20 points more often than the solver
with middle hands). :func:`lab.exploit.exploit` locks them into the vira's stored
equilibrium and re-solves (``--iterations`` per seat, ``--lock cells`` or ``whole``, the
equilibrium held with ``--hold``); the
exploit policy is written to ``DIR`` as a stored policy (``DIR/full_policy``, read with
``lab.tables.policies.load_full_policy(V, directory=DIR)``), never into ``data/``. It
prints the adjustments in words, the exploit's and the equilibrium's gain against the
model and the exploit's own exploitability (exact, points per hand), and the share of
hands it is played in to keep what the play gives away under ``--max-exploitability``
(:func:`lab.exploit.share_within`), as text or ``--json``.

``--score M,P`` plays for the match instead (one vira): the exploit of the vira's
score-aware policy at that score, its figures in match-win probability, written to
``DIR/score-M-P``; when ``DIR`` holds the vira's points exploit of the same habits, what
that one wins and gives away at the score is printed beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..cli import print_json
from ..options import count, nonnegative


def add_arguments(parser) -> None:
    from ..exploit import HOLD, ITERATIONS, LOCKS, MAX_EXPLOITABILITY, MODELS

    parser.add_argument("--vira", required=True, metavar="V",
                        help="a vira rank or card (its stored points policy is the start), "
                             "or all: every stored vira in turn, keeping those solved "
                             "before with the same habits and settings (a stopped run "
                             "resumes)")
    habits = parser.add_mutually_exclusive_group(required=True)
    habits.add_argument("--profile", metavar="FILE",
                        help="a profile saved by `lab profile --save` (its cells whose "
                             "interval excludes the solver's mean)")
    habits.add_argument("--adjust", action="append", metavar="SPOT:BUCKET:MOVE:SHIFT",
                        help="a habit stated: spot answer_truco, open_truco or raise; bucket "
                             "weak, middle, strong or all, or a situation STANDING.LIVE "
                             "(ahead, even, behind . double, manilha, three, deuce, low); "
                             "the move; the shift in probability (+0.2: 20 points more "
                             "often), optionally =FREQUENCY (his frequency there, played "
                             "at every decision of the cell); repeatable")
    parser.add_argument("--model", choices=MODELS, default=MODELS[0],
                        help="the cells a profile's habits are read in: live (the default: "
                             "the standing in rounds and the live cards at the decision) "
                             "or dealt (the strength of the hand as dealt)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for the exploit policy (created; never data/)")
    parser.add_argument("--score", metavar="M,P",
                        help="play for the match at this score (mão's, pé's points): the "
                             "exploit of the vira's score-aware policy there, in match-win "
                             "probability, written to DIR/score-M-P and set beside DIR's "
                             "points exploit of the vira when there is one; one vira")
    parser.add_argument("--iterations", type=count, default=ITERATIONS, metavar="N",
                        help=f"re-solve iterations per seat (default {ITERATIONS})")
    parser.add_argument("--lock", choices=LOCKS, default=LOCKS[0],
                        help="lock only the decisions named (cells, the default) or the "
                             "opponent's whole model (whole: a best response to it)")
    parser.add_argument("--hold", type=nonnegative, default=HOLD, metavar="W",
                        help=f"how hard the re-solve holds the equilibrium (default {HOLD:g}; "
                             "smaller wins more from him and risks more; 0: from scratch)")
    parser.add_argument("--max-exploitability", type=nonnegative, default=MAX_EXPLOITABILITY,
                        metavar="B",
                        help="the most the play may give away, points per hand (with "
                             f"--score: match-win probability; default {MAX_EXPLOITABILITY:g}"
                             "): the exploit is played in the share of hands that keeps it "
                             "there, the equilibrium in the others")
    parser.add_argument("--threads", type=count, default=2, metavar="T",
                        help="numba threads (default 2)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def habits(args) -> list:
    """The adjustments the command line names (InputError for a bad one)."""
    from ..errors import InputError
    from ..exploit import adjustments_of, parse_adjustment
    from ..player_profile import saved_profile

    if args.adjust:
        return [parse_adjustment(text) for text in args.adjust]
    profile = saved_profile(args.profile)
    if profile is None:
        raise InputError(f"{args.profile}: not a saved profile; save one with `lab profile "
                         "FILE --player NAME --save PROFILE`")
    return adjustments_of(profile, args.model)


def check_out(out: Path) -> Path:
    """``out``, refused when it is the lab's data folder (the repository's, or
    ``$LAB_DATA_DIR``) or a file."""
    from ..errors import InputError
    from ..tables.registry import REPOSITORY_DATA, data_dir

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: a file is there; name a folder")
    if out.resolve() in (REPOSITORY_DATA.resolve(), data_dir().resolve()):
        raise InputError(f"--out {out}: that is the lab's data folder; name a folder of "
                         "your own")
    return out


def solved_before(out: Path, vira: str, adjustments, args) -> bool:
    """Whether ``out`` already holds ``vira``'s exploit of these habits with these settings,
    from the vira's stored equilibrium as it is now (a run of ``--vira all`` resumes)."""
    from ..tables import TableError
    from ..tables.policies import policy_info

    try:
        done, base = policy_info(vira, out), policy_info(vira)
    except TableError:
        return False
    settings = ("lock", "hold", "iterations", "max_exploitability")
    return (done.get("exploit_of") == base.get("sha256")
            and done.get("adjustments") == [a.token() for a in adjustments]
            and (not adjustments     # no habit: the equilibrium, whatever the settings
                 or all(done.get(k) == getattr(args, k) for k in settings)))


def run(args) -> int:
    from ..tables.policies import stored_viras

    adjustments = habits(args)
    out = check_out(Path(args.out))
    if args.score is not None:
        result = solve_at_score(args.vira, adjustments, out, args)
        if args.json:
            print_json({**result.as_json(), "out": str(score_folder(out, result.score))})
        return 0
    if args.vira != "all":
        result = solve_one(args.vira, adjustments, out, args)
        if args.json:
            print_json({**result.as_json(), "out": str(out)})
        return 0
    done = []
    for vira in stored_viras():
        if solved_before(out, vira, adjustments, args):
            print(f"vira {vira}: solved before with these habits and settings; kept",
                  file=sys.stderr)
            continue
        done.append(solve_one(vira, adjustments, out, args).as_json())
    if args.json:
        print_json({"out": str(out), "viras": done})
    return 0


def solve_one(vira, adjustments, out: Path, args):
    """Solve and write one vira's exploit; say what it found (unless ``--json``)."""
    from ..tables.policies import load_full_policy

    return solved(load_full_policy(vira), adjustments, out, args)


def score_folder(out: Path, score) -> Path:
    """Where the exploit at ``score`` is written: ``out/score-M-P``."""
    return out / f"score-{score[0]}-{score[1]}"


def solve_at_score(vira, adjustments, out: Path, args):
    """Solve and write one vira's exploit at ``args.score``, for the match; beside it,
    what ``out``'s points exploit of the vira (if any) wins and gives away at that score."""
    from ..errors import InputError
    from ..exploit import exploitability_of, gain_against
    from ..options import UsageError
    from ..tables import TableError
    from ..tables.policies import load_full_policy
    from ..tables.score_policies import load_score_policy, stored_scores
    from .solve_score import chosen_scores

    if vira == "all":
        raise UsageError("--score: give one vira (--vira V)")
    score = chosen_scores([args.score])[0]
    policy = load_score_policy(vira, score)
    if policy is None:
        stored = ", ".join(f"{m}-{p}" for m, p in stored_scores(vira)) or "none"
        raise InputError(f"vira {vira} has no score-aware policy at {score[0]}-{score[1]} "
                         f"(stored: {stored}); `lab solve match-play` re-solves one")
    result = solved(policy, adjustments, score_folder(out, score), args, quiet=True)
    try:                                 # read once the re-solve has let its memory go
        points = load_full_policy(vira, directory=out)
    except TableError:
        points = None
    if points is not None and points.meta.get("adjustments") == [
            a.token() for a in adjustments]:
        result.points_play = {"gain": gain_against(policy, points.q, result.model),
                              "exploitability": exploitability_of(policy, points.q)}
    if not args.json:
        say(result, adjustments, score_folder(out, score))
    return result


def solved(policy, adjustments, out: Path, args, quiet: bool = False):
    """Solve and write ``policy``'s exploit; say what it found (unless ``--json`` or
    ``quiet``)."""
    from ..exploit import exploit, save

    result = exploit(policy, adjustments, args.iterations, args.lock, args.threads,
                     progress=False if args.no_progress else None, hold=args.hold,
                     bound=args.max_exploitability)
    save(result, policy, out)
    if not (args.json or quiet):
        say(result, adjustments, out)
    return result


def say(result, adjustments, out: Path) -> None:
    """What the exploit ``result`` found, in words (its seconds on stderr)."""
    unit = result.unit
    at = "" if result.score is None else f" at {result.score[0]}-{result.score[1]}"
    print(f"vira {result.vira}{at}, {len(adjustments)} habit(s) locked ({result.lock}):")
    for adj in adjustments:
        print(f"  {adj.words()}")
    if not adjustments:
        print("  none: the profile shows no habit outside its intervals; the exploit is the "
              "equilibrium")
    print(f"gain against the model: {result.gain:+.4f} {unit} "
          f"(the equilibrium: {result.equilibrium_gain:+.4f})")
    print(f"exploitability: {result.exploitability:.4f} {unit} "
          f"(the equilibrium: {result.equilibrium_exploitability:.4f})")
    if result.points_play is not None:
        print(f"the points exploit, played at this score: gain {result.points_play['gain']:+.4f}"
              f", exploitability {result.points_play['exploitability']:.4f} {unit}")
    print(f"played in {result.share:.0%} of the hands (the equilibrium in the others) to "
          f"give away at most {result.bound:g}: it wins {result.played_gain:+.4f} {unit} "
          f"against the model, at most {result.played_exploitability:.4f} can be won from it")
    spent = ", ".join(f"{k} {v:.0f} s" for k, v in result.phases.items())
    print(f"wrote {out} ({result.seconds:.0f} s{': ' + spent if spent else ''})",
          file=sys.stderr)
