"""Replay one hand from its cards and actions and print the outcome as JSON."""

from __future__ import annotations


from ..cards import parse_card, parse_cards
from ..rules import SEAT_NAMES, HandState, new_hand, parse_action, parse_score
from ..cli import print_json


def add_arguments(parser) -> None:
    parser.add_argument("--vira", required=True, help="the turned card, e.g. 4c")
    parser.add_argument("--mao", required=True, help="the mão's three cards, e.g. 5c,Qh,3d")
    parser.add_argument("--pe", required=True, help="the pé's three cards")
    parser.add_argument("--score", default="0,0", help="M,P points before the hand (default 0,0)")
    parser.add_argument("actions", nargs="*", metavar="ACTION",
                        help="CARD, cover:CARD, raise (truco), accept, run, surrender")


def outcome(state: HandState) -> dict:
    """The contract's JSON object for a hand state."""
    if state.over:
        return {"over": True, "winner": SEAT_NAMES[state.winner], "points": state.points,
                "score": list(state.final_score), "rounds": state.round_names(),
                "how": state.how}
    return {"over": False, "to_act": SEAT_NAMES[state.to_act],
            "legal": [str(a) for a in state.legal_actions()], "value": state.value,
            "rounds": state.round_names()}


def replay(vira: str, mao: str, pe: str, score: str = "0,0", actions=()) -> dict:
    """Replay a hand given in the command-line notation; ValueError on any bad input."""
    state = new_hand(parse_card(vira), parse_cards(mao, 3), parse_cards(pe, 3), parse_score(score))
    for token in actions:
        state = state.apply(parse_action(token))
    return outcome(state)


def run(args) -> int:
    print_json(replay(args.vira, args.mao, args.pe, args.score, args.actions))
    return 0
