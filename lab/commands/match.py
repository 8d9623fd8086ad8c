"""Match-win probabilities at a score, as one JSON object.

``lab match --score M,P`` (M = the points of the next hand's mão, P = the pé's)
prints ``mao`` and ``pe`` (match-win probabilities, summing to 1), the ``model``
that produced them, its ``exploitability`` (match-win probability) and the kind
of ``hand`` played at that score, read from the ``match_equity_mixed`` table: the model
the lab advises with (the hands re-solved for the match where ``lab solve match-play``
stored them, ``score_aware_viras`` of the ten, points play elsewhere), with
``mao_points_play``, the mão's match-win probability under points play everywhere; and, where
``lab solve score`` measured it (table ``score_leak``), ``points_play_leak``: how much the
full game's points play leaks at that score (match-win probability, mean over the
``points_play_leak_viras`` viras measured), else null.
"""

from __future__ import annotations


from ..rules import hand_kind
from ..rules import parse_score
from ..cli import print_json


def add_arguments(parser) -> None:
    parser.add_argument("--score", required=True,
                        help="M,P: the points of the next hand's mão and pé (0..11 each)")


def match_at(score: tuple[int, int]) -> dict:
    """The JSON object for one score; ValueError for a score no hand is played at."""
    import pandas as pd

    from ..match import MODEL_DESCRIPTIONS
    from ..rules import check_score
    from ..tables import load_table

    check_score(score)
    table = load_table("match_equity_mixed")
    row = table[(table["score_mao"] == score[0]) & (table["score_pe"] == score[1])].iloc[0]
    return {"score": list(score), "mao": float(row.p_mao), "pe": float(row.p_pe),
            "model": row.model, "model_description": MODEL_DESCRIPTIONS[row.model],
            # null where not measured (the full game's points play, see `lab solve score`)
            "exploitability": None if pd.isna(row.exploitability) else float(row.exploitability),
            "hand": hand_kind(score)[0], "score_aware_viras": int(row.score_aware_viras),
            "mao_points_play": float(row.p_mao_points), **points_play_leak(score)}


def points_play_leak(score: tuple[int, int]) -> dict:
    """The ``score_leak`` table's mean leak at ``score`` and how many viras it averages;
    null and 0 where the table does not exist or has no row there."""
    from ..tables import TableError, load_table, solved_viras

    try:
        table = load_table("score_leak", viras=solved_viras("score_leak"))
    except TableError:
        table = None
    rows = None if table is None else table[(table["score_mao"] == score[0])
                                            & (table["score_pe"] == score[1])]
    if rows is None or rows.empty:
        return {"points_play_leak": None, "points_play_leak_viras": 0}
    return {"points_play_leak": float(rows["leak"].mean()), "points_play_leak_viras": len(rows)}


def run(args) -> int:
    print_json(match_at(parse_score(args.score)))
    return 0
