"""The stored score-aware policies in ``data/score_policy/``: writing, checking and loading.

A score-aware re-solve (``lab solve match-play``) plays one vira's hand at one score with
match-win payoffs. Its compact policy has the same keys as the vira's points policy
(:mod:`lab.tables.policies`). Wherever it plays within a tolerance of the points policy
(total variation; :data:`TOLERANCE`), or where its own reach times that distance is at most
:data:`REACH_TOLERANCE`, it is given the points policy's strategy
(:func:`lab.solver.fullgame.compact.snap_to`), so it keeps its own only where the score
moved the play, and it is stored as its difference from the points policy
(:func:`lab.solver.fullgame.compact.encode` with ``base``), zero where the two play alike,
when that is smaller than the policy on its own (the entry's ``difference`` says which;
both sizes, the tolerances and the pairs that kept their own are in the entry). One file
per (vira, score), ``data/score_policy/<V>/<m>-<p>.zst``, and one manifest,
``data/score_policy.json``, with per policy: the re-solve it comes from (iterations, its
exploitability), the payoffs it plays for (the mão's match-win probability after each
outcome, and the same on the solver's scale: ``centre + scaled * half_swing`` is the
match-win probability), the **exploitability of the policy as stored** and its value for the mão
(exact best response and value at those payoffs, match-win probability), its size, the hash
of its file and the hash of the points policy it was taken against.

A stored policy is read only when its file hash is the one its entry records and, for a
difference, its points policy is the one it was taken against (otherwise the difference
would describe another strategy): a stale or damaged one is a
:class:`~lab.tables.TableError` naming the command that rebuilds it. The policy store
(points and score-aware policies together) is kept within :data:`BUDGET` bytes.
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
from .policies import SOURCES as POLICY_SOURCES, THRESHOLD, load_full_policy, policy_info
from .policies import checked_once, decoded, held_solver, read_policy_manifest
from .policies import check_copy, check_manifest_numbers, check_policy_header
from .policies import check_shared_files, file_bytes, policy_header, read_policy_file
from .policies import REBUILD_ALL, rebuild_command as points_rebuild_command
from .registry import TableError, data_dir

NAME = "score_policy"
SCHEMA = 1
BUDGET = 100_000_000
"""Bytes the policy store may hold, points and score-aware policies together."""
TOLERANCE = 0.05
"""Total variation (probability) within which a score-aware policy's pair plays the points
policy's strategy instead of its own (see :func:`build_score_policy`)."""
REACH_TOLERANCE = 0.05
"""A score-aware policy's pair also plays the points policy's strategy where its own reach
(summed over the betting histories of its key) times its total variation from it is at
most this, and a pair keeping its own is rounded by no more: vira J's at 10-10, from its
re-solve, took 1.74 MB instead of 4.67 for an exploitability of 0.0071 where points play
leaks 0.049 (``benchmarks/score.md``)."""
PACKING = "model"
"""How a score-aware policy's bytes are laid out (:func:`lab.solver.fullgame.compact.encode`):
coded pair by pair, which measured 37-40 % smaller than the zstd-compressed ``"pairs"`` on
these policies, on their own and as differences; every one stored was ``"model"`` when the
smaller of the two was kept, and leaving the other out saves its zstd pass (level 19,
about 20 s each on its own and as a difference)."""
SOURCES = POLICY_SOURCES + ("lab/tables/score.py", "lab/tables/score_sweep.py",
                            "lab/tables/score_policies.py")


def rebuild_command(vira: str = "V", score=("M", "P")) -> str:
    """The command that stores ``vira``'s score-aware policy at ``score`` again (a vira
    playing another's game as a copy of that one's, a vira whose game another plays with
    its copy: :func:`lab.tables.policies.rebuild_command`)."""
    return points_rebuild_command(vira, f"--score {score[0]},{score[1]}")


def manifest_path(directory: Optional[Path] = None) -> Path:
    return (Path(directory) if directory is not None else data_dir()) / f"{NAME}.json"


def policy_path(vira: str, score, directory: Optional[Path] = None) -> Path:
    base = Path(directory) if directory is not None else data_dir()
    return base / NAME / vira / f"{score[0]}-{score[1]}.zst"


def _key(vira: str, score) -> str:
    return f"{vira} {score[0]}-{score[1]}"


def _vira(vira) -> str:
    return RANKS[vira_rank_of(vira)]


def read_score_policy_manifest(directory: Optional[Path] = None, numbers: bool = True) -> dict:
    """The manifest ({"policies": {"<V> <m>-<p>": entry}}); an empty one when none is
    stored. TableError naming the rebuild command when it is unreadable, of other rules or
    (``numbers``) holds a number that is not finite
    (:func:`lab.tables.policies.check_manifest_numbers`; a writer replacing an entry reads
    it without)."""
    path = manifest_path(directory)
    if not path.exists():
        return {"policies": {}}
    if numbers:
        return checked_once(path, lambda: read_score_policy_manifest(directory, numbers=False),
                            lambda m: check_manifest_numbers(m, "policies", path, _redo_of_key))
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise TableError(f"unreadable {path} ({exc}); rebuild the score-aware policies with "
                         f"`{REBUILD_ALL}`") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("policies"), dict) \
            or not all(_entry_of(k, e) for k, e in manifest["policies"].items()):
        raise TableError(f"{path} is not a score-aware policy manifest; rebuild with "
                         f"`{REBUILD_ALL}`")
    if manifest.get("rules_version") != RULES_VERSION or manifest.get("schema") != SCHEMA:
        raise TableError(f"the stored score-aware policies were built for rules "
                         f"{manifest.get('rules_version')!r} (schema {manifest.get('schema')}); "
                         f"rebuild them with `{REBUILD_ALL}`")
    return manifest


def _entry_of(key, entry) -> bool:
    """Whether ``entry`` is a manifest entry filed under its own ``key`` ("<V> <m>-<p>")."""
    return (isinstance(entry, dict) and entry.get("vira") in RANKS
            and isinstance(entry.get("score"), list) and len(entry["score"]) == 2
            and all(type(x) is int for x in entry["score"])
            and key == _key(entry["vira"], entry["score"]))


def manifest_to_write(directory: Optional[Path] = None) -> dict:
    """The manifest a writer puts an entry into: the stored one, its numbers unchecked (an
    entry the readers refuse is replaced), or an empty one where the stored one cannot be
    read or is of other rules (its policies are all stored again: the readers refuse
    every one of them)."""
    try:
        return read_score_policy_manifest(directory, numbers=False)
    except TableError:
        return {"policies": {}}


def _redo_of_key(key: str) -> str:
    """The rebuild command of the manifest entry under ``key`` ("<V> <m>-<p>")."""
    try:
        v, score = key.split(" ")
        m, p = (int(x) for x in score.split("-"))
        return rebuild_command(_vira(v), (m, p))
    except ValueError:
        return rebuild_command()


def stored_scores(vira, directory: Optional[Path] = None) -> list[tuple[int, int]]:
    """The scores (mão, pé) with a stored score-aware policy of ``vira``, sorted."""
    v = _vira(vira)
    entries = read_score_policy_manifest(directory)["policies"].values()
    return sorted(tuple(e["score"]) for e in entries if e.get("vira") == v)


def score_policy_info(vira, score, directory: Optional[Path] = None) -> dict | None:
    """The manifest entry of ``vira`` at ``score`` (mão's, pé's points), or None."""
    score = (int(score[0]), int(score[1]))
    return read_score_policy_manifest(directory)["policies"].get(_key(_vira(vira), score))


_CACHE: dict = {}


def load_score_policy(vira, score, directory: Optional[Path] = None):
    """The stored score-aware :class:`~lab.policy.full.FullPolicy` of ``vira``
    at ``score`` (mão's, pé's points before the hand), or None when none is stored there
    (play falls back to the points policy). Cached per process, one at a time."""
    from ..solver.fullgame.compact import decode
    from ..policy.full import FullPolicy

    v = _vira(vira)
    score = (int(score[0]), int(score[1]))
    info = score_policy_info(v, score, directory)
    if info is None:
        return None
    key = (v, score, str(manifest_path(directory)), json.dumps(info, sort_keys=True))
    if key in _CACHE:
        return _CACHE[key]
    redo = rebuild_command(info.get("same_as", v), score)   # its file's: a copy's is another's
    blob = stored_score_policy_bytes(v, score, read_score_policy_manifest(directory),
                                     directory)
    base = load_full_policy(v, directory)   # its keys; and its bytes for a difference
    difference = bool(info.get("difference", True))
    if difference and policy_info(v, directory).get("sha256") != info.get("base_sha256"):
        raise TableError(f"the score-aware policy of vira {v} at {score[0]}-{score[1]} was "
                         f"stored against another points policy of vira {v}; rebuild it with "
                         f"`{redo}`")
    if int(info.get("slots", -1)) != base.keys.n_slots:
        raise TableError(f"the score-aware policy of vira {v} at {score[0]}-{score[1]} has "
                         f"{info.get('slots')} slots, the game {base.keys.n_slots}; rebuild "
                         f"it with `{redo}`")
    try:
        name = f"{info.get('sha256')}-on-{info.get('base_sha256')}" if difference \
            else info.get("sha256")
        q = decoded(name, lambda: decode(blob, base.keys, base.tree, base.templates,
                                         base=base.q if difference else None))
    except Exception as exc:  # pyarrow raises several kinds for damaged bytes
        raise TableError(f"score-aware policy of vira {v} at {score[0]}-{score[1]} is damaged "
                         f"({exc}); rebuild it with `{redo}`") from None
    policy = FullPolicy(base.config, q, keys=base.keys,
                        exploitability=float(info["exploitability"]), rules=RULES_VERSION,
                        meta=dict(info), unit="match-win probability",
                        payoffs=tuple(np.asarray(info[k]) for k in ("scaled_mao", "scaled_pe")))
    _CACHE[key] = policy   # mapped from the disk cache, as the points policies
    return policy


def stored_score_policy_bytes(vira, score, manifest: dict,
                              directory: Optional[Path] = None) -> bytes:
    """The file of ``vira``'s score-aware policy at ``score`` (its manifest ``manifest``),
    checked without decoding it, as the points policies' files are
    (:func:`lab.tables.policies.stored_policy_bytes`): a copy names the file of the vira it
    copies as stored now, no other entry names the same file, and the file is there with
    its entry's size and hash and a header, where it has one, of this vira, rules, slots
    and score. TableError naming the command that rebuilds it otherwise."""
    v, score = _vira(vira), (int(score[0]), int(score[1]))
    entries = manifest["policies"]
    info = entries.get(_key(v, score))
    if not isinstance(info, dict):
        raise TableError(f"no stored score-aware policy of vira {v} at {score[0]}-{score[1]}; "
                         f"build it with `{rebuild_command(v, score)}`")
    what = f"score-aware policy of vira {v} at {score[0]}-{score[1]}"
    owner = check_copy(v, info, lambda w: entries.get(_key(w, score)), what,
                       rebuild_command(v, score))
    check_shared_files(entries, _key(v, score),
                       lambda k: f"vira {k.replace(' ', ' at ')}", _redo_of_key)
    if owner != v:
        what += f" (vira {owner}'s file)"
    redo = rebuild_command(owner, score)
    blob = read_policy_file(policy_path(owner, score, directory), info, what, redo)
    check_policy_header(blob, policy_header(owner, info.get("slots"), score), what, redo)
    return blob


def score_policy_problem(vira, score, directory: Optional[Path] = None,
                         manifest: Optional[dict] = None) -> Optional[str]:
    """Why ``vira``'s stored score-aware policy at ``score`` would be refused for its file
    (:func:`stored_score_policy_bytes`; one line naming the rebuild command), or None."""
    try:
        manifest = read_score_policy_manifest(directory) if manifest is None else manifest
        stored_score_policy_bytes(vira, score, manifest, directory)
    except TableError as exc:
        return str(exc)
    return None


def store_bytes(directory: Optional[Path] = None) -> int:
    """Bytes of the whole policy store: the points policies and the score-aware ones."""
    try:
        points = file_bytes(read_policy_manifest(directory, numbers=False)["viras"].values())
    except TableError:
        points = 0
    return points + file_bytes(manifest_to_write(directory)["policies"].values())


def smaller_encoding(q, base_q, keys, tree, templates) -> tuple[bytes, bytes, bytes]:
    """``(the smaller, plain, difference)``: the bytes of the score-aware policy ``q`` on its
    own and as its difference from the points policy's bytes ``base_q`` (:data:`PACKING`)."""
    from ..solver.fullgame.compact import encode

    plain = encode(q, keys, tree, templates, packing=PACKING)
    difference = encode(q, keys, tree, templates, base=base_q, packing=PACKING)
    return (difference if len(difference) < len(plain) else plain), plain, difference


def snap_and_round(q, base_q, where, tolerance: float, reach, reach_tolerance: float):
    """``(pairs keeping their own, pairs rounded)``: ``q`` given, in place, the points
    policy ``base_q``'s strategy where within ``tolerance`` of it or, with own reaches
    ``reach`` (None: by distance alone, nothing rounded), where its reach times its move is
    at most ``reach_tolerance``, then its own pairs rounded by own reach
    (:func:`~lab.solver.fullgame.compact.snap_to`,
    :func:`~lab.solver.fullgame.compact.coarsen`; ``where``: the keys, tree and templates)."""
    from ..solver.fullgame.compact import coarsen, snap_to

    own = snap_to(q, base_q, *where, tolerance, reach, reach_tolerance)
    coarse = 0 if reach is None else coarsen(q, base_q, *where, reach, reach_tolerance)
    return own, coarse


def build_score_policy(vira, score, checkpoint_root, threshold: float = THRESHOLD,
                       tolerance: float = TOLERANCE, threads: int = 1,
                       directory: Optional[Path] = None, progress=None,
                       reach_tolerance: float = REACH_TOLERANCE) -> dict:
    """Store the score-aware policy of ``vira`` at ``score`` from its re-solve under
    ``checkpoint_root`` (``lab solve match-play --checkpoints DIR``): thresholded, quantised
    and pruned as the points policies are, then given the vira's points strategy wherever
    it plays within ``tolerance`` of it (total variation, probability; 0 keeps it whole)
    or where its own reach times that distance is at most ``reach_tolerance`` (0: by
    distance alone), each pair that keeps its own strategy rounded to the coarsest steps
    that move it by at most ``reach_tolerance`` over its own reach, kept as its difference
    from the points policy (or on its own where that is smaller), with its exploitability
    and value measured exactly at its payoffs (match-win probability). Returns the
    manifest entry."""
    from ..solver.fullgame.compact import LEVEL, QUANT, compact_policy, own_reach, packing_of
    from ..solver.fullgame.solver import has_checkpoint
    from .score import payoff_scale, resolve_solver
    from .score_sweep import finished, score_dir

    v = _vira(vira)
    score = (int(score[0]), int(score[1]))
    say = progress or (lambda msg: None)
    here = score_dir(checkpoint_root, v, score)
    done = finished(checkpoint_root, v, score)
    if done is None or not has_checkpoint(here / "solution"):
        raise TableError(f"no finished re-solve of vira {v} at {score[0]}-{score[1]} under "
                         f"{checkpoint_root}; run `lab solve match-play --checkpoints "
                         f"{checkpoint_root} --vira {v} --score {score[0]},{score[1]}`")
    base = load_full_policy(v, directory)
    start = time.perf_counter()
    solver = resolve_solver(v, threads).load_checkpoint(here / "solution")
    config = solver.config
    if solver.payoffs is None:
        raise TableError(f"{here / 'solution'} holds no match payoffs: not a re-solve")
    row = done["row"]   # the re-solve's own iterations and exploitability (match-win)
    centre, half_swing = payoff_scale([row["pay_mao_1"]], [row["pay_pe_1"]])
    scaled = tuple(list(map(float, p)) for p in solver.payoffs)
    say(f"vira {v} at {score[0]}-{score[1]}: re-solve of {row['iterations']} iterations, "
        f"exploitability {row['exploitability']:.4f} match-win probability")
    q, keys, kept = compact_policy(solver, threshold, True, threads)
    if keys.n_slots != base.keys.n_slots:
        raise TableError(f"vira {v}'s points policy has {base.keys.n_slots} slots, the "
                         f"re-solve {keys.n_slots}; rebuild the points policy first")
    tree, layout, templates = solver.tree, solver.layout, solver.templates
    del solver
    reach = own_reach(config, keys, q, threads) if reach_tolerance > 0 else None
    own, coarse = snap_and_round(q, base.q, (keys, tree, templates), tolerance, reach,
                                 reach_tolerance)
    del reach
    blob, plain, difference = smaller_encoding(q, base.q, keys, tree, templates)
    say(f"vira {v} at {score[0]}-{score[1]}: {kept:,} pairs, {own:,} of them more than "
        f"{tolerance:g} from points play and their own reach times that move above "
        f"{reach_tolerance:g} ({coarse:,} of those rounded coarser by their own reach), "
        f"{len(plain) / 1e6:.2f} MB on its own, "
        f"{len(difference) / 1e6:.2f} MB as the difference from the points policy; "
        "measuring the stored policy's exploitability")
    exploitability, value_mao = measure(config, keys, tree, layout, templates, q, scaled,
                                        centre, half_swing, threads)
    info = {"vira": v, "score": list(score), "iterations": int(row["iterations"]),
            "start": row["start"], "solver_exploitability": float(row["exploitability"]),
            "exploitability": exploitability, "value_mao": value_mao,
            "pay_mao": [float(row[f"pay_mao_{x}"]) for x in config.ladder],
            "pay_pe": [float(row[f"pay_pe_{x}"]) for x in config.ladder],
            "centre": centre, "half_swing": half_swing,
            "scaled_mao": scaled[0], "scaled_pe": scaled[1],
            "threshold": float(threshold), "quant": QUANT, "level": LEVEL,
            "packing": packing_of(blob),
            "pairs": int(kept), "tolerance": float(tolerance),
            "reach_tolerance": float(reach_tolerance), "own_pairs": int(own),
            "coarse_pairs": int(coarse),
            "slots": int(keys.n_slots), "difference": blob is difference,
            "plain_bytes": len(plain), "difference_bytes": len(difference),
            "base_sha256": policy_info(v, directory)["sha256"],
            "seconds": round(time.perf_counter() - start, 1)}
    return write_score_policy(v, score, blob, info, directory)


def measure(config, keys, tree, layout, templates, q, scaled, centre: float,
            half_swing: float, threads: int = 1) -> tuple[float, float]:
    """(exploitability, the mão's value) of the stored policy ``q`` at its match payoffs
    (``scaled``, on the solver's scale ``centre + scaled * half_swing``), both in
    match-win probability: an exact best response against it and its value."""
    held = held_solver(config, keys, tree, layout, templates, q, threads)
    held.set_payoffs(*(np.asarray(x, dtype=np.float64) for x in scaled))
    br = held.best_response_values()
    return 0.5 * (br[0] + br[1]) * half_swing, centre + held.value() * half_swing


def snap_stored(reach_tolerance: float, threads: int = 1, directory: Optional[Path] = None,
                progress=None) -> int:
    """Snap every stored score-aware policy (each vira's own, not copies) to its points
    policy again, by its own tolerance and by own reach at ``reach_tolerance``
    (:func:`lab.solver.fullgame.compact.snap_to`, then
    :func:`~lab.solver.fullgame.compact.coarsen`), without checkpoints: each one's
    exploitability and value measured again at its payoffs, written smaller where it
    shrank (an entry whose file would not shrink is left as it is), a vira stored as
    another's copied again. Returns the bytes of the store after."""
    from ..solver.fullgame.compact import LEVEL, own_reach, packing_of

    say = progress or (lambda msg: None)
    entries = list(read_score_policy_manifest(directory)["policies"].values())
    for entry in entries:
        if "same_as" in entry:
            continue
        v, score = entry["vira"], tuple(entry["score"])
        q = load_score_policy(v, score, directory).q.copy()
        base = load_full_policy(v, directory)
        where = (base.keys, base.tree, base.templates)
        reach = own_reach(base.config, base.keys, q, threads)
        own, coarse = snap_and_round(q, base.q, where, float(entry["tolerance"]), reach,
                                     reach_tolerance)
        del reach
        blob, plain, difference = smaller_encoding(q, base.q, *where)
        if len(blob) >= entry["bytes"]:
            say(f"vira {v} at {score[0]}-{score[1]}: {len(blob) / 1e6:.2f} MB, no smaller; "
                "left as it is")
            continue
        exploitability, value_mao = measure(
            base.config, base.keys, base.tree, base.layout, base.templates, q,
            (entry["scaled_mao"], entry["scaled_pe"]), entry["centre"], entry["half_swing"],
            threads)
        write_score_policy(v, score, blob, dict(
            _content(entry), exploitability=exploitability, value_mao=value_mao,
            reach_tolerance=float(reach_tolerance), own_pairs=int(own),
            coarse_pairs=int(coarse), level=LEVEL,
            packing=packing_of(blob), difference=blob is difference,
            plain_bytes=len(plain),
            difference_bytes=len(difference)), directory)
        say(f"vira {v} at {score[0]}-{score[1]}: {entry['bytes'] / 1e6:.2f} -> "
            f"{len(blob) / 1e6:.2f} MB, exploitability as stored {entry['exploitability']:.4f}"
            f" -> {exploitability:.4f} match-win probability")
    for entry in entries:
        if "same_as" in entry:
            copy_score_policy(entry["vira"], entry["same_as"], tuple(entry["score"]),
                              directory)
    _CACHE.clear()
    return store_bytes(directory)


def round_stored_points(reach_tolerance: float, threads: int = 1,
                        directory: Optional[Path] = None, progress=None) -> int:
    """Round every stored points policy (each vira's own, not copies) by own reach at
    ``reach_tolerance`` (points per hand; :func:`lab.tables.policies.round_by_reach`)
    without checkpoints, its exploitability measured again; then give each of the vira's
    score-aware policies, wherever it played the old points strategy, the new one
    (:func:`lab.solver.fullgame.compact.rebase`), measured again and stored against the
    new points policy. A vira whose policy no pair of which moves is left as it is; a vira
    stored as another's copies it again. Returns the bytes of the store after."""
    from ..solver.fullgame.compact import LEVEL, encode, packing_of, rebase
    from .policies import (copy_policy, measure_points, round_by_reach,
                           write_full_policy)

    say = progress or (lambda msg: None)
    viras = read_policy_manifest(directory)["viras"]
    aware = [e for e in read_score_policy_manifest(directory)["policies"].values()
             if "same_as" not in e]
    for v, entry in viras.items():
        if "same_as" in entry:
            continue
        points = load_full_policy(v, directory)
        config, keys, tree, layout, templates = (points.config, points.keys, points.tree,
                                                 points.layout, points.templates)
        old = points.q.copy()
        own = {tuple(e["score"]): (load_score_policy(v, e["score"], directory).q.copy(), e)
               for e in aware if e["vira"] == v}
        new = old.copy()
        coarse = round_by_reach(config, keys, tree, templates, new, reach_tolerance, threads)
        if coarse == 0:
            say(f"vira {v}: no pair moves at reach tolerance {reach_tolerance:g}; left as "
                "it is")
            continue
        points_blob = encode(new, keys, tree, templates)
        info = dict(_content(entry), **measure_points(config, keys, tree, layout, templates,
                                                      new, threads),
                    reach_tolerance=float(reach_tolerance), coarse_pairs=int(coarse),
                    level=LEVEL, packing=packing_of(points_blob))
        say(f"vira {v}: {entry['bytes'] / 1e6:.2f} -> {len(points_blob) / 1e6:.2f} MB, "
            f"{coarse:,} pairs rounded, exploitability as stored "
            f"{entry['exploitability']:.4f} -> {info['exploitability']:.4f} points per hand")
        rebased = {}   # measured before anything is written: the old base decodes them
        for score, (q, e) in own.items():
            rebase(q, old, new, keys, tree, templates)
            blob, plain, difference = smaller_encoding(q, new, keys, tree, templates)
            exploitability, value_mao = measure(
                config, keys, tree, layout, templates, q, (e["scaled_mao"], e["scaled_pe"]),
                e["centre"], e["half_swing"], threads)
            rebased[score] = blob, dict(
                _content(e), exploitability=exploitability, value_mao=value_mao,
                level=LEVEL, packing=packing_of(blob), difference=blob is difference,
                plain_bytes=len(plain), difference_bytes=len(difference))
            say(f"vira {v} at {score[0]}-{score[1]}: {e['bytes'] / 1e6:.2f} -> "
                f"{len(blob) / 1e6:.2f} MB, exploitability as stored "
                f"{e['exploitability']:.4f} -> {exploitability:.4f} match-win probability")
        sha = write_full_policy(v, points_blob, info, directory)["sha256"]
        for score, (blob, e) in rebased.items():
            write_score_policy(v, score, blob, dict(e, base_sha256=sha), directory)
    for v, entry in viras.items():
        if "same_as" in entry:
            copy_policy(v, entry["same_as"], directory)
    for e in read_score_policy_manifest(directory)["policies"].values():
        if "same_as" in e:
            copy_score_policy(e["vira"], e["same_as"], tuple(e["score"]), directory)
    _CACHE.clear()
    return store_bytes(directory)


def write_score_policy(vira, score, blob: bytes, info: dict,
                       directory: Optional[Path] = None) -> dict:
    """Store one encoded score-aware policy and its manifest entry (atomic, locked), within
    the policy store's :data:`BUDGET`; returns the entry."""
    from ..solver.fullgame.compact import with_header

    v = _vira(vira)
    path = policy_path(v, score, directory)
    blob = with_header(blob, policy_header(v, info.get("slots"), score))
    entry = dict(info, sha256=content_hash(blob), bytes=len(blob),
                 built=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with data_lock(manifest_path(directory).parent):
        manifest = manifest_to_write(directory)
        held = manifest["policies"].get(_key(v, score), {})
        old = file_bytes([held]) if held else 0
        total = store_bytes(directory) - old + len(blob)
        if total > BUDGET:
            raise TableError(f"the score-aware policy of vira {v} at {score[0]}-{score[1]} "
                             f"({len(blob) / 1e6:.1f} MB) would take the policy store to "
                             f"{total / 1e6:.1f} MB, over its {BUDGET / 1e6:.0f} MB")
        manifest.update({"table": NAME, "schema": SCHEMA, "rules_version": RULES_VERSION,
                         "code": code_hash(SOURCES), "rebuild": rebuild_command(),
                         "unit": "match-win probability"})
        put_entry(manifest, v, score, entry)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, blob)
        write_atomic(manifest_path(directory), json.dumps(manifest, indent=2) + "\n")
    return entry


def put_entry(manifest: dict, vira: str, score, entry: dict) -> None:
    """Set ``vira``'s entry at ``score`` in a score-aware manifest, in vira and score order,
    and its total: the bytes of the files it names (a vira stored as another's has none)."""
    manifest["policies"][_key(vira, score)] = entry
    manifest["policies"] = dict(sorted(
        manifest["policies"].items(),
        key=lambda kv: (RANKS.index(kv[1]["vira"]), tuple(kv[1]["score"]))))
    manifest["bytes"] = file_bytes(manifest["policies"].values())


def copy_score_policy(vira, same_as, score, directory: Optional[Path] = None) -> dict:
    """Store ``vira``'s score-aware policy at ``score`` as ``same_as``'s, when the two play
    one game (:func:`lab.classes.same_game_vira`), their points policies are one (their
    score-aware ones are differences from it) and ``score_play`` holds ``vira``'s re-solve
    as a copy of that one; TableError otherwise. Returns the entry."""
    from ..classes import same_game_vira
    from .score_play import load_plays

    v, w = _vira(vira), _vira(same_as)
    score = (int(score[0]), int(score[1]))
    if same_game_vira(v) != same_game_vira(w) or v == w:
        raise TableError(f"viras {v} and {w} play different games: store vira {v}'s own "
                         "score-aware policy")
    source = score_policy_info(w, score, directory)
    if source is None or "same_as" in source:
        raise TableError(f"no score-aware policy of vira {w} at {score[0]}-{score[1]} "
                         f"stored: `{rebuild_command(w, score)}` first")
    if policy_info(v, directory).get("sha256") != policy_info(w, directory).get("sha256"):
        raise TableError(f"vira {v}'s points policy is not vira {w}'s: store it with "
                         f"`{points_rebuild_command(v)}` first")
    plays, _ = load_plays(directory)
    rows = plays[(plays["vira"].isin([v, w])) & (plays["score_mao"] == score[0])
                 & (plays["score_pe"] == score[1])].set_index("vira")
    same = (len(rows) == 2 and rows.loc[v, "start"] == f"vira {w}"
            and rows.loc[v, "iterations"] == rows.loc[w, "iterations"]
            and rows.loc[v, "exploitability"] == rows.loc[w, "exploitability"])
    if not same:
        raise TableError(f"score_play does not hold vira {v}'s re-solve at {score[0]}-{score[1]} "
                         f"as a copy of vira {w}'s: run `lab solve match-play --vira {v} "
                         f"--score {score[0]},{score[1]} --checkpoints DIR` first")
    entry = dict(source, vira=v, same_as=w, start=str(rows.loc[v, "start"]),
                 built=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with data_lock(manifest_path(directory).parent):
        manifest = manifest_to_write(directory)
        put_entry(manifest, v, score, entry)
        write_atomic(manifest_path(directory), json.dumps(manifest, indent=2) + "\n")
    stale = policy_path(v, score, directory)
    if stale.exists():
        stale.unlink()   # the vira now reads the other's file
    _CACHE.clear()
    return entry


def _content(entry: dict) -> dict:
    """A manifest entry without what its file's writing sets (hash, size, time)."""
    return {k: x for k, x in entry.items() if k not in ("sha256", "bytes", "built")}


def repack_policies(directory: Optional[Path] = None, progress=None) -> int:
    """Write every stored policy (points and score-aware) again at the current encoding
    (:data:`lab.solver.fullgame.compact.LEVEL`, the points policies'
    :data:`~lab.solver.fullgame.compact.PACKING` and the score-aware ones'
    :data:`PACKING`): the same bytes per key slot, checked by
    decoding, new files and hashes; a score-aware difference is taken again against its
    repacked points policy, and a vira stored as another's copies it again. Returns the
    bytes of the store after."""
    from ..solver.fullgame.compact import LEVEL, decode, encode, packing_of
    from .policies import copy_policy, write_full_policy

    say = progress or (lambda msg: None)
    aware = {}
    for entry in read_score_policy_manifest(directory)["policies"].values():
        v, score = entry["vira"], tuple(entry["score"])
        aware[(v, score)] = (load_score_policy(v, score, directory).q.copy(), entry)
    for v, entry in read_policy_manifest(directory)["viras"].items():
        if "same_as" in entry:
            continue
        policy = load_full_policy(v, directory)
        where = (policy.keys, policy.tree, policy.templates)
        blob = encode(policy.q, *where)
        if not np.array_equal(decode(blob, *where), policy.q):
            raise TableError(f"vira {v}'s policy does not decode to itself after repacking")
        write_full_policy(v, blob, dict(_content(entry), level=LEVEL,
                                        packing=packing_of(blob)),
                          directory)
        say(f"vira {v}: {entry['bytes'] / 1e6:.2f} -> {len(blob) / 1e6:.2f} MB")
    for v, entry in read_policy_manifest(directory)["viras"].items():
        if "same_as" in entry:
            copy_policy(v, entry["same_as"], directory)   # its entry names the new file
    for (v, score), (q, entry) in aware.items():
        if "same_as" in entry:
            continue
        base = load_full_policy(v, directory)
        where = (base.keys, base.tree, base.templates)
        blob, plain, difference = smaller_encoding(q, base.q, *where)
        if not np.array_equal(decode(blob, *where, base=base.q if blob is difference
                                     else None), q):
            raise TableError(f"the score-aware policy of vira {v} at {score[0]}-{score[1]} "
                             "does not decode to itself after repacking")
        write_score_policy(v, score, blob, dict(
            _content(entry), level=LEVEL, packing=packing_of(blob),
            difference=blob is difference,
            plain_bytes=len(plain), difference_bytes=len(difference),
            base_sha256=policy_info(v, directory)["sha256"]),
            directory)
        say(f"vira {v} at {score[0]}-{score[1]}: {entry['bytes'] / 1e6:.2f} -> "
            f"{len(blob) / 1e6:.2f} MB")
    for (v, score), (_, entry) in aware.items():
        if "same_as" in entry:
            copy_score_policy(v, entry["same_as"], score, directory)
    _CACHE.clear()
    return store_bytes(directory)
