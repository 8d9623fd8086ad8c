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
the data folder's lock, and a policy file is read only when its size and hash are the ones
its manifest entry records, so a reader sees either the old policy or the new one, never a
mixture. Each file written now starts with a header naming the vira, rules version and
slot count it was stored for (:func:`lab.solver.fullgame.compact.with_header`), and is
refused for any other; for a file written before headers existed, two viras' entries may
not name one file (a hash), unless one is stored as the other's (``same_as``). A number of
a manifest that is not finite (NaN, infinity) refuses the manifest. A missing, damaged or
stale policy is a :class:`~lab.tables.TableError` that names the command rebuilding it
(:func:`rebuild_command`).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Optional

import numpy as np

from ..cards import RANKS
from ..classes import same_game_vira, vira_rank_of
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


def rebuild_command(vira: str = "V", options: str = "") -> str:
    """The command that stores ``vira``'s points policy again (``options``: more of them,
    such as a score): a vira playing another's game (3 plays 2's;
    :func:`lab.classes.same_game_vira`) is stored as that one's, and a vira whose game
    another plays is stored with it, so that its copy names the new file."""
    more = f" {options}" if options else ""
    if vira == "V":
        return f"lab solve policy --vira V{more} --checkpoints DIR"
    v = RANKS[vira_rank_of(vira)]
    game = [w for w in RANKS if same_game_vira(w) == same_game_vira(v)]
    owner = game[0]
    if v != owner:
        return f"lab solve policy --vira {v}{more} --same-as {v}={owner} --checkpoints DIR"
    copies = "".join(f" --vira {w}" for w in game[1:])
    same = "".join(f" --same-as {w}={owner}" for w in game[1:])
    return f"lab solve policy --vira {v}{copies}{more}{same} --checkpoints DIR"


def policy_dir(directory: Optional[Path] = None) -> Path:
    return (Path(directory) if directory is not None else data_dir()) / NAME


def manifest_path(directory: Optional[Path] = None) -> Path:
    return (Path(directory) if directory is not None else data_dir()) / f"{NAME}.json"


def policy_path(vira: str, directory: Optional[Path] = None) -> Path:
    """The file of a vira's own policy (a vira stored ``same_as`` another reads that one's)."""
    return policy_dir(directory) / f"{RANKS[vira_rank_of(vira)]}.zst"


def read_policy_manifest(directory: Optional[Path] = None, numbers: bool = True) -> dict:
    """The manifest of the stored points policies; TableError naming the rebuild command
    when it is missing, unreadable, of other rules or (``numbers``) holds a number that is
    not finite (:func:`check_manifest_numbers`; a writer replacing an entry reads it
    without)."""
    path = manifest_path(directory)
    if not path.exists():
        raise TableError(f"no stored full-game policy ({path} not found); build one with "
                         f"`{rebuild_command()}`")
    if numbers:
        return checked_once(path, lambda: read_policy_manifest(directory, numbers=False),
                            lambda m: check_manifest_numbers(m, "viras", path, rebuild_command))
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


_CHECKED: dict = {}


def checked_once(path: Path, read, check) -> dict:
    """A manifest as ``read()`` gives it and ``check`` accepts it, read again only when the
    file changed (another inode, time or size: every write renames a new file in): a bot
    asks for it at every decision. The dict is shared: read it, never change it."""
    try:
        st = path.stat()
    except OSError:
        return read()   # gone meanwhile: the reader says so
    stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
    held = _CHECKED.get(path)
    if held is not None and held[0] == stamp:
        return held[1]
    manifest = read()
    check(manifest)
    _CHECKED[path] = (stamp, manifest)
    return manifest


REBUILD_ALL = "lab rebuild --checkpoints DIR"
"""The command for a manifest damaged outside any one policy's entry: the rebuild stores
every policy of the store again."""


def check_manifest_numbers(manifest: dict, group: str, path: Path, redo_of) -> None:
    """TableError when a number anywhere in the policy manifest ``manifest`` (read from
    ``path``) is not finite (NaN, infinity: JSON allows neither, Python writes both): it
    names where, and the command rebuilding it, ``redo_of(key)`` for the entry under
    ``manifest[group][key]``, :data:`REBUILD_ALL` elsewhere."""
    for key, entry in manifest[group].items():
        place = non_finite(entry)
        if place is not None:
            raise TableError(f"{path}: {'.'.join(map(str, (group, key, *place[0])))} is "
                             f"{place[1]}, not a finite number; rebuild it with "
                             f"`{redo_of(key)}`")
    place = non_finite({k: x for k, x in manifest.items() if k != group})
    if place is not None:
        raise TableError(f"{path}: {'.'.join(map(str, place[0]))} is {place[1]}, not a "
                         f"finite number; rebuild the policies with `{REBUILD_ALL}`")


def non_finite(value, where: tuple = ()) -> Optional[tuple]:
    """``(keys, number)`` of the first number in a JSON value that is not finite, or
    None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where, value
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = non_finite(item, (*where, key))
        if found is not None:
            return found
    return None


def stored_viras(directory: Optional[Path] = None) -> list[str]:
    """Viras with a stored policy (rank characters, in rank order); [] when none."""
    try:
        manifest = read_policy_manifest(directory)
    except TableError:
        return []
    return [v for v in RANKS if v in manifest["viras"]]


def policy_info(vira, directory: Optional[Path] = None, manifest: Optional[dict] = None) -> dict:
    """The manifest entry of one vira (TableError naming the rebuild command if absent);
    from ``manifest`` when given (read from ``directory`` otherwise)."""
    v = RANKS[vira_rank_of(vira)]
    manifest = read_policy_manifest(directory) if manifest is None else manifest
    entry = manifest["viras"].get(v)
    if not isinstance(entry, dict):
        raise TableError(f"no stored full-game policy for vira {v}; build it with "
                         f"`{rebuild_command(v)}`")
    lacking = [k for k in ENTRY_KEYS if k not in entry]
    if lacking:
        raise TableError(f"the manifest entry of vira {v}'s stored policy lacks "
                         f"{', '.join(lacking)}; rebuild it with `{rebuild_command(v)}`")
    return entry


ENTRY_KEYS = ("sha256", "bytes", "slots", "ladder", "exploitability")
"""What a vira's manifest entry must hold to be read."""


_CACHE: dict = {}


def load_full_policy(vira, directory: Optional[Path] = None):
    """The stored :class:`~lab.policy.full.FullPolicy` of ``vira`` (cached per process),
    checked against its manifest (file hash, size, layout)."""
    from ..solver.fullgame.solver import card_tree, config_for
    from ..solver.fullgame.compact import decode
    from ..solver.fullgame.tree import build_templates
    from ..policy.full import FullPolicy

    v = RANKS[vira_rank_of(vira)]
    manifest = read_policy_manifest(directory)
    info = policy_info(v, manifest=manifest)
    path = policy_path(info.get("same_as", v), directory)
    key = (v, str(path), info.get("sha256"))  # viras sharing a file are distinct objects
    if key in _CACHE:
        return _CACHE[key]
    blob = stored_policy_bytes(v, manifest, directory)
    redo = rebuild_command(info.get("same_as", v))   # its file's: a copy's is another's
    config = config_for(v, ladder=tuple(info["ladder"]), storage="float32")
    keys = policy_keys(config, bool(info.get("merge", True)))
    if keys.n_slots != int(info["slots"]):
        raise TableError(f"stored policy of vira {v} has {info['slots']} slots, the game has "
                         f"{keys.n_slots}; rebuild it with `{redo}`")
    try:
        q = decoded(info.get("sha256"), lambda: decode(blob, keys, card_tree(config),
                                                        build_templates(config.ladder)))
    except Exception as exc:  # pyarrow raises several kinds for damaged bytes
        raise TableError(f"stored policy of vira {v}: {path} is damaged ({exc}); rebuild it "
                         f"with `{redo}`") from None
    try:
        policy = FullPolicy(config, q, keys=keys,
                            exploitability=float(info["exploitability"]),
                            rules=RULES_VERSION, meta=dict(info))
    except ValueError as exc:
        raise TableError(f"stored policy of vira {v} does not fit the game ({exc}); rebuild "
                         f"it with `{redo}`") from None
    _CACHE[key] = policy   # its bytes are mapped from the disk cache: every vira can stay
    return policy


DECODE_SOURCES = ("solver/fullgame/compact.py", "solver/fullgame/pair_coder.py")
"""The code a decoded policy depends on (its cached bytes are decoded again when it
changes)."""


def decoded(name: str, decode):
    """The slot bytes of a stored policy file (``decode()`` works them out), ``name``\\ d
    by the hash of its file (and of its base, for a difference), kept in the disk cache
    (:mod:`lab.solver.cache`) and mapped from there: a policy is decoded once per
    machine, loads in milliseconds after that, and every process holding it shares one
    copy of its pages."""
    from ..solver.cache import disk_cached

    return disk_cached(f"policy-{name}", decode, DECODE_SOURCES)


def stored_policy_bytes(vira, manifest: dict, directory: Optional[Path] = None) -> bytes:
    """The file of ``vira``'s points policy (its manifest ``manifest``), checked without
    decoding it: a copy (``same_as``) names the file of the vira it copies as stored now
    (:func:`check_copy`), no other vira names the same file (:func:`check_shared_files`),
    and the file is there with its entry's size and hash (:func:`read_policy_file`) and a
    header, where it has one, of this vira, rules and slots (:func:`check_policy_header`).
    TableError naming the command that rebuilds it otherwise."""
    v = RANKS[vira_rank_of(vira)]
    info = policy_info(v, manifest=manifest)
    owner = check_copy(v, info, manifest["viras"].get, f"the points policy of vira {v}",
                       rebuild_command(v))
    check_shared_files(manifest["viras"], v, lambda w: f"vira {w}", rebuild_command)
    what = f"stored policy of vira {v}" + (f" (vira {owner}'s file)" if owner != v else "")
    redo = rebuild_command(owner)
    blob = read_policy_file(policy_path(owner, directory), info, what, redo)
    check_policy_header(blob, policy_header(owner, info.get("slots")), what, redo)
    return blob


def policy_problem(vira, directory: Optional[Path] = None,
                   manifest: Optional[dict] = None) -> Optional[str]:
    """Why ``vira``'s stored points policy would be refused by its loader, without decoding
    it (:func:`stored_policy_bytes`; one line naming the rebuild command), or None."""
    try:
        manifest = read_policy_manifest(directory) if manifest is None else manifest
        stored_policy_bytes(vira, manifest, directory)
    except TableError as exc:
        return str(exc)
    return None


def check_copy(vira: str, entry: dict, source_of, what: str, redo: str) -> str:
    """The vira whose file ``vira``'s manifest entry ``entry`` reads: its own, or for a copy
    (``same_as``) the other vira's, when that one plays the same game and its entry
    (``source_of(other vira)``, None when it has none) names the same file: it was not
    stored again since the copy. TableError naming ``what`` and ``redo`` otherwise."""
    w = entry.get("same_as")
    if w is None:
        return vira
    if w not in RANKS or w == vira or same_game_vira(w) != same_game_vira(vira):
        raise TableError(f"{what} is stored as vira {w}'s, which plays another game; rebuild "
                         f"it with `{redo}`")
    source = source_of(w)
    if not isinstance(source, dict) or "same_as" in source:
        raise TableError(f"{what} is stored as vira {w}'s, which is not stored; rebuild it "
                         f"with `{redo}`")
    if (source.get("sha256"), source.get("bytes")) != (entry.get("sha256"), entry.get("bytes")):
        raise TableError(f"{what} is stored as vira {w}'s, stored again since; copy it again "
                         f"with `{redo}`")
    return w


def check_shared_files(entries: dict, key, name_of, redo_of) -> None:
    """TableError when another entry of ``entries`` than ``key``'s, neither a copy
    (``same_as``), names the same file (hash) as ``key``'s: one of the two holds the other's
    policy. ``name_of(key)`` names an entry, ``redo_of(key)`` its rebuild command."""
    entry = entries[key]
    if "same_as" in entry:
        return
    for other, e in entries.items():
        if other != key and isinstance(e, dict) and "same_as" not in e \
                and e.get("sha256") == entry.get("sha256"):
            raise TableError(f"the policies of {name_of(key)} and {name_of(other)} name one "
                             f"file (hash {entry.get('sha256')}): one holds the other's "
                             f"policy; rebuild them with `{redo_of(key)}` and "
                             f"`{redo_of(other)}`")


def read_policy_file(path: Path, entry: dict, what: str, redo: str) -> bytes:
    """The bytes of a stored policy file of the size and hash its manifest entry ``entry``
    records; a TableError naming ``what`` and the rebuild command ``redo`` when it is
    missing, cannot be read, is empty, cut short, longer or another file."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        raise TableError(f"{what}: {path} is missing; rebuild it with `{redo}`") from None
    except OSError as exc:
        raise TableError(f"{what}: cannot read {path} ({exc.strerror}); rebuild it with "
                         f"`{redo}`") from None
    size = entry.get("bytes")
    if not blob:
        raise TableError(f"{what}: {path} is empty; rebuild it with `{redo}`")
    if isinstance(size, int) and len(blob) < size:
        raise TableError(f"{what}: {path} is cut short ({len(blob):,} of its {size:,} bytes); "
                         f"rebuild it with `{redo}`")
    if isinstance(size, int) and len(blob) > size:
        raise TableError(f"{what}: {path} has {len(blob):,} bytes, its manifest {size:,}; "
                         f"rebuild it with `{redo}`")
    if content_hash(blob) != entry.get("sha256"):
        raise TableError(f"{what}: {path} is not the file its manifest describes (another "
                         f"hash); rebuild it with `{redo}`")
    return blob


def policy_header(vira, slots, score=None) -> dict:
    """The header of a stored policy file (:func:`lab.solver.fullgame.compact.with_header`):
    the vira it was stored for, the rules version, its layout's slot count and, for a
    score-aware policy, its score (mão's, pé's points)."""
    return {"vira": RANKS[vira_rank_of(vira)], "rules": RULES_VERSION,
            "slots": slots,
            "score": None if score is None else [int(score[0]), int(score[1])]}


def check_policy_header(blob: bytes, asked: dict, what: str, redo: str) -> None:
    """TableError naming ``what`` and ``redo`` when the header of a stored policy file
    says another vira, rules version, slot count or score than ``asked``
    (:func:`policy_header`), or is damaged. A file written before headers existed has
    none: its manifest entry is all there is to check it by."""
    from ..solver.fullgame.compact import split_header

    try:
        fields, _ = split_header(blob)
    except ValueError as exc:
        raise TableError(f"{what}: {exc}; rebuild it with `{redo}`") from None
    if fields is None:
        return
    for name, want in asked.items():
        if fields.get(name) != want:
            raise TableError(f"{what}: its file was stored for {name} {fields.get(name)!r}, "
                             f"not {want!r}; rebuild it with `{redo}`")


def write_full_policy(vira, blob: bytes, info: dict, directory: Optional[Path] = None) -> dict:
    """Store one vira's encoded policy and its manifest entry (atomic, locked); returns
    the entry."""
    from ..solver.fullgame.compact import with_header

    v = RANKS[vira_rank_of(vira)]
    path = policy_path(v, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = with_header(blob, policy_header(v, info.get("slots")))
    entry = dict(info, sha256=content_hash(blob), bytes=len(blob),
                 built=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with data_lock(manifest_path(directory).parent):
        try:   # an entry with a number that is not finite is replaced, not refused
            manifest = read_policy_manifest(directory, numbers=False)
        except TableError:
            manifest = {"viras": {}}
        manifest.update({"table": NAME, "schema": SCHEMA, "rules_version": RULES_VERSION,
                         "code": code_hash(SOURCES), "rebuild": rebuild_command()})
        manifest["viras"][v] = entry
        manifest["viras"] = {k: manifest["viras"][k] for k in RANKS if k in manifest["viras"]}
        manifest["bytes"] = file_bytes(manifest["viras"].values())
        write_atomic(path, blob)
        write_atomic(manifest_path(directory), json.dumps(manifest, indent=2) + "\n")
    return entry


def file_bytes(entries) -> int:
    """Bytes of the files the manifest entries ``entries`` name (a copy names none; an
    entry whose size is not a whole number counts none)."""
    return sum(e["bytes"] for e in entries
               if "same_as" not in e and isinstance(e.get("bytes"), int))


def policy_keys(config, merge: bool = True):
    """The keys of the stored policies of ``config``'s game (cached on disk)."""
    from ..solver.fullgame.solver import card_tree, game_layout
    from ..solver.fullgame.tree import build_templates
    from ..policy.full import _keys

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
        manifest = read_policy_manifest(directory, numbers=False)
        manifest["viras"][v] = info
        manifest["viras"] = {k: manifest["viras"][k] for k in RANKS if k in manifest["viras"]}
        write_atomic(manifest_path(directory), json.dumps(manifest, indent=2) + "\n")
    stale = policy_path(v, directory)
    if stale.exists():
        stale.unlink()  # the vira now reads the other's file
    return info
