"""Cross-check B: matches between solver bots reproduce the match_equity table.

Matches start at 11,10 with bot A the mão holding 11 (``first="a"``), so each match is a
mão de onze at 11,10 and, when the holder runs, one 11 x 11 hand with B as mão: the
solves needed are the ten mão de onze games at 11,10 and the ten card-play games (every
hand turns a random vira, each rank with probability 1/10, as the table averages).
Solves use target exploitability 1e-3 (match-win or win probability; the table's are
1e-5 and 1e-4): the values move by about 1e-3 at most, well inside the sampling intervals.
Deals come in mirrored pairs (the same deals, the hands swapped, A mão in both).

Three figures, each inside the simulation's 95% interval (10,000 matches, 5,000 pairs):

- A's match-win rate vs ``match_equity`` p_mao(11,10); the interval has pairs as the
  unit (lab.sim.stats.win_rate_ci95).
- How often the holder runs vs the ``mao_de_onze`` table's run probability at 11,10
  (sum over classes of weight * (1 - accept), averaged over the ten viras); interval
  with pairs as the unit.
- The 11 x 11 hands after a run: the mão's (B's) win rate vs ``match_equity``
  p_mao(11,11); Wilson interval (each match has at most one such hand, and hands of one
  pair are dealt different cards).

Measured (seed 2024, 10,000 matches): p_mao(11,10) table 0.6337, simulated 0.6336 in
[0.6265, 0.6407]; run probability table 0.6297, simulated 0.6353 in [0.6263, 0.6443];
p_mao(11,11) table 0.4468, simulated 0.4508 in [0.4386, 0.4631] (6,353 hands). Runtime:
about 35 s of solves on an idle core (less when tests/test_solver_bot.py ran first in the
same process) and 6 s of play.
"""

import math

import pytest

from lab.sim.batch import run_matches
from lab.sim.solver_bot import solver_bot
from lab.sim.stats import Z95, win_rate_ci95, wilson
from lab.ranking import match_equity
from lab.tables import load_table

TARGET = 1e-3
"""Target exploitability of the bot's solves (keep equal to test_solver_bot.TARGET)."""
MATCHES = 10_000
SEED = 2024


@pytest.fixture(scope="module")
def played():
    bot = solver_bot(cardplay_target=TARGET, eleven_target=TARGET, match_equity=match_equity,
                     progress=False)
    return run_matches(bot, bot, MATCHES, SEED, first="a", start=(11, 10), workers=1,
                       with_hands=True, progress=False)


def table_value(score_mao, score_pe):
    me = load_table("match_equity")
    row = me[(me["score_mao"] == score_mao) & (me["score_pe"] == score_pe)]
    return float(row["p_mao"].iloc[0])


def pair_interval(values, pairs):
    """Mean of ``values`` with a 95% interval that treats each pair as one draw."""
    means = values.groupby(pairs).mean()
    half = Z95 * float(means.std(ddof=1)) / math.sqrt(len(means))
    mean = float(values.mean())
    return mean, (mean - half, mean + half)


def test_match_equity_at_11_10(played):
    frame, _ = played
    assert len(frame) == MATCHES and set(frame["hands"]) == {1, 2}
    lo, hi = win_rate_ci95(frame)
    assert hi - lo < 0.02  # a check at the scale of one or two points of probability
    assert lo <= table_value(11, 10) <= hi, (lo, hi)


def test_how_often_the_holder_runs(played):
    frame, hands = played
    first = hands[hands["hand"] == 0].set_index(["pair", "mirror"])
    runs = (first["how"] == "eleven_run").astype(float)
    assert (first.loc[first["how"] != "eleven_run", "points"] == 3).all()
    rate, (lo, hi) = pair_interval(runs.reset_index(drop=True),
                                   first.index.get_level_values("pair"))
    eleven = load_table("mao_de_onze")
    rows = eleven[(eleven["score"] == "11,10") & (eleven["seat"] == "mao")]
    table_rate = float((rows["weight"] * (1 - rows["accept"])).sum()) / 10  # ten viras
    assert hi - lo < 0.02
    assert lo <= table_rate <= hi, (rate, lo, hi, table_rate)


def test_eleven_eleven_after_a_run(played):
    _, hands = played
    second = hands[hands["hand"] == 1]
    assert len(second) > 5000
    assert (second["a_score"] == 11).all() and (second["b_score"] == 11).all()
    assert (second["a_seat"] == "pe").all() and (second["points"] == 3).all()
    mao_wins = int((second["winner"] == "b").sum())
    lo, hi = wilson(mao_wins, len(second))
    assert hi - lo < 0.03
    assert lo <= table_value(11, 11) <= hi, (mao_wins / len(second), lo, hi)
