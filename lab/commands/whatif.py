"""What a house rule set changes, as one JSON object.

``lab whatif --rules NAME [--rule KEY=VALUE ...] [--jobs J]`` solves what the rules change
against the lab's own (the card-play game and double dummy of every vira, the match
equity at every score with its mão de onze games; see :mod:`lab.tables.whatif`), writes
the tables ``whatif`` and ``whatif_match``, and prints a summary: per quantity the mean of
the variant's and the default's figures over the viras, the largest difference and where,
with the solves' precision there (the sum of both figures' exploitabilities: a difference
below it is not told apart from solver error); the match equity's largest difference (and
its precision) and the figures at 0-0 and at the 11 x 11; how many (vira, score, hand) mão
de onze decisions change (accept probability moved by at least one half). ``--stored`` prints the summary of the
tables already written, without solving. The rows of the other rule sets in the tables are
kept; tables that cannot be read while they hold other rule sets are refused before the
solves (``--replace`` writes this rule set's rows alone).
"""

from __future__ import annotations

from ..cli import add_rule_options, print_json, rules_from
from ..options import count


def add_arguments(parser) -> None:
    add_rule_options(parser)
    parser.add_argument("--jobs", type=count, default=1, metavar="J",
                        help="solve J games at once in separate processes")
    parser.add_argument("--stored", action="store_true",
                        help="summarise the stored what-if of these rules; solve nothing")
    parser.add_argument("--replace", action="store_true",
                        help="write only this rule set's rows, dropping the other rule sets' "
                             "(default: keep them; tables that cannot be read are then "
                             "refused, not dropped)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def precision(rows, at) -> float:
    """The sum of the variant's and the default's exploitabilities in row ``at`` (NaN where
    either was not measured; 0 where the variant's figure is the default's own)."""
    from ..tables.whatif import SAME_GAME

    if rows["variant_model"].iloc[at] == SAME_GAME:
        return 0.0
    return float(rows["variant_exploitability"].iloc[at] + rows["default_exploitability"].iloc[at])


def models_of(part, column: str) -> str:
    """The model of a quantity's rows: its name when every vira has the same, else each
    model with its viras (``full-game-points: 4; not solved under these rules: 5 6 ...``)."""
    models = dict.fromkeys(part[column])
    if len(models) == 1:
        return next(iter(models))
    return "; ".join(f"{m}: {' '.join(part.loc[part[column] == m, 'vira'])}" for m in models)


def summary(rules, tables: dict) -> dict:
    """The JSON summary of one rule set's ``whatif`` and ``whatif_match`` rows."""
    import numpy as np

    rows, match = tables["whatif"], tables["whatif_match"]
    out = {"rules": rules.name, "rules_version": rules.version, "rule_items": rules.items()}
    for quantity in ("cardplay_value", "cardplay_scoreless", "double_dummy_value",
                     "full_game_value", "full_game_scoreless"):
        part = rows[rows["quantity"] == quantity].reset_index(drop=True)
        if part.empty:
            continue
        worst = part["difference"].abs().fillna(-1).idxmax()
        out[quantity] = {
            "unit": part["unit"].iloc[0], "variant_mean": part["variant"].mean(skipna=False),
            "default_mean": part["default"].mean(),
            "largest_difference": part["difference"].iloc[worst],
            "at_vira": part["vira"].iloc[worst], "precision_there": precision(part, worst),
            "variant_model": models_of(part, "variant_model"),
            "default_model": models_of(part, "default_model")}
    worst = match["difference"].abs().idxmax()

    def at(a, b):
        row = match[(match["score_mao"] == a) & (match["score_pe"] == b)].iloc[0]
        return {"variant": row["variant"], "default": row["default"],
                "difference": row["difference"], "variant_model": row["variant_model"],
                "default_model": row["default_model"]}
    out["match_equity"] = {
        "unit": "match-win probability of the next hand's mão",
        "largest_difference": match["difference"].iloc[worst],
        "at_score": [int(match["score_mao"].iloc[worst]), int(match["score_pe"].iloc[worst])],
        "precision_there": precision(match, worst),
        "mean_abs_difference": float(np.mean(np.abs(match["difference"]))),
        "at_0_0": at(0, 0), "at_11_11": at(11, 11)}
    rate = rows[rows["quantity"] == "eleven_accept_rate"]
    worst = rate["difference"].abs().idxmax()
    out["mao_de_onze"] = {
        "hands_changing_decision": int((rows["quantity"] == "eleven_accept").sum()),
        "largest_accept_rate_change": rate["difference"].loc[worst],
        "at": {"vira": rate["vira"].loc[worst], "score": rate["score"].loc[worst],
               "holder": rate["seat"].loc[worst]}}
    return out


def stored_rules_named(rules) -> None:
    """InputError unless ``rules`` name a house rule set: the lab's own rules have no
    what-if of their own; the message names the rule sets whose what-if is stored."""
    from ..errors import InputError
    from ..rules import DEFAULT_RULES, PRESETS

    if rules != DEFAULT_RULES:
        return
    named = [name for name, preset in PRESETS.items() if preset != DEFAULT_RULES]
    raise InputError("--stored: name the house rule set to summarise with --rules NAME "
                     f"({', '.join(named)}, or --rule KEY=VALUE); the lab's own rules "
                     "have no what-if")


def run(args) -> int:
    from ..tables.whatif import build_whatif, check_whatif_mergeable, whatif_rows

    rules = rules_from(args)
    if args.stored:
        stored_rules_named(rules)
        tables = whatif_rows(rules)
    else:
        if not args.replace:   # refused now, not after the solves
            check_whatif_mergeable(rules)
        tables = build_whatif(rules, jobs=args.jobs, progress=not args.no_progress,
                              replace=args.replace)
    print_json(summary(rules, tables))
    return 0
