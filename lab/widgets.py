"""ipywidgets composites: the dashboards behind the notebooks in ``notebooks/``, and the
pieces they share.

Each composite is a ``VBox`` built from the solved tables (:func:`lab.tables.load_table`)
and the figures of :mod:`lab.charts`. Charts are PNG images in an ``Image`` widget whose
value is replaced on every change, so a dashboard redraws in place. A table that is not
built yet is never an error: the dashboard (or the section that needs it) says which
command builds it. The equity-by-vira and match-equity dashboards live here; the hand
and strategy explorers, built on the stored full-game policy, in :mod:`lab.dashboards`.
"""

from __future__ import annotations

import html
import time

import ipywidgets as W
import numpy as np
import pandas as pd

from . import charts
from .charts import significant
from .cards import RANKS, Card
from .classes import hand_classes
from .match import MODEL_LABELS
from .rules import ELEVEN, ELEVEN_ELEVEN, hand_kind, hand_results


SUIT_SYMBOL = {"c": "♣", "h": "♥", "s": "♠", "d": "♦"}

SEAT_OPTIONS = [("mão", "mao"), ("pé", "pe")]

LIVE_ONLY = "lab-live-only"
"""CSS class of the parts of a dashboard that need a running kernel (left out of
``lab publish``'s static snapshots)."""

WRAP = W.Layout(flex_flow="row wrap", align_items="flex-start")
"""An HBox layout that wraps on narrow screens."""


def seat_buttons() -> W.ToggleButtons:
    """Mão / pé toggle buttons (values ``mao`` / ``pe``); see :func:`labeled`."""
    return W.ToggleButtons(options=SEAT_OPTIONS, value="mao", style={"button_width": "64px"})


def labeled(text: str, widget: W.Widget) -> W.HBox:
    """``widget`` with a label on its left (ToggleButtons put their own above)."""
    return W.HBox([W.Label(text, layout=W.Layout(margin="0 6px 0 12px")), widget],
                  layout=W.Layout(align_items="center"))


class TableMissing(Exception):
    """A table the dashboard needs is not built (or is stale)."""

    def __init__(self, name: str, detail: str, command: str | None = None):
        super().__init__(f"{name}: {detail}")
        self.name, self.detail, self._command = name, detail, command

    @property
    def command(self) -> str:
        """The command that builds the table (from lab.tables' registry, unless given)."""
        from .tables import TABLES

        if self._command is None and self.name in TABLES:
            return TABLES[self.name].rebuild
        return self._command or f"lab solve {self.name}"


def load(name: str, solved_only: bool = False) -> pd.DataFrame:
    """``lab.tables.load_table(name)``, or TableMissing saying why it cannot be had.

    ``solved_only`` reads the viras the table holds so far (the full game is solved one
    vira at a time); otherwise the table must cover all ten."""
    from .tables import load_table, solved_viras

    try:
        return load_table(name, viras=solved_viras(name) if solved_only else None)
    except (ValueError, KeyError, OSError) as exc:  # the tables' own error is a ValueError
        raise TableMissing(name, str(exc) or type(exc).__name__) from None


def missing_html(exc: TableMissing, headline: str = "not solved yet") -> str:
    """The message a dashboard shows in place of a missing, stale or corrupt table."""
    if "stale" in exc.detail:
        headline = "table to rebuild"
    return (f'<div class="lab-missing" style="padding:8px 12px;border-left:4px solid #d98c00;'
            f'background:#fff8e6;margin:4px 0">'
            f"<b>{html.escape(headline)}</b>: run <code>{html.escape(exc.command)}</code>"
            f'<br><small style="color:#666">{html.escape(exc.detail)}</small></div>')


def table_missing_html(exc: TableMissing) -> str:
    """The message for a dashboard's main table: ``table missing: run <command>``."""
    return missing_html(exc, headline="table missing")


def frame_html(frame: pd.DataFrame, floatfmt: str = "{:.4f}") -> str:
    """A small DataFrame as a plain HTML table."""
    return frame.to_html(index=False, border=0, float_format=floatfmt.format,
                         classes="lab-table", na_rep="—")


TABLE_STYLE = ("<style>.lab-table{border-collapse:collapse;font-size:12px}"
               ".lab-table th,.lab-table td{padding:2px 8px;text-align:right;"
               "border-bottom:1px solid #ddd}</style>")


def card_label(card: Card) -> str:
    """``4♣``: the card with its suit symbol."""
    return card.rank_char + SUIT_SYMBOL[card.suit_char]


def _image() -> W.Image:
    return W.Image(format="png", layout=W.Layout(max_width="100%", height="auto",
                                                 object_fit="contain"))


def show_png(image: W.Image, data: bytes) -> None:
    """Put PNG ``data`` in ``image`` at its own pixel width (narrow screens shrink it)."""
    with image.hold_sync():  # one message, so the browser draws the image once
        image.width = str(int.from_bytes(data[16:20], "big"))  # the PNG header's width
        image.value = data


def replace_children(box: W.Box, children) -> None:
    """Put ``children`` in ``box`` in one message (the page never shows half of a
    redraw), then close the widgets they replace."""
    old = box.children
    box.children = tuple(children)
    for widget in old:
        if widget not in box.children:
            _close(widget)


def _close(widget: W.Widget) -> None:
    for child in getattr(widget, "children", ()):
        _close(child)
    widget.close()


class Dashboard(W.VBox):
    """A VBox that keeps the PNG of each view it has drawn, and times its redraws."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._pngs: dict = {}
        self.redraw_seconds = float("nan")
        """Wall time of the last redraw, seconds (rendering included)."""

    def png_of(self, key, make_figure) -> bytes:
        """The PNG of view ``key``, rendered from ``make_figure()`` on first use only."""
        if key not in self._pngs:
            self._pngs[key] = charts.png(make_figure())
        return self._pngs[key]

    def draw(self, image: W.Image, key, make_figure) -> None:
        """Show the figure of view ``key`` in ``image``."""
        show_png(image, self.png_of(key, make_figure))


# --------------------------------------------------------------------- equity by vira


class EquityByVira(Dashboard):
    """Heatmap of hand equity by hand group and vira, for one seat; equilibrium beside
    double dummy; controls for the seat, the grouping and what to show."""

    def __init__(self):
        super().__init__()
        try:
            self.table = load("cardplay")
            self.summary = load("cardplay_summary")
        except TableMissing as exc:
            self.children = [W.HTML(table_missing_html(exc))]
            self.missing = exc
            return
        self.missing = None
        self.seat = seat_buttons()
        self.grouping = W.Dropdown(options=list(charts.GROUPINGS), value="best card",
                                   description="group by")
        self.measure = W.Dropdown(options=list(charts.MEASURES), value="equilibrium | double dummy",
                                  description="show", layout=W.Layout(width="340px"))
        self.image = _image()
        for control in (self.seat, self.grouping, self.measure):
            control.observe(lambda change: self.redraw(), names="value")
        self.note = W.HTML()
        self.facts = W.HTML()
        controls = W.HBox([labeled("seat", self.seat), self.grouping, self.measure], layout=WRAP)
        self.resolver = Resolver(self)
        self.children = [controls, self.image, self.note, self.facts, self.resolver]
        self.show_summary()
        self.redraw()

    def show_summary(self) -> None:
        order = {v: i for i, v in enumerate(RANKS)}
        summary = self.summary.sort_values("vira", key=lambda s: s.map(order))
        shown = pd.DataFrame({
            "vira": summary["vira"],
            "the mão's chance to win the tricks": summary["value_mao"].map("{:.1%}".format),
            "with both hands face up": summary["double_dummy_mao"].map("{:.1%}".format),
            "exploitability (win probability)": summary["exploitability"].map(significant),
            "iterations": summary["iterations"],
            "solve time": summary["seconds"].map("{:.0f} s".format)})
        self.facts.value = (TABLE_STYLE + "<b>The card-play solve of each vira</b> (both "
                            "players playing perfectly)" + frame_html(shown))

    def replace_vira(self, vira: str, equity: np.ndarray, exploitability: float,
                     summary: dict) -> None:
        """Show a fresh solve of ``vira``: ``equity[seat, class]`` (win probability, seat
        0 = mão, classes in :func:`lab.classes.hand_classes` order) replaces its rows,
        ``summary`` (value_mao, exploitability, iterations, seconds) its summary row."""
        labels = hand_classes(vira).labels
        table = self.table.copy()
        for seat_index, seat in enumerate(("mao", "pe")):
            rows = (table["vira"] == vira) & (table["seat"] == seat)
            fresh = pd.Series(equity[seat_index], index=labels)
            table.loc[rows, "equity"] = table.loc[rows, "hand"].map(fresh).to_numpy()
        table.loc[table["vira"] == vira, "exploitability"] = exploitability
        self.table = table
        summary_rows = self.summary.copy()
        for column, value in summary.items():
            if column in summary_rows:
                summary_rows.loc[summary_rows["vira"] == vira, column] = value
        self.summary = summary_rows
        self._pngs.clear()
        self.show_summary()
        self.redraw()

    def redraw(self) -> None:
        start = time.perf_counter()
        key = (self.seat.value, self.grouping.value, self.measure.value)
        self.draw(self.image, key, lambda: charts.equity_heatmap(
            self.table, self.summary, *key))
        self.note.value = f"<small>{html.escape(equity_note(*key[1:]))}</small>"
        self.redraw_seconds = time.perf_counter() - start


def equity_note(grouping: str, measure: str) -> str:
    """What the cells of the equity heatmap are, for this grouping and measure."""
    if measure == "double dummy − equilibrium":
        cells = ("Cells: how much more often the hand wins when both hands are face up than "
                 "at the card-play equilibrium, in points of % (win probability × 100)")
    else:
        cells = "Cells: win probability (%) of a hand dealt at random in the group"
    where = ("over every vira" if grouping == "best two cards" else "for that vira")
    gray = ("Gray: no hand has that pair." if grouping == "best two cards" else
            "Gray: the group cannot be held with that vira (its card is a manilha there).")
    return (f"{cells}, weighted by how often each hand class is dealt {where}. {gray} "
            "Double dummy: both hands face up.")


TARGETS = {"1e-2 (seconds)": 1e-2, "1e-3": 1e-3, "1e-4 (the tables')": 1e-4}
"""Exploitability targets offered for a re-solve (win probability)."""


class Resolver(W.VBox):
    """Re-solve one vira's card-play game on demand, with a progress bar; the heatmap
    then shows the fresh solve for that vira."""

    def __init__(self, dashboard: EquityByVira, max_iterations: int = 20_000):
        super().__init__()
        self.add_class(LIVE_ONLY)
        self.dashboard, self.max_iterations = dashboard, max_iterations
        self.vira = W.Dropdown(options=list(RANKS), value="4", description="vira",
                               layout=W.Layout(width="140px"))
        self.target = W.Dropdown(options=list(TARGETS.items()), value=1e-3,
                                 description="exploitability ≤",
                                 style={"description_width": "initial"},
                                 layout=W.Layout(width="260px"))
        self.button = W.Button(description="re-solve", icon="refresh",
                               tooltip="solve this vira's card-play game again, here")
        self.progress = W.FloatProgress(value=0.0, min=0.0, max=1.0, description="",
                                        layout=W.Layout(width="300px"))
        self.status = W.HTML()
        self.button.on_click(lambda _: self.run())
        self.children = [
            W.HTML("<b>Re-solve one vira</b> <small>(card-play CFR on this machine; the "
                   "chart then shows the fresh solve for that vira)</small>"),
            W.HBox([self.vira, self.target, self.button, self.progress], layout=WRAP),
            self.status,
        ]

    def run(self) -> None:
        """Solve the chosen vira to the chosen target, updating the bar as it goes."""
        vira, target = self.vira.value, self.target.value
        self.button.disabled = True
        self.progress.value, self.progress.bar_style = 0.0, ""
        self.status.value = f"building the game tree of vira {vira}…"
        try:
            from .tables import resolve_vira

            first = None
            for step in resolve_vira(vira, target, self.max_iterations):
                if not isinstance(step, tuple):
                    solution = step
                    break
                iterations, reached = step
                first = first or reached
                self.progress.value = float(np.clip(
                    np.log(first / reached) / np.log(first / target), 0.0, 1.0)) \
                    if first > target else 1.0
                self.status.value = (f"vira {vira}: iteration {iterations}, "
                                     f"exploitability {reached:.2e} (target {target:g})")
        except Exception as exc:  # a dashboard reports, never raises
            self.progress.bar_style = "danger"
            self.status.value = (f"<span style='color:#a00'>re-solve failed: "
                                 f"{html.escape(str(exc))}</span>")
            return
        finally:
            self.button.disabled = False
        self.progress.value, self.progress.bar_style = 1.0, "success"
        equity, value, reached = solution.equity, solution.value, solution.exploitability
        old = self.dashboard.table
        rows = old[(old["vira"] == vira)]
        labels = hand_classes(vira).labels
        diffs = []
        for seat_index, seat in enumerate(("mao", "pe")):
            mine = rows[rows["seat"] == seat].set_index("hand")["equity"]
            diffs.append((pd.Series(equity[seat_index], index=labels) - mine).abs().max())
        self.dashboard.replace_vira(vira, equity, reached, {
            "value_mao": value, "exploitability": reached, "iterations": solution.iterations,
            "seconds": solution.seconds})
        self.status.value = (
            f"vira {vira} re-solved: the mão wins {value:.4f} (win probability), "
            f"exploitability {reached:.2e} after {solution.iterations} iterations in "
            f"{solution.seconds:.1f} s; largest change of a hand's equity from the table: "
            f"{max(diffs):.4f}.")


def equity_by_vira() -> EquityByVira:
    """The equity-by-vira dashboard."""
    return EquityByVira()


# --------------------------------------------------------------------- hands and scores

def hand_kind_text(score: tuple[int, int]) -> str:
    """What kind of hand is played at (mão, pé) ``score``, in words."""
    kind, holder = hand_kind(score)
    if kind == ELEVEN_ELEVEN:
        return "11 x 11: the hand is worth 3, raises are locked, whoever wins it wins the match."
    if kind == ELEVEN:
        who = "mão" if holder == 0 else "pé"
        return (f"mão de onze: the {who} (11 points) sees his cards and accepts (the hand is "
                f"worth 3, raises locked) or runs (the other side scores 1).")
    return "a normal hand: worth 1, truco raises it to 3, 6, 9, 12."


def match_equity_html(score: tuple[int, int], seat: str) -> str:
    """The match-win probability of ``seat`` at ``score`` before the deal, per model."""
    try:
        table = load("match_equity")
    except TableMissing as exc:
        return missing_html(exc)
    rows = table[(table["score_mao"] == score[0]) & (table["score_pe"] == score[1])]
    if rows.empty:
        return "<p><i>no row for this score</i></p>"
    shown = pd.DataFrame({
        "model": rows["model"] if "model" in rows else "",
        f"{charts.SEATS[seat]}'s match-win probability":
            rows["p_mao"] if seat == "mao" else 1 - rows["p_mao"],
        "exploitability": rows["exploitability"] if "exploitability" in rows else np.nan,
    })
    note = ""
    if "exploitability" in rows and rows["exploitability"].isna().any():
        note = (f"<p><small>— the full game's points play is not a match equilibrium: "
                f"{html.escape(leak_text(score))}.</small></p>")
    return frame_html(shown) + note


# --------------------------------------------------------------------- match equity


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
                                   "score, in match-win probability (table score_leak)"}

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


def leak_text(score: tuple[int, int]) -> str:
    """What ``score_leak`` measured at ``score``: how much the full game's points play
    leaks there (match-win probability), or that it is not measured."""
    how = f"lab solve score --score {score[0]},{score[1]}"
    try:
        table = load("score_leak", solved_only=True)
    except TableMissing:
        return f"the points play's leak here is not measured ({how})"
    rows = table[(table["score_mao"] == score[0]) & (table["score_pe"] == score[1])]
    if rows.empty:
        return f"the points play's leak here is not measured ({how})"
    text = (f"the points play leaks {significant(rows['leak'].mean())} match-win probability here "
            f"(mean over {len(rows)} vira{'s' if len(rows) > 1 else ''})")
    if "resolve_iterations" in rows:
        for _, row in rows[rows["resolve_iterations"] > 0].iterrows():
            text += "; " + resolve_text(row)
    return text


def resolve_text(row: pd.Series) -> str:
    """What a score-aware re-solve (a ``score_leak`` row) changed in the first moves."""
    def pct(x):
        return "n/a" if pd.isna(x) else f"{100 * x:.1f} %"

    return (f"a score-aware re-solve of vira {row['vira']} ({int(row['resolve_iterations'])} "
            f"iterations, exploitability {significant(row['resolve_exploitability'])}) has the "
            f"mão open with a truco {pct(row['truco_mao_score'])} of the time instead of "
            f"{pct(row['truco_mao_points'])}, the pé run from it "
            f"{pct(row['run_pe_score'])} instead of {pct(row['run_pe_points'])}, and the mão "
            f"win the match with probability {row['resolve_value_mao']:.3f} instead of "
            f"{row['value_mao']:.3f}")


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


__all__ = ["equity_by_vira", "match_equity", "load", "TableMissing", "missing_html",
           "table_missing_html", "card_label", "Dashboard"]
