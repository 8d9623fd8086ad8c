"""Match results as pandas DataFrames, with 95% confidence intervals.

A's match-win rate is estimated from mirrored pairs (see :mod:`lab.sim.match`). The two
matches of a pair share their deals, so they are not independent; the pair is the unit:
the rate is the mean over matches, and its standard error comes from the spread of the
pair means (``sd / sqrt(pairs)``). The 95% interval is rate +- 1.96 standard errors,
clipped to [0, 1]. With fewer than two pairs, or when every pair mean is equal (so the
spread says nothing), the Wilson score interval over the matches is used instead.
"""

from __future__ import annotations

import math

import pandas as pd

Z95 = 1.959963984540054
"""The standard normal quantile of 0.975."""

MATCH_COLUMNS = ["match", "pair", "mirror", "a_first_mao", "winner", "a_points", "b_points",
                 "hands", "scoreless_hands"]


def matches_frame(records: list[dict]) -> pd.DataFrame:
    """One row per match, ordered by match number (columns: MATCH_COLUMNS)."""
    frame = pd.DataFrame.from_records(records, columns=MATCH_COLUMNS)
    return frame.sort_values("match", kind="stable").reset_index(drop=True)


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a win probability from ``wins`` of ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def win_rate_ci95(frame: pd.DataFrame) -> tuple[float, float]:
    """95% interval for A's match-win probability (pairs as the unit; see the module text)."""
    a_won = (frame["winner"] == "a").astype(float)
    pair_means = a_won.groupby(frame["pair"]).mean()
    rate = float(a_won.mean()) if len(a_won) else 0.0
    if len(pair_means) >= 2 and pair_means.std(ddof=1) > 0:
        half = Z95 * float(pair_means.std(ddof=1)) / math.sqrt(len(pair_means))
        return (max(0.0, rate - half), min(1.0, rate + half))
    return wilson(int(a_won.sum()), len(a_won))


def summary(frame: pd.DataFrame, start: tuple[int, int] = (0, 0)) -> dict:
    """Totals of a matches frame: wins, A's win rate and its 95% interval, hands (and how
    many scored nothing), and the points each bot scored (final points less the ``start``
    points, summed over matches)."""
    lo, hi = win_rate_ci95(frame)
    a_wins = int((frame["winner"] == "a").sum())
    return {
        "matches": int(len(frame)),
        "a_wins": a_wins,
        "b_wins": int(len(frame)) - a_wins,
        "a_win_rate": round(a_wins / len(frame), 6) if len(frame) else None,
        "ci95": [round(lo, 6), round(hi, 6)],
        "hands": int(frame["hands"].sum()),
        "scoreless_hands": int(frame["scoreless_hands"].sum()),
        "a_points": int(frame["a_points"].sum()) - start[0] * len(frame),
        "b_points": int(frame["b_points"].sum()) - start[1] * len(frame),
    }
