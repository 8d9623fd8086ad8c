"""Every hand at one node of the full game, as a player reads it: the hand grid.

The grid lays out every hand the player to act can hold at a node
(:func:`lab.advice.node_advice`) the way he looks for his own: a row per best card, a
column per second card (strongest first), and inside the cell one chip per third card.
A chip is coloured by the hand's mix (a stacked bar of the moves it makes, in the colours
of the strategy chart, :data:`lab.charts.ACTION_COLORS`) and shows the hand's exact
value in the model's unit; a hand off the solved path (the strategy never gets there
with it) is dashed and shows its best response. Beside it the opponent's range; under
it one hand's detail (each move: how often, its value) and the comparison of the node
with another model or vira (:func:`compare_frame`).

Moves are grouped by what a player does, whatever the card's name
(``group_of(move, holds)``: "play the highest card", "truco", "accept" ...), so two viras
compare hand by hand (the same strength levels, each vira naming its own cards). The
functions here only draw: every number comes from the advice service.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from ..advice import MATCH_WIN, NodeAdvice
from ..charts import ACTION_COLORS, percent

SURRENDER = "surrender"
COLORS = {**ACTION_COLORS, SURRENDER: "#000000"}
"""Colours of the move groups (the strategy chart's; surrender, never played, black)."""

STYLE = """<style>
.lab-grid-box{overflow:auto;max-width:100%;max-height:560px;border:1px solid #ddd}
.lab-grid{border-collapse:separate;border-spacing:0;font-size:11px}
.lab-grid th{position:sticky;top:0;background:#fff;z-index:1;padding:2px 4px;
 font-weight:600}
.lab-grid th.lab-best{left:0;z-index:2;text-align:right}
.lab-grid tbody th.lab-best{z-index:1}
.lab-grid td{vertical-align:top;padding:1px 2px;border:1px solid #eee;min-width:62px}
.lab-chip{margin:1px 0;border-radius:3px;white-space:nowrap;line-height:16px;
 padding:0 3px;font-variant-numeric:tabular-nums}
.lab-chip span{text-shadow:0 0 2px #fff,0 0 2px #fff,0 0 3px #fff;font-weight:600}
.lab-chip.lab-off{opacity:.6;outline:1px dashed #444;outline-offset:-1px}
.lab-chip.lab-picked{outline:2px solid #000;outline-offset:-1px}
.lab-key{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;
 vertical-align:middle}
.lab-scroll{overflow-x:auto;max-width:100%}
.lab-diff-table td,.lab-diff-table th{white-space:nowrap}
</style>"""


# ------------------------------------------------------------------ numbers in words


def value_text(value: float, unit: str, precise: bool = False) -> str:
    """A value in its unit, short: ``+0.31`` points per hand, ``51.2%`` match-win
    probability (``precise``: one more digit)."""
    if value is None or not math.isfinite(value):
        return "—"
    if unit == MATCH_WIN:
        return f"{100 * value:.{2 if precise else 1}f}%"
    return f"{value:+.{3 if precise else 2}f}"


def difference_text(value: float, unit: str) -> str:
    """A difference of two values in ``unit``: ``+0.12`` points per hand, ``-1.4 pts``
    (points of %) of match-win probability."""
    if value is None or not math.isfinite(value):
        return "—"
    if unit == MATCH_WIN:
        return f"{100 * value:+.1f} pts"
    return f"{value:+.2f}"


def mix_difference_text(difference: float) -> str:
    """A change of a probability, in points of %: ``+12.5``; a hand that cannot be there
    says so."""
    if difference is None or not math.isfinite(difference):
        return "cannot be here"
    return f"{100 * difference:+.1f}"


def unit_words(unit: str) -> str:
    """The unit as the page says it."""
    if unit == MATCH_WIN:
        return "match-win probability (the player's chance to win the match, %)"
    return "points per hand (what the hand is expected to score for the player, net)"


# ------------------------------------------------------------------ one hand's mix


def group_mix(row, group_of) -> dict:
    """``{group: probability}`` of one ``hands`` row of a :class:`NodeAdvice`."""
    out: dict = {}
    for move, p in row["strategy"].items():
        if p > 0:
            g = group_of(move, row["holds"])
            out[g] = out.get(g, 0.0) + float(p)
    return out


def bar_style(mix: dict, order) -> str:
    """A CSS background drawing ``mix`` as a stacked bar, groups in ``order``."""
    stops, at = [], 0.0
    for g in order:
        p = mix.get(g, 0.0)
        if p <= 0:
            continue
        stops.append(f"{COLORS.get(g, '#bbbbbb')} {100 * at:.1f}% {100 * (at + p):.1f}%")
        at += p
    if not stops:
        return "background:#fff"
    return f"background:linear-gradient(90deg,{','.join(stops)})"


def hand_key(row) -> tuple:
    """What names one hand here: its levels as dealt and those it still holds."""
    return tuple(row["levels"]), tuple(row["holds"])


def hand_words(row, name_level) -> str:
    """``zap 3 K`` as dealt, with what it still holds once it has played a card."""
    holds = tuple(row["holds"])
    if len(holds) == 3:
        return row["hand"]
    kept = " ".join(name_level(lv) for lv in holds)
    return f"{row['hand']} (holds {kept})"


# ------------------------------------------------------------------ the grid


def grid_html(node: NodeAdvice, group_of, name_level, groups, picked=None) -> str:
    """The hand grid of ``node``: rows the best card, columns the second card, a chip per
    third card (see the module docstring); ``groups`` the move groups in colour order;
    ``picked`` the :func:`hand_key` of the hand whose detail is open."""
    hands = node.hands
    if hands.empty:
        return "<p>No hand of the player to act can be here.</p>"
    cells: dict = {}
    several = list(hands.groupby("class")["holds"].transform("count") > 1)
    for k, row in enumerate(hands.to_dict("records")):
        levels = row["levels"]
        mix = group_mix(row, group_of)
        third = name_level(levels[2])
        if several[k]:
            third += " (" + " ".join(name_level(lv) for lv in row["holds"]) + ")"
        off = "" if row["on_path"] else " lab-off"
        mark = " lab-picked" if picked == hand_key(row) else ""
        tip = (f"{row['hand']}: " + ", ".join(f"{g} {percent(p)}" for g, p in mix.items())
               + f"; value {value_text(row['value'], node.unit, True)}"
               + ("" if row["on_path"] else " (off the solved path: best response)"))
        chip = (f"<div class='lab-chip{off}{mark}' data-hand='{html.escape(row['hand'])}' "
                f"data-holds='{' '.join(str(x) for x in row['holds'])}' "
                f"title='{html.escape(tip)}' style='{bar_style(mix, groups)}'>"
                f"<span>{html.escape(third)} {value_text(row['value'], node.unit)}</span>"
                "</div>")
        cells.setdefault((levels[0], levels[1]), []).append(chip)
    bests = sorted({b for b, _ in cells}, reverse=True)
    seconds = sorted({s for _, s in cells}, reverse=True)
    head = "".join(f"<th>{html.escape(name_level(s))}</th>" for s in seconds)
    body = []
    for b in bests:
        tds = "".join(f"<td>{''.join(cells.get((b, s), []))}</td>" if s <= b else "<td></td>"
                      for s in seconds)
        body.append(f"<tr><th class='lab-best'>{html.escape(name_level(b))}</th>{tds}</tr>")
    return (f"<div class='lab-grid-box'><table class='lab-grid'><thead><tr>"
            f"<th class='lab-best'>best \\ 2nd</th>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>")


def legend_html(node: NodeAdvice, groups, used) -> str:
    """The colour key of the move groups made here, and what a chip shows."""
    keys = "".join(f"<span class='lab-key' style='background:{COLORS.get(g, '#bbb')}'>"
                   f"</span>{html.escape(g)}" for g in groups if g in used)
    return (f"<p class='lab-grid-legend' style='margin:4px 0'><small>Rows: the best card "
            f"held; columns: the second card; in the cell, each third card with the hand's "
            f"value in {html.escape(node.unit)}. Colours: how often the hand makes each "
            f"move{keys}. Dashed: off the solved path (the strategy never gets here with "
            f"that hand; shown: its best response).</small></p>")


def used_groups(node: NodeAdvice, group_of) -> set:
    """The move groups some hand here makes with a positive probability."""
    out = set()
    for row in node.hands.to_dict("records"):
        out.update(group_mix(row, group_of))
    return out


# ------------------------------------------------------------------ one hand


def detail_html(node: NodeAdvice, row, words, name_level, command: str = "") -> str:
    """One hand's detail: how likely it is here, each move with how often the strategy
    makes it and its exact value (``words(move)`` names a move), the hand's value, and
    the ``lab advise`` command that gives the same numbers."""
    unit = node.unit
    best = row["best"]
    lines = []
    for move in node.moves:
        if move not in row["values"]:
            continue
        star = " ★" if move == best else ""
        lines.append(f"<tr class='lab-move' data-move='{move_key(move)}'>"
                     f"<td style='text-align:left'>"
                     f"{html.escape(words(move))}{star}</td>"
                     f"<td class='lab-often'>{percent(row['strategy'][move])}</td>"
                     f"<td class='lab-value'>{value_text(row['values'][move], unit, True)}"
                     "</td></tr>")
    path = ("" if row["on_path"] else
            "<p class='lab-note'><b>Off the solved path:</b> the solved strategy never "
            "gets here with this hand, so it says nothing for it; shown is the best "
            "response (the move of the highest value).</p>")
    likely = (f"{percent(row['likelihood'])} of the {('mão', 'pé')[node.seat]}'s hands here"
              if row["on_path"] else "never under the solved strategy")
    how = " (its mix)" if row["on_path"] else " (its best response)"
    cmd = (f"<p><small>The same numbers from the command line: <code>"
           f"{html.escape(command)}</code></small></p>") if command else ""
    return (f"<div class='lab-hand-detail'><p><b>{html.escape(hand_words(row, name_level))}"
            f"</b>: {likely}. Value of the hand{how}: <b class='lab-hand-value'>"
            f"{value_text(row['value'], unit, True)}</b> {html.escape(unit)}.</p>{path}"
            f"<div class='lab-scroll'><table class='lab-table lab-detail'><tr>"
            f"<th style='text-align:left'>move (★ the best)</th><th>how often</th>"
            f"<th>value ({html.escape(unit)})</th></tr>{''.join(lines)}</table></div>"
            f"{cmd}</div>")


def move_key(move) -> str:
    """A move as a page attribute: ``card:8``, ``cover:8``, ``raise``, ``surrender`` ..."""
    return f"{move[0]}:{move[1]}" if isinstance(move, tuple) else str(move)


def advise_command(position) -> str:
    """The ``lab advise`` command line of a :class:`lab.advice.Position`."""
    tokens = ["cover" if a.kind == "cover" and a.card is None else str(a)
              for _, a in position.history]
    hand = ",".join(str(c) for c in position.hand)
    score = f"{position.score[0]},{position.score[1]}"
    seat = ("mao", "pe")[position.seat]
    return (f"lab advise --vira {position.vira} --hand {hand} --seat {seat} --score {score} "
            f"--text {' '.join(tokens)}").rstrip()


# ------------------------------------------------------------------ the opponent's range


def range_html(node: NodeAdvice, name_level, top: int = 10) -> str:
    """The opponent's range here: his hands by best card held, and his likeliest hands."""
    frame = node.opponent
    who = ("mão", "pé")[1 - node.seat]
    if frame.empty:
        return f"<p>The {who}'s range: none of his hands gets here.</p>"
    best = frame["holds"].map(lambda h: h[0] if h else -1)
    by_best = frame.groupby(best)["likelihood"].sum().sort_index(ascending=False)
    rows = "".join(
        f"<tr><td style='text-align:left'>{html.escape(name_level(b))}</td>"
        f"<td style='text-align:left'><span style='display:inline-block;height:9px;"
        f"width:{max(1, round(80 * p))}px;background:#888'></span></td>"
        f"<td>{percent(p)}</td></tr>" for b, p in by_best.items())
    likely = "".join(
        f"<tr><td style='text-align:left'>{html.escape(r['hand'])}</td>"
        f"<td style='text-align:left'>{html.escape(' '.join(name_level(x) for x in r['holds']))}"
        f"</td><td>{percent(r['likelihood'])}</td></tr>"
        for r in frame.head(top).to_dict("records"))
    more = (f"<p><small>… and {len(frame) - top} more.</small></p>"
            if len(frame) > top else "")
    return (f"<div class='lab-range'><p><b>The {who}'s range here</b> (given the moves so "
            f"far)</p><table class='lab-table'><tr><th style='text-align:left'>best card he "
            f"holds</th><th></th><th>how likely</th></tr>{rows}</table>"
            f"<p style='margin:6px 0 2px'>His likeliest hands</p><table class='lab-table'>"
            f"<tr><th style='text-align:left'>hand</th><th style='text-align:left'>holds"
            f"</th><th>how likely</th></tr>{likely}</table>{more}</div>")


# ------------------------------------------------------------------ compare


def compare_frame(a: NodeAdvice, b: NodeAdvice, group_of, group_of_b=None) -> pd.DataFrame:
    """Hand by hand, ``a`` against ``b`` at the same node: one row per hand of ``a``
    (matched in ``b`` by strength: the same levels as dealt and held), ``main`` (the move
    group ``a`` makes most with it), ``mix_a``/``mix_b`` (how often each makes it),
    ``mix_difference`` (b - a, probability), ``value_a``/``value_b`` and
    ``value_difference`` (b - a, in the unit both share; NaN when the units differ or the
    hand cannot be in ``b``)."""
    group_of_b = group_of_b or group_of
    same_unit = a.unit == b.unit
    other = {hand_key(r): r for r in b.hands.to_dict("records")}
    rows = []
    for r in a.hands.to_dict("records"):
        mix = group_mix(r, group_of)
        main = max(mix, key=mix.get) if mix else ""
        twin = other.get(hand_key(r))
        mix_b = group_mix(twin, group_of_b).get(main, 0.0) if twin is not None else np.nan
        value_b = float(twin["value"]) if twin is not None else np.nan
        rows.append({"hand": r["hand"], "hand_b": twin["hand"] if twin is not None else "",
                     "levels": r["levels"], "holds": r["holds"], "main": main,
                     "mix_a": mix.get(main, 0.0), "mix_b": mix_b,
                     "mix_difference": mix_b - mix.get(main, 0.0),
                     "value_a": float(r["value"]), "value_b": value_b,
                     "value_difference": value_b - float(r["value"]) if same_unit else np.nan})
    return pd.DataFrame(rows, columns=["hand", "hand_b", "levels", "holds", "main", "mix_a",
                                       "mix_b", "mix_difference", "value_a", "value_b",
                                       "value_difference"])


def shade(difference: float, scale: float) -> str:
    """A background for a difference: green above zero, red below, none at zero."""
    if not math.isfinite(difference) or abs(difference) < 1e-12 or scale <= 0:
        return ""
    alpha = min(1.0, abs(difference) / scale) * 0.7 + 0.1
    rgb = "26,152,80" if difference > 0 else "215,48,39"
    return f" style='background:rgba({rgb},{alpha:.2f})'"


def compare_html(frame: pd.DataFrame, a_name: str, b_name: str, a: NodeAdvice,
                 b: NodeAdvice, name_level) -> str:
    """The comparison table (:func:`compare_frame`), differences coloured, hands with the
    largest change of their main move first."""
    if frame.empty:
        return "<p>No hand of the player to act can be here.</p>"
    biggest = float(frame["mix_difference"].abs().max())
    changed = int((frame["mix_difference"].abs() > 0.005).sum())
    scale_v = float(np.nanmax(np.abs(frame["value_difference"].to_numpy(dtype=float)))) \
        if frame["value_difference"].notna().any() else 0.0
    order = frame.assign(size=frame["mix_difference"].abs().fillna(1.0)) \
        .sort_values("size", ascending=False, kind="stable")
    unit_note = ("" if a.unit == b.unit else
                 f" The values are in different units ({html.escape(a.unit)}, "
                 f"{html.escape(b.unit)}): compare the mixes; the value difference is not "
                 "given.")
    rows = []
    for r in order.to_dict("records"):
        name = r["hand"]
        if r["hand_b"] and r["hand_b"] != name:
            name += f" = {r['hand_b']}"   # another vira names the same levels otherwise
        if len(r["holds"]) < 3:
            name += " (holds " + " ".join(name_level(x) for x in r["holds"]) + ")"
        rows.append(
            f"<tr class='lab-diff-row'><td style='text-align:left'>{html.escape(name)}</td>"
            f"<td style='text-align:left'>{html.escape(r['main'])}</td>"
            f"<td>{percent(r['mix_a'])}</td><td>{percent(r['mix_b'])}</td>"
            f"<td class='lab-mix-diff'{shade(r['mix_difference'], 0.5)}>"
            f"{mix_difference_text(r['mix_difference'])}</td>"
            f"<td>{value_text(r['value_a'], a.unit)}</td>"
            f"<td>{value_text(r['value_b'], b.unit)}</td>"
            f"<td class='lab-value-diff'{shade(r['value_difference'], scale_v)}>"
            f"{difference_text(r['value_difference'], a.unit)}</td></tr>")
    return (f"<p class='lab-compare-summary'>{html.escape(b_name)} against "
            f"{html.escape(a_name)}: the main move's frequency changes by more than half a "
            f"point for {changed} of {len(frame)} hands (the largest change "
            f"{100 * biggest:.1f} points).{unit_note}</p>"
            f"<div class='lab-grid-box'><table class='lab-table lab-diff-table'><tr>"
            f"<th style='text-align:left'>hand</th><th style='text-align:left'>main move "
            f"(in {html.escape(a_name)})</th><th>{html.escape(a_name)}</th>"
            f"<th>{html.escape(b_name)}</th><th>difference (points of %)</th>"
            f"<th>value, {html.escape(a_name)}</th><th>value, {html.escape(b_name)}</th>"
            f"<th>difference</th></tr>{''.join(rows)}</table></div>")
