"""Play a match in the terminal against a bot.

Each turn shows the vira, your cards, the score, the table and your legal moves, numbered
and as tokens (``4c``, ``cover:4c``, ``raise``/``truco``, ``accept``, ``run``,
``surrender``); answer with the number or the token. A bad answer is refused with the
reason and asked again. The mão alternates from hand to hand. End of input or Ctrl-C ends
the session cleanly.
"""

from __future__ import annotations

import os
import random
import sys

from ..cards import DECK, RANKS, card_name, manilha_rank
from ..rules import (ACCEPT, COVER, PLAY, RAISE, RUN, SURRENDER, TARGET, MatchState,
                     next_value, parse_action)
from ..sim.bots import BOT_NAMES, make_bot
from ..sim.match import stream_seed
from ..sim.solver_bot import DESCRIPTION as SOLVER_DESCRIPTION
from ..sim.view import Table, token

YOU, BOT = 0, 1
FIRST = ("random", "you", "bot")


def add_arguments(parser) -> None:
    parser.add_argument("--bot", default="cautious",
                        help=f"the opponent: {', '.join(BOT_NAMES)} (default cautious). "
                             f"The {SOLVER_DESCRIPTION}")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed for the deals and the bot (default: a fresh one)")
    parser.add_argument("--target", type=int, default=TARGET,
                        help="points you need to win, 1..12 (default 12): both players start "
                             "at 12 - TARGET, so mão de onze and 11 x 11 stay as the rules say")
    parser.add_argument("--first", default="random", choices=FIRST,
                        help="who is mão in the first hand (default random)")


class Quit(Exception):
    """The person ended the session (end of input or Ctrl-C)."""


class Terminal:
    """Reads the person's answers and writes the transcript."""

    def __init__(self, stdin=None, stdout=None):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise Quit("end of input")
        return line.strip()


def describe(action, state) -> str:
    """A legal move in words, e.g. ``raise (truco: 1 -> 3)``."""
    if action.kind == PLAY:
        return f"play {card_name(action.card, state.vira)}"
    if action.kind == COVER:
        return f"play {action.card} face down"
    if action.kind == RAISE:
        base = state.pending or state.value
        word = "truco" if base == 1 else "raise"
        return f"{word}: ask {next_value(base)}"
    if action.kind == ACCEPT:
        return "accept (play the hand worth 3)" if state.pending is None else \
            f"accept {state.pending}"
    if action.kind == RUN:
        return "run (the bot scores 1)" if state.pending is None else \
            f"run (the bot scores {state.value})"
    if action.kind == SURRENDER:
        return f"surrender (the bot scores {state.value})"
    return str(action)


def shown(action, vira) -> str:
    """A public action as the transcript shows it (a manilha with its name)."""
    if action.kind == PLAY and card_name(action.card, vira) != str(action.card):
        return f"{action.card} ({card_name(action.card, vira)})"
    return token(action)


def choose(term: Terminal, state) -> object:
    """Ask until the person names a legal move (by number or token); return it."""
    legal = state.legal_actions()
    for i, action in enumerate(legal, 1):
        term.say(f"  {i}) {str(action):<10} {describe(action, state)}")
    while True:
        answer = term.ask("your move> ")
        if not answer:
            term.say(f"  please type a number 1-{len(legal)} or a move token")
            continue
        if answer.isdigit():
            if 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            term.say(f"  {answer}: no such move; type a number 1-{len(legal)} or a token")
            continue
        try:
            action = parse_action(answer)
        except ValueError as exc:
            term.say(f"  {exc}")
            continue
        reason = state.why_illegal(action)
        if reason is None and action in legal:
            return action
        term.say(f"  {answer}: not allowed now: {reason or 'not a legal move'}")


def show_turn(term: Terminal, table: Table, seat: int, scores, names) -> None:
    s = table.state
    manilha = RANKS[manilha_rank(s.vira)]
    term.say(f"vira {s.vira} (manilhas are the {manilha}s) | hand worth {s.value}"
             + (f", raise to {s.pending} pending" if s.pending else "")
             + f" | score: you {scores[YOU]}, bot {scores[BOT]}")
    if s.rounds:
        term.say("rounds: " + ", ".join("tie" if r is None else names[r] for r in s.rounds))
    for p in s.table:
        shown = "a card face down" if p.covered else card_name(p.card, s.vira)
        term.say(f"on the table: {names[p.seat]} played {shown}")
    term.say("your cards: " + "  ".join(
        str(c) + (f" ({card_name(c, s.vira)})" if card_name(c, s.vira) != str(c) else "")
        for c in s.hands[seat]))


def play_hand(term: Terminal, match: MatchState, deals: random.Random, bot, bot_rng,
              number: int) -> MatchState:
    cards = deals.sample(DECK, 7)
    you_mao = match.mao == YOU
    mao_cards, pe_cards = (cards[1:4], cards[4:7])
    table = Table(match.deal(cards[0], mao_cards, pe_cards))
    you_seat = 0 if you_mao else 1
    names = {you_seat: "you", 1 - you_seat: "bot"}
    scores = match.scores
    kind = {"mao_de_onze": " (mão de onze)", "eleven_eleven": " (11 x 11: worth 3)"}
    term.say("")
    term.say(f"--- hand {number}: you are {'mão' if you_mao else 'pé'}"
             f"{kind.get(table.state.kind, '')} ---")
    hand_vira = cards[0]
    while not table.over:
        seat = table.state.to_act
        if seat == you_seat:
            show_turn(term, table, seat, scores, names)
            table.apply(choose(term, table.state))
            term.say(f"you: {shown(table.history[-1][1], hand_vira)}")
        else:
            action = bot.act(table.view(seat), bot_rng)
            table.apply(action)
            term.say(f"bot: {shown(table.history[-1][1], hand_vira)}")
    hand = table.state
    after = match.after(hand)
    how = {"cards": "on the cards", "run": "the other ran", "surrender": "surrender",
           "eleven_run": "ran from mão de onze"}[hand.how]
    term.say(f"{names[hand.winner]} won the hand: {hand.points} point"
             f"{'s' if hand.points != 1 else ''} ({how}). "
             f"Score: you {after.scores[YOU]}, bot {after.scores[BOT]}")
    return after


def play_match(term: Terminal, bot_name: str, seed: int, target: int, first: str) -> int:
    bot = make_bot(bot_name)
    deals = random.Random(stream_seed(seed, 0, 0))
    bot_rng = random.Random(stream_seed(seed, 0, 1))
    if first == "random":
        first_mao = random.Random(stream_seed(seed, 0, 2)).randrange(2)
    else:
        first_mao = YOU if first == "you" else BOT
    start = TARGET - target
    match = MatchState((start, start), first_mao)
    term.say(f"Truco against the {bot_name} bot (seed {seed}). "
             f"First to {TARGET} points wins; you start at {start}.")
    if bot_name == "solver":
        term.say(f"The {SOLVER_DESCRIPTION}. It solves each vira the first time it meets it "
                 "(a few seconds).")
    term.say("Answer with a move's number or its token (4c, cover:4c, truco, accept, run, "
             "surrender).")
    number = 1
    while not match.over:
        match = play_hand(term, match, deals, bot, bot_rng, number)
        number += 1
    winner = "You win" if match.winner == YOU else "The bot wins"
    term.say("")
    term.say(f"{winner} the match {max(match.scores)}-{min(match.scores)} "
             f"after {match.hands_played} hands.")
    return 0


def run(args, stdin=None, stdout=None) -> int:
    make_bot(args.bot)  # a bad name is an error line before anything is printed
    if not 1 <= args.target <= TARGET:
        raise ValueError(f"--target {args.target}: the target must be 1..{TARGET} points")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    if seed < 0:
        raise ValueError(f"--seed {seed}: the seed must be a non-negative integer")
    term = Terminal(stdin, stdout)
    try:
        return play_match(term, args.bot, seed, args.target, args.first)
    except Quit as exc:
        term.say(f"\nbye ({exc})")
        return 0
    except KeyboardInterrupt:
        term.say("\nbye (interrupted)")
        return 130
    except BrokenPipeError:  # the reader of the transcript went away: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

