"""The equity-by-vira dashboard (``notebooks/equity_by_vira.ipynb``): hand equity by hand
group and vira for one seat, equilibrium beside double dummy, and a re-solve of one vira."""

from __future__ import annotations

import html
import time

import ipywidgets as W
import numpy as np
import pandas as pd

from .. import charts
from ..cards import RANKS
from ..charts import significant
from ..classes import hand_classes
from ..widgets import (LIVE_ONLY, TABLE_STYLE, WRAP, Dashboard, TableMissing, _image,
                       frame_html, labeled, load, seat_buttons, table_missing_html)


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
            from ..tables import resolve_vira

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
