"""The lifecycle every solver shares: build -> allocate -> solve.

A solver is *built* (its game and tree are known, no working arrays yet), then
*allocated* (regrets, strategies and values exist; it can iterate), then *solved* (a
solve has run to its target or budget; iterating again makes it allocated). Asking for
something out of order raises :class:`SolverStateError` naming the call to make first.
"""

from __future__ import annotations

BUILT, ALLOCATED, SOLVED = "built", "allocated", "solved"
ORDER = (BUILT, ALLOCATED, SOLVED)


class SolverStateError(RuntimeError):
    """A solver used out of order (e.g. values asked before allocating)."""


class Lifecycle:
    """The state of a solver (``self.state``) and its checks."""

    state: str = BUILT

    def _need(self, state: str, what: str) -> None:
        """Raise SolverStateError unless the solver is at least at ``state``."""
        if ORDER.index(self.state) < ORDER.index(state):
            step = {ALLOCATED: "allocate()", SOLVED: "solve()"}[state]
            raise SolverStateError(f"{what} needs a {state} solver; it is {self.state}: "
                                   f"call {step} first")

    def _need_built(self, what: str) -> None:
        """Raise SolverStateError unless the solver is still only built."""
        if self.state != BUILT:
            raise SolverStateError(f"{what} on a solver that is already {self.state}")
