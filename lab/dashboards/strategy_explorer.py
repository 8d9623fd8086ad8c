"""The strategy-explorer dashboard (``notebooks/strategy_explorer.ipynb``).

Pick a vira and the score, walk a hand's public moves on the solved strategy that plays
there, one move at a time (or jump to a preset situation: the mão opens, the pé answers
a truco, round 2 after winning round 1, facing a seis, round 3 ...), and see how every
hand of the player to act plays there: by hand strength
(:func:`lab.dashboards.spots.class_strategy`), and hand by hand in the hand grid
(:mod:`lab.dashboards.hand_grid`), each hand's mix and exact value, each move's value,
the opponent's range, and the node compared with another vira or, at a score with a
score-aware strategy, with the points play. Every strategy and value comes from the
advice service (:func:`lab.advice.node_advice`): at a score with a stored score-aware
policy it is that policy, in match-win probability; elsewhere the points play, in points
per hand, with its measured leak at the score. Below, how the bots rank against the
solved strategy (:mod:`lab.dashboards.ranking`).
"""

from __future__ import annotations

import html
import time
from typing import Optional

import ipywidgets as W

from .. import charts
from ..advice import AdviceError, node_advice, node_position
from ..policy.full import FullPolicy
from ..policy.base import PolicyError
from ..widgets import TABLE_STYLE, WRAP, Dashboard, _image, replace_children, show_png
from . import hand_grid, spots
from .background import Background
from .hand_play import LOADING, policy_missing_html
from .ranking import BotRanking

OWN_WALK = -1
"""The situation dropdown's value while the user walks his own way."""

SCORES = tuple(range(12))
"""The points a seat may hold before a hand (12 wins the match)."""

NOTHING = "nothing"
POINTS_PLAY = "points"
"""The compare picker's values besides a vira: no comparison, the points play."""

RULES_NOTE = ("Only the default rules have a solved full game: other rule sets (`lab "
              "whatif`) are solved for their card play and mão de onze, not for the full "
              "game with truco, so they cannot be compared here.")


def chance_text(p: float) -> str:
    """How often a spot comes up, for people: ``12% of hands``, ``1 hand in 2,300``."""
    if p <= 0:
        return "never (it is off the solved strategy's path)"
    if p >= 0.01:
        return f"in {charts.percent(p)} of hands"
    return f"in 1 hand in {1 / p:,.0f}"


def facts_html(info: dict, score=None) -> str:
    """What the stored policy of a vira is (its manifest entry), in words; ``score``: the
    score of a score-aware policy (its entry's numbers are match-win probabilities)."""
    if score is not None:
        return (f"<p><small>The stored score-aware strategy of vira "
                f"{html.escape(str(info.get('vira')))} at {score[0]}-{score[1]}: re-solved "
                f"with match-win payoffs ({int(info.get('iterations', 0)):,} solver "
                f"iterations); exploitability "
                f"{100 * float(info.get('exploitability', float('nan'))):.2f}% match-win "
                f"probability; the mão's chance to win the match "
                f"{100 * float(info.get('value_mao', float('nan'))):.1f}%.</small></p>")
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
    for row in frame.to_dict("records"):
        cells = []
        for c in columns:
            v = row[c]
            cells.append(f"<td style='text-align:left'>{html.escape(str(v))}</td>"
                         if isinstance(v, str) else f"<td>{charts.percent(float(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table class='lab-table {classes}'><tr>{head}</tr>{''.join(body)}</table>"


def model_html(game, vira: str, score) -> str:
    """Which model answers at ``score`` and in what unit (a :class:`lab.advice.FullGameModel`)."""
    at = f"{score[0]}-{score[1]}"
    if game.score_aware:
        return (f"<p class='lab-model'><b>At {at}: the score-aware strategy</b> of vira "
                f"{html.escape(vira)} (re-solved for the match at this score). Values are in "
                f"<b>match-win probability</b>: {hand_grid.unit_words(game.unit)}.</p>")
    leak = ("its leak at this score is not measured (the score_leak table lacks it)"
            if game.leak is None else
            f"at {at} it leaks {100 * game.leak:.2f}% match-win probability to a player who "
            "plays for the match (measured, the score_leak table)")
    return (f"<p class='lab-model'><b>At {at}: the points play</b> of vira "
            f"{html.escape(vira)} (the same at every normal score; no score-aware strategy "
            f"is stored at {at}); {leak}. Values are in <b>points per hand</b>: "
            f"{hand_grid.unit_words(game.unit)}.</p>")


def eleven_html(score) -> str:
    """A mão de onze or 11 x 11 score: not a node of the full game; where it is played."""
    what = ("an 11 x 11 hand: both sides hold 11, the hand decides the match"
            if score == (11, 11) else
            f"a mão de onze: the {'mão' if score[0] == 11 else 'pé'} holds 11 and decides "
            "to play or run before any card")
    return (f"<div class='lab-missing lab-eleven' style='padding:8px 12px;border-left:4px "
            f"solid #2c7fb8;background:#eef6fb;margin:4px 0'>At {score[0]}-{score[1]} the "
            f"hand is {what}. Nobody calls truco in it, so it is not a node of the full "
            f"game: the <a href='hand_explorer.ipynb'>hand explorer</a> plays it move by "
            f"move, with its exact values in match-win probability.</div>")


class StrategyExplorer(Dashboard):
    """Pick a vira, the score and walk the public moves (or pick a situation); the chart
    shows how every hand of the player to act plays there, the hand grid each hand's mix
    and value. The walk's part of the page is replaced at once on every change; the
    grid follows as soon as the node's values are in (at once for a node seen before)."""

    def __init__(self, background: Optional[Background] = None):
        super().__init__()
        from ..tables.policies import rebuild_command, stored_viras

        self.background = background or Background()
        self.ranking = BotRanking()
        self.policy: Optional[FullPolicy] = None
        self.game = None   # the FullGameModel walked (lab.advice)
        self.line = None
        self.walked = ()   # the public moves of the last node drawn (kept on a new score)
        self.node = None   # the NodeAdvice of the node shown
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
        self.viras = viras
        self.vira = W.Dropdown(options=viras, value="4" if "4" in viras else viras[0],
                               description="vira", layout=W.Layout(width="140px"))
        points = dict(layout=W.Layout(width="170px"), style={"description_width": "initial"})
        self.mao_points = W.Dropdown(options=SCORES, value=0, description="mão's points",
                                     **points)
        self.pe_points = W.Dropdown(options=SCORES, value=0, description="pé's points",
                                    **points)
        self.preset = W.Dropdown(
            options=[("(your own walk)", OWN_WALK)] + [(name, k) for k, (name, _)
                                                       in enumerate(spots.PRESETS)],
            value=0, description="situation",
            layout=W.Layout(width="520px", max_width="100%"))
        self.stage = W.VBox()
        self.grid = W.HTML()
        self.range = W.HTML()
        self.hand = W.Dropdown(description="your hand", options=[],
                               layout=W.Layout(width="360px", max_width="100%"))
        self.detail = W.HTML()
        self.compare = W.Dropdown(description="compare with", options=[(NOTHING, NOTHING)],
                                  value=NOTHING, style={"description_width": "initial"},
                                  layout=W.Layout(width="330px", max_width="100%"))
        self.compared = W.HTML()
        self.hands_box = W.VBox([
            W.HTML("<p style='margin:10px 0 2px'><b>Every hand here</b></p>"),
            W.HBox([self.grid, self.range], layout=WRAP),
            W.HBox([self.hand], layout=WRAP), self.detail,
            W.HTML("<p style='margin:10px 0 2px'><b>Compare</b></p>"),
            W.HBox([self.compare], layout=WRAP), self.compared],
            layout=W.Layout(max_width="100%"))
        self.facts = W.HTML()
        self._setting = False
        self.vira.observe(lambda change: self.load(), names="value")
        self.mao_points.observe(lambda change: self.load(), names="value")
        self.pe_points.observe(lambda change: self.load(), names="value")
        self.preset.observe(lambda change: self._setting or self.jump(), names="value")
        self.hand.observe(lambda change: self._setting or self.show_detail(), names="value")
        self.compare.observe(lambda change: self._setting or self.show_compare(),
                             names="value")
        self.tables = W.VBox()
        self.children = [W.HBox([self.vira, self.mao_points, self.pe_points, self.preset],
                                layout=WRAP), self.stage, self.hands_box, self.tables,
                         self.facts, self.ranking]
        self.load(now=True)

    @property
    def score(self) -> tuple:
        return (int(self.mao_points.value), int(self.pe_points.value))

    # ---------------------------------------------------------------- policy
    def load(self, now: bool = False) -> None:
        """Load the strategy that plays the chosen vira at the chosen score (the
        advice's model), then show the same moves on it (or the situation): ``now``
        (the first draw, which a published page keeps), else in the background."""
        from ..advice import full_game_model
        from ..tables.policies import policy_info, rebuild_command

        v, score = self.vira.value, self.score
        keep = self.walked
        self.policy = self.line = self.game = self.node = None
        self.grid.value = ""
        if 11 in score:
            self._replace([W.HTML(eleven_html(score))])
            self.facts.value = ""
            return
        self._replace([W.HTML(LOADING.format(
            f"loading the solved strategy of vira {html.escape(v)} at "
            f"{score[0]}-{score[1]}…"))])

        def loaded(game):
            if (v, score) != (self.vira.value, self.score):
                return
            self.game, self.policy = game, game.policy
            self.names = spots.level_namer(game.policy, v)   # the shown vira's card names
            self.facts.value = (facts_html(game.policy.meta, score) if game.score_aware
                                else facts_html(policy_info(v)))
            if self.preset.value != OWN_WALK:
                self.jump()
                return
            try:
                self.line = spots.walk(self.policy, keep)
                self.render()
            except PolicyError as exc:
                self.line = self.policy.start()
                self.render(f"the moves walked do not come up here ({exc}); back to the "
                            "deal")

        def failed(exc):
            if (v, score) == (self.vira.value, self.score):
                self._replace([W.HTML(policy_missing_html(exc, rebuild_command(v)))])

        def work():
            return full_game_model(v, score)

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
        """Replace the walk's part of the page: which model plays, the moves so far and
        where the hand stands; then the chart of every hand's strategy beside how often
        each move is made, the move buttons, the hand grid, and the tables by best card
        and of every hand."""
        start = time.perf_counter()
        policy, line = self.policy, self.line
        self.walked = line.actions
        header = W.HTML(TABLE_STYLE + hand_grid.STYLE
                        + model_html(self.game, self.vira.value, self.score)
                        + self.header_html(note))
        nav = self.nav_buttons()
        if line.over:
            self.node, self.grid.value = None, ""
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
        self.show_hands()
        if frame.empty:   # nobody gets here under the policy
            self._replace([header, moves, row, nav])
        else:
            image, tables = self.hands_views(frame)
            self._replace([header, W.HBox([image, moves], layout=WRAP), row, nav], tables)
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
        aware = self.score if self.game.score_aware else None
        key = (self.vira.value, aware, line.actions)
        if key not in self._pngs:
            seat = spots.SEAT_WORDS[policy.actor(line.spot)]
            at = "" if aware is None else f" at {aware[0]}-{aware[1]} (score-aware)"
            title = (f"Vira {self.vira.value}{at}: how each hand of the {seat} plays here\n"
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
        scroll = "<div class='lab-scroll'>{}</div>"
        accordion = W.Accordion(children=[W.HTML(TABLE_STYLE + scroll.format(every))],
                                titles=(f"every hand here ({len(frame)})",),
                                selected_index=None)
        return image, [W.HTML(TABLE_STYLE + "<p><b>By the best card held</b></p>"
                              + scroll.format(groups)), accordion]

    # ---------------------------------------------------------------- every hand
    def group_of(self, move, holds) -> str:
        """The move group of ``move`` by a hand holding ``holds`` (the chart's names)."""
        if move == hand_grid.SURRENDER:
            return hand_grid.SURRENDER
        return spots.category(self.policy, self.line.spot, move, holds)

    def move_words(self, move) -> str:
        if move == hand_grid.SURRENDER:
            other = spots.SEAT_WORDS[1 - self.node.seat]
            return (f"surrenders (the {other} scores {self.node.accepted}; never part of "
                    "the solved strategy)")
        return spots.action_words(self.policy, self.line.spot, move, self.names)

    def show_hands(self) -> None:
        """Fill the hand grid for the node shown: at once when its advice is kept, else
        once it is worked out (one value walk for every hand)."""
        key = (self.vira.value, self.score, self.line.actions)
        self.node = None
        self.grid.value = ("<p class='lab-computing'><i>working out the exact value of "
                           "every hand here…</i></p>")
        self.range.value = self.detail.value = self.compared.value = ""

        def done(node):
            if key == (self.vira.value, self.score, self.line.actions if self.line else None):
                self.draw_hands(node)

        def failed(exc):
            if key == (self.vira.value, self.score, self.line.actions if self.line else None):
                self.grid.value = (f"<p class='lab-grid-error'>{html.escape(str(exc))}</p>"
                                   if isinstance(exc, (AdviceError, PolicyError)) else
                                   policy_missing_html(exc, str(exc)))

        self.background.submit("hands", lambda: node_advice(*key), done, failed)

    def draw_hands(self, node) -> None:
        """Draw the grid, the range and the picked hand's detail of ``node``."""
        self.node = node
        rows = node.hands.to_dict("records")
        groups = [g for g in charts.ACTION_COLORS] + [hand_grid.SURRENDER]
        extra = sorted({self.group_of(m, r["holds"]) for r in rows
                        for m in r["strategy"]} - set(groups))
        self.groups = groups + extra
        keys = [hand_grid.hand_key(r) for r in rows]
        options = [(hand_grid.hand_words(r, self.names), k)
                   for k, r in zip(keys, rows)]
        old = self.hand.value
        if old not in keys:   # the same hand as dealt, or the likeliest here
            same = [k for k in keys if old is not None and k[0] == old[0]]
            old = same[0] if same else (keys[int(node.hands["likelihood"].idxmax())]
                                        if keys else None)
        self._setting = True
        try:
            self.hand.options = options
            self.hand.value = old
            self.compare.options = self.compare_options()
            if self.compare.value not in [v for _, v in self.compare.options]:
                self.compare.value = NOTHING
        finally:
            self._setting = False
        self.range.value = (TABLE_STYLE + "<div style='margin-left:12px'>"
                            + hand_grid.range_html(node, self.names) + "</div>")
        self.show_detail()
        self.show_compare()

    def show_detail(self) -> None:
        """The picked hand's detail, and its chip marked in the grid."""
        node, picked = self.node, self.hand.value
        if node is None:
            return
        used = hand_grid.used_groups(node, self.group_of)
        self.grid.value = (hand_grid.STYLE
                           + hand_grid.legend_html(node, self.groups, used)
                           + hand_grid.grid_html(node, self.group_of, self.names,
                                                 self.groups, picked))
        if picked is None:
            self.detail.value = ""
            return
        row = node.row(*picked)
        try:
            command = hand_grid.advise_command(node_position(
                node.vira, node.score, node.actions, row["levels"], row["holds"]))
        except (AdviceError, PolicyError, ValueError):
            command = ""
        self.detail.value = TABLE_STYLE + hand_grid.detail_html(
            node, row, self.move_words, self.names, command)

    # ---------------------------------------------------------------- compare
    def compare_options(self) -> list:
        out = [("nothing", NOTHING)]
        if self.game is not None and self.game.score_aware:
            out.append(("the points play at this score", POINTS_PLAY))
        out += [(f"vira {v} (same score, same moves)", v) for v in self.viras
                if v != self.vira.value]
        return out

    def show_compare(self) -> None:
        """The node against the picked other model or vira, hand by hand."""
        node, what = self.node, self.compare.value
        if node is None:
            return
        if what == NOTHING:
            self.compared.value = (f"<p><small>Pick another vira, or at a score with a "
                                   f"score-aware strategy the points play, to see how each "
                                   f"hand's play and value change here. "
                                   f"{html.escape(RULES_NOTE)}</small></p>")
            return
        key = (self.vira.value, self.score, self.line.actions, what)
        self.compared.value = ("<p class='lab-computing'><i>working out the other "
                               "strategy here…</i></p>")

        def work():
            if what == POINTS_PLAY:
                return node_advice(node.vira, node.score, node.actions, points=True)
            return node_advice(what, node.score, node.actions)

        def done(other):
            if key == (self.vira.value, self.score, self.line.actions, self.compare.value):
                self.draw_compare(other, what)

        def failed(exc):
            if key == (self.vira.value, self.score, self.line.actions, self.compare.value):
                self.compared.value = f"<p class='lab-grid-error'>{html.escape(str(exc))}</p>"

        self.background.submit("compare", work, done, failed)

    def draw_compare(self, other, what) -> None:
        node = self.node
        here = (f"score-aware, vira {node.vira}" if self.game.score_aware
                else f"vira {node.vira}")
        there = "points play" if what == POINTS_PLAY else f"vira {what}"
        frame = hand_grid.compare_frame(node, other, self.group_of)
        note = ("" if what == POINTS_PLAY else
                "<p><small>Hands are matched by strength (the same levels as dealt and "
                "held); each vira names its own cards.</small></p>")
        self.compared.value = (TABLE_STYLE + hand_grid.STYLE + note
                               + hand_grid.compare_html(frame, here, there, node, other,
                                                        self.names)
                               + f"<p><small>{html.escape(RULES_NOTE)}</small></p>")

    def _replace(self, children, tables=()) -> None:
        """Show ``children`` as the walk's part and ``tables`` under the hand grid (shown
        only while a node's advice is drawn or on its way)."""
        self.hands_box.layout.display = None if self.node is not None or \
            self.grid.value else "none"
        replace_children(self.stage, children)
        replace_children(self.tables, tables)


def strategy_explorer() -> StrategyExplorer:
    """The strategy-explorer dashboard."""
    return StrategyExplorer()
