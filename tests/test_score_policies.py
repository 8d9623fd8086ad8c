"""Stored score-aware policies (lab.tables.score_policies) and the solver bot that plays them.

The tests read vira 4's re-solve at 10-10 (``lab solve policy --vira 4 --score 10,10
--checkpoints DIR``), kept in the data dir the suite reads as its difference from vira 4's
points policy. Without it the tests fail and say so.

Runtime: about two minutes (the policies load in a few seconds each; 1,000 hands of
self-play at vira 4's 10-10 and at vira J's 9-9, about 30 s each; snapping the stored
policy again, an own-reach traversal and a best response of the whole game, about 30 s).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lab.cards import parse_card
from lab.tables import TableError

VIRA = "4"
SCORE = (10, 10)
"""A stored score: the last normal score of a match, where points play leaks most."""
REPO_DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def aware():
    from lab.tables.score_policies import load_score_policy, score_policy_info

    try:
        policy = load_score_policy(VIRA, SCORE)
    except TableError as exc:
        pytest.fail(f"these tests need the stored score-aware policies: {exc}")
    if policy is None:
        pytest.fail(f"no score-aware policy of vira {VIRA} at {SCORE} is stored; build it with "
                    f"`lab solve policy --vira {VIRA} --score 10,10 --checkpoints DIR`")
    return policy, score_policy_info(VIRA, SCORE)


def test_the_stored_entries_say_what_they_hold(aware):
    """Each entry: its score, the re-solve's and the stored policy's exploitability and
    value in match-win probability, the payoffs it plays for, and the points policy it is
    a difference from; the store stays within its budget."""
    from lab.tables.policies import policy_info
    from lab.tables.score_policies import BUDGET, read_score_policy_manifest, store_bytes

    policy, info = aware
    assert info["score"] == list(SCORE) and policy.unit == "match-win probability"
    assert 0 < info["solver_exploitability"] <= info["exploitability"] < 0.05
    assert 0 < info["value_mao"] < 1
    pays = info["pay_mao"] + info["pay_pe"]   # the value averages the outcomes' payoffs
    assert min(pays) <= info["value_mao"] <= max(pays)
    assert info["centre"] + np.array(info["scaled_mao"]) * info["half_swing"] == pytest.approx(
        info["pay_mao"], abs=1e-12)
    assert info["base_sha256"] == policy_info(VIRA)["sha256"]
    assert info["bytes"] == min(info["plain_bytes"], info["difference_bytes"])
    assert info["difference"] == (info["difference_bytes"] < info["plain_bytes"])
    manifest = read_score_policy_manifest()
    assert manifest["unit"] == "match-win probability"
    assert manifest["bytes"] == sum(e["bytes"] for e in manifest["policies"].values()
                                    if "same_as" not in e)
    assert store_bytes() <= BUDGET


def test_no_policy_where_none_was_stored():
    from lab.tables.score_policies import load_score_policy, stored_scores

    assert SCORE in stored_scores(VIRA)
    assert load_score_policy(VIRA, (0, 0)) is None
    assert load_score_policy("A", (9, 8)) is None   # end games (9-9 to 10-10) only


def test_every_stored_policy_is_the_re_solve_score_play_describes():
    """A stored policy comes from the re-solve whose row ``score_play`` holds: the same
    iterations, start, exploitability and payoffs (a score solved again after its policy
    was stored would leave the two apart)."""
    from lab.tables.score_play import load_plays
    from lab.tables.score_policies import read_score_policy_manifest

    plays, _ = load_plays()
    entries = read_score_policy_manifest()["policies"].values()
    assert entries
    for e in entries:
        row = plays[(plays["vira"] == e["vira"]) & (plays["score_mao"] == e["score"][0])
                    & (plays["score_pe"] == e["score"][1])]
        assert len(row) == 1, e["score"]
        row = row.iloc[0]
        assert (row["iterations"], row["start"]) == (e["iterations"], e["start"]), e["score"]
        assert row["exploitability"] == pytest.approx(e["solver_exploitability"], abs=1e-12)
        ladder = [int(c.rsplit("_", 1)[1]) for c in plays.columns if c.startswith("pay_mao_")]
        assert [row[f"pay_mao_{x}"] for x in ladder] == pytest.approx(e["pay_mao"], abs=1e-12)
        assert [row[f"pay_pe_{x}"] for x in ladder] == pytest.approx(e["pay_pe"], abs=1e-12)


def test_the_bot_plays_the_score_aware_policy_where_stored(aware):
    """At the stored score the bot's policy is the score-aware one; elsewhere the points
    policy; and the two differ where the re-solve changed the play (the mão's opening
    truco with some hand)."""
    from lab.ranking import eleven_accept, match_equity
    from lab.rules import new_hand
    from lab.sim.solver_bot import SolverStrategy
    from lab.sim.view import Table
    from lab.tables.policies import load_full_policy
    from lab.tables.score_policies import load_score_policy

    policy, _ = aware
    strategy = SolverStrategy(load_full_policy, eleven_accept, match_equity, progress=False,
                              score_policies=load_score_policy)
    vira = parse_card("4h")
    cards = [parse_card(c) for c in ("Ac", "7d", "5s", "Kc", "Qd", "Js")]

    def view_at(score):
        return Table(new_hand(vira, cards[:3], cards[3:], score)).view(0)

    assert strategy.full_policy(view_at(SCORE)) is policy
    points = strategy.full_policy(view_at((3, 4)))
    assert points is load_full_policy(VIRA)
    root = policy.root()
    differ = [s for s in range(len(policy.cards.state_class))
              if _truco(policy, root, s) is not None
              and abs(_truco(policy, root, s) - _truco(points, root, s)) > 0.05]
    assert differ, "the score-aware policy opens as the points policy with every hand"


def _truco(policy, spot, state):
    try:
        return policy.strategy(spot, state).get("raise", 0.0)
    except Exception:   # a state the mão cannot hold at the root
        return None


@pytest.mark.parametrize("vira, score", [(VIRA, SCORE), ("J", (9, 9))])
def test_self_play_at_the_score_reproduces_the_stored_value(vira, score):
    """1,000 hands at a stored score (vira 4 at 10-10, vira J at 9-9: both stored snapped
    by own reach), the score-aware bot on both seats: every state its own play reaches is
    stored, and the mão's mean match-win probability after the hand (the entry's payoffs
    for each outcome) has a 95% interval that must hold the stored policy's exact value."""
    from lab.sim.hands import sample_hands
    from lab.sim.stats import Z95
    from lab.ranking import stored_solver_bot
    from lab.tables.score_policies import score_policy_info

    info = score_policy_info(vira, score)
    bot = stored_solver_bot(progress=False)
    frame = sample_hands(bot, bot, 1000, seed=5, vira=parse_card(vira + "h"), score=score)
    ladder = [1, 3, 6, 9, 12]
    assert set(frame["winner"]) <= {"mao", "pe"}
    pay = {("mao", v): x for v, x in zip(ladder, info["pay_mao"])}
    pay.update({("pe", v): x for v, x in zip(ladder, info["pay_pe"])})
    won = np.array([pay[(w, int(p))] for w, p in zip(frame["winner"], frame["points"])])
    half = Z95 * won.std(ddof=1) / np.sqrt(len(won))
    assert won.mean() - half <= info["value_mao"] <= won.mean() + half, (won.mean(), half)
    assert half < 0.04


def test_the_advice_plays_the_score_aware_policy_in_match_win_probability(aware):
    """At a stored score `lab advise` follows the score-aware policy: model
    full-game-score-aware, values in the asking seat's match-win probability (running from
    the mão's truco leaves the pé the match equity after the mão scores 1), the stored
    policy's exploitability; at a score without one, points play as before."""
    from lab.advice import advise, request

    _, info = aware
    pe = advise(request("4h", "Kc,Qd,Js", "pe", "10,10", ["truco"]))
    assert pe["model"] == "full-game-score-aware" and pe["unit"] == "match-win probability"
    assert pe["exploitability"] == info["exploitability"]
    assert "run" in pe["legal"] and "accept" in pe["legal"]
    assert pe["ev"]["run"] == pytest.approx(1 - info["pay_mao"][0], abs=1e-12)
    assert all(0 <= v <= 1 for v in pe["ev"].values())
    assert sum(pe["strategy"].values()) == pytest.approx(1.0)
    mao = advise(request("4h", "Ac,7d,5s", "mao", "10,10", []))
    assert mao["model"] == "full-game-score-aware" and 0 < max(mao["ev"].values()) < 1
    assert advise(request("4h", "Ac,7d,5s", "mao", "3,4", []))["model"] == "full-game-points"


def test_the_hand_explorer_plays_the_score_aware_policy_where_stored(aware):
    """The hand explorer's play section at the stored score: both sides follow the
    score-aware policy and each move's value is the mão's chance to win the match (the
    advice's numbers); at a score without one it says it falls back to points play and
    what that leaks there, in expected points."""
    from lab import charts
    from lab.dashboards.background import Background
    from lab.dashboards.hand_play import HandPlayer
    from lab.tables.score import points_play_leak

    policy, _ = aware
    vira, hand = parse_card("4h"), tuple(parse_card(c) for c in ("Ac", "7d", "5s"))
    player = HandPlayer(background=Background(threaded=False))
    player.show(vira, hand, 0, SCORE)
    shown_policy = player.play.policy   # the store's, loaded again if another came between
    assert shown_policy.unit == "match-win probability"
    np.testing.assert_array_equal(shown_policy.q, policy.q)
    text = player.stage.children[0].value
    assert "score-aware" in text and "chance to win the match" in text
    acts, vals = player.play.line.action_values(0)
    i = player.play.pair()
    for _, move, label in player.play.options():
        shown = charts.percent(float(policy.seat_value(0, vals[list(acts).index(move), i])))
        assert f">{label}</td>" in text and shown in text
    assert "expected points" not in text
    player.show(vira, hand, 0, (3, 4))
    assert player.play.policy is not policy and player.play.policy.payoffs is None
    text = player.stage.children[0].value
    leak = points_play_leak(VIRA, (3, 4))
    assert "falls back to points play" in text and "expected points" in text
    assert leak is not None and charts.significant(leak) in text


@pytest.fixture
def copied(tmp_path, monkeypatch):
    """A data dir holding vira 4's points policy and the score-aware policies."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("full_policy.json", "score_policy.json"):
        shutil.copy(REPO_DATA / name, data / name)
    (data / "full_policy").symlink_to(REPO_DATA / "full_policy")
    (data / "score_policy").symlink_to(REPO_DATA / "score_policy")
    monkeypatch.setenv("LAB_DATA_DIR", str(data))
    return data


def test_a_difference_taken_against_another_points_policy_is_refused(copied):
    from lab.tables.score_policies import load_score_policy

    manifest = json.loads((copied / "score_policy.json").read_text())
    for entry in manifest["policies"].values():   # as if stored as a difference
        entry["base_sha256"], entry["difference"] = "0" * 16, True
    (copied / "score_policy.json").write_text(json.dumps(manifest))
    with pytest.raises(TableError, match="another points policy.*lab solve policy --vira 4 "
                                         "--score 10,10"):
        load_score_policy(VIRA, SCORE)


def test_the_store_keeps_its_budget(copied, monkeypatch):
    from lab.tables import score_policies as S

    monkeypatch.setattr(S, "BUDGET", S.store_bytes() + 10)
    with pytest.raises(TableError, match="over its"):
        S.write_score_policy(VIRA, (1, 1), b"x" * 100, {"vira": VIRA, "score": [1, 1]})
    assert S.score_policy_info(VIRA, (1, 1)) is None
    assert not S.policy_path(VIRA, (1, 1)).exists()


def test_a_vira_of_the_same_game_reads_the_other_s_score_aware_policy(copied):
    """Vira 3 plays vira 2's game: its score-aware policy at 10-10 is vira 2's file (one
    file, counted once in the store), read under vira 3's name; storing the copy again
    gives the same entry, and a copy across games is refused."""
    from lab.tables import score_policies as S

    for table in REPO_DATA.glob("*.parquet"):   # score_play and the tables it is built on
        for path in (table, table.with_suffix(".json")):
            shutil.copy(path, copied / path.name)
    three, two = S.load_score_policy("3", SCORE), S.load_score_policy("2", SCORE)
    assert three is not None and two is not None
    assert (three.vira, two.vira) == ("3", "2") and np.array_equal(three.q, two.q)
    info = S.score_policy_info("3", SCORE)
    assert info["same_as"] == "2" and not S.policy_path("3", SCORE).exists()
    manifest = S.read_score_policy_manifest()
    assert manifest["bytes"] == sum(e["bytes"] for e in manifest["policies"].values()
                                    if "same_as" not in e)
    entry = S.copy_score_policy("3", "2", SCORE)
    assert entry == dict(info, built=entry["built"])
    with pytest.raises(TableError, match="play different games"):
        S.copy_score_policy("4", "2", SCORE)
    with pytest.raises(TableError, match="no score-aware policy of vira 2 at 0-0"):
        S.copy_score_policy("3", "2", (0, 0))


def test_storing_without_a_re_solve_names_the_command(tmp_path, capsys):
    from lab.cli import main

    assert main(["solve", "policy", "--vira", "4", "--score", "10,10", "--checkpoints",
                 str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no finished re-solve of vira 4 at 10-10")
    assert "lab solve match-play" in err and len(err.strip().splitlines()) == 1


def one_policy_store(tmp_path, monkeypatch) -> Path:
    """A data dir holding vira 4's points policy and its score-aware policy at SCORE only,
    read by the lab for the rest of the test."""
    data = tmp_path / "data"
    (data / "full_policy").mkdir(parents=True)
    (data / "score_policy" / VIRA).mkdir(parents=True)
    points = json.loads((REPO_DATA / "full_policy.json").read_text())
    points["viras"] = {VIRA: points["viras"][VIRA]}
    (data / "full_policy.json").write_text(json.dumps(points))
    shutil.copy(REPO_DATA / "full_policy" / f"{VIRA}.zst", data / "full_policy")
    aware = json.loads((REPO_DATA / "score_policy.json").read_text())
    aware["policies"] = {k: e for k, e in aware["policies"].items()
                         if e["vira"] == VIRA and tuple(e["score"]) == SCORE}
    (data / "score_policy.json").write_text(json.dumps(aware))
    name = f"{SCORE[0]}-{SCORE[1]}.zst"
    shutil.copy(REPO_DATA / "score_policy" / VIRA / name, data / "score_policy" / VIRA)
    monkeypatch.setenv("LAB_DATA_DIR", str(data))
    return data


def test_snapping_the_stored_policies_by_reach(tmp_path, monkeypatch):
    """`lab solve policy --snap-stored --reach-tolerance R` snaps the stored score-aware
    policy to its points policy by own reach and records R and the exploitability measured
    again: with an R no pair's reach times move exceeds, it plays the points policy
    wherever that holds a strategy, and a pure strategy (rounded by own reach) at the
    states only score-aware play reaches; stored as a difference that is nearly empty,
    exploitable by about what points play leaks at 10-10 (0.05 match-win probability,
    against the stored policy's 0.007). The rules themselves are tested on the toy game
    (tests/test_full_policy.py)."""
    from lab.cli import main
    from lab.solver.fullgame import compact
    from lab.tables.policies import load_full_policy
    from lab.tables.score_policies import load_score_policy, score_policy_info

    one_policy_store(tmp_path, monkeypatch)
    entry = score_policy_info(VIRA, SCORE)
    monkeypatch.setattr(compact, "LEVEL", 1)   # fast
    assert main(["solve", "policy", "--snap-stored", "--reach-tolerance", "1e9",
                 "--threads", "2"]) == 0
    after = score_policy_info(VIRA, SCORE)
    q, points = load_score_policy(VIRA, SCORE).q, load_full_policy(VIRA).q
    np.testing.assert_array_equal(q[points > 0], points[points > 0])
    assert np.isin(q[points == 0], (0, compact.QUANT)).all() and (q[points == 0] > 0).any()
    assert after["reach_tolerance"] == 1e9 and after["difference"]
    assert 0 < after["coarse_pairs"] <= after["own_pairs"] < entry["own_pairs"]
    assert after["bytes"] < entry["bytes"]     # even at the fast compression
    assert 0.03 < after["exploitability"] < 0.07 and entry["exploitability"] < 0.01
    assert 0 < after["value_mao"] < 1


def test_rounding_the_stored_points_policies_moves_their_score_aware_ones(tmp_path,
                                                                        monkeypatch):
    """`lab solve policy --round-points --reach-tolerance R` rounds vira 4's stored points
    policy by own reach (smaller, its exploitability measured again and its R recorded)
    and stores its score-aware policy against it: the bytes the score-aware policy shared
    with the old points policy are now the new one's, its own bytes stay, and it is
    measured again at its payoffs."""
    from lab.cli import main
    from lab.solver.fullgame import compact
    from lab.tables.policies import load_full_policy, policy_info
    from lab.tables.score_policies import load_score_policy, score_policy_info

    one_policy_store(tmp_path, monkeypatch)
    assert main(["solve", "policy", "--round-points", "--vira", VIRA]) == 2   # all or none
    old, aware = load_full_policy(VIRA).q.copy(), load_score_policy(VIRA, SCORE).q.copy()
    before = policy_info(VIRA), score_policy_info(VIRA, SCORE)
    monkeypatch.setattr(compact, "LEVEL", 1)   # fast
    assert main(["solve", "policy", "--round-points", "--reach-tolerance", "0.05",
                 "--threads", "2"]) == 0
    points, entry = policy_info(VIRA), score_policy_info(VIRA, SCORE)
    assert points["reach_tolerance"] == 0.05 and points["coarse_pairs"] > 0
    assert points["exploitability"] > before[0]["exploitability"] - 1e-4
    assert points["exploitability"] < 0.1 and points["value_mao"] != before[0]["value_mao"]
    assert entry["base_sha256"] == points["sha256"] != before[0]["sha256"]
    assert entry["exploitability"] != before[1]["exploitability"] and 0 < entry["value_mao"] < 1
    new, after = load_full_policy(VIRA).q, load_score_policy(VIRA, SCORE).q
    own = aware != old
    np.testing.assert_array_equal(after[own], aware[own])
    moved = ~own & (new != old)      # a base byte that moved: the new one's, unless own pair
    assert ((after[moved] == new[moved]) | (after[moved] == old[moved])).all()
    assert (after[moved] == new[moved]).mean() > 0.9


def test_repacking_keeps_every_policy_byte_for_byte(tmp_path, monkeypatch):
    """`lab solve policy --repack` writes vira 4's points policy and its score-aware policy
    again at another compression: new files and hashes, the same bytes per key slot, and
    the score-aware policy still loads against its repacked points policy."""
    from lab.cli import main
    from lab.solver.fullgame import compact
    from lab.tables.policies import load_full_policy, policy_info
    from lab.tables import score_policies
    from lab.tables.score_policies import load_score_policy, score_policy_info

    one_policy_store(tmp_path, monkeypatch)
    before = load_full_policy(VIRA).q.copy(), load_score_policy(VIRA, SCORE).q.copy()
    hashes = policy_info(VIRA)["sha256"], score_policy_info(VIRA, SCORE)["sha256"]
    monkeypatch.setattr(compact, "LEVEL", 1)   # fast, and other bytes than the stored ones
    monkeypatch.setattr(compact, "PACKING", "pairs")
    monkeypatch.setattr(score_policies, "PACKING", "pairs")
    assert main(["solve", "policy", "--repack"]) == 0
    after = policy_info(VIRA), score_policy_info(VIRA, SCORE)
    assert after[0]["sha256"] != hashes[0] and after[1]["sha256"] != hashes[1]
    assert after[0]["level"] == after[1]["level"] == 1
    assert after[0]["packing"] == after[1]["packing"] == "pairs"
    np.testing.assert_array_equal(load_full_policy(VIRA).q, before[0])
    np.testing.assert_array_equal(load_score_policy(VIRA, SCORE).q, before[1])
    if after[1]["difference"]:
        assert after[1]["base_sha256"] == after[0]["sha256"]
    from lab.rules import RULES_VERSION
    from lab.tables.policies import policy_path

    points = compact.split_header(policy_path(VIRA).read_bytes())[0]   # they say what they hold
    aware = compact.split_header(score_policies.policy_path(VIRA, SCORE).read_bytes())[0]
    assert points == {"vira": VIRA, "rules": RULES_VERSION, "slots": after[0]["slots"],
                      "score": None}
    assert aware == dict(points, score=list(SCORE))


def test_a_score_aware_entry_that_is_not_finite_is_refused_and_replaced(tmp_path,
                                                                        monkeypatch):
    """A NaN in a score-aware policy's entry refuses the manifest with that policy's
    command; storing the policy again (as that command does) replaces the entry, and the
    file it writes says its vira, rules, slots and score."""
    from lab.solver.fullgame.compact import HEADER_MAGIC, split_header
    from lab.rules import RULES_VERSION
    from lab.tables import score_policies as S

    data = one_policy_store(tmp_path, monkeypatch)
    before = S.load_score_policy(VIRA, SCORE).q.copy()
    entry = S.score_policy_info(VIRA, SCORE)
    manifest = json.loads((data / "score_policy.json").read_text())
    manifest["policies"][f"{VIRA} 10-10"]["value_mao"] = float("nan")
    (data / "score_policy.json").write_text(json.dumps(manifest))
    S._CACHE.clear()
    with pytest.raises(TableError, match=r"policies\.4 10-10\.value_mao is nan, not a finite "
                                         r"number; rebuild it with `lab solve policy --vira 4 "
                                         r"--score 10,10 --checkpoints DIR`$"):
        S.load_score_policy(VIRA, SCORE)
    old = S.policy_path(VIRA, SCORE).read_bytes()
    S.write_score_policy(VIRA, SCORE, old, S._content(entry))
    blob = S.policy_path(VIRA, SCORE).read_bytes()
    assert blob.startswith(HEADER_MAGIC) and blob.endswith(old)
    assert split_header(blob)[0] == {"vira": VIRA, "rules": RULES_VERSION,
                                     "slots": entry["slots"], "score": list(SCORE)}
    S._CACHE.clear()
    np.testing.assert_array_equal(S.load_score_policy(VIRA, SCORE).q, before)
    (data / "score_policy.json").write_text("{not json")   # unreadable: the rebuild stores
    with pytest.raises(TableError, match=r"with `lab rebuild --checkpoints DIR`$"):
        S.score_policy_info(VIRA, SCORE)                    # every policy again
    S.write_score_policy(VIRA, SCORE, old, S._content(entry))
    assert list(S.read_score_policy_manifest()["policies"]) == [f"{VIRA} 10-10"]
    assert S.score_policy_problem(VIRA, SCORE) is None
