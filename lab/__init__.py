"""The truco lab: exact solvers and fast simulators for heads-up Truco Paulista.

The public API (see :mod:`lab.api`): ``lab.load(name)`` reads a solved table,
``lab.hand(vira, cards, seat, score)`` gives one hand's numbers, ``lab.advise(vira, cards,
seat, score, actions)`` the advice at one position, ``lab.match_equity()`` the
12 x 12 match-equity grid, ``lab.review(records, player)`` a played match's decisions
graded against the solver, ``lab.profile(records, player)`` a player's tendencies beside
the solver's. They load on first use, so ``import lab`` stays light.
"""

__version__ = "0.1.0"

from .numba_cache import key_numba_cache

key_numba_cache()   # before anything imports numba

from .rules import RULES_VERSION  # noqa: E402

PUBLIC = ("load", "hand", "advise", "match_equity", "review", "profile", "TABLE_NAMES")
__all__ = ["RULES_VERSION", *PUBLIC]


def __getattr__(name):
    if name in PUBLIC:
        from . import api
        return getattr(api, name)
    raise AttributeError(f"module 'lab' has no attribute {name!r}")
