"""The house-rules dashboard (``notebooks/house_rules.ipynb``): what a rule set changes
beside the lab's own rules, read from the what-if tables ``whatif`` and ``whatif_match``
(written by ``lab whatif``; see :mod:`lab.tables.whatif`).

Every figure comes three ways: under the chosen rules, under the lab's rules, and the
change (the chosen rules' figure minus the lab's), each with its exploitability and the
model behind it. Units: card play and double dummy in win probability, the full game in
points per hand, match equity and the mão de onze in match-win probability, accept rates
and accept probabilities in probability.
"""

from __future__ import annotations

import html
import math
import time

import ipywidgets as W
import pandas as pd

from .. import charts
from ..charts import VIRAS, percent, significant, signed_points
from ..match import MODEL_LABELS
from ..rules import (DEFAULT_RULES, ELEVEN, ELEVEN_ELEVEN, NORMAL, PRESETS, RULE_CHOICES,
                     RuleSet, hand_kind)
from ..tables.whatif import NOT_SOLVED, SAME_GAME, whatif_command
from ..widgets import (TABLE_STYLE, WRAP, Dashboard, TableMissing, _image, frame_html, load,
                       missing_html)
from .match_equity import eleven_score_label

PRESET_NAMES = tuple(name for name, rules in PRESETS.items() if rules != DEFAULT_RULES)
"""The presets to compare with the lab's rules (every preset but the lab's own)."""
CUSTOM = "custom"
"""The preset picker's value when the four rules are set one by one."""

RULE_NAMES = {"three_ties": "three tied rounds", "eleven_eleven": "the 11 x 11",
              "eleven_tie_gives_three": "mão de onze tied", "surrender": "giving up"}
"""Each rule's picker, named for a player."""

RULE_LABELS = {
    "three_ties": {"mao": "go to the mão", "nobody": "score nothing", "pe": "go to the pé"},
    "eleven_eleven": {"three": "worth 3, cards seen", "one": "worth 1, cards seen",
                      "blind": "worth 3, played blind"},
    "eleven_tie_gives_three": {"no": "as any three ties", "yes": "3 points to the other side"},
    "surrender": {"any_turn": "on any turn", "answer_only": "only answering a raise"},
}
"""Each rule's choices, as its picker shows them."""

RULE_WORDS = {
    "three_ties": {
        "mao": "A hand whose three rounds all tie goes to the mão.",
        "nobody": "A hand whose three rounds all tie scores nothing: the score stays and the "
                  "next hand is dealt.",
        "pe": "A hand whose three rounds all tie goes to the pé."},
    "eleven_eleven": {
        "three": "At 11 x 11 the hand is worth 3 and both players see their cards.",
        "one": "At 11 x 11 the hand is worth 1 and both players see their cards.",
        "blind": "At 11 x 11 the hand is worth 3 and nobody looks at his own cards, so "
                 "nobody can cover one."},
    "eleven_tie_gives_three": {
        "no": "A mão de onze whose three rounds all tie goes as any three tied rounds do.",
        "yes": "A mão de onze whose three rounds all tie gives 3 points to the side not "
               "on 11."},
    "surrender": {
        "any_turn": "A player may give up the hand on any of his turns.",
        "answer_only": "A player may give up only as the answer to a raise (so never at a "
                       "mão de onze or at 11 x 11, where nobody raises)."},
}
"""What each choice of each rule means, one line in a player's words (``docs/rules.md``,
section "House rules")."""

QUANTITIES = {"cardplay_value": "card play", "double_dummy_value": "double dummy",
              "full_game_value": "full game"}
"""The per-vira quantities of table ``whatif``, as the value picker names them."""

QUANTITY_WORDS = {
    "cardplay_value": "the mão's chance to win the hand in card play (no truco, every hand "
                      "worth 1; a hand that scores nothing counts half)",
    "double_dummy_value": "the mão's chance to win the hand with both hands face up",
    "full_game_value": "the mão's points per hand in the full game with truco",
}

SCORELESS = {"cardplay_value": "cardplay_scoreless", "full_game_value": "full_game_scoreless"}
"""The per-vira quantity of table ``whatif`` that says how often a hand of each game scores
nothing."""

MODEL_WORDS = {**MODEL_LABELS,
               "cardplay-equilibrium": "card-play equilibrium",
               "double-dummy": "double dummy (both hands face up)",
               SAME_GAME: "the same game as under the lab's rules, so the lab's figures",
               NOT_SOLVED: NOT_SOLVED}
"""Each model name of the what-if tables in a few words."""

HAND_KINDS = {NORMAL: "normal scores", ELEVEN: "mão de onze", ELEVEN_ELEVEN: "11 x 11"}


def model_words(name: str) -> str:
    """A model name of the what-if tables in words (the name itself if it has none)."""
    return MODEL_WORDS.get(name, name)


def rules_html(rules: RuleSet) -> str:
    """The chosen rules, one line each in a player's words; the ones that differ from the
    lab's in bold."""
    default = DEFAULT_RULES.items()
    lines = []
    for key, value in rules.items().items():
        words = html.escape(RULE_WORDS[key][value])
        lines.append(f"<li><b>{words}</b></li>" if value != default[key]
                     else f"<li>{words} <small>(as the lab's rules)</small></li>")
    return f"<ul style='margin:4px 0'>{''.join(lines)}</ul>"


def stored_rows(rules: RuleSet) -> dict:
    """{"whatif": rows, "whatif_match": rows} of ``rules`` from the stored tables;
    TableMissing naming :func:`whatif_command` when they hold none (or cannot be read)."""
    command = whatif_command(rules)
    out = {}
    for name in ("whatif", "whatif_match"):
        try:
            table = load(name)
        except TableMissing as exc:
            raise TableMissing(name, exc.detail, command) from None
        out[name] = table[table["rules_version"] == rules.version].reset_index(drop=True)
        if out[name].empty:
            raise TableMissing(name, f"the what-if tables hold no rows for rules "
                                     f"{rules.version} yet", command)
    return out


def models_html(rows: pd.DataFrame, match: pd.DataFrame) -> str:
    """Which model gives each side's figures, from the rows' ``variant_model`` and
    ``default_model`` columns: per quantity, and per kind of score for the match."""
    def pair(part: pd.DataFrame) -> str:
        variant = "; ".join(model_words(m) for m in dict.fromkeys(part["variant_model"]))
        default = "; ".join(model_words(m) for m in dict.fromkeys(part["default_model"]))
        if variant == default:
            return f"both sides, {html.escape(variant)}"
        return f"these rules, {html.escape(variant)}; the lab's, {html.escape(default)}"

    items = []
    for quantity, label in QUANTITIES.items():
        part = rows[rows["quantity"] == quantity]
        if len(part):
            items.append(f"<li><b>{label}</b>: {pair(part)}</li>")
    kinds = [hand_kind((m, p))[0] for m, p in zip(match["score_mao"], match["score_pe"])]
    for kind, label in HAND_KINDS.items():
        part = match[[k == kind for k in kinds]]
        if len(part):
            items.append(f"<li><b>match equity, {label}</b>: {pair(part)}</li>")
    eleven = rows[rows["quantity"] == "eleven_accept_rate"]
    if len(eleven):
        items.append(f"<li><b>mão de onze decisions</b>: {pair(eleven)}</li>")
    return f"<ul style='margin:4px 0'>{''.join(items)}</ul>"


def value_table(rows: pd.DataFrame, quantity: str) -> pd.DataFrame:
    """One row per vira of ``quantity``: the lab's figure, this rule set's (or that it is
    not solved under these rules), the change, each side's exploitability and model, and
    for card play and the full game how often a hand scores nothing under these rules
    (probability; in the full game for the viras solved under them), and for the full game
    how often a hand ends worth 3 points or more on each side (where recorded)."""
    part = rows[rows["quantity"] == quantity].set_index("vira")
    part = part.reindex([v for v in VIRAS if v in part.index])

    def figure(x) -> str:
        return "—" if pd.isna(x) else f"{x:.4f}"

    unsolved = part["variant_model"] == NOT_SOLVED
    shown = pd.DataFrame({
        "vira": part.index,
        "lab's rules": part["default"].map(figure),
        "these rules": [NOT_SOLVED if u else figure(v)
                        for u, v in zip(unsolved, part["variant"])],
        "change": ["—" if pd.isna(d) else ("+" if d > 0 else "") + significant(d)
                   for d in part["difference"]],
        "exploitability, lab's": part["default_exploitability"].map(significant),
        "exploitability, these": part["variant_exploitability"].map(significant),
        "model, these rules": part["variant_model"].map(model_words)})
    if quantity == "full_game_value" and (rows["quantity"] == "full_game_outcome").any():
        for side, column in (("default", "worth 3+ points, lab's"),
                             ("variant", "worth 3+ points, these")):
            shown[column] = [percent_fine(p) for p in raised_share(rows, side)
                             .reindex(part.index)]
    if quantity in SCORELESS:
        scoreless = rows[rows["quantity"] == SCORELESS[quantity]].set_index("vira")
        if len(scoreless) and (scoreless["variant"] > 0).any():
            shown["hands scoring nothing"] = [percent_fine(scoreless["variant"].get(v))
                                              for v in part.index]
    return shown


def raised_share(rows: pd.DataFrame, side: str) -> pd.Series:
    """Per vira (of the ``full_game_outcome`` rows), the probability that a hand of the full
    game ends worth 3 points or more (exactly the hands where a truco was accepted), either
    seat scoring it, on ``side`` (``variant`` or ``default``)."""
    outcome = rows[rows["quantity"] == "full_game_outcome"]
    raised = outcome[outcome["hand"].astype(int) >= 3]
    return raised.groupby("vira")[side].sum()


def percent_fine(p) -> str:
    """A small probability in percent with two decimals (``0.31%``)."""
    return "—" if p is None or pd.isna(p) else f"{100 * p:.2f}%"


def largest_change_score(match: pd.DataFrame) -> tuple[int, int]:
    """The (mão, pé) score where the mão's match-win probability changes most."""
    row = match.loc[match["difference"].abs().idxmax()]
    return int(row["score_mao"]), int(row["score_pe"])


def largest_change_text(match: pd.DataFrame) -> str:
    """The score where the mão's match-win probability changes most, in words."""
    m, p = largest_change_score(match)
    row = match[(match["score_mao"] == m) & (match["score_pe"] == p)].iloc[0]
    if row["difference"] == 0:
        return "These rules change no score's match equity."
    way = "gains" if row["difference"] > 0 else "loses"
    digits = max(3, 1 - math.floor(math.log10(abs(row["difference"]))))   # enough to differ
    return (f"The largest change is at {m}–{p} (mão–pé): the next hand's mão {way} "
            f"{significant(abs(row['difference']))} match-win probability, from "
            f"{row['default']:.{digits}f} under the lab's rules to {row['variant']:.{digits}f} "
            f"under these.")


def score_text(score: tuple[int, int]) -> str:
    """A score as the tables write it: ``11,3``."""
    return f"{score[0]},{score[1]}"


def changed_hands(rows: pd.DataFrame, vira: str, score: tuple[int, int]) -> pd.DataFrame:
    """The hands whose mão de onze decision changes at ``vira`` and ``score`` (quantity
    ``eleven_accept``): the holder's accept probability under the lab's rules and under
    these, biggest change first."""
    part = rows[(rows["quantity"] == "eleven_accept") & (rows["vira"] == vira)
                & (rows["score"] == score_text(score))]
    part = part.sort_values("difference", ascending=False, kind="stable")
    return pd.DataFrame({
        "hand": part["hand"],
        "plays it, lab's rules": part["default"].map(percent),
        "plays it, these rules": part["variant"].map(percent),
        "now": ["plays" if d > 0 else "runs" for d in part["difference"]]})


def most_changed(rows: pd.DataFrame) -> tuple[str, tuple[int, int]] | None:
    """The (vira, score) where the most hands change their mão de onze decision (None
    when none does)."""
    flips = rows[rows["quantity"] == "eleven_accept"]
    if flips.empty:
        return None
    vira, score = flips.groupby(["vira", "score"], sort=False).size().idxmax()
    return vira, tuple(int(x) for x in score.split(","))


def accept_rates(rows: pd.DataFrame, vira: str) -> pd.DataFrame:
    """Per mão de onze score at ``vira`` (quantity ``eleven_accept_rate``): how often the
    holder plays his deals (probability) under the lab's rules and under these."""
    part = rows[(rows["quantity"] == "eleven_accept_rate") & (rows["vira"] == vira)]
    scores = [tuple(int(x) for x in s.split(",")) for s in part["score"]]
    order = sorted(range(len(scores)), key=lambda i: (scores[i][0] != 11, scores[i]))
    part = part.iloc[order]
    return pd.DataFrame({
        "score (mão–pé)": [f"{a}–{b}" for a, b in (scores[i] for i in order)],
        "holder": part["seat"].map(charts.SEATS).to_numpy(),
        "plays, lab's rules": part["default"].map("{:.1%}".format).to_numpy(),
        "plays, these rules": part["variant"].map("{:.1%}".format).to_numpy(),
        "change (points of %)": part["difference"].map(lambda d: signed_points(d, 2))
        .to_numpy()})


class HouseRules(Dashboard):
    """A rule-set picker (a preset, or each rule), and what the rule set changes: the
    value per vira, the 12 x 12 change of match equity, the mão de onze decisions."""

    def __init__(self):
        super().__init__()
        first = self.first_stored()
        self.preset = W.ToggleButtons(options=[*PRESET_NAMES, CUSTOM], value=first.name,
                                      description="rules", style={"button_width": "90px"})
        self.rule_pickers = {
            key: W.Dropdown(options=[(RULE_LABELS[key][v], v) for v in choices],
                            value=getattr(first, key), description=RULE_NAMES[key],
                            style={"description_width": "initial"},
                            layout=W.Layout(width="310px"))
            for key, choices in RULE_CHOICES.items()}
        self.words = W.HTML()
        self.models = W.HTML()
        self.message = W.HTML()
        self.quantity = W.ToggleButtons(options=[], style={"button_width": "110px"})
        self.value_image, self.value_note, self.value_table = _image(), W.HTML(), W.HTML()
        self.match_image, self.match_note = _image(), W.HTML()
        self.vira = W.Dropdown(options=list(VIRAS), value="4", description="vira",
                               layout=W.Layout(width="150px"))
        self.score = W.Dropdown(options=[], description="score",
                                layout=W.Layout(width="330px"))
        self.eleven_note, self.hands, self.rates = W.HTML(), W.HTML(), W.HTML()
        self.sections = W.VBox([
            W.HTML("<h3>The mão's value per vira</h3>"), self.quantity,
            W.HBox([self.value_image, W.VBox([self.value_note, self.value_table])],
                   layout=WRAP),
            W.HTML("<h3>Match equity: the change at every score</h3>"),
            W.HBox([self.match_image, self.match_note], layout=WRAP),
            W.HTML("<h3>Mão de onze: the hands that change their decision</h3>"),
            W.HBox([self.score, self.vira], layout=WRAP), self.eleven_note,
            W.HBox([self.hands, self.rates], layout=WRAP)])
        self.head = [W.HTML(TABLE_STYLE), self.preset,
                     W.HBox(list(self.rule_pickers.values()), layout=WRAP), self.words,
                     self.models, self.message]
        self.children = self.head
        self._busy = False
        self.rows = self.match = None
        self.missing: TableMissing | None = None
        self.preset.observe(lambda change: self.pick_preset(), names="value")
        for picker in self.rule_pickers.values():
            picker.observe(lambda change: self.pick_rule(), names="value")
        self.quantity.observe(lambda change: self.redraw_values(), names="value")
        for picker in (self.vira, self.score):
            picker.observe(lambda change: self.redraw_eleven(), names="value")
        self.select()

    @staticmethod
    def first_stored() -> RuleSet:
        """The first preset the tables hold, else the first preset."""
        try:
            stored = set(load("whatif")["rules_version"])
        except TableMissing:
            stored = set()
        return next((PRESETS[n] for n in PRESET_NAMES if PRESETS[n].version in stored),
                    PRESETS[PRESET_NAMES[0]])

    @property
    def rules(self) -> RuleSet:
        """The rule set the four pickers make."""
        return RuleSet(**{key: picker.value for key, picker in self.rule_pickers.items()})

    def pick_preset(self) -> None:
        if self._busy or self.preset.value == CUSTOM:
            return
        self._busy = True
        try:
            for key, value in PRESETS[self.preset.value].items().items():
                self.rule_pickers[key].value = value
        finally:
            self._busy = False
        self.select()

    def pick_rule(self) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            name = self.rules.name
            self.preset.value = name if name in PRESET_NAMES else CUSTOM
        finally:
            self._busy = False
        self.select()

    def select(self) -> None:
        """Read the chosen rule set's rows and redraw every section (or say why not)."""
        start = time.perf_counter()
        rules = self.rules
        self.words.value = rules_html(rules)
        self.rows = self.match = self.missing = None
        self.models.value = ""
        if rules == DEFAULT_RULES:
            self.message.value = ("<p class='lab-same-rules'><i>These are the lab's own rules: "
                                  "pick a preset or change a rule to compare.</i></p>")
            self.children = self.head
            return
        try:
            stored = stored_rows(rules)
        except TableMissing as exc:
            self.missing = exc
            self.message.value = missing_html(exc, headline="not computed yet")
            self.children = self.head
            return
        self.rows, self.match = stored["whatif"], stored["whatif_match"]
        self.message.value = ""
        self.models.value = ("<p style='margin:4px 0'>Where each side's figures come "
                             "from:</p>" + models_html(self.rows, self.match))
        self._busy = True
        try:
            present = [(label, q) for q, label in QUANTITIES.items()
                       if (self.rows["quantity"] == q).any()]
            kept = self.quantity.value
            self.quantity.options = present
            self.quantity.value = kept if kept in dict(present).values() else present[0][1]
            rates = self.rows[self.rows["quantity"] == "eleven_accept_rate"]
            scores = sorted({tuple(int(x) for x in s.split(",")) for s in rates["score"]},
                            key=lambda sc: (sc[0] != 11, sc))
            chosen = self.score.value
            if chosen is None and most_changed(self.rows) is not None:   # the first rows
                self.vira.value, chosen = most_changed(self.rows)
            self.score.options = [(eleven_score_label(sc), sc) for sc in scores]
            self.score.value = chosen if chosen in scores else (scores[0] if scores else None)
        finally:
            self._busy = False
        self.redraw_values()
        self.redraw_match()
        self.redraw_eleven()
        self.children = [*self.head, self.sections]
        self.redraw_seconds = time.perf_counter() - start

    def key(self, *parts) -> tuple:
        """A chart's cache key: the rule set, ``parts`` and the rows it is drawn from."""
        return (self.rules.version, *parts,
                int(pd.util.hash_pandas_object(self.match, index=False).sum()),
                int(pd.util.hash_pandas_object(self.rows, index=False).sum()))

    def value_figure(self):
        """The bar chart of the chosen quantity's change per vira."""
        part = self.rows[self.rows["quantity"] == self.quantity.value]
        label, unit = QUANTITIES[self.quantity.value], part["unit"].iloc[0]
        return charts.difference_bars(part, f"{label.capitalize()}: the mão's value, these "
                                            f"rules − the lab's\nper vira ({unit})")

    def match_figure(self):
        """The 12 x 12 heatmap of the change in match equity, its largest change outlined."""
        return charts.difference_heatmap(
            self.match, largest_change_score(self.match),
            "Match equity: the next hand's mão's match-win probability,\n"
            "these rules − the lab's (points of %); largest change outlined")

    def redraw_values(self) -> None:
        if self._busy or self.rows is None:
            return
        quantity = self.quantity.value
        part = self.rows[self.rows["quantity"] == quantity]
        label, unit = QUANTITIES[quantity], part["unit"].iloc[0]
        self.draw(self.value_image, self.key("values", quantity), self.value_figure)
        default_model = "; ".join(model_words(m) for m in dict.fromkeys(part["default_model"]))
        self.value_note.value = (
            f"<p><b>{html.escape(label.capitalize())}</b>: "
            f"{html.escape(QUANTITY_WORDS[quantity])}, in {html.escape(unit)}; the lab's "
            f"figures are the {html.escape(default_model)}.</p>")
        self.value_table.value = frame_html(value_table(self.rows, quantity))

    def redraw_match(self) -> None:
        self.draw(self.match_image, self.key("match"), self.match_figure)
        measured = self.match["variant_exploitability"].notna()
        where = ("" if measured.all() else
                 f" at the {measured.sum()} scores solved for the match (at the others both "
                 f"sides play the full game for points: the match-equity page maps what that "
                 f"leaks)")
        self.match_note.value = (
            f"<p class='lab-largest'>{html.escape(largest_change_text(self.match))}</p>"
            f"<p>Rows: the mão's points; columns: the pé's. Blue: the mão gains under these "
            f"rules; red: he loses. Exploitability ≤ "
            f"{significant(self.match['variant_exploitability'].max())} match-win "
            f"probability under these rules, ≤ "
            f"{significant(self.match['default_exploitability'].max())} under the lab's"
            f"{where}.</p>")

    def redraw_eleven(self) -> None:
        if self._busy or self.rows is None or self.score.value is None:
            return
        vira, score = self.vira.value, self.score.value
        rate = self.rows[(self.rows["quantity"] == "eleven_accept_rate")
                         & (self.rows["vira"] == vira)
                         & (self.rows["score"] == score_text(score))]
        hands = changed_hands(self.rows, vira, score)
        text = f"At {score[0]}–{score[1]}, vira {html.escape(vira)}"
        if len(rate):
            r = rate.iloc[0]
            text += (f", the {charts.SEATS[r['seat']]} holds 11 and plays {r['default']:.1%} "
                     f"of his deals under the lab's rules, {r['variant']:.1%} under these "
                     f"(exploitability: the lab's {significant(r['default_exploitability'])}, "
                     f"these {significant(r['variant_exploitability'])} match-win "
                     f"probability)")
        text += (". No hand changes its decision here." if hands.empty else
                 ". One hand changes its decision:" if len(hands) == 1 else
                 f". {len(hands)} hands change their decision:")
        self.eleven_note.value = f"<p class='lab-eleven-note'>{text}</p>"
        self.hands.value = (frame_html(hands) if len(hands) else "")
        self.rates.value = (f"<p><b>How often the holder plays, vira {html.escape(vira)}</b>"
                            f"</p>" + frame_html(accept_rates(self.rows, vira)))


def house_rules() -> HouseRules:
    """The house-rules dashboard."""
    return HouseRules()
