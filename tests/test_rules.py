"""One test per rule of docs/rules.md (and per tie case), through the Python API of lab.rules.

Every expected outcome is worked out by hand from the rules; the comments say how.
Unless a test says otherwise the vira is Kc, so the manilhas are the aces
(Ac zap > Ah copas > As espadilha > Ad pica-fumo) and the plain order is
4 5 6 7 Q J K 2 3.
"""

import pytest

from lab.cards import CardError, parse_card
from lab.rules import (
    MAO,
    PE,
    Action,
    IllegalAction,
    MatchState,
    new_hand,
    parse_action,
)

C = parse_card


def cards(text):
    return [C(t) for t in text.split(",")]


def hand(mao="3h,2h,4c", pe="7s,6s,5s", vira="Kc", score=(0, 0)):
    """A fresh hand; by default the mão holds 3h 2h 4c and the pé 7s 6s 5s (vira Kc)."""
    return new_hand(C(vira), cards(mao), cards(pe), score)


def go(state, actions=""):
    """Apply space-separated action tokens, each by whoever is to act."""
    for token in actions.split():
        state = state.apply(parse_action(token))
    return state


def legal(state):
    return [str(a) for a in state.legal_actions()]


def result(state):
    """(winner, points, how, final score, round names) of a finished hand."""
    assert state.over
    return (("mao", "pe")[state.winner], state.points, state.how, state.final_score,
            state.round_names())


# ---------------------------------------------------------------- dealing


def test_a_hand_starts_worth_1_with_the_mao_to_act():
    s = hand()
    assert s.value == 1 and s.to_act == MAO and not s.over and s.round_names() == []


def test_each_player_must_hold_3_cards():
    with pytest.raises(CardError, match="3 cards"):
        new_hand(C("Kc"), cards("3h,2h"), cards("7s,6s,5s"))
    with pytest.raises(CardError, match="3 cards"):
        new_hand(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s,4s"))


def test_a_card_cannot_be_dealt_twice():
    with pytest.raises(CardError, match="^3h: repeated"):
        new_hand(C("Kc"), cards("3h,2h,4c"), cards("7s,3h,5s"))


def test_the_vira_is_out_of_play():
    with pytest.raises(CardError, match="^Kc: .*vira"):
        new_hand(C("Kc"), cards("3h,Kc,4c"), cards("7s,6s,5s"))


@pytest.mark.parametrize("score", [(-1, 0), (0, -3), (12, 3), (3, 12), (12, 12), (13, 0)])
def test_a_hand_needs_a_score_of_an_unfinished_match(score):
    with pytest.raises(ValueError):
        hand(score=score)


# ---------------------------------------------------------------- rounds and leads


def test_the_mao_leads_round_1_and_the_pe_answers():
    s = hand()
    assert s.to_act == MAO
    assert legal(s) == ["3h", "2h", "4c", "raise", "surrender"]
    s = go(s, "3h")
    assert s.to_act == PE
    assert legal(s) == ["7s", "6s", "5s", "raise", "surrender"]


def test_the_round_winner_leads_the_next_round():
    # 4c loses to 7s: the pé wins round 1 and leads round 2
    s = go(hand(), "4c 7s")
    assert s.round_names() == ["pe"] and s.to_act == PE


def test_a_tied_round_keeps_the_same_leader():
    # 3h ties 3s (suits of plain cards never matter): the mão leads again
    s = go(hand(mao="3h,Qh,4c", pe="3s,Qs,5s"), "3h 3s")
    assert s.round_names() == ["tie"] and s.to_act == MAO
    s = go(s, "Qh Qs")
    assert s.round_names() == ["tie", "tie"] and s.to_act == MAO and not s.over


def test_two_round_wins_take_the_hand():
    s = go(hand(), "3h 7s 2h 6s")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["mao", "mao"])


def test_the_hand_ends_the_moment_it_is_decided():
    s = go(hand(), "3h 7s 2h 6s")
    assert s.to_act is None and s.legal_actions() == []
    assert s.hands == ((C("4c"),), (C("5s"),))  # round 3 was never played


# ---------------------------------------------------------------- the tie table


def test_tie_win_then_tie_ends_the_hand_at_once():
    # round 1: 3h beats 7s (mão); round 2: Qh ties Qs -> mão wins, round 3 not played
    s = go(hand(mao="3h,Qh,4c", pe="7s,Qs,5s"), "3h 7s Qh Qs")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["mao", "tie"])
    assert len(s.plays) == 4


def test_tie_tie_then_win_ends_the_hand_at_once():
    # round 1: 3h ties 3s; round 2 (mão leads again): J beats Q -> pé wins
    s = go(hand(mao="3h,Qh,4c", pe="3s,Js,5s"), "3h 3s Qh Js")
    assert result(s) == ("pe", 1, "cards", (0, 1), ["tie", "pe"])
    assert len(s.plays) == 4


def test_tie_pe_win_then_tie_ends_the_hand_for_the_pe():
    # round 1: 4c loses to 7s; round 2 (pé leads): Qs ties Qh -> pé wins at once
    s = go(hand(mao="4c,Qh,3h", pe="7s,Qs,5s"), "4c 7s Qs Qh")
    assert result(s) == ("pe", 1, "cards", (0, 1), ["pe", "tie"])


def test_tie_one_all_then_tie_goes_to_the_first_round_winner_mao():
    # round 1 mão (3h > 7s), round 2 pé (2s > 4c), round 3 Qs ties Qh -> mão
    s = go(hand(mao="3h,4c,Qh", pe="7s,2s,Qs"), "3h 7s 4c 2s Qs Qh")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["mao", "pe", "tie"])


def test_tie_one_all_then_tie_goes_to_the_first_round_winner_pe():
    # round 1 pé (7s > 4c), round 2 mão (3h > 2s), round 3 Qh ties Qs -> pé
    s = go(hand(mao="4c,3h,Qh", pe="7s,2s,Qs"), "4c 7s 2s 3h Qh Qs")
    assert result(s) == ("pe", 1, "cards", (0, 1), ["pe", "mao", "tie"])


def test_tie_one_all_then_a_win_goes_to_the_round_3_winner():
    # round 1 mão, round 2 pé, round 3: Js beats Qh -> pé wins 2-1
    s = go(hand(mao="3h,4c,Qh", pe="7s,2s,Js"), "3h 7s 4c 2s Js Qh")
    assert result(s) == ("pe", 1, "cards", (0, 1), ["mao", "pe", "pe"])


def test_tie_two_ties_then_a_win_goes_to_the_round_3_winner():
    # 3h=3s, 2h=2s, then Qs beats 4c -> pé
    s = go(hand(mao="3h,2h,4c", pe="3s,2s,Qs"), "3h 3s 2h 2s 4c Qs")
    assert result(s) == ("pe", 1, "cards", (0, 1), ["tie", "tie", "pe"])


def test_tie_all_three_rounds_tied_go_to_the_mao():
    s = go(hand(mao="3h,2h,Qh", pe="3s,2s,Qs"), "3h 3s 2h 2s Qh Qs")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["tie", "tie", "tie"])


def test_tie_all_three_tied_go_to_the_mao_even_when_mao_is_behind_at_11_x_11():
    s = go(hand(mao="3h,2h,Qh", pe="3s,2s,Qs", score=(11, 11)), "3h 3s 2h 2s Qh Qs")
    assert result(s) == ("mao", 3, "cards", (12, 11), ["tie", "tie", "tie"])


def test_tie_a_tied_round_has_no_winner_one_each_is_not_over():
    s = go(hand(mao="3h,4c,Qh", pe="7s,2s,Qs"), "3h 7s 4c 2s")
    assert s.round_names() == ["mao", "pe"] and not s.over and s.to_act == PE


# ---------------------------------------------------------------- covered cards


def test_no_covered_card_in_round_1():
    s = hand()
    assert not any(t.startswith("cover:") for t in legal(s))
    with pytest.raises(IllegalAction, match="only from round 2"):
        s.apply(parse_action("cover:3h"))


def test_covered_cards_are_legal_from_round_2():
    s = go(hand(), "3h 7s")
    assert legal(s) == ["2h", "4c", "cover:2h", "cover:4c", "raise", "surrender"]
    s = go(s, "cover:4c")
    assert legal(s) == ["6s", "5s", "cover:6s", "cover:5s", "raise", "surrender"]


def test_seed_example_a_covered_3_of_diamonds_loses_to_an_open_4_of_spades():
    # round 1: 7h beats 6s (mão); round 2: the mão covers 3d, the pé opens 4s -> pé;
    # round 3 (pé leads): 5s beats 4c -> pé wins 2-1
    s = go(hand(mao="7h,3d,4c", pe="6s,4s,5s"), "7h 6s cover:3d 4s")
    assert s.round_names() == ["mao", "pe"] and s.to_act == PE
    s = go(s, "5s 4c")
    assert result(s) == ("pe", 1, "cards", (0, 1), ["mao", "pe", "pe"])


def test_a_covered_manilha_loses_to_an_open_4():
    # the pé wins round 1 (2s > 6h) and covers the zap in round 2; the mão's open 4h wins
    s = go(hand(mao="6h,4h,5h", pe="2s,Ac,7s"), "6h 2s cover:Ac 4h")
    assert s.round_names() == ["pe", "mao"] and s.to_act == MAO


def test_an_open_card_beats_a_covered_card_played_second():
    # round 1 mão; round 2 the mão leads 4c open, the pé covers 3s -> mão wins 2-0
    s = go(hand(mao="3h,4c,2h", pe="7s,3s,5s"), "3h 7s 4c cover:3s")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["mao", "mao"])


def test_two_covered_cards_tie():
    # round 1 mão; round 2 both covered -> tie -> win + tie ends the hand for the mão
    s = go(hand(), "3h 7s cover:2h cover:6s")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["mao", "tie"])


def test_a_covered_card_may_be_played_in_round_3():
    # 1-1 after two rounds; round 3: the pé (round 2 winner) covers, the mão opens -> mão
    s = go(hand(mao="3h,4c,Qh", pe="7s,2s,Js"), "3h 7s 4c 2s cover:Js Qh")
    assert result(s) == ("mao", 1, "cards", (1, 0), ["mao", "pe", "mao"])


def test_a_covered_card_leaves_the_hand():
    s = go(hand(), "3h 7s cover:2h")
    assert C("2h") not in s.hands[MAO]
    assert s.plays[-1].covered


# ---------------------------------------------------------------- the truco ladder


def test_raise_on_ones_turn_before_playing_then_accept_continues_with_the_raiser():
    s = go(hand(), "raise")
    assert s.to_act == PE and s.value == 1 and s.pending == 3
    assert legal(s) == ["accept", "run", "raise", "surrender"]
    s = go(s, "accept")
    assert s.value == 3 and s.pending is None and s.to_act == MAO
    assert legal(s) == ["3h", "2h", "4c", "surrender"]  # the mão raised last: no raise


def test_the_pe_may_raise_on_its_turn_in_the_middle_of_a_round():
    s = go(hand(), "3h raise")
    assert s.to_act == MAO and s.pending == 3
    s = go(s, "accept")
    assert s.value == 3 and s.to_act == PE  # the pé still has to play its card
    assert legal(s) == ["7s", "6s", "5s", "surrender"]


def test_truco_is_an_alias_of_raise():
    assert parse_action("truco") == parse_action("raise") == Action("raise")
    assert parse_action("TRUCO") == Action("raise")


def test_a_raise_pauses_the_cards():
    s = go(hand(), "3h raise")
    with pytest.raises(IllegalAction, match="must be answered first"):
        s.apply(parse_action("3h"))  # not even the mão's card while it must answer
    with pytest.raises(IllegalAction, match="must be answered first"):
        go(hand(), "raise").apply(parse_action("7s"))


def test_the_ladder_climbs_1_3_6_9_12():
    s = hand()
    values = [s.value]
    for _ in range(4):
        s = go(s, "raise accept")
        values.append(s.value)
        s = go(s, s_play(s))  # the raiser plays so that the other player may raise next
    assert values == [1, 3, 6, 9, 12]


def s_play(state):
    """The first card of the player to act (a helper for ladder tests)."""
    return str(state.hands[state.to_act][0])


def test_a_re_raise_accepts_the_pending_value_and_offers_the_next_step():
    s = go(hand(), "raise raise")
    assert s.value == 3 and s.pending == 6 and s.to_act == MAO  # the first raiser answers
    s = go(s, "raise")
    assert s.value == 6 and s.pending == 9 and s.to_act == PE
    s = go(s, "raise")
    assert s.value == 9 and s.pending == 12 and s.to_act == MAO
    assert legal(s) == ["accept", "run", "surrender"]  # no raise above 12
    s = go(s, "accept")
    assert s.value == 12 and s.to_act == MAO  # it was the mão's turn to play


def test_accept_after_re_raises_continues_with_the_player_whose_turn_it_was():
    # the pé raises on its turn; the mão re-raises; the pé accepts 6 and plays
    s = go(hand(), "3h raise raise accept")
    assert s.value == 6 and s.to_act == PE


def test_the_last_raiser_cannot_raise_again_later_in_the_hand():
    s = go(hand(), "raise accept 3h 7s")  # mão raised; round 1 to the mão; mão leads
    assert s.to_act == MAO and "raise" not in legal(s)
    with pytest.raises(IllegalAction, match="made the last raise"):
        s.apply(parse_action("raise"))
    s = go(s, "4c")  # now the pé may raise
    assert "raise" in legal(s)


def test_the_last_raiser_cannot_answer_with_a_raise_to_himself():
    # a raise must be answered by the other player, so the raiser never answers his own;
    # after the pé's re-raise is accepted the pé cannot raise, the mão can
    s = go(hand(), "raise raise accept")
    assert s.to_act == MAO and "raise" in legal(s)
    s = go(s, "3h")
    assert s.to_act == PE and "raise" not in legal(s)


def test_running_from_the_first_truco_gives_1():
    s = go(hand(), "raise run")
    assert result(s) == ("mao", 1, "run", (1, 0), [])


def test_running_from_a_re_raise_to_6_gives_3():
    s = go(hand(), "raise raise run")
    assert result(s) == ("pe", 3, "run", (0, 3), [])


def test_running_from_9_gives_6():
    s = go(hand(), "3h 7s raise raise raise run")  # mão 3, pé 6, mão 9; the pé runs
    assert result(s) == ("mao", 6, "run", (6, 0), ["mao"])


def test_running_from_12_gives_9():
    s = go(hand(), "raise raise raise raise run")  # mão 3, pé 6, mão 9, pé 12; mão runs
    assert result(s) == ("pe", 9, "run", (0, 9), [])


def test_a_hand_at_12_pays_12():
    s = go(hand(), "raise raise raise raise accept 3h 7s 2h 6s")
    assert result(s) == ("mao", 12, "cards", (12, 0), ["mao", "mao"])


def test_no_raise_above_12():
    s = go(hand(), "raise raise raise raise accept")
    assert s.value == 12 and "raise" not in legal(s)
    with pytest.raises(IllegalAction, match="no raise above 12"):
        s.apply(parse_action("raise"))
    s = go(s, "3h")  # the pé made the last raise anyway; still no raise for anyone
    assert "raise" not in legal(s)


def test_accept_and_run_need_a_pending_raise():
    for token in ("accept", "run"):
        with pytest.raises(IllegalAction, match="no raise to answer"):
            hand().apply(parse_action(token))


def test_surrender_on_ones_turn_pays_the_accepted_value_1():
    s = go(hand(), "surrender")
    assert result(s) == ("pe", 1, "surrender", (0, 1), [])


def test_surrender_by_the_pe_in_the_middle_of_a_round():
    s = go(hand(), "3h surrender")
    assert result(s) == ("mao", 1, "surrender", (1, 0), [])


def test_surrender_after_an_accepted_truco_pays_3():
    s = go(hand(), "raise accept 3h 7s surrender")
    assert result(s) == ("pe", 3, "surrender", (0, 3), ["mao"])


def test_surrender_when_answering_the_first_truco_pays_1():
    s = go(hand(), "raise surrender")
    assert result(s) == ("mao", 1, "surrender", (1, 0), [])


def test_surrender_when_answering_a_re_raise_pays_what_a_run_pays():
    s = go(hand(), "raise raise surrender")
    assert result(s) == ("pe", 3, "surrender", (0, 3), [])


def test_surrender_at_12_pays_12_and_is_capped():
    s = go(hand(score=(4, 7)), "raise raise raise raise accept surrender")
    assert result(s) == ("pe", 12, "surrender", (4, 12), [])


# ---------------------------------------------------------------- mão de onze


def test_mao_de_onze_the_11_holder_decides_first_when_mao():
    s = hand(score=(11, 5))
    assert s.to_act == MAO and legal(s) == ["accept", "run"]


def test_mao_de_onze_the_11_holder_decides_first_even_when_pe():
    s = hand(score=(5, 11))
    assert s.to_act == PE and legal(s) == ["accept", "run"]
    s = go(s, "accept")
    assert s.to_act == MAO  # then the mão leads round 1 as usual
    assert legal(s) == ["3h", "2h", "4c", "surrender"]


def test_mao_de_onze_accept_makes_the_hand_worth_3():
    s = go(hand(score=(5, 11)), "accept 3h 7s 2h 6s")
    assert result(s) == ("mao", 3, "cards", (8, 11), ["mao", "mao"])


def test_mao_de_onze_winning_3_from_11_lands_on_12():
    s = go(hand(score=(11, 5)), "accept 3h 7s 2h 6s")
    assert result(s) == ("mao", 3, "cards", (12, 5), ["mao", "mao"])


def test_mao_de_onze_run_gives_the_opponent_1():
    s = go(hand(score=(11, 5)), "run")
    assert result(s) == ("pe", 1, "eleven_run", (11, 6), [])
    s = go(hand(score=(5, 11)), "run")
    assert result(s) == ("mao", 1, "eleven_run", (6, 11), [])


def test_mao_de_onze_raises_are_locked_for_both_players():
    s = go(hand(score=(11, 5)), "accept")
    assert "raise" not in legal(s)
    with pytest.raises(IllegalAction, match="locked at mão de onze"):
        s.apply(parse_action("raise"))
    s = go(s, "3h")
    assert s.to_act == PE and "raise" not in legal(s)
    with pytest.raises(IllegalAction, match="locked at mão de onze"):
        s.apply(parse_action("truco"))


def test_mao_de_onze_surrender_pays_3():
    s = go(hand(score=(5, 11)), "accept 3h surrender")
    assert result(s) == ("mao", 3, "surrender", (8, 11), [])
    s = go(hand(score=(5, 11)), "accept surrender")
    assert result(s) == ("pe", 3, "surrender", (5, 12), [])


@pytest.mark.parametrize("token", ["3h", "raise", "surrender", "7s"])
def test_mao_de_onze_nothing_before_the_decision(token):
    s = hand(score=(11, 0))
    with pytest.raises(IllegalAction, match="must first accept or run"):
        s.apply(parse_action(token))


# ---------------------------------------------------------------- 11 x 11


def test_eleven_eleven_is_worth_3_with_no_decision_and_no_raise():
    s = hand(score=(11, 11))
    assert s.value == 3 and s.to_act == MAO
    assert legal(s) == ["3h", "2h", "4c", "surrender"]
    with pytest.raises(IllegalAction, match="locked at 11 x 11"):
        s.apply(parse_action("raise"))
    with pytest.raises(IllegalAction, match="no raise to answer"):
        s.apply(parse_action("accept"))


def test_eleven_eleven_the_winner_lands_on_12():
    s = go(hand(score=(11, 11)), "4c 7s 6s 3h 2h 5s")
    # round 1 pé (7 > 4); round 2 the pé leads 6s, 3h wins; round 3 mão leads 2h > 5s
    assert result(s) == ("mao", 3, "cards", (12, 11), ["pe", "mao", "mao"])


def test_eleven_eleven_surrender_pays_3():
    s = go(hand(score=(11, 11)), "3h surrender")
    assert result(s) == ("mao", 3, "surrender", (12, 11), [])


# ---------------------------------------------------------------- score cap


def test_the_score_stops_at_12():
    s = go(hand(score=(10, 2)), "raise accept 3h 7s 2h 6s")
    assert result(s) == ("mao", 3, "cards", (12, 2), ["mao", "mao"])


def test_winning_exactly_to_12():
    s = go(hand(score=(2, 6)), "raise raise accept 3h 7s 2h 6s")  # worth 6
    assert result(s) == ("mao", 6, "cards", (8, 6), ["mao", "mao"])
    s = go(hand(score=(2, 6)), "raise raise run")
    assert result(s) == ("pe", 3, "run", (2, 9), [])
    s = go(hand(score=(2, 9)), "raise raise run")
    assert result(s) == ("pe", 3, "run", (2, 12), [])


def test_final_score_is_the_score_before_while_the_hand_goes_on():
    assert go(hand(score=(3, 4)), "3h 7s").final_score == (3, 4)


# ---------------------------------------------------------------- the match


def test_match_alternates_the_mao():
    m = MatchState((0, 0), mao=1)
    assert m.hand_score() == (0, 0)
    h = go(m.deal(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s")), "3h 7s 2h 6s")
    m = m.after(h)  # player 1 was mão and won 1 point
    assert m.scores == (0, 1) and m.mao == 0 and m.hands_played == 1
    assert m.hand_score() == (0, 1)  # player 0 is now mão, with 0 points
    h = go(m.deal(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s")), "surrender")
    m = m.after(h)  # player 0 (mão) surrendered: player 1 scores 1
    assert m.scores == (0, 2) and m.mao == 1 and m.hand_score() == (2, 0)


def test_match_mao_de_onze_follows_the_player_with_11():
    m = MatchState((11, 4), mao=1)  # player 0 has 11 and is pé
    h = m.deal(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s"))
    assert h.score == (4, 11) and h.to_act == PE and legal(h) == ["accept", "run"]


def test_match_ends_at_12_with_one_winner():
    m = MatchState((10, 7), mao=0)
    h = go(m.deal(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s")), "raise accept 3h 7s 2h 6s")
    m = m.after(h)
    assert m.scores == (12, 7) and m.over and m.winner == 0
    with pytest.raises(ValueError, match="over"):
        m.deal(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s"))


def test_match_refuses_an_unfinished_hand():
    m = MatchState()
    with pytest.raises(ValueError, match="not over"):
        m.after(m.deal(C("Kc"), cards("3h,2h,4c"), cards("7s,6s,5s")))


# ---------------------------------------------------------------- illegal actions


ILLEGAL = [
    # (score, actions before, bad action, the rule the message must state)
    ((0, 0), "", "cover:3h", "a card may be covered only from round 2"),
    ((0, 0), "", "7s", "not in the mao's hand"),
    ((0, 0), "3h", "3h", "not in the pe's hand"),
    ((0, 0), "3h 7s", "3h", "not in the mao's hand"),
    ((0, 0), "3h 7s", "cover:7s", "not in the mao's hand"),
    ((0, 0), "", "accept", "there is no raise to answer"),
    ((0, 0), "", "run", "there is no raise to answer"),
    ((0, 0), "raise", "7s", "must be answered first"),
    ((0, 0), "raise", "cover:7s", "must be answered first"),
    ((0, 0), "raise accept", "raise", "the mao made the last raise; raises alternate"),
    ((0, 0), "3h raise accept 7s 2h", "raise", "the pe made the last raise; raises alternate"),
    ((0, 0), "raise raise raise raise accept", "raise", "no raise above 12"),
    ((0, 0), "raise raise raise raise", "raise", "no raise above 12"),
    ((0, 0), "3h 7s 2h 6s", "4c", "the hand is over"),
    ((0, 0), "raise run", "accept", "the hand is over"),
    ((0, 0), "surrender", "surrender", "the hand is over"),
    ((11, 3), "", "3h", "must first accept or run"),
    ((3, 11), "", "raise", "must first accept or run"),
    ((3, 11), "", "surrender", "must first accept or run"),
    ((11, 3), "accept", "raise", "raises are locked at mão de onze"),
    ((11, 3), "accept", "accept", "there is no raise to answer"),
    ((11, 3), "run", "3h", "the hand is over"),
    ((11, 11), "3h", "raise", "raises are locked at 11 x 11"),
]


@pytest.mark.parametrize("score, before, bad, rule", ILLEGAL)
def test_illegal_action_names_the_action_and_the_rule_and_changes_nothing(score, before, bad,
                                                                          rule):
    s = go(hand(score=score), before)
    action = parse_action(bad)
    assert action not in s.legal_actions()
    snapshot = (s, s.history, s.legal_actions(), s.to_act, s.value, s.final_score)
    with pytest.raises(IllegalAction) as info:
        s.apply(action)
    message = str(info.value)
    assert message.startswith(f"{action}: ") and rule in message
    assert (s, s.history, s.legal_actions(), s.to_act, s.value, s.final_score) == snapshot


def test_illegal_action_is_a_value_error():
    assert issubclass(IllegalAction, ValueError)


@pytest.mark.parametrize("token", ["fold", "cover:", "cover:8c", "raise!", "", "10c"])
def test_unreadable_action_tokens_are_refused(token):
    with pytest.raises(CardError):
        parse_action(token)


@pytest.mark.parametrize("token, text", [
    ("4c", "4c"), ("q♥", "Qh"), ("COVER:as", "cover:As"), ("Cover:3♦", "cover:3d"),
    ("raise", "raise"), ("Accept", "accept"), ("RUN", "run"), ("surrender", "surrender"),
])
def test_action_tokens_read_and_print(token, text):
    assert str(parse_action(token)) == text


@pytest.mark.parametrize("text", ["1_0,0", "١,٠", "3,", "a,b", "1,2,3", " ,1"])
def test_parse_score_reads_only_two_ascii_integers(text):
    from lab.rules import parse_score

    with pytest.raises(ValueError, match="M,P"):
        parse_score(text)


def test_parse_score_reads_a_score():
    from lab.rules import parse_score

    assert parse_score("10, 3") == (10, 3)


def test_hand_results_follow_the_kind_of_hand():
    from lab.rules import hand_results

    normal = hand_results((3, 4))
    assert sorted((w, v) for w, v, _ in normal) == [(w, v) for w in (MAO, PE)
                                                    for v in (1, 3, 6, 9, 12)]
    assert hand_results((11, 10)) == [(MAO, 3, "hand played"), (PE, 3, "hand played"),
                                      (PE, 1, "the holder runs")]
    assert (MAO, 1, "the holder runs") in hand_results((5, 11))
    assert hand_results((11, 11)) == [(MAO, 3, "hand played"), (PE, 3, "hand played")]
