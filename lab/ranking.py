"""Bots ranked by the points they lose: exploitability and expected points against the solver.

For each bot and each vira with a stored full-game policy (:mod:`lab.tables.policies`), at 0-0
(normal hands, the game the policy solves), in **points per hand**:

``exploitability``
    What a best responder wins per hand against the bot, averaged over the two seats
    (the bot plays both seats of the hand): ``(BR_mao + BR_pe) / 2``, where ``BR_mao`` is
    the mão's best-response value against a pé playing the bot and ``BR_pe`` the pé's
    against a mão playing the bot. Exact (one best-response traversal per seat of
    :class:`~lab.solver.fullgame.solver.FullSolver`) for a bot that is a table of the solved game, a
    :class:`~lab.policy.full.FullPolicy`: the ``solver`` (its stored policy; the figure
    measured when it was stored, in the policy's manifest) and ``uniform`` (every
    (public node, private state) plays each of its solved actions with equal
    probability; no policy byte set, which the kernels read as uniform). The rule bots
    (``random``, ``cautious``, ``aggressive``) are not tabulated (playing them through every
    public node and private state of a real vira is too slow), so theirs is not given.
``ev_vs_solver``
    The bot's expected points per hand against the solver, over the two seats:
    ``(v(bot mão, solver pé) - v(solver mão, bot pé)) / 2`` with ``v`` the mão's value.
    Exact for a tabulated bot: one AVERAGE traversal of a policy whose mão slots are one
    policy's and whose pé slots are the other's (each slot belongs to one seat, so no
    kernel change is needed, :func:`seat_mixed`). Simulated otherwise: mirrored hand pairs
    against the solver bot (:mod:`lab.sim.solver_bot`; one deal played twice, the same
    cards in each seat, the bot as mão and then as pé), the pair as the unit of a normal
    95% interval.

Figures over several viras are plain means over the viras (each vira equally likely).
The ``bot_ranking`` table holds one row per (vira, bot); ``lab rank --write`` rebuilds it,
and :func:`stored_ranking` reads it back (what ``lab rank`` prints without recomputing).
A ranking takes minutes per vira: :func:`estimate_seconds` says about how long before it
starts.

This module also wires the solver bot to the stored tables for the commands (the sim
layer takes providers and never reads ``data/``): :func:`match_equity`,
:func:`eleven_accept`, :func:`stored_solver_bot`, :func:`command_bot`.
"""

from __future__ import annotations

import math
import random
import sys
import time
from dataclasses import replace
from functools import lru_cache
from typing import Iterable, Optional

import numpy as np
import pandas as pd

from .cards import DECK, RANKS, Card
from .classes import hand_classes, vira_rank_of
from .sim.stats import Z95
from .errors import InputError

NAME = "bot_ranking"
UNIFORM = "uniform"
SOLVER = "solver"
EXPLOITER = "exploiter"
DEFAULT_HANDS = 1000
"""Simulated hand pairs per vira and bot (two hands each: the bot as mão, then as pé)."""
DEFAULT_SEED = 0
MAX_HANDS = 100_000
"""Most simulated hand pairs per vira and bot (about half an hour of play per bot and
vira), checked before any work."""

LOAD_SECONDS = 10.0
"""About how long loading one vira's stored policy takes (seconds; 1 s from the page
cache, about 10 s cold)."""
UNIFORM_SECONDS = 60.0
"""About how long the uniform bot's four exact traversals of one vira take (seconds)."""
PAIR_SECONDS = 0.02
"""About how long one simulated hand pair of a rule bot against the solver takes (seconds).

Measured on the 2-core development machine: vira 4's whole ranking (every bot, 1000
pairs) was stored in 62 s (its manifest's build time); with a load of 6 (other jobs running) a
pair took 0.025-0.035 s and the uniform bot's traversals 418 s. The figures above sit in
between: all ten viras at the defaults come to about 22 minutes (``lab rank --json``
recomputing them was measured at 27 minutes)."""

COLUMNS = ("vira", "bot", "exploitability", "ev_vs_solver", "exact", "ci95_lo", "ci95_hi",
           "hands", "method")


# ---------------------------------------------------------------- the solver bot on stored data


def match_equity(directory=None) -> np.ndarray:
    """(12, 12) ``p_mao`` of the ``match_equity`` table (the mão de onze payoffs), read
    once per process from ``directory`` (default: the data dir)."""
    return _match_equity(None if directory is None else str(directory))


@lru_cache(maxsize=2)
def _match_equity(directory) -> np.ndarray:
    from .match import equity_array
    from .tables import load_table

    return equity_array(load_table("match_equity", directory=directory))


@lru_cache(maxsize=2)
def _eleven_table(directory) -> dict:
    from .tables import load_table

    table = load_table("mao_de_onze", directory=directory)
    out = {}
    for (vira, score, seat), rows in table.groupby(["vira", "score", "seat"], sort=False):
        labels = hand_classes(vira).labels
        accept = np.full(len(labels), np.nan)
        index = {label: i for i, label in enumerate(labels)}
        accept[[index[h] for h in rows["hand"]]] = rows["accept"].to_numpy()
        out[(vira, score, seat)] = accept
    return out


def eleven_accept(vira, score, directory=None) -> np.ndarray:
    """The mão de onze holder's probability of accepting with each hand class
    (:mod:`lab.classes` order) from the ``mao_de_onze`` table in ``directory`` (default:
    the data dir); ``score`` = mão's, pé's points, exactly one of them 11."""
    from .tables import TableError

    a, b = int(score[0]), int(score[1])
    if (a == 11) == (b == 11):
        raise InputError(f"{a},{b}: not a mão de onze score")
    v = RANKS[vira_rank_of(vira)]
    key = (v, f"{a},{b}", "mao" if a == 11 else "pe")
    accept = _eleven_table(None if directory is None else str(directory)).get(key)
    if accept is None or np.isnan(accept).any():
        raise TableError(f"table 'mao_de_onze' lacks vira {v} at {a},{b}; rebuild it with "
                         "`lab solve match`")
    return accept


def stored_solver_bot(progress: Optional[bool] = None):
    """The solver bot on the stored data: full-game policies (:mod:`lab.tables.policies`),
    score-aware where stored (:mod:`lab.tables.score_policies`), the mão de onze decisions of
    the ``mao_de_onze`` table and the ``match_equity`` payoffs."""
    from .tables.policies import load_full_policy
    from .tables.score_policies import load_score_policy
    from .sim.solver_bot import solver_bot

    return solver_bot(load_full_policy, eleven_accept, match_equity, progress=progress,
                      score_policies=load_score_policy)


def command_bot(name):
    """A bot named on the command line; ``solver`` is :func:`stored_solver_bot`."""
    from .sim.bots import make_bot

    if name == SOLVER:
        return stored_solver_bot()
    return make_bot(name)


# ---------------------------------------------------------------- tabulated bots, exactly


def slot_seats(policy) -> np.ndarray:
    """The seat (0 mão, 1 pé) whose decision each stored slot of ``policy`` holds: a T key's
    slots are the card player's (cards and raise), a Q key's the answerer's."""
    t, tm, keys = policy.tree, policy.templates, policy.keys
    card = np.repeat(np.arange(t.n_nodes), np.diff(keys.start))
    gid = keys.gid
    owner = np.where(tm.kind[gid] == 0, t.actor[card], tm.answerer[gid]).astype(np.int8)
    width = np.diff(np.append(keys.slot, keys.n_slots))
    return np.repeat(owner, width)


def seat_mixed(policy, q_mao: np.ndarray, q_pe: np.ndarray) -> np.ndarray:
    """A stored policy of ``policy``'s game whose mão plays ``q_mao`` and whose pé plays
    ``q_pe`` (each slot belongs to one seat, :func:`slot_seats`)."""
    return np.where(slot_seats(policy) == 0, q_mao, q_pe).astype(np.uint8)


def uniform_q(policy) -> np.ndarray:
    """The uniform policy of ``policy``'s game: no byte set (the kernels play an all-zero
    pair uniformly over its actions)."""
    return np.zeros(policy.keys.n_slots, dtype=np.uint8)


def _solver_on(policy, q: np.ndarray):
    """A FullSolver playing the stored policy ``q`` (in ``policy``'s keys) for both seats,
    at ``policy``'s payoffs: points, or a score-aware policy's match-win payoffs on the
    solver's scale (``policy.meta["half_swing"]`` match-win probability per unit)."""
    from .solver.fullgame.solver import FullSolver
    from .solver.fullgame.compact import expand

    full = expand(policy.keys, policy.tree, policy.layout, policy.templates, q)
    solver = FullSolver(replace(policy.config, storage="float32")).use_policy(full)
    if policy.payoffs is not None:
        solver.set_payoffs(*policy.payoffs)
    return solver


def best_response_values(policy, q: np.ndarray) -> tuple[float, float]:
    """(mão's best-response value against a pé playing ``q``, pé's against a mão playing
    ``q``), points per hand (a score-aware policy: on its payoffs' scale), exact."""
    return _solver_on(policy, q).best_response_values()


def exploitability(policy, q: np.ndarray) -> float:
    """Mean of both seats' best-response values against ``q``: points per hand (a
    score-aware policy: on its payoffs' scale), exact."""
    br = best_response_values(policy, q)
    return 0.5 * (br[0] + br[1])


def value_mao(policy, q_mao: np.ndarray, q_pe: np.ndarray) -> float:
    """The mão's expected points per hand when the mão plays ``q_mao`` and the pé ``q_pe``
    (a score-aware policy: on its payoffs' scale)."""
    return _solver_on(policy, seat_mixed(policy, q_mao, q_pe)).value()


def ev_against(policy, q_bot: np.ndarray, q_solver: np.ndarray) -> float:
    """The bot's expected points per hand against the solver, the seats averaged."""
    return 0.5 * (value_mao(policy, q_bot, q_solver) - value_mao(policy, q_solver, q_bot))


# ---------------------------------------------------------------- the other bots, simulated


def simulated_ev(bot, solver, vira: Card, pairs: int, seed: int) -> tuple[float, float]:
    """(mean, half-width of the 95% interval) of ``bot``'s points per hand against
    ``solver`` on ``pairs`` mirrored deals of ``vira`` at 0-0: each deal is played twice,
    the same cards in each seat, the bot as mão and then as pé (so both players hold
    both hands; the pair is the unit of the interval)."""
    from .rules import new_hand
    from .sim.hands import play_hand
    from .sim.match import stream_seed

    rest = [c for c in DECK if c != vira]
    means = np.empty(pairs)
    for k in range(pairs):
        cards = random.Random(stream_seed(seed, vira.rank, k, 0)).sample(rest, 6)
        total = 0
        for bot_seat in (0, 1):
            rng = random.Random(stream_seed(seed, vira.rank, k, 1 + bot_seat))
            bots = (bot, solver) if bot_seat == 0 else (solver, bot)
            end = play_hand(new_hand(vira, cards[:3], cards[3:]), bots, (rng, rng))
            total += end.net_points(bot_seat)
        means[k] = total / 2
    half = Z95 * float(means.std(ddof=1)) / math.sqrt(pairs) if pairs > 1 else math.inf
    return float(means.mean()), half


# ---------------------------------------------------------------- the ranking


def ranked_bots() -> tuple[str, ...]:
    """Every bot the ranking knows: the registry of :mod:`lab.sim.bots` but the exploiter
    (it plays the solver until a match teaches it a habit: hand pairs against the solver
    would rank the solver twice), and ``uniform``."""
    from .sim.bots import BOT_NAMES

    return tuple(b for b in BOT_NAMES if b != EXPLOITER) + (UNIFORM,)


TABULATED = (SOLVER, UNIFORM)


def check_bots(bots: Optional[Iterable[str]]) -> tuple[str, ...]:
    known = ranked_bots()
    if not bots:
        return known
    bad = [b for b in bots if b not in known]
    if bad:
        raise InputError(f"{bad[0]!r}: unknown bot (choose from {', '.join(known)})")
    return tuple(dict.fromkeys(bots))


def check_viras(viras: Optional[Iterable]) -> list[str]:
    """Rank characters of ``viras`` (default: every vira with a stored policy); TableError
    naming the rebuild command for a vira without one."""
    from .tables.policies import policy_info, rebuild_command, stored_viras
    from .tables import TableError

    if not viras:
        out = stored_viras()
        if not out:
            raise TableError("no stored full-game policy; build one with "
                             f"`{rebuild_command()}`")
        return out
    out = list(dict.fromkeys(RANKS[vira_rank_of(v)] for v in viras))
    for v in out:
        policy_info(v)
    return out


def vira_rows(vira: str, bots: Iterable[str], hands: int, seed: int,
              step=None) -> list[dict]:
    """The ranking rows of one vira (see the module docstring); ``step(text)`` is called
    before each bot and once at the end (progress)."""
    from .tables.policies import load_full_policy, policy_info
    from .sim.bots import make_bot

    step = step or (lambda text: None)
    info = policy_info(vira)
    policy = load_full_policy(vira)
    card = Card(RANKS.index(vira), 0)
    rows = []
    solver = stored_solver_bot(progress=False)
    for name in bots:
        row = {"vira": vira, "bot": name, "exact": name in TABULATED, "hands": 0}
        if name == SOLVER:
            step(f"vira {vira}: solver (stored figures)")
            row.update(exploitability=float(info["exploitability"]), ev_vs_solver=0.0,
                       method="stored policy: exploitability measured when stored; "
                              "ev 0 by symmetry")
        elif name == UNIFORM:
            step(f"vira {vira}: uniform (4 exact traversals)")
            q = uniform_q(policy)
            row.update(exploitability=exploitability(policy, q),
                       ev_vs_solver=ev_against(policy, q, policy.q),
                       method="uniform policy: exact best response and value")
        else:
            step(f"vira {vira}: {name} vs solver, {hands} hand pairs")
            mean, half = simulated_ev(make_bot(name), solver, card, hands, seed)
            row.update(exploitability=None, ev_vs_solver=mean, hands=int(hands),
                       ci95_lo=mean - half, ci95_hi=mean + half,
                       method="simulated: mirrored hand pairs against the solver bot")
        if row["exact"]:
            row.update(ci95_lo=None, ci95_hi=None)
        rows.append(row)
    return rows


def check_counts(hands: int = DEFAULT_HANDS, seed: int = DEFAULT_SEED) -> None:
    """InputError unless ``hands`` is 2 to :data:`MAX_HANDS` and ``seed`` is 0 or more."""
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 2:
        raise InputError(f"{hands!r}: --hands must be an integer of at least 2")
    if hands > MAX_HANDS:
        raise InputError(f"--hands {hands}: at most {MAX_HANDS} simulated hand pairs per "
                         "vira and bot")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"{seed!r}: the seed must be a non-negative integer")


def check_ranking(viras=None, bots=None, hands: int = DEFAULT_HANDS,
                  seed: int = DEFAULT_SEED) -> tuple[list, list]:
    """(viras, bots) of a ranking, checked (InputError on a bad one) before any work."""
    check_counts(hands, seed)
    return check_viras(viras), check_bots(bots)


def estimate_seconds(viras, bots, hands: int = DEFAULT_HANDS) -> float:
    """About how long :func:`rank_bots` takes for ``viras`` and ``bots`` (checked lists)
    with ``hands`` pairs per rule bot: seconds, from :data:`LOAD_SECONDS`,
    :data:`UNIFORM_SECONDS` and :data:`PAIR_SECONDS`."""
    simulated = sum(b not in TABULATED for b in bots)
    per_vira = (LOAD_SECONDS + (UNIFORM_SECONDS if UNIFORM in bots else 0.0)
                + simulated * hands * PAIR_SECONDS)
    return len(viras) * per_vira


def duration_text(seconds: float) -> str:
    """``about 40 s``, ``about 3 minutes``, ``about 2.5 hours``."""
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} minutes"
    return f"about {seconds / 3600:.1f} hours"


def rank_bots(viras=None, bots=None, hands: int = DEFAULT_HANDS, seed: int = DEFAULT_SEED,
              progress: Optional[bool] = None) -> pd.DataFrame:
    """One row per (vira, bot): COLUMNS (points per hand). Viras one at a time (a real
    policy holds about 1 GB). ``progress``: a tqdm bar on stderr over the (vira, bot)
    steps (None: when stderr is a terminal)."""
    from tqdm import tqdm

    viras, bots = check_ranking(viras, bots, hands, seed)
    rows = []
    with tqdm(total=len(viras) * len(bots), unit="bot", file=sys.stderr, leave=False,
              disable=None if progress is None else not progress) as bar:
        started = [False]

        def step(text):
            if started[0]:
                bar.update()
            started[0] = True
            bar.set_description(text)

        for v in viras:
            rows += vira_rows(v, bots, hands, seed, step)
        bar.update(bar.total - bar.n)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def summary(frame: pd.DataFrame) -> list[dict]:
    """One entry per bot, averaged over the frame's viras, best ``ev_vs_solver`` first:
    ``bot``, ``exploitability`` (None unless exact), ``ev_vs_solver``, ``exact``,
    ``ci95`` (None when exact), ``viras``, ``hands`` (simulated pairs per vira)."""
    out = []
    for bot, rows in frame.groupby("bot", sort=False):
        n = len(rows)
        exact = bool(rows["exact"].all())
        ev = float(rows["ev_vs_solver"].mean())
        expl = rows["exploitability"]
        entry = {"bot": bot,
                 "exploitability": float(expl.mean()) if exact and expl.notna().all() else None,
                 "ev_vs_solver": ev, "exact": exact, "ci95": None,
                 "viras": list(rows["vira"]), "hands": int(rows["hands"].iloc[0])}
        if not exact:
            # the mean of independent per-vira estimates: half-widths add in quadrature / n
            half = math.sqrt(float(((rows["ci95_hi"] - rows["ci95_lo"]) / 2).pow(2).sum())) / n
            entry["ci95"] = [ev - half, ev + half]
        out.append(entry)
    return sorted(out, key=lambda e: -e["ev_vs_solver"])


# ---------------------------------------------------------------- the stored table


RECOMPUTE = "`lab rank --recompute` ranks now without storing"


def stored_ranking(viras=None, bots=None, hands: Optional[int] = None,
                   seed: Optional[int] = None, directory=None) -> tuple[pd.DataFrame, dict]:
    """(rows, manifest) of the stored ``bot_ranking`` table (COLUMNS, points per hand)
    for ``viras`` (default: every vira it holds) and ``bots`` (default: every bot it
    holds), read through :mod:`lab.tables` (manifest and hash checked). ``hands`` and
    ``seed``, when given, must be the table's. InputError naming ``--recompute`` when the
    table does not hold what is asked; TableError (with the commands that build it) when it
    is missing, stale or corrupt."""
    from .tables import TableError, load_table, read_manifest, solved_viras

    check_counts(DEFAULT_HANDS if hands is None else hands,
                 DEFAULT_SEED if seed is None else seed)
    asked_viras = list(dict.fromkeys(RANKS[vira_rank_of(v)] for v in viras)) if viras else None
    asked_bots = check_bots(bots) if bots else None
    try:
        held = solved_viras(NAME, directory)
        manifest = read_manifest(NAME, directory)
    except TableError as exc:
        raise TableError(f"{exc}; {RECOMPUTE}") from None
    settings = manifest["settings"]

    def cannot(what: str, store: str = "") -> InputError:
        return InputError(f"the stored {NAME} table {what}; add --recompute to rank now"
                          + (f" (`{store}` also stores it)" if store else ""))

    if hands is not None and hands != settings.get("hands"):
        raise cannot(f"holds {settings.get('hands')} simulated hand pairs per vira, not "
                     f"{hands}")
    if seed is not None and seed != settings.get("seed"):
        raise cannot(f"holds seed {settings.get('seed')}, not {seed}")
    lacking = [v for v in asked_viras or () if v not in held]
    if lacking:
        raise cannot(f"lacks vira {', '.join(lacking)} (it holds {', '.join(held)})",
                     f"lab rank --write --vira {' '.join(lacking)}")
    table = load_table(NAME, viras=asked_viras or held, directory=directory)
    if asked_bots:
        absent = [b for b in asked_bots if b not in set(table["bot"])]
        if absent:
            raise cannot(f"holds no row of bot {', '.join(absent)}")
        table = table[table["bot"].isin(asked_bots)].reset_index(drop=True)
    return table, manifest


def stored_line(table: pd.DataFrame, manifest: dict, directory=None) -> str:
    """One line: which stored table and policies ``table`` (from :func:`stored_ranking`)
    shows, what it does not hold, and how to recompute."""
    from .tables import TableError, table_paths
    from .tables.policies import policy_info

    settings = manifest["settings"]
    viras = [v for v in RANKS if v in set(table["vira"])]
    held = [v for v in RANKS if v in manifest.get("viras", {})]
    built = str(manifest.get("built", ""))[:10] or "at an unrecorded date"
    expl = [float(manifest["viras"][v].get("exploitability", math.nan)) for v in viras]
    span = (f"{min(expl):.3f}" if f"{min(expl):.3f}" == f"{max(expl):.3f}" else
            f"{min(expl):.3f}-{max(expl):.3f}")
    score = str(settings.get("score", "0,0")).replace(",", "-")
    text = (f"stored {NAME} table ({table_paths(NAME, directory)[0].name}, built {built}): "
            f"vira {', '.join(viras)} at {score}, against the stored full-game "
            f"polic{'y' if len(viras) == 1 else 'ies'} (exploitability {span} points per "
            f"hand); {settings.get('hands')} simulated hand pairs per vira, seed "
            f"{settings.get('seed')}")
    changed = []
    for v in viras:
        try:
            now = policy_info(v, directory).get("sha256")
        except TableError:
            now = None
        if manifest["viras"][v].get("policy_sha256") != now:
            changed.append(v)
    if changed:
        text += (f"; vira {', '.join(changed)}: the policy stored now is another, "
                 f"`lab rank --write --vira {' '.join(changed)}` ranks it again")
    if len(held) < len(RANKS):
        missing = [v for v in RANKS if v not in held]
        text += (f"; the table lacks vira {', '.join(missing)} "
                 f"(`lab rank --write --vira {' '.join(missing)}` adds them)")
    return text + f"; {RECOMPUTE}"


# ---------------------------------------------------------------- the table


def write_ranking(frame: pd.DataFrame, seconds: float = 0.0, directory=None,
                  replace: bool = False) -> pd.DataFrame:
    """Write ``frame`` (from :func:`rank_bots` with the default hands and seed) into the
    ``bot_ranking`` table, keeping the rows of other viras already there (the table grows
    one vira at a time; a table there that cannot be kept is refused, TableError, unless
    ``replace``: only these rows); per vira the manifest records the policy it was ranked
    against. Returns the table written."""
    from .tables.policies import policy_info
    from .tables import spec_of, write_merged

    viras = {}
    for v in frame["vira"].unique():
        info = policy_info(v)
        viras[v] = {"iterations": int(info["iterations"]),
                    "exploitability": float(info["exploitability"]),
                    "policy_sha256": info.get("sha256"),
                    "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    return write_merged({NAME: frame.reset_index(drop=True)}, spec_of(NAME).settings, viras,
                        directory, seconds, replace)[NAME]


# ---------------------------------------------------------------- self-play value


def self_play_value(policies, vira, hands: int, seed: int = 0) -> dict:
    """The solver bot against itself on ``hands`` random deals of one ``vira`` (a Card) at
    0-0: the mão's mean points per hand with its 95% interval (normal approximation).
    ``policies``: vira -> FullPolicy, as :func:`lab.sim.solver_bot.solver_bot` takes.

    A benchmark-style check of the stored policy's ``value_mao`` (points per hand): the
    bot plays the policy, so the interval should hold it. About 30 ms per hand with a
    real vira's policy once it is loaded (about 10 s)."""
    from .sim.hands import hand_summary, sample_hands
    from .sim.solver_bot import solver_bot

    bot = solver_bot(policies, progress=False)
    frame = sample_hands(bot, bot, int(hands), seed, vira=vira)
    s = hand_summary(frame)
    return {"vira": str(vira), "hands": s["hands"], "mao_points": s["mao_points"],
            "ci95": s["mao_points_ci95"],
            "how": {k: int(v) for k, v in frame["how"].value_counts().items()}}
