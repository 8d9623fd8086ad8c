"""Play a match in the terminal against a bot.

Each turn shows the vira, your cards, the score, the table and your legal moves, numbered
and as tokens (``4c``, ``cover:4c``, ``raise``/``truco``, ``accept``, ``run``,
``surrender``); answer with the number (as shown: ASCII digits) or the token. Anything
else (another number, other digits, a long line, bytes that are not text) is refused with
the reason and asked again. The mão alternates from hand to hand. End of input or Ctrl-C ends
the session cleanly. ``--rules NAME`` and ``--rule KEY=VALUE`` choose the house rules; at a
blind 11 x 11 your cards are not shown and you play them by number, unseen.

``--coach``: after each of your decisions the solver's view of it (:mod:`lab.advice`):
its strategy there for your hand and the exact expected value of each of your moves
(you playing your best afterwards, the opponent playing the solved strategy), and what
your move cost against the best one. At normal scores the values are points per hand
from the stored full-game policy of the hand's vira (once a hand it says so, and what
playing for points leaks at that score in match-win probability, from the ``score_leak``
table); at mão de onze and 11 x 11 they are
match-win probabilities from the exact solves. Once your own earlier choices leave the
solver's path it says so and still gives each move's value. Where the solved game cannot
say (no stored policy for the vira, or the bot did something the solved strategy never
does), it says why and is silent for the rest of the hand. At the end of the match, a
review of your costliest decisions. Its numbers are the default rules', so it coaches only
under them. ``--hint`` (implies ``--coach``): the same advice, from the same function, shown
before each of your moves instead of after it; after the move only its cost.

Every match is saved as a match record (:mod:`lab.match_record`, ``docs/match_records.md``),
rewritten whole after each finished hand, both seats' cards known, you named ``you`` (or
``--name``) and the bot by its name: to ``--save FILE.jsonl`` (replaced), else to a new file
in the history folder (``$LAB_HISTORY_DIR``, or ``~/.local/share/truco-lab/history/``) named
by the date, time and seed. On exit one line says where (nothing is written, and nothing
said, when no hand was finished).
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

from ..cards import DECK, RANKS, card_name, manilha_rank
from ..rules import (ACCEPT, COVER, DEFAULT_RULES, MAO, PLAY, RAISE, RUN, SURRENDER, TARGET,
                     MatchState, RuleSet, next_value, parse_action)
from ..sim.bots import BOT_NAMES, check_bot_name, decide
from ..sim.match import stream_seed
from ..sim.solver_bot import DESCRIPTION as SOLVER_DESCRIPTION
from ..match import SCORE_AWARE_MODEL
from ..sim.view import Table, token
from ..errors import InputError
from ..match_record import MAX_NAME, HandRecord, write_records
from ..store import check_output_file
from ..cli import add_rule_options, rules_from
from ..options import MAX_SEED, bounded, seed as seed_type

YOU, BOT = 0, 1
FIRST = ("random", "you", "bot")


def add_arguments(parser) -> None:
    parser.add_argument("--bot", default="cautious",
                        help=f"the opponent: {', '.join(BOT_NAMES)} (default cautious). "
                             f"The {SOLVER_DESCRIPTION}")
    parser.add_argument("--seed", type=seed_type, default=None,
                        help=f"seed for the deals and the bot, 0..{MAX_SEED} (default: a "
                             "fresh one)")
    parser.add_argument("--target", type=bounded(1, TARGET, " points"), default=TARGET,
                        help="points you need to win, 1..12 (default 12): both players start "
                             "at 12 - TARGET, so mão de onze and 11 x 11 stay as the rules say")
    parser.add_argument("--first", default="random", choices=FIRST,
                        help="who is mão in the first hand (default random)")
    parser.add_argument("--coach", action="store_true",
                        help="after each of your decisions, show the solver's strategy and "
                             "what your move cost in expected points (needs the stored "
                             "full-game policy of the hand's vira); a review at the end; "
                             "default rules only")
    parser.add_argument("--hint", action="store_true",
                        help="the coach's advice before each of your moves (the solver's "
                             "strategy and each move's value), then what your move cost; "
                             "implies --coach")
    parser.add_argument("--save", default=None, metavar="FILE",
                        help="save the match to FILE (.jsonl, a match record; replaced) "
                             "instead of the history folder ($LAB_HISTORY_DIR or "
                             "~/.local/share/truco-lab/history/)")
    parser.add_argument("--name", default="you", metavar="NAME",
                        help="your name in the saved match (default: you)")
    parser.add_argument("--profiles", default=None, metavar="DIR",
                        help="the exploiter keeps your profile in DIR/NAME.profile.json "
                             "between matches (default: for this match only)")
    parser.add_argument("--exploits", default=None, metavar="DIR",
                        help="the exploiter plays the exploits prepared for you in "
                             "DIR/NAME (`lab solve lock --profile ... --out DIR/NAME`)")
    add_rule_options(parser)


def history_dir() -> Path:
    """Where matches are saved without ``--save``: ``$LAB_HISTORY_DIR``, else
    ``~/.local/share/truco-lab/history``."""
    chosen = os.environ.get("LAB_HISTORY_DIR")
    if chosen:
        return Path(chosen)
    try:
        home = Path.home()
    except RuntimeError:   # no HOME and no password entry: say so at the first save
        raise OSError(0, "no home folder; set LAB_HISTORY_DIR or use --save") from None
    return home / ".local" / "share" / "truco-lab" / "history"


class Saver:
    """Keeps the match's records and rewrites ``path`` whole after each finished hand.

    A failure to write (no home folder, a folder that cannot be created, a full disk) is
    said once, at the first hand it meets, and the match goes on unsaved from there."""

    def __init__(self, path: Path | None, match_id: str, you: str, bot: str,
                 problem: str | None = None):
        self.path, self.match_id, self.names = path, match_id, (you, bot)
        self.records: list[HandRecord] = []
        self.problem = problem   # why the match cannot be saved, while not yet said
        self.stopped = False

    @classmethod
    def in_history(cls, seed: int, you: str, bot: str) -> "Saver":
        """A saver to a new file of the history folder, named by the date, time and seed."""
        stem = f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
        try:
            folder = history_dir()
        except OSError as exc:
            return cls(None, stem, you, bot, problem=exc.strerror)
        name, k = stem, 1
        while (folder / f"{name}.jsonl").exists():
            k += 1
            name = f"{stem}-{k}"
        return cls(folder / f"{name}.jsonl", name, you, bot)

    def add(self, term: "Terminal", number: int, you_mao: bool, cards, hand) -> None:
        """Record the finished ``hand`` (number ``number``, dealt ``cards``: (mão's,
        pé's)) and rewrite the file."""
        players = self.names if you_mao else (self.names[1], self.names[0])
        self.records.append(HandRecord.of_hand(self.match_id, number, players, cards, hand))
        if self.stopped:
            return
        if self.problem is None:
            try:
                write_records(self.path, self.records)
                return
            except OSError as exc:
                self.problem = f"{self.path}: {exc.strerror or type(exc).__name__}"
        term.say(f"could not save the match ({self.problem}); playing on unsaved")
        self.stopped = True

    def say_where(self, term: "Terminal") -> None:
        """The one line saying where the match is (nothing when no hand was saved)."""
        if self.records and not self.stopped:
            n = len(self.records)
            term.say(f"Match saved to {self.path} ({n} hand{'s' if n != 1 else ''}).")


class Quit(Exception):
    """The person ended the session (end of input or Ctrl-C)."""


class Terminal:
    """Reads the person's answers and writes the transcript."""

    LINE = 1000
    """Characters of an answer that are read; the rest of a longer line is skipped."""

    def __init__(self, stdin=None, stdout=None):
        if stdin is None and hasattr(sys.stdin, "reconfigure"):
            sys.stdin.reconfigure(errors="replace")  # bytes that are not text: a bad answer
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str:
        """The next line of input, stripped, at most :attr:`LINE` characters; Quit at the
        end of input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline(self.LINE)
        if not line:
            raise Quit("end of input")
        rest = line
        while len(rest) == self.LINE and not rest.endswith("\n"):  # skip the rest of it
            rest = self.stdin.readline(self.LINE)
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


LONGEST_ANSWER = 20
"""The longest answer read as a move (the longest token, ``surrender``, has 9 characters)."""


def choose(term: Terminal, state) -> object:
    """Ask until the person names a legal move (by a number shown or a token); return it."""
    legal = state.legal_actions()
    numbers = {str(i): action for i, action in enumerate(legal, 1)}
    for i, action in enumerate(legal, 1):
        if state.blind and action.kind == PLAY:  # a card the person may not see
            term.say(f"  {i}) {f'card {i}':<10} play your card {i}, unseen")
        else:
            term.say(f"  {i}) {str(action):<10} {describe(action, state)}")
    while True:
        answer = term.ask("your move> ")
        if answer in numbers:
            return numbers[answer]
        if not answer:
            term.say(f"  please type a number 1-{len(legal)} or a move token")
            continue
        if len(answer) > LONGEST_ANSWER:
            term.say(f"  {answer[:12]!r}...: too long to be a move; type a number "
                     f"1-{len(legal)} or a move token")
            continue
        if answer.isascii() and answer.isdigit():
            term.say(f"  {answer}: no such move; type a number 1-{len(legal)} or a token")
            continue
        if answer.isnumeric():  # other digits: Arabic-Indic, full-width, superscripts ...
            term.say(f"  {answer!r}: type the move's number as shown, 1-{len(legal)} in "
                     "ASCII digits, or a move token")
            continue
        try:
            action = parse_action(answer)
        except ValueError as exc:
            term.say(f"  {exc}")
            continue
        if state.blind and action.kind in (PLAY, COVER):
            term.say(f"  {answer}: at a blind 11 x 11 you cannot see your cards; "
                     f"type a number 1-{len(legal)}")
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
    if s.blind:
        term.say(f"your cards: {len(s.hands[seat])}, unseen (a blind 11 x 11: nobody sees "
                 "his own cards)")
        return
    term.say("your cards: " + "  ".join(
        str(c) + (f" ({card_name(c, s.vira)})" if card_name(c, s.vira) != str(c) else "")
        for c in s.hands[seat]))


class Coach:
    """The solver's view of each of the person's decisions (module docstring), and the
    review of the costliest ones at the end."""

    REVIEW = 5
    """Decisions listed in the review (per unit)."""

    def __init__(self, term: Terminal):
        self.term = term
        self.decisions: list[dict] = []
        self.silent = False
        self.said_model = False

    def new_hand(self) -> None:
        self.silent = False
        self.said_model = False

    def advise(self, hand, seat: int, state, history):
        """The solver's advice (:func:`lab.advice.advice_for`) for ``seat`` holding ``hand``
        (as dealt) at rules state ``state`` after ``history`` ((seat, Action) pairs); None,
        said once and silent for the rest of the hand, where the solved game cannot say."""
        from ..advice import advice_for, build_position

        if self.silent:
            return None
        try:
            position = build_position(state.vira, hand, seat, state.score,
                                      [a for _, a in history])
            return advice_for(position)
        except ValueError as exc:
            self.term.say(f"coach: no advice for the rest of this hand: {exc}")
            self.silent = True
            return None

    def before(self, hand, seat: int, state, history):
        """``--hint``: the advice at this decision, shown before the move; returned, so that
        :meth:`after` grades the move with the very same advice."""
        advice = self.advise(hand, seat, state, history)
        if advice is not None:
            self.show(advice, seat, state)
        return advice

    def after(self, number: int, hand, seat: int, state, history, chosen,
              advice=None) -> None:
        """Comment on ``chosen``, taken by ``seat`` holding ``hand`` (as dealt) in hand
        ``number`` at rules state ``state`` after ``history`` ((seat, Action) pairs):
        the advice and the move's cost, or only the cost where ``advice`` was shown before
        the move (:meth:`before`)."""
        if advice is None:
            advice = self.advise(hand, seat, state, history)
            if advice is None:
                return
            self.show(advice, seat, state)
        self.grade(advice, number, hand, seat, state, chosen)

    def show(self, advice, seat: int, state) -> None:
        """The model (once a hand), the solver's strategy and each move's value."""
        say = self.term.say
        points = advice.unit.startswith("points")
        if points and not self.said_model:   # once a hand: what playing for points costs here
            self.said_model = True
            m, p = state.score
            leak = ("its leak here is not measured" if advice.leak is None else
                    f"here that leaks {advice.leak:.4f} in match-win probability to play "
                    "that knows the score")
            say(f"coach: the solver plays this hand for points, the same at every normal "
                f"score; at {m}-{p} (mão-pé) {leak}")
            if advice.score_aware is not None:
                say("coach: " + score_aware_words(advice.score_aware, seat, (m, p)))
        elif advice.model == SCORE_AWARE_MODEL and not self.said_model:
            self.said_model = True
            m, p = state.score
            say(f"coach: at {m}-{p} (mão-pé) the solver plays this hand for the match: its "
                f"re-solve for this score (exploitability {advice.exploitability:.4f} in "
                "match-win probability)")
        fmt = (lambda v: f"{v:+.2f}") if points else (lambda v: f"{v:.3f}")
        unit = "points" if points else "match-win probability"
        moves = ", ".join(f"{a} {p:.0%} ({fmt(v)})" for a, p, v
                          in zip(advice.legal, advice.strategy, advice.ev))
        if advice.on_path:
            say(f"coach: the solver's strategy for your hand (and each move's {unit}): "
                f"{moves}")
        else:
            say("coach: your earlier choices left the solver's path, so it has no strategy "
                f"for this hand here; each move's {unit} against it: {moves}")

    def grade(self, advice, number: int, hand, seat: int, state, chosen) -> None:
        """What ``chosen`` cost against the best move of ``advice``; kept for the review."""
        say = self.term.say
        points = advice.unit.startswith("points")
        fmt = (lambda v: f"{v:+.2f}") if points else (lambda v: f"{v:.3f}")
        if chosen not in advice.legal:
            say(f"coach: {chosen} is outside the solved game (covering your last card is "
                "never better than playing it face up)")
            return
        mine = advice.ev[advice.legal.index(chosen)]
        best = advice.legal[advice.best]
        cost = advice.ev[advice.best] - mine
        if cost <= 1e-9:
            say(f"coach: {chosen} is the best move here ({fmt(mine)})")
        else:
            amount = f"{cost:.2f} points" if points else f"{cost:.3f} in match-win probability"
            say(f"coach: {chosen} costs {amount} against the best, {best} "
                f"({fmt(advice.ev[advice.best])})")
        self.decisions.append({"hand": number, "cards": " ".join(str(c) for c in hand),
                               "vira": str(state.vira), "seat": seat,
                               "situation": situation(state, seat), "chosen": str(chosen),
                               "best": str(best), "cost": cost, "points": points,
                               "on_path": advice.on_path})

    def review(self) -> None:
        """The costliest decisions of the match, per unit."""
        say = self.term.say
        say("")
        costly = [d for d in self.decisions if d["cost"] > 1e-9]
        if not costly:
            say(f"Coach's review: none of your {len(self.decisions)} coached decisions cost "
                "anything against the solver's best move.")
            return
        say(f"Coach's review: your costliest decisions (of {len(self.decisions)} coached):")
        for points, unit in ((True, "points per hand"), (False, "match-win probability")):
            group = sorted((d for d in costly if d["points"] == points),
                           key=lambda d: -d["cost"])[:self.REVIEW]
            for k, d in enumerate(group, 1):
                cost = f"{d['cost']:.2f}" if points else f"{d['cost']:.3f}"
                say(f"  {k}. hand {d['hand']} (vira {d['vira']}, you {SEATS[d['seat']]} with "
                    f"{d['cards']}), {d['situation']}: you {d['chosen']}, best {d['best']}: "
                    f"cost {cost} {unit}"
                    + ("" if d["on_path"] else " (already off the solver's path)"))


SEATS = ("mão", "pé")


def situation(state, seat: int) -> str:
    """Where a decision was taken, in words: round, value, raise, card on the table."""
    if state.kind == "mao_de_onze" and not state.eleven_decided:
        return "mão de onze: accept or run"
    parts = [f"round {state.round_index + 1}", f"hand worth {state.value}"]
    if state.pending:
        parts.append(f"the bot raised to {state.pending}")
    for p in state.table:
        if p.seat != seat:
            parts.append("the bot's card face down" if p.covered
                         else f"the bot's {card_name(p.card, state.vira)} on the table")
    return ", ".join(parts)


def play_hand(term: Terminal, match: MatchState, deals: random.Random, bot, bot_rng,
              number: int, coach=None, hint: bool = False, saver=None) -> MatchState:
    """Play one hand of ``match`` in the terminal; the match after it. ``coach`` (a
    :class:`Coach`) comments each of the person's decisions, before the move too with
    ``hint``; ``saver`` (a :class:`Saver`) records the hand once it is over."""
    cards = deals.sample(DECK, 7)
    you_mao = match.mao == YOU
    mao_cards, pe_cards = (cards[1:4], cards[4:7])
    table = Table(match.deal(cards[0], mao_cards, pe_cards))
    you_seat = 0 if you_mao else 1
    names = {you_seat: "you", 1 - you_seat: "bot"}
    scores = match.scores
    state = table.state
    kind = {"mao_de_onze": " (mão de onze)",
            "eleven_eleven": f" (11 x 11: worth {state.value}{', blind' if state.blind else ''})"}
    term.say("")
    term.say(f"--- hand {number}: you are {'mão' if you_mao else 'pé'}"
             f"{kind.get(state.kind, '')} ---")
    hand_vira = cards[0]
    history = []  # (seat, action) with the cards each covered: what the coach replays
    if coach is not None:
        coach.new_hand()
    bot.begin_hand()
    while not table.over:
        seat = table.state.to_act
        if seat == you_seat:
            show_turn(term, table, seat, scores, names)
            before = table.state
            yours = mao_cards if you_mao else pe_cards
            advice = None
            if coach is not None and hint:
                advice = coach.before(yours, seat, before, history)
            view = table.view(seat)
            action = choose(term, before)
            table.apply(action)
            bot.observe(view, action)
            term.say(f"you: {shown(table.history[-1][1], hand_vira)}")
            if coach is not None:
                coach.after(number, yours, seat, before, history, action, advice)
        else:
            action = decide(bot, table.view(seat), bot_rng)
            table.apply(action)
            term.say(f"bot: {shown(table.history[-1][1], hand_vira)}")
        history.append((seat, action))
    hand = table.state
    bot.end_hand(hand.net_points(1 - you_seat))
    after = match.after(hand)
    if saver is not None:
        saver.add(term, number, you_mao, (mao_cards, pe_cards), hand)
    how = {"cards": "on the cards", "run": "the other ran", "surrender": "surrender",
           "eleven_run": "ran from mão de onze"}[hand.how]
    score = f"Score: you {after.scores[YOU]}, bot {after.scores[BOT]}"
    if hand.winner is None:
        term.say(f"nobody scores: the three rounds tied. {score}")
    else:
        term.say(f"{names[hand.winner]} won the hand: {hand.points} point"
                 f"{'s' if hand.points != 1 else ''} ({how}). {score}")
    return after


def play_match(term: Terminal, bot_name: str, seed: int, target: int, first: str,
               coach: bool = False, rules: RuleSet = DEFAULT_RULES, hint: bool = False,
               saver: Saver | None = None, you: str = "you", profiles=None,
               exploits=None) -> int:
    from ..exploiter import stored_exploiter_bot
    from ..ranking import command_bot  # the solver bot on the stored policies and tables

    bot = stored_exploiter_bot(profiles, exploits) if bot_name == "exploiter" else \
        command_bot(bot_name)
    bot.begin_match(you)
    deals = random.Random(stream_seed(seed, 0, 0))
    bot_rng = random.Random(stream_seed(seed, 0, 1))
    if first == "random":
        first_mao = random.Random(stream_seed(seed, 0, 2)).randrange(2)
    else:
        first_mao = YOU if first == "you" else BOT
    start = TARGET - target
    match = MatchState((start, start), first_mao, rules=rules)
    term.say(f"Truco against the {bot_name} bot (seed {seed}). "
             f"First to {TARGET} points wins; you start at {start}.")
    if rules != DEFAULT_RULES:
        term.say(f"House rules: {rules.name} ("
                 + ", ".join(f"{k}={v}" for k, v in rules.items().items()) + ").")
    if bot_name in ("solver", "exploiter"):
        term.say(f"The {SOLVER_DESCRIPTION}. It loads each vira's policy the first time it "
                 "meets it, and solves mão de onze and 11 x 11 card play (a few seconds).")
    if bot_name == "exploiter":
        known = bot.profile.hands
        term.say(f"The exploiter plays like the solver until your profile ({known} hands of "
                 f"you known{'' if profiles else ', kept for this match only'}) shows the "
                 "habits of an exploit prepared for you"
                 f"{'' if exploits else ' (none given: --exploits DIR)'}.")
    term.say("Answer with a move's number or its token (4c, cover:4c, truco, accept, run, "
             "surrender).")
    if coach:
        when = "before each of your moves" if hint else "after each of your moves"
        term.say(f"Coach on: {when}, the solver's strategy and each move's value, and what "
                 "your move cost (each can take a few seconds to tens of seconds).")
    teacher = Coach(term) if coach else None
    number = 1
    while not match.over:
        match = play_hand(term, match, deals, bot, bot_rng, number, teacher, hint, saver)
        number += 1
    bot.end_match()
    if saver is not None:
        saver.say_where(term)
    winner = "You win" if match.winner == YOU else "The bot wins"
    term.say("")
    term.say(f"{winner} the match {max(match.scores)}-{min(match.scores)} "
             f"after {match.hands_played} hands.")
    if teacher is not None:
        teacher.review()
    return 0


def run(args, stdin=None, stdout=None) -> int:
    check_bot_name(args.bot)  # a bad name is an error line before anything is printed
    if args.bot != "exploiter" and (getattr(args, "profiles", None)
                                    or getattr(args, "exploits", None)):
        raise InputError("--profiles and --exploits are the exploiter's: play --bot exploiter")
    if not 1 <= args.target <= TARGET:
        raise InputError(f"--target {args.target}: the target must be 1..{TARGET} points")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rules = rules_from(args)
    hint = getattr(args, "hint", False)
    coach = getattr(args, "coach", False) or hint
    if coach and rules != DEFAULT_RULES:
        flag = "--hint" if hint else "--coach"
        raise InputError(f"{flag}: the solver's numbers are for the default rules "
                         f"({DEFAULT_RULES.name}), not {rules.name}; drop {flag} or the "
                         "house rules")
    name = getattr(args, "name", "you")
    if not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise InputError(f"--name {name[:40]!r}: give a name of 1 to {MAX_NAME} printable "
                         "characters")
    if name == args.bot:
        raise InputError(f"--name {name}: the bot is named {args.bot}; choose another name")
    save = getattr(args, "save", None)
    if save is not None:
        check_output_file(save, "--save", (".jsonl",))
        saver = Saver(Path(save), f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}", name,
                      args.bot)
    else:
        saver = Saver.in_history(seed, name, args.bot)
    term = Terminal(stdin, stdout)
    try:
        return play_match(term, args.bot, seed, args.target, args.first, coach, rules, hint,
                          saver, name, getattr(args, "profiles", None),
                          getattr(args, "exploits", None))
    except Quit as exc:
        term.say("")
        saver.say_where(term)
        term.say(f"bye ({exc})")
        return 0
    except KeyboardInterrupt:
        term.say("")
        saver.say_where(term)
        term.say("bye (interrupted)")
        return 130
    except BrokenPipeError:  # the reader of the transcript went away: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def score_aware_words(aware: dict, seat: int, score) -> str:
    """One line: what the score-aware re-solve at ``score`` does with the hand's class."""
    def pct(x):
        return "n/a" if x is None else f"{x:.0%}"

    key = "truco_mao" if seat == MAO else "run_pe"
    what = "opens with a truco" if seat == MAO else "runs from a truco"
    return (f"re-solved for the match at {score[0]}-{score[1]} (exploitability "
            f"{aware['exploitability']:.4f} match-win probability), a {aware['hand']} hand "
            f"{what} {pct(aware[key])} of the time instead of {pct(aware[key + '_points'])} "
            f"under points play; your match-win probability there is "
            f"{aware['match_win_probability']:.3f}")
