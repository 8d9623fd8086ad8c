"""The order in which ``data/`` is rebuilt, and which steps of it are due.

Tables are built on each other (the ``built_on`` of :data:`~lab.tables.registry.TABLES`),
and the stored policies on the full solves and the score-aware re-solves: when one is
rebuilt, everything built on it has to be rebuilt after it, in order. :data:`STEPS` is that
chain, each step with what it writes, the steps whose output it reads, the time it took on
the 2-core development machine and (:func:`step_commands`) the ``lab`` commands that run it.

:func:`plan` says which steps are due on a data folder: a step whose output is missing,
stale or corrupt (:func:`why_due`), and every step after a due step that reads its output.
``lab rebuild`` runs the due steps in order. Every command resumes where it stopped (the
solves from their checkpoints), and a step is done once its output is fresh, so running the
plan again after an interruption goes on from the step it stopped in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pandas as pd

from ..cards import RANKS
from ..rules import DEFAULT_RULES, PRESETS
from .manifests import checked_files, load_table, parquet_frame, read_manifest
from .registry import TableError, data_dir, table_paths

END_GAMES = ((10, 10), (9, 10), (10, 9), (9, 9))
"""The end-game scores (mão, pé) whose score-aware policies every vira stores."""

VARIANTS = tuple(name for name, rules in PRESETS.items() if rules != DEFAULT_RULES)
"""The named rule sets besides the default, whose what-if the ``whatif`` tables hold."""

CHECKPOINTS = "DIR"
"""Stands for the checkpoint folder in a command that needs one (:func:`step_commands`)."""


@dataclass(frozen=True)
class ChainStep:
    """One step of the rebuild: the tables or policy stores it ``writes``, the steps
    ``after`` which it runs (it reads their output), the ``time`` it took here, and whether
    its commands read or write the full solves' ``checkpoints``."""

    name: str
    writes: tuple
    after: tuple
    time: str
    checkpoints: bool = False


STEPS = (
    ChainStep("cardplay", ("cardplay", "cardplay_summary"), (), "about 20 s"),
    ChainStep("full", ("full_ev", "full_strategy", "full_summary"), (),
              "about 11 min for vira 4 to 0.001 points per hand with two threads (20-24 min "
              "when the stored solves were made), 17-22 min then for each later one started "
              "from its solve (--from)", checkpoints=True),
    ChainStep("full_policy", ("full_policy",), ("full",), "about 1.5 min per vira",
              checkpoints=True),
    ChainStep("match", ("match_equity", "mao_de_onze"), ("cardplay", "full"), "3-12 min"),
    ChainStep("score", ("score_leak",), ("match", "full"),
              "4-5 min per vira with two threads, about 40 min for the ten",
              checkpoints=True),
    ChainStep("match_play", ("score_play", "score_play_hands", "match_equity_mixed"),
              ("match", "full", "score"),
              "2-4 min per (vira, score) from another vira's re-solve of it or a "
              "neighbouring score of its own vira, about 16 from points play; each re-solve "
              "keeps its solution (about 0.35 GB) under DIR/score for score_policy",
              checkpoints=True),
    ChainStep("score_policy", ("score_policy",), ("match_play", "full_policy"),
              "1-2 min per (vira, score)", checkpoints=True),
    ChainStep("whatif", ("whatif", "whatif_match"), ("cardplay", "full", "match"),
              "fpt 5-10 min, buteco 15-25 min"),
    ChainStep("ranking", ("bot_ranking",), ("full_policy",), "about 2 min per vira"),
    ChainStep("report", ("strategy_report",), ("cardplay", "full_policy"),
              "about 8 s per vira, 80 s for the ten"),
    ChainStep("exploit", ("exploit_summary", "exploit_report"), ("cardplay", "full_policy"),
              "per opponent about 1 min of matches and 1.5 min of profile, then 5-6 min and "
              "14 GB a vira of locked re-solve (about an hour for the ten), then 10 s a vira "
              "of report"),
)
"""The whole chain, each step after the steps it reads."""

STEP_NAMES = tuple(s.name for s in STEPS)


def step_of(name: str) -> ChainStep:
    for step in STEPS:
        if step.name == name:
            return step
    raise TableError(f"{name!r}: unknown rebuild step (steps are {', '.join(STEP_NAMES)})")


# ---------------------------------------------------------------- what is due


def table_due(name: str, directory: Path, coverage: bool = True) -> Optional[str]:
    """Why table ``name`` must be rebuilt (missing, stale, corrupt: one line), or None;
    ``coverage``: it must hold all ten viras."""
    try:
        checked_files(name, viras=None if coverage else [], directory=directory)
    except TableError as exc:
        return str(exc)
    return None


def policies_due(directory: Path) -> Optional[str]:
    """Why the stored points policies must be rebuilt, or None: each vira's file must be
    the one its manifest entry describes, as its loader checks it without decoding it
    (size, hash, header, copies: :func:`lab.tables.policies.policy_problem`), and each
    vira's own policy must have been built from the solve the full tables hold (the same
    iterations and exploitability)."""
    from .policies import policy_problem, read_policy_manifest

    try:
        manifest = read_policy_manifest(directory)
        solves = load_table("full_summary", directory=directory).set_index("vira")
    except TableError as exc:
        return str(exc)
    for v in RANKS:
        entry = manifest["viras"].get(v)
        if entry is None:
            return f"no stored points policy of vira {v}"
        why = policy_problem(v, directory, manifest)
        if why is not None:
            return why
        if entry.get("same_as") is not None:
            continue
        solve = solves.loc[v]
        built = (entry.get("iterations"), entry.get("solver_exploitability"))
        if built != (int(solve["iterations"]), float(solve["exploitability"])):
            return (f"vira {v}'s points policy was built from another solve ({built[0]} "
                    f"iterations, exploitability {built[1]:.6f} points per hand) than the "
                    f"full tables' ({int(solve['iterations'])} iterations, "
                    f"{float(solve['exploitability']):.6f})")
    return None


def plays_due(directory: Path) -> Optional[str]:
    """Why ``score_play`` must be rebuilt although it loads: a sweep with new settings has
    not yet re-solved every (vira, score) the table held before, or None."""
    from .score_play import plays_to_rebuild

    left = plays_to_rebuild(directory)
    if not left:
        return None
    named = ", ".join(f"vira {v} at {m}-{p}" for v, m, p in left[:3])
    more = f" and {len(left) - 3} more" if len(left) > 3 else ""
    return (f"table 'score_play' does not yet hold the re-solves it held before its "
            f"settings changed: {named}{more}; rebuild them with "
            "`lab solve match-play --checkpoints DIR`")


def variants_due(directory: Path) -> Optional[str]:
    """Why ``whatif`` must be rebuilt although it loads: it lacks a named variant (a rebuild
    stopped between two rule sets), or None."""
    rows = _column_values("whatif", directory, ("rules",))
    held = set() if rows is None else {str(r) for r in rows["rules"]}
    for name in VARIANTS:
        if name not in held:
            return (f"table 'whatif' lacks the rule set {name!r}; rebuild it with "
                    f"`lab whatif --rules {name}`")
    return None


def score_policies_due(directory: Path) -> Optional[str]:
    """Why the stored score-aware policies must be rebuilt (each vira stores the end
    games), or None."""
    problems = policy_problems(directory)
    return problems[0][2] if problems else None


def policy_problems(directory: Path) -> list:
    """(vira, (mão, pé), why) of each score-aware policy to store again: an end game not
    stored, one whose file is not the one its entry describes (size, hash, header, copies:
    :func:`lab.tables.score_policies.score_policy_problem`), one built on another points
    policy than the one stored now (each is the snapped points policy or its difference
    from it, named by that policy's content hash), or from another re-solve than
    ``score_play``'s row of its vira and score (iterations and exploitability differ), and
    a copy of one to store again; (None, None, why) when the store cannot be read."""
    from .policies import policy_info
    from .score_policies import read_score_policy_manifest, score_policy_problem

    try:
        manifest = read_score_policy_manifest(directory)
    except TableError as exc:
        return [(None, None, str(exc))]
    entries = list(manifest["policies"].values())
    have = {(e.get("vira"), tuple(e.get("score", ()))) for e in entries}
    problems = [(v, (m, p), f"no stored score-aware policy of vira {v} at {m}-{p}")
                for v in RANKS for m, p in END_GAMES if (v, (m, p)) not in have]
    rows = _column_values("score_play", directory, ("vira", "score_mao", "score_pe",
                                                    "iterations", "exploitability"))
    solved = {} if rows is None else {(str(v), (int(m), int(p))): (int(i), float(x))
                                      for v, m, p, i, x in rows.itertuples(index=False)}
    for e in entries:
        v, score = e["vira"], tuple(e["score"])
        why = score_policy_problem(v, score, directory, manifest)
        if why is not None:
            problems.append((v, score, why))
            continue
        try:
            base = policy_info(v, directory).get("sha256")
        except TableError as exc:
            problems.append((v, score, str(exc)))
            continue
        where = f"vira {v}'s score-aware policy at {score[0]}-{score[1]} was built"
        if e.get("base_sha256") != base:
            problems.append((v, score, f"{where} on another points policy than the one "
                                       "stored now"))
        elif solved.get((v, score)) != (e.get("iterations"), e.get("solver_exploitability")):
            problems.append((v, score, f"{where} from another re-solve than the one in "
                                       "score_play"))
    due = {(v, score) for v, score, _ in problems}
    for e in entries:   # a copy names the file stored again: it is copied again after it
        v, w, score = e["vira"], e.get("same_as"), tuple(e["score"])
        if w is not None and (w, score) in due and (v, score) not in due:
            problems.append((v, score, f"vira {v}'s score-aware policy at {score[0]}-"
                                       f"{score[1]} is vira {w}'s, which is stored again"))
    return problems


def ranking_due(directory: Path) -> Optional[str]:
    """Why the bot ranking must be rebuilt, or None: besides its table, each vira's rows
    must have been ranked against the policy stored now (its manifest names the policy's
    content hash)."""
    return (table_due("bot_ranking", directory, coverage=False)
            or other_policy("bot_ranking", "was ranked against", directory))


def report_due(directory: Path) -> Optional[str]:
    """Why the strategy report must be rebuilt, or None: besides its table (all ten viras),
    each vira's rows must sum over the points policy stored now (its manifest names the
    policy's content hash)."""
    return (table_due("strategy_report", directory)
            or other_policy("strategy_report", "was summed over", directory))


def other_policy(name: str, done: str, directory: Path) -> Optional[str]:
    """The first vira of table ``name`` whose rows were computed from another points policy
    than the one stored now (one line, ``done`` saying how: ``was ranked against``), or
    None; the table's manifest names each vira's policy by its content hash."""
    from .policies import policy_info

    for v, entry in read_manifest(name, directory)["viras"].items():
        try:
            now = policy_info(v, directory).get("sha256")
        except TableError as exc:
            return str(exc)
        if entry.get("policy_sha256") != now:
            return (f"table '{name}': vira {v} {done} another points policy than the one "
                    "stored now")
    return None


def why_due(step: ChainStep, directory: Optional[Path] = None) -> Optional[str]:
    """Why the output of ``step`` must be rebuilt (the first reason found), or None when
    all of it is fresh."""
    directory = data_dir() if directory is None else Path(directory)
    for name in step.writes:
        if name == "full_policy":
            why = policies_due(directory)
        elif name == "score_policy":
            why = score_policies_due(directory)
        elif name == "bot_ranking":
            why = ranking_due(directory)
        elif name == "strategy_report":
            why = report_due(directory)
        elif name in ("exploit_summary", "exploit_report"):
            why = (table_due(name, directory)
                   or other_policy(name, "was exploited from", directory))
        elif name == "score_play":
            why = table_due(name, directory) or plays_due(directory)
        elif name == "whatif":
            why = table_due(name, directory) or variants_due(directory)
        else:
            why = table_due(name, directory)
        if why is not None:
            return why
    return None


def plan(directory: Optional[Path] = None) -> list[dict]:
    """Every step in order: ``step``, ``due`` and ``why`` (its own output's reason, or the
    earlier due steps it reads)."""
    out, due = [], set()
    for step in STEPS:
        why = why_due(step, directory)
        if why is None:
            upstream = [a for a in step.after if a in due]
            if upstream:
                why = f"it reads the output of {', '.join(upstream)}, rebuilt before it"
        if why is not None:
            due.add(step.name)
        out.append({"step": step.name, "due": why is not None, "why": why,
                    "writes": list(step.writes), "time": step.time})
    return out


# ---------------------------------------------------------------- the commands of a step


def step_commands(step: ChainStep, directory: Optional[Path] = None,
                  checkpoints: str = CHECKPOINTS, threads: int = 2,
                  jobs: int = 2) -> list[list[str]]:
    """The ``lab`` commands (argument lists after ``lab``) that rebuild ``step``'s output
    with the default settings: the same viras, scores and rule sets the data folder holds
    now (all ten viras and the end games where it holds none); of the score-aware
    policies only those due, when some are (:func:`policy_problems`)."""
    directory = data_dir() if directory is None else Path(directory)
    ck = ["--checkpoints", str(checkpoints)]
    th = ["--threads", str(threads)]
    if step.name == "cardplay":
        return [["solve", "cardplay", "--all", "--jobs", str(jobs)]]
    if step.name == "full":
        return [["solve", "full", "--all", *ck, *th, "--from", "4"]]
    if step.name == "full_policy":
        return [["solve", "policy", "--all", *ck, *th, "--same-as", "3=2"]]
    if step.name == "match":
        return [["solve", "match", "--jobs", str(jobs)]]
    if step.name == "score":
        return [["solve", "score", "--all-scores", *ck, *th]]
    if step.name == "match_play":   # one sweep: its waves run every vira's scores in order
        return [["solve", "match-play", *ck, *th,
                 *(x for v, scores in _held_scores(directory).items() for m, p in scores
                   for x in ("--at", f"{v}:{m},{p}"))]]
    if step.name == "score_policy":
        return [["solve", "policy", *ck, *th, "--vira", v, *_score_options(scores),
                 *(["--same-as", "3=2"] if v == "3" else [])]
                for v, scores in (_due_policy_scores(directory)
                                  or _held_policy_scores(directory)).items()]
    if step.name == "whatif":
        return [["whatif", "--rules", r, "--jobs", str(jobs)] for r in _held_rules(directory)]
    if step.name == "ranking":
        return [["rank", "--write", "--vira", *_held_viras(directory, "bot_ranking")]]
    if step.name == "report":
        return [["report", "--write"]]
    if step.name == "exploit":
        return exploit_commands(directory, threads)
    raise TableError(f"{step.name!r}: unknown rebuild step")


EXPLOITS = ".cache/exploits"
"""Where the exploit step keeps its matches, profiles and exploit policies (4-5 MB a
vira each): not in the data folder, which keeps only their report."""

EXAMPLE_OPPONENTS = ("nit",)
"""The opponents whose exploits the bundled data holds when it holds none."""


def exploit_commands(directory: Path, threads: int = 2) -> list[list[str]]:
    """The commands that rebuild the exploit tables: for each style bot the tables hold an
    exploit of (:data:`EXAMPLE_OPPONENTS` when none), 200 seeded matches of it against the
    solver bot, its profile from them, its exploit of every vira; then the report of them
    all. An opponent that is no bot of the lab (a profile of a person) is left out: his
    matches are not the lab's to play again."""
    from ..sim.bots import BOT_NAMES

    rows = _column_values("exploit_summary", directory, ("opponent",))
    held = [] if rows is None else sorted(set(rows["opponent"]))
    names = [n for n in held if n in BOT_NAMES] or list(EXAMPLE_OPPONENTS)
    out = []
    for name in names:
        record, profile = f"{EXPLOITS}/{name}.jsonl", f"{EXPLOITS}/{name}.profile.json"
        out += [["simulate", "--a", name, "--b", "solver", "--matches", "200", "--seed", "1",
                 "--record", record],
                ["profile", record, "--player", name, "--save", profile],
                ["solve", "lock", "--vira", "all", "--profile", profile, "--out",
                 f"{EXPLOITS}/{name}", "--threads", str(threads)]]
    return out + [["report", "--write", "--exploits", EXPLOITS]]


def _score_options(scores) -> list[str]:
    return [x for m, p in scores for x in ("--score", f"{m},{p}")]


def _column_values(name: str, directory: Path, columns) -> Optional[pd.DataFrame]:
    """The ``columns`` of table ``name`` as written (None when it cannot be read): only which
    viras, scores or rule sets to rebuild are taken from it, never a number."""
    path = table_paths(name, directory)[0]
    try:
        return parquet_frame(path, columns)
    except Exception:   # missing or damaged: the defaults are rebuilt
        return None


def _held_scores(directory: Path) -> dict:
    """{vira: scores} of the ``score_play`` rows and of those a sweep dropped and has not
    re-solved yet (the end games of every vira when there are none)."""
    from .score_play import play_keys, plays_to_rebuild

    rows = _column_values("score_play", directory, ("vira", "score_mao", "score_pe"))
    keys = set() if rows is None else play_keys(rows.itertuples(index=False))
    keys |= set(plays_to_rebuild(directory))
    if not keys:
        return {v: list(END_GAMES) for v in RANKS}
    held = {}
    for v, m, p in keys:
        held.setdefault(v, []).append((m, p))
    return {v: sorted(held[v], reverse=True) for v in RANKS if v in held}


def _held_policy_scores(directory: Path) -> dict:
    """{vira: scores} of the stored score-aware policies, and the end games of every vira
    where fewer are stored."""
    from .score_policies import read_score_policy_manifest

    held = {v: set(END_GAMES) for v in RANKS}
    try:
        entries = read_score_policy_manifest(directory)["policies"].values()
    except TableError:   # unreadable: the end games are rebuilt
        entries = ()
    for e in entries:
        held.setdefault(str(e["vira"]), set()).add(tuple(e["score"]))
    return {v: sorted(held[v], reverse=True) for v in RANKS if v in held}


def _due_policy_scores(directory: Path) -> dict:
    """{vira: scores} of the score-aware policies to store again (:func:`policy_problems`);
    empty when none is, or when the store cannot be read (then every one held is)."""
    problems = policy_problems(directory)
    if any(v is None for v, _, _ in problems):
        return {}
    due = {}
    for v, score, _ in problems:
        due.setdefault(v, set()).add(score)
    return {v: sorted(due[v], reverse=True) for v in RANKS if v in due}


def _held_rules(directory: Path) -> list[str]:
    """The named variants and any other rule set the ``whatif`` rows hold."""
    rows = _column_values("whatif", directory, ("rules",))
    held = () if rows is None else tuple(str(r) for r in rows["rules"])
    return list(dict.fromkeys(VARIANTS + held))


def _held_viras(directory: Path, name: str) -> list[str]:
    rows = _column_values(name, directory, ("vira",))
    held = set() if rows is None else {str(v) for v in rows["vira"]}
    return [v for v in RANKS if v in held] or list(RANKS)
