"""The full hand game with the truco ladder: a compact Discounted CFR solver.

:class:`FullSolver` solves one vira (or a reduced configuration: a toy deck
and a shorter ladder) of the hand game with betting, on the compact layout of
:mod:`lab.solver.fullgame.tree` with the traversal of :mod:`lab.solver.fullgame.kernels`.
Units: every value is in **points** (tentos) per hand; the mão's utility is
what he wins, the pé's is minus that (zero-sum). Exploitability is the mean
of both seats' exact best-response gains, in points per hand.

It goes through the same states as :class:`~lab.solver.cfr.CFRSolver`:
``built`` (tree and layout; :meth:`memory_estimate` says what allocating
costs), ``allocated`` (regrets and strategy sums, float32 or 16-bit with a
scale per public node) and ``solved``.

Discounted CFR as in :mod:`lab.solver.cfr` (alternating updates; the weights are a
named schedule, ``dcfr``: alpha 1.5, beta 0, gamma 2 by default), with each seat's
strategy sums added in the other seat's walk (so that a walk can leave out the betting
nodes the opponent does not reach: see :mod:`lab.solver.fullgame.kernels`); with
``storage="float32"`` it runs the same iterates as the generic solver with
``sums_in_opponent_walk`` on the reference game of :mod:`lab.solver.fullgame.game`.
Checkpoints written before the sums moved (their regrets and sums mean the same) resume
with the sums added in the new place; the regrets run on exactly as before.

Threads: ``FullSolver(config, threads=2)`` splits the subtrees of the mão's opening
cards among threads (bit-identical iterates: the subtrees' values are added in one
order whatever the threads). The traversal is compiled once per machine into numba's
on-disk cache (a minute or two) and loaded from there in well under a second;
:func:`ensure_compiled` does either outside timed solves.

Long runs: :meth:`FullSolver.solve` stops at a target exploitability, an
iteration cap or a time budget; it shows a tqdm bar with the iterations and
the current exploitability, and with ``checkpoint_dir`` it saves the regrets,
strategy sums and history there every ``checkpoint_seconds`` (and at the
end), so that a new solver with the same directory resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

import numpy as np

from ...cards import RANKS
from ...classes import vira_rank_of
from ...rules import DEFAULT_RULES, RULE_CHOICES, RuleSet
from . import kernels as K
from .last_node import history_offsets
from .records import AVERAGE, BEST, CFR, Step, Store, Tree, Work
from .updates import discount_untouched_sums
from ..games.cardplay_game import CardplayGame
from .game import LADDER
from .packed import SUFFIX, PackedError, load_array, save_array
from .tree import (CardTree, build_card_tree, build_templates, entering_states, layout,
                   share_among_threads, subtree_work)
from ...errors import InputError
from ...interrupts import interrupts_held
from .. import cache
from ..cfr import schedule_of
from ..lifecycle import ALLOCATED, BUILT, SOLVED, Lifecycle, SolverStateError

STORAGES = ("int16", "float32")


class MemoryLimitError(MemoryError):
    """Allocating the solver would not fit in the memory allowed."""


@dataclass(frozen=True)
class FullConfig:
    """What is solved: a vira (rank character) or a toy deck (copies per level), a ladder,
    how regrets are stored (``int16`` with a per-node scale, or ``float32``), and who takes
    a normal hand whose three rounds tie (:attr:`lab.rules.RuleSet.three_ties`: ``mao``,
    the lab's rules, or ``nobody`` or ``pe``)."""

    vira: Optional[str] = None
    toy_cap: Optional[tuple] = None
    ladder: tuple = LADDER
    storage: str = "int16"
    three_ties: str = DEFAULT_RULES.three_ties

    def __post_init__(self):
        if (self.vira is None) == (self.toy_cap is None):
            raise InputError("give a vira or a toy deck (toy_cap), not both")
        if self.storage not in STORAGES:
            raise InputError(f"{self.storage!r}: storage is one of {', '.join(STORAGES)}")
        if tuple(self.ladder) != tuple(sorted(set(self.ladder))) or len(self.ladder) < 1 \
                or self.ladder[0] < 1:
            raise InputError(f"{self.ladder}: a ladder is increasing hand values from 1 up")
        if self.toy_cap is not None and not (
                2 <= len(self.toy_cap) <= 13 and all(1 <= c <= 4 for c in self.toy_cap)
                and sum(self.toy_cap) >= 6):
            raise InputError(f"{list(self.toy_cap)}: a toy deck is 2 to 13 levels of 1 to 4 "
                             "copies each, at least 6 cards")
        if self.three_ties not in RULE_CHOICES["three_ties"]:
            raise InputError(f"three_ties={self.three_ties!r}: one of "
                             f"{', '.join(RULE_CHOICES['three_ties'])}")

    @property
    def label(self) -> str:
        deck = f"vira {self.vira}" if self.vira else f"toy {list(self.toy_cap)}"
        ties = "" if self.three_ties == DEFAULT_RULES.three_ties else \
            f", three ties: {self.three_ties}"
        return f"{deck}, ladder {'-'.join(map(str, self.ladder))}, {self.storage}{ties}"

    def as_dict(self) -> dict:
        """The configuration as checkpoints record it (the lab's own three-ties rule left
        out, so that checkpoints written before the field existed still match)."""
        d = asdict(self)
        d["ladder"] = list(self.ladder)
        d["toy_cap"] = list(self.toy_cap) if self.toy_cap else None
        if self.three_ties == DEFAULT_RULES.three_ties:
            del d["three_ties"]
        return d


def config_for(vira=None, *, toy_cap=None, ladder=LADDER, storage="int16",
               three_ties=DEFAULT_RULES.three_ties) -> FullConfig:
    v = None if vira is None else RANKS[vira_rank_of(vira)]
    return FullConfig(v, None if toy_cap is None else tuple(int(x) for x in toy_cap),
                      tuple(int(x) for x in ladder), storage, three_ties)


def card_game(config: FullConfig) -> CardplayGame:
    """The card play of ``config``'s deck, one per (deck, three-ties rule) in a process
    (read only, about 1.5 MB: a vira's points and score-aware policies share it)."""
    return _card_game(config.vira, config.toy_cap, config.three_ties)


@lru_cache(maxsize=32)
def _card_game(vira, toy_cap, three_ties) -> CardplayGame:
    return CardplayGame(vira, fold_round3=False, toy_cap=toy_cap,
                        three_ties=RuleSet(three_ties=three_ties).tied_hand_winner)


@lru_cache(maxsize=4)
def _card_tree(toy_cap, three_ties) -> CardTree:
    # pruning uses structural copies, so one tree serves all ten viras
    def build():
        ties = RuleSet(three_ties=three_ties).tied_hand_winner
        return build_card_tree(CardplayGame("4" if toy_cap is None else None,
                                            fold_round3=False, toy_cap=toy_cap, three_ties=ties))
    if toy_cap is not None:
        return build()
    name = "card_tree" if three_ties == DEFAULT_RULES.three_ties else f"card_tree-{three_ties}"
    return disk_cached(name, build)


TREE_SOURCES = ("cards.py", "classes.py", "rules.py", "solver/games/cardplay_game.py",
                "solver/fullgame/tree.py")
"""The code a cached card tree or layout depends on (its hash names the cache file)."""


def disk_cached(name: str, build, sources=(), keep=None):
    """:func:`lab.solver.cache.disk_cached` hashing :data:`TREE_SOURCES` and ``sources``:
    the real game's card tree takes 16 s to build and 0.3 s to load."""
    return cache.disk_cached(name, build, TREE_SOURCES + tuple(sources), keep)


def card_tree(config: FullConfig) -> CardTree:
    return _card_tree(config.toy_cap, config.three_ties)


_LAYOUTS: dict = {}


def game_layout(config: FullConfig, tree: CardTree, templates):
    """The storage layout (:func:`~lab.solver.fullgame.tree.layout`) of ``config``'s card
    tree ``tree`` and betting ``templates``: built once per process, and for the real game
    (3-5 s to build) kept on disk."""
    key = (config.toy_cap, config.three_ties, templates.ladder)
    if key not in _LAYOUTS:
        if config.toy_cap is None:
            ties = "" if config.three_ties == DEFAULT_RULES.three_ties \
                else f"-ties-{config.three_ties}"
            name = f"layout-{'-'.join(map(str, templates.ladder))}{ties}"
            _LAYOUTS[key] = disk_cached(name, lambda: layout(tree, templates))
        else:
            _LAYOUTS[key] = layout(tree, templates)
    return _LAYOUTS[key]


def no_history_tables() -> tuple:
    """Stand-ins for :data:`~lab.solver.fullgame.records.Tree`'s per-history tables, of their
    types: only a lazy CFR walk on float32 storage reads them (the one pass per history at
    the round-3 showdown nodes), so a solver computes them when it allocates that storage
    (:meth:`FullSolver.allocate`), and a stored policy's solver never does."""
    return np.zeros(1, np.int64), np.zeros(1, np.int32), np.zeros(1, np.int32)


def history_table_bytes(layout) -> int:
    """Bytes of the per-history tables (:func:`no_history_tables`) for ``layout``."""
    return 8 * (len(layout.n_enter) + 1) + 2 * 4 * int(layout.n_enter.sum())


def _gib(x: float) -> str:
    return f"{x / 2**30:.2f} GiB"


class FullSolver(Lifecycle):
    """Discounted CFR on the compact layout of the full hand game (see the module doc)."""

    def __init__(self, config: FullConfig, threads: int = 1, schedule="dcfr"):
        start = time.perf_counter()
        self.config = config
        self.threads = max(1, int(threads))
        self.schedule = schedule_of(schedule)
        self.cards = card_game(config)
        self.tree = card_tree(config)
        self.templates = build_templates(config.ladder)
        self.layout = game_layout(config, self.tree, self.templates)
        # writable copies: a read-only array would make numba compile the traversal again
        w = np.array(self.cards.deal_weights(), dtype=np.float64)
        self.weights = (np.ascontiguousarray(w), np.ascontiguousarray(w.T))
        self.ladder = np.asarray(config.ladder, dtype=np.float64)
        self.payoffs = None   # points; see set_payoffs
        # CFR walks leave out the betting nodes the opponent does not reach (False: walk
        # them too, for the same numbers; see records.Step); the share of (public node,
        # hand) pairs the last iteration's walks left out
        self.prune_dead = True
        self.dead_share = 0.0
        # and they do not even discount the dead nodes' regrets until those are next
        # reached (a schedule that is not predictive; updates.catch_up)
        self.lazy_discount = True
        # the histories entering a round-3 showdown node whose turn is the forced card alone,
        # and in a lazy CFR walk the dead ones, get no betting node (False: they do, for the
        # same numbers; see records.Step)
        self.histories_apart = True
        # with them set apart, a lazy CFR walk on float32 storage works a round-3 showdown
        # node one entering history at a time (False: in three passes over all of them, the
        # same numbers; see last_node.last_node_by_history)
        self.histories_one_pass = True
        self._factor_rows = (np.ones(1), np.ones(1))   # see _factors
        # the game's shape as the kernels take it (records.Tree)
        t, L, tm = self.tree, self.layout, self.templates
        self.shape = Tree(
            t.kind, t.actor, t.winner, t.showdown, t.lead, t.child_start, t.child_count,
            t.pair_start, t.n, t.n_edges, t.pair_hand, t.pair_level, t.pair_parent, t.pair_edge,
            t.pair_edge_start, t.pair_edge_count, L.slot_base, L.node_base,
            tm.start, tm.size, tm.kind, tm.parent, tm.child_a, tm.child_b, tm.value,
            tm.exit_state, tm.answerer, L.n_t + L.n_q, *no_history_tables())
        # the root's subtrees, shared among the threads by the work each holds; a CFR walk
        # shares them by the live pairs each held in the same seat's previous walk
        cs, cc = t.child_start[0], t.child_count[0]
        self.root_owner = None if self.threads == 1 else share_among_threads(
            subtree_work(t, L)[cs:cs + cc], self.threads)
        self.root_live = np.zeros((2, cc), dtype=np.int64)
        self.build_seconds = time.perf_counter() - start
        self.state = BUILT
        self.iterations = 0
        self.complete = True    # regrets and sums hold whole iterations only (see iterate)
        self.seconds = 0.0        # spent iterating (resumed solves: all runs)
        self.check_seconds = 0.0  # spent measuring the exploitability in solve()
        self.history: list = []   # (iterations, seconds, exploitability)
        self.final_exploitability = float("nan")
        self.fixed_policy = False  # see use_policy
        self.start: Optional[dict] = None   # the solve this one started from (warm_start)

    # ------------------------------------------------------------ sizes and memory
    def sizes(self) -> dict:
        L = self.layout
        return {"card_nodes": self.tree.n_nodes, "card_pairs": self.tree.n_pairs,
                "public_nodes": L.n_public, "public_pairs": L.public_pairs,
                "terminals": L.terminal_nodes, "regret_entries": L.n_slots}

    def memory_estimate(self) -> dict:
        """Bytes :meth:`allocate` will take: regrets + strategy sums (+ scales: two per
        public node in 16 bits, the sums' one in float32; and two iteration stamps per public
        node; with float32, the per-history tables), buffers, and the card tree and layout
        already held."""
        L = self.layout
        per = 8 if self.config.storage == "float32" else 4
        storage = L.n_slots * per + L.n_public * (4 if per == 8 else 8) + L.n_public * 8
        if self.schedule.predictive:   # the predicted regrets (and their scales)
            storage += L.n_slots * per // 2 + (0 if per == 8 else L.n_public * 4)
        if per == 8:   # the per-history tables of the one-pass walk
            storage += history_table_bytes(L)
        buffers = self._buffer_bytes()
        held = sum(v.nbytes for v in vars(self.tree).values() if isinstance(v, np.ndarray))
        held += sum(v.nbytes for v in vars(L).values() if isinstance(v, np.ndarray))
        return {"storage": storage, "buffers": buffers, "tree": held,
                "total": storage + buffers + held}

    def _buffer_sizes(self) -> dict:
        b = self.layout.buffers
        D = len(b["intra"])
        return {"D": D, "enter": int(2 * b["enter_n"].max()) + 8,
                "intra": int(2 * b["intra_n"].max()) + 8, "sig": int(b["sig"].max()) + 8,
                "k": int(b["intra"].max()) + 1,
                "tmp": int(self.layout.max_node_slots) + 8,
                "n2": int(self.layout.max_n) ** 2 + 8}

    def _buffer_bytes(self) -> int:
        s = self._buffer_sizes()
        return 8 * s["D"] * (2 * s["enter"] + 2 * s["intra"] + 2 * s["sig"] + 8 * s["k"]
                             + s["k"] + s["n2"] + s["k"] // 4) + 8 * 6 * s["tmp"]

    def check_memory(self, limit_bytes: Optional[int] = None, out=None) -> dict:
        """Print the memory estimate; raise MemoryLimitError if it exceeds ``limit_bytes``
        (default: the memory available now)."""
        est = self.memory_estimate()
        if limit_bytes is None:
            try:
                import psutil
                limit_bytes = int(psutil.virtual_memory().available)
            except Exception:  # pragma: no cover - psutil is installed
                limit_bytes = None
        msg = (f"full game ({self.config.label}): {self.layout.n_public:,} public nodes, "
               f"{self.layout.public_pairs:,} (node, hand) pairs, {self.layout.n_slots:,} "
               f"regret entries; memory estimate {_gib(est['total'])} (storage "
               f"{_gib(est['storage'])}, buffers {_gib(est['buffers'])}, tree "
               f"{_gib(est['tree'])})")
        if out is not None:
            print(msg, file=out, flush=True)
        if limit_bytes is not None and est["total"] > limit_bytes:
            raise MemoryLimitError(
                f"the full game ({self.config.label}) needs about {_gib(est['total'])} but only "
                f"{_gib(limit_bytes)} may be used; try --storage int16, a reduced "
                "configuration, or a machine with more memory")
        return est

    # ------------------------------------------------------------ allocation
    def allocate(self, limit_bytes: Optional[int] = None, out=None) -> "FullSolver":
        self._need_built("allocate()")
        self.check_memory(limit_bytes, out)
        L = self.layout
        wide = self.config.storage == "float32"
        one32 = np.zeros(1, dtype=np.float32)
        if wide:
            self._compute_history_tables()
            self.reg32 = np.zeros(L.n_slots, dtype=np.float32)
            self.cum32 = np.zeros(L.n_slots, dtype=np.float32)
            self.reg16 = np.zeros(1, dtype=np.int16)
            self.cum16 = np.zeros(1, dtype=np.uint16)
            self.rscale = one32.copy()
            # the sums' scales: one until a lazy iteration leaves a node out (records.Store)
            self.cscale = np.ones(L.n_public, dtype=np.float32)
        else:
            self.reg32, self.cum32 = one32.copy(), one32.copy()
            self.reg16 = np.zeros(L.n_slots, dtype=np.int16)
            self.cum16 = np.zeros(L.n_slots, dtype=np.uint16)
            self.rscale = np.ones(L.n_public, dtype=np.float32)
            self.cscale = np.ones(L.n_public, dtype=np.float32)
        # the iteration each public node's regrets and sums hold (records.Store)
        self.rstamp = np.zeros(L.n_public, dtype=np.int32)
        self.cstamp = np.zeros(L.n_public, dtype=np.int32)
        if self.schedule.predictive:
            self.pred32, self.pred16, self.pscale = (np.zeros_like(self.reg32),
                                                     np.zeros_like(self.reg16),
                                                     np.ones_like(self.rscale))
        else:   # regret matching reads the regrets themselves
            self.pred32, self.pred16, self.pscale = self.reg32, self.reg16, self.rscale
        self._allocate_buffers()
        self.state = ALLOCATED
        return self

    def _compute_history_tables(self) -> None:
        """The per-history tables of :data:`~lab.solver.fullgame.records.Tree` (see
        :func:`~lab.solver.fullgame.last_node.history_offsets`), once per solver."""
        if self.shape.history_start.shape[0] == len(self.layout.n_enter) + 1:
            return
        start, states = entering_states(self.tree, self.layout, self.templates)
        n = states.shape[0]
        self.shape = self.shape._replace(history_start=start,
                                         history_slot=np.zeros(n, np.int32),
                                         history_node=np.zeros(n, np.int32))
        history_offsets(self.shape, states)

    def _allocate_buffers(self) -> None:
        s = self._buffer_sizes()
        D = s["D"]
        self.work = Work(
            ENT=np.zeros((D, s["enter"])), OUT=np.zeros((D, s["enter"])),
            ES=np.zeros((D, s["k"]), dtype=np.int64), RI=np.zeros((D, s["intra"])),
            VI=np.zeros((D, s["intra"])), SIG=np.zeros((D, s["sig"])),
            EV=np.zeros((D, s["sig"])), KI=np.zeros((D, s["k"], 8), dtype=np.int64),
            TMP=np.zeros((7, s["tmp"])), WC=np.zeros((D, s["n2"])),
            TK=np.zeros((D, s["k"]), dtype=np.int64),
            MK=np.zeros((D, s["enter"]), dtype=np.uint8),
            DK=np.zeros((D, s["k"]), dtype=np.uint8), ED=np.zeros((D, s["k"]), dtype=np.uint8),
            DC=np.zeros(2, dtype=np.int64), FH=np.zeros((D, s["k"]), dtype=np.int64))
        # one set of working buffers per thread for the root's subtrees
        self.thread_work = None if self.threads == 1 else Work(
            *(np.stack([np.zeros_like(arr) for _ in range(self.threads)]) for arr in self.work))

    def use_policy(self, q: np.ndarray) -> "FullSolver":
        """Hold a stored policy instead of regrets (:mod:`lab.solver.fullgame.compact`): both
        seats' average strategy is ``q`` (one byte per slot, each stored pair summing to
        its quantisation). Best responses, values and the outcome distribution are then
        those of the stored policy, exactly; :meth:`iterate` is refused. Needs a solver
        built with ``storage="float32"``.

        The kernels read ``q`` as 16-bit strategy sums with one scale (their walks that
        are not CFR read no scale): the arrays have the types of a solver's own, so the
        walks compiled for solving serve the policy too (held as bytes, numba compiled
        every walk again for it, 40 s), for two bytes per slot instead of one."""
        self._need_built("use_policy()")
        if self.config.storage != "float32":
            raise ValueError("use_policy() needs a solver configured with storage='float32'")
        q = np.asarray(q)
        if q.shape != (self.layout.n_slots,):
            raise ValueError(f"a policy of {q.shape[0]:,} slots for a game of "
                             f"{self.layout.n_slots:,}")
        self.cum16 = q.astype(np.uint16, copy=False)   # held as given when 16-bit already
        # the responder's own strategy never enters his values
        self.reg16 = self.cum16.view(np.int16)
        self.reg32 = np.zeros(1, dtype=np.float32)
        self.cum32 = np.zeros(1, dtype=np.float32)
        self.rscale = np.ones(1, dtype=np.float32)
        self.cscale = np.ones(1, dtype=np.float32)
        self.rstamp = np.zeros(1, dtype=np.int32)
        self.cstamp = np.zeros(1, dtype=np.int32)
        self.pred32, self.pred16, self.pscale = self.reg32, self.reg16, self.rscale
        self._allocate_buffers()
        self.fixed_policy = True
        self.state = ALLOCATED
        return self

    # ------------------------------------------------------------ traversals
    def set_payoffs(self, mao_scores, pe_scores) -> "FullSolver":
        """Play for other payoffs than points: the mão is paid ``mao_scores[k]`` when he
        scores the ``k``-th ladder value and ``pe_scores[k]`` when the pé scores it (for
        instance the mão's match-win probability after the hand); the pé is paid the
        negative (a zero-sum game with the same equilibria as the constant-sum match).
        ``None`` for both goes back to points."""
        if mao_scores is None and pe_scores is None:
            self.payoffs = None
            return self
        a = np.asarray(mao_scores, dtype=np.float64)
        b = np.asarray(pe_scores, dtype=np.float64)
        if a.shape != self.ladder.shape or b.shape != self.ladder.shape:
            raise ValueError(f"payoffs need one value per ladder value {list(self.config.ladder)}")
        self.payoffs = (a, b)
        return self

    def restart_average(self) -> "FullSolver":
        """Forget the strategy sums (keep the regrets): the average strategy restarts from
        the next iteration. A warm start for a changed game: measured on a reduced deck
        after 30 iterations with match payoffs, exploitability 0.0017-0.0029 against
        0.0069-0.024 when the points average is kept (and 0.0021-0.0091 from scratch)."""
        self._need(ALLOCATED, "restart_average()")
        self.cum16[...] = 0
        self.cum32[...] = 0
        return self

    def warm_start(self, directory) -> "FullSolver":
        """Start from the regrets of another vira's solve saved in ``directory`` (the same
        card tree, ladder, storage and rules), its average restarted
        (:meth:`restart_average`). The iteration count goes on from the source's, so the
        discount weights are those of a late iteration; :attr:`own_iterations` and
        :attr:`seconds` count this solve's only. Measured in ``benchmarks/full.md``: vira
        6 from vira 7's 90-iteration solve reached 0.01 points per hand after 30
        iterations, against 80-100 from scratch."""
        self.load_checkpoint(directory, any_vira=True)
        meta = json.loads(_state_file(directory).read_text())
        self.start = {"vira": meta["config"]["vira"], "iterations": self.iterations,
                      "exploitability": self.final_exploitability}
        self.restart_average()
        self.seconds, self.check_seconds, self.history = 0.0, 0.0, []
        self.final_exploitability = float("nan")
        return self

    def in_storage(self, storage: str) -> "FullSolver":
        """This solve in ``storage`` (``int16`` or ``float32``): itself when it is stored so
        already, else a new solver of the same game, schedule and threads holding its
        regrets and strategy sums (rounded to 16 bits per public node, or widened:
        :mod:`lab.solver.fullgame.storage`), iterations, history, start and payoffs."""
        from dataclasses import replace

        from .storage import copy_storage

        self._need(ALLOCATED, "in_storage()")
        if storage == self.config.storage:
            return self
        other = FullSolver(replace(self.config, storage=storage), threads=self.threads,
                           schedule=self.schedule.name).allocate()
        copy_storage(self, other)
        other.iterations, other.seconds = self.iterations, self.seconds
        other.check_seconds = self.check_seconds
        other.history, other.start = list(self.history), self.start
        other.final_exploitability = self.final_exploitability
        other.set_payoffs(*(self.payoffs if self.payoffs is not None else (None, None)))
        return other

    @property
    def own_iterations(self) -> int:
        """Iterations of this solve, not counting those of the solve it started from."""
        return self.iterations - (self.start["iterations"] if self.start else 0)

    def seat_payoffs(self, u: int):
        """(ladder, win, lose) of the traversal for seat ``u`` under the current payoffs,
        each an array over the ladder (see :meth:`traverse`)."""
        ones = np.ones_like(self.ladder)
        if self.payoffs is None:
            return self.ladder, ones, ones.copy()
        a, b = self.payoffs
        return (ones, a, -b) if u == 0 else (ones, -b, a)

    def traverse(self, u: int, mode: int, pos=0.0, neg=0.0, avg=0.0, ladder=None,
                 win=None, lose=None, iteration: int = 1) -> np.ndarray:
        """Counterfactual values of seat ``u``'s root hands (payoff times deal probability).

        ``u`` gets ``win * ladder[k]`` for winning a hand worth the ``k``-th ladder value
        and ``-lose * ladder[k]`` for losing it; ``win`` and ``lose`` are numbers or arrays
        over the ladder. Left out (None), they are the solver's payoffs (points unless
        :meth:`set_payoffs` said otherwise)."""
        given = [x is not None for x in (ladder, win, lose)]
        if not any(given):
            lad, win, lose = self.seat_payoffs(u)
        elif not all(given):
            raise ValueError("traverse(): give ladder, win and lose together, or none of them")
        else:
            lad = np.asarray(ladder, dtype=np.float64)
            win = np.broadcast_to(np.asarray(win, dtype=np.float64), lad.shape).copy()
            lose = np.broadcast_to(np.asarray(lose, dtype=np.float64), lad.shape).copy()
        return self.walk(self.step(u, mode, pos, neg, avg, win, lose, lad, iteration))

    def walk(self, step: Step) -> np.ndarray:
        """One walk of the whole game (:data:`records.Step`) on the solver's threads: the
        values of ``step.u``'s root hands; the root card node's betting nodes are left in
        the first row of :attr:`work`."""
        if self.threads == 1:
            return K.traverse(self.shape, self.store(), self.work, step)
        import numba
        numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
        owner, live = self.root_owner, np.zeros(len(self.root_owner), dtype=np.int64)
        if step.mode == CFR and self.root_live[step.u].any():
            owner = share_among_threads(self.root_live[step.u], self.threads)
        values = K.traverse_parallel(self.threads, owner, self.shape, self.store(),
                                     self.work, step, self.thread_work, live)
        if step.mode == CFR:
            self.root_live[step.u] = live
        return values

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` Discounted CFR iterations (alternating: the mão, then the pé)."""
        self._need(ALLOCATED, "iterate()")
        if self.fixed_policy:
            raise SolverStateError("iterate() on a stored policy: it holds no regrets")
        start = time.perf_counter()
        for _ in range(n):
            it = self.iterations + 1
            pos, neg, avg = self.schedule.factors(it)
            self.complete = False   # until both seats' traversals of this iteration are done
            self.work.DC[:] = 0
            if self.thread_work is not None:
                self.thread_work.DC[:] = 0
            for u in (0, 1):
                self.traverse(u, CFR, pos, neg, avg, iteration=it)
            if self.lazy():
                discount_untouched_sums(self.cstamp, self.cscale, it, avg)
            dead, seen = self.work.DC + (0 if self.thread_work is None
                                         else self.thread_work.DC.sum(axis=0))
            # pairs a lazy walk leaves out with their card subtrees are not met at all
            live = seen - dead
            self.dead_share = 1.0 - live / (2 * self.layout.public_pairs)
            self.iterations = it
            self.complete = True
        self.seconds += time.perf_counter() - start
        if self.state == SOLVED:
            self.state = ALLOCATED

    def lazy(self) -> bool:
        """Whether the CFR walks discount the dead nodes lazily (see :attr:`lazy_discount`)."""
        return self.prune_dead and self.lazy_discount and not self.schedule.predictive

    def _factors(self, it: int) -> tuple[np.ndarray, np.ndarray]:
        """The positive- and negative-regret factors of iterations 0 to ``it`` (index =
        iteration; 0 unused)."""
        have = self._factor_rows
        if len(have[0]) <= it:
            rows = [(1.0, 1.0)] + [self.schedule.factors(j)[:2] for j in range(1, 2 * it + 2)]
            have = tuple(np.array(col, dtype=np.float64) for col in zip(*rows))
            self._factor_rows = have
        return have

    def best_response_values(self) -> tuple[float, float]:
        """Each seat's best-response value against the other's average strategy (points, or
        the payoffs of :meth:`set_payoffs`)."""
        self._need(ALLOCATED, "best_response_values()")
        if self.iterations == 0 and not self.fixed_policy:
            raise SolverStateError("best_response_values() needs at least one iteration")
        return (float(self.traverse(0, BEST).sum()), float(self.traverse(1, BEST).sum()))

    def batch_values(self, mao_scores, pe_scores, best: bool = True,
                     chunk: int = 128) -> np.ndarray:
        """Values of ``B`` payoff pairs at once (:mod:`lab.solver.fullgame.batch`): row ``b``
        of ``mao_scores`` / ``pe_scores`` (shape ``(B, len(ladder))``) is what
        :meth:`set_payoffs` takes. Returns ``(B, 2)``: with ``best``, each seat's
        best-response value against the other's average strategy (the row-by-row
        :meth:`best_response_values`); otherwise the mão's value under the average
        strategies in both columns (the row-by-row :meth:`value`). In the payoffs' unit.
        With ``best``, the two seats' traversals run at once on a solver of two threads or
        more (each on its own working buffers; they only read the regrets and sums), else
        one after the other; the same numbers either way. ``chunk`` payoff pairs per
        traversal bound the memory (about 5.4 MB per pair for a real vira, 0.7 GB for the
        default chunk, twice that for two traversals at once)."""
        self._need(ALLOCATED, "batch_values()")
        if best and self.iterations == 0 and not self.fixed_policy:
            raise SolverStateError("batch_values() needs at least one iteration")
        mao = np.atleast_2d(np.asarray(mao_scores, dtype=np.float64))
        pe = np.atleast_2d(np.asarray(pe_scores, dtype=np.float64))
        if mao.shape != pe.shape or mao.shape[1:] != self.ladder.shape:
            raise ValueError(f"payoffs need one value per ladder value {list(self.config.ladder)}"
                             " in each row, as many rows for the mão as for the pé")
        out = np.empty((len(mao), 2))
        for lo in range(0, len(mao), chunk):
            a, b = mao[lo:lo + chunk], pe[lo:lo + chunk]
            if best:
                seats = ((a, -b), (-b, a))   # (win, lose) of each seat, as seat_payoffs
                for u, values in enumerate(self._best_batches(seats)):
                    out[lo:lo + chunk, u] = values.sum(axis=0)
            else:
                out[lo:lo + chunk, :] = self._average_batches(a, -b)[:, None]
        return out

    def _best_batches(self, seats) -> list:
        """Each seat's batched best-response values (``seats``: its (win, lose) payoffs);
        the mão's walk on the solver's working buffers and the pé's, at the same time, on
        the second thread's."""
        if self.thread_work is None:
            return [self._traverse_batch(u, BEST, win, lose)
                    for u, (win, lose) in enumerate(seats)]
        return self._two_walks([(u, BEST, win, lose) for u, (win, lose) in enumerate(seats)])

    def _two_walks(self, walks) -> list:
        """Two batched walks (``_traverse_batch``'s seat, mode and payoffs each) at the same
        time, the first on the solver's working buffers, the second on its second thread's."""
        from concurrent.futures import ThreadPoolExecutor

        works = (self.work, Work(*(arr[1] for arr in self.thread_work)))
        with ThreadPoolExecutor(2) as pool:
            jobs = [pool.submit(self._traverse_batch, *walk, works[i])
                    for i, walk in enumerate(walks)]
            return [job.result() for job in jobs]

    def _average_batches(self, win, lose) -> np.ndarray:
        """The mão's batched values under the average strategies, one per row of ``win`` /
        ``lose`` (his payoffs, as :meth:`_traverse_batch` takes them); on a solver of two
        threads or more the rows are split in two halves walked at the same time, each on
        its own working buffers (every row's value is computed apart from the others': the
        same bits either way)."""
        if self.thread_work is None or len(win) < 2:
            return self._traverse_batch(0, AVERAGE, win, lose).sum(axis=0)
        half = (len(win) + 1) // 2
        halves = self._two_walks([(0, AVERAGE, win[:half], lose[:half]),
                                  (0, AVERAGE, win[half:], lose[half:])])
        return np.concatenate([values.sum(axis=0) for values in halves])

    def _traverse_batch(self, u: int, mode: int, win: np.ndarray, lose: np.ndarray,
                        work=None) -> np.ndarray:
        from . import batch as full_batch

        # values of u's hands only: the sizes of VI, EV and OUT without the other seat's half
        size = self.layout.buffers
        VB, EB, OB = (np.zeros((len(size[name]), int(size[name].max()) + 8, len(win)))
                      for name in ("intra_n", "sig", "enter_n"))
        step = self.step(u, mode, ladder=np.ones_like(self.ladder))
        return full_batch.traverse_batch(self.shape, self.store(),
                                         self.work if work is None else work, step,
                                         np.ascontiguousarray(win), np.ascontiguousarray(lose),
                                         VB, EB, OB)

    def store(self) -> Store:
        """The regrets and strategy sums as the kernels take them (:data:`records.Store`)."""
        wide = self.config.storage == "float32" and not self.fixed_policy
        return Store(wide, self.reg32, self.reg16, self.rscale,
                     self.cum32, self.cum16, self.cscale, self.pred32, self.pred16,
                     self.pscale, self.rstamp, self.cstamp)

    def step(self, u: int, mode: int, pos=0.0, neg=0.0, avg=0.0, win=None, lose=None,
             ladder=None, iteration: int = 1, masked: bool = False,
             apart: bool | None = None) -> Step:
        """One walk for seat ``u`` (:data:`records.Step`) at ``iteration`` (for the schedule's
        next factor); payoffs default to all ones over ``ladder`` (default the solver's);
        ``masked``: only the subtrees of ``u``'s pairs marked in ``work.MK``; ``apart``
        (default :attr:`histories_apart`) False: every betting node keeps its values in
        ``work`` (for reading them after)."""
        lad = self.ladder if ladder is None else np.asarray(ladder, dtype=np.float64)
        ones = np.ones_like(lad)
        _, _, _, plus, predictive, nxt = self.schedule.update(iteration)
        fpos, fneg = self._factors(iteration)
        return Step(int(u), int(mode), float(pos), float(neg), float(avg),
                    ones if win is None else win, ones if lose is None else lose, lad,
                    self.weights[u], plus, predictive, float(nxt), bool(masked),
                    bool(self.prune_dead), self.lazy(), int(iteration), fpos, fneg,
                    bool(self.histories_apart if apart is None else apart),
                    bool(self.histories_one_pass))

    def exploitability(self) -> float:
        """Mean of both seats' best-response gains: points per hand (or in the payoffs of
        :meth:`set_payoffs`)."""
        v0, v1 = self.best_response_values()
        return 0.5 * (v0 + v1)

    def value(self) -> float:
        """The mão's expected points per hand (or payoff) under the average strategies."""
        self._need(ALLOCATED, "value()")
        return float(self.traverse(0, AVERAGE).sum())

    def hand_values(self) -> np.ndarray:
        """(2, n) expected points (or payoff) of each class for its holder (mão row 0, pé
        row 1), conditional on holding it, under the average strategies."""
        self._need(ALLOCATED, "hand_values()")
        out = np.full((2, self.weights[0].shape[0]), np.nan)
        for u in (0, 1):
            cfv = self.traverse(u, AVERAGE)
            sl = self.tree.pairs(0, u)
            hands = self.tree.pair_hand[sl]
            marginal = self.weights[u].sum(axis=1)[hands]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[u, hands] = np.where(marginal > 0, cfv / marginal, np.nan)
        return out

    def outcome_probabilities(self) -> np.ndarray:
        """Probability that the hand ends with the mão scoring each ladder value, then with
        the pé scoring each, under the average strategies (``2 * len(ladder)`` numbers): one
        batched walk, a payoff row per outcome (the mão paid 1 for it, 0 for the others)."""
        self._need(ALLOCATED, "outcome_probabilities()")
        n = len(self.ladder)
        unit, none = np.eye(n), np.zeros((n, n))
        return self.batch_values(np.vstack([unit, none]), np.vstack([none, unit]),
                                 best=False)[:, 0]

    def outcome_distribution(self) -> dict:
        """{("mao" or "pe", ladder value): probability that the hand ends with that seat
        scoring that value} (:meth:`outcome_probabilities`)."""
        p, n = self.outcome_probabilities(), len(self.ladder)
        return {**{("mao", int(v)): float(p[k]) for k, v in enumerate(self.config.ladder)},
                **{("pe", int(v)): float(p[n + k]) for k, v in enumerate(self.config.ladder)}}

    # ------------------------------------------------------------ solve loop
    def solve(self, target_exploitability: float = 0.01, max_iterations: int = 10_000,
              time_budget: Optional[float] = None, check_every: int = 10, progress=False,
              checkpoint_dir=None, checkpoint_seconds: float = 600.0, log=None,
              limit_bytes: Optional[int] = None, on_check=None) -> "FullSolver":
        """Iterate until the exploitability (points per hand) is at most the target, the
        iteration cap (iterations of this solve, not of one it started from:
        :meth:`warm_start`), or ``time_budget`` seconds of this call; then ``solved``.

        With ``checkpoint_dir`` the state is resumed from there if a checkpoint of the
        same configuration exists (one whose last check met the target is not iterated
        further), and saved there every ``checkpoint_seconds`` and at the end.
        ``log``: a file to append one JSON line per exploitability check; ``on_check``: a
        function called with the solver after each check.
        """
        if self.state == BUILT:
            self.allocate(limit_bytes)
        ensure_compiled(self.threads, self.config.storage)
        if checkpoint_dir is not None and self.iterations == 0 and has_checkpoint(checkpoint_dir):
            self.load_checkpoint(checkpoint_dir)
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=max_iterations, initial=self.own_iterations, unit="it", leave=False,
                       desc=f"solve full ({self.config.vira or 'toy'})")
        start = time.perf_counter()
        last_save = start
        expl = self.history[-1][2] if self.history else float("inf")
        resumed_at = self.iterations
        try:
            # a solve resumed after the check that met its target is finished as it stands
            while expl > target_exploitability and self.own_iterations < max_iterations:
                if time_budget is not None and time.perf_counter() - start >= time_budget:
                    break
                n = min(check_every, max_iterations - self.own_iterations)
                self.iterate(n)
                checked = time.perf_counter()
                expl = self.exploitability()
                self.check_seconds += time.perf_counter() - checked
                self.history.append((self.iterations, round(self.seconds, 3), expl))
                if log is not None:
                    with open(log, "a") as fh:
                        fh.write(json.dumps({"iterations": self.iterations,
                                             "seconds": round(self.seconds, 2),
                                             "exploitability": expl,
                                             "wall": time.strftime("%H:%M:%S")}) + "\n")
                if on_check is not None:
                    on_check(self)
                if bar is not None:
                    bar.update(n)
                    bar.set_postfix(exploitability=f"{expl:.4f}")
                if checkpoint_dir is not None and time.perf_counter() - last_save >= checkpoint_seconds:
                    self.save_checkpoint(checkpoint_dir)
                    last_save = time.perf_counter()
                if expl <= target_exploitability:
                    break
        finally:
            if bar is not None:
                bar.close()
            # an interrupted iteration is not saved: the checkpoint keeps whole iterations
            if checkpoint_dir is not None and self.iterations != resumed_at and self.complete:
                self.save_checkpoint(checkpoint_dir)
        self.final_exploitability = expl
        self.state = SOLVED
        return self

    # ------------------------------------------------------------ checkpoints
    def _arrays(self) -> dict:
        arrays = {"reg32": self.reg32, "cum32": self.cum32, "reg16": self.reg16,
                  "cum16": self.cum16, "rscale": self.rscale, "cscale": self.cscale,
                  "rstamp": self.rstamp}
        if self.schedule.predictive:
            arrays.update(pred32=self.pred32, pred16=self.pred16, pscale=self.pscale)
        return arrays

    def save_checkpoint(self, directory) -> Path:
        """Write the regrets, strategy sums and history to ``directory`` (atomically; the
        arrays in zstd frames, :mod:`lab.solver.fullgame.packed`)."""
        self._need(ALLOCATED, "save_checkpoint()")
        if not self.complete:
            raise SolverStateError("save_checkpoint(): an iteration was interrupted, so the "
                                   "regrets hold part of it; resume from the last checkpoint")
        with interrupts_held():   # a checkpoint being written is finished first
            return self._write_checkpoint(Path(directory))

    def _write_checkpoint(self, directory: Path) -> Path:
        tmp = directory.with_name(directory.name + ".tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        for name, arr in self._arrays().items():
            save_array(tmp / f"{name}{SUFFIX}", arr, self.threads)
        meta = {"config": self.config.as_dict(), "iterations": self.iterations,
                "seconds": self.seconds, "check_seconds": self.check_seconds,
                "history": self.history,
                "n_slots": self.layout.n_slots, "n_public": self.layout.n_public,
                "schedule": self.schedule.name, "start": self.start,
                "payoffs": None if self.payoffs is None else [list(map(float, p))
                                                              for p in self.payoffs]}
        (tmp / "state.json").write_text(json.dumps(meta))
        old = directory.with_name(directory.name + ".old")
        if directory.exists():
            if old.exists():
                shutil.rmtree(old)
            os.replace(directory, old)
        os.replace(tmp, directory)
        if old.exists():
            shutil.rmtree(old)
        return directory

    def load_checkpoint(self, directory, any_vira: bool = False) -> "FullSolver":
        """Resume from a checkpoint of the same configuration; ``any_vira``: or of another
        vira's (the same card tree and layout: a warm start from another vira's strategies)."""
        state = _state_file(directory)
        directory = state.parent
        meta = json.loads(state.read_text())
        mine, theirs = self.config.as_dict(), dict(meta["config"])
        if any_vira and mine["vira"] is not None and theirs["vira"] is not None:
            theirs["vira"] = mine["vira"]
        if theirs != mine or meta["n_slots"] != self.layout.n_slots:
            raise InputError(f"{directory}: checkpoint of another configuration "
                             f"({meta['config']})")
        schedule = meta.get("schedule", "dcfr")   # checkpoints before schedules were dcfr
        if schedule != self.schedule.name:
            raise InputError(f"{directory}: checkpoint of a {schedule} solve; resume it with "
                             f"--schedule {schedule}, or start {self.schedule.name} elsewhere")
        if self.state == BUILT:
            self.allocate()
        for name, arr in self._arrays().items():
            packed, plain = directory / f"{name}{SUFFIX}", directory / f"{name}.npy"
            if packed.exists():
                try:
                    load_array(packed, arr)
                except PackedError as exc:
                    raise InputError(f"{exc}: a damaged checkpoint; delete {directory} to "
                                     "solve again from the start") from None
                continue
            # checkpoints written before they were packed: one .npy file per array
            if name == "rstamp" and not plain.exists():
                arr[...] = meta["iterations"]   # written before lazy discounts: all current
                continue
            saved = np.load(plain, mmap_mode="r")
            if name == "cscale" and saved.shape != arr.shape:
                arr[...] = 1.0   # float32 sums written before they had scales: all current
                continue
            arr[...] = saved
        self.cstamp[...] = meta["iterations"]   # every iteration ends with the sums current
        self.iterations = int(meta["iterations"])
        self.seconds = float(meta["seconds"])
        self.check_seconds = float(meta.get("check_seconds", 0.0))   # not kept before
        self.history = [tuple(h) for h in meta["history"]]
        self.start = meta.get("start")
        payoffs = meta.get("payoffs")
        self.set_payoffs(*(payoffs if payoffs is not None else (None, None)))
        if self.history:
            self.final_exploitability = self.history[-1][2]
        return self


_COMPILED: set = set()


def ensure_compiled(threads: int = 1, storage: str = "int16") -> None:
    """Compile the traversal, or load it from numba's cache (once per process, for one
    thread or several and each storage), on a tiny game, so that timed solves do not
    count it."""
    key = (threads > 1, storage)
    if key not in _COMPILED:
        config = config_for(toy_cap=(2, 2, 2, 1), ladder=(1, 3), storage=storage)
        FullSolver(config, threads=min(threads, 2)).allocate().iterate(1)
        _COMPILED.add(key)


def _state_file(directory) -> Path:
    """The ``state.json`` of the checkpoint in ``directory`` (or of its previous copy
    ``<directory>.old``, left when a save was interrupted between its two renames)."""
    directory = Path(directory)
    for d in (directory, directory.with_name(directory.name + ".old")):
        if (d / "state.json").exists():
            return d / "state.json"
    raise FileNotFoundError(f"{directory}: no checkpoint there")


def has_checkpoint(directory) -> bool:
    """Whether ``directory`` holds a checkpoint (or its previous copy ``<directory>.old``,
    left when a save was interrupted between its two renames)."""
    try:
        _state_file(directory)
    except FileNotFoundError:
        return False
    return True


def checkpoint_path(root, config: FullConfig) -> Path:
    """The checkpoint folder of ``config``'s solve under ``root`` (``lab solve full
    --checkpoints root``): ``full_<vira or toy cap>_<ladder>_<storage>``, and
    ``_ties-<rule>`` where three tied rounds do not go to the mão."""
    tag = config.vira or "toy" + "-".join(map(str, config.toy_cap))
    ties = "" if config.three_ties == DEFAULT_RULES.three_ties else f"_ties-{config.three_ties}"
    return Path(root) / f"full_{tag}_{'-'.join(map(str, config.ladder))}_{config.storage}{ties}"
