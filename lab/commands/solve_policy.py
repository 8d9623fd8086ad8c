"""Store the full game's solved strategy as a compact policy in ``data/full_policy/``.

``lab solve policy [--vira V ... | --all] --checkpoints DIR [--threshold 0.02] [--threads N]
[--same-as V=W ...]`` loads each vira's ``lab solve full`` checkpoint from DIR, merges the
average strategy over betting histories, drops probabilities below the threshold,
quantises to bytes, prunes what each seat's own play never reaches, measures the stored
policy's exploitability by an exact best response (points per hand) and writes the policy
and its manifest (see :mod:`lab.tables.policies`); each pair is rounded to the coarsest
steps whose move times its own reach is at most ``--reach-tolerance`` (points per hand,
default 0.005, 0 rounds nothing). About 3-4 minutes per vira on one core.

``--repack`` writes every stored policy (points and score-aware) again at the current
packing and compression (:data:`lab.solver.fullgame.compact.PACKING`, ``LEVEL``), the same
strategies byte for byte, without checkpoints.

``--round-points`` rounds every stored points policy by own reach again
(``--reach-tolerance``, points per hand, default 0.005) without checkpoints, measuring its
exploitability again, and gives each of its score-aware policies the rounded strategy
wherever it played the old one, measured again too.

``--snap-stored`` snaps every stored score-aware policy to its points policy again by own
reach (``--reach-tolerance``, default 0.05) and rounds it by own reach as a build does,
without checkpoints, measuring each one's exploitability again (for policies stored before
the reach tolerance existed).

``--same-as 3=2`` stores vira 3's policy as vira 2's when the two decks have the same deal
weights (viras 2 and 3 do: the vira's own rank is the top plain level in both), after
checking that they do; with ``--score``, its score-aware policies there (vira 2's stored
first, and vira 3's ``score_play`` rows copies of vira 2's).

``--score M,P`` (repeatable) stores instead the score-aware policies of the chosen viras at
those scores, from their re-solves under DIR (``lab solve match-play --checkpoints DIR``):
each given the points policy's strategy wherever it plays within ``--tolerance`` of it
(total variation; default 0.05, 0 keeps it whole) or where its own reach times that
distance is at most ``--reach-tolerance`` (default 0.05, 0 by distance alone), each pair
that keeps its own strategy rounded to the coarsest steps (a pure strategy at the coarsest)
whose move times its own reach is at most that too, stored as its difference from the
vira's points policy where that is smaller than on its own, with its exploitability and
value at its match payoffs (match-win probability; see :mod:`lab.tables.score_policies`).

:mod:`lab.commands.solve` hands ``lab solve policy`` to this module.
"""

from __future__ import annotations

import sys

from ..options import count, number, UsageError
from .solve_score import chosen_scores


def add_arguments(parser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--vira", action="append", metavar="V",
                       help="a vira rank or card (4, Q, 7c ...); repeat for several")
    which.add_argument("--all", action="store_true", help="all ten viras (the default)")
    parser.add_argument("--checkpoints", metavar="DIR",
                        help="the folder of `lab solve full --checkpoints DIR`")
    parser.add_argument("--threshold", type=number, default=None, metavar="P",
                        help="drop probabilities below P before quantising (default 0.02)")
    parser.add_argument("--threads", type=count, default=1, metavar="N",
                        help="numba threads for the traversals (default 1)")
    parser.add_argument("--same-as", action="append", default=[], metavar="V=W",
                        help="store vira V as vira W's policy (equal deal weights, checked); "
                             "with --score, its score-aware policies there")
    parser.add_argument("--score", action="append", default=[], metavar="M,P",
                        help="store the score-aware policy re-solved at this score (both "
                             "0..10) instead; repeat for several")
    parser.add_argument("--repack", action="store_true",
                        help="write the stored policies (points and score-aware) again at "
                             "the current compression, the same strategies byte for byte "
                             "(no checkpoints needed; about a minute per policy)")
    parser.add_argument("--round-points", action="store_true",
                        help="round the stored points policies by own reach again "
                             "(--reach-tolerance, points per hand) and give their "
                             "score-aware policies the rounded strategy where they played "
                             "the old one, each measured again (no checkpoints needed; "
                             "about a minute per policy)")
    parser.add_argument("--snap-stored", action="store_true",
                        help="snap the stored score-aware policies to their points policies "
                             "again by own reach (--reach-tolerance), each one's "
                             "exploitability measured again (no checkpoints needed; about a "
                             "minute per policy)")
    parser.add_argument("--tolerance", type=number, default=None, metavar="TV",
                        help="with --score: play the points policy's strategy where the "
                             "score-aware one is within TV of it (total variation; default "
                             "0.05, 0 keeps it whole)")
    parser.add_argument("--reach-tolerance", type=number, default=None, metavar="R",
                        help="round each pair to the coarsest steps whose move (total "
                             "variation) times its own reach is at most R: points per hand "
                             "for points policies (default 0.005); with --score, match-win "
                             "probability, and the points policy's strategy is played too "
                             "where a pair's own reach times its move from it is at most R "
                             "(default 0.05; 0: by --tolerance alone, nothing rounded)")


def run(args) -> int:
    from ..tables.policies import REACH_TOLERANCE as POINTS_REACH_TOLERANCE
    from ..tables.policies import THRESHOLD, build_full_policy, copy_policy
    from ..cli import chosen_viras
    from ..tables import check_data_writable

    threshold = THRESHOLD if args.threshold is None else args.threshold
    if not 0 <= threshold < 0.5:
        raise UsageError(f"--threshold {args.threshold}: give a probability in [0, 0.5)")
    same = {}
    for item in args.same_as:
        if "=" not in item:
            raise UsageError(f"--same-as {item}: write V=W (store vira V as vira W's policy)")
        v, w = (chosen_viras([x])[0] for x in item.split("=", 1))
        same[v] = w
    viras = chosen_viras(args.vira)
    check_data_writable()
    if args.repack:
        if args.score or same or args.checkpoints or args.vira or args.snap_stored \
                or args.round_points:
            raise UsageError("--repack rewrites every stored policy as it is: give it alone")
        from ..tables.score_policies import repack_policies

        total = repack_policies(progress=lambda msg: print(msg, file=sys.stderr, flush=True))
        print(f"the policy store holds {total / 1e6:.1f} MB")
        return 0
    if args.round_points:
        if args.score or same or args.checkpoints or args.vira or args.tolerance is not None \
                or args.snap_stored:
            raise UsageError("--round-points rounds every stored points policy: give it "
                             "alone, or with --reach-tolerance and --threads")
        from ..tables.score_policies import round_stored_points

        total = round_stored_points(_reach_tolerance(args, POINTS_REACH_TOLERANCE), args.threads,
                                    progress=lambda msg: print(msg, file=sys.stderr,
                                                               flush=True))
        print(f"the policy store holds {total / 1e6:.1f} MB")
        return 0
    if args.snap_stored:
        if args.score or same or args.checkpoints or args.vira or args.tolerance is not None:
            raise UsageError("--snap-stored snaps every stored score-aware policy: give it "
                             "alone, or with --reach-tolerance and --threads")
        from ..tables.score_policies import REACH_TOLERANCE, snap_stored

        reach = _reach_tolerance(args, REACH_TOLERANCE)
        total = snap_stored(reach, args.threads,
                            progress=lambda msg: print(msg, file=sys.stderr, flush=True))
        print(f"the policy store holds {total / 1e6:.1f} MB")
        return 0
    if not args.checkpoints:
        raise UsageError("give --checkpoints DIR (the folder of `lab solve full "
                         "--checkpoints DIR`), or --repack, --round-points or "
                         "--snap-stored")
    if args.tolerance is not None and not args.score:
        raise UsageError("--tolerance is for score-aware policies: give --score M,P")
    if args.score:
        from ..tables.score_policies import REACH_TOLERANCE, TOLERANCE

        tolerance = TOLERANCE if args.tolerance is None else args.tolerance
        if not 0 <= tolerance <= 1:
            raise UsageError(f"--tolerance {args.tolerance}: give a probability in [0, 1]")
        reach = _reach_tolerance(args, REACH_TOLERANCE)
        return _store_score_aware(viras, chosen_scores(args.score), args.checkpoints,
                                  threshold, (tolerance, reach), args.threads, same)
    points_reach = _reach_tolerance(args, POINTS_REACH_TOLERANCE)
    for v in viras:
        if v in same:
            info = copy_policy(v, same[v])
            print(f"vira {v}: stored as vira {same[v]}'s policy (same deal weights), "
                  f"exploitability {info['exploitability']:.4f} points per hand")
            continue
        info = build_full_policy(v, args.checkpoints, threshold, threads=args.threads,
                                 progress=lambda msg: print(msg, file=sys.stderr, flush=True),
                                 reach_tolerance=points_reach)
        print(f"vira {v}: {info['pairs']:,} pairs, {info['bytes'] / 1e6:.2f} MB, stored "
              f"policy's exploitability {info['exploitability']:.4f} points per hand (the "
              f"solve's {info['solver_exploitability']:.4f} at {info['iterations']} "
              f"iterations), mão's value {info['value_mao']:+.4f}")
    return 0


def _reach_tolerance(args, default: float) -> float:
    if args.reach_tolerance is None:
        return default
    if not args.reach_tolerance >= 0:
        raise UsageError(f"--reach-tolerance {args.reach_tolerance}: give a number of 0 or "
                         "more")
    return args.reach_tolerance


def _store_score_aware(viras, scores, checkpoints, threshold, tolerances, threads,
                       same) -> int:
    from ..tables.score_policies import build_score_policy, copy_score_policy

    tolerance, reach_tolerance = tolerances
    for v in viras:
        for score in scores:
            if v in same:
                info = copy_score_policy(v, same[v], score)
                print(f"vira {v} at {score[0]}-{score[1]}: stored as vira {same[v]}'s "
                      f"score-aware policy (the same game), exploitability "
                      f"{info['exploitability']:.4f} match-win probability")
                continue
            info = build_score_policy(v, score, checkpoints, threshold, tolerance,
                                      threads=threads,
                                      progress=lambda msg: print(msg, file=sys.stderr,
                                                                 flush=True),
                                      reach_tolerance=reach_tolerance)
            how = "as the difference from the points policy" if info["difference"] else \
                "on its own (smaller than as the difference from the points policy)"
            print(f"vira {v} at {score[0]}-{score[1]}: {info['pairs']:,} pairs "
                  f"({info['own_pairs']:,} keep their own: more than {tolerance:g} from "
                  f"points play, own reach times move above {reach_tolerance:g}; "
                  f"{info['coarse_pairs']:,} of them rounded coarser), "
                  f"{info['bytes'] / 1e6:.2f} MB {how}, "
                  f"stored policy's exploitability {info['exploitability']:.4f} match-win "
                  f"probability (the re-solve's {info['solver_exploitability']:.4f} at "
                  f"{info['iterations']} iterations), mão's value {info['value_mao']:.4f}")
    return 0
