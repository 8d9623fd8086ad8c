"""Replay one hand from its cards and actions and print the outcome as JSON.

``lab replay --vira V --mao CARDS --pe CARDS [--score M,P] [--rules NAME] [--rule KEY=VALUE
...] [ACTION ...]``: ``--rules`` names a preset of :data:`lab.rules.PRESETS` (default
``paulista``, the lab's rules) and each ``--rule`` changes one rule after it.
"""

from __future__ import annotations


from ..cards import parse_card, parse_cards
from ..cli import add_rule_options, print_json, rules_from
from ..rules import (DEFAULT_RULES, SEAT_NAMES, HandState, RuleSet, new_hand, parse_action,
                     parse_score)


def add_arguments(parser) -> None:
    parser.add_argument("--vira", required=True, help="the turned card, e.g. 4c")
    parser.add_argument("--mao", required=True, help="the mão's three cards, e.g. 5c,Qh,3d")
    parser.add_argument("--pe", required=True, help="the pé's three cards")
    parser.add_argument("--score", default="0,0", help="M,P points before the hand (default 0,0)")
    add_rule_options(parser)
    parser.add_argument("actions", nargs="*", metavar="ACTION",
                        help="CARD, cover:CARD, raise (truco), accept, run, surrender")


def outcome(state: HandState) -> dict:
    """The contract's JSON object for a hand state."""
    if state.over:
        winner = None if state.winner is None else SEAT_NAMES[state.winner]
        return {"over": True, "winner": winner, "points": state.points,
                "score": list(state.final_score), "rounds": state.round_names(),
                "how": state.how}
    return {"over": False, "to_act": SEAT_NAMES[state.to_act],
            "legal": [str(a) for a in state.legal_actions()], "value": state.value,
            "rounds": state.round_names()}


def replay(vira: str, mao: str, pe: str, score: str = "0,0", actions=(),
           rules: RuleSet = DEFAULT_RULES) -> dict:
    """Replay a hand given in the command-line notation; ValueError on any bad input."""
    state = new_hand(parse_card(vira), parse_cards(mao, 3), parse_cards(pe, 3), parse_score(score),
                     rules)
    for token in actions:
        state = state.apply(parse_action(token))
    return outcome(state)


def run(args) -> int:
    rules = rules_from(args)
    print_json(replay(args.vira, args.mao, args.pe, args.score, args.actions, rules))
    return 0
