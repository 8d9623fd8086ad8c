"""Review a played match: ``lab review FILE [--player NAME] [--json | --text] [--top K]``.

Every decision ``NAME`` took in the match record file ``FILE`` (:mod:`lab.match_record`)
is asked again of the advice service from his seat, with what he knew then, and graded:
the loss is the value of the solver's mix less the value of the move taken (points per
hand, or match-win probability where the model is the match's). Without ``--player``,
the file must hold one player whose cards are known, the other's never (a match against a
hidden opponent); otherwise name him. See ``docs/review.md`` (kinds, marks, zones,
units) and :mod:`lab.match_review`.

Words by default on a terminal (the summary, by kind, by score zone, the ``--top``
costliest decisions); with ``--json``, or when piped, one JSON object::

    {"player", "hands", "decisions": [{"hand", "match", "hand_in_match", "seat", "score",
     "zone", "kind", "action", "strategy", "ev", "loss", "unit", "model", "mark"}],
     "summary": {"decisions", "loss_total", "loss_per_hand", "unit",
                 "by_kind": {KIND: {"decisions", "loss"}}, "by_zone": {...},
                 "marks": {"blunder", "mistake"}, "skipped"}}

Bad input (a malformed file: ``FILE:LINE: problem``; a missing file; an unknown player;
unknown cards; other rules than the lab's) is one ``error:`` line, exit 2.
"""

from __future__ import annotations

from ..cli import add_output_form, in_words, print_json
from ..options import bounded


def add_arguments(parser) -> None:
    parser.add_argument("file", metavar="FILE", help="a match record file (.jsonl)")
    parser.add_argument("--player", default=None, metavar="NAME",
                        help="the player to review (needed unless only his cards are known "
                             "in the file)")
    parser.add_argument("--top", type=bounded(0, 1000), default=10, metavar="K",
                        help="costliest decisions described in words (default 10)")
    add_output_form(parser, "the review")


def run(args) -> int:
    from ..match_review import review, review_json, review_text

    result = review(args.file, args.player)
    if in_words(args):
        print(review_text(result, args.top))
    else:
        print_json(review_json(result))
    return 0
