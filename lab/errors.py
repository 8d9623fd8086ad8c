"""The lab's one error a user can act on.

:class:`InputError` is raised for bad input (a card, a vira, a score, an option, a path)
and for data that must be rebuilt (a missing, stale or corrupt table or policy); its
message is one line saying what was wrong and what to do. The command line reports it as
``error: <message>`` with exit status 2. Any other exception inside the lab is a fault
of the lab, not of its user, and is reported as an internal error (exit status 1).
It is a ValueError, so code that catches ValueError keeps working.
"""


class InputError(ValueError):
    """Bad input, or data to rebuild: reported as one ``error:`` line, exit status 2."""
