"""A player's tendencies beside the solver's: ``lab profile FILE [FILE ...] --player NAME
[--save P.json] [--json | --text]``.

Each ``FILE`` is a match record file (``.jsonl``, reviewed as ``lab review`` does) or a
profile saved by ``--save`` (its counts are added: that is how profiles merge). Per spot
(open a truco, answer a raise, raise above, which card to lead or answer with, mão de
onze) and hand-strength bucket (weak, middle, strong: terciles of the deal by card-play
equity), the player's frequency of each move with its 95% Wilson interval beside the
solver's mean probability at the same decisions, and a verdict in words where the
interval excludes it. See ``docs/review.md`` and :mod:`lab.player_profile`.

``--save P.json`` writes the merged profile (counts and the solver's probability sums per
cell), atomically, and only when everything was read. Words by default on a terminal,
JSON (``{"player", "hands", "rows": [...], "verdicts": [...]}``) with ``--json`` or when
piped. Bad input is one ``error:`` line, exit 2, with nothing written.
"""

from __future__ import annotations

import json

from ..cli import add_output_form, in_words, print_json


def add_arguments(parser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="match record files (.jsonl) or saved profiles (.json)")
    parser.add_argument("--player", required=True, metavar="NAME", help="the player to profile")
    parser.add_argument("--save", default=None, metavar="P.json",
                        help="write the (merged) profile to this file")
    add_output_form(parser, "the profile")


def run(args) -> int:
    from ..player_profile import build, profile_json, profile_text, to_json
    from ..store import check_output_file, write_atomic

    if args.save is not None:
        check_output_file(args.save, "--save", (".json",))
    profile = build(args.files, args.player)
    if args.save is not None:
        write_atomic(args.save, json.dumps(to_json(profile), ensure_ascii=False) + "\n")
    if in_words(args):
        print(profile_text(profile))
    else:
        print_json(profile_json(profile))
    return 0
