"""The match-equity dashboard (``notebooks/match_equity.ipynb``): the 12 x 12 match-equity
heatmap or the map of the points play's leak, what one hand can do from a chosen score,
and the mão de onze thresholds per vira."""

from __future__ import annotations

import html
import time

import ipywidgets as W
import pandas as pd

from .. import charts
from ..charts import significant
from ..match import MODEL_LABELS
from ..rules import hand_kind, hand_results
from ..widgets import (TABLE_STYLE, WRAP, Dashboard, TableMissing, _image, frame_html,
                       hand_kind_text, leak_text, load, missing_html)


def after_hand(score: tuple[int, int], winner: str, points: int) -> tuple[int, int] | None:
    """(mão, pé) score of the *next* hand after the current mão or pé wins ``points``;
    None when the match is over. The mão passes to the other player each hand."""
    m, p = score
    if winner == "mao":
        m += points
    else:
        p += points
    if max(m, p) >= 12:
        return None
    return (p, m)  # the current pé is the next hand's mão


class MatchEquity(Dashboard):
    """The 12 x 12 match-equity heatmap (or the 11 x 11 map of the points play's leak), a
    score picker with details, and the mão de onze thresholds per vira."""

    VIEWS = {"match equity": "the next hand's mão's match-win probability at each score",
             "points play's leak": "how much the full game's points play leaks at each "
                                   "score, in match-win probability (table score_leak)",
             "score-aware play": "the match equity with hands re-solved for the match where "
                                 "they are, against points play (table match_equity_mixed)"}

    def __init__(self):
        super().__init__()
        try:
            self.table = load("match_equity")
        except TableMissing as exc:
            self.missing = exc
            self.children = [W.HTML(missing_html(exc)), W.HTML(eleven_missing_html())]
            return
        self.missing = None
        models = alternative_models(self.table)
        self.model = W.Dropdown(options=models, value=models[0], description="model",
                                layout=W.Layout(display="" if models[0] else "none"))
        self.score_mao = W.Dropdown(options=list(range(12)), value=0, description="mão's points",
                                    style={"description_width": "initial"},
                                    layout=W.Layout(width="170px"))
        self.score_pe = W.Dropdown(options=list(range(12)), value=0, description="pé's points",
                                   style={"description_width": "initial"},
                                   layout=W.Layout(width="170px"))
        self.view = W.ToggleButtons(options=list(self.VIEWS), value="match equity",
                                    tooltips=list(self.VIEWS.values()),
                                    style={"button_width": "150px"})
        self.image = _image()
        self.details = W.HTML()
        for control in (self.model, self.score_mao, self.score_pe, self.view):
            control.observe(lambda change: self.redraw(), names="value")
        self.eleven = ElevenThresholds()
        self.children = [W.HBox([self.model, self.score_mao, self.score_pe]), self.view,
                         W.HBox([self.image, self.details], layout=WRAP), self.eleven]
        self.redraw()

    def row(self, score: tuple[int, int]) -> pd.Series | None:
        """The table's row at (mão, pé) ``score`` for the chosen model."""
        rows = self.table[(self.table["score_mao"] == score[0])
                          & (self.table["score_pe"] == score[1])]
        if self.model.value is not None:
            rows = rows[rows["model"] == self.model.value]
        return rows.iloc[0] if len(rows) else None

    def p_mao(self, score: tuple[int, int]) -> float:
        """The next hand's mão's match-win probability at ``score`` (NaN if not in the table)."""
        row = self.row(score)
        return float("nan") if row is None else float(row["p_mao"])

    def redraw(self) -> None:
        start = time.perf_counter()
        score = (self.score_mao.value, self.score_pe.value)
        self.details.value = self.details_html(score)
        if self.view.value == "match equity":
            self.draw(self.image, (self.model.value, score), lambda: charts.match_equity_heatmap(
                self.table, self.model.value, score))
        elif self.view.value == "score-aware play":
            self.draw_score_aware(score)
        else:
            try:
                leaks = load("score_leak", solved_only=True)
            except TableMissing as exc:
                self.details.value = missing_html(exc) + self.details.value
                leaks = pd.DataFrame(columns=["vira", "score_mao", "score_pe", "leak"])
            chosen = score if max(score) < 11 else None   # the ladder is played below 11
            # keyed by the rows too: a sweep still running adds scores between redraws
            key = ("leak", chosen, len(leaks), float(leaks["leak"].sum()))
            self.draw(self.image, key, lambda: charts.leak_heatmap(leaks, chosen))
        self.redraw_seconds = time.perf_counter() - start

    def draw_score_aware(self, score: tuple[int, int]) -> None:
        """The change of match equity from points play to score-aware play (heatmap), and
        both side by side at ``score``."""
        try:
            mixed = load("match_equity_mixed")
        except TableMissing as exc:
            self.image.layout.visibility = "hidden"
            self.details.value = missing_html(exc) + self.details.value
            return
        self.image.layout.visibility = "visible"
        aware = mixed[mixed["score_aware_viras"] > 0]
        title = ("Match equity: score-aware play minus points play (points of %)\n"
                 + (f"{int(aware['score_aware_viras'].sum())} (vira, score) hands re-solved "
                    f"for the match at {len(aware)} scores; the rest played for points"
                    if len(aware) else "no hand re-solved yet: lab solve match-play"))
        key = ("score-aware", score, float(mixed["difference"].abs().sum()))
        self.draw(self.image, key, lambda: charts.difference_heatmap(mixed, score, title))
        self.details.value = score_aware_html(mixed, score) + self.details.value

    def details_html(self, score: tuple[int, int]) -> str:
        p = self.p_mao(score)
        rows, over = [], set()
        for winner, points, how in hand_results(score):
            side = ("mao", "pe")[winner]
            nxt = after_hand(score, side, points)
            if nxt is None and side in over:
                continue   # more points end the match all the same
            if nxt is None:
                over.add(side)
            mine = (1.0 if side == "mao" else 0.0) if nxt is None else 1.0 - self.p_mao(nxt)
            rows.append((charts.SEATS[side], points, how,    # the mão is pé next hand
                         "match over" if nxt is None else f"{nxt[1]}–{nxt[0]}", mine))
        frame = pd.DataFrame(rows, columns=["points to", "points", "how",
                                            "score after (this mão–pé)",
                                            "this mão's match-win probability"])
        row = self.row(score)
        source = ""
        if row is not None and "model" in row:
            source += html.escape(MODEL_LABELS.get(row["model"], str(row["model"])))
        if row is not None and "exploitability" in row:
            if pd.isna(row["exploitability"]):
                source += ", " + leak_text(score)
            else:
                worst = significant(float(row["exploitability"]))
                source += f", exploitability {worst} match-win probability"
        return (TABLE_STYLE + f"<h3>At {score[0]}–{score[1]} (mão–pé)</h3>"
                f"<p>the mão wins the match with probability <b>{p:.3f}</b>, the pé with "
                f"<b>{1 - p:.3f}</b> <small>({source.strip(', ')})</small>.<br>"
                f"{html.escape(hand_kind_text(score))}</p>"
                "<p>After this hand (the mão passes to the other player):</p>"
                + frame_html(frame, "{:.3f}"))


def score_aware_html(mixed: pd.DataFrame, score: tuple[int, int]) -> str:
    """Points play and score-aware play side by side at ``score`` (match_equity_mixed)."""
    row = mixed[(mixed["score_mao"] == score[0]) & (mixed["score_pe"] == score[1])].iloc[0]
    n = int(row["score_aware_viras"])
    how = (f"re-solved for the match on {n} of 10 viras" if n else
           "played for points on every vira here" if max(score) < 11 else
           "solved for the match under both (the end games)")
    expl = "not measured" if pd.isna(row["exploitability"]) else \
        f"exploitability ≤ {significant(float(row['exploitability']))}"
    return (TABLE_STYLE + f"<h3>Score-aware play at {score[0]}–{score[1]} (mão–pé)</h3>"
            f"<p>the mão's match-win probability: <b>{row['p_mao_points']:.4f}</b> under points "
            f"play, <b>{row['p_mao']:.4f}</b> with score-aware play ({row['difference']:+.4f}); "
            f"{html.escape(how)}, {expl} match-win probability "
            f"<small>({html.escape(MODEL_LABELS.get(row['model'], str(row['model'])))})"
            "</small></p>")


def alternative_models(table: pd.DataFrame) -> list:
    """The models of a match-equity table that each cover every score (a choice to
    offer), or ``[None]`` when the table holds one row per score."""
    if "model" not in table or not table.duplicated(["score_mao", "score_pe"]).any():
        return [None]
    per_model = table.groupby("model")[["score_mao", "score_pe"]].apply(
        lambda rows: len(rows.drop_duplicates()))
    return [m for m in dict.fromkeys(table["model"]) if per_model[m] == 144] or [None]


def eleven_missing_html() -> str:
    try:
        load("mao_de_onze")
    except TableMissing as exc:
        return "<h3>Mão de onze thresholds</h3>" + missing_html(exc)
    return ""


class ElevenThresholds(Dashboard):
    """Per vira, which hands the 11-holder accepts at a mão de onze. The score decides who
    holds 11, so one picker chooses both."""

    def __init__(self):
        super().__init__()
        try:
            self.table = load("mao_de_onze")
            self.cardplay = load("cardplay")
        except TableMissing as exc:
            self.children = [W.HTML("<h3>Mão de onze thresholds</h3>" + missing_html(exc))]
            self.missing = exc
            return
        self.missing = None
        scores = sorted({tuple(int(p) for p in s.split(",")) for s in self.table["score"]},
                        key=lambda sc: (sc[0] != 11, sc))
        self.score = W.Dropdown(options=[(eleven_score_label(sc), sc) for sc in scores],
                                value=scores[0], description="score",
                                layout=W.Layout(width="330px"))
        self.image = _image()
        self.details = W.HTML()
        self.score.observe(lambda change: self.redraw(), names="value")
        self.children = [W.HTML("<h3>Mão de onze thresholds</h3>"), self.score, self.image,
                         self.details]
        self.redraw()

    def redraw(self) -> None:
        start = time.perf_counter()
        score = self.score.value
        holder = "mao" if hand_kind(score)[1] == 0 else "pe"
        rows = self.table[(self.table["score"] == f"{score[0]},{score[1]}")
                          & (self.table["seat"] == holder)]
        if rows.empty:   # never leave another score's chart up
            self.image.layout.visibility = "hidden"
            self.details.value = "<p><i>no rows for this score in the table</i></p>"
            return
        thresholds = charts.eleven_thresholds(rows, self.cardplay)
        title = f"Mão de onze at {score[0]}–{score[1]}: the {charts.SEATS[holder]} holds 11"
        if "exploitability" in rows:
            title += (f"\nexploitability ≤ {significant(rows['exploitability'].max())} "
                      "match-win probability")
        self.draw(self.image, score, lambda: charts.eleven_chart(thresholds, title))
        self.image.layout.visibility = "visible"
        shown = pd.DataFrame({
            "vira": thresholds["vira"],
            "share of dealt hands played": thresholds["accept_share"].map("{:.1%}".format),
            "weakest hand played": thresholds["weakest_accepted"].fillna("none"),
            "its chance to win the tricks": thresholds["its_cardplay_win_probability"].map(
                lambda x: "–" if pd.isna(x) else f"{x:.1%}")})
        self.details.value = TABLE_STYLE + frame_html(shown)
        self.redraw_seconds = time.perf_counter() - start


def eleven_score_label(score: tuple[int, int]) -> str:
    """``11–3 (mão–pé): the mão holds 11``."""
    holder = charts.SEATS["mao" if score[0] == 11 else "pe"]
    return f"{score[0]}–{score[1]} (mão–pé): the {holder} holds 11"


def match_equity() -> MatchEquity:
    """The match-equity dashboard."""
    return MatchEquity()
