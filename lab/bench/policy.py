"""``lab bench policy``: the stored full-game policies' size, load time, lookup latency and
exploitability, side by side for every stored vira.

Load time is measured twice per vira: *cold* (the shared card tree, layout and keys read
from their disk cache, then the vira's file decoded) and *warm* (only the vira's file:
what switching viras costs in a running process). Lookups are the decisions met on random
walks down the policy (both seats sampling their stored strategies from random deals):
each is one :meth:`~lab.policy.full.FullPolicy.strategy` call, timed alone.
"""

from __future__ import annotations

import random
import time

import numpy as np
from ..errors import InputError
from ..options import Parser, integer


def random_lookups(policy, n: int, seed: int) -> np.ndarray:
    """Seconds of ``n`` decision lookups on random walks (sampled from the policy)."""
    from ..policy.base import PolicyError

    rng = random.Random(seed)
    t = policy.tree
    out = []
    root_states = [t.pair_state[t.pairs(0, s)] for s in (0, 1)]
    while len(out) < n:
        states = [int(rng.choice(root_states[s])) for s in (0, 1)]
        line = policy.start()
        while not line.over and len(out) < n:
            seat = policy.actor(line.spot)
            start = time.perf_counter()
            try:
                strategy = policy.strategy(line.spot, states[seat])
            except PolicyError:
                break  # two dealt classes that cannot lie together here
            out.append(time.perf_counter() - start)
            actions = list(strategy)
            action = rng.choices(actions, weights=[strategy[a] for a in actions])[0]
            if isinstance(action, tuple):
                lv = action[1]
                states[seat] = int(policy.cards.remove[states[seat], lv])
                public = "cover" if action[0] == "cover" else action
            else:
                public = action
            try:
                line = line.then(public)
                if not line.over:
                    policy.pair_of(line.spot.card, 1 - seat, states[1 - seat])
            except PolicyError:
                break  # the other seat's dealt cards clash with the card just shown
    return np.array(out)


def main(argv) -> int:
    parser = Parser(prog="lab bench policy", description=__doc__)
    parser.add_argument("--vira", action="append", metavar="V",
                        help="a stored vira (default: every stored vira)")
    parser.add_argument("--lookups", type=integer, default=20_000, metavar="N",
                        help="decision lookups timed per vira (default 20000)")
    parser.add_argument("--seed", type=integer, default=1)
    args = parser.parse_args(argv)
    from ..tables import policies
    from ..cards import RANKS
    from ..classes import vira_rank_of
    from ..solver.fullgame import policy as policy_module
    from ..solver.fullgame import solver as solver_module

    viras = ([RANKS[vira_rank_of(v)] for v in args.vira] if args.vira
             else policies.stored_viras())
    if not viras:
        raise InputError(f"no stored policy; build them with `{policies.rebuild_command()}`")
    from ..tables import score_policies

    manifest = policies.read_policy_manifest()
    total = manifest.get("bytes", 0)
    print(f"stored policies: {len(manifest['viras'])} viras, {total / 1e6:.2f} MB on disk in all; "
          f"with the score-aware ones {score_policies.store_bytes() / 1e6:.2f} MB (budget "
          f"{score_policies.BUDGET / 1e6:.0f} MB)")
    print(f"{'vira':>4} {'MB':>6} {'pairs':>11} {'cold s':>7} {'warm s':>7} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'max ms':>7} {'expl':>7} {'solve':>7} {'its':>4}")
    for i, v in enumerate(viras):
        info = policies.policy_info(v)
        if i == 0:
            for cache in (solver_module._LAYOUTS, policy_module._KEYS):
                cache.clear()
            solver_module._card_tree.cache_clear()
        policies._CACHE.clear()
        start = time.perf_counter()
        pol = policies.load_full_policy(v)
        cold = time.perf_counter() - start
        policies._CACHE.clear()
        start = time.perf_counter()
        pol = policies.load_full_policy(v)
        warm = time.perf_counter() - start
        times = random_lookups(pol, args.lookups, args.seed) * 1e3
        p50, p99, top = np.percentile(times, 50), np.percentile(times, 99), times.max()
        print(f"{v:>4} {info['bytes'] / 1e6:6.2f} {info['pairs']:11,} "
              f"{cold if i == 0 else float('nan'):7.2f} {warm:7.2f} {p50:7.3f} {p99:7.3f} "
              f"{top:7.2f} {info['exploitability']:7.4f} {info['solver_exploitability']:7.4f} "
              f"{info['iterations']:4d}")
    print("cold: first vira of the process (tree, layout and keys from the disk cache); warm: "
          "one more vira; lookups: FullPolicy.strategy on random walks; expl: the stored "
          "policy's exploitability by exact best response, solve: the solver's own "
          "(points per hand)")
    score_aware(viras)
    return 0


def score_aware(viras) -> None:
    """One line per stored score-aware policy of ``viras``: its size and packing, its
    load time (its points policy already in memory: the decoding of its own file), its
    reach tolerance and its exploitability as stored (match-win probability)."""
    from ..tables import policies, score_policies

    rows = [(v, score) for v in viras for score in score_policies.stored_scores(v)]
    if not rows:
        return
    print(f"\n{'vira':>4} {'score':>5} {'MB':>6} {'packing':>8} {'load s':>7} {'R':>5} "
          f"{'expl':>7}")
    for v, score in rows:
        info = score_policies.score_policy_info(v, score)
        policies.load_full_policy(v)
        score_policies._CACHE.clear()
        start = time.perf_counter()
        score_policies.load_score_policy(v, score)
        load = time.perf_counter() - start
        size = "copy" if "same_as" in info else f"{info['bytes'] / 1e6:6.2f}"
        packing = info.get("packing", "slots")
        print(f"{v:>4} {score[0]:>2}-{score[1]:<2} {size:>6} {packing:>8} {load:7.2f} "
              f"{info.get('reach_tolerance', 0):5.2f} {info['exploitability']:7.4f}")
    print("score-aware: load, the policy's own file decoded against its points policy; R, "
          "its reach tolerance; expl, its exploitability as stored (match-win probability)")


def frontier(vira, checkpoint_root, grid, threads: int = 1, out=print) -> list[dict]:
    """Size against the stored policy's exploitability for each ``(threshold, quant)`` of
    ``grid`` (merged keys), from one vira's checkpoint: one row per setting with the pairs
    stored, the compressed megabytes and the exact exploitability (points per hand)."""
    from dataclasses import replace

    from ..solver.fullgame.solver import FullSolver
    from ..tables.full import points_checkpoint, points_solver
    from ..solver.fullgame.compact import build_keys, encode, expand, key_sums, prune_unreached, quantise

    solver = points_solver(vira, threads).load_checkpoint(points_checkpoint(checkpoint_root, vira))
    config = solver.config
    tree, layout, templates = solver.tree, solver.layout, solver.templates
    keys = build_keys(tree, layout, templates, True)
    sums = key_sums(solver, keys)
    out(f"vira {config.vira}: checkpoint at {solver.iterations} iterations, solver's "
        f"exploitability {solver.final_exploitability:.4f} points per hand")
    del solver
    rows = []
    for threshold, quant in grid:
        q = quantise(sums, keys, tree, templates, threshold, quant)
        kept = prune_unreached(config, keys, q, threads)
        blob = encode(q, keys, tree, templates)
        held = FullSolver(replace(config, storage="float32"), threads=threads).use_policy(
            expand(keys, tree, layout, templates, q))
        expl = held.exploitability()
        rows.append({"threshold": threshold, "quant": quant, "pairs": kept,
                     "mb": len(blob) / 1e6, "exploitability": expl})
        out(f"threshold {threshold:.3f} quant {quant:3d}: {kept:,} pairs, "
            f"{len(blob) / 1e6:.2f} MB, exploitability {expl:.4f}")
        del held
    return rows
