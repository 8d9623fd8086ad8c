"""What-if tables (lab.tables.whatif, ``lab whatif``): a rule set against the lab's own,
on a copy of the stored tables; the mão de onze games are replaced by a cheap stand-in
whose answer follows its payoffs (the real games are tested in test_house_rules_games)."""

import shutil

import numpy as np
import pytest

from conftest import require_table
from lab.classes import hand_classes
from lab.match import CardplayModel, FullGameModel, HandResult
from lab.rules import PRESETS, NOBODY, RuleSet
from lab.solver.games.eleven import ElevenSolution, blind_eleven_eleven
from lab.tables import TableError, load_table
from lab.tables.registry import WHATIF_SETTINGS
from lab.tables.whatif import SAME_GAME, build_whatif, solve_variant_vira, whatif_rows

NEEDED = ("cardplay", "cardplay_summary", "full_summary", "match_equity", "mao_de_onze")


@pytest.fixture()
def data(tmp_path):
    for name in NEEDED:
        require_table(name)
        for suffix in (".parquet", ".json"):
            shutil.copy(f"data/{name}{suffix}", tmp_path / f"{name}{suffix}")
    return tmp_path


def stand_in_eleven(self, score, pay):
    """Accept with the hands above a cut that moves with the payoffs; value the payoffs' mean."""
    sols = []
    for v in self.viras:
        strength = np.linspace(1.0, 0.0, hand_classes(v).n)
        cut = 0.5 + 0.3 * (pay.pe_wins - pay.mao_wins) + 0.2 * (pay.holder_runs - 0.5)
        sols.append(ElevenSolution(v, pay.holder, 0.5 * (pay.mao_wins + pay.pe_wins), 1e-6, 1,
                                   (strength > cut).astype(float), strength))
    self.eleven_solutions[tuple(score)] = sols
    return HandResult(float(np.mean([s.value_mao for s in sols])), 1e-6, "mao-de-onze-exact")


class StandInFull(FullGameModel):
    eleven = stand_in_eleven


class StandInCardplay(CardplayModel):
    eleven = stand_in_eleven


def factory(kind, summary, full_summary, pool, target, rules):
    if kind == "full":
        return StandInFull(summary, full_summary, pool, target, rules, rules.three_ties)
    return StandInCardplay(summary, pool, target, rules)


def test_blind_eleven_eleven_against_the_stored_default(data):
    rules = RuleSet(eleven_eleven="blind")
    out = build_whatif(rules, directory=data, model_factory=factory)
    rows, match = out["whatif"], out["whatif_match"]
    # normal hands are the same game: same card play, double dummy and full game
    for quantity in ("cardplay_value", "double_dummy_value", "full_game_value"):
        part = rows[rows["quantity"] == quantity]
        assert len(part) == 10 and (part["difference"] == 0).all()
        assert (part["variant_model"] == SAME_GAME).all()
    # the default's figures are the stored match equity (the same full-game model)
    stored = load_table("match_equity", directory=data)
    both = match.merge(stored, on=["score_mao", "score_pe"])
    assert len(both) == 144 and (both["default"] == both["p_mao"]).all()
    # the blind 11 x 11 is the exact count, whatever the cards
    at = both[(both["score_mao"] == 11) & (both["score_pe"] == 11)].iloc[0]
    count = np.mean([blind_eleven_eleven(v)[0] for v in "4567QJKA23"])
    assert at["variant"] == pytest.approx(count, abs=1e-12)
    assert at["variant_model"] == "eleven-eleven-blind"
    # it reaches the scores that can lead to 11 x 11, and fades far from them
    moved = both[both["difference"].abs() > 1e-12]
    assert {(11, 10), (10, 11)} <= set(zip(moved["score_mao"], moved["score_pe"]))
    start = both[(both["score_mao"] == 0) & (both["score_pe"] == 0)].iloc[0]
    assert 0 < abs(start["difference"]) < abs(at["difference"])


def test_rule_sets_share_the_tables_and_reload(data):
    blind = RuleSet(eleven_eleven="blind")
    first = build_whatif(blind, directory=data, model_factory=factory)
    build_whatif(PRESETS["fpt"], directory=data, model_factory=factory)
    again = whatif_rows(blind, directory=data)
    for name in ("whatif", "whatif_match"):
        assert again[name].equals(first[name])
    fpt = whatif_rows(PRESETS["fpt"], directory=data)
    assert (fpt["whatif_match"]["rules"] == "fpt").all()


def test_a_scoreless_variant_vira_is_solved_with_its_own_game():
    row = solve_variant_vira("4", {"three_ties": "nobody",
                                   "cardplay": {"target_exploitability": 1e-3,
                                                "max_iterations": 200}})
    from lab.solver.games.double_dummy import double_dummy_value

    assert 0 < row["p_nobody"] < 0.01
    assert row["double_dummy_mao"] == double_dummy_value("4", NOBODY)
    assert row["exploitability"] <= 1e-3


@pytest.mark.parametrize("argv,says", [
    (["--rules", "paulista"], "the lab's own rules"),
    (["--rules", "nope"], "unknown rule set"),
    (["--rules", "buteco", "--rule", "three_ties=mao", "--rule", "three_ties=pe"],
     "choose one"),
    (["--rules", "fpt", "--stored"], "lab whatif --rules"),
    # the lab's own rules have no stored what-if: it names the rule sets to ask for
    (["--stored"], "--stored: name the house rule set to summarise with --rules NAME "
                   "(buteco, fpt"),
    (["--rules", "paulista", "--stored"], "--rules NAME (buteco, fpt"),
])
def test_whatif_command_errors(tmp_path, monkeypatch, capsys, argv, says):
    from lab.cli import main

    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))
    assert main(["whatif", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1 and says in err


def test_a_full_game_solved_under_house_rules_fills_its_what_if_rows(data):
    """``lab solve full --rules buteco --vira V`` records its solve in buteco's what-if rows:
    that vira's full-game value and scoreless rate, nothing else; again replaces them."""
    from lab.match import FULL_MODEL
    from lab.tables.whatif import NOT_SOLVED, add_full_game, carried_full_game

    for name in ("whatif", "whatif_match", "full_summary"):
        require_table(name)
        for suffix in (".parquet", ".json"):
            shutil.copy(f"data/{name}{suffix}", data / f"{name}{suffix}")
    buteco = PRESETS["buteco"]
    before = whatif_rows(buteco, directory=data)
    fpt_before = whatif_rows(PRESETS["fpt"], directory=data)
    value = before["whatif"]
    full = value[value["quantity"] == "full_game_value"]
    unsolved = full[full["vira"] != "4"]   # vira 4 is solved in the stored table, or not
    assert set(unsolved["variant_model"]) <= {NOT_SOLVED, FULL_MODEL}
    outcomes = {"p_mao_1": 0.3, "p_pe_1": 0.25, "p_mao_3": 0.2, "p_pe_3": 0.2495}
    for value_mao in (0.031, 0.029):     # a first solve, then a longer one
        add_full_game(buteco, {"4": {"value_mao": value_mao, "exploitability": 0.012,
                                     **outcomes}}, directory=data)
    after = whatif_rows(buteco, directory=data)
    rows = after["whatif"]
    four = rows[(rows["quantity"] == "full_game_value") & (rows["vira"] == "4")].iloc[0]
    default = full[full["vira"] == "4"].iloc[0]
    assert (four["variant"], four["variant_exploitability"], four["variant_model"]) == \
        (0.029, 0.012, FULL_MODEL)
    assert four["difference"] == 0.029 - default["default"]
    tied = rows[(rows["quantity"] == "full_game_scoreless") & (rows["vira"] == "4")]
    assert len(tied) == 1 and tied["default"].iloc[0] == 0.0
    assert tied["variant"].iloc[0] == pytest.approx(0.0005, abs=1e-12)
    # how often each seat scores each value, beside the stored solve of the lab's rules
    ends = rows[(rows["quantity"] == "full_game_outcome") & (rows["vira"] == "4")]
    paulista = load_table("full_summary").set_index("vira").loc["4"]
    assert sorted(zip(ends["seat"], ends["hand"], ends["variant"], ends["default"])) == sorted(
        (name.split("_")[1], name.split("_")[2], p, paulista[name])
        for name, p in outcomes.items())
    assert (ends["unit"] == "probability").all() and (ends["variant_model"] == FULL_MODEL).all()
    # the other viras, the match rows and the other rule sets are as they were
    def besides_vira_4(df):
        mine = (df["vira"] == "4") & df["quantity"].isin(
            ["full_game_value", "full_game_scoreless", "full_game_outcome"])
        return df[~mine].sort_values(["quantity", "vira", "score", "seat", "hand"]) \
            .reset_index(drop=True)
    assert besides_vira_4(rows).equals(besides_vira_4(value))
    assert after["whatif_match"].equals(before["whatif_match"])
    for name in ("whatif", "whatif_match"):
        assert whatif_rows(PRESETS["fpt"], directory=data)[name].equals(fpt_before[name])
    # `lab whatif --stored` names each side's model per vira where they differ
    from lab.commands.whatif import summary

    said = summary(buteco, after)["full_game_value"]
    solved = rows[(rows["quantity"] == "full_game_value")]
    by_model = {m: " ".join(solved.loc[solved["variant_model"] == m, "vira"])
                for m in dict.fromkeys(solved["variant_model"])}
    assert said["variant_model"] == "; ".join(f"{m}: {v}" for m, v in by_model.items()) \
        if len(by_model) > 1 else FULL_MODEL
    assert by_model[FULL_MODEL].startswith("4") and said["default_model"] == FULL_MODEL
    # what a later `lab whatif --rules buteco` carries over
    stored = load_table("whatif", directory=data)
    carried = carried_full_game(buteco, stored)["4"]
    assert (carried["value"], carried["exploitability"], carried["outcomes"]) == \
        (0.029, 0.012, {name[2:]: p for name, p in outcomes.items()})
    assert carried["scoreless"] == pytest.approx(0.0005)


def test_the_match_uses_a_variants_full_game_once_every_vira_is_solved(data, monkeypatch,
                                                                       capsys):
    """Where three tied rounds score nothing, ``lab whatif`` compares the match on the
    card-play model both sides until the rule set's full game is recorded for all ten
    viras; then on the full game's points play, the default's side being the stored match
    tables. (A rule set with no stored what-if: buteco without its 11 x 11 rule.)"""
    import lab.tables.whatif as whatif
    from lab.cards import RANKS
    from lab.match import CARDPLAY_MODEL, FULL_MODEL
    from lab.commands.solve_full import record_house_rules
    from lab.tables.whatif import stored_variant_full_game

    nobody = RuleSet(three_ties="nobody")
    stored = load_table("cardplay_summary", directory=data)

    def variant_summary(rules, settings, jobs, progress, default):  # no card-play solves
        out = stored[["vira", "value_mao", "double_dummy_mao", "exploitability",
                      "iterations"]].copy()
        out.insert(2, "p_nobody", 0.002)
        return out
    monkeypatch.setattr(whatif, "variant_summary", variant_summary)

    def end_games(model):    # a cheap 11 x 11 as well as the stand-in mão de onze
        class Model(model):
            def eleven_eleven(self, nobody=float("nan")):
                return HandResult(0.5, 0.0, "stand-in")
        return Model

    def factory(kind, summary, full_summary, pool, target, rules):
        if kind == "full":
            return end_games(StandInFull)(summary, full_summary, pool, target, rules,
                                          rules.three_ties)
        return end_games(StandInCardplay)(summary, pool, target, rules)

    full = load_table("full_summary", directory=data).set_index("vira")
    scaled = {v: {**{k: 0.999 * x for k, x in full.loc[v].items() if k.startswith("p_")},
                  "value_mao": full.loc[v, "value_mao"], "exploitability": 0.01}
              for v in RANKS}
    normal = ["score_mao", "score_pe"]
    monkeypatch.setenv("LAB_DATA_DIR", str(data))
    build_whatif(nobody, directory=data, model_factory=factory)
    for solved, model in ((RANKS[:9], CARDPLAY_MODEL), (RANKS[9:], FULL_MODEL)):
        # as `lab solve full --rule three_ties=nobody --vira V ...` records its solves
        record_house_rules(nobody, solved, {v: {"full_summary": scaled[v]} for v in solved})
        said = capsys.readouterr().err
        assert ("now solved for all ten viras" in said) == (model == FULL_MODEL)
        assert (stored_variant_full_game(nobody, data) is None) == (model != FULL_MODEL)
        match = build_whatif(nobody, directory=data, model_factory=factory)["whatif_match"]
        below = match[(match["score_mao"] < 11) & (match["score_pe"] < 11)]
        assert (below["variant_model"] == model).all() and (below["default_model"] == model).all()
    # the default's side is the stored match equity; the full-game rows were kept
    paulista = load_table("match_equity", directory=data)
    both = match.merge(paulista, on=normal)
    assert len(both) == 144 and (both["default"] == both["p_mao"]).all()
    assert set(stored_variant_full_game(nobody, data)["vira"]) == set(RANKS)
    start = match[(match["score_mao"] == 0) & (match["score_pe"] == 0)].iloc[0]
    assert 0 < abs(start["difference"]) < 0.05
    # computed again with other settings (a finer mão de onze target): the full game's
    # solves, which do not depend on them, are kept, and the match is still on them
    finer = {**WHATIF_SETTINGS, "eleven_target_exploitability": 3e-6}
    again = build_whatif(nobody, settings=finer, directory=data, model_factory=factory)
    below = again["whatif_match"]
    below = below[(below["score_mao"] < 11) & (below["score_pe"] < 11)]
    assert (below["variant_model"] == FULL_MODEL).all()
    assert load_table("whatif", settings=finer, directory=data)["quantity"].eq(
        "full_game_outcome").sum() == len(RANKS) * 10
    # the lab's own full game solved again (a new full_summary: the stored what-if is stale
    # now): computed again, it still keeps the rule set's full-game solves, and its
    # default side is the new solve
    from lab.tables.manifests import TableWrite, read_manifest, write_tables

    resolved = load_table("full_summary", directory=data)
    resolved["value_mao"] += 1e-4
    manifest = read_manifest("full_summary", data)
    write_tables({"full_summary": TableWrite(resolved, manifest["settings"], manifest["viras"],
                                             0.0)}, data)
    match_tables = {}   # and the match tables built on it again (here: the same rows)
    for name in ("match_equity", "mao_de_onze"):
        manifest = read_manifest(name, data)
        match_tables[name] = TableWrite(load_table(name, directory=data, upstream=False),
                                        manifest["settings"], manifest["viras"], 0.0)
    write_tables(match_tables, data)
    with pytest.raises(TableError, match="stale"):
        load_table("whatif", settings=finer, directory=data)
    rows = build_whatif(nobody, settings=finer, directory=data, model_factory=factory)["whatif"]
    assert rows["quantity"].eq("full_game_outcome").sum() == len(RANKS) * 10
    value = rows[rows["quantity"] == "full_game_value"].set_index("vira").loc[list(RANKS)]
    assert (value["variant_model"] == FULL_MODEL).all()
    assert value["variant"].tolist() == [scaled[v]["value_mao"] for v in RANKS]
    assert value["default"].tolist() == resolved.set_index("vira").loc[
        list(RANKS), "value_mao"].tolist()


@pytest.mark.parametrize("argv,says", [
    (["solve", "cardplay", "--rules", "buteco"], "lab whatif --rules buteco"),
    (["solve", "match", "--rules", "fpt"], "lab whatif --rules fpt"),
    (["solve", "policy", "--rules", "buteco", "--checkpoints", "ck"], "lab's own rules only"),
    (["solve", "full", "--rules", "fpt", "--vira", "4"], "nothing to solve"),
    (["solve", "full", "--rule", "surrender=answer_only"], "nothing to solve"),
    (["solve", "full", "--rules", "buteco", "--vira", "4"], "lab whatif --rules buteco"),
])
def test_solve_under_house_rules_says_what_does_it(tmp_path, monkeypatch, capsys, argv, says):
    from lab.cli import main

    monkeypatch.setenv("LAB_DATA_DIR", str(tmp_path))   # no what-if there yet
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1 and says in err
