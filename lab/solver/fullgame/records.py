"""The records the full game's kernels take (:mod:`lab.solver.fullgame.kernels`), and their
constants.

Calling convention: every kernel takes four records (namedtuples of arrays, built by
:class:`~lab.solver.fullgame.solver.FullSolver`) besides the node it works on:

- ``T`` (:data:`Tree`): the game's shape: the card tree, its storage offsets and the
  betting templates, fixed for a solver;
- ``S`` (:data:`Store`): the regrets and strategy sums (or a stored policy);
- ``W`` (:data:`Work`): the working buffers of one walk, one row per depth;
- ``P`` (:data:`Step`): what this walk does: the seat ``u``, the mode, the Discounted
  CFR factors, the payoffs and ``u``'s deal weights.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .tree import DECISION, END, LAST, Q_NODE, T_NODE

__all__ = ["CFR", "BEST", "AVERAGE", "ROOT", "ONE", "DECISION", "LAST", "END", "T_NODE",
           "Q_NODE", "I16", "U16", "Tree", "Store", "Work", "Step"]

CFR, BEST, AVERAGE = 0, 1, 2
"""The walks' modes (:mod:`lab.solver.fullgame.kernels`)."""
ROOT, ONE = np.int64(0), np.int64(1)
"""The root's card node and depth, and its one entering history, as int64: a kernel called
with a literal 0 or 1 is compiled again for it (numba types a literal argument as its own
type), so every walk passes these and one compiled walk serves them all."""
I16 = 32767.0
U16 = 65535.0
"""The largest magnitudes of the 16-bit storage: regrets (int16) and strategy sums (uint16)."""

Tree = namedtuple("Tree", [
    # card tree: per card node, then per (card node, private state) pair
    "kind", "actor", "winner", "showdown", "lead", "child_start", "child_count",
    "pair_start", "nn", "n_edges", "pair_hand", "pair_level", "pair_parent", "pair_edge",
    "pair_edge_start", "pair_edge_count",
    # storage offsets of each card node's first regret entry and first public node
    "slot_base", "node_base",
    # betting templates
    "t_start", "t_size", "t_kind", "t_parent", "t_child_a", "t_child_b", "t_value",
    "t_exit", "t_answerer",
    # per card node: its public nodes, and where its entering histories start in the two
    # arrays after it: per (LAST card node, entering history) the offsets of the history's
    # first regret entry and first public node from the card node's (int32; zero elsewhere;
    # filled when a solver allocates float32 storage, stand-ins of one entry before)
    "node_count", "history_start", "history_slot", "history_node"])
"""The shape of the full game the kernels walk (:mod:`lab.solver.fullgame.tree`)."""

Store = namedtuple("Store", ["wide", "reg32", "reg16", "rscale", "cum32", "cum16", "cscale",
                             "pred32", "pred16", "pscale", "rstamp", "cstamp"])
"""Regrets and strategy sums: float32 (``wide``) or 16 bits with a scale per public node;
the sums' scales also for float32 (:func:`store_sums`);
``pred*``: the regrets regret matching reads (the same arrays as ``reg*``, or for a
predictive schedule the regrets predicted for the next iteration); per public node the last
iteration whose update its regrets (``rstamp``) and its strategy sums (``cstamp``) hold
(see :func:`catch_up`)."""

Work = namedtuple("Work", ["ENT", "OUT", "ES", "RI", "VI", "SIG", "EV", "KI", "TMP", "WC", "TK",
                           "MK", "DK", "ED", "DC", "FH"])
"""Working buffers, one row per depth: entering reach and values (``ENT``, ``OUT``) and
states (``ES``), reach and values per betting node (``RI``, ``VI``), strategies and
action values (``SIG``, ``EV``), node index (``KI``), T nodes (``TK``), dense deal
weights (``WC``), scratch (``TMP``), the walker's pairs a masked walk follows (``MK``);
in a ``CFR`` walk, which betting nodes (``DK``) and entering histories (``ED``) the
opponent reaches with probability zero for every one of his pairs (dead: see
:func:`prepare_node`), and a count of (node, hand) pairs (``DC``: dead, all) the ``CFR``
walks met; the entering histories of a ``LAST`` node set apart (``FH``: those whose whole
turn is the forced card, :func:`forced_alone`, and in a lazy ``CFR`` walk the dead ones)."""

Step = namedtuple("Step", ["u", "mode", "pos", "neg", "avg", "win", "lose", "ladder", "Wu",
                           "plus", "predictive", "nxt", "masked", "prune", "lazy", "it",
                           "fpos", "fneg", "apart", "one_pass"])
"""One walk: seat ``u``, mode, Discounted CFR factors (positive and negative regrets,
strategy sums), payoffs ``win`` / ``lose`` over the ``ladder``, ``u``'s deal weights;
the schedule's ``plus`` floor and ``predictive`` matching with ``nxt``, the next
iteration's positive-regret factor (:class:`lab.solver.cfr.Schedule`); ``masked``: walk
only the card subtrees that hold one of ``u``'s pairs marked (1) in ``W.MK`` at the
starting depth (:func:`_visit` only; values of ``BEST`` or ``AVERAGE`` mode, which are then
exact for the marked pairs and not computed for the others); ``prune``: a ``CFR`` walk
leaves out the dead betting nodes (else it computes them too: the same numbers, for
measuring what leaving them out buys); ``lazy`` (with ``prune``): it does not even discount
their regrets, nor walk a card subtree no entering history of which is live (the discounts
wait for the node's next live update, :func:`catch_up`; the strategy sums of the nodes an
iteration did not update are discounted after it, :func:`discount_untouched_sums`);
``it``: the iteration; ``fpos``, ``fneg``: the positive- and negative-regret factors of
every iteration up to it (index = iteration); ``apart``: the histories entering a ``LAST``
node whose turn is the forced card alone, and in a lazy ``CFR`` walk the dead ones, get no
betting node (:func:`prepare_node`; the same numbers; without it, every betting node's
values are in ``W`` after the walk); ``one_pass`` (with ``apart``, in a lazy ``CFR`` walk on
float32 storage): a ``LAST`` node is worked one entering history at a time
(:func:`last_node_by_history`; the same numbers)."""
