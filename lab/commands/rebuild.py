"""Rebuild every table and policy of ``data/`` that is due, in the order they are built on
each other.

``lab rebuild [--plan] [--checkpoints DIR] [--threads N] [--jobs J]``

The chain (:mod:`lab.tables.chain`): card play, the full game, its stored policies, the
match tables, the points play's leak per score, the score-aware re-solves and their
tables, their stored policies, the house rules' what-if tables and the bot ranking. A step
is due when its output is missing, stale or corrupt, or when a step before it whose output
it reads is due. ``--plan`` prints every step as one JSON line (``step``, ``due``, ``why``,
``writes``, ``time``, ``commands``) and runs nothing. Otherwise the due steps run in order,
each as the ``lab`` commands of its step (shown on stderr before they start), with the same
viras, scores and rule sets the data folder holds now; ``--checkpoints DIR`` is where the
full solves and re-solves keep their checkpoints (needed by the steps that solve the full
game; a path that is there and is not a folder is refused before anything runs). Each
command resumes from its checkpoints, and a step whose output is fresh is not
due, so ``lab rebuild`` run again after an interruption goes on where it stopped.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from ..errors import InputError
from ..options import UsageError, count


def add_arguments(parser) -> None:
    parser.add_argument("--plan", action="store_true",
                        help="print every step (JSON lines): whether it is due and why, what "
                             "it writes, its time and its commands; run nothing")
    parser.add_argument("--checkpoints", type=checkpoint_folder, default=None, metavar="DIR",
                        help="the folder of the full solves' and re-solves' checkpoints "
                             "(`lab solve full --checkpoints DIR`); needed when a step that "
                             "solves the full game is due")
    parser.add_argument("--threads", type=count, default=2, metavar="N",
                        help="numba threads of each full-game solve (default 2)")
    parser.add_argument("--jobs", type=count, default=2, metavar="J",
                        help="processes of the card-play, match and what-if solves (default 2)")


def checkpoint_folder(text: str) -> str:
    """``--checkpoints DIR``: a folder, or a path that is not there yet (the solves create
    it); not a file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: name the checkpoint folder")
    try:
        if Path(text).exists() and not Path(text).is_dir():
            raise argparse.ArgumentTypeError(f"{text}: exists and is not a folder")
        held = next(p for p in Path(text).absolute().parents if p.exists())
        if not held.is_dir():
            raise argparse.ArgumentTypeError(f"{text}: {held} is not a folder")
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{text}: cannot be a folder ({exc.strerror})") \
            from None
    return text


def command_line(argv) -> str:
    return shlex.join(["lab", *argv])


def run(args, runner=None) -> int:
    """``runner(argv)`` runs one ``lab`` command and returns its exit status (default: a
    new process of this Python)."""
    from ..cli import print_json
    from ..tables.chain import CHECKPOINTS, plan, step_commands, step_of, why_due

    checkpoints = args.checkpoints if args.checkpoints is not None else CHECKPOINTS
    steps = plan()
    commands = {row["step"]: step_commands(step_of(row["step"]), checkpoints=checkpoints,
                                           threads=args.threads, jobs=args.jobs)
                for row in steps}
    for row in steps:
        row["commands"] = [command_line(argv) for argv in commands[row["step"]]]
    if args.plan:
        for row in steps:
            print_json(row)
        return 0
    due = [step_of(row["step"]) for row in steps if row["due"]]
    if not due:
        print("every table and policy is fresh: nothing to rebuild")
        return 0
    lacking = [s.name for s in due if s.checkpoints]
    if lacking and args.checkpoints is None:
        raise UsageError(f"steps {', '.join(lacking)} are due and solve the full game: give "
                         "--checkpoints DIR (see `lab rebuild --plan`)")
    runner = runner or _run_lab
    for i, step in enumerate(due, 1):
        # from the folder as the steps before left it: what they rebuilt, what is still due
        for argv in step_commands(step, checkpoints=checkpoints, threads=args.threads,
                                  jobs=args.jobs):
            print(f"[{i}/{len(due)} {step.name}] {command_line(argv)}", file=sys.stderr,
                  flush=True)
            status = runner(argv)
            if status != 0:
                raise InputError(f"step {step.name} stopped: `{command_line(argv)}` exited "
                                 f"with status {status}; `lab rebuild` again goes on from it")
        why = why_due(step)
        if why is not None:
            raise InputError(f"step {step.name} ran, but its output is still not fresh: {why}")
        print(f"[{i}/{len(due)} {step.name}] done", file=sys.stderr, flush=True)
    print(f"rebuilt {len(due)} steps: {', '.join(s.name for s in due)}")
    return 0


def _run_lab(argv) -> int:
    return subprocess.run([sys.executable, "-m", "lab", *argv]).returncode
