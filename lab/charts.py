"""Matplotlib figures of the solved tables, and PNG rendering for the dashboards.

Every function takes tidy DataFrames (as :func:`lab.tables.load_table` returns them)
and returns a :class:`matplotlib.figure.Figure`; :func:`png` turns one into PNG bytes.
Figures are built without pyplot, so a dashboard that redraws many times keeps no
figure alive. Units: equity and double-dummy equity are win probabilities of the
hand (0..1); match equity is a match-win probability; exploitability is in the unit
of the quantity it belongs to.
"""

from __future__ import annotations

import math

import io

import numpy as np
import pandas as pd
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from .cards import MANILHA_NAMES, RANKS, SUITS
from .match import MODEL_LABELS
from .errors import InputError

VIRAS = tuple(RANKS)
"""The ten vira ranks, weakest first."""

MANILHAS = tuple(MANILHA_NAMES[s] for s in reversed(SUITS))
"""Manilha names, strongest first: zap, copas, espadilha, pica-fumo."""

CARD_ORDER = MANILHAS + tuple(reversed(RANKS))
"""Card names as the tables write them (a level's name), strongest first.

A plain rank is never a manilha's rank for the vira it is played with, so a name
means the same strength rank-wise for every vira where it exists."""

GROUPINGS = {
    "best card": "hands grouped by their strongest card",
    "best two cards": "hands by their two strongest cards (all viras, deal-weighted)",
    "manilhas held": "hands grouped by how many manilhas they hold",
}
"""How hand classes can be grouped in :func:`equity_heatmap`, with a description."""

MEASURES = {
    "equilibrium | double dummy": "card-play equilibrium beside double dummy",
    "equilibrium": "card-play equilibrium",
    "double dummy": "double dummy (both hands face up)",
    "double dummy − equilibrium": "what seeing both hands is worth",
}
"""What :func:`equity_heatmap` shows."""

SEATS = {"mao": "mão", "pe": "pé"}


def significant(x: float, digits: int = 2) -> str:
    """``x`` rounded to ``digits`` significant digits, written as a plain decimal without
    trailing zeros (``0.021``, ``0.000096``, ``0.001``); a dash for NaN."""
    if x != x:
        return "–"
    if x == 0:
        return "0"
    x = float(f"{x:.{digits - 1}e}")  # round first: 0.00000999 is 0.000010
    places = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
"""Seat codes of the tables and their names."""

MEASURE_COLUMNS = {"equilibrium": "equity", "double dummy": "double_dummy"}


def png(fig: Figure, dpi: int | None = None) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PNG_DPI if dpi is None else dpi)
    return buf.getvalue()


def manilha_of(vira: str) -> str:
    """Rank of the manilhas when ``vira`` is the vira rank (``'3'`` -> ``'4'``)."""
    return RANKS[(RANKS.index(vira) + 1) % len(RANKS)]


def group_key(table: pd.DataFrame, grouping: str) -> pd.Series:
    """The group name of every row of a card-play table under ``grouping``."""
    if grouping == "best card":
        return table["best"]
    if grouping == "best two cards":
        return table["best"] + " " + table["second"]
    if grouping == "manilhas held":
        held = sum(table[c].isin(MANILHAS).astype(int) for c in ("best", "second", "third"))
        return held.map({0: "no manilha", 1: "1 manilha", 2: "2 manilhas", 3: "3 manilhas"})
    raise InputError(f"{grouping!r}: unknown grouping (choose from {', '.join(GROUPINGS)})")


def _group_order(grouping: str, names) -> list[str]:
    """Group names strongest first."""
    names = set(names)
    if grouping == "best card":
        return [c for c in CARD_ORDER if c in names]
    if grouping == "manilhas held":
        return [g for g in ("3 manilhas", "2 manilhas", "1 manilha", "no manilha") if g in names]
    rank = {c: i for i, c in enumerate(CARD_ORDER)}
    return sorted(names, key=lambda g: tuple(rank[c] for c in g.split(" ")))


def grouped_equity(table: pd.DataFrame, seat: str, grouping: str, column: str) -> pd.DataFrame:
    """Deal-weighted mean of ``column`` per group (rows, strongest first) and vira (columns).

    ``table`` is the card-play table; ``seat`` is ``'mao'`` or ``'pe'``. A cell is the
    win probability of a hand dealt at random among the group's classes for that vira;
    it is NaN where the group does not exist for that vira (for example a hand whose
    best card is a 5 when the 5s are the manilhas).
    """
    rows = table[table["seat"] == seat]
    if rows.empty:
        raise InputError(f"{seat!r}: no rows for this seat (seats are mao, pe)")
    frame = pd.DataFrame({
        "group": group_key(rows, grouping).to_numpy(),
        "vira": rows["vira"].to_numpy(),
        "weighted": (rows[column] * rows["weight"]).to_numpy(),
        "weight": rows["weight"].to_numpy(),
    })
    sums = frame.groupby(["group", "vira"])[["weighted", "weight"]].sum()
    mean = (sums["weighted"] / sums["weight"]).unstack("vira")
    viras = [v for v in VIRAS if v in mean.columns]
    return mean.reindex(index=_group_order(grouping, mean.index), columns=viras)


def two_card_grid(table: pd.DataFrame, seat: str, column: str) -> pd.DataFrame:
    """Deal-weighted mean of ``column`` over every vira, per best card (rows) and second
    card (columns), strongest first; NaN where no hand has that pair (the second card is
    never stronger than the best). One readable grid instead of a hundred rows per vira.
    """
    rows = table[table["seat"] == seat]
    if rows.empty:
        raise InputError(f"{seat!r}: no rows for this seat (seats are mao, pe)")
    frame = pd.DataFrame({"best": rows["best"].to_numpy(), "second": rows["second"].to_numpy(),
                          "weighted": (rows[column] * rows["weight"]).to_numpy(),
                          "weight": rows["weight"].to_numpy()})
    sums = frame.groupby(["best", "second"])[["weighted", "weight"]].sum()
    mean = (sums["weighted"] / sums["weight"]).unstack("second")
    return mean.reindex(index=[c for c in CARD_ORDER if c in mean.index],
                        columns=[c for c in CARD_ORDER if c in mean.columns])


PNG_DPI = 80
"""Resolution of the dashboards' PNG images, dots per inch."""

BLOCK_ROWS = 16
"""Rows written by one multi-line text in :func:`_write_cells`."""


def _line_height_pt(fontsize: float) -> float:
    """Height of one line of text at line spacing 1, in points.

    Matplotlib stacks the lines of a text at ``linespacing`` times the font's ascent plus
    descent (from its OS/2 or hhea table) and centres each line's glyphs in its slot."""
    from matplotlib.font_manager import FontProperties, findfont, get_font

    font = get_font(findfont(FontProperties(size=fontsize)))
    for table_name, ascent_key, descent_key in (("OS/2", "sTypoAscender", "sTypoDescender"),
                                                ("hhea", "ascent", "descent")):
        table = font.get_sfnt_table(table_name)
        if table is not None:
            units = font.get_sfnt_table("head")["unitsPerEm"]
            return (table[ascent_key] - table[descent_key]) / units * fontsize
    return 1.2 * fontsize


def _write_cells(ax, labels: np.ndarray, dark: np.ndarray, fontsize: float,
                 row_pt: float) -> None:
    """Write ``labels[r, c]`` centred in each cell of an imshow grid of rows ``row_pt``
    points high, black where ``dark`` is False and white where it is True.

    One text per column, colour and block of BLOCK_ROWS rows, its lines spaced exactly one
    row apart: a hundred rows of ten cells draw in a fraction of the time that a text
    per cell takes (matplotlib's cost is per text more than per glyph).
    """
    spacing = row_pt / _line_height_pt(fontsize)
    rows, cols = labels.shape
    for top in range(0, rows, BLOCK_ROWS):
        block = range(top, min(top + BLOCK_ROWS, rows))
        for c in range(cols):
            for white in (False, True):
                lines = [labels[r, c] if dark[r, c] == white else "" for r in block]
                if any(lines):
                    ax.text(c, top - 0.5, "\n".join(lines), ha="center", va="top",
                            multialignment="center", linespacing=spacing, fontsize=fontsize,
                            color="white" if white else "black")


def _heat_panel(ax, grid: pd.DataFrame, cmap: str, norm, title: str, annotate_fmt,
                row_pt: float, row_labels: bool = True, by_vira: bool = True) -> object:
    """Draw one heatmap panel with every cell's value written in it (rows ``row_pt``
    points high); its columns are viras (``by_vira``) or second cards."""
    values = grid.to_numpy(dtype=float)
    colormap = _colormap(cmap)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=colormap, norm=norm, aspect="auto",
                      interpolation="nearest")
    if by_vira:
        ax.set_xticks(range(grid.shape[1]), [f"{v}\n({manilha_of(v)})" for v in grid.columns])
    else:
        ax.set_xticks(range(grid.shape[1]), list(grid.columns), rotation=50, ha="left",
                      rotation_mode="anchor")
    if row_labels:
        ax.set_yticks(range(grid.shape[0]), list(grid.index))
    else:
        ax.set_yticks([])
    ax.tick_params(length=0, labelsize=10)
    ax.xaxis.tick_top()
    ax.set_xlabel(f"{title}\n{'vira (manilha rank)' if by_vira else 'second card'}",
                  fontsize=10)
    ax.xaxis.set_label_position("top")
    shade = colormap(norm(np.nan_to_num(values)))
    light = shade[..., 0] * 0.299 + shade[..., 1] * 0.587 + shade[..., 2] * 0.114
    labels = np.array([["" if np.isnan(v) else annotate_fmt(v) for v in row] for row in values],
                      dtype=object)
    _write_cells(ax, labels, light <= 0.5, 9, row_pt)
    return image


def _colormap(name: str):
    """A colormap without its darkest ends (black text stays readable), gray where NaN."""
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap(colormaps[name](np.linspace(0.12, 0.88, 256)))
    return cmap.with_extremes(bad="#e6e6e6")


def signed_points(v: float, decimals: int = 1) -> str:
    """A difference of probabilities in points of %, signed, with ``decimals`` decimals
    and no "-0.0"."""
    text = f"{100 * v:+.{decimals}f}"
    return text[1:] if float(text) == 0 else text


def equity_heatmap(table: pd.DataFrame, summary: pd.DataFrame | None = None, seat: str = "mao",
                   grouping: str = "best card",
                   measure: str = "equilibrium | double dummy") -> Figure:
    """Heatmap of hand equity (win probability) by hand group and vira, for one seat.

    ``table`` is the card-play table (one row per vira, seat and class), ``summary`` the
    per-vira summary whose exploitability goes in the title. Cells show the deal-weighted
    mean win probability of the group's hands, in percent.
    """
    if measure not in MEASURES:
        raise InputError(f"{measure!r}: unknown measure (choose from {', '.join(MEASURES)})")
    by_vira = grouping != "best two cards"

    def grid(column: str) -> pd.DataFrame:
        return grouped_equity(table, seat, grouping, column) if by_vira else \
            two_card_grid(table, seat, column)

    if measure == "double dummy − equilibrium":
        panels = [(grid("double_dummy") - grid("equity"), "double dummy − equilibrium")]
    else:
        names = ["equilibrium", "double dummy"] if "|" in measure else [measure]
        panels = [(grid(MEASURE_COLUMNS[n]), n) for n in names]
    n_rows = panels[0][0].shape[0]
    # A fixed layout in inches (constrained layout would draw every cell label twice).
    row_in = 0.36
    left_in = 1.1
    top_in, bottom_in, panel_in, gap_in, bar_in = 1.65, 0.15, 5.0, 0.25, 1.3
    if not by_vira:
        top_in += 0.35   # the second cards' names, slanted
    width = left_in + len(panels) * panel_in + (len(panels) - 1) * gap_in + bar_in
    height = top_in + bottom_in + row_in * n_rows
    fig = Figure(figsize=(width, height))
    axes = []
    for k in range(len(panels)):
        x0 = left_in + k * (panel_in + gap_in)
        axes.append(fig.add_axes((x0 / width, bottom_in / height, panel_in / width,
                                  row_in * n_rows / height)))
    for k, (ax, (grid, name)) in enumerate(zip(axes, panels)):
        extra = dict(row_labels=k == 0, row_pt=row_in * 72, by_vira=by_vira)
        if name == "double dummy − equilibrium":
            top = max(float(np.nanmax(np.abs(grid.to_numpy(dtype=float)))), 1e-3)
            norm = TwoSlopeNorm(vcenter=0.0, vmin=-top, vmax=top)
            image = _heat_panel(ax, grid, "PuOr", norm, name, signed_points,
                                **extra)
            label = "points of %"
        else:
            norm = TwoSlopeNorm(vcenter=0.5, vmin=0.0, vmax=1.0)
            image = _heat_panel(ax, grid, "RdYlGn", norm, name, lambda v: f"{100 * v:.0f}",
                                **extra)
            label = "win %"
    bar_h = min(row_in * n_rows, 4.0)
    bar = fig.add_axes(((width - bar_in + 0.2) / width,
                        (bottom_in + row_in * n_rows - bar_h) / height,
                        0.18 / width, bar_h / height))
    fig.colorbar(image, cax=bar, label=label, format=PercentFormatter(xmax=1, symbol=""))
    unit = "points of %" if measure == "double dummy − equilibrium" else "%"
    title = (f"Hand equity of the {SEATS.get(seat, seat)} ({unit})\n"
             f"{GROUPINGS.get(grouping, grouping)}")
    if summary is not None and len(summary):
        worst = float(summary["exploitability"].max())
        title += (f"\nequilibrium exploitability ≤ {significant(worst)} win probability "
                  "(all viras)")
    fig.suptitle(title, fontsize=12, y=1 - 0.08 / height, va="top")
    return fig


def weighted_rank(equity: pd.Series, weight: pd.Series) -> pd.Series:
    """Share of dealt hands (deal probability) with a strictly lower value, plus half the ties.

    0 is the weakest hand, 1 the strongest: a percentile in the deal distribution.
    """
    order = np.argsort(equity.to_numpy(), kind="stable")
    eq = equity.to_numpy()[order]
    w = weight.to_numpy()[order] / weight.sum()
    below = np.cumsum(w) - w
    # classes with the same value share the middle of their block
    frame = pd.DataFrame({"eq": eq, "below": below, "w": w})
    first = frame.groupby("eq")["below"].transform("min")
    total = frame.groupby("eq")["w"].transform("sum")
    result = np.empty(len(eq))
    result[order] = (first + total / 2).to_numpy()
    return pd.Series(result, index=equity.index)


def equity_curve(rows: pd.DataFrame, hand: str | None = None) -> Figure:
    """Hand equity (win probability) against the deal percentile, for one vira and seat.

    ``rows`` are the card-play rows of one vira and seat; the curves show how often a
    hand at least that strong is dealt. ``hand`` (a class label) is marked on both curves.
    """
    fig = Figure(figsize=(7.5, 3.6), layout="constrained")
    ax = fig.subplots()
    for column, name, color in (("equity", "equilibrium", "#1b7837"),
                                ("double_dummy", "double dummy", "#762a83")):
        pct = weighted_rank(rows[column], rows["weight"])
        order = np.argsort(pct.to_numpy())
        ax.plot(pct.to_numpy()[order] * 100, rows[column].to_numpy()[order], color=color,
                label=name, lw=2)
        if hand is not None and (rows["hand"] == hand).any():
            i = np.flatnonzero((rows["hand"] == hand).to_numpy())[0]
            x, y = pct.iloc[i] * 100, rows[column].iloc[i]
            ax.plot([x], [y], "o", color=color, ms=9, mec="black")
            ax.annotate(f"{100 * y:.1f}%", (x, y), textcoords="offset points",
                        xytext=(-44 if x > 85 else 8, -14 if column == "equity" else 6),
                        fontsize=9, color=color)
    ax.axhline(0.5, color="gray", lw=0.8, ls=":")
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 1)
    ax.set_xlabel("percentile of the dealt hand (% of deals weaker)")
    ax.set_ylabel("win probability")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    vira = rows["vira"].iloc[0] if len(rows) else "?"
    seat = SEATS.get(rows["seat"].iloc[0], "?") if len(rows) else "?"
    title = f"All hands of the {seat}, vira {vira}"
    if hand:
        title += f": {hand} marked"
    ax.set_title(title, fontsize=11)
    return fig


def _score_grid(grid: pd.DataFrame, cmap, norm, cell_text, chosen, colorbar: str,
                colorbar_format=None) -> tuple[Figure, object]:
    """A heatmap of one number per score: rows the mão's score, columns the pé's, every
    cell's value written in it (``cell_text``), ``chosen`` (mão, pé) outlined."""
    fig = Figure(figsize=(7.8, 6.6), layout="constrained")
    ax = fig.subplots()
    values = grid.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=norm,
                      origin="lower", interpolation="nearest")
    for (r, c), v in np.ndenumerate(values):
        if not np.isnan(v):
            shade = cmap(norm(v))
            light = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2]
            ax.text(c, r, cell_text(v), ha="center", va="center", fontsize=8,
                    color="black" if light > 0.5 else "white")
    if chosen is not None:
        from matplotlib.patches import Rectangle

        m, p = chosen
        ax.add_patch(Rectangle((p - 0.5, m - 0.5), 1, 1, fill=False, lw=2.5, ec="black"))
    ax.set_xticks(range(grid.shape[1]), list(grid.columns))
    ax.set_yticks(range(grid.shape[0]), list(grid.index))
    ax.set_xlabel("pé's score (points)")
    ax.set_ylabel("mão's score (points)")
    fig.colorbar(image, ax=ax, label=colorbar, shrink=0.85, format=colorbar_format)
    return fig, ax


def match_equity_heatmap(table: pd.DataFrame, model: str | None = None,
                         chosen: tuple[int, int] | None = None) -> Figure:
    """12 x 12 heatmap of match equity: the next hand's mão's match-win probability.

    ``table`` has columns score_mao, score_pe, p_mao (and optionally model); rows are
    the mão's score, columns the pé's score. ``chosen`` (mão, pé) is outlined.
    """
    rows = table if model is None or "model" not in table else table[table["model"] == model]
    grid = rows.pivot_table(index="score_mao", columns="score_pe", values="p_mao",
                            aggfunc="mean").reindex(index=range(12), columns=range(12))
    fig, ax = _score_grid(grid, _colormap("RdYlGn"), TwoSlopeNorm(vcenter=0.5, vmin=0.0, vmax=1.0),
                          lambda v: f"{100 * v:.0f}", chosen,
                          "mão's match-win probability (%)", PercentFormatter(xmax=1, symbol=""))
    title = "Match equity of the next hand's mão (%)"
    if model:
        title += f", model {model}"
    elif "model" in rows and len(rows):
        title += "\n" + "; ".join(MODEL_LABELS.get(m, m) for m in dict.fromkeys(rows["model"]))
    if "exploitability" in rows and len(rows):
        measured = rows["exploitability"].dropna()
        if len(measured) == len(rows):
            worst = significant(float(measured.max()))
            title += f"\nexploitability ≤ {worst} match-win probability"
        elif len(measured):
            worst = significant(float(measured.max()))
            title += (f"\nsolved scores: exploitability ≤ {worst} "
                      "match-win probability; the others are points play")
    ax.set_title(title, fontsize=11)
    return fig


def leak_heatmap(leaks: pd.DataFrame, chosen: tuple[int, int] | None = None) -> Figure:
    """11 x 11 heatmap of the points play's leak at each normal score: the mean over the
    measured viras of ``leak`` (match-win probability, drawn in points of %) from the
    ``score_leak`` table; gray where no vira is measured."""
    grid = leaks.pivot_table(index="score_mao", columns="score_pe", values="leak",
                             aggfunc="mean").reindex(index=range(11), columns=range(11))
    values = grid.to_numpy(dtype=float)
    top = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
    fig, ax = _score_grid(grid, _colormap("YlOrRd"), Normalize(vmin=0.0, vmax=max(top, 1e-9)),
                          lambda v: f"{100 * v:.1f}", chosen,
                          "leak (points of % match-win probability)",
                          PercentFormatter(xmax=1, symbol="", decimals=1))
    viras = leaks.groupby(["score_mao", "score_pe"])["vira"].nunique()
    title = "How much the full game's points play leaks at each score"
    if len(viras):
        lo, hi = int(viras.min()), int(viras.max())
        title += ("\n(each seat's best-response gain in match-win probability, mean of both "
                  f"seats;\nmean over {lo if lo == hi else f'{lo}-{hi}'} viras; "
                  f"{len(viras)} of 121 scores measured)")
    else:
        title += "\n(no score measured yet: lab solve score --all-scores)"
    ax.set_title(title, fontsize=11)
    return fig



CHANGE_COLORS = ("#2166ac", "#b2182b")
"""Bars of a change: the mão gains (blue), the mão loses (red), as in the diverging maps."""


def difference_heatmap(match: pd.DataFrame, chosen: tuple[int, int] | None = None,
                       title: str = "") -> Figure:
    """12 x 12 heatmap of a change in match equity: ``difference`` at each (``score_mao``,
    ``score_pe``) of ``match`` (the next hand's mão's match-win probability, drawn in points
    of %), rows the mão's score, columns the pé's, diverging colours centred on 0 (blue: the
    mão gains); ``chosen`` (mão, pé) is outlined."""
    grid = match.pivot_table(index="score_mao", columns="score_pe", values="difference",
                             aggfunc="mean").reindex(index=range(12), columns=range(12))
    values = grid.to_numpy(dtype=float)
    top = max(float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 0.0, 1e-6)
    # one decimal for changes of a point of % or more, up to three for smaller ones
    decimals = int(np.clip(math.ceil(-math.log10(100 * top)) + 1, 1, 3))
    fig, ax = _score_grid(grid, _colormap("RdBu"), TwoSlopeNorm(vcenter=0.0, vmin=-top, vmax=top),
                          lambda v: signed_points(v, decimals), chosen,
                          "change (points of % match-win probability)",
                          PercentFormatter(xmax=1, symbol="", decimals=decimals))
    ax.set_title(title, fontsize=11)
    return fig


def difference_bars(rows: pd.DataFrame, title: str) -> Figure:
    """Bar chart of one quantity's change per vira: ``difference`` of each row of ``rows``
    (one row per vira, in the unit of its ``unit`` column), each bar labelled with its
    value; a vira whose ``difference`` is blank is labelled "not solved"."""
    rows = rows.set_index("vira").reindex([v for v in VIRAS if v in set(rows["vira"])])
    change = rows["difference"].to_numpy(dtype=float)
    fig = Figure(figsize=(7.5, 3.4), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(rows))
    heights = np.nan_to_num(change)
    ax.bar(x, heights, color=[CHANGE_COLORS[int(h < 0)] for h in heights])
    top = float(np.abs(heights).max()) if len(heights) else 0.0
    for xi, v in zip(x, change):
        below = v < 0
        label = "not solved" if np.isnan(v) else ("+" if v > 0 else "") + significant(v)
        ax.annotate(label, (xi, 0.0 if np.isnan(v) else v), xytext=(0, -3 if below else 3),
                    textcoords="offset points", ha="center", va="top" if below else "bottom",
                    fontsize=8)
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_ylim(*((-1.3 * top, 1.3 * top) if top > 0 else (-1.0, 1.0)))
    if top == 0 and np.isfinite(change).any():
        ax.text(0.5, 0.25, "no change at any vira", transform=ax.transAxes, ha="center",
                fontsize=10, color="#555555")
    ax.set_xticks(x, list(rows.index))
    ax.set_xlabel("vira")
    unit = rows["unit"].iloc[0] if len(rows) else ""
    ax.set_ylabel(f"change ({unit})")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title, fontsize=11)
    return fig


def eleven_thresholds(decisions: pd.DataFrame, cardplay: pd.DataFrame) -> pd.DataFrame:
    """Per vira, how the 11-holder answers a mão de onze at one score and seat.

    ``decisions`` are the mão de onze rows of one score and seat (columns vira, seat,
    hand, accept = probability of accepting, value, and the deal weight if it has one);
    ``cardplay`` the card-play table, which gives each hand's equity (and weight). Returns
    one row per vira: the
    share of dealt hands accepted (deal probability), the weakest hand (by card-play
    equity) accepted at least half of the time and that hand's card-play equity (win
    probability).
    """
    seat = decisions["seat"].iloc[0]
    wanted = ["vira", "hand", "equity"] + ([] if "weight" in decisions else ["weight"])
    cp = cardplay[cardplay["seat"] == seat][wanted]
    both = decisions.merge(cp, on=["vira", "hand"], how="left")
    out = []
    for vira in [v for v in VIRAS if v in set(both["vira"])]:
        rows = both[both["vira"] == vira]
        share = float((rows["accept"] * rows["weight"]).sum() / rows["weight"].sum())
        accepted = rows[rows["accept"] >= 0.5].sort_values("equity")
        weakest = accepted.iloc[0] if len(accepted) else None
        out.append({"vira": vira, "accept_share": share,
                    "weakest_accepted": None if weakest is None else weakest["hand"],
                    "its_cardplay_win_probability": np.nan if weakest is None
                    else float(weakest["equity"])})
    return pd.DataFrame(out)


def eleven_chart(thresholds: pd.DataFrame, title: str) -> Figure:
    """Bar chart of the share of hands the 11-holder accepts, per vira (deal probability)."""
    fig = Figure(figsize=(7.5, 3.4), layout="constrained")
    ax = fig.subplots()
    bars = ax.bar(thresholds["vira"], thresholds["accept_share"] * 100, color="#4575b4")
    for bar, hand in zip(bars, thresholds["weakest_accepted"]):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + 2, hand or "none",
                ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_ylim(0, 135)
    ax.set_yticks(range(0, 101, 25))
    ax.set_xlabel("vira (label: weakest hand accepted)")
    ax.set_ylabel("% of dealt hands accepted")
    ax.set_title(title, fontsize=11)
    ax.grid(axis="y", alpha=0.3)
    return fig


def percent(p: float) -> str:
    """A probability as people read it: ``37%``; ``<1%`` and ``>99%`` near the ends, so
    that what happens never reads 0% and what may not happen never reads 100%."""
    if p is None or np.isnan(p):
        return "—"
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    if p < 0.005:
        return "<1%"
    if p > 0.995:
        return ">99%"
    return f"{100 * p:.0f}%"


ACTION_COLORS = {
    "play the highest card": "#08519c", "play the middle card": "#4292c6",
    "play the lowest card": "#9ecae1", "play the last card": "#6baed6",
    "cover a card": "#969696", "accept": "#41ab5d", "run": "#f16913",
    "truco": "#cb181d", "seis": "#a50f15", "nove": "#67000d", "doze": "#3f007d",
}
"""Colours of the strategy chart's actions (calls in reds, cards in blues)."""


def spot_strategy_chart(hands: pd.DataFrame, actions, title: str) -> Figure:
    """The strategy of every hand at one decision point, weakest hand on the left.

    ``hands`` has one row per hand class, weakest first (as
    :func:`lab.dashboards.spots.class_strategy` gives them): ``share`` (the probability
    of holding it there, summing to 1), ``best`` (its strongest card, to label groups of
    hands) and one column per name in ``actions`` (the probability of taking it). Each
    hand is a column as wide as its share, stacked by its action probabilities (%).
    """
    fig = Figure(figsize=(9.0, 3.9), layout="constrained")
    ax = fig.subplots()
    share = hands["share"].to_numpy(dtype=float)
    edges = np.concatenate([[0.0], np.cumsum(share)]) * 100
    xs = np.column_stack([edges[:-1], edges[1:]]).ravel()
    bottom = np.zeros(len(hands))
    for name in actions:
        y = hands[name].to_numpy(dtype=float)
        if not (y > 0).any():
            continue
        ax.fill_between(xs, np.repeat(bottom, 2) * 100, np.repeat(bottom + y, 2) * 100,
                        color=ACTION_COLORS.get(name, None), label=name, lw=0)
        bottom = bottom + y
    groups = []
    for k, best in enumerate(hands["best"]):
        if not groups or groups[-1][0] != best:
            groups.append([best, edges[k], edges[k + 1]])
        else:
            groups[-1][2] = edges[k + 1]
    for best, lo, hi in groups:
        if lo > 0:
            ax.axvline(lo, color="white", lw=1.2)
    shown = [(best, lo, hi) for best, lo, hi in groups if hi - lo >= 2.0]
    top = ax.secondary_xaxis("top")
    top.set_xticks([(lo + hi) / 2 for _, lo, hi in shown], [best for best, _, _ in shown])
    top.tick_params(length=0, labelsize=8)
    for label, (best, lo, hi) in zip(top.get_xticklabels(), shown):
        label.set_rotation(0 if hi - lo >= 1.4 * len(best) + 1 else 90)
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("hands that can be here, weakest to strongest (% of them); "
                  "on top: the best card held")
    ax.set_ylabel("% of the time")
    ax.set_title(title, fontsize=11)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    return fig
