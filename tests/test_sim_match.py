"""Matches: mirrored pairs, seats, scores, determinism, dask, the confidence interval, and
house rules (hands that score nothing, the blind 11 x 11)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from distributed import LocalCluster

from lab.rules import COVER, NOBODY, PRESETS, RuleSet
from lab.sim.batch import run_matches
from lab.sim.bots import Bot, CautiousBot, RandomBot
from lab.sim.hands import sample_hands
from lab.sim.match import play_match
from lab.sim.stats import matches_frame, summary, wilson, win_rate_ci95


class Recorder(Bot):
    """Plays like the random bot and remembers the cards of each hand it is dealt."""

    def __init__(self):
        self.first_cards, self.seats = [], []

    def act(self, view, rng):
        if all(seat != view.seat for seat, _ in view.history):  # its first action this hand
            self.first_cards.append((view.vira, view.hand))
            self.seats.append(view.seat)
        return RandomBot().act(view, rng)


def test_a_mirror_match_deals_each_bot_the_others_cards():
    a, b = Recorder(), Recorder()
    a2, b2 = Recorder(), Recorder()
    first = play_match(a, b, seed=11, pair=3, mirror=False)
    second = play_match(a2, b2, seed=11, pair=3, mirror=True)
    assert first["pair"] == second["pair"] == 3
    assert (first["match"], second["match"]) == (6, 7)
    assert a.first_cards[0] == b2.first_cards[0] and b.first_cards[0] == a2.first_cards[0]
    # "alternate": A is mão first in one match of the pair, B in the other
    assert first["a_first_mao"] and not second["a_first_mao"]
    assert a.seats[0] == 0 and a2.seats[0] == 1


def test_first_a_keeps_a_as_first_mao_and_start_scores_count():
    for mirror in (False, True):
        record = play_match(CautiousBot(), RandomBot(), seed=2, pair=0, mirror=mirror,
                            first="a", start=(10, 3))
        assert record["a_first_mao"]
        assert max(record["a_points"], record["b_points"]) == 12
        assert record["a_points"] >= 10 and record["b_points"] >= 3


def test_hands_frame_adds_up_to_the_matches():
    matches, hands = run_matches("aggressive", "cautious", 10, seed=4, with_hands=True,
                                 progress=False)
    assert len(hands) == matches["hands"].sum()
    assert set(hands["how"]) <= {"cards", "run", "surrender", "eleven_run"}
    for (pair, mirror), h in hands.groupby(["pair", "mirror"]):
        row = matches[matches["match"] == 2 * pair + mirror].iloc[0]
        last = h.iloc[-1]
        a_before, b_before = last["a_score"], last["b_score"]
        if last["winner"] == "a":
            assert row["a_points"] == min(12, a_before + last["points"]) == 12
        else:
            assert row["b_points"] == min(12, b_before + last["points"]) == 12


def test_same_seed_same_results_here_and_on_dask():
    here, hands_here = run_matches("cautious", "random", 12, seed=5, with_hands=True,
                                   progress=False)
    again, _ = run_matches("cautious", "random", 12, seed=5, progress=False)
    on_dask, hands_dask = run_matches("cautious", "random", 12, seed=5, use_dask=True,
                                      workers=1, with_hands=True, progress=False)
    other, _ = run_matches("cautious", "random", 12, seed=6, progress=False)
    pd.testing.assert_frame_equal(here, again)
    pd.testing.assert_frame_equal(here, on_dask)
    pd.testing.assert_frame_equal(hands_here, hands_dask)
    assert not here.equals(other)


def test_a_given_scheduler_runs_the_matches():
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        remote, _ = run_matches("aggressive", "random", 6, seed=8,
                                scheduler=cluster.scheduler_address, progress=False)
    here, _ = run_matches("aggressive", "random", 6, seed=8, progress=False)
    pd.testing.assert_frame_equal(remote, here)


def test_bad_batches_are_refused_before_any_work():
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            run_matches("random", "random", bad, seed=1, progress=False)
    with pytest.raises(ValueError, match="unknown bot"):
        run_matches("random", "clever", 2, seed=1, progress=False)
    with pytest.raises(ValueError, match="match is over"):
        run_matches("random", "random", 2, seed=1, start=(12, 0), progress=False)


def test_cautious_beats_random_clearly():
    matches, _ = run_matches("cautious", "random", 200, seed=9, progress=False)
    s = summary(matches)
    assert s["a_wins"] + s["b_wins"] == 200
    assert s["ci95"][0] > 0.8 and s["ci95"][0] <= s["a_win_rate"] <= s["ci95"][1]


def test_wilson_interval_known_values():
    lo, hi = wilson(0, 10)
    assert lo == 0 and math.isclose(hi, 0.27753, abs_tol=1e-5)
    lo, hi = wilson(50, 100)
    assert math.isclose(lo, 0.40383, abs_tol=1e-5) and math.isclose(hi, 0.59617, abs_tol=1e-5)


def test_interval_uses_pairs_as_the_unit():
    # pairs: (a, a) (a, b) (b, b) (a, b) -> pair means 1, .5, 0, .5; rate .5, sd sqrt(1/6)
    winners = ["a", "a", "a", "b", "b", "b", "a", "b"]
    frame = matches_frame([{"match": m, "pair": m // 2, "mirror": bool(m % 2),
                            "a_first_mao": m % 2 == 0, "winner": w, "a_points": 0,
                            "b_points": 0, "hands": 1} for m, w in enumerate(winners)])
    lo, hi = win_rate_ci95(frame)
    half = 1.959963984540054 * math.sqrt(1 / 6) / 2
    assert math.isclose(lo, 0.5 - half) and math.isclose(hi, 0.5 + half)
    # every pair split 1-1: no spread, so the Wilson interval over the 8 matches
    frame["winner"] = ["a", "b"] * 4
    assert win_rate_ci95(frame) == pytest.approx(wilson(4, 8))


# ---------------------------------------------------------------- house rules


class Coverer(Bot):
    """Covers whenever it may, else takes its first legal action (its first card, or
    accepting a mão de onze); never raises. Two of them tie every round after a tied first
    round, so hands whose three rounds tie are common."""

    def act(self, view, rng):
        return next((a for a in view.legal if a.kind == COVER), view.legal[0])


class Blindfolded(Bot):
    """Plays like the random bot, and fails if it is asked to choose at a blind 11 x 11."""

    def act(self, view, rng):
        assert not view.blind, "a bot was asked to choose cards it cannot see"
        return RandomBot().act(view, rng)


def test_hands_that_score_nothing_leave_the_score_and_are_counted():
    matches, hands = run_matches(Coverer(), Coverer(), 20, seed=3, with_hands=True,
                                 progress=False, rules=PRESETS["buteco"])
    nothing = hands[hands["winner"] == NOBODY]
    assert len(nothing) > 5
    assert (nothing["points"] == 0).all() and (nothing["rounds"] == 3).all()
    for _, h in hands.groupby(["pair", "mirror"]):
        for before, after in zip(h.iloc[:-1].itertuples(), h.iloc[1:].itertuples()):
            gained = (after.a_score - before.a_score, after.b_score - before.b_score)
            expected = {NOBODY: (0, 0), "a": (before.points, 0), "b": (0, before.points)}
            assert gained == expected[before.winner]
    assert matches["scoreless_hands"].sum() == len(nothing)
    assert summary(matches)["scoreless_hands"] == len(nothing)
    assert (matches[["a_points", "b_points"]].max(axis=1) == 12).all()
    under_default, _ = run_matches(Coverer(), Coverer(), 20, seed=3, progress=False)
    assert under_default["scoreless_hands"].sum() == 0


def test_sampled_hands_that_score_nothing_have_no_winner():
    frame = sample_hands(Coverer(), Coverer(), 300, seed=2, rules=PRESETS["buteco"])
    nothing = frame[frame["winner"] == NOBODY]
    assert len(nothing) > 5 and (nothing["points"] == 0).all()
    assert (nothing["mao_points"] == 0).all()
    assert set(frame["winner"]) == {"mao", "pe", NOBODY}


def test_at_a_blind_eleven_eleven_no_bot_chooses_and_nobody_surrenders():
    blind = RuleSet(eleven_eleven="blind")
    matches, hands = run_matches(Blindfolded(), Blindfolded(), 40, seed=2, start=(11, 11),
                                 with_hands=True, progress=False, rules=blind)
    assert (matches["hands"] == 1).all()
    assert (hands["how"] == "cards").all() and (hands["points"] == 3).all()
    _, seen_hands = run_matches(Blindfolded(), Blindfolded(), 40, seed=2, start=(11, 11),
                                with_hands=True, progress=False)
    assert (seen_hands["how"] == "surrender").any()  # the random play the blind hand skips
