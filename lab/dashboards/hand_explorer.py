"""The hand-explorer dashboard (``notebooks/hand_explorer.ipynb``).

Pick the vira, three cards, the seat and the score: how strong the hand is (the card-play
tables), what the solved tables say about it, and the hand played forward move by move
(:mod:`lab.dashboards.hand_play`; at a mão de onze or 11 x 11,
:mod:`lab.dashboards.eleven_play`).

One model per page: the page says once, near the top, which model the advice service
answers with at the score (:func:`lab.hand_summary.answering_model`: the points play, the
stored score-aware strategy, the mão de onze model or the 11 x 11 model), and every
strategy on it and the play forward follow that model. Another model's numbers show only
in a section titled a comparison.
"""

from __future__ import annotations

import html
import re
import time

import ipywidgets as W
import pandas as pd

from .. import charts
from ..charts import significant
from ..cards import DECK, Card, level
from ..classes import hand_label
from ..errors import InputError
from ..match import ELEVEN_ELEVEN_MODEL, ELEVEN_MODEL, MODEL_LABELS, SCORE_AWARE_MODEL
from ..rules import ELEVEN, ELEVEN_ELEVEN, hand_kind
from ..hand_summary import POINTS_PLAY, answering_model, compared_summary
from ..tables.score import points_play_leak
from ..widgets import (TABLE_STYLE, WRAP, Dashboard, TableMissing, _image, card_label,
                       hand_kind_text, labeled, leak_text, load, missing_html, seat_buttons,
                       show_png, table_missing_html)
from .hand_play import HandPlayer

MODEL_WORDS = {**MODEL_LABELS, "cardplay-1pt": "card play, the hand worth 1",
               "double-dummy": "both hands face up"}
"""The models behind the numbers, in words."""

EXPLOITABILITY_UNIT = {"cardplay-1pt": "win probability", "full-game-points": "points per hand"}
"""The unit of a model's exploitability (the match models': match-win probability)."""

DECISIONS = {
    "mao": (("first", "first move: truco, or which card to lead"),),
    "pe": (("after a card", "first move after the mão's card: truco, or which card"),
           ("vs truco", "answer to the mão's opening truco")),
}
"""The first decisions of each seat that the full game's tables hold: (measure prefix,
what it is)."""


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
        self.model_note = W.HTML()
        self.facts = W.HTML()
        self.image = _image()
        self.sections = W.HTML()
        self.player = player or HandPlayer()
        self.player.says_model = False   # the page says it once, above
        for control in (self.vira, *self.cards, self.seat, self.score_mao, self.score_pe):
            control.observe(lambda change: self.redraw(), names="value")
        self.children = [
            W.HBox([self.vira, *self.cards], layout=WRAP),
            W.HBox([labeled("seat", self.seat), self.score_mao, self.score_pe], layout=WRAP),
            self.message, self.model_note, W.HBox([self.facts, self.image], layout=WRAP),
            self.player,
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
        """Recompute everything for the picks, then show it at once (never the new hand's
        title over the old hand's tables)."""
        start = time.perf_counter()
        problem = pick_problem(self.vira.value, self.hand)
        if problem:
            self.message.value = (f'<div class="lab-pick-error" style="color:#a00;padding:6px 0">'
                                  f"<b>Not a possible hand.</b> {html.escape(problem)}</div>")
            self.facts.value = self.model_note.value = ""
            self.image.layout.visibility = "hidden"
            self.sections.value = ""
            self.player.layout.display = "none"
            return
        score = (self.score_mao.value, self.score_pe.value)
        vira, seat = self.vira.value, self.seat.value
        try:
            row = self.hand_row()
        except TableMissing as exc:
            self.message.value, self.facts.value = "", table_missing_html(exc)
            return
        rows = self.table[(self.table["vira"] == vira.rank_char) & (self.table["seat"] == seat)]
        facts = self.facts_html(row, rows, score)
        png = self.png_of((vira.rank_char, seat, row["hand"]),
                          lambda: charts.equity_curve(rows, row["hand"]))
        sections = sections_html(vira, self.hand, seat, score)
        note = model_note_html(vira, score)
        self.message.value = ""
        self.model_note.value = note
        self.facts.value = facts
        show_png(self.image, png)
        self.image.layout.visibility = "visible"
        self.sections.value = sections
        self.player.layout.display = ""
        self.player.show(vira, self.hand, ("mao", "pe").index(seat), score)
        self.redraw_seconds = time.perf_counter() - start

    def facts_html(self, row: pd.Series, rows: pd.DataFrame, score: tuple[int, int]) -> str:
        """The hand's name and its card-play facts (``rows``: the vira's and seat's classes)."""
        vira, seat = self.vira.value, self.seat.value
        pct = charts.weighted_rank(rows["equity"], rows["weight"])
        percentile = float(pct[rows["hand"] == row["hand"]].iloc[0])
        return (
            TABLE_STYLE +
            f"<h3 style='margin:6px 0'>{html.escape(row['hand'])}"
            f" <small>({' '.join(card_label(c) for c in self.hand)}, vira {card_label(vira)}, "
            f"{charts.SEATS[seat]})</small></h3>"
            "<p style='margin:2px 0'><small>How strong the cards are: the card play alone "
            "(no truco, every hand worth 1), the same at every score.</small></p>"
            "<table class='lab-table'>"
            f"<tr><th>chance to win the tricks, both playing perfectly</th>"
            f"<td>{100 * row['equity']:.1f}%</td><td>win probability</td></tr>"
            f"<tr><th>the same with both hands face up</th><td>{100 * row['double_dummy']:.1f}%"
            "</td><td>win probability</td></tr>"
            f"<tr><th>chance of being dealt this kind of hand</th>"
            f"<td>{100 * row['weight']:.3f}%</td><td>1 deal in {1 / row['weight']:,.0f}</td></tr>"
            f"<tr><th>stronger than</th><td>{100 * percentile:.0f}%</td>"
            "<td>of dealt hands</td></tr>"
            f"<tr><th>exploitability</th><td>{significant(row['exploitability'])}</td>"
            "<td>win probability, this vira</td></tr></table>"
            f"<p>At {score[0]}–{score[1]} (mão–pé): {html.escape(hand_kind_text(score))}</p>")


def model_note_html(vira: Card, score: tuple[int, int]) -> str:
    """Which model answers at this score (the advice service's, :func:`answering_model`),
    said once near the top of the page: every strategy on the page and the play forward
    follow it."""
    model = answering_model(vira, score)
    at = f"vira {html.escape(card_label(vira))} at {score[0]}–{score[1]}"
    if model == ELEVEN_MODEL:
        said = ("<b>the mão de onze model</b>: the holder sees his cards and plays the hand "
                "for 3 or runs, then both play the cards with no raise, solved exactly for "
                "the match. Values are match-win probability.")
    elif model == ELEVEN_ELEVEN_MODEL:
        said = ("<b>the 11 x 11 model</b>: the card play worth 3 with no raise, solved "
                "exactly; whoever wins the hand wins the match. Values are match-win "
                "probability.")
    elif model == SCORE_AWARE_MODEL:
        said = (f"<b>the score-aware strategy</b> of {at}: the full game with truco "
                "re-solved for the match at this score and stored. Values are match-win "
                "probability; the points play shows only where a section is titled "
                "a comparison.")
    else:
        leak = points_play_leak(vira, score)
        cost = ("what that leaks here is not measured" if leak is None else
                f"on this vira at this score that leaks {significant(leak)} match-win "
                "probability")
        said = ("<b>the points play</b>: the full game with truco solved for points, the "
                f"same at every normal score (no score-aware strategy is stored for {at}; "
                f"{cost}). Values are points per hand.")
    return (f"<p class='lab-model-note' style='margin:6px 0;padding:6px 10px;"
            f"background:#eef4fb;border-left:4px solid #4292c6'>At this score the lab "
            f"answers with {said} Every strategy on this page and the play forward follow "
            "it.</p>")


def sections_html(vira: Card, cards, seat: str, score: tuple[int, int]) -> str:
    """What the tables say about the picked hand at this score, in sections that follow
    the model answering there (:func:`model_note_html`): normal hands played for points or
    for the match, mão de onze, 11 x 11. Another model's numbers show only in a section
    titled a comparison (``div.lab-comparison``)."""
    try:
        measures = compared_summary(vira, cards, seat, score).set_index("measure")
    except InputError as exc:   # a table missing or stale: say how to rebuild it
        command = re.search(r"`([^`]+)`", str(exc))
        return missing_html(TableMissing("tables", str(exc),
                                         command.group(1) if command else None))
    kind, holder = hand_kind(score)
    me = charts.SEATS[seat]
    parts = [section("Match equity at this score",
                     rows_html(measures, [("match_equity",
                                           f"the {me}'s chance to win the match, before "
                                           "the cards are seen")]))]
    if kind == ELEVEN_ELEVEN:
        parts.append(section("11 x 11", rows_html(measures, [(
            "eleven_value", "this hand's chance to win the match (the hand decides it; "
                            "nobody may raise)")])))
    elif kind == ELEVEN:
        owner = charts.SEATS[("mao", "pe")[holder]]
        if "accept" in measures.index:
            body = rows_html(measures, [
                ("accept", "how often the holder plays this hand (else runs, giving 1)"),
                ("eleven_value", "match-win probability with this hand")])
        else:
            body = (f"<p>The {owner} holds 11 and decides to play the hand for 3 or run; "
                    f"the {me} only plays the cards. Nobody may raise.</p>")
        parts.append(section(f"Mão de onze: the {owner} holds 11, no truco", body))
    elif answering_model(vira, score) == SCORE_AWARE_MODEL:
        parts += score_aware_sections(measures, seat, score)
    else:
        parts += points_sections(measures, seat, score)
    return TABLE_STYLE + "".join(parts)


def points_sections(measures: pd.DataFrame, seat: str, score: tuple[int, int]) -> list[str]:
    """A normal hand where the points play answers: its value and first decisions; a
    score-aware re-solve of the first moves (``lab solve match-play``, not stored as a
    policy) only as a comparison."""
    parts = [section("Full game with truco (played for points)",
                     rows_html(measures, [("points_ev", "what this hand is worth on average")]))]
    for prefix, what in DECISIONS[seat]:
        parts.append(section(f"Solved strategy: {what}", strategy_html(measures, prefix)))
    aware = [m for m in measures.index if m.startswith("score-aware")
             or m == "score_aware_match_equity"]
    if aware:
        parts.append(comparison(
            "Played for the match at this score (a score-aware re-solve of the first moves, "
            "not stored as a strategy, so not the answer here)",
            rows_html(measures, [(m, SCORE_AWARE_WORDS.get(m, m)) for m in aware])
            + compare_html(measures)))
        said = ("The solved strategy above plays for points; at this score and vira the "
                "hand was also re-solved with match-win payoffs (`lab solve match-play`)")
    else:
        said = ("This advice plays each hand for points, the same at every normal score (no "
                "score-aware re-solve of this vira here, so it falls back to points play)")
    parts.append(f"<p><small>{said}; {html.escape(leak_text(score))}.</small></p>")
    return parts


def score_aware_sections(measures: pd.DataFrame, seat: str,
                         score: tuple[int, int]) -> list[str]:
    """A normal hand where the stored score-aware strategy answers: its first decisions
    (the advice service's); the points play beside it as a comparison."""
    parts = []
    for prefix, what in DECISIONS[seat]:
        if prefix == "after a card":
            parts.append("<p><small>The pé's move after the mão's first card depends on "
                         "that card: play the hand forward above to see it.</small></p>")
            continue
        parts.append(section(f"Solved strategy (played for the match): {what}",
                             strategy_html(measures, prefix)))
    body = rows_html(measures, [("points_ev", "what this hand is worth on average under "
                                              "points play")])
    for prefix, what in DECISIONS[seat]:
        body += (f"<p style='margin:6px 0 2px'>points play, {html.escape(what)}:</p>"
                 + strategy_html(measures, POINTS_PLAY + prefix))
    body += (f"<p><small>The points play is the lab's answer at scores without a "
             f"score-aware strategy; {html.escape(leak_text(score))}.</small></p>")
    parts.append(comparison("Points play (the full game solved for points, not the answer "
                            "at this score)", body))
    return parts


def comparison(title: str, body: str) -> str:
    """A section that shows another model than the one answering, titled so."""
    return (f"<div class='lab-comparison' style='margin-top:8px;padding:2px 10px;"
            f"border-left:3px solid #bbb;color:#444'>"
            + section(f"Comparison — {title}", body) + "</div>")


SCORE_AWARE_WORDS = {"score-aware first: truco": "how often the mão opens with a truco",
                     "score-aware vs truco: run": "how often the pé runs from the mão's truco",
                     "score_aware_match_equity": "the seat's chance to win the match, "
                                                 "both playing for the match"}


def compare_html(measures: pd.DataFrame) -> str:
    """The score-aware decision beside the points play's, in words."""
    pairs = [("score-aware first: truco", "first: truco", "opens with a truco"),
             ("score-aware vs truco: run", "vs truco: run", "runs from a truco")]
    said = []
    for aware, points, what in pairs:
        if aware in measures.index:
            before = measures["value"].get(points, 0.0)
            said.append(f"{what} {100 * measures.loc[aware, 'value']:.1f}% of the time "
                        f"instead of {100 * before:.1f}% under points play")
    return f"<p>With this hand it {'; '.join(said)}.</p>" if said else ""


def section(title: str, body: str) -> str:
    return f"<h4 style='margin:10px 0 2px'>{html.escape(title)}</h4>{body}"


def number_text(value: float, unit: str) -> str:
    if "probability" in unit:
        return f"{100 * value:.1f}%"
    return f"{value:+.3f}" if unit == "points per hand" else f"{value:.3f}"


def rows_html(measures: pd.DataFrame, wanted) -> str:
    """Rows of ``measures`` (indexed by measure) as a table: what, value, unit, how exact."""
    rows = []
    for measure, what in wanted:
        if measure not in measures.index:
            continue
        m = measures.loc[measure]
        unit = EXPLOITABILITY_UNIT.get(m["model"], "match-win probability")
        if m["model"] == "full-game-points" and pd.isna(m["exploitability"]):
            exact = "not a match equilibrium: its leak is below"
        elif pd.isna(m["exploitability"]):
            exact = "exact"
        else:
            exact = f"exploitability {significant(m['exploitability'])} {unit}"
        rows.append(f"<tr><th>{html.escape(what)}</th>"
                    f"<td>{number_text(m['value'], m['unit'])}</td>"
                    f"<td>{html.escape(m['unit'])}</td>"
                    f"<td><small>{html.escape(MODEL_WORDS.get(m['model'], m['model']))}; "
                    f"{html.escape(exact)}</small></td></tr>")
    return f"<table class='lab-table'>{''.join(rows)}</table>" if rows else \
        "<p><i>not in the tables for this hand</i></p>"


def strategy_html(measures: pd.DataFrame, prefix: str) -> str:
    """The probabilities of the actions of one first decision, strongest first."""
    rows = measures[measures.index.str.startswith(prefix + ": ")]
    if rows.empty:
        return "<p><i>not in the tables for this hand</i></p>"
    rows = rows.sort_values("value", ascending=False)
    cells = "".join(f"<tr><th>{html.escape(name.split(': ', 1)[1])}</th>"
                    f"<td>{100 * value:.1f}%</td></tr>"
                    for name, value in zip(rows.index, rows["value"]))
    worst = significant(float(rows["exploitability"].max()))
    unit = ("match-win probability" if (rows["model"] == SCORE_AWARE_MODEL).any()
            else "points per hand")
    return (f"<table class='lab-table'>{cells}</table><p><small>probability of each action; "
            f"exploitability {worst} {unit}</small></p>")


def hand_explorer() -> HandExplorer:
    """The hand-explorer dashboard."""
    return HandExplorer()
