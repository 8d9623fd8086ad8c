"""The pieces the dashboards share: loading a table or saying how to build it, images that
redraw in place, seat buttons, card labels, and score texts.

Each composite is a ``VBox`` built from the solved tables (:func:`lab.tables.load_table`)
and the figures of :mod:`lab.charts`. Charts are PNG images in an ``Image`` widget whose
value is replaced on every change, so a dashboard redraws in place. A table that is not
built yet is never an error: the dashboard (or the section that needs it) says which
command builds it. The dashboards themselves live in :mod:`lab.dashboards`, one module
per view.
"""

from __future__ import annotations

import html

import ipywidgets as W
import pandas as pd

from . import charts
from .charts import significant
from .cards import Card
from .rules import ELEVEN, ELEVEN_ELEVEN, hand_kind


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


def leak_text(score: tuple[int, int]) -> str:
    """What ``score_leak`` measured at ``score``: how much the full game's points play
    leaks there (match-win probability), or that it is not measured; and what a re-solve
    there changes (``score_leak``'s own, else the match-play sweep's: :func:`sweep_text`)."""
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
    resolved = rows[rows["resolve_iterations"] > 0] if "resolve_iterations" in rows else rows[:0]
    for _, row in resolved.iterrows():
        text += "; " + resolve_text(row)
    if resolved.empty:
        text += sweep_text(score)
    return text


def sweep_text(score: tuple[int, int]) -> str:
    """What the match-play sweep's re-solves at ``score`` (``score_play``) change, in words:
    vira 4's (else the first vira's), and how many viras were re-solved; "" where none."""
    try:
        plays = load("score_play")
    except TableMissing:
        return ""
    here = plays[(plays["score_mao"] == score[0]) & (plays["score_pe"] == score[1])]
    if here.empty:
        return ""
    first = here[here["vira"] == "4"] if (here["vira"] == "4").any() else here
    row = first.iloc[0]
    text = "; " + resolve_text(pd.Series({
        "vira": row["vira"], "resolve_iterations": row["iterations"],
        "resolve_exploitability": row["exploitability"], "truco_mao_score": row["truco_mao"],
        "truco_mao_points": row["truco_mao_points"], "run_pe_score": row["run_pe"],
        "run_pe_points": row["run_pe_points"], "resolve_value_mao": row["value_mao"],
        "value_mao": row["points_value_mao"]}))
    if len(here) > 1:
        text += f" ({len(here)} viras re-solved here: the score-aware play view)"
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


__all__ = ["load", "TableMissing", "missing_html", "table_missing_html", "card_label",
           "Dashboard", "hand_kind_text", "leak_text", "resolve_text", "significant",
           "sweep_text"]
