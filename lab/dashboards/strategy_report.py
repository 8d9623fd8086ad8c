"""The strategy report as a dashboard: how often the solved points play calls truco, runs
and raises, per vira or over all viras, as a chart, a table and a CSV download.

The numbers are :func:`lab.strategy_report.strategy_report`'s (exact sums over the stored
points policies; every measure defined there), read from the stored ``strategy_report``
table, so every vira draws at once; the page keeps each vira's chart and table once drawn.
A table that is missing or stale (a vira's stored points policy changed since it was
written) is shown as the command that rebuilds it, ``lab report --write``.
"""

from __future__ import annotations

import base64
import html

import ipywidgets as W
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import charts
from ..errors import InputError
from ..strategy_report import (ALL, ALL_VIRAS, TABLE, percent, row_label, strategy_report,
                               to_csv, viras)
from ..tables import TableError
from ..widgets import TABLE_STYLE, TableMissing, _image, missing_html, show_png

SEAT_COLORS = {"mão": "#2b6cb0", "pé": "#c05621"}
BUCKET_COLORS = {"weak": "#c53030", "middle": "#d69e2e", "strong": "#2f855a"}


def percent_bars(ax, spots, values, width: float, label: str, color: str) -> None:
    """Bars of probabilities ``values`` at ``spots``, in percent, each labelled (NaN: no
    bar, labelled as :func:`~lab.strategy_report.percent` says)."""
    ax.bar(spots, np.nan_to_num(values) * 100, width, label=label, color=color)
    for xi, v in zip(spots, values):
        ax.annotate(percent(v), (xi, 0 if np.isnan(v) else v * 100), xytext=(0, 2),
                    textcoords="offset points", ha="center", va="bottom", fontsize=7)


def report_figure(frame: pd.DataFrame, title: str) -> Figure:
    """Three panels of ``frame`` (a report): the hand's truco by round and seat, the
    answers to a truco (run, re-raise) and the ladder's re-raises, and each seat's trucos
    split by hand strength. Probabilities in percent."""
    fig = Figure(figsize=(8.6, 7.2), layout="constrained")
    top, middle, bottom = fig.subplots(3, 1)
    seats = ("mão", "pé")

    def bars(ax, groups, values_of, ylabel):
        x = np.arange(len(groups))
        width = 0.38
        for k, seat in enumerate(seats):
            values = np.array([values_of(g, seat) for g in groups], dtype=float)
            percent_bars(ax, x + (k - 0.5) * width, values, width, seat, SEAT_COLORS[seat])
        top = max([np.nanmax([values_of(g, s) for g in groups] + [0.0]) for s in seats])
        ax.set_ylim(0, max(1.0, 130 * top))   # room for the labels and the legend
        ax.set_xticks(x, [g[0] for g in groups], fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left", ncols=2)

    def value(measure, rnd, seat, bucket=ALL):
        rows = frame[(frame["measure"] == measure) & (frame["round"] == rnd)
                     & (frame["seat"] == seat) & (frame["bucket"] == bucket)]
        return float(rows["value"].iloc[0]) if len(rows) else float("nan")

    groups = [("any round", 0), ("round 1", 1), ("round 2", 2), ("round 3", 3)]
    bars(top, groups, lambda g, s: value("opens_truco", g[1], s), "% of hands")
    top.set_title(f"{title}: who calls the hand's truco, and when", fontsize=10)
    answers = [("runs from truco", "runs_from_truco"), ("truco → 6", "raise_to_6"),
               ("seis → 9", "raise_to_9"), ("nove → 12", "raise_to_12")]
    bars(middle, answers, lambda g, s: value(g[1], 0, s), "% of times faced")
    middle.set_title("facing a raise: runs and re-raises", fontsize=10)
    strengths = [("weak", "weak"), ("middle", "middle"), ("strong", "strong")]
    bars(bottom, strengths, lambda g, s: value("truco_rate", 0, s, g[1]),
         "% of hands dealt")
    bottom.set_title("how often each hand strength calls truco (weak: bluffs)", fontsize=10)
    return fig


def report_html(frame: pd.DataFrame) -> str:
    """The report's rows as a table in words (value and how often the situation arises,
    per hand dealt)."""
    rows = []
    for _, row in frame.iterrows():
        base = "" if row["measure"] == "opens_truco" else percent(row["base"])
        rows.append(f"<tr><td style='text-align:left'>{html.escape(row_label(row))}</td>"
                    f"<td>{percent(row['value'])}</td><td>{base}</td></tr>")
    return (TABLE_STYLE + "<div style='max-width:100%;overflow-x:auto'>"
            "<table class='lab-table lab-report'><tr><th style='text-align:left'>what the "
            "solved play does</th><th>how often</th><th>situation arises (% of hands)</th>"
            "</tr>" + "".join(rows) + "</table></div>")


def csv_link(frame: pd.DataFrame, name: str) -> str:
    """An HTML link that downloads ``frame`` as a CSV file (a data: URI; no server)."""
    data = base64.b64encode(to_csv(frame).encode("utf-8")).decode("ascii")
    return (f"<a class='lab-report-csv' download='{html.escape(name)}' "
            f"href='data:text/csv;charset=utf-8;base64,{data}'>download the numbers "
            f"(CSV)</a>")


class StrategyReport(W.VBox):
    """The page: a vira picker, the chart, the CSV link and the table."""

    def __init__(self):
        super().__init__(layout=W.Layout(max_width="100%"))
        options = [("all viras", ALL_VIRAS)] + [(f"vira {v}", v) for v in viras()]
        self.picker = W.Dropdown(description="vira", options=options, value=ALL_VIRAS,
                                 layout=W.Layout(width="220px"))
        self.image = _image()
        self.link = W.HTML()
        self.table = W.HTML()
        self.note = W.HTML()
        self._drawn: dict = {}
        self.children = [self.picker, self.note, self.image, self.link,
                         self.table]
        self.picker.observe(lambda change: self.draw(), names="value")
        self.draw()

    def parts(self, vira: str) -> tuple:
        """(PNG bytes, CSV link, table HTML) of ``vira``'s report, kept once drawn."""
        if vira not in self._drawn:
            frame = strategy_report(vira)
            title = "all viras" if vira == ALL_VIRAS else f"vira {vira}"
            self._drawn[vira] = (charts.png(report_figure(frame, title)),
                                 csv_link(frame, f"strategy_report_{vira}.csv"),
                                 report_html(frame))
        return self._drawn[vira]

    def draw(self) -> None:
        try:
            data, link, table = self.parts(self.picker.value)
        except TableError as exc:
            self.note.value = missing_html(TableMissing(TABLE, str(exc)), "table missing")
            self.image.layout.display = "none"
            self.link.value = self.table.value = ""
            return
        except InputError as exc:
            self.note.value = f"<p><b>{html.escape(str(exc))}</b></p>"
            return
        self.image.layout.display = None
        self.note.value = ("<p><small>Exact frequencies of the solved points play (every "
                           "line weighted by the deal and both players' play); a rate is "
                           "given with how often its situation arises.</small></p>")
        self.link.value = link
        self.table.value = table
        show_png(self.image, data)   # the chart last: once it changes, the rest is new


def strategy_report_page() -> StrategyReport:
    """The dashboard of ``notebooks/strategy_report.ipynb``."""
    return StrategyReport()
