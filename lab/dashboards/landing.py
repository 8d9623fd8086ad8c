"""The landing page (``notebooks/index.ipynb``): what is solved, to what exploitability.

:func:`data_status` reads every stored table's manifest through the tables layer and
lists, per table, what it holds, its unit, the viras solved and the largest
exploitability recorded (in the table's unit, rounded to two significant digits).
"""

from __future__ import annotations

import html

import pandas as pd

from ..tables.tidy import TABLE_NAMES
from ..cards import RANKS
from ..tables.policies import policy_info, stored_viras
from ..tables.score_policies import read_score_policy_manifest
from ..tables.score_policies import rebuild_command as score_rebuild
from ..tables import TableError, read_manifest, spec_of, table_status
from ..charts import significant

WHAT = {
    "cardplay": "how strong each hand is in card play (equilibrium and double dummy)",
    "cardplay_summary": "the mão's chance per vira in card play",
    "match_equity": "the chance of winning the match from every score",
    "mao_de_onze": "when the player with 11 points should play or run",
    "full_ev": "points each hand is worth in the full game with truco",
    "full_strategy": "the first decision of every hand in the full game",
    "full_summary": "the mão's points per hand and the bluff rates per vira",
    "full_outcomes": "how often a hand ends 1, 3, 6, 9 or 12 points to each player",
    "score_leak": "what playing for points instead of the match costs at each score",
    "score_play": "how a hand is played for the match at a score, and what that changes",
    "score_play_hands": "each hand's first decision when played for the match at a score",
    "match_equity_mixed": "the chance of winning the match with score-aware play where solved",
    "bot_ranking": "how far each bot is from the solved game",
    "strategy_report": "how often the solved play calls truco, runs and raises, per vira",
    "exploit_summary": "what an exploit of an opponent's habits wins against his model and "
                       "gives away, per vira",
    "exploit_report": "how an exploit calls truco, runs and raises beside the equilibrium",
    "whatif": "what a house rule set changes: the mão's value per vira, the mão de onze "
              "decisions",
    "whatif_match": "what a house rule set changes in the chance of winning the match",
}
"""What each public table answers, in a player's words."""

UNIT_OF = {
    "cardplay": "win probability", "cardplay_summary": "win probability",
    "match_equity": "match-win probability", "mao_de_onze": "match-win probability",
    "full_ev": "points per hand", "full_strategy": "points per hand",
    "full_summary": "points per hand", "full_outcomes": "points per hand",
    "score_leak": "match-win probability", "bot_ranking": "points per hand",
    "strategy_report": "points per hand",
    "exploit_summary": "points per hand", "exploit_report": "points per hand",
    "score_play": "match-win probability", "score_play_hands": "match-win probability",
    "match_equity_mixed": "match-win probability",
    "whatif": "win probability", "whatif_match": "win probability",
}
"""The unit of each table's exploitability as its manifest records it (the what-if tables
record the card-play solves of the rule set computed last)."""


def data_status() -> pd.DataFrame:
    """One row per public table: ``table``, ``answers``, ``viras`` (solved, in rank order),
    ``exploitability`` (largest recorded, text in ``unit``), ``unit``, ``built`` (date) and
    ``status`` (``ok`` or why it must be rebuilt)."""
    rows = []
    for name in TABLE_NAMES:
        stored = {"full_outcomes": "full_summary"}.get(name, name)
        status = table_status(stored)
        try:
            manifest = read_manifest(stored)
            viras = "".join(v for v in RANKS if v in manifest.get("viras", {}))
            worst = max((float(v.get("exploitability", float("nan")))
                         for v in manifest["viras"].values()), default=float("nan"))
            built = str(manifest.get("built", ""))[:10]
        except (TableError, AttributeError, TypeError, ValueError):
            viras, worst, built = "", float("nan"), ""
        if status != "ok" and "lacks vira" in status:
            status = "ok"  # per-vira tables hold the viras solved so far
        rows.append(dict(table=name, answers=WHAT[name], viras=" ".join(viras),
                         exploitability=significant(worst), unit=UNIT_OF[name], built=built,
                         status=status if status == "ok"
                         else f"rebuild: {spec_of(stored).rebuild}"))
    policies = stored_viras()
    worst = max((float(policy_info(v)["exploitability"]) for v in policies), default=float("nan"))
    rows.append(dict(table="full_policy", answers="the solved betting strategy, every decision",
                     viras=" ".join(policies), exploitability=significant(worst),
                     unit="points per hand", built="", status="ok" if policies else
                     "rebuild: lab solve policy --vira V --checkpoints DIR"))
    try:
        aware = list(read_score_policy_manifest()["policies"].values())
    except TableError as exc:
        aware, broken = [], str(exc)
    else:
        broken = ""
    rows.append(dict(table="score_policy",
                     answers="the betting strategy re-solved for the score, where stored",
                     viras=" ".join(sorted({e["vira"] for e in aware}, key=RANKS.index)),
                     exploitability=significant(max((float(e["exploitability"]) for e in aware),
                                                    default=float("nan"))),
                     unit="match-win probability", built="",
                     status=broken or ("ok" if aware else f"rebuild: {score_rebuild()}")))
    return pd.DataFrame(rows)


def status_html() -> str:
    """:func:`data_status` as an HTML table that wraps on narrow screens."""
    frame = data_status()
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return ("<div style='overflow-x:auto;max-width:100%'><table class='lab-status' "
            "style='border-collapse:collapse;font-size:90%'>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def show() -> None:
    """Display the data status on the landing page."""
    from IPython.display import HTML, display
    display(HTML(status_html()))
