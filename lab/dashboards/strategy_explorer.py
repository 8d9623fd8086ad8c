"""The strategy-explorer dashboard (``notebooks/strategy_explorer.ipynb``).

Walk a hand's public moves on the stored full-game policy of a vira, one move at a time
(or jump to a preset situation: the mão opens, the pé answers a truco, round 2 after
winning round 1, facing a seis, round 3 ...), and see how every hand of the player to act
plays there, by hand strength (:func:`lab.dashboards.spots.class_strategy`): every kind
of decision of the game, rounds 1-3, leading and answering a card, facing truco, seis,
nove or doze, covering. Below, how the bots rank against the solved strategy
(:mod:`lab.dashboards.ranking`).
"""

from __future__ import annotations

import html
import time
from typing import Optional

import ipywidgets as W

from .. import charts
from ..policy.full import FullPolicy
from ..policy.base import PolicyError
from ..widgets import TABLE_STYLE, WRAP, Dashboard, _image, replace_children, show_png
from . import spots
from .background import Background
from .hand_play import LOADING, policy_missing_html
from .ranking import BotRanking

OWN_WALK = -1
"""The situation dropdown's value while the user walks his own way."""


def chance_text(p: float) -> str:
    """How often a spot comes up, for people: ``12% of hands``, ``1 hand in 2,300``."""
    if p <= 0:
        return "never (it is off the solved strategy's path)"
    if p >= 0.01:
        return f"in {charts.percent(p)} of hands"
    return f"in 1 hand in {1 / p:,.0f}"


def facts_html(info: dict) -> str:
    """What the stored policy of a vira is (its manifest entry), in words."""
    return (f"<p><small>The stored strategy of vira {html.escape(str(info.get('vira')))}: "
            f"{int(info.get('iterations', 0)):,} solver iterations; exploitability "
            f"{float(info.get('exploitability', float('nan'))):.3g} points per hand (what a "
            f"perfect opponent would win per hand against it, both seats averaged); the "
            f"mão's expected points {float(info.get('value_mao', float('nan'))):+.3f} per "
            f"hand. Moves played less than {100 * float(info.get('threshold', 0.01)):g}% of "
            "the time were dropped when it was stored.</small></p>")


def moves_html(policy: FullPolicy, line, mix: dict, name_level=None) -> str:
    """The public moves at ``line``'s spot and how often the player to act makes each."""
    spot = line.spot
    rows = "".join(
        f"<tr><td style='text-align:left'>"
        f"{html.escape(spots.action_words(policy, spot, a, name_level))}"
        f"</td><td>{charts.percent(mix.get(a, 0.0)) if mix else '—'}</td></tr>"
        for a in spots.public_actions(policy.decision(spot)))
    seat = spots.SEAT_WORDS[policy.actor(spot)]
    return (f"<table class='lab-table lab-moves'><tr><th style='text-align:left'>the {seat} "
            f"…</th><th>how often</th></tr>{rows}</table>")


def percent_table(frame, columns: dict, classes: str) -> str:
    """``frame``'s ``columns`` ({column: heading}) as an HTML table, probabilities as
    percentages for people."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in columns.values())
    body = []
    for _, row in frame.iterrows():
        cells = []
        for c in columns:
            v = row[c]
            cells.append(f"<td style='text-align:left'>{html.escape(str(v))}</td>"
                         if isinstance(v, str) else f"<td>{charts.percent(float(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table class='lab-table {classes}'><tr>{head}</tr>{''.join(body)}</table>"


class StrategyExplorer(Dashboard):
    """Pick a vira and walk the public moves (or pick a situation); the chart shows how
    every hand of the player to act plays there. The walk's part of the page is replaced
    at once on every change."""

    def __init__(self, background: Optional[Background] = None):
        super().__init__()
        from ..tables.policies import rebuild_command, stored_viras

        self.background = background or Background()
        self.ranking = BotRanking()
        self.policy: Optional[FullPolicy] = None
        self.line = None
        self.names = None   # level -> card name for the vira shown
        viras = stored_viras()
        if not viras:
            self.missing = rebuild_command()
            text = ("no stored full-game policy yet; build one per vira with "
                    f"`{rebuild_command()}`")
            self.children = [W.HTML(policy_missing_html(ValueError(text), text)),
                             self.ranking]
            return
        self.missing = None
        self.vira = W.Dropdown(options=viras, value="4" if "4" in viras else viras[0],
                               description="vira", layout=W.Layout(width="140px"))
        self.preset = W.Dropdown(
            options=[("(your own walk)", OWN_WALK)] + [(name, k) for k, (name, _)
                                                       in enumerate(spots.PRESETS)],
            value=0, description="situation", layout=W.Layout(width="520px"))
        self.stage = W.VBox()
        self.facts = W.HTML()
        self._setting = False
        self.vira.observe(lambda change: self.load(), names="value")
        self.preset.observe(lambda change: self._setting or self.jump(), names="value")
        self.children = [W.HBox([self.vira, self.preset], layout=WRAP), self.stage,
                         self.facts, self.ranking]
        self.load(now=True)

    # ---------------------------------------------------------------- policy
    def load(self, now: bool = False) -> None:
        """Load the chosen vira's policy, then show the situation: ``now`` (the first
        draw, which a published page keeps), else in the background."""
        from ..tables.policies import load_full_policy, policy_info, rebuild_command

        v = self.vira.value
        self.policy = self.line = None   # one vira in memory at a time
        self._replace([W.HTML(LOADING.format(
            f"loading the solved strategy of vira {html.escape(v)}…"))])

        def loaded(policy):
            if v != self.vira.value:
                return
            self.policy = policy
            self.names = spots.level_namer(policy, v)   # the shown vira's card names
            self.facts.value = facts_html(policy_info(v))
            self.jump()

        def failed(exc):
            if v == self.vira.value:
                self._replace([W.HTML(policy_missing_html(exc, rebuild_command(v)))])

        def work():
            return load_full_policy(v)

        if now:
            Background(threaded=False).submit("load", work, loaded, failed)
        else:
            self.background.submit("load", work, loaded, failed)

    # ---------------------------------------------------------------- walking
    def jump(self) -> None:
        """Go to the chosen preset situation."""
        k = self.preset.value
        if k == OWN_WALK or self.policy is None:
            return
        note = ""
        try:
            self.line = spots.preset_line(self.policy, spots.PRESETS[k][1])
        except PolicyError as exc:
            self.line = self.policy.start()
            note = f"this situation does not come up under the solved strategy ({exc})"
        self.render(note)

    def walk(self, action) -> None:
        self.line = self.line.then(action)
        self._own_walk()
        self.render()

    def back(self) -> None:
        if self.line.actions:
            self.line = spots.walk(self.policy, self.line.actions[:-1])
            self._own_walk()
            self.render()

    def restart(self) -> None:
        self.line = self.policy.start()
        self._own_walk()
        self.render()

    def _own_walk(self) -> None:
        self._setting = True
        try:
            self.preset.value = OWN_WALK
        finally:
            self._setting = False

    # ---------------------------------------------------------------- drawing
    def render(self, note: str = "") -> None:
        """Replace the walk's part of the page: the moves so far and where the hand
        stands; then the chart of every hand's strategy beside how often each move is
        made, the move buttons, and the tables by best card and of every hand."""
        start = time.perf_counter()
        policy, line = self.policy, self.line
        header = W.HTML(TABLE_STYLE + self.header_html(note))
        nav = self.nav_buttons()
        if line.over:
            self._replace([header, nav])
            self.redraw_seconds = time.perf_counter() - start
            return
        mix = spots.aggregate_mix(policy, line)
        moves = W.HTML(TABLE_STYLE + moves_html(policy, line, mix, self.names))
        buttons = []
        for action in spots.public_actions(policy.decision(line.spot)):
            button = W.Button(description=spots.short_words(policy, line.spot, action,
                                                            self.names),
                              layout=W.Layout(width="auto"))
            button.on_click(lambda _, a=action: self.walk(a))
            buttons.append(button)
        row = W.HBox([W.Label("next move:"), *buttons],
                     layout=W.Layout(flex_flow="row wrap", align_items="center"))
        frame = spots.class_strategy(policy, line, self.names)
        if frame.empty:   # nobody gets here under the policy
            self._replace([header, moves, row, nav])
        else:
            image, tables = self.hands_views(frame)
            self._replace([header, W.HBox([image, moves], layout=WRAP), row, nav, *tables])
        self.redraw_seconds = time.perf_counter() - start

    def header_html(self, note: str) -> str:
        policy, line = self.policy, self.line
        parts = [f"<p class='lab-note'><i>{html.escape(note)}</i></p>"] if note else []
        words = spots.line_words(policy, line.actions, self.names)
        if words:
            items = "".join(f"<li>{spots.SEAT_WORDS[s]}: {html.escape(w)}</li>"
                            for s, w in words)
            parts.append(f"<ol class='lab-walk' style='margin:2px 0'>{items}</ol>")
        where = f"<b>{html.escape(spots.spot_words(policy, line))}</b>"
        if not line.over:
            where += f" This comes up {chance_text(spots.reach_probability(policy, line))}."
        parts.append(f"<p class='lab-spot'>{where}</p>")
        return "".join(parts)

    def nav_buttons(self) -> W.HBox:
        back = W.Button(description="back", icon="undo", disabled=not self.line.actions,
                        layout=W.Layout(width="auto"))
        back.on_click(lambda _: self.back())
        restart = W.Button(description="restart", icon="refresh",
                           disabled=not self.line.actions, layout=W.Layout(width="auto"))
        restart.on_click(lambda _: self.restart())
        return W.HBox([back, restart])

    def hands_views(self, frame) -> tuple[W.Image, list]:
        """The chart of every hand's strategy here, and the tables by best card and of
        every hand (the last folded)."""
        policy, line = self.policy, self.line
        names = [n for n in spots.categories(policy, line.spot) if (frame[n] > 0).any()]
        key = (self.vira.value, line.actions)
        if key not in self._pngs:
            seat = spots.SEAT_WORDS[policy.actor(line.spot)]
            title = (f"Vira {self.vira.value}: how each hand of the {seat} plays here\n"
                     f"{spots.spot_words(policy, line)}")
            self._pngs[key] = charts.png(charts.spot_strategy_chart(frame, names, title))
        image = _image()
        show_png(image, self._pngs[key])
        columns = {n: n for n in names}
        groups = percent_table(spots.by_best_card(frame),
                               {"best card": "best card held",
                                "share": "share of the hands here", **columns}, "lab-groups")
        every = percent_table(frame, {"hand": "hand (as dealt)", "holds": "holds now",
                                      "share": "share of the hands here", **columns},
                              "lab-every")
        accordion = W.Accordion(children=[W.HTML(TABLE_STYLE + every)],
                                titles=(f"every hand here ({len(frame)})",),
                                selected_index=None)
        return image, [W.HTML(TABLE_STYLE + "<p><b>By the best card held</b></p>" + groups),
                       accordion]

    def _replace(self, children) -> None:
        replace_children(self.stage, children)


def strategy_explorer() -> StrategyExplorer:
    """The strategy-explorer dashboard."""
    return StrategyExplorer()
