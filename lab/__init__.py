"""The truco lab: exact solvers and fast simulators for heads-up Truco Paulista."""

__version__ = "0.1.0"

RULES_VERSION = "000_7669bc4c9b2f417f"
"""The seed text whose rules every number of the lab is exact for."""
