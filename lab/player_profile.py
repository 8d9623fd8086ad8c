"""Player profiles: how often a player takes each move, beside the solver, per spot and
hand strength.

A profile is built from the graded decisions of :mod:`lab.match_review` (so from the same
positions the advice service answers) and counts, per **cell** (a spot x a hand-strength
bucket), how often the player took each move, and sums the solver's probability of that
move at the same decisions. ``docs/review.md`` has the rules; in short:

- **Spots** are what the player could do, not what he did (so that a frequency means
  something): ``mao_de_onze`` (play or run: ``accept``, ``run``); ``answer_truco`` (a raise
  to answer: ``accept``, ``run``, ``raise``, ``surrender``); ``open_truco`` (his turn to
  play at hand value 1 with a truco open to him: ``raise``, ``card`` (a card, face up or
  covered), ``surrender``); ``raise`` (the same at value 3 or more with a raise open to
  him); ``lead`` and ``answer_card`` (he played a card with two or more in hand, as the
  round's first or second card: ``strongest``, ``middle``, ``weakest`` (by the cards' level
  under the vira, the level's ties going to the stronger name) or ``cover``). A card-play
  turn may count in two cells: whether he raised, then which card he played.
- **Buckets** rank the hand as dealt by its card-play equity (the ``cardplay`` table's
  win probability of the hand class for the vira and seat) among every hand the seat may
  be dealt, weighted by the deal: the weakest third of deals ``weak``, the middle third
  ``middle``, the strongest third ``strong``.
- The solver's probability of a move is the advice's strategy summed over the legal moves
  of that group (off the solved path the advice's strategy is the best response's 0 or
  1); in ``lead`` and ``answer_card`` it is the strategy over the card moves only (the
  decisions where the solver plays no card leave that mean out).
- **Situations** (:mod:`lab.situations`): the betting spots (``open_truco``,
  ``answer_truco``, ``raise``) are also counted per situation, the standing in rounds and
  the live cards at the decision (``even.manilha``: level in rounds, a manilha and no
  other card of 3 or better), the cells the opponent models of :mod:`lab.exploit` are
  made of; the review shows the buckets (:func:`rows` reads either family).
- **Verdict**: where the 95% Wilson interval of the player's frequency excludes the
  solver's mean probability, in words: ``runs from a raise too often with middle hands:
  62% [48-75%] where the solver does 21%``.

A profile saved as JSON (:data:`FORMAT`) holds the counts and the solver's probability sums
of each cell, so profiles merge by adding them (:func:`merge`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .cards import level
from .errors import InputError
from .rules import COVER, ELEVEN, PLAY, RAISE
from .situations import SITUATIONS, situation, situation_words

FORMAT = "truco-lab/profile/1"
"""The ``format`` of a saved profile."""

BUCKETS = ("weak", "middle", "strong")

SPOTS = ("open_truco", "answer_truco", "raise", "lead", "answer_card", "mao_de_onze")

BETTING = ("open_truco", "answer_truco", "raise")
"""The spots also counted per situation (:data:`lab.situations.SITUATIONS`)."""

ACTIONS = {
    "open_truco": ("raise", "card", "surrender"),
    "answer_truco": ("accept", "run", "raise", "surrender"),
    "raise": ("raise", "card", "surrender"),
    "lead": ("strongest", "middle", "weakest", "cover"),
    "answer_card": ("strongest", "middle", "weakest", "cover"),
    "mao_de_onze": ("accept", "run"),
}
"""The moves counted at each spot."""

WORDS = {
    ("open_truco", "raise"): "opens a truco",
    ("open_truco", "card"): "plays a card where he may open a truco",
    ("open_truco", "surrender"): "surrenders where he may open a truco",
    ("answer_truco", "accept"): "accepts a raise",
    ("answer_truco", "run"): "runs from a raise",
    ("answer_truco", "raise"): "re-raises a raise",
    ("answer_truco", "surrender"): "surrenders to a raise",
    ("raise", "raise"): "raises above truco",
    ("raise", "card"): "plays a card where he may raise above truco",
    ("raise", "surrender"): "surrenders where he may raise above truco",
    ("lead", "strongest"): "leads his strongest card",
    ("lead", "middle"): "leads his middle card",
    ("lead", "weakest"): "leads his weakest card",
    ("lead", "cover"): "covers a card when leading",
    ("answer_card", "strongest"): "answers a card with his strongest",
    ("answer_card", "middle"): "answers a card with his middle card",
    ("answer_card", "weakest"): "answers a card with his weakest",
    ("answer_card", "cover"): "covers a card when answering one",
    ("mao_de_onze", "accept"): "plays a mão de onze",
    ("mao_de_onze", "run"): "runs from a mão de onze",
}

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    # never seen (or always seen): the bound is 0 (1) exactly, not a rounding error above it
    return (0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half))


# ---------------------------------------------------------------- buckets


@lru_cache(maxsize=None)
def _percentiles(rank: str) -> dict:
    """{(seat name, class label): deal-weighted mid-percentile of its card-play equity}."""
    from .tables import load_table

    table = load_table("cardplay", viras=[rank])
    out = {}
    for seat, rows in table.groupby("seat", observed=True):
        rows = rows.sort_values("equity", kind="stable")
        weight = rows["weight"].to_numpy(dtype=float)
        weight = weight / weight.sum()
        below = weight.cumsum() - weight
        for label, b, w in zip(rows["hand"], below, weight):
            out[(str(seat), str(label))] = float(b + w / 2)
    return out


def bucket_of(vira, hand, seat: int) -> str:
    """The strength bucket (:data:`BUCKETS`) of ``hand`` as dealt to ``seat`` (0 mão, 1
    pé) under ``vira``."""
    from .cards import RANKS
    from .classes import hand_classes

    classes = hand_classes(vira)
    return class_bucket(RANKS[vira.rank], seat,
                        classes.labels[classes.class_of_cards(list(hand), vira)])


def class_bucket(rank: str, seat: int, label: str) -> str:
    """The strength bucket (:data:`BUCKETS`) of the hand class ``label`` dealt to ``seat``
    (0 mão, 1 pé) under a vira of ``rank`` (its rank character)."""
    share = _percentiles(rank)[("mao" if seat == 0 else "pe", label)]
    return BUCKETS[min(2, int(share * 3))]


# ---------------------------------------------------------------- cells


@dataclass
class Cell:
    """One spot x bucket: ``decisions`` counted, ``counts`` per move, and the solver's
    probability summed per move over ``solver_decisions`` of them (``solver_sum``)."""

    decisions: int = 0
    counts: dict = field(default_factory=dict)
    solver_decisions: int = 0
    solver_sum: dict = field(default_factory=dict)

    def add(self, move: str, solver) -> None:
        self.decisions += 1
        self.counts[move] = self.counts.get(move, 0) + 1
        if solver is not None:
            self.solver_decisions += 1
            for k, p in solver.items():
                self.solver_sum[k] = self.solver_sum.get(k, 0.0) + float(p)

    def merge(self, other: "Cell") -> None:
        self.decisions += other.decisions
        self.solver_decisions += other.solver_decisions
        for k, v in other.counts.items():
            self.counts[k] = self.counts.get(k, 0) + v
        for k, v in other.solver_sum.items():
            self.solver_sum[k] = self.solver_sum.get(k, 0.0) + v


@dataclass
class Profile:
    """A player's ``cells`` ({(spot, bucket or situation): Cell}) over ``hands`` hands."""

    player: str
    hands: int = 0
    cells: dict = field(default_factory=dict)

    def cell(self, spot: str, bucket: str) -> Cell:
        return self.cells.setdefault((spot, bucket), Cell())

    def count(self, bucket: str, where: str, observations) -> list:
        """Add ``observations`` (:func:`observed`) of a decision taken with a hand of
        ``bucket`` in the situation ``where``; the keys of the cells counted."""
        keys = []
        for spot, move, solver in observations:
            for key in ((spot, bucket), (spot, where)) if spot in BETTING else ((spot, bucket),):
                self.cell(*key).add(move, solver)
                keys.append((key, move))
        return keys


def state_situation(state, seat: int) -> str:
    """The situation (:mod:`lab.situations`) of ``seat`` in a :class:`lab.rules.HandState`."""
    live = list(state.hands[seat]) + [p.card for p in state.table
                                      if p.seat == seat and not p.covered]
    return situation(state.vira, live, state.rounds, seat)


def _card_group(action, held, vira) -> str:
    if action.kind == COVER:
        return "cover"
    levels = [level(c, vira) for c in held]
    mine = level(action.card, vira)
    if mine == max(levels):
        return "strongest"
    if mine == min(levels):
        return "weakest"
    return "middle"


def observations(decision) -> list:
    """``[(spot, move, {move: solver probability} or None)]`` of one graded decision
    (:class:`lab.match_review.Decision`)."""
    state = decision.position.state
    return observed(state.kind == ELEVEN and not state.eleven_decided, state.pending,
                    state.value, bool(state.table), state.hands[decision.seat], decision.vira,
                    list(decision.advice.legal), list(decision.advice.strategy),
                    decision.action)


def observed(deciding_eleven: bool, pending, value: int, card_on_table: bool, held, vira,
             legal, strategy, action) -> list:
    """``[(spot, move, {move: solver probability} or None)]`` of the move ``action`` taken
    where the ``legal`` moves were open and the solver plays ``strategy`` (probabilities in
    ``legal``'s order; None where the solver has none, and each solver probability is None):
    a mão de onze to decide (``deciding_eleven``), a raise ``pending`` to answer, else a
    turn at hand value ``value`` with the cards ``held`` in hand (``card_on_table``: the
    round's first card is down)."""
    if strategy is None:
        return [(spot, move, None) for spot, move, _ in
                observed(deciding_eleven, pending, value, card_on_table, held, vira, legal,
                         [0.0] * len(legal), action)]
    if deciding_eleven:
        return [("mao_de_onze", action.kind, _groups(legal, strategy, lambda a: a.kind))]
    if pending is not None:
        return [("answer_truco", action.kind, _groups(legal, strategy, lambda a: a.kind))]
    out = []

    def betting(a):
        return "card" if a.kind in (PLAY, COVER) else a.kind

    if any(a.kind == RAISE for a in legal):
        spot = "open_truco" if value == 1 else "raise"
        out.append((spot, betting(action), _groups(legal, strategy, betting)))
    if action.kind in (PLAY, COVER) and len(held) > 1:
        spot = "answer_card" if card_on_table else "lead"
        cards = [(a, p) for a, p in zip(legal, strategy) if a.kind in (PLAY, COVER)]
        total = sum(p for _, p in cards)
        solver = None
        if total > 0:
            solver = {}
            for a, p in cards:
                g = _card_group(a, held, vira)
                solver[g] = solver.get(g, 0.0) + p / total
        out.append((spot, _card_group(action, held, vira), solver))
    return out


def _groups(legal, strategy, group) -> dict:
    out = {}
    for a, p in zip(legal, strategy):
        g = group(a)
        out[g] = out.get(g, 0.0) + float(p)
    return out


def profile_of(review) -> Profile:
    """The profile of a :class:`lab.match_review.Review`."""
    profile = Profile(review.player, review.hands)
    for decision in review.decisions:
        bucket = bucket_of(decision.vira, decision.position.hand, decision.seat)
        profile.count(bucket, state_situation(decision.position.state, decision.seat),
                      observations(decision))
    return profile


def merge(profiles) -> Profile:
    """One profile adding the counts and the solver's sums of ``profiles`` (one player)."""
    profiles = list(profiles)
    names = {p.player for p in profiles}
    if len(names) != 1:
        raise InputError(f"profiles of different players ({', '.join(sorted(map(repr, names)))}) "
                         "do not merge")
    out = Profile(profiles[0].player)
    for p in profiles:
        out.hands += p.hands
        for key, cell in p.cells.items():
            out.cell(*key).merge(cell)
    return out


# ---------------------------------------------------------------- saved profiles


def to_json(profile: Profile) -> dict:
    cells = []
    for spot, bucket in _keys(SPOTS, BUCKETS + SITUATIONS):
        cell = profile.cells.get((spot, bucket))
        if cell is None or not cell.decisions:
            continue
        cells.append({"spot": spot, "bucket": bucket, "decisions": cell.decisions,
                      "counts": dict(cell.counts),
                      "solver_decisions": cell.solver_decisions,
                      "solver_sum": dict(cell.solver_sum)})
    return {"format": FORMAT, "player": profile.player, "hands": profile.hands, "cells": cells}


def _count(value, what: str, integer: bool = True):
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value < 0 \
            or not math.isfinite(value):
        raise InputError(f"{what} {value!r}: a number >= 0")
    return value


def from_json(obj, source: str = "profile") -> Profile:
    """A :class:`Profile` from its saved JSON object; InputError, one line, if malformed."""
    try:
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise InputError(f"not a profile (format {FORMAT})")
        player = obj.get("player")
        if not isinstance(player, str) or not player:
            raise InputError("player: a name")
        profile = Profile(player, _count(obj.get("hands"), "hands"))
        cells = obj.get("cells")
        if not isinstance(cells, list):
            raise InputError("cells: a list")
        for n, c in enumerate(cells, 1):
            what = f"cell {n}"
            if not isinstance(c, dict) or c.get("spot") not in SPOTS \
                    or c.get("bucket") not in BUCKETS + SITUATIONS \
                    or (c["bucket"] in SITUATIONS and c["spot"] not in BETTING):
                raise InputError(f"{what}: spot one of {', '.join(SPOTS)}, bucket one of "
                                 f"{', '.join(BUCKETS)} or, at {', '.join(BETTING)}, a "
                                 f"situation such as {SITUATIONS[6]}")
            counts, sums = c.get("counts"), c.get("solver_sum")
            moves = ACTIONS[c["spot"]]
            if not isinstance(counts, dict) or not isinstance(sums, dict) or \
                    any(k not in moves for k in (*counts, *sums)):
                raise InputError(f"{what}: counts and solver_sum are {{move: number}} with "
                                 f"moves {', '.join(moves)}")
            cell = Cell(_count(c.get("decisions"), f"{what} decisions"),
                        {k: _count(v, f"{what} count") for k, v in counts.items()},
                        _count(c.get("solver_decisions"), f"{what} solver_decisions"),
                        {k: float(_count(v, f"{what} solver_sum", False))
                         for k, v in sums.items()})
            if sum(cell.counts.values()) != cell.decisions:
                raise InputError(f"{what}: the counts do not add up to its decisions")
            profile.cell(c["spot"], c["bucket"]).merge(cell)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    return profile


def saved_profile(path) -> Profile | None:
    """The profile saved at ``path``, or None when the file is not a saved profile (a
    match record file, say); InputError when it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise InputError(f"{path}: cannot read it ({why})") from None
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if isinstance(obj, dict) and str(obj.get("format", "")).startswith("truco-lab/profile/"):
        return from_json(obj, str(path))
    return None


def file_name(player: str) -> str:
    """``player`` as the start of a file or folder name: itself when made of letters,
    digits, ``-``, ``_`` and ``.`` (not first); InputError otherwise."""
    if not player or not all(c.isalnum() or c in "-_." for c in player) \
            or player.startswith("."):
        raise InputError(f"player {player!r}: a name of letters, digits, '-', '_' and '.'")
    return player


class ProfileFolder:
    """Saved profiles kept in a folder, one per player: ``FOLDER/NAME.profile.json``
    (:func:`to_json`), written whole and at once (a reader never sees half a file)."""

    SUFFIX = ".profile.json"

    def __init__(self, folder):
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise InputError(f"{self.folder}: a file is there; name a folder for the profiles")

    def path(self, player: str) -> Path:
        return self.folder / f"{file_name(player)}{self.SUFFIX}"

    def load(self, player: str) -> Profile:
        """The saved profile of ``player``, or an empty one (InputError if the file there is
        not a profile of his)."""
        path = self.path(player)
        if not path.exists():
            return Profile(player)
        saved = saved_profile(path)
        if saved is None or saved.player != player:
            raise InputError(f"{path}: not a saved profile of {player!r}")
        return saved

    def save(self, profile: Profile) -> Path:
        from .store import write_atomic

        path = self.path(profile.player)
        write_atomic(path, json.dumps(to_json(profile), indent=1) + "\n")
        return path


def build(sources, player, progress=None) -> Profile:
    """The profile of ``player`` over ``sources``: a record file's path, a list of match
    records, or a list of paths (record files or saved profiles, whose counts are added)."""
    from .match_review import review

    if player is None or not isinstance(player, str) or not player:
        raise InputError(f"player {player!r}: name the player to profile")
    if isinstance(sources, (str, Path)):
        sources = [sources]
    sources = list(sources) if isinstance(sources, (list, tuple)) else sources
    if not isinstance(sources, list) or not sources:
        raise InputError("give a record file, a list of them (or saved profiles), or a list "
                         "of match records")
    from .match_record import HandRecord

    if all(isinstance(s, HandRecord) for s in sources):
        return profile_of(review(sources, player, progress))
    parts = []
    for source in sources:
        if not isinstance(source, (str, Path)):
            raise InputError(f"{type(source).__name__}: give paths of record files or saved "
                             "profiles, or a list of match records")
        saved = saved_profile(source)
        if saved is not None:
            if saved.player != player:
                raise InputError(f"{source}: a profile of {saved.player!r}, not {player!r}")
            parts.append(saved)
        else:
            parts.append(profile_of(review(source, player, progress)))
    return merge(parts)


# ---------------------------------------------------------------- reading a profile


def _keys(spots, buckets):
    """The cells of ``spots`` x ``buckets`` a profile may hold, in order (situations only
    at the betting spots)."""
    return [(spot, b) for spot in spots for b in buckets
            if b not in SITUATIONS or spot in BETTING]


def rows(profile: Profile, buckets=BUCKETS) -> list[dict]:
    """One row per spot x bucket x move (see :func:`profile_frame`); ``buckets``: the
    family of cells read (:data:`BUCKETS` or :data:`lab.situations.SITUATIONS`)."""
    out = []
    for spot, bucket in _keys(SPOTS, buckets):
        cell = profile.cells.get((spot, bucket))
        if cell is None or not cell.decisions:
            continue
        for move in ACTIONS[spot]:
            k = cell.counts.get(move, 0)
            lo, hi = wilson(k, cell.decisions)
            solver = (cell.solver_sum.get(move, 0.0) / cell.solver_decisions
                      if cell.solver_decisions else float("nan"))
            out.append({"spot": spot, "bucket": bucket, "move": move,
                        "decisions": cell.decisions, "count": k,
                        "frequency": k / cell.decisions, "ci_lo": lo, "ci_hi": hi,
                        "solver": solver, "solver_decisions": cell.solver_decisions,
                        "verdict": verdict(spot, bucket, move, k, cell.decisions, solver)})
    return out


def cell_place(bucket: str) -> str:
    """Where a cell's decisions are taken, in words: ``with middle hands``, ``with any
    hand`` (``all``) or, for a situation, ``when level in rounds, a manilha and no other
    3 or better``."""
    if bucket in SITUATIONS:
        return f"when {situation_words(bucket)}"
    return "with any hand" if bucket == "all" else f"with {bucket} hands"


def verdict(spot, bucket, move, k, n, solver) -> str:
    """The verdict in words where the Wilson interval excludes the solver's mean, else
    ``""``."""
    if not n or not math.isfinite(solver):
        return ""
    lo, hi = wilson(k, n)
    if lo <= solver <= hi:
        return ""
    how = "too often" if k / n > solver else "too rarely"
    return (f"{WORDS[(spot, move)]} {how} {cell_place(bucket)}: {k / n:.0%} "
            f"[{lo:.0%}-{hi:.0%}] where the solver does {solver:.0%}")


def profile_frame(profile: Profile):
    """One row per spot x bucket x move: ``spot``, ``bucket``, ``move``, ``decisions`` (of
    the cell), ``count``, ``frequency`` (the player's), ``ci_lo`` and ``ci_hi`` (its 95%
    Wilson interval), ``solver`` (the solver's mean probability at the same decisions),
    ``solver_decisions`` and ``verdict``. ``attrs``: ``units``, ``player``, ``hands``."""
    import pandas as pd

    columns = ["spot", "bucket", "move", "decisions", "count", "frequency", "ci_lo", "ci_hi",
               "solver", "solver_decisions", "verdict"]
    frame = pd.DataFrame(rows(profile), columns=columns)
    frame.attrs["units"] = {"decisions": "decisions", "count": "decisions",
                            "frequency": "probability", "ci_lo": "probability",
                            "ci_hi": "probability", "solver": "probability",
                            "solver_decisions": "decisions"}
    frame.attrs["player"] = profile.player
    frame.attrs["hands"] = profile.hands
    return frame


def profile_json(profile: Profile) -> dict:
    """What ``lab profile --json`` prints: the player, hands, the rows and the verdicts."""
    table = rows(profile)
    return {"player": profile.player, "hands": profile.hands, "rows": table,
            "verdicts": [r["verdict"] for r in table if r["verdict"]]}


def profile_text(profile: Profile) -> str:
    """The profile in words: per spot and bucket the player's frequencies beside the
    solver's, then the verdicts."""
    table = rows(profile)
    lines = [f"Profile of {profile.player}: {profile.hands} hands."]
    if not table:
        return "\n".join(lines + ["No graded decisions."])
    key = None
    for r in table:
        if (r["spot"], r["bucket"]) != key:
            key = (r["spot"], r["bucket"])
            lines.append(f"{r['spot']}, {r['bucket']} hands ({r['decisions']} decisions):")
        solver = "n/a" if not math.isfinite(r["solver"]) else f"{r['solver']:.0%}"
        flag = "  *" if r["verdict"] else ""
        lines.append(f"  {r['move']:<10}{r['frequency']:>5.0%} [{r['ci_lo']:.0%}-"
                     f"{r['ci_hi']:.0%}]  solver {solver}{flag}")
    verdicts = [r["verdict"] for r in table if r["verdict"]]
    lines.append("Verdicts:" if verdicts else "No move differs from the solver's beyond its "
                 "95% interval.")
    lines += [f"  {v}" for v in verdicts]
    return "\n".join(lines)


__all__ = ["Profile", "Cell", "ProfileFolder", "observed", "file_name", "BUCKETS", "SPOTS",
           "ACTIONS", "FORMAT", "build", "merge",
           "profile_of", "profile_frame", "profile_json", "profile_text", "to_json",
           "from_json", "bucket_of", "wilson", "verdict", "BETTING", "state_situation",
           "cell_place"]
