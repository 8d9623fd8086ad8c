"""The registry of tables: each table's schema, settings, rebuild command and the
tables it is built on, and where tables live (``data/`` or ``$LAB_DATA_DIR``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import InputError
from ..store import check_writable

SEATS = ("mao", "pe")

CARDPLAY_SETTINGS = {"target_exploitability": 1e-4, "max_iterations": 2000}
"""Default settings of the card-play solves (exploitability in win probability)."""

CARDPLAY_COLUMNS = ("vira", "seat", "hand", "best", "second", "third", "equity",
                    "double_dummy", "weight", "exploitability")
SUMMARY_COLUMNS = ("vira", "value_mao", "double_dummy_mao", "exploitability", "iterations",
                   "seconds")

CARDPLAY_SOURCES = ("lab/cards.py", "lab/classes.py", "lab/rules.py", "lab/tables/cardplay.py",
                    "lab/solver/game.py", "lab/solver/tree.py", "lab/solver/kernels.py",
                    "lab/solver/cfr.py", "lab/solver/games/cardplay_game.py", "lab/solver/games/cardplay.py",
                    "lab/solver/games/double_dummy.py")
MATCH_SOURCES = CARDPLAY_SOURCES + ("lab/match.py", "lab/solver/games/eleven.py", "lab/tables/match.py")
"""Source files whose code decides a table's numbers: hashed into its manifest."""


class TableError(InputError):
    """A table that is missing, unreadable, stale or corrupt; the message says how to
    rebuild it."""


# column kinds: "str", "int", "bool", "float" (finite), "float?" (finite or NaN)
SCHEMAS = {
    "cardplay": dict(vira="str", seat="str", hand="str", best="str", second="str",
                     third="str", equity="float", double_dummy="float", weight="float",
                     exploitability="float"),
    "cardplay_summary": dict(vira="str", value_mao="float", double_dummy_mao="float",
                             exploitability="float", iterations="int", seconds="float"),
    "match_equity": dict(score_mao="int", score_pe="int", p_mao="float", p_pe="float",
                         model="str", exploitability="float?"),
    "mao_de_onze": dict(vira="str", score="str", seat="str", hand="str", accept="float",
                        value="float", weight="float", exploitability="float"),
    "full_ev": dict(vira="str", seat="str", hand="str", weight="float", ev="float",
                    exploitability="float"),
    "full_strategy": dict(vira="str", seat="str", hand="str", situation="str", action="str",
                          probability="float"),
    "full_summary": None,  # its outcome columns follow the ladder: see columns_of
    "score_leak": dict(vira="str", score_mao="int", score_pe="int", value_mao="float",
                       gain_mao="float", gain_pe="float", leak="float",
                       points_exploitability="float?", points_iterations="int",
                       resolve_iterations="int", resolve_exploitability="float?",
                       resolve_value_mao="float?", truco_mao_points="float?",
                       truco_mao_score="float?", run_pe_points="float?",
                       run_pe_score="float?"),
    "score_play": None,  # its outcome and payoff columns follow the ladder: see columns_of
    "score_play_hands": dict(vira="str", score_mao="int", score_pe="int", hand="str",
                             weight="float", **{f"{m}{w}": "float?" for m in (
                                 "truco_mao", "accept_pe", "run_pe", "raise_pe")
                                 for w in ("", "_points")}),
    "match_equity_mixed": dict(score_mao="int", score_pe="int", p_mao="float", p_pe="float",
                               model="str", exploitability="float?",
                               score_aware_viras="int", p_mao_points="float",
                               difference="float"),
    "whatif": dict(rules="str", rules_version="str", quantity="str", unit="str", vira="str",
                   score="str", seat="str", hand="str", variant="float?", default="float",
                   difference="float?", variant_exploitability="float?",
                   default_exploitability="float?", variant_model="str",
                   default_model="str"),
    "whatif_match": dict(rules="str", rules_version="str", unit="str", score_mao="int",
                         score_pe="int", variant="float", default="float",
                         difference="float", variant_exploitability="float?",
                         default_exploitability="float?", variant_model="str",
                         default_model="str"),
    "bot_ranking": dict(vira="str", bot="str", exploitability="float?", ev_vs_solver="float",
                        exact="bool", ci95_lo="float?", ci95_hi="float?", hands="int",
                        method="str"),
    "strategy_report": dict(vira="str", measure="str", round="int", seat="str", bucket="str",
                            value="float?", base="float"),
    "exploit_summary": dict(opponent="str", vira="str", habits="str", gain="float",
                            equilibrium_gain="float", exploitability="float",
                            equilibrium_exploitability="float", lock="str", hold="float",
                            iterations="int"),
    "exploit_report": dict(opponent="str", vira="str", policy="str", measure="str",
                           round="int", seat="str", bucket="str", value="float?",
                           base="float"),
}
"""Table name -> {column: kind}, in column order: what a table must hold to be read."""


def columns_of(name: str, settings: Optional[dict] = None) -> dict:
    """{column: kind} of table ``name`` built with ``settings`` (default: its own)."""
    if name == "score_play":
        ladder = (settings or SCORE_PLAY_SETTINGS).get("full", FULL_SETTINGS)["ladder"]
        moves = {f"{m}{which}": "float?" for m in ("truco_mao", "accept_pe", "run_pe", "raise_pe")
                 for which in ("", "_points")}
        return dict(vira="str", score_mao="int", score_pe="int", value_mao="float",
                    exploitability="float", iterations="int", seconds="float", start="str",
                    points_value_mao="float", points_leak="float", value_change="float",
                    **moves, **{f"p_{seat}_{k}": "float" for seat in SEATS for k in ladder},
                    **{f"pay_{seat}_{k}": "float" for seat in SEATS for k in ladder})
    if name != "full_summary":
        return SCHEMAS[name]
    ladder = (settings or FULL_SETTINGS).get("ladder", FULL_SETTINGS["ladder"])
    outcomes = {f"p_{seat}_{k}": "float" for k in ladder for seat in SEATS}
    return dict(vira="str", value_mao="float", exploitability="float", iterations="int",
                seconds="float", storage="str", **outcomes, bluff_mao="float",
                bluff_pe="float")


@dataclass(frozen=True)
class TableSpec:
    """What a table is and how it is rebuilt."""

    name: str
    schema: int            # bump when the columns or their meaning change
    settings: dict         # the default solver settings the table must be built with
    group: str             # tables built together by one solve
    rebuild: str           # the command that rebuilds the table
    sources: tuple = CARDPLAY_SOURCES  # the code that decides its numbers
    built_on: tuple = ()   # tables whose numbers it is computed from


MATCH_SETTINGS = {"eleven_target_exploitability": 1e-5,
                  "normal_model": "full-game-points if all ten viras are solved, else cardplay-1pt",
                  "cardplay": CARDPLAY_SETTINGS}
"""Settings of the match tables: the mão de onze solves' target exploitability (match-win
probability) and the model of normal hands (the full game's points solution once
``full_summary`` holds all ten viras, the card-play model until then), on card-play tables
built with CARDPLAY_SETTINGS."""

FULL_SETTINGS = {"target_exploitability": 0.001, "time_budget_minutes": 40.0,
                 "storage": "float32", "ladder": [1, 3, 6, 9, 12], "schedule": "dcfr+"}
"""Default settings of the full-game solves (exploitability in points per hand): float32
storage (16 bits stall near 0.003) and the ``dcfr+`` schedule, measured the fastest to
0.001 (``benchmarks/full.md``); the budget leaves room above the 17-24 minutes a vira took."""

# the code hash is provenance (not checked on load): it names the code that decides the
# full game's numbers, which leaves out the table plumbing of this module
WALK_SOURCES = tuple(f"lab/solver/fullgame/{name}.py" for name in (
    "records", "updates", "showdowns", "betting", "last_node", "kernels"))
"""The full game's walk: the kernels and the modules they are made of."""
FULL_SOURCES = tuple(s for s in CARDPLAY_SOURCES if s != "lab/tables/cardplay.py") + (
    "lab/solver/fullgame/game.py", "lab/solver/fullgame/tree.py") + WALK_SOURCES + (
    "lab/solver/fullgame/solver.py", "lab/tables/full.py")

WHATIF_SETTINGS = {"cardplay": CARDPLAY_SETTINGS,
                   "eleven_target_exploitability": MATCH_SETTINGS["eleven_target_exploitability"]}
"""Settings of the what-if tables: the match tables' (card-play solves as CARDPLAY_SETTINGS,
and the mão de onze solves' target exploitability, match-win probability) for the variant's
match and, where the default is re-solved on the card-play model, the default's."""

RESOLVE_STORAGE = "int16"
"""The storage of the score-aware re-solves, whatever the points solve's: 16 bits reach
their targets (0.002 match-win probability), and one started from a float32 points solve
(rounded to 16 bits: :meth:`FullSolver.in_storage`) takes 2.2 GB of memory instead of 4.3,
and 0.4 GB of disk instead of 1.2."""

SCORE_SETTINGS = {"full": FULL_SETTINGS, "resolve_storage": RESOLVE_STORAGE,
                  "payoffs": "match-win probability from match_equity",
                  "warm_start": "points regrets, average strategy restarted"}
"""Settings of the ``score_leak`` table: the points solutions it measures (built with
FULL_SETTINGS), the re-solves' storage and how the score-aware re-solves start."""

SCORE_PLAY_SETTINGS = {"full": FULL_SETTINGS, "resolve_storage": RESOLVE_STORAGE,
                       "payoffs": "match-win probability from match_equity_mixed",
                       "warm_start": "nearest re-solved score of the vira, else points play; "
                                     "average strategy restarted"}
"""Settings of the score-aware re-solves (``score_play``): the points solutions they start
from (FULL_SETTINGS), their storage, their payoffs (the mixed match equity at the scores a
hand leads to, as the sweep found it) and their warm start. Each row states its own
exploitability."""

SCORE_PLAY_SOURCES = FULL_SOURCES + ("lab/match.py", "lab/tables/score.py",
                                     "lab/tables/score_play.py", "lab/tables/score_sweep.py")

TABLES = {
    "cardplay": TableSpec("cardplay", 1, CARDPLAY_SETTINGS, "cardplay",
                          "lab solve cardplay --all"),
    "cardplay_summary": TableSpec("cardplay_summary", 1, CARDPLAY_SETTINGS, "cardplay",
                                  "lab solve cardplay --all"),
    "match_equity": TableSpec("match_equity", 1, MATCH_SETTINGS, "match", "lab solve match",
                              MATCH_SOURCES, ("cardplay_summary", "full_summary")),
    "mao_de_onze": TableSpec("mao_de_onze", 1, MATCH_SETTINGS, "match", "lab solve match",
                             MATCH_SOURCES, ("cardplay_summary", "full_summary")),
    **{name: TableSpec(name, 1, FULL_SETTINGS, "full", "lab solve full --all", FULL_SOURCES)
       for name in ("full_ev", "full_strategy", "full_summary")},
    "score_leak": TableSpec("score_leak", 1, SCORE_SETTINGS, "score",
                            "lab solve score --score M,P --checkpoints DIR",
                            FULL_SOURCES + ("lab/match.py", "lab/tables/score.py"),
                            ("match_equity", "full_summary")),
    **{name: TableSpec(name, 1, SCORE_PLAY_SETTINGS, "score_play",
                       "lab solve match-play --checkpoints DIR", SCORE_PLAY_SOURCES,
                       ("match_equity", "full_summary"))
       for name in ("score_play", "score_play_hands")},
    "match_equity_mixed": TableSpec("match_equity_mixed", 1,
                                    {"normal_model": "score_play where re-solved, else "
                                                     "full-game-points"},
                                    "match_mixed", "lab solve match-play --tables-only",
                                    SCORE_PLAY_SOURCES,
                                    ("match_equity", "full_summary", "score_leak",
                                     "score_play")),
    **{name: TableSpec(name, 1, WHATIF_SETTINGS, "whatif", "lab whatif --rules NAME",
                       MATCH_SOURCES + ("lab/tables/whatif.py",),
                       ("cardplay_summary", "full_summary", "match_equity", "mao_de_onze"))
       for name in ("whatif", "whatif_match")},
    # one row per (vira, bot): exploitability and ev_vs_solver in points per hand, exact or
    # simulated (lab/ranking.py); built on the stored full-game policies of data/full_policy
    "bot_ranking": TableSpec("bot_ranking", 1,
                             {"hands": 1000, "seed": 0, "score": "0,0",
                              "policies": "full_policy (stored)"},
                             "ranking", "lab rank --write",
                             ("lab/ranking.py", "lab/sim/solver_bot.py", "lab/sim/bots.py",
                              "lab/sim/hands.py", "lab/rules.py", "lab/policy/full.py",
                              "lab/policy/line.py", "lab/solver/fullgame/compact.py",
                              "lab/solver/fullgame/solver.py") + WALK_SOURCES),
    # one row per (vira, measure, round, seat, bucket): how often the stored points policy
    # calls, runs and raises, a probability (lab/strategy_report.py), exact sums over the
    # policies of data/full_policy; the hand strengths are thirds of the cardplay equities
    "strategy_report": TableSpec("strategy_report", 1,
                                 {"policies": "full_policy (stored)",
                                  "buckets": "thirds of the deals by cardplay equity"},
                                 "report", "lab report --write",
                                 ("lab/strategy_report.py", "lab/player_profile.py",
                                  "lab/policy/full.py"), ("cardplay",)),
    # one row per (opponent, vira): an exploit's figures in points per hand; one row per
    # (opponent, vira, policy, measure, round, seat, bucket): the strategy report of the
    # exploit and of the equilibrium (lab/exploit_report.py), from the exploits that
    # `lab solve lock --out DIR/OPPONENT` wrote
    **{name: TableSpec(name, 1, {"policies": "full_policy (stored)",
                                 "exploits": "lab solve lock --vira all --profile FILE"},
                       "exploit", "lab report --exploits DIR --write",
                       ("lab/exploit_report.py", "lab/exploit.py", "lab/strategy_report.py",
                        "lab/player_profile.py", "lab/policy/full.py"), ("cardplay",))
       for name in ("exploit_summary", "exploit_report")},
}


# ---------------------------------------------------------------- where tables live


REPOSITORY_DATA = Path(__file__).resolve().parents[2] / "data"


def data_dir() -> Path:
    """The folder of solved tables: ``$LAB_DATA_DIR`` if set, else the repository's ``data/``."""
    env = os.environ.get("LAB_DATA_DIR")
    return Path(env) if env else REPOSITORY_DATA


def table_paths(name: str, directory: Optional[Path] = None) -> tuple[Path, Path]:
    """(parquet file, manifest file) of a table."""
    d = Path(directory) if directory is not None else data_dir()
    return d / f"{name}.parquet", d / f"{name}.json"


def check_data_writable(directory: Optional[Path] = None) -> Path:
    """The data folder, after proving it can be written (InputError otherwise): called by
    the commands that solve before they start, so no work is lost to a read-only folder."""
    return check_writable(data_dir() if directory is None else Path(directory),
                          "the data folder")


def spec_of(name: str) -> TableSpec:
    if name not in TABLES:
        raise TableError(f"{name!r}: unknown table (tables are {', '.join(TABLES)})")
    return TABLES[name]


