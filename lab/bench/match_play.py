"""``lab bench match-play``: matches played by the score-aware solver bot from a score,
against the match-equity tables.

Both seats are the stored solver bot (:func:`lab.ranking.stored_solver_bot`'s providers:
the points policies, score-aware where a policy is stored, the ``mao_de_onze`` decisions);
bot A is the mão of the first hand, played at ``--start``, and every hand turns a random
vira. A's match-win rate, with its 95% interval (mirrored deal pairs as the unit,
:func:`lab.sim.stats.win_rate_ci95`), is printed beside ``p_mao`` at that score in
``match_equity_mixed`` (score-aware hands where re-solved; the bot plays them where their
policy is stored, points play at the other re-solved (vira, score), where bot and table
differ by a tenth of that re-solve's ``value_change``, the vira being one of ten) and in
``match_equity`` (points play), and whether each lies inside the interval.

The policies of every vira are kept in memory for the run (about 0.1 GB each beside the
shared keys), so hands of different viras do not reload them; card-play solves after a
mão de onze is accepted and at 11 x 11 use ``--target`` (win or match-win probability,
default 1e-3, as the simulation tests do). Prints one JSON object.
"""

from __future__ import annotations

import json
import time

from ..errors import InputError
from ..options import count, natural, number, Parser, UsageError


def held_providers():
    """(points policies, score-aware policies) providers that keep what they load."""
    from ..cards import RANKS
    from ..classes import vira_rank_of
    from ..tables.policies import load_full_policy
    from ..tables.score_policies import load_score_policy

    points, aware = {}, {}

    def policies(vira):
        v = RANKS[vira_rank_of(vira)]
        if v not in points:
            points[v] = load_full_policy(v)
        return points[v]

    def score_policies(vira, score):
        key = (RANKS[vira_rank_of(vira)], tuple(score))
        if key not in aware:
            aware[key] = load_score_policy(*key)
        return aware[key]

    return policies, score_policies


def main(argv) -> int:
    from ..match import equity_array
    from ..ranking import eleven_accept, match_equity
    from ..rules import parse_score
    from ..sim.batch import run_matches
    from ..sim.solver_bot import solver_bot
    from ..sim.stats import win_rate_ci95
    from ..tables import load_table

    p = Parser(prog="lab bench match-play", description=__doc__.splitlines()[0])
    p.add_argument("--start", default="9,9", help="the score of the first hand, mão,pé "
                                                  "(default 9,9)")
    p.add_argument("--matches", type=count, default=4000, help="matches (default 4000)")
    p.add_argument("--seed", type=natural, default=1)
    p.add_argument("--target", type=number, default=1e-3,
                   help="exploitability of the card-play solves (default 1e-3)")
    args = p.parse_args(argv)
    try:
        start = parse_score(args.start)
    except ValueError as exc:
        raise UsageError(f"--start {args.start}: {exc}") from None
    if not all(0 <= x <= 11 for x in start):
        raise InputError(f"--start {args.start}: a match starts a hand with 0..11 points each")
    policies, score_policies = held_providers()
    bot = solver_bot(policies, eleven_accept, match_equity, cardplay_target=args.target,
                     eleven_target=args.target, progress=False, score_policies=score_policies)
    t0 = time.perf_counter()
    frame, _ = run_matches(bot, bot, args.matches, args.seed, first="a", start=start,
                           workers=1, progress=True)
    lo, hi = win_rate_ci95(frame)
    rate = float((frame["winner"] == "a").mean())
    out = {"start": list(start), "matches": len(frame), "seed": args.seed,
           "a_win_rate": rate, "ci95": [lo, hi], "seconds": round(time.perf_counter() - t0, 1),
           "hands_per_match": float(frame["hands"].mean())}
    for name in ("match_equity_mixed", "match_equity"):
        table = equity_array(load_table(name))[start]
        out[name] = float(table)
        out[f"{name}_inside"] = bool(lo <= table <= hi)
    print(json.dumps(out), flush=True)
    return 0
