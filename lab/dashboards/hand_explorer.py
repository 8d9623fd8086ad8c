"""The hand-explorer dashboard (``notebooks/hand_explorer.ipynb``).

Pick the vira, three cards, the seat and the score: how strong the hand is (the card-play
tables), what the full game's tables say about it, and the hand played forward against
the stored full-game policy, move by move (:mod:`lab.dashboards.hand_play`).
"""

from __future__ import annotations

import html
import time

import ipywidgets as W
import pandas as pd

from .. import charts
from ..cards import DECK, Card, level
from ..classes import hand_label
from ..rules import ELEVEN, hand_kind
from ..widgets import (TABLE_STYLE, WRAP, Dashboard, TableMissing, _image, card_label,
                       frame_html, hand_kind_text, labeled, load, match_equity_html,
                       missing_html, seat_buttons, table_missing_html)
from .hand_play import HandPlayer

SECTIONS = (
    ("Points EV (points per hand, full game with the truco ladder)", "full_ev", ()),
    ("Strategy at the first decision", "full_strategy", ("first", "first_after_card")),
    ("Answer to a truco", "full_strategy", ("vs_truco",)),
    ("Outcome distribution of this vira's hands (probability each seat scores 1, 3, 6, 9, 12)",
     "full_summary", ()),
)
"""Hand-explorer sections from the full game's tables: (title, table, situations)."""


SITUATIONS = {
    "first": "the mão's first move (truco or a card)",
    "vs_truco": "the pé's answer to the mão's opening truco",
    "first_after_card": "the pé's first move after the mão's card",
}
"""Readable names of the full_strategy table's situations."""


def pick_problem(vira: Card, cards) -> str | None:
    """Why three picked cards cannot be a hand with this vira, or None when they can."""
    for card in cards:
        if card == vira:
            return (f"{card_label(card)} is the vira: it is turned face up and out of play, "
                    f"so it cannot be in a hand. Pick another card.")
    for i, card in enumerate(cards):
        if card in cards[:i]:
            return (f"{card_label(card)} is picked twice: each card exists once in the deck. "
                    f"Pick another card.")
    return None


class HandExplorer(Dashboard):
    """Pick the vira, three cards, the seat and the score; see what the tables know about
    that hand, and play it forward against the stored policy (``player``)."""

    def __init__(self, player: HandPlayer | None = None):
        super().__init__()
        try:
            self.table = load("cardplay")
        except TableMissing as exc:
            self.children = [W.HTML(table_missing_html(exc))]
            self.missing = exc
            return
        self.missing = None
        options = [(card_label(c), c) for c in sorted(DECK, key=lambda c: (c.rank, -c.suit))]
        by_name = {card_label(c): c for c in DECK}
        narrow = W.Layout(width="150px")
        self.vira = W.Dropdown(options=options, value=by_name["4♣"], description="vira",
                               layout=narrow)
        self.cards = [W.Dropdown(options=options, value=by_name[name], description=f"card {i + 1}",
                                 layout=narrow) for i, name in enumerate(("5♣", "3♥", "K♦"))]
        self.seat = seat_buttons()
        points = list(range(12))
        self.score_mao = W.Dropdown(options=points, value=0, description="mão's points",
                                    layout=W.Layout(width="170px"),
                                    style={"description_width": "initial"})
        self.score_pe = W.Dropdown(options=points, value=0, description="pé's points",
                                   layout=W.Layout(width="170px"),
                                   style={"description_width": "initial"})
        self.message = W.HTML()
        self.facts = W.HTML()
        self.image = _image()
        self.sections = W.HTML()
        self.player = player or HandPlayer()
        for control in (self.vira, *self.cards, self.seat, self.score_mao, self.score_pe):
            control.observe(lambda change: self.redraw(), names="value")
        self.children = [
            W.HBox([self.vira, *self.cards]),
            W.HBox([labeled("seat", self.seat), self.score_mao, self.score_pe], layout=WRAP),
            self.message, W.HBox([self.facts, self.image], layout=WRAP), self.player,
            self.sections,
        ]
        self.redraw()

    @property
    def hand(self) -> tuple[Card, Card, Card]:
        return tuple(c.value for c in self.cards)

    def hand_row(self) -> pd.Series:
        """The card-play row of the picked hand (for the picked vira and seat)."""
        vira = self.vira.value
        label = hand_label([level(c, vira) for c in self.hand], vira.rank)
        rows = self.table[(self.table["vira"] == vira.rank_char)
                          & (self.table["seat"] == self.seat.value)
                          & (self.table["hand"] == label)]
        if rows.empty:
            raise TableMissing("cardplay", f"no row for vira {vira.rank_char}, "
                               f"{self.seat.value}, {label}: the table is incomplete")
        return rows.iloc[0]

    def redraw(self) -> None:
        start = time.perf_counter()
        problem = pick_problem(self.vira.value, self.hand)
        if problem:
            self.message.value = (f'<div class="lab-pick-error" style="color:#a00;padding:6px 0">'
                                  f"<b>Not a possible hand.</b> {html.escape(problem)}</div>")
            self.facts.value = ""
            self.image.layout.visibility = "hidden"
            self.sections.value = ""
            self.player.layout.display = "none"
            return
        self.message.value = ""
        self.image.layout.visibility = "visible"
        self.player.layout.display = ""
        score = (self.score_mao.value, self.score_pe.value)
        seat = ("mao", "pe").index(self.seat.value)
        self.player.show(self.vira.value, self.hand, seat, score)
        try:
            row = self.hand_row()
        except TableMissing as exc:
            self.facts.value = table_missing_html(exc)
            return
        vira, seat = self.vira.value, self.seat.value
        rows = self.table[(self.table["vira"] == vira.rank_char) & (self.table["seat"] == seat)]
        pct = charts.weighted_rank(rows["equity"], rows["weight"])
        percentile = float(pct[rows["hand"] == row["hand"]].iloc[0])
        seat_name = charts.SEATS[seat]
        self.facts.value = (
            TABLE_STYLE +
            f"<h3 style='margin:6px 0'>{html.escape(row['hand'])}"
            f" <small>({' '.join(card_label(c) for c in self.hand)}, vira {card_label(vira)}, "
            f"{seat_name})</small></h3>"
            "<table class='lab-table'>"
            f"<tr><th>equity at the card-play equilibrium</th><td>{100 * row['equity']:.1f}%</td>"
            "<td>win probability</td></tr>"
            f"<tr><th>double-dummy equity</th><td>{100 * row['double_dummy']:.1f}%</td>"
            "<td>win probability, both hands face up</td></tr>"
            f"<tr><th>chance of being dealt this class</th><td>{100 * row['weight']:.3f}%</td>"
            f"<td>1 deal in {1 / row['weight']:,.0f}</td></tr>"
            f"<tr><th>stronger than</th><td>{100 * percentile:.0f}%</td>"
            "<td>of dealt hands (by equilibrium equity)</td></tr>"
            f"<tr><th>exploitability</th><td>{row['exploitability']:.2g}</td>"
            "<td>win probability, this vira</td></tr></table>"
            f"<p>At {score[0]}–{score[1]} (mão–pé): {html.escape(hand_kind_text(score))}</p>")
        key = (vira.rank_char, seat, row["hand"])
        self.draw(self.image, key, lambda: charts.equity_curve(rows, row["hand"]))
        self.sections.value = self.sections_html(vira.rank_char, seat, row["hand"], score)
        self.redraw_seconds = time.perf_counter() - start

    def sections_html(self, vira: str, seat: str, hand: str, score: tuple[int, int]) -> str:
        parts = []
        for title, name, situations in SECTIONS:
            parts.append(f"<h4 style='margin:10px 0 2px'>{title}</h4>"
                         + section_rows(name, situations=situations, vira=vira, seat=seat,
                                        hand=hand))
        parts.append("<h4 style='margin:10px 0 2px'>Match equity at this score</h4>"
                     + match_equity_html(score, seat))
        if hand_kind(score)[0] == ELEVEN:
            parts.append("<h4 style='margin:10px 0 2px'>Mão de onze</h4>"
                         + section_rows("mao_de_onze", vira=vira, seat=seat, hand=hand,
                                        score=score))
        return TABLE_STYLE + "".join(parts)


def section_rows(name: str, score: tuple[int, int] | None = None, situations=(),
                 **match) -> str:
    """The rows of table ``name`` matching ``match`` (columns present in the table) and one
    of ``situations`` (when given), as HTML; the not-solved message while the table, or
    this vira's part of a full-game table, is missing."""
    try:
        table = load(name, solved_only=name.startswith("full_"))
    except TableMissing as exc:
        return missing_html(exc)
    vira = match.get("vira")
    if vira is not None and "vira" in table and vira not in set(table["vira"]):
        return missing_html(TableMissing(name, f"solved so far for vira "
                                               f"{', '.join(dict.fromkeys(table['vira']))} only; "
                                               f"vira {vira} is not solved yet"))
    rows = table
    if situations and "situation" in rows:
        rows = rows[rows["situation"].isin(situations)]
        seat = match.get("seat")
        if seat is not None and seat not in set(rows["seat"]):
            deciders = " and ".join(charts.SEATS[s] for s in dict.fromkeys(rows["seat"]))
            return (f"<p><i>in the solved table only the {deciders} decides here "
                    f"({html.escape(', '.join(SITUATIONS.get(s, s) for s in situations))})"
                    "</i></p>")
    for column, value in match.items():
        if column in rows:
            rows = rows[rows[column] == value]
    if score is not None:
        if {"score_mao", "score_pe"} <= set(rows.columns):
            rows = rows[(rows["score_mao"] == score[0]) & (rows["score_pe"] == score[1])]
        elif "score" in rows:
            rows = rows[rows["score"].astype(str).isin([f"{score[0]},{score[1]}",
                                                        str(min(score))])]
    if rows.empty:
        return "<p><i>no row for this hand</i></p>"
    return frame_html(rows.head(20))


def hand_explorer() -> HandExplorer:
    """The hand-explorer dashboard."""
    return HandExplorer()
