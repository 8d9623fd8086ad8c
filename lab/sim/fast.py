"""A numba hand engine that plays uniformly random legal moves.

It plays the whole hand game of ``docs/rules.md`` on strength levels (suits of plain cards
never matter, a covered card is never consulted): covered cards from round 2, the truco
ladder with re-raises, accept / run / surrender, the mão de onze decision with its locked
raises, and 11 x 11, under any :class:`lab.rules.RuleSet` (its house rules reach the
kernels as the few integers of :func:`rule_codes`). Every hand is dealt and played from its
own random stream, derived from ``(seed, hand number)``, so results do not depend on how
hands are split among threads or calls. ``tests/test_sim_fast.py`` checks it move by move
against :mod:`lab.rules`.

Units: ``points`` are match points (tentos) won by the hand's winner (0 for a hand that
scores nothing); scores are points.
Codes for actions and how a hand ended are those of :mod:`lab.sim.encoding`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..rules import DEFAULT_RULES, ELEVEN_VALUE, RuleSet
from .encoding import A_ACCEPT, A_RAISE, A_RUN, A_SURRENDER, COVER0, MAX_STEPS, N_ACTIONS

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
U30, U27, U31, U32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)

HOW_CARDS, HOW_RUN, HOW_SURRENDER, HOW_ELEVEN_RUN = 0, 1, 2, 3
TIE = 2
"""Round result code for a tied round (0 = mão won it, 1 = pé won it, -1 = not played)."""
NOBODY = 2
"""Winner code of a hand that scores nothing (three tied rounds, where the rules say so)."""

RESULT_FIELDS = ("winner", "points", "how", "round1", "round2", "round3", "steps")
"""Columns of the ``results`` array: winner code (0 mão, 1 pé, NOBODY for a hand that scored
nothing, with 0 points), points, how code, the three round results (0, 1, TIE, or -1 when
not played) and the number of actions taken."""


def rule_codes(rules: RuleSet = DEFAULT_RULES) -> tuple[int, int, int, int, int]:
    """``rules`` as the kernels read them: (winner code of three tied rounds: 0, 1 or
    NOBODY; 1 when a mão de onze tied three times goes to the side not on 11, else 0;
    points of the 11 x 11; 1 when the 11 x 11 is blind, else 0; 1 when a player may
    surrender on any of his turns, 0 when only as the answer to a raise)."""
    return ({"mao": 0, "pe": 1, "nobody": NOBODY}[rules.three_ties],
            int(rules.eleven_tie_gives_three == "yes"),
            rules.eleven_eleven_value,
            int(rules.eleven_eleven == "blind"),
            int(rules.surrender == "any_turn"))


@njit(cache=True, inline="always")
def _mix(z):
    """splitmix64's output function: a well-mixed 64-bit value from a counter."""
    z = (z ^ (z >> U30)) * MIX1
    z = (z ^ (z >> U27)) * MIX2
    return z ^ (z >> U31)


@njit(cache=True, inline="always")
def _below(r, n):
    """An integer in [0, n) from the 64-bit random value ``r`` (bias below n / 2**32)."""
    return int(((r >> U32) * np.uint64(n)) >> U32)


@njit(cache=True, inline="always")
def hand_stream(seed, hand):
    """Start of hand ``hand``'s random stream for run ``seed`` (both non-negative ints)."""
    return _mix(np.uint64(seed) * GOLDEN + _mix(np.uint64(hand) + GOLDEN))


@njit(cache=True, inline="always")
def _level(card, vira):
    rank = card // 4
    m = (vira // 4 + 1) % 10
    if rank == m:
        return 9 + card % 4
    if rank < m:
        return rank
    return rank - 1


@njit(cache=True)
def deal(s, cards, mixed_scores):
    """Draw 7 distinct cards into ``cards`` (vira, mão x3, pé x3) and a score.

    With ``mixed_scores`` the (mão, pé) score is drawn so that every kind of hand is common:
    4/8 both in 0..10 (normal), 1/8 mão on 11, 1/8 pé on 11, 1/8 11 x 11, 1/8 both in 0..11;
    otherwise it is 0 x 0. Returns (stream state, score of the mão, score of the pé).
    """
    used = 0
    k = 0
    while k < 7:
        s += GOLDEN
        c = _below(_mix(s), 40)
        if ((used >> c) & 1) == 0:
            used |= 1 << c
            cards[k] = c
            k += 1
    sm, sp = 0, 0
    if mixed_scores:
        s += GOLDEN
        r = _mix(s)
        kind = _below(r, 8)
        s += GOLDEN
        a = _below(_mix(s), 11)
        s += GOLDEN
        b = _below(_mix(s), 11)
        if kind < 4:
            sm, sp = a, b
        elif kind == 4:
            sm, sp = 11, b
        elif kind == 5:
            sm, sp = a, 11
        elif kind == 6:
            sm, sp = 11, 11
        else:
            s += GOLDEN
            sm = _below(_mix(s), 12)
            s += GOLDEN
            sp = _below(_mix(s), 12)
    return s, sm, sp


@njit(cache=True, inline="always")
def _hand_winner(n, r0, r1, r2, three_ties):
    """Winner code decided by ``n`` round results (0, 1, TIE), or -1 while undecided;
    three ties give ``three_ties`` (0, 1 or NOBODY), as ``lab.rules.hand_winner``."""
    w0 = int(r0 == 0) + int(r1 == 0) + int(r2 == 0)  # unplayed rounds are -1
    w1 = int(r0 == 1) + int(r1 == 1) + int(r2 == 1)
    if w0 >= 2:
        return 0
    if w1 >= 2:
        return 1
    if n == 2 and w0 + w1 == 1:  # a win and a tie in the first two rounds
        return r0 if r0 != TIE else r1
    if n == 3:
        if r0 != TIE:
            return r0
        if r1 != TIE:
            return r1
        if r2 != TIE:
            return r2
        return three_ties
    return -1


@njit(cache=True)
def play_random_hand(s, levels, score_mao, score_pe, log_actions, log_masks, record, rules):
    """Play one hand with uniformly random legal moves from stream state ``s``.

    ``levels`` holds the strength levels of the mão's slots 0..2 then the pé's; ``rules``
    is :func:`rule_codes`. With ``record`` each step's legal mask and chosen code go to
    ``log_masks`` / ``log_actions``. Returns (stream state, winner code, points, how code,
    r0, r1, r2, steps).
    """
    three_ties, tie_gives_three, eleven_eleven_value, blind, any_turn = rules
    kind = 0  # 0 normal, 1 mão de onze, 2 eleven x eleven
    holder = -1
    if score_mao == 11 and score_pe == 11:
        kind = 2
    elif score_mao == 11:
        kind, holder = 1, 0
    elif score_pe == 11:
        kind, holder = 1, 1
    value = 1
    if kind == 1:
        value = ELEVEN_VALUE
    elif kind == 2:
        value = eleven_eleven_value
    if kind == 1 and tie_gives_three:
        three_ties = 1 - holder
    can_cover = not (kind == 2 and blind)
    decided = kind != 1
    pending = 0
    last_raiser = -1
    leader = 0
    held0, held1 = 7, 7
    on_table = 0
    table_seat, table_level = -1, 0
    n, r0, r1, r2 = 0, -1, -1, -1
    winner, points, how = -1, 0, 0
    steps = 0
    while winner < 0:
        # ---- who acts, and what may he do
        if not decided:
            actor = holder
            mask = (1 << A_ACCEPT) | (1 << A_RUN)
        elif pending != 0:
            actor = 1 - last_raiser
            mask = (1 << A_ACCEPT) | (1 << A_RUN) | (1 << A_SURRENDER)
            if pending < 12:
                mask |= 1 << A_RAISE
        else:
            actor = leader if on_table == 0 else 1 - leader
            held = held0 if actor == 0 else held1
            mask = held
            if any_turn:
                mask |= 1 << A_SURRENDER
            if n >= 1 and can_cover:
                mask |= held << COVER0
            if kind == 0 and last_raiser != actor and value < 12:
                mask |= 1 << A_RAISE
        # ---- pick one legal code uniformly
        count = 0
        for b in range(N_ACTIONS):
            count += (mask >> b) & 1
        s += GOLDEN
        pick = _below(_mix(s), count)
        code = 0
        for b in range(N_ACTIONS):
            if (mask >> b) & 1:
                if pick == 0:
                    code = b
                    break
                pick -= 1
        if record:
            log_masks[steps] = mask
            log_actions[steps] = code
        steps += 1
        # ---- apply it
        if not decided:
            if code == A_ACCEPT:
                decided = True
            else:
                winner, points, how = 1 - actor, 1, HOW_ELEVEN_RUN
        elif code == A_SURRENDER:
            winner, points, how = 1 - actor, value, HOW_SURRENDER
        elif code == A_RUN:
            winner, points, how = 1 - actor, value, HOW_RUN
        elif code == A_ACCEPT:
            value, pending = pending, 0
        elif code == A_RAISE:
            if pending != 0:
                value = pending
            pending = 3 if value == 1 else value + 3
            last_raiser = actor
        else:
            slot = code % 3
            level = levels[actor * 3 + slot] if code < COVER0 else -1  # covered: below all
            if actor == 0:
                held0 &= ~(1 << slot)
            else:
                held1 &= ~(1 << slot)
            if on_table == 0:
                on_table, table_seat, table_level = 1, actor, level
            else:
                on_table = 0
                if level == table_level:
                    result = TIE
                elif level > table_level:
                    result = actor
                else:
                    result = table_seat
                if n == 0:
                    r0 = result
                elif n == 1:
                    r1 = result
                else:
                    r2 = result
                n += 1
                if result != TIE:
                    leader = result
                w = _hand_winner(n, r0, r1, r2, three_ties)
                if w >= 0:
                    winner, points, how = w, 0 if w == NOBODY else value, HOW_CARDS
    return s, winner, points, how, r0, r1, r2, steps


@njit(cache=True)
def _levels_of(cards, levels):
    for i in range(6):
        levels[i] = _level(cards[1 + i], cards[0])


@njit(cache=True)
def record_random_hands(seed, first, deals, scores, results, actions, masks, mixed_scores,
                        rules):
    """Deal and play hands ``first .. first + len(deals) - 1`` of run ``seed`` under
    ``rules`` (:func:`rule_codes`), recording all.

    Fills ``deals`` (n x 7 card indexes), ``scores`` (n x 2, mão and pé before the hand),
    ``results`` (n x 7, see RESULT_FIELDS), ``actions`` and ``masks`` (n x MAX_STEPS, the
    chosen code and the legal mask of each step; unused steps are left as they were).
    """
    cards = np.empty(7, np.int64)
    levels = np.empty(6, np.int64)
    for i in range(deals.shape[0]):
        s = hand_stream(seed, first + i)
        s, sm, sp = deal(s, cards, mixed_scores)
        _levels_of(cards, levels)
        s, w, pts, how, r0, r1, r2, steps = play_random_hand(
            s, levels, sm, sp, actions[i], masks[i], True, rules)
        for k in range(7):
            deals[i, k] = cards[k]
        scores[i, 0], scores[i, 1] = sm, sp
        results[i, 0], results[i, 1], results[i, 2] = w, pts, how
        results[i, 3], results[i, 4], results[i, 5], results[i, 6] = r0, r1, r2, steps


TALLY_FIELDS = ("hands", "mao_wins", "mao_points", "pe_points", "steps",
                "how_cards", "how_run", "how_surrender", "how_eleven_run", "scoreless")
"""Entries of the array returned by :func:`tally_random_hands`: counts of hands (all, won by
the mão, ended each way, scoring nothing), points summed per seat, and actions summed."""
SCORELESS = TALLY_FIELDS.index("scoreless")


@njit(cache=True, parallel=True)
def tally_random_hands(seed, first, count, mixed_scores, chunks, rules):
    """Deal and play ``count`` hands on all numba threads under ``rules`` (:func:`rule_codes`);
    return TALLY_FIELDS totals.

    The hands are the same as :func:`record_random_hands` plays for the same arguments.
    """
    totals = np.zeros((chunks, len(TALLY_FIELDS)), np.int64)
    for c in prange(chunks):
        lo = first + count * c // chunks
        hi = first + count * (c + 1) // chunks
        cards = np.empty(7, np.int64)
        levels = np.empty(6, np.int64)
        log_a = np.empty(MAX_STEPS, np.int8)
        log_m = np.empty(MAX_STEPS, np.int16)
        t = totals[c]
        for h in range(lo, hi):
            s = hand_stream(seed, h)
            s, sm, sp = deal(s, cards, mixed_scores)
            _levels_of(cards, levels)
            s, w, pts, how, r0, r1, r2, steps = play_random_hand(
                s, levels, sm, sp, log_a, log_m, False, rules)
            t[0] += 1
            t[1] += int(w == 0)
            if w == 0:
                t[2] += pts
            elif w == 1:
                t[3] += pts
            t[4] += steps
            t[5 + how] += 1
            t[SCORELESS] += int(w == NOBODY)
    return totals.sum(axis=0)


def record(seed: int, first: int, count: int, mixed_scores: bool = True,
           rules: RuleSet = DEFAULT_RULES) -> dict:
    """Play and record hands ``first .. first + count - 1`` of run ``seed`` under ``rules``
    (numpy arrays)."""
    out = {
        "deals": np.empty((count, 7), np.int8),
        "scores": np.empty((count, 2), np.int8),
        "results": np.empty((count, len(RESULT_FIELDS)), np.int8),
        "actions": np.full((count, MAX_STEPS), -1, np.int8),
        "masks": np.zeros((count, MAX_STEPS), np.int16),
    }
    record_random_hands(seed, first, out["deals"], out["scores"], out["results"],
                        out["actions"], out["masks"], mixed_scores, rule_codes(rules))
    return out


def tally(seed: int, first: int, count: int, mixed_scores: bool = True,
          chunks: int = 64, rules: RuleSet = DEFAULT_RULES) -> dict:
    """Totals (TALLY_FIELDS -> int) over ``count`` random hands under ``rules``, using every
    numba thread."""
    totals = tally_random_hands(seed, first, count, mixed_scores, chunks, rule_codes(rules))
    return dict(zip(TALLY_FIELDS, (int(x) for x in totals)))
