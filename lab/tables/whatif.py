"""What-if tables: what a house rule set changes, beside the lab's own rules.

For a rule set (:class:`lab.rules.RuleSet`), :func:`build_whatif` solves what the rules
change and writes two tables (one family) with, for each quantity, the variant's figure,
the default's figure, their difference, each one's exploitability and the model behind it:

``whatif`` (one row per quantity and vira, score, seat or hand where it has one)
    ``cardplay_value``: the mão's card-play win probability (a hand that scores nothing
    counts half); ``cardplay_scoreless``: how often a hand scores nothing under the
    card-play equilibrium (probability); ``double_dummy_value``: the mão's double-dummy
    win probability; ``full_game_value``: the mão's points per hand in the full game
    (for a variant whose normal hands differ, blank until ``lab solve full --rules NAME
    --vira V`` solves that vira's full game under it: :func:`add_full_game`);
    ``full_game_scoreless``: for those solved viras, how often a hand scores nothing under
    the full game's solved strategies (probability); ``full_game_outcome``: for those viras,
    how often the seat ``seat`` scores ``hand`` points (1, 3, 6, 9 or 12) under them
    (probability); ``eleven_accept_rate``: per (vira,
    score, holder's seat), the probability that the holder of a mão de onze plays it
    (accepts), over his deals;
    ``eleven_accept``: per hand, the holder's accept probability, only for the hands whose
    decision changes (by at least one half).
``whatif_match``
    One row per score: the next hand's mão's match-win probability.

The variant and the default are compared on the same model: the full game's points play
for normal hands where the rule set plays them as the default does, or where its own full
game is recorded for all ten viras (so the default's figures are the stored
``match_equity`` and ``mao_de_onze``), else the card-play model for both (each solved
here). Rows of other rule sets already in the tables are kept, each with the tables it was
computed from: when those have changed since, the tables stay stale until that rule set is
computed again; tables that cannot be read are not written over (``replace`` starts them
again).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ..cards import RANKS
from ..errors import InputError
from ..rules import DEFAULT_RULES, RuleSet
from .cardplay import solve_viras, solver_processes
from .manifests import TableWrite, load_table, write_tables
from .registry import WHATIF_SETTINGS, TableError

DIFFERENCE_COLUMNS = ("variant", "default", "difference", "variant_exploitability",
                      "default_exploitability", "variant_model", "default_model")

SAME_GAME = "same game as the default"
"""Model name of a variant figure that is the default's own, the game being the same."""
NOT_SOLVED = "not solved under these rules"
"""Model name of a variant figure the lab cannot give yet (the full game's normal hands
under other rules)."""


def solve_variant_vira(vira: str, settings: dict, progress: bool = False) -> dict:
    """The card-play game and double dummy of one vira where three tied rounds go to
    ``settings["three_ties"]`` (``mao``, ``nobody`` or ``pe``): its summary row."""
    from ..solver.games.cardplay import solve_cardplay
    from ..solver.games.double_dummy import double_dummy_value

    ties = RuleSet(three_ties=settings["three_ties"]).tied_hand_winner
    card = settings["cardplay"]
    sol = solve_cardplay(vira, target_exploitability=card["target_exploitability"],
                         max_iterations=card["max_iterations"], progress=progress,
                         three_ties=ties)
    outcomes = sol.solver.outcome_probabilities()
    return {"vira": vira, "value_mao": float(sol.value),
            "p_nobody": float(outcomes[2]) if len(outcomes) > 2 else 0.0,
            "double_dummy_mao": double_dummy_value(vira, ties),
            "exploitability": float(sol.exploitability), "iterations": int(sol.iterations)}


def variant_summary(rules: RuleSet, settings: dict, jobs: int, progress: bool,
                    default: pd.DataFrame) -> pd.DataFrame:
    """Per vira: the card-play value, scoreless probability, double-dummy value,
    exploitability and iterations under ``rules`` (the default's own rows where three tied
    rounds go to the mão as there)."""
    if rules.three_ties == DEFAULT_RULES.three_ties:
        out = default[["vira", "value_mao", "double_dummy_mao", "exploitability",
                       "iterations"]].copy()
        out.insert(2, "p_nobody", 0.0)
        return out
    rows = solve_viras(list(RANKS), {**settings, "three_ties": rules.three_ties},
                       solve_variant_vira, progress, jobs)
    return pd.DataFrame([rows[v] for v in RANKS])


def _rows(quantity: str, unit: str, variant, default, variant_expl, default_expl,
          variant_model, default_model, **keys) -> pd.DataFrame:
    frame = pd.DataFrame({"quantity": quantity, "unit": unit,
                          **{k: list(v) for k, v in keys.items()}})
    frame["variant"] = np.broadcast_to(np.asarray(variant, dtype=float), len(frame))
    frame["default"] = np.asarray(default, dtype=float)
    frame["difference"] = frame["variant"] - frame["default"]
    frame["variant_exploitability"] = np.broadcast_to(np.asarray(variant_expl, dtype=float),
                                                      len(frame))
    frame["default_exploitability"] = np.asarray(default_expl, dtype=float)
    frame["variant_model"] = variant_model
    frame["default_model"] = default_model
    return frame


def per_vira_rows(rules: RuleSet, variant: pd.DataFrame, default: pd.DataFrame,
                  full: Optional[pd.DataFrame]) -> pd.DataFrame:
    """The card-play, double-dummy and full-game rows of the ``whatif`` table."""
    from ..match import plays_normal_hands_alike

    same = rules.three_ties == DEFAULT_RULES.three_ties
    card_model = SAME_GAME if same else "cardplay-equilibrium"
    frames = [
        _rows("cardplay_value", "win probability", variant["value_mao"], default["value_mao"],
              variant["exploitability"], default["exploitability"], card_model,
              "cardplay-equilibrium", vira=RANKS),
        _rows("cardplay_scoreless", "probability", variant["p_nobody"], np.zeros(10),
              variant["exploitability"], default["exploitability"], card_model,
              "cardplay-equilibrium", vira=RANKS),
        _rows("double_dummy_value", "win probability", variant["double_dummy_mao"],
              default["double_dummy_mao"], np.zeros(10), np.zeros(10),
              SAME_GAME if same else "double-dummy", "double-dummy", vira=RANKS),
    ]
    if full is not None:
        ev = full.set_index("vira").loc[list(RANKS)]
        alike = plays_normal_hands_alike(rules)
        frames.append(_rows(
            "full_game_value", "points per hand", ev["value_mao"] if alike else np.nan,
            ev["value_mao"], ev["exploitability"] if alike else np.nan, ev["exploitability"],
            SAME_GAME if alike else NOT_SOLVED, "full-game-points", vira=RANKS))
    return pd.concat(frames, ignore_index=True)


def eleven_frame(solutions: dict) -> pd.DataFrame:
    """The mão de onze rows (as in table ``mao_de_onze``) of {score: per-vira solutions}."""
    from .match import eleven_rows

    return pd.concat([eleven_rows(score, sols) for score, sols in sorted(solutions.items())],
                     ignore_index=True)


def eleven_rows_of(variant: pd.DataFrame, default: pd.DataFrame, variant_model: str,
                   default_model: str) -> pd.DataFrame:
    """``eleven_accept_rate`` per (vira, score, seat) and ``eleven_accept`` for the hands
    whose decision changes, from two ``mao_de_onze``-shaped frames."""
    keys = ["vira", "score", "seat", "hand"]
    both = variant.merge(default, on=keys, suffixes=("_v", "_d"), validate="one_to_one")
    if len(both) != len(variant) or len(both) != len(default):
        raise ValueError("the variant's and the default's mão de onze rows differ")
    both["taken_v"] = both["accept_v"] * both["weight_v"]
    both["taken_d"] = both["accept_d"] * both["weight_d"]
    rate = both.groupby(["vira", "score", "seat"], sort=False).agg(
        taken_v=("taken_v", "sum"), taken_d=("taken_d", "sum"), weight=("weight_v", "sum"),
        expl_v=("exploitability_v", "first"), expl_d=("exploitability_d", "first"))
    rate = rate.reset_index()
    rates = _rows("eleven_accept_rate", "probability", rate["taken_v"] / rate["weight"],
                  rate["taken_d"] / rate["weight"], rate["expl_v"], rate["expl_d"],
                  variant_model, default_model, vira=rate["vira"], score=rate["score"],
                  seat=rate["seat"])
    flips = both[(both["accept_v"] - both["accept_d"]).abs() >= 0.5]
    changed = _rows("eleven_accept", "probability", flips["accept_v"], flips["accept_d"],
                    flips["exploitability_v"], flips["exploitability_d"], variant_model,
                    default_model, vira=flips["vira"].to_numpy(),
                    score=flips["score"].to_numpy(), seat=flips["seat"].to_numpy(),
                    hand=flips["hand"].to_numpy())
    return pd.concat([rates, changed], ignore_index=True)


def whatif_of(rules: RuleSet, jobs: int = 1, progress: bool = False,
              settings: Optional[dict] = None, directory: Optional[Path] = None,
              model_factory=None) -> dict:
    """{"whatif": rows, "whatif_match": rows} for ``rules`` against the default (see the
    module doc), with the stored default tables read from ``directory``.
    Where ``rules`` play normal hands differently and the stored ``whatif`` rows hold the
    full game solved under them for all ten viras (:func:`add_full_game`), both sides'
    match equity is the full game's points play (the default's the stored tables); else
    both are the card-play model's.
    ``model_factory(kind, summary, full_summary, pool, target, rules)`` replaces the
    match's hand models (for tests); ``kind`` is ``"full"`` or ``"cardplay"``."""
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    from ..match import (CardplayModel, FullGameModel, match_equity,
                         plays_normal_hands_alike)

    if rules == DEFAULT_RULES:
        raise InputError("--rules paulista: these are the lab's own rules; a what-if "
                         "compares another rule set with them")
    settings = dict(WHATIF_SETTINGS if settings is None else settings)
    default = load_table("cardplay_summary", settings=settings["cardplay"],
                         directory=directory)
    try:
        full = load_table("full_summary", directory=directory)
    except TableError:
        full = None
    variant = variant_summary(rules, settings, jobs, progress, default)
    per_vira = per_vira_rows(rules, variant, default, full)
    target = settings["eleven_target_exploitability"]
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=solver_processes()) if jobs > 1 \
        else None

    def model(kind, summary, ruleset, full_summary=None):
        if model_factory is not None:
            return model_factory(kind, summary, full_summary, pool, target, ruleset)
        if kind == "full":
            return FullGameModel(summary, full_summary, pool, target, ruleset,
                                 ruleset.three_ties)
        return CardplayModel(summary, pool, target, ruleset)

    def solve(m, label):
        with tqdm(total=144, desc=label, unit="score", disable=not progress) as bar:
            return match_equity(m, progress=bar)

    try:
        variant_full = full if plays_normal_hands_alike(rules) else \
            stored_variant_full_game(rules, directory)
        if full is not None and variant_full is not None:
            m_variant = model("full", variant, rules, variant_full)
            me_variant = solve(m_variant, f"match ({rules.name})")
            me_default = load_table("match_equity", directory=directory)
            eleven_default = load_table("mao_de_onze", directory=directory)
        else:
            m_variant = model("cardplay", variant, rules)
            me_variant = solve(m_variant, f"match ({rules.name})")
            m_default = model("cardplay", default, DEFAULT_RULES)
            me_default = solve(m_default, "match (paulista, card-play model)")
            eleven_default = eleven_frame(m_default.eleven_solutions)
    finally:
        if pool is not None:
            pool.shutdown()
    both = me_variant.merge(me_default, on=["score_mao", "score_pe"], suffixes=("_v", "_d"),
                            validate="one_to_one")
    match = _rows("match_equity", "match-win probability", both["p_mao_v"], both["p_mao_d"],
                  both["exploitability_v"], both["exploitability_d"], both["model_v"],
                  both["model_d"], score_mao=both["score_mao"], score_pe=both["score_pe"])
    eleven = eleven_rows_of(eleven_frame(m_variant.eleven_solutions), eleven_default,
                            "mao-de-onze-exact", "mao-de-onze-exact")
    rows = pd.concat([per_vira, eleven], ignore_index=True)
    for column in ("vira", "score", "seat", "hand"):
        rows[column] = rows[column].astype(object).fillna("").astype("str")
    return {"whatif": _keyed(rules, rows, WHATIF_KEYS),
            "whatif_match": _keyed(rules, match.drop(columns=["quantity"]), MATCH_KEYS),
            "records": {v: {"iterations": int(variant.loc[variant["vira"] == v,
                                                           "iterations"].iloc[0]),
                            "exploitability": float(variant.loc[variant["vira"] == v,
                                                                "exploitability"].iloc[0])}
                        for v in RANKS}}


WHATIF_KEYS = ("quantity", "unit", "vira", "score", "seat", "hand")
MATCH_KEYS = ("unit", "score_mao", "score_pe")


def _keyed(rules: RuleSet, rows: pd.DataFrame, keys) -> pd.DataFrame:
    """``rows`` with the rule set's name and version first, then ``keys``, then the figures."""
    out = rows[list(keys) + list(DIFFERENCE_COLUMNS)].copy()
    out.insert(0, "rules_version", rules.version)
    out.insert(0, "rules", rules.name)
    return out.reset_index(drop=True)


def build_whatif(rules: RuleSet, jobs: int = 1, progress: bool = False,
                 settings: Optional[dict] = None, directory: Optional[Path] = None,
                 model_factory=None, replace: bool = False) -> dict:
    """Compute the what-if of ``rules`` (:func:`whatif_of`) and write it into tables
    ``whatif`` and ``whatif_match``, keeping the rows of other rule sets (each with the
    tables it was computed from: :func:`rows_to_merge`; ``replace``: none are kept);
    returns {table name: rows of this rule set}. The read of the tables on disk, the merge
    and the write run under the data folder's lock, with Ctrl-C and SIGTERM held off."""
    from ..interrupts import interrupts_held
    from ..store import data_lock
    from .registry import data_dir

    settings = dict(WHATIF_SETTINGS if settings is None else settings)
    start = time.time()
    out = whatif_of(rules, jobs, progress, settings, directory, model_factory)
    records = out.pop("records")
    built = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    with data_lock(data_dir() if directory is None else directory), interrupts_held():
        if replace:
            kept, parts = {name: rows.iloc[:0] for name, rows in out.items()}, {}
        else:
            kept, parts = rows_to_merge(rules, out, settings, directory)
        if solves_other_full_game(rules):   # keep the full-game solves
            try:
                carried = carried_full_game(rules, stored_whatif("whatif", directory))
            except TableError:
                carried = {}
            defaults = default_outcomes(directory) if carried else {}
            for vira, figures in carried.items():
                out["whatif"] = _with_full_game(rules, out["whatif"], vira, figures,
                                                defaults[vira])
        tables = {name: pd.concat([kept[name], rows], ignore_index=True)
                  for name, rows in out.items()}
        parts = {**parts, rules.version: None}
        # the manifest's vira records are those of the rule set solved last
        per_vira = {v: {**r, "built": built} for v, r in records.items()}
        write_tables({name: TableWrite(df, settings, per_vira, time.time() - start,
                                       parts_built_on=parts)
                      for name, df in tables.items()}, directory)
    return out


WHATIF_TABLES = ("whatif", "whatif_match")


def check_whatif_mergeable(rules: RuleSet, directory: Optional[Path] = None) -> None:
    """Raise the refusal that writing the what-if of ``rules`` would meet
    (:func:`rows_to_merge`), before the solves."""
    new = {name: pd.DataFrame({"rules_version": pd.Series(dtype=str)})
           for name in WHATIF_TABLES}
    rows_to_merge(rules, new, dict(WHATIF_SETTINGS), directory)


def rows_to_merge(rules: RuleSet, new: dict, settings: dict,
                  directory: Optional[Path] = None) -> tuple[dict, dict]:
    """({table: rows of the other rule sets on disk}, {rule set version: the ``built_on``
    it was computed from}) to write beside the new rows of ``rules`` (``new``: {table:
    rows}). The rows of a rule set computed from other tables than those on disk now are
    kept, and the tables stay stale until it is computed again (its ``built_on`` is kept);
    TableError (:func:`~lab.tables.manifests.refused_merge`) when the tables on disk
    cannot be read or were built with other settings while they hold other rule sets."""
    from .manifests import read_manifest, refused_merge
    from .registry import table_paths

    empty = {name: rows.iloc[:0] for name, rows in new.items()}
    if not any(path.exists() for name in WHATIF_TABLES for path in table_paths(name, directory)):
        return empty, {}
    try:
        kept, parts = {}, {}
        for name in WHATIF_TABLES:
            rows = load_table(name, settings=settings, directory=directory, upstream=False)
            kept[name] = rows[rows["rules_version"] != rules.version].reset_index(drop=True)
            manifest = read_manifest(name, directory)
            recorded = manifest.get("parts_built_on")
            if not isinstance(recorded, dict):
                recorded = {}
            for version in dict.fromkeys(rows["rules_version"]):
                parts.setdefault(version, recorded.get(version, manifest["built_on"]))
        parts.pop(rules.version, None)
        return kept, parts
    except (TableError, OSError, KeyError, ValueError, TypeError, AttributeError) as exc:
        held = held_rule_sets(directory)
        if held is not None and set(held) <= {rules.version}:
            return empty, {}   # nothing on disk but this rule set, computed again now
        lost = "" if held is None else ", ".join(sorted(
            name for version, name in held.items() if version != rules.version))
        raise refused_merge("whatif", exc, f"the rows of rules {lost}" if lost else
                            "the rows of the rule sets they hold") from None


def held_rule_sets(directory: Optional[Path] = None) -> Optional[dict]:
    """{rule set version: its name} of the rows the what-if tables' files hold, read as
    they are (None when one cannot be read): which rows a write that does not keep them
    would lose."""
    from .manifests import parquet_frame
    from .registry import table_paths

    held = {}
    for name in WHATIF_TABLES:
        path = table_paths(name, directory)[0]
        if not path.exists():
            continue
        try:
            rows = parquet_frame(path, ["rules", "rules_version"])
        except Exception:   # damaged: which rule sets it held is not known
            return None
        held.update(zip(rows["rules_version"].astype(str), rows["rules"].astype(str)))
    return held


def solves_other_full_game(rules: RuleSet) -> bool:
    """True when the full game of a normal hand differs under ``rules``: three tied rounds
    do not go to the mão. (Surrender on one's turn is left out of the full game, being
    weakly dominated whatever the three-ties rule: :mod:`lab.solver.fullgame.game`; so
    the surrender rule does not change it.)"""
    return rules.three_ties != DEFAULT_RULES.three_ties


def add_full_game(rules: RuleSet, summaries: dict, seconds: float = 0.0,
                  directory: Optional[Path] = None) -> pd.DataFrame:
    """Write the full game solved under ``rules`` into the ``whatif`` table: for each vira
    of ``summaries`` ({vira: the ``full_summary`` row of a solve with
    ``three_ties=rules.three_ties``}), the rule set's ``full_game_value`` row (points per
    hand) gets the variant's value and exploitability, and its ``full_game_scoreless`` row
    and ``full_game_outcome`` rows (probabilities under the solved strategies, beside the
    stored ``full_summary``'s) are added or replaced. The other rows, ``whatif_match`` and
    the manifests' records are kept (``seconds`` is added to the build time). Returns the
    rule set's rows of ``whatif``."""
    from ..interrupts import interrupts_held
    from ..store import data_lock
    from .manifests import read_manifest
    from .registry import data_dir

    with data_lock(data_dir() if directory is None else directory), interrupts_held():
        tables = {name: load_table(name, directory=directory)
                  for name in ("whatif", "whatif_match")}
        rows = tables["whatif"]
        if not (rows["rules_version"] == rules.version).any():
            raise TableError(f"no what-if for rules {rules.version} yet; compute it first "
                             f"with `{whatif_command(rules)}`")
        defaults = default_outcomes(directory)
        for vira, summary in summaries.items():
            rows = _with_full_game(rules, rows, vira, full_game_figures(summary),
                                   defaults[vira])
        tables["whatif"] = rows
        writes = {}
        for name, df in tables.items():
            manifest = read_manifest(name, directory)
            parts = manifest.get("parts_built_on")
            writes[name] = TableWrite(df, manifest["settings"], manifest["viras"],
                                      float(manifest.get("build_seconds", 0.0)) + seconds,
                                      parts_built_on=parts if isinstance(parts, dict) else None)
        write_tables(writes, directory)
    mine = rows["rules_version"] == rules.version
    return rows[mine].reset_index(drop=True)


def full_game_figures(summary) -> dict:
    """A full game's solve from its ``full_summary`` row: the mão's ``value`` (points per
    hand), its ``exploitability`` (points per hand), the ``scoreless`` rate and the
    ``outcomes`` ({"mao_3": probability that the mão scores 3 points, ...})."""
    outcomes = {key[2:]: float(p) for key, p in summary.items()
                if key.startswith(("p_mao_", "p_pe_"))}
    return {"value": float(summary["value_mao"]),
            "exploitability": float(summary["exploitability"]),
            "scoreless": max(0.0, 1.0 - sum(outcomes.values())), "outcomes": outcomes}


def stored_variant_full_game(rules: RuleSet, directory: Optional[Path] = None):
    """The full game solved under ``rules`` as a ``full_summary``-like frame (``vira`` and
    the outcome probabilities ``p_mao_<v>`` / ``p_pe_<v>``) from the stored ``whatif``
    rows, or None unless all ten viras are there."""
    try:
        solved = carried_full_game(rules, stored_whatif("whatif", directory))
    except TableError:
        return None
    if not all(solved.get(v, {}).get("outcomes") for v in RANKS):
        return None
    return pd.DataFrame([{"vira": v, **{f"p_{name}": p for name, p in
                                        solved[v]["outcomes"].items()}} for v in RANKS])


def stored_whatif(name: str, directory: Optional[Path] = None) -> pd.DataFrame:
    """The what-if table ``name`` on disk, checked against the settings it was built with,
    which may be older than :data:`~lab.tables.registry.WHATIF_SETTINGS`, and read even
    when the tables it is built on have changed since: the full game's solves it records
    depend on neither (those use the full game's own settings and rules), so they are kept
    when the rest is computed again. TableError when there is none."""
    from .manifests import read_manifest

    built_with = read_manifest(name, directory).get("settings")
    return load_table(name, settings=built_with, directory=directory, upstream=False)


def default_outcomes(directory: Optional[Path] = None) -> dict:
    """{vira: outcomes} of the stored full game under the lab's rules (``full_summary``)."""
    return {row["vira"]: full_game_figures(row)["outcomes"]
            for _, row in load_table("full_summary", directory=directory).iterrows()}


def _with_full_game(rules: RuleSet, rows: pd.DataFrame, vira: str, figures: dict,
                    lab_outcomes: dict) -> pd.DataFrame:
    """``rows`` (of one or more rule sets) with ``rules``' full-game ``figures`` of ``vira``
    (:func:`full_game_figures`): its ``full_game_value`` row's variant side, its
    ``full_game_scoreless`` row and its ``full_game_outcome`` rows (beside ``lab_outcomes``,
    the probabilities under the lab's rules; none when ``figures`` has no outcomes)."""
    from ..match import FULL_MODEL

    at = (rows["rules_version"] == rules.version) & (rows["vira"] == vira)
    row = at & (rows["quantity"] == "full_game_value")
    if not row.any():
        raise TableError(f"the what-if of rules {rules.version} has no full-game row for "
                         f"vira {vira}; recompute it with `{whatif_command(rules)}`")
    expl = figures["exploitability"]
    rows = rows.copy()
    rows.loc[row, ["variant", "variant_exploitability", "variant_model"]] = \
        [figures["value"], expl, FULL_MODEL]
    rows.loc[row, "difference"] = rows.loc[row, "variant"] - rows.loc[row, "default"]
    default = rows[row].iloc[0]
    keys = dict(vira=[vira], score=[""], seat=[""], hand=[""])
    extra = [_rows("full_game_scoreless", "probability", [figures["scoreless"]], [0.0], expl,
                   default["default_exploitability"], FULL_MODEL, default["default_model"],
                   **keys)]
    outcomes = figures["outcomes"]
    if outcomes:
        names = list(outcomes)
        extra.append(_rows("full_game_outcome", "probability", [outcomes[n] for n in names],
                           [lab_outcomes.get(n, 0.0) for n in names], expl,
                           default["default_exploitability"], FULL_MODEL,
                           default["default_model"], vira=[vira] * len(names),
                           score=[""] * len(names), seat=[n.split("_")[0] for n in names],
                           hand=[n.split("_")[1] for n in names]))
    old = at & rows["quantity"].isin(["full_game_scoreless", "full_game_outcome"])
    return pd.concat([rows[~old], *(_keyed(rules, e, WHATIF_KEYS) for e in extra)],
                     ignore_index=True)


def carried_full_game(rules: RuleSet, old: pd.DataFrame) -> dict:
    """{vira: figures} of the full game solved under ``rules`` in an earlier ``whatif``
    table (see :func:`full_game_figures`; kept when the rest of the what-if is computed
    again)."""
    from ..match import FULL_MODEL

    mine = old[(old["rules_version"] == rules.version) & (old["variant_model"] == FULL_MODEL)]
    values = mine[mine["quantity"] == "full_game_value"].set_index("vira")
    scoreless = mine[mine["quantity"] == "full_game_scoreless"].set_index("vira")["variant"]
    outcome_rows = mine[mine["quantity"] == "full_game_outcome"]
    carried = {}
    for v, r in values.iterrows():
        part = outcome_rows[outcome_rows["vira"] == v]
        names = part["seat"] + "_" + part["hand"]
        carried[v] = {"value": float(r["variant"]),
                      "exploitability": float(r["variant_exploitability"]),
                      "scoreless": float(scoreless.get(v, 0.0)),
                      "outcomes": dict(zip(names, part["variant"].astype(float)))}
    return carried


def whatif_command(rules: RuleSet) -> str:
    """The ``lab whatif`` command line that computes ``rules``."""
    if rules.name != "custom":
        return f"lab whatif --rules {rules.name}"
    default = DEFAULT_RULES.items()
    return "lab whatif --rules paulista" + "".join(
        f" --rule {k}={v}" for k, v in rules.items().items() if v != default[k])


def whatif_rows(rules: RuleSet, directory: Optional[Path] = None) -> dict:
    """{"whatif": rows, "whatif_match": rows} of ``rules`` from the tables on disk;
    TableError naming the command that computes them when they are not there."""
    out = {}
    for name in ("whatif", "whatif_match"):
        table = load_table(name, directory=directory)
        out[name] = table[table["rules_version"] == rules.version].reset_index(drop=True)
        if out[name].empty:
            raise TableError(f"no what-if for rules {rules.version} yet; compute it with "
                             f"`{whatif_command(rules)}`")
    return out
