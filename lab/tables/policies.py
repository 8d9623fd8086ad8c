"""The stored full-game policies in ``data/full_policy/``: writing, checking and loading.

One file per vira, ``data/full_policy/<V>.zst`` (the bytes of
:mod:`lab.solver.fullgame.compact`), and one manifest,
``data/full_policy.json``, with per vira: the solve it comes from (iterations, the
solver's own exploitability, and ``start`` where it started from another vira's solve),
how it was stored (threshold, quantisation), the
**exploitability of the policy as stored** (exact best response, points per hand), its
value for the mão, its size and the hash of its file; and for all: the rules version, the
layout's slot count and the code hash.

Files are written atomically (a temporary file, then a rename; :mod:`lab.store`) under
the data folder's lock, and a policy file is read only when its hash is the one its
manifest entry records, so a reader sees either the old policy or the new one, never a
mixture. A missing, damaged or stale policy is a :class:`~lab.tables.TableError` that
names the command rebuilding it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import numpy as np

from ..cards import RANKS
from ..classes import vira_rank_of
from ..rules import RULES_VERSION
from ..store import content_hash, data_lock, write_atomic
from .manifests import code_hash
from .registry import WALK_SOURCES, TableError, data_dir

NAME = "full_policy"
SCHEMA = 1
THRESHOLD = 0.02
"""Default threshold: probabilities below 2 % are dropped before quantising (the best point
under 100 MB for ten viras of the size-exploitability frontier in benchmarks/policy.md)."""
REACH_TOLERANCE = 0.005
"""Each pair of a stored points policy is rounded to the coarsest steps whose move (total
variation) times its own reach (summed over the betting histories of its key) is at most
this (points per hand): vira 4's took 3.24 MB instead of 5.03 for an exploitability of
0.0200 instead of 0.0187 points per hand (``benchmarks/policy.md``)."""

SOURCES = ("lab/cards.py", "lab/classes.py", "lab/rules.py", "lab/solver/games/cardplay_game.py",
           "lab/solver/fullgame/game.py", "lab/solver/fullgame/tree.py") + WALK_SOURCES + (
           "lab/solver/fullgame/solver.py", "lab/solver/fullgame/compact.py",
           "lab/solver/fullgame/pair_coder.py", "lab/tables/policies.py")


def rebuild_command(vira: str = "V") -> str:
    return f"lab solve policy --vira {vira} --checkpoints DIR"


def policy_dir(directory: Optional[Path] = None) -> Path:
    return (Path(directory) if directory is not None else data_dir()) / NAME


def manifest_path(directory: Optional[Path] = None) -> Path:
    return (Path(directory) if directory is not None else data_dir()) / f"{NAME}.json"


def policy_path(vira: str, directory: Optional[Path] = None) -> Path:
    """The file of a vira's own policy (a vira stored ``same_as`` another reads that one's)."""
    return policy_dir(directory) / f"{RANKS[vira_rank_of(vira)]}.zst"


def read_policy_manifest(directory: Optional[Path] = None) -> dict:
    path = manifest_path(directory)
    if not path.exists():
        raise TableError(f"no stored full-game policy ({path} not found); build one with "
                         f"`{rebuild_command()}`")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise TableError(f"unreadable {path} ({exc}); rebuild with `{rebuild_command()}`") \
            from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("viras"), dict):
        raise TableError(f"{path} is not a policy manifest; rebuild with `{rebuild_command()}`")
    if manifest.get("rules_version") != RULES_VERSION or manifest.get("schema") != SCHEMA:
        raise TableError(f"the stored policies were built for rules "
                         f"{manifest.get('rules_version')!r} (schema {manifest.get('schema')}); "
                         f"rebuild them with `{rebuild_command()}`")
    return manifest


def stored_viras(directory: Optional[Path] = None) -> list[str]:
    """Viras with a stored policy (rank characters, in rank order); [] when none."""
    try:
        manifest = read_policy_manifest(directory)
    except TableError:
        return []
    return [v for v in RANKS if v in manifest["viras"]]


def policy_info(vira, directory: Optional[Path] = None) -> dict:
    """The manifest entry of one vira (TableError naming the rebuild command if absent)."""
    v = RANKS[vira_rank_of(vira)]
    entry = read_policy_manifest(directory)["viras"].get(v)
    if not isinstance(entry, dict):
        raise TableError(f"no stored full-game policy for vira {v}; build it with "
                         f"`{rebuild_command(v)}`")
    return entry


_CACHE: dict = {}


def load_full_policy(vira, directory: Optional[Path] = None):
    """The stored :class:`~lab.solver.fullgame.policy.FullPolicy` of ``vira`` (cached per process),
    checked against its manifest (file hash, size, layout)."""
    from ..solver.fullgame.solver import card_tree, config_for
    from ..solver.fullgame.compact import decode
    from ..solver.fullgame.tree import build_templates
    from ..solver.fullgame.policy import FullPolicy

    v = RANKS[vira_rank_of(vira)]
    info = policy_info(v, directory)
    path = policy_path(info.get("same_as", v), directory)
    key = (v, str(path), info.get("sha256"))  # viras sharing a file are distinct objects
    if key in _CACHE:
        return _CACHE[key]
    blob = read_checked(path, info.get("sha256"), f"stored policy of vira {v}",
                        rebuild_command(v))
    config = config_for(v, ladder=tuple(info["ladder"]), storage="float32")
    keys = policy_keys(config, bool(info.get("merge", True)))
    if keys.n_slots != int(info["slots"]):
        raise TableError(f"stored policy of vira {v} has {info['slots']} slots, the game has "
                         f"{keys.n_slots}; rebuild it with `{rebuild_command(v)}`")
    try:
        q = decode(blob, keys, card_tree(config), build_templates(config.ladder))
    except Exception as exc:  # pyarrow raises several kinds for damaged bytes
        raise TableError(f"stored policy of vira {v}: {path} is damaged ({exc}); rebuild it "
                         f"with `{rebuild_command(v)}`") from None
    try:
        policy = FullPolicy(config, q, keys=keys,
                            exploitability=float(info["exploitability"]),
                            rules=RULES_VERSION, meta=dict(info))
    except ValueError as exc:
        raise TableError(f"stored policy of vira {v} does not fit the game ({exc}); rebuild "
                         f"it with `{rebuild_command(v)}`") from None
    _CACHE.clear()  # one vira in memory at a time (about 0.5 GB)
    _CACHE[key] = policy
    return policy


def read_checked(path: Path, sha256, what: str, redo: str) -> bytes:
    """The bytes of a stored policy file whose hash is ``sha256`` (its manifest's); a
    TableError naming ``what`` and the rebuild command ``redo`` when it cannot be read or is
    another file."""
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise TableError(f"{what}: cannot read {path} ({exc.strerror}); rebuild it with "
                         f"`{redo}`") from None
    if content_hash(blob) != sha256:
        raise TableError(f"{what}: {path} is not the file its manifest describes; rebuild it "
                         f"with `{redo}`")
    return blob


def write_full_policy(vira, blob: bytes, info: dict, directory: Optional[Path] = None) -> dict:
    """Store one vira's encoded policy and its manifest entry (atomic, locked); returns
    the entry."""
    v = RANKS[vira_rank_of(vira)]
    path = policy_path(v, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = dict(info, sha256=content_hash(blob), bytes=len(blob),
                 built=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with data_lock(manifest_path(directory).parent):
        try:
            manifest = read_policy_manifest(directory)
        except TableError:
            manifest = {"viras": {}}
        manifest.update({"table": NAME, "schema": SCHEMA, "rules_version": RULES_VERSION,
                         "code": code_hash(SOURCES), "rebuild": rebuild_command()})
        manifest["viras"][v] = entry
        manifest["viras"] = {k: manifest["viras"][k] for k in RANKS if k in manifest["viras"]}
        manifest["bytes"] = sum(e["bytes"] for e in manifest["viras"].values()
                                if "same_as" not in e)
        write_atomic(path, blob)
        write_atomic(manifest_path(directory), json.dumps(manifest, indent=2) + "\n")
    return entry


def policy_keys(config, merge: bool = True):
    """The keys of the stored policies of ``config``'s game (cached on disk)."""
    from ..solver.fullgame.solver import card_tree, game_layout
    from ..solver.fullgame.tree import build_templates
    from ..solver.fullgame.policy import _keys

    tree = card_tree(config)
    templates = build_templates(config.ladder)
    return _keys(tree, game_layout(config, tree, templates), templates, merge)


def build_full_policy(vira, checkpoint_root, threshold: float = THRESHOLD, merge: bool = True,
                      threads: int = 1, directory: Optional[Path] = None,
                      progress=None, reach_tolerance: float = REACH_TOLERANCE) -> dict:
    """Load a vira's ``lab solve full`` checkpoint, store its policy (thresholded at
    ``threshold``, quantised, pruned, each pair rounded by its own reach at
    ``reach_tolerance``: :func:`round_by_reach`) and measure the stored policy's
    exploitability exactly. Returns the manifest entry."""
    from ..solver.fullgame.solver import has_checkpoint
    from ..solver.fullgame.compact import LEVEL, QUANT, compact_policy, encode, packing_of
    from .full import points_checkpoint, points_solver

    v = RANKS[vira_rank_of(vira)]
    ck = points_checkpoint(checkpoint_root, v)
    if not has_checkpoint(ck):
        raise TableError(f"no checkpoint of vira {v} under {checkpoint_root}; solve it with "
                         f"`lab solve full --vira {v} --checkpoints {checkpoint_root}`")
    start = time.perf_counter()
    say = progress or (lambda msg: None)
    solver = points_solver(v, threads).load_checkpoint(ck)
    config = solver.config
    say(f"vira {v}: checkpoint at {solver.own_iterations} iterations, exploitability "
        f"{solver.final_exploitability:.4f} points per hand")
    q, keys, kept = compact_policy(solver, threshold, merge, threads)
    tree, layout, templates = solver.tree, solver.layout, solver.templates
    solver_expl = float(solver.final_exploitability)
    iterations, source = int(solver.own_iterations), solver.start
    del solver
    coarse = round_by_reach(config, keys, tree, templates, q, reach_tolerance, threads)
    blob = encode(q, keys, tree, templates)
    say(f"vira {v}: {kept:,} pairs stored ({coarse:,} rounded by own reach), "
        f"{len(blob) / 1e6:.2f} MB; measuring the stored policy's exploitability")
    info = {"vira": v, "iterations": iterations, "solver_exploitability": solver_expl,
            **measure_points(config, keys, tree, layout, templates, q, threads),
            "threshold": float(threshold), "quant": QUANT, "level": LEVEL,
            "packing": packing_of(blob),
            "merge": bool(merge), "reach_tolerance": float(reach_tolerance),
            "coarse_pairs": int(coarse),
            "pairs": int(kept), "slots": int(keys.n_slots), "ladder": list(config.ladder),
            "seconds": round(time.perf_counter() - start, 1),
            **({"start": source} if source else {})}
    return write_full_policy(v, blob, info, directory)


def round_by_reach(config, keys, tree, templates, q, reach_tolerance: float,
                   threads: int = 1) -> int:
    """Round, in place, every pair of the points policy ``q`` to the coarsest steps whose
    move (total variation) times the pair's own reach is at most ``reach_tolerance``
    (:func:`lab.solver.fullgame.compact.coarsen`; 0 rounds nothing); returns the pairs
    rounded."""
    from ..solver.fullgame.compact import coarsen, own_reach

    if reach_tolerance == 0:
        return 0
    reach = own_reach(config, keys, q, threads)
    return coarsen(q, np.zeros_like(q), keys, tree, templates, reach, reach_tolerance)


def held_solver(config, keys, tree, layout, templates, q, threads: int = 1):
    """A float32 solver of ``config``'s game playing the stored policy ``q`` (for its exact
    best response and value)."""
    from dataclasses import replace

    from ..solver.fullgame.compact import expand
    from ..solver.fullgame.solver import FullSolver

    return FullSolver(replace(config, storage="float32"), threads=threads).use_policy(
        expand(keys, tree, layout, templates, q))


def measure_points(config, keys, tree, layout, templates, q, threads: int = 1) -> dict:
    """The stored points policy ``q``'s ``exploitability`` (the mean of both seats'
    ``best_response``) and ``value_mao``, by an exact best response, points per hand."""
    held = held_solver(config, keys, tree, layout, templates, q, threads)
    br = held.best_response_values()
    return {"exploitability": 0.5 * (br[0] + br[1]),
            "best_response": [float(br[0]), float(br[1])], "value_mao": float(held.value())}


def copy_policy(vira, same_as, directory: Optional[Path] = None) -> dict:
    """Store ``vira``'s policy as ``same_as``'s when they play the same game
    (:func:`lab.classes.same_game_vira`: the same solution); TableError otherwise."""
    from ..classes import same_game_vira

    v, w = RANKS[vira_rank_of(vira)], RANKS[vira_rank_of(same_as)]
    if same_game_vira(v) != same_game_vira(w):
        raise TableError(f"viras {v} and {w} have different deal weights: solve vira {v} "
                         "itself")
    info = dict(policy_info(w, directory), vira=v, same_as=w,
                built=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with data_lock(manifest_path(directory).parent):
        manifest = read_policy_manifest(directory)
        manifest["viras"][v] = info
        manifest["viras"] = {k: manifest["viras"][k] for k in RANKS if k in manifest["viras"]}
        write_atomic(manifest_path(directory), json.dumps(manifest, indent=2) + "\n")
    stale = policy_path(v, directory)
    if stale.exists():
        stale.unlink()  # the vira now reads the other's file
    return info
