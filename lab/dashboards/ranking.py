"""The ``bot_ranking`` table as a dashboard section: how much each bot loses per hand.

The table (built by ``lab rank --write``) holds one row per (vira, bot): the bot's
expected points per hand against the solved strategy at 0-0 (``ev_vs_solver``, both
seats averaged), exact or simulated with a 95% interval, and, where exact, its
exploitability (what a perfect opponent wins per hand against it). The section shows one
row per bot, the mean over the viras ranked (each vira equally likely).
"""

from __future__ import annotations

import html

import ipywidgets as W
import numpy as np
import pandas as pd

from ..widgets import TABLE_STYLE, TableMissing, load, missing_html

NAME = "bot_ranking"
REBUILD = "lab rank --write"
"""The command that builds the table (used while lab.tables does not register it)."""


def ranking_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per bot, best first: ``bot``, ``ev`` (mean expected points per hand against
    the solver over the viras), ``lo``/``hi`` (its 95% interval when simulated: the
    per-vira half-widths added in quadrature over the number of viras; NaN when exact),
    ``exploitability`` (mean, NaN unless every vira has it), ``exact`` and ``viras``."""
    rows = []
    for bot, part in table.groupby("bot", sort=False):
        n = len(part)
        ev = float(part["ev_vs_solver"].mean())
        exact = bool(part["exact"].all()) if "exact" in part else False
        lo = hi = np.nan
        if not exact and {"ci95_lo", "ci95_hi"} <= set(part.columns):
            half = float(np.sqrt((((part["ci95_hi"] - part["ci95_lo"]) / 2) ** 2).sum())) / n
            lo, hi = ev - half, ev + half
        expl = part["exploitability"] if "exploitability" in part else pd.Series([np.nan])
        rows.append({"bot": bot, "ev": ev, "lo": lo, "hi": hi,
                     "exploitability": float(expl.mean()) if expl.notna().all() else np.nan,
                     "exact": exact, "viras": ", ".join(str(v) for v in part["vira"])})
    out = pd.DataFrame(rows, columns=["bot", "ev", "lo", "hi", "exploitability", "exact",
                                      "viras"])
    return out.sort_values("ev", ascending=False, kind="stable").reset_index(drop=True)


def ranking_html(summary: pd.DataFrame) -> str:
    """The summary as a table in words (points per hand, signed)."""
    def pts(x):
        return "—" if pd.isna(x) else f"{x:+.3f}"

    rows = []
    for k, r in summary.iterrows():
        interval = "exact" if r["exact"] else (f"{pts(r['lo'])} to {pts(r['hi'])}"
                                               if not pd.isna(r["lo"]) else "simulated")
        expl = "—" if pd.isna(r["exploitability"]) else f"{r['exploitability']:.3f}"
        rows.append(f"<tr><td>{k + 1}</td><td style='text-align:left'>"
                    f"{html.escape(str(r['bot']))}</td><td>{pts(r['ev'])}</td>"
                    f"<td>{interval}</td><td>{expl}</td><td>{html.escape(r['viras'])}</td></tr>")
    return (TABLE_STYLE + "<table class='lab-table lab-ranking'><tr><th>rank</th>"
            "<th style='text-align:left'>bot</th><th>points per hand against the solved "
            "strategy</th><th>95% interval</th><th>exploitability (points per hand)</th>"
            "<th>viras</th></tr>" + "".join(rows) + "</table>")


class BotRanking(W.VBox):
    """The bot ranking section (or the command that builds its table)."""

    TITLE = "<h3 style='margin:14px 0 4px'>How the bots rank</h3>"

    def __init__(self):
        super().__init__()
        try:
            table = load(NAME, solved_only=True)
        except TableMissing as exc:
            from ..tables import TABLES

            missing = TableMissing(NAME, exc.detail, None if NAME in TABLES else REBUILD)
            self.missing = missing
            self.children = [W.HTML(self.TITLE + missing_html(missing, "not ranked yet"))]
            return
        self.missing = None
        self.summary = ranking_summary(table)
        self.children = [W.HTML(
            self.TITLE + "<p><small>Each bot plays both seats against the solved strategy "
            "at 0–0: its expected points per hand (mean over the viras; negative: it "
            "loses), and how much a perfect opponent would win per hand against it where "
            "that is computed exactly.</small></p>" + ranking_html(self.summary))]
