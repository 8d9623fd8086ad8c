"""The review dashboard (``notebooks/review.ipynb``): a played match graded decision by
decision.

Pick a match record file (the bundled example, a match ``lab play`` saved in the history
folder, or one uploaded from the browser) and one of its two players: every decision he
took is graded by :mod:`lab.match_review` (the advice service asked again from his seat,
with what he knew then), and the page shows

* a summary line: the decisions graded, the loss per hand against the solver, the
  blunders and mistakes, the decisions skipped and why;
* the timeline: one chip and one table row per hand (score, vira, result, decisions, the
  loss in that hand), coloured by the hand's worst mark; a chip shows the hand's
  decisions: the position in words, the solver's mix and each move's value, the move
  taken, its loss and mark;
* two charts: the loss by kind of decision (each unit on its own axis) and the player's
  profile (:mod:`lab.player_profile`) beside the solver's: how often he took each move per
  kind of decision and hand strength, with its 95% interval, beside the solver's mean.

The grading runs off the kernel's main thread (:mod:`lab.dashboards.background`), hand by
hand behind a progress bar, in a child process: the walks of the solved game map and
touch hundreds of MB, which go back to the system when the child ends, so the page's
kernel stays small (about 190 MB, as the other dashboards').
Bad input (a malformed file, an unknown player, other rules) is one line on the page.

Dashboards never import the solver: everything goes through :mod:`lab.match_review` and
:mod:`lab.player_profile`. The history folder is given by the notebook
(``lab.commands.play.history_dir``: the commands sit above the dashboards).
"""

from __future__ import annotations

import html
import time
from pathlib import Path

import ipywidgets as W
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .. import charts
from ..advice import MATCH_WIN, POINTS
from ..advice_text import SEAT_WORDS, move_names, situation
from ..cards import Card
from ..errors import InputError
from ..match_record import read_records, records_from_lines, replay_record
from ..match_review import (KIND_WORDS, KINDS, THRESHOLDS, Review, choose_player, costliest,
                            move_words, players_of, review, summary, units_of)
from ..player_profile import WORDS, profile_frame, profile_of
from ..rules import SEAT_NAMES
from ..widgets import (TABLE_STYLE, WRAP, Dashboard, TableMissing, _image, card_label,
                       missing_html, replace_children)
from .background import Background, in_child

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = ROOT / "examples" / "sample_match.jsonl"
"""The bundled example: 11 hands of ``cautious`` against ``aggressive``, vira 4, normal
scores (the page opens on it)."""

EXAMPLE_LABEL = "the example: cautious against aggressive"

MAX_UPLOAD = 5 * 2**20
"""The largest file the upload takes (bytes): about 20,000 hands."""

MARK_COLORS = {"blunder": "#f2a7a7", "mistake": "#f8d48a", "": "#cfe8c9", None: "#e4e4e4"}
"""Background of a hand's chip and row by its worst mark (None: no decision graded)."""

MARK_RANK = {"": 0, "mistake": 1, "blunder": 2}

UNIT_SHORT = {POINTS: "points per hand", MATCH_WIN: "match-win probability"}


# ---------------------------------------------------------------- files


def history_files(history) -> list[Path]:
    """The match files (``*.jsonl``) of the history folder, newest first: ``history`` a
    folder or a function giving it (``lab.commands.play.history_dir``); none when it is
    None, missing or unreadable."""
    if history is None:
        return []
    try:
        folder = Path(history() if callable(history) else history)
        found = [(p.stat().st_mtime, p.name, p) for p in folder.glob("*.jsonl") if p.is_file()]
    except OSError:
        return []
    return [p for _, _, p in sorted(found, reverse=True)]


def upload_records(name: str, content) -> list:
    """The hands of an uploaded file (``content``: its bytes), read and checked as
    ``lab.match_record`` reads a file; InputError, one line naming the file (and the line),
    when it is not a match record file."""
    name = str(name or "the upload")
    if not name.lower().endswith(".jsonl"):
        raise InputError(f"{name}: not a match record file (a .jsonl file, as `lab play` "
                         "saves them)")
    data = bytes(content)
    if len(data) > MAX_UPLOAD:
        raise InputError(f"{name}: {len(data) / 2**20:.1f} MB is more than the "
                         f"{MAX_UPLOAD // 2**20} MB the page takes; review it with `lab review`")
    records = records_from_lines(data.split(b"\n"), name)
    if not records:
        raise InputError(f"{name}: no hands in the file")
    return records


def default_player(records) -> str:
    """The player the page shows first: the one a review picks by itself (a match against
    a hidden opponent), else the first named in the file."""
    try:
        return choose_player(records, None)
    except InputError:
        return players_of(records)[0]


# ---------------------------------------------------------------- grading


def profile_or_missing(result: Review):
    """``(profile frame, None)``, or ``(None, TableMissing)`` when the hand-strength
    buckets cannot be had (the ``cardplay`` table missing or stale)."""
    try:
        return profile_frame(profile_of(result)), None
    except (ValueError, KeyError, OSError) as exc:   # the tables' own error is a ValueError
        return None, TableMissing("cardplay", str(exc) or type(exc).__name__)


def graded(records, player, name, step=None):
    """``(review, profile frame, missing)``: ``player``'s decisions in ``records`` graded
    (:func:`lab.match_review.review`, ``step(done, total)`` after each hand) and his
    profile (:func:`profile_or_missing`)."""
    result = review(records, player, False, step, name)
    return (result, *profile_or_missing(result))


def graded_players(records, players, name, step=None) -> dict:
    """``{player: graded(...)}`` for each of ``players``: the first's progress through
    ``step`` and its errors raised; a later one that cannot be graded is left out."""
    out = {players[0]: graded(records, players[0], name, step)}
    for player in players[1:]:
        try:
            out[player] = graded(records, player, name)
        except InputError:
            continue
    return out


# ---------------------------------------------------------------- numbers in words


def loss_number(x: float, unit: str) -> str:
    """A loss as the page writes it: points with two decimals, a match-win probability
    with three (as ``lab review``'s words)."""
    return f"{x:.2f}" if unit == POINTS else f"{x:.3f}"


def value_number(x: float, unit: str) -> str:
    return f"{x:+.2f}" if unit == POINTS else f"{x:.3f}"


def _card(card) -> str:
    return card_label(card) if isinstance(card, Card) else str(card)


def _cards(cards) -> str:
    return " ".join(_card(c) for c in cards)


def hand_result(record, seat: int) -> tuple[int, str]:
    """``(points to the player, in words)`` of the hand: ``won 3``, ``lost 1``, ``no
    points``."""
    result = record.result
    if result is None:
        state = replay_record(record)
        result = (state.winner, state.points)
    winner, points = result
    if winner is None or not points:
        return 0, "no points"
    return (points, f"won {points}") if winner == seat else (-points, f"lost {points}")


def worst_mark(decisions):
    """The worst mark of ``decisions`` (``blunder``, ``mistake`` or ``""``); None when
    there is none."""
    if not decisions:
        return None
    return max((d.mark for d in decisions), key=MARK_RANK.__getitem__)


# ---------------------------------------------------------------- the timeline


def timeline_rows(result: Review, records) -> pd.DataFrame:
    """One row per hand the player sat in, in file order: ``hand`` (its place in the file),
    ``match``, ``hand_in_match``, ``seat`` (mão or pé), ``score_mao``, ``score_pe`` (before
    it), ``vira``, ``points`` (to the player: + won, - lost), ``result`` (in words),
    ``decisions`` (graded), ``skipped``, ``loss`` (the sum of his decisions' losses in the
    hand, in ``unit``: the unit of its decisions; "" when none is graded) and ``worst``
    (the worst mark; None without decisions)."""
    by_hand: dict = {}
    for d in result.decisions:
        by_hand.setdefault(d.hand, []).append(d)
    skipped: dict = {}
    for s in result.skipped:
        skipped[s.hand] = skipped.get(s.hand, 0) + 1
    rows = []
    for number, record in enumerate(records, 1):
        if result.player not in record.players:
            continue
        seat = record.players.index(result.player)
        mine = by_hand.get(number, [])
        units = units_of(mine)
        points, words = hand_result(record, seat)
        rows.append({"hand": number, "match": record.match, "hand_in_match": record.hand,
                     "seat": SEAT_WORDS[SEAT_NAMES[seat]], "score_mao": record.score[0],
                     "score_pe": record.score[1], "vira": str(record.vira), "points": points,
                     "result": words, "decisions": len(mine), "skipped": skipped.get(number, 0),
                     "loss": float(sum(d.loss for d in mine)),
                     "unit": " and ".join(units), "worst": worst_mark(mine)})
    columns = ["hand", "match", "hand_in_match", "seat", "score_mao", "score_pe", "vira",
               "points", "result", "decisions", "skipped", "loss", "unit", "worst"]
    frame = pd.DataFrame(rows, columns=columns)
    frame.attrs["units"] = {"points": "points (match points of the hand)",
                            "loss": "the row's unit column"}
    return frame


NOWRAP = ("<style>.lab-timeline th,.lab-timeline td,.lab-moves th,.lab-moves td"
          "{white-space:nowrap;line-height:1.4}</style>")
"""Table cells on one line: a table wider than the screen scrolls inside its box."""


def timeline_html(rows: pd.DataFrame, chosen: int | None = None) -> str:
    """The timeline as a table (scrolling inside its box on a narrow screen), each row
    coloured by the hand's worst mark, the chosen hand in bold."""
    several = rows["match"].nunique() > 1
    units = sorted({u for u in rows["unit"] if u})
    one = units[0] if len(units) == 1 else None
    head = ["hand"] + (["match"] if several else []) + \
        ["score (mão–pé)", "seat", "vira", "result", "decisions",
         f"loss ({one})" if one else "loss", "worst"]
    out = []
    for r in rows.itertuples(index=False):
        style = f"background:{MARK_COLORS[r.worst]}"
        if r.hand == chosen:
            style += ";font-weight:bold"
        loss = "—" if not r.decisions else loss_number(r.loss, r.unit) + (
            "" if one else f" <small>{html.escape(r.unit)}</small>")
        skipped = f" <small>(+{r.skipped} skipped)</small>" if r.skipped else ""
        cells = [str(r.hand)] + ([f"{html.escape(r.match)} #{r.hand_in_match}"] if several
                                 else []) + \
            [f"{r.score_mao}–{r.score_pe}", r.seat, _card(_parse(r.vira)), r.result,
             f"{r.decisions}{skipped}", loss, r.worst or ("—" if r.worst is None else "ok")]
        out.append(f"<tr class='lab-timeline-row' data-hand='{r.hand}' style='{style}'>"
                   + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return (TABLE_STYLE + NOWRAP
            + "<div class='lab-scroll' style='overflow-x:auto;max-width:100%'>"
            f"<table class='lab-table lab-timeline'><tr>{header}</tr>{''.join(out)}</table>"
            "</div>")


def _parse(text: str):
    from ..cards import parse_card

    try:
        return parse_card(text)
    except Exception:   # a card as the record wrote it is always a card; never fail here
        return text


# ---------------------------------------------------------------- one hand's decisions


def decision_rows(result: Review, hand: int) -> list[dict]:
    """The graded decisions of ``hand`` (its place in the file), in the order they were
    taken: ``kind`` and ``kind_words``, ``position`` (what the player knew, in words),
    ``action`` (the token taken) and ``did`` (in words), ``moves`` (per legal move:
    ``token``, ``name``, ``solver`` (probability), ``ev`` (value in ``unit``), ``taken``),
    ``mix`` and ``taken_value``, ``loss``, ``unit``, ``mark``, ``on_path``, ``model``."""
    out = []
    for d in result.decisions:
        if d.hand != hand:
            continue
        advice = d.advice
        tokens = [str(a) for a in advice.legal]
        names = move_names(tokens, d.position)
        moves = [{"token": t, "name": names[t], "solver": float(p), "ev": float(v),
                  "taken": t == d.token}
                 for t, p, v in zip(tokens, advice.strategy, advice.ev)]
        out.append({"kind": d.kind, "kind_words": KIND_WORDS[d.kind],
                    "position": situation(d.position), "action": d.token,
                    "did": move_words(d), "moves": moves, "mix": d.mix, "taken_value": d.taken,
                    "loss": d.loss, "unit": d.unit, "mark": d.mark, "on_path": advice.on_path,
                    "model": advice.model})
    return out


def skipped_of(result: Review, hand: int) -> list:
    return [s for s in result.skipped if s.hand == hand]


def decisions_html(result: Review, records, hand: int) -> str:
    """The decisions of ``hand``: for each, the position in words, a table of the moves
    (the solver's probability, each move's value, the move taken) and the loss with its
    mark; then the decisions skipped there, with why."""
    record = records[hand - 1]
    seat = record.players.index(result.player)
    _, words = hand_result(record, seat)
    title = (f"Hand {hand}: match {html.escape(repr(record.match))}, hand {record.hand}; "
             f"{html.escape(result.player)} is {SEAT_WORDS[SEAT_NAMES[seat]]} at "
             f"{record.score[0]}–{record.score[1]}, vira {_card(record.vira)}, dealt "
             f"{_cards(record.cards[seat])}; {words}")
    parts = [f"<h4 class='lab-hand-title' style='margin:8px 0 4px'>{title}</h4>"]
    rows = decision_rows(result, hand)
    if not rows:
        parts.append("<p><i>No decision of his was graded in this hand.</i></p>")
    for k, row in enumerate(rows, 1):
        unit = row["unit"]
        lines = []
        for m in sorted(row["moves"], key=lambda m: -m["solver"]):
            mark = " <b>← taken</b>" if m["taken"] else ""
            lines.append(f"<tr{' class=lab-taken' if m['taken'] else ''}>"
                         f"<th style='text-align:left'>{html.escape(m['name'])}{mark}</th>"
                         f"<td>{charts.percent(m['solver'])}</td>"
                         f"<td>{value_number(m['ev'], unit)}</td></tr>")
        path = "" if row["on_path"] else (
            "<p style='margin:2px 0'><small>Off the solved path (his own earlier moves are "
            "ones the solver never makes with this hand): the solver's column is its best "
            "move there.</small></p>")
        mark = row["mark"]
        badge = (f" <span class='lab-mark' style='background:{MARK_COLORS[mark]};"
                 f"padding:0 4px'>{mark}</span>") if mark else ""
        parts.append(
            f"<div class='lab-decision' data-kind='{row['kind']}' style='margin:6px 0 10px;"
            "padding:4px 8px;border-left:4px solid "
            f"{MARK_COLORS[mark] if mark else '#cccccc'}'>"
            f"<div class='lab-decision-head'><b>{k}. {html.escape(row['kind_words'])}</b>: "
            f"{html.escape(row['position'])}</div>"
            "<div class='lab-scroll' style='overflow-x:auto;max-width:100%'>"
            "<table class='lab-table lab-moves'><tr><th style='text-align:left'>move</th>"
            f"<th>solver</th><th>value ({html.escape(UNIT_SHORT.get(unit, unit))})</th></tr>"
            f"{''.join(lines)}</table></div>{path}"
            f"<div class='lab-decision-loss'>{html.escape(row['did'])}: loss "
            f"<span class='lab-loss'>{loss_number(row['loss'], unit)}</span> "
            f"{html.escape(UNIT_SHORT.get(unit, unit))}{badge} <small>(the solver's mix is "
            f"worth {value_number(row['mix'], unit)}, the move taken "
            f"{value_number(row['taken_value'], unit)})</small></div></div>")
    reasons: dict = {}
    for s in skipped_of(result, hand):
        reasons.setdefault(s.reason, []).append(s.token)
    for reason, tokens in reasons.items():
        parts.append(f"<p class='lab-skipped' style='margin:2px 0'><small>Not graded "
                     f"({len(tokens)}): {html.escape(', '.join(tokens))}: "
                     f"{html.escape(reason)}</small></p>")
    return TABLE_STYLE + NOWRAP + "".join(parts)


# ---------------------------------------------------------------- the summary


def loss_words(x: float, unit: str, per_hand: bool = False) -> str:
    """``0.12 points per hand``, ``1.23 points``, ``0.012 match-win probability (per
    hand)``."""
    if unit == POINTS:
        return f"{loss_number(x, unit)} points{' per hand' if per_hand else ''}"
    return f"{loss_number(x, unit)} {unit}{' per hand' if per_hand else ''}"


def _loss_words(loss, units, per_hand: bool = False) -> str:
    if isinstance(loss, dict):
        return " and ".join(loss_words(v, u, per_hand) for u, v in loss.items())
    return loss_words(loss, units[0], per_hand) if units else "nothing"


def skipped_words(result: Review) -> list[str]:
    """The decisions not graded, grouped by reason: ``hand 2 (Js), hand 5 (4d): why``."""
    groups: dict = {}
    for s in result.skipped:
        groups.setdefault(s.reason, []).append(f"hand {s.hand} ({s.token})")
    return [f"{', '.join(where)}: {reason}" for reason, where in groups.items()]


def summary_html(result: Review, source: str) -> str:
    """The line on top: hands, decisions graded, loss per hand and in all (each unit
    apart), marks, and the decisions skipped with their reasons."""
    s = summary(result)
    units = units_of(result.decisions)
    text = (f"<b>{html.escape(result.player)}</b> in {html.escape(source)}: "
            f"{result.hands} hand{'s' * (result.hands != 1)}, "
            f"<b>{s['decisions']}</b> decision{'s' * (s['decisions'] != 1)} graded")
    if result.decisions:
        text += (f"; lost <b>{_loss_words(s['loss_per_hand'], units, True)}</b> against "
                 f"the solver ({_loss_words(s['loss_total'], units)} in all); "
                 f"<b>{s['marks']['blunder']}</b> blunder{'s' * (s['marks']['blunder'] != 1)}, "
                 f"<b>{s['marks']['mistake']}</b> mistake"
                 f"{'s' * (s['marks']['mistake'] != 1)}")
    text += f"; {len(result.skipped)} skipped" if result.skipped else "; none skipped"
    text += "."
    why = ""
    if result.skipped:
        items = "".join(f"<li>{html.escape(w)}</li>" for w in skipped_words(result))
        why = (f"<details class='lab-skipped-reasons'><summary><small>why "
               f"{'they were' if len(result.skipped) > 1 else 'it was'} skipped</small>"
               f"</summary><ul style='margin:2px 0'><small>{items}</small></ul></details>")
    marks = "; ".join(f"{UNIT_SHORT[u]}: mistake from {THRESHOLDS[u][0]}, blunder from "
                      f"{THRESHOLDS[u][1]}" for u in units if u in THRESHOLDS)
    note = (f"<small style='color:#555'>Loss: the value of the solver's mix less the value "
            f"of the move taken, never below 0. Marks ({marks}).</small>") if marks else ""
    return (f"<div class='lab-review-summary' style='margin:6px 0'>{text}{why}"
            f"<div>{note}</div></div>")


def error_html(message: str) -> str:
    """One readable line in place of a traceback."""
    return (f"<div class='lab-review-error' style='color:#a00;padding:6px 0'><b>Cannot "
            f"review this:</b> {html.escape(message)}</div>")


# ---------------------------------------------------------------- charts


def loss_by_kind(result: Review) -> pd.DataFrame:
    """One row per unit x kind with decisions: ``unit``, ``kind``, ``decisions``, ``loss``
    (their sum, in ``unit``)."""
    rows = []
    for unit in units_of(result.decisions):
        for kind in KINDS:
            mine = [d for d in result.decisions if d.unit == unit and d.kind == kind]
            if mine:
                rows.append({"unit": unit, "kind": kind, "decisions": len(mine),
                             "loss": float(sum(d.loss for d in mine))})
    return pd.DataFrame(rows, columns=["unit", "kind", "decisions", "loss"])


def loss_by_kind_figure(result: Review) -> Figure | None:
    """Horizontal bars of the loss per kind of decision, one panel per unit (a point and
    a match-win probability do not add); each bar labelled with its loss and decisions.
    None with no graded decision."""
    table = loss_by_kind(result)
    if table.empty:
        return None
    units = list(dict.fromkeys(table["unit"]))
    heights = [0.5 + 0.32 * (table["unit"] == u).sum() for u in units]
    fig = Figure(figsize=(7.5, 0.7 + sum(heights)), layout="constrained")
    axes = fig.subplots(len(units), 1, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, unit in zip(axes, units):
        rows = table[table["unit"] == unit].iloc[::-1]
        y = np.arange(len(rows))
        ax.barh(y, rows["loss"], color="#d6604d", height=0.6)
        top = float(rows["loss"].max()) or 1.0
        for yi, loss, n in zip(y, rows["loss"], rows["decisions"]):
            ax.text(loss + top * 0.01, yi, f"{loss_number(loss, unit)} ({n} decision"
                    f"{'s' * (n != 1)})", va="center", fontsize=8)
        ax.set_yticks(y, [KIND_WORDS[k] for k in rows["kind"]], fontsize=9)
        ax.set_xlim(0, top * 1.45)
        ax.set_xlabel(f"loss against the solver, summed ({unit})")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_title(f"{result.player}: loss by kind of decision", fontsize=11)
    return fig


def profile_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a profile frame worth a line in the chart: cells with data, moves he
    took or the solver plays (1% or more)."""
    if frame is None or frame.empty:
        return frame
    solver = frame["solver"].fillna(0.0)
    keep = (frame["decisions"] > 0) & ((frame["count"] > 0) | (solver >= 0.01))
    return frame[keep].reset_index(drop=True)


def profile_figure(frame: pd.DataFrame, player: str) -> Figure | None:
    """Per kind x hand-strength bucket x move (:func:`profile_rows`): the player's
    frequency with its 95% Wilson interval beside the solver's mean probability at the
    same decisions. None without rows."""
    rows = profile_rows(frame)
    if rows is None or rows.empty:
        return None
    labels = [f"{WORDS[(r.spot, r.move)]}, {r.bucket} hands (n={r.decisions})"
              for r in rows.itertuples(index=False)]
    n = len(rows)
    fig = Figure(figsize=(7.5, 1.3 + 0.26 * n), layout="constrained")
    ax = fig.subplots()
    y = np.arange(n)[::-1]
    freq = rows["frequency"].to_numpy(dtype=float) * 100
    lo = rows["ci_lo"].to_numpy(dtype=float) * 100
    hi = rows["ci_hi"].to_numpy(dtype=float) * 100
    ax.errorbar(freq, y, xerr=[np.maximum(freq - lo, 0), np.maximum(hi - freq, 0)], fmt="o",
                color="#2166ac", ms=5, capsize=3, lw=1.2, label=f"{player} (95% interval)")
    solver = rows["solver"].to_numpy(dtype=float) * 100
    shown = np.isfinite(solver)
    ax.plot(solver[shown], y[shown], "D", color="#d6604d", mfc="none", mew=1.5, ms=8,
            label="the solver's mean")
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(-2, 102)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("% of the decisions (probability)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8,
              frameon=False)
    ax.set_title(f"{player} against the solver", fontsize=11, pad=22)
    return fig


def verdicts_html(frame: pd.DataFrame) -> str:
    if frame is None or frame.empty:
        return ""
    verdicts = [r.verdict for r in frame.itertuples(index=False) if r.verdict]
    if not verdicts:
        return ("<p class='lab-verdicts'><small>No move differs from the solver's beyond its "
                "95% interval (a short match says little: the intervals are wide).</small></p>")
    items = "".join(f"<li>{html.escape(v)}</li>" for v in verdicts)
    return (f"<div class='lab-verdicts'><small>Where the 95% interval excludes the solver's "
            f"mean:</small><ul style='margin:2px 0'>{items}</ul></div>")


# ---------------------------------------------------------------- the dashboard


CHIP_STYLE = ("<style>.lab-chip-chosen{outline:2px solid #222;font-weight:bold}"
              ".lab-chips .widget-button{margin:2px}</style>")


class ReviewDashboard(Dashboard):
    """Pick a match file (the example, the history folder, an upload) and a player; see
    his decisions graded hand by hand (module docstring). ``history``: the history folder
    or a function giving it; ``source``/``player``: a file (path) and player to open on
    instead of the example."""

    def __init__(self, history=None, source=None, player=None,
                 background: Background | None = None):
        super().__init__()
        self.add_class("lab-review")
        self.history = history
        self.background = background or Background()
        self._records: dict = {}      # file key: (records, name shown)
        self._reviews: dict = {}      # (file key, player): (Review, profile frame, missing)
        self._uploads = 0
        self._ticket = 0
        self._quiet = False
        self.result = None
        self.records = None
        self.rows = None
        self.chosen = None
        self.review_seconds = float("nan")
        """Wall time of the last grading, seconds (progress and profile included)."""
        wide = W.Layout(width="100%", max_width="560px")
        self.file = W.Dropdown(options=self.file_options(), description="match file",
                               layout=wide, style={"description_width": "initial"})
        self.upload = W.FileUpload(accept=".jsonl", multiple=False, description="upload .jsonl",
                                   layout=W.Layout(width="auto"))
        self.player = W.Dropdown(options=[], description="player",
                                 layout=W.Layout(width="100%", max_width="300px"))
        self.message = W.HTML()
        self.progress = W.IntProgress(value=0, min=0, max=1,
                                      layout=W.Layout(width="100%", max_width="300px"))
        self.progress_text = W.HTML()
        self.progress_box = W.VBox([self.progress_text, self.progress],
                                   layout=W.Layout(display="none"))
        self.progress_box.add_class("lab-review-progress")
        self.summary = W.HTML()
        self.chips = W.HBox(layout=WRAP)
        self.chips.add_class("lab-chips")
        self.timeline = W.HTML()
        self.decisions = W.HTML()
        self.kind_image, self.profile_image = _image(), _image()
        for image in (self.kind_image, self.profile_image):
            image.layout.display = "none"
        self.profile_note = W.HTML()
        self.results = W.VBox([
            self.summary,
            W.HTML("<h4 style='margin:10px 0 2px'>The hands</h4><small>One chip per hand, "
                   "coloured by its worst decision (red: a blunder, amber: a mistake, green: "
                   "none, grey: nothing graded); pick one to see its decisions.</small>"
                   + CHIP_STYLE),
            self.chips, self.timeline, self.decisions,
            W.HTML("<h4 style='margin:10px 0 2px'>Where the loss comes from</h4>"),
            self.kind_image,
            W.HTML("<h4 style='margin:10px 0 2px'>His play against the solver's</h4><small>"
                   "Per kind of decision and hand strength (his hand as dealt, ranked by its "
                   "card-play equity among all deals: the weakest third, the middle, the "
                   "strongest): how often he took each move, with its 95% interval, and how "
                   "often the solver does at the same decisions.</small>"),
            self.profile_image, self.profile_note,
        ])
        self.children = [
            W.HBox([self.file, self.upload], layout=WRAP),
            W.HBox([self.player], layout=WRAP),
            self.message, self.progress_box, self.results,
        ]
        self.file.observe(lambda change: self.open_file(change["new"]), names="value")
        self.player.observe(self._player_changed, names="value")
        self.upload.observe(self._uploaded, names="value")
        if source is not None:
            key = str(source)
            try:
                self._records[key] = (read_records(key), key)
            except InputError as exc:
                self.show_error(str(exc))
                return
            with self._silence():
                self.file.options = [(f"{Path(key).name}", key), *self.file.options]
                self.file.value = key
            self.open_file(key, player)
        else:
            self.open_file(self.file.value)

    # ------------------------------------------------------------ files and players

    def file_options(self) -> list[tuple[str, str]]:
        options = [(EXAMPLE_LABEL, str(EXAMPLE))]
        options += [(f"history: {p.name}", str(p)) for p in history_files(self.history)]
        return options

    def _silence(self):
        dashboard = self

        class Quiet:
            def __enter__(self):
                dashboard._quiet = True

            def __exit__(self, *exc):
                dashboard._quiet = False

        return Quiet()

    def records_of(self, key: str):
        if key not in self._records:
            self._records[key] = (read_records(key), Path(key).name if key != str(EXAMPLE)
                                  else "the example")
        return self._records[key]

    def open_file(self, key, player=None) -> None:
        """Read the file ``key`` (its players in the picker) and review ``player`` (by
        default the first one)."""
        if self._quiet or key is None:
            return
        try:
            records, _ = self.records_of(key)
        except InputError as exc:
            self.show_error(str(exc))
            return
        names = players_of(records)
        chosen = player if player is not None else default_player(records)
        with self._silence():
            self.player.options = names
            if chosen in names:
                self.player.value = chosen
        self.review(key, chosen)

    def _player_changed(self, change) -> None:
        if self._quiet or change["new"] is None:
            return
        self.review(self.file.value, change["new"])

    def _uploaded(self, change) -> None:
        files = change["new"]
        if self._quiet or not files:
            return
        item = files[-1]
        name = item.get("name", "upload") if isinstance(item, dict) else \
            getattr(item, "name", "upload")
        content = item.get("content", b"") if isinstance(item, dict) else \
            getattr(item, "content", b"")
        self.add_upload(name, content)

    def add_upload(self, name: str, content) -> bool:
        """Read an uploaded file and review it (True), or show why it cannot be read."""
        try:
            records = upload_records(name, content)
        except InputError as exc:   # the file shown so far stays, under the error
            self.show_error(str(exc), keep=self.result is not None)
            return False
        self._uploads += 1
        key = f"upload:{self._uploads}:{name}"
        self._records[key] = (records, f"the upload {name}")
        with self._silence():
            self.file.options = [*self.file.options, (f"uploaded: {name}", key)]
            self.file.value = key
        self.open_file(key)
        return True

    # ------------------------------------------------------------ grading

    def review(self, key, player) -> None:
        """Grade ``player``'s decisions in file ``key`` off the main thread (once: kept),
        with a progress bar, then show them."""
        try:
            records, name = self.records_of(key)
        except InputError as exc:
            self.show_error(str(exc))
            return
        self._ticket += 1
        ticket = self._ticket
        if (key, player) in self._reviews:
            self.show(records, name, *self._reviews[(key, player)])
            return
        self.message.value = ""
        self.results.layout.display = "none"
        self.progress.value, self.progress.max = 0, max(1, sum(player in r.players
                                                               for r in records))
        self.progress_text.value = (f"<small>Grading {html.escape(str(player))}'s decisions "
                                    f"in {html.escape(name)}… (the first review of a vira walks "
                                    "its solved game: seconds)</small>")
        self.progress_box.layout.display = ""
        start = time.perf_counter()

        def step(done, total):
            if self.background.threaded:
                self.background.loop.call_soon_threadsafe(self._step, ticket, done, total)
            else:
                self._step(ticket, done, total)

        def work():
            if not self.background.threaded:
                return {player: graded(records, player, name, step)}
            # in a kernel: the walks' memory goes with the child; the file's other players
            # are graded while it is there, so picking one of them is instant
            others = [p for p in players_of(records)
                      if p != player and (key, p) not in self._reviews]
            return in_child(graded_players, records, [player, *others], name, step=step)

        def done(outcomes):
            for who, outcome in outcomes.items():
                self._reviews[(key, who)] = outcome
            outcome = outcomes[player]
            self.review_seconds = time.perf_counter() - start
            if ticket == self._ticket:
                try:
                    self.show(records, name, *outcome)
                except Exception as exc:   # one line on the page, never a traceback
                    failed(exc)

        def failed(exc):
            if ticket == self._ticket:
                text = str(exc) if isinstance(exc, InputError) else \
                    f"internal error: {type(exc).__name__}: {exc}"
                self.show_error(text)

        self.background.submit("load", work, done, failed)

    def _step(self, ticket, done, total) -> None:
        if ticket != self._ticket:
            return
        self.progress.max, self.progress.value = total, done
        self.progress_text.value = (f"<small>Graded hand {done} of {total}…</small>")

    def show_error(self, text: str, keep: bool = False) -> None:
        """``text`` as one line on the page; the results shown so far are hidden, unless
        ``keep`` (they still answer the pickers)."""
        self.progress_box.layout.display = "none"
        self.message.value = error_html(text)
        if not keep:
            self.results.layout.display = "none"

    # ------------------------------------------------------------ showing

    def show(self, records, name, result: Review, profile, missing) -> None:
        """Draw a review: summary, chips, the timeline, the worst hand's decisions, the
        charts."""
        start = time.perf_counter()
        self.progress_box.layout.display = "none"
        self.message.value = ""
        self.records, self.result = records, result
        self.rows = timeline_rows(result, records)
        self.summary.value = summary_html(result, name)
        chips = []
        for r in self.rows.itertuples(index=False):
            chip = W.Button(description=f"hand {r.hand}",
                            tooltip=(f"{r.score_mao}–{r.score_pe}, vira {r.vira}, {r.result}; "
                                     f"{r.decisions} decisions" + (
                                         f", loss {loss_number(r.loss, r.unit)} {r.unit}"
                                         if r.decisions else "")),
                            layout=W.Layout(width="auto"))
            chip.style.button_color = MARK_COLORS[r.worst]
            chip.on_click(lambda _, hand=r.hand: self.choose(hand))
            chips.append(chip)
        replace_children(self.chips, chips)
        worst = costliest(result.decisions, 1)
        first = worst[0].hand if worst else (int(self.rows["hand"].iloc[0])
                                             if len(self.rows) else None)
        self.choose(first)
        key = ("kind", id(result))
        figure = loss_by_kind_figure(result)
        if figure is None:
            self.kind_image.layout.display = "none"
        else:
            self.draw(self.kind_image, key, lambda: figure)
            self.kind_image.layout.display = ""
        if missing is not None:
            self.profile_image.layout.display = "none"
            self.profile_note.value = missing_html(missing)
        else:
            figure = profile_figure(profile, result.player)
            if figure is None:
                self.profile_image.layout.display = "none"
                self.profile_note.value = "<p><i>No decision to profile.</i></p>"
            else:
                self.draw(self.profile_image, ("profile", id(result)), lambda: figure)
                self.profile_image.layout.display = ""
                self.profile_note.value = verdicts_html(profile)
        self.results.layout.display = ""
        self.redraw_seconds = time.perf_counter() - start

    def choose(self, hand) -> None:
        """Show the decisions of ``hand`` (its place in the file)."""
        self.chosen = hand
        for chip in self.chips.children:
            if chip.description == f"hand {hand}":
                chip.add_class("lab-chip-chosen")
            else:
                chip.remove_class("lab-chip-chosen")
        self.timeline.value = timeline_html(self.rows, hand)
        self.decisions.value = "" if hand is None else \
            decisions_html(self.result, self.records, hand)


def review_dashboard(history=None, source=None, player=None) -> ReviewDashboard:
    """The review dashboard; ``history``: the history folder (or a function giving it),
    ``source`` and ``player``: a match file and player to open on instead of the example."""
    return ReviewDashboard(history, source, player)


__all__ = ["ReviewDashboard", "review_dashboard", "grade", "timeline_rows", "decision_rows",
           "decisions_html", "summary_html", "loss_by_kind", "loss_by_kind_figure",
           "profile_figure", "history_files", "upload_records", "EXAMPLE"]
