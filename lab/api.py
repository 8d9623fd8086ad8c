"""The lab's public Python API, re-exported by ``import lab``.

``lab.load(name)``
    Every solved table by name (:data:`TABLE_NAMES`) as a tidy DataFrame, with the unit of
    each number column in ``attrs["units"]`` and the manifest in ``attrs["manifest"]``.
``lab.hand(vira, cards, seat="mao", score=(0, 0))``
    One hand's numbers, one row per measure: ``measure``, ``value``, ``unit``,
    ``exploitability``, ``model``.
``lab.match_equity()``
    The mão's match-win probability at every score, a 12 x 12 frame (mão's points down,
    pé's points across).

Bad input raises ValueError with a one-line message. See :mod:`lab.tables.tidy` for the details.
"""

from .tables.tidy import TABLE_NAMES, hand_measures as hand, load, match_grid as match_equity

__all__ = ["TABLE_NAMES", "hand", "load", "match_equity"]
