"""The cards of docs/rules.md: the 40-card deck, the notation, the vira and the manilhas.

Every expected value here is written from the rules, not read from the code.
"""

import pytest

from lab.cards import (
    DECK,
    Card,
    CardError,
    beats,
    card_name,
    is_manilha,
    level,
    level_copies,
    level_name,
    manilha_rank,
    parse_card,
    parse_cards,
)

C = parse_card


# ---------------------------------------------------------------- the deck


def test_deck_has_40_distinct_cards():
    assert len(DECK) == 40
    assert len(set(DECK)) == 40


def test_deck_has_ten_ranks_in_four_suits_and_no_8_9_10():
    names = {str(c) for c in DECK}
    expected = {r + s for r in "4567QJKA23" for s in "cshd"}
    assert names == expected


# ---------------------------------------------------------------- notation


@pytest.mark.parametrize("token, name", [
    ("4c", "4c"), ("Qh", "Qh"), ("As", "As"), ("3d", "3d"), ("Jc", "Jc"), ("Kd", "Kd"),
    ("2s", "2s"), ("7h", "7h"),
])
def test_notation_is_rank_then_suit(token, name):
    assert str(C(token)) == name


@pytest.mark.parametrize("symbol, letter", [("♣", "c"), ("♥", "h"), ("♠", "s"), ("♦", "d")])
def test_suit_symbols_read_as_letters(symbol, letter):
    assert C("A" + symbol) == C("A" + letter)
    assert str(C("5" + symbol)) == "5" + letter


@pytest.mark.parametrize("token, same_as", [
    ("qh", "Qh"), ("QH", "Qh"), ("q♥", "Qh"), ("aS", "As"), ("kD", "Kd"), ("jC", "Jc"),
    ("4C", "4c"), (" 3d ", "3d"),
])
def test_notation_is_case_insensitive(token, same_as):
    assert C(token) == C(same_as)


@pytest.mark.parametrize("token", [
    "8c", "9h", "10s", "Tc", "1d", "0c",   # ranks that are not in the deck
    "4x", "Qz", "4",                        # unknown suit or no suit
    "", "c4", "4cc", "4 c", "zap", "♣4",    # not rank + suit
])
def test_bad_tokens_are_refused_naming_the_token(token):
    with pytest.raises(CardError) as info:
        C(token)
    assert repr(token) in str(info.value)


def test_card_error_is_a_value_error():
    assert issubclass(CardError, ValueError)


def test_parse_cards_reads_a_comma_list():
    assert parse_cards("4c,Q♥,as", 3) == (C("4c"), C("Qh"), C("As"))


@pytest.mark.parametrize("text", [
    "Ah,3c,4d", "Ah 3c 4d", "Ah3c4d",            # commas, spaces, nothing between
    " Ah , 3c,4d ", "Ah  3c\t4d", "ah3C4D",       # spaces around, tabs, any case
    "A♥3♣4♦", "A♥ 3♣ 4♦", "Ah, 3c 4d",              # suit symbols; the forms mixed
])
def test_parse_cards_reads_commas_spaces_or_nothing_between(text):
    assert parse_cards(text, 3) == (Card(7, 2), Card(9, 3), Card(0, 0))   # Ah 3c 4d
    assert parse_cards(text) == parse_cards(text, 3)


ACCEPTED_FORMS = "Ah,3c,4d or 'Ah 3c 4d' or Ah3c4d"


@pytest.mark.parametrize("text, token", [
    ("Ah,3c,8d", "'8d'"), ("Ah 3c 8d", "'8d'"), ("Ah3c8d", "'8d'"),   # a rank not in the deck
    ("Ah,3x,4d", "'3x'"), ("Ah3x4d", "'3x'"),                         # an unknown suit
    ("Ah,10c,4d", "'10c'"), ("Ah,,4d", "''"), ("Qh;3d;4s", "';3'"),    # not rank + suit
])
def test_a_bad_card_among_several_names_it_and_shows_the_accepted_forms(text, token):
    with pytest.raises(CardError) as info:
        parse_cards(text, 3)
    message = str(info.value)
    assert token in message and ACCEPTED_FORMS in message
    assert "ranks 4 5 6 7 Q J K A 2 3" in message and "c h s d" in message
    assert "\n" not in message


def test_a_bad_single_card_shows_how_a_card_is_written():
    for token in ("8c", "Qz", "zap", ""):
        with pytest.raises(CardError) as info:
            C(token)
        assert "rank + suit" in str(info.value) and "4 5 6 7 Q J K A 2 3" in str(info.value)


def test_a_wrong_count_shows_the_accepted_forms():
    for text in ("Ah3c", "Ah 3c 4d 5d", ""):
        with pytest.raises(CardError) as info:
            parse_cards(text, 3)
        assert ACCEPTED_FORMS in str(info.value)


def test_parse_cards_refuses_a_wrong_count():
    with pytest.raises(CardError, match="expected 3 cards, got 2"):
        parse_cards("4c,5c", 3)
    with pytest.raises(CardError, match="expected 3 cards, got 4"):
        parse_cards("4c,5c,6c,7c", 3)


def test_parse_cards_refuses_a_repeated_card_naming_it():
    with pytest.raises(CardError, match="^5h: repeated card"):
        parse_cards("5h,4c,5H", 3)


# ---------------------------------------------------------------- vira -> manilha


@pytest.mark.parametrize("vira, manilha", [
    ("4c", "5"), ("5h", "6"), ("6s", "7"), ("7d", "Q"), ("Qc", "J"), ("Jh", "K"),
    ("Ks", "A"), ("Ad", "2"), ("2c", "3"), ("3h", "4"),
])
def test_manilha_is_the_rank_above_the_vira(vira, manilha):
    assert "4567QJKA23"[manilha_rank(C(vira))] == manilha


def test_manilha_wraps_from_3_to_4():
    vira = C("3s")
    assert is_manilha(C("4c"), vira) and is_manilha(C("4d"), vira)
    assert not is_manilha(C("3c"), vira)
    # the 4s are then the four best cards; the 3 (the best plain rank) comes next
    assert all(level(C("4" + s), vira) > level(C("3c"), vira) for s in "cshd")


def test_seed_example_vira_4_makes_5_of_clubs_the_best_card():
    vira = C("4d")
    best = C("5c")
    for card in DECK:
        if card not in (best, vira):
            assert beats(best, card, vira) == 1, card


def test_manilha_suit_order_is_clubs_hearts_spades_diamonds():
    vira = C("Kh")  # manilha rank A
    zap, copas, espadilha, pica_fumo = C("Ac"), C("Ah"), C("As"), C("Ad")
    assert beats(zap, copas, vira) == 1
    assert beats(copas, espadilha, vira) == 1
    assert beats(espadilha, pica_fumo, vira) == 1
    assert beats(pica_fumo, zap, vira) == -1


def test_the_weakest_manilha_beats_the_best_plain_card():
    vira = C("6c")  # manilha rank 7
    assert beats(C("7d"), C("3c"), vira) == 1
    assert beats(C("3c"), C("7d"), vira) == -1


@pytest.mark.parametrize("suit, name", [("c", "zap"), ("h", "copas"), ("s", "espadilha"),
                                        ("d", "pica-fumo")])
def test_manilha_names(suit, name):
    vira = C("Qs")  # manilha rank J
    assert card_name(C("J" + suit), vira) == name


def test_plain_card_is_named_by_itself():
    assert card_name(C("Kc"), C("Qs")) == "Kc"


def test_plain_ranks_keep_their_order():
    vira = C("7h")  # manilha rank Q, so the plain order is 4 5 6 7 J K A 2 3
    plain = ["4", "5", "6", "7", "J", "K", "A", "2", "3"]
    levels = [level(C(r + "s"), vira) for r in plain]
    assert levels == sorted(levels) and len(set(levels)) == 9


@pytest.mark.parametrize("rank", list("4567QJKA23"))
def test_plain_suits_tie(rank):
    vira = C("2h") if rank != "3" else C("Ah")  # keep `rank` a plain rank
    cards = [C(rank + s) for s in "cshd"]
    for a in cards:
        for b in cards:
            assert beats(a, b, vira) == 0


def test_levels_span_13_values_per_vira():
    for vira in (C("4c"), C("Qd"), C("3h")):
        assert {level(c, vira) for c in DECK} == set(range(13))


def test_level_copies_count_the_vira_out():
    vira = C("Ks")  # manilha A
    # the vira's own rank (K) has 3 cards left, every other plain rank 4, each manilha 1
    assert level_copies(level(C("Kc"), vira), vira.rank) == 3
    assert level_copies(level(C("Qc"), vira), vira.rank) == 4
    assert level_copies(level(C("Ac"), vira), vira.rank) == 1
    assert sum(level_copies(lv, vira.rank) for lv in range(13)) == 39


def test_level_names():
    vira = C("Ks")
    assert level_name(level(C("Ad"), vira), vira.rank) == "pica-fumo"
    assert level_name(level(C("Ac"), vira), vira.rank) == "zap"
    assert level_name(level(C("2d"), vira), vira.rank) == "2"


def test_cards_are_values():
    assert C("4c") == Card(0, 3)
    assert hash(C("qh")) == hash(C("Q♥"))


# ---------------------------------------------------------------- one game, two viras


def test_viras_2_and_3_play_one_game_and_every_other_vira_its_own():
    from lab.classes import same_game_vira

    # vira 2: manilhas are 3s, plain order 4 5 6 7 Q J K A 2 (the 2s short of the vira);
    # vira 3: manilhas are 4s, plain order 5 6 7 Q J K A 2 3 (the 3s short): rank by rank
    # the same places, so each card of one deck has a twin in the other
    v2, v3 = C("2d"), C("3d")
    twin = {"4": "5", "5": "6", "6": "7", "7": "Q", "Q": "J", "J": "K", "K": "A", "A": "2",
            "2": "3", "3": "4"}
    rest2 = [c for c in DECK if c != v2]
    image = [C(twin[c.rank_char] + c.suit_char) for c in rest2]
    assert sorted(image) == sorted(c for c in DECK if c != v3)
    for a, fa in zip(rest2, image):
        assert is_manilha(fa, v3) == is_manilha(a, v2)
        if is_manilha(a, v2):   # the zap's twin is the zap, and so on
            assert card_name(fa, v3) == card_name(a, v2)
        for b, fb in zip(rest2, image):
            assert beats(a, b, v2) == beats(fa, fb, v3)
    assert same_game_vira("3") == same_game_vira("2") == RANKS_OF["2"]
    assert [same_game_vira(v) for v in "4567QJKA2"] == [RANKS_OF[v] for v in "4567QJKA2"]


RANKS_OF = {r: i for i, r in enumerate("4567QJKA23")}
