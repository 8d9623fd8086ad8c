"""The ``lab`` command: one sub-command per module listed in COMMANDS.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``.
Only the chosen command's module is imported, so ``lab replay`` starts fast
even though ``lab solve`` needs numba.

Exit statuses: 0 done; 2 bad input or data to rebuild (:class:`lab.errors.InputError`),
reported as one ``error: ...`` line on stderr, never a traceback; 1 an internal error (a
fault of the lab): one ``error: internal error ...`` line naming the file that holds the
full traceback (``--debug``, anywhere on the line, prints it instead); 130 interrupted
(Ctrl-C): one ``error: interrupted`` line.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import signal
import sys
import tempfile
import threading
import time
import traceback

from .errors import InputError
from .interrupts import broken_by_interrupt
from .options import Parser, UsageError

COMMANDS = {
    "replay": ("lab.commands.replay", "replay one hand from its cards and actions (JSON)"),
    "play": ("lab.commands.play", "play a match in the terminal against a bot"),
    "simulate": ("lab.commands.simulate", "simulate matches between two bots (JSON)"),
    "bench": ("lab.commands.bench", "run a benchmark target and print its figures"),
    "solve": ("lab.commands.solve", "solve a game per vira and write its tables to data/"),
    "equity": ("lab.commands.equity", "card-play equity of one hand for a vira and seat (JSON)"),
    "publish": ("lab.commands.publish", "write the dashboards as static HTML pages into DIR"),
    "match": ("lab.commands.match", "match-win probabilities at a score (JSON)"),
    "ev": ("lab.commands.ev", "points EV of one hand in the full game with the truco ladder (JSON)"),
    "advise": ("lab.commands.advise", "the solver's strategy and each action's exact value "
               "at one point of a hand (JSON)"),
    "prepare": ("lab.commands.prepare", "work out once per machine what makes the advice "
                "instant (the values at the start of every hand, into the disk cache)"),
    "whatif": ("lab.commands.whatif", "what a house rule set changes: card play, match "
               "equity, mão de onze (JSON; writes the what-if tables)"),
    "rank": ("lab.commands.rank", "rank the bots: exploitability and points per hand against "
             "the solver"),
    "review": ("lab.commands.review", "grade a player's decisions in a match record file "
               "against the solver (JSON or words)"),
    "profile": ("lab.commands.profile", "a player's tendencies from match records beside the "
                "solver's, per decision kind and hand strength"),
    "report": ("lab.commands.report", "how often the solved play calls truco, runs and "
               "raises, per vira or over all viras (words, JSON or CSV)"),
    "rebuild": ("lab.commands.rebuild", "rebuild every table and policy of data/ that is due, "
                "in the order they are built on each other"),
}
"""Sub-command name -> (module implementing it, one-line help)."""


def build_parser(chosen: str | None = None) -> Parser:
    """The ``lab`` parser; only the ``chosen`` command's module is imported."""
    parser = Parser(prog="lab", description="The truco lab: exact solvers and simulators "
                    "for heads-up Truco Paulista.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (module_name, doc) in COMMANDS.items():
        cmd = sub.add_parser(name, help=doc, description=doc)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(cmd)
            cmd.set_defaults(run=module.run)
    return parser


def chosen_viras(vira_options) -> list[str]:
    """Rank characters of the ``--vira`` options (all ten when none); UsageError on a
    repeated rank."""
    from .cards import RANKS
    from .classes import vira_rank_of

    viras = [RANKS[vira_rank_of(v)] for v in vira_options] if vira_options else list(RANKS)
    if len(set(viras)) != len(viras):
        raise UsageError(f"--vira {','.join(vira_options)}: a vira rank is repeated")
    return viras


def json_safe(obj):
    """``obj`` with every NaN or infinity (a quantity that does not exist or was not
    measured) written as null, numpy scalars as Python numbers, tuples as lists."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item) and getattr(obj, "ndim", None) == 0:
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def add_output_form(parser, what: str) -> None:
    """``--text`` (``what`` in words) or ``--json`` (one JSON object), exclusive; without
    either, :func:`in_words` chooses by the terminal."""
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--text", action="store_true",
                      help=f"print {what} in words (the default on a terminal)")
    form.add_argument("--json", action="store_true",
                      help="print one JSON object (the default when piped)")


def in_words(args) -> bool:
    """Words with ``--text``, JSON with ``--json``; else words only on a terminal."""
    if args.text or args.json:
        return bool(args.text)
    return sys.stdout.isatty()


def print_json(obj) -> None:
    """Print ``obj`` as one line of strict JSON (never NaN or Infinity)."""
    print(json.dumps(json_safe(obj), allow_nan=False))


def fail(message: str, status: int = 2) -> int:
    """Print one ``error:`` line on stderr and return ``status``."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


def internal_error(exc: BaseException, debug: bool) -> int:
    """Report a fault of the lab: the traceback goes to a file (or stderr with ``debug``);
    one ``error:`` line; exit status 1."""
    text = "".join(traceback.format_exception(exc))
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if debug:
        sys.stderr.write(text)
        return fail(f"internal error ({what})", 1)
    try:
        fd, path = tempfile.mkstemp(prefix=f"lab-error-{time.strftime('%Y%m%d-%H%M%S')}-",
                                    suffix=".txt")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        where = f"the traceback is in {path}"
    except OSError:
        where = "run again with --debug to see the traceback"
    return fail(f"internal error ({what}); {where}; please report it", 1)


def _terminated(signum, frame):
    raise KeyboardInterrupt  # SIGTERM stops a command as Ctrl-C does: cleanly, saving whole work


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        parser = build_parser(argv[0] if argv else None)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return args.run(args)
    except InputError as exc:  # UsageError, CardError, IllegalAction, TableError, ...
        return fail(exc)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except BrokenPipeError:  # the reader of our output went away (``lab ... | head``)
        sys.stderr.close()
        return 1
    except Exception as exc:  # noqa: BLE001 - anything else is a fault of the lab
        if broken_by_interrupt(exc) and not debug:
            return fail("interrupted", 130)
        return internal_error(exc, debug)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def add_rule_options(parser) -> None:
    """``--rules NAME`` (a preset of :data:`lab.rules.PRESETS`, default ``paulista``) and
    repeatable ``--rule KEY=VALUE`` (one rule changed after the preset)."""
    from .rules import PRESETS, RULE_CHOICES

    parser.add_argument("--rules", default="paulista", metavar="NAME",
                        help=f"a rule set: {', '.join(PRESETS)} (default paulista, the "
                             "rules of docs/rules.md)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="change one rule after the preset; keys: "
                             + "; ".join(f"{k}={'|'.join(v)}" for k, v in RULE_CHOICES.items()))


def rules_from(args):
    """The :class:`lab.rules.RuleSet` named by ``--rules`` and ``--rule`` (InputError, one
    line, for an unknown preset, key or value, or contradictory rules)."""
    from .rules import rule_set

    return rule_set(args.rules, args.rule)


if __name__ == "__main__":
    sys.exit(main())
