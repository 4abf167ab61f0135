"""Proof or Bluff's terminal text: the rules in plain words, one line per transcript
event, and the prompts that turn a person's typing into an intent. No I/O of its own: the
CLI passes ``ask`` (prompt → typed text) and ``say`` (print a line)."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from zkbluff.errors import MalformedInput
from zkbluff.games.engine import card_input
from zkbluff.games.engine.text import is_you, plural, possessive, verb
from zkbluff.games.proof_or_bluff.moves import (
    ClassicIntent, ClassicObservation, FiveUpIntent, FiveUpObservation, PlayCards, ProveClaim,
)
from zkbluff.games.proof_or_bluff.rules import (
    CLASSIC_MAX_ROUNDS, DECK, FIVE_UP_MAX_ROUNDS, FIVE_UP_TARGETS, MAX_NAMES, MAX_PLAY, MODES, PROVE, Accept,
    Challenge, Claim, board_ranks, rank_name,
)

MODE_TABLE = "\n".join(
    f"  {m.name:<9} classic: {m.hand_size} cards a hand, first to {m.target} points;  "
    f"5 Up 2 Down: first to {FIVE_UP_TARGETS[m.name]} points" for m in MODES.values())

#: the table's default limits in words (``TimeLimits``' idle and proof, checked by a test)
IDLE_SECONDS, PROOF_SECONDS = 600.0, 60.0
IDLE_WORDS, PROOF_WORDS = "10 minutes", "a minute"

Ask = Callable[[str], str]
Say = Callable[[str], None]

SUITS = "cdhs"  # card id // 13, the seed-002 poker convention
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
SHORT_RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class Style:
    """How cards are drawn: suit symbols and colour where the terminal has them (the CLI
    decides and calls :meth:`_Text.configure`), else plain letters ("10h", "Kc")."""
    symbols = False
    colour = False


def card_label(card: int) -> str:
    """A card for a person: "10♥" (red where colour is on) or "10h" plain; "10" not "T"."""
    rank, suit = SHORT_RANK_LABELS[card % 13], card // 13
    if not Style.symbols:
        return rank + SUITS[suit]
    label = rank + SUIT_SYMBOLS[suit]
    if Style.colour and suit in (1, 2):
        return f"\x1b[31m{label}\x1b[0m"
    return label


def by_rank(cards: Sequence[int]) -> list[int]:
    """Cards sorted by rank (2 .. Ace), then suit, so same-rank cards sit together."""
    return sorted(cards, key=lambda c: (c % 13, c // 13))


def _plain(card: int) -> str:
    """A card's name as a person types it ("Kh", "10h")."""
    return SHORT_RANK_LABELS[card % 13] + SUITS[card // 13]


def _cards(cards: Sequence[int]) -> str:
    return " ".join(card_label(c) for c in by_rank(cards))


def _scores(scores: Sequence[int], names: Sequence[str]) -> str:
    """Each seat's score with its name: ``you 3, house 12``."""
    return ", ".join(f"{names[i] if i < len(names) else f'seat {i}'} {x}" for i, x in enumerate(scores))


def parse_card(token: str, hand: Sequence[int]) -> int:
    """One card a person typed: its number in the hand shown ("3"), or its name in any case
    ("4h", "4H", "10h", "Th", "4♥"); it must be in ``hand``."""
    cards = parse_cards(token, hand)
    if len(cards) != 1:
        raise MalformedInput(f"one card, got {token!r}")
    return cards[0]


def parse_cards(text: str, hand: Sequence[int]) -> tuple[int, ...]:
    """Cards by position or name (the one grammar of :mod:`zkbluff.games.engine.card_input`:
    ``1 3``, ``4h 4c``, ``K K``), separated by spaces or commas; each at most once."""
    example = "'1 3' or '" + " ".join(_plain(c) for c in list(hand)[:2]) + "'" if hand else ""
    return card_input.parse_cards(text, hand, card_input.standard_names, label=card_label, example=example)


def points(n: int) -> str:
    return plural(n, "point")


def score_change(who: str, before: int, after: int, penalty: int = 0) -> str:
    """A score change in words: "you gain 3 points (now 3)", "house loses 1 point (had 4,
    now 3)", "you lose 1 point (you had 0, so it stays 0)". ``penalty`` is the nominal loss,
    for a score the floor at 0 kept from falling."""
    had = f"{who} had" if is_you(who) else "had"
    if after > before:
        return f"{verb(who, 'gains')} {points(after - before)} (now {after})"
    lost = max(before - after, penalty)
    if lost == 0:
        return f"{possessive(who)} score stays {after}"
    if after == before - lost:
        return f"{verb(who, 'loses')} {points(lost)} ({had} {before}, now {after})"
    return f"{verb(who, 'loses')} {points(lost)} ({had} {before}, so it stays {after}: a score never goes below 0)"


def _respond(ask: Ask) -> ClassicIntent:
    raw = ask("[a]ccept or [c]hallenge (Proof or Bluff!)")
    answer = raw.strip().lower()
    if answer in ("a", "accept", "acc"):
        return Accept()
    if answer in ("c", "challenge", "ch", "bluff", "proof or bluff", "proof or bluff!"):
        return Challenge()
    raise MalformedInput(f"answer a (accept) or c (challenge), got {raw!r}")


def _minutes(seconds: Any) -> str:
    """``10 minutes``, ``45 s`` for a limit in seconds."""
    if not isinstance(seconds, (int, float)):
        return "the time allowed"
    if seconds >= 60 and seconds % 60 == 0:
        n = int(seconds // 60)
        return plural(n, "minute")
    return f"{seconds:g} s"


def _names_seat(text: str, names: Sequence[str]) -> str:
    """An end reason with "seat N" replaced by the seat's name."""
    for i, name in enumerate(names):
        text = text.replace(f"seat {i} ", f"{name} ")
    return text


class _Text:
    RULES = ""

    @classmethod
    def configure(cls, symbols: bool, colour: bool) -> None:
        """Suit symbols and colour where the terminal has them (the CLI decides)."""
        Style.symbols, Style.colour = symbols, colour and symbols

    @staticmethod
    def hand_words(obs: Any) -> str:
        """The seat's own hand, for its review (``games/engine/review.py``)."""
        return "your hand: " + (_cards(obs.hand) if obs.hand else "empty")

    @classmethod
    def who(cls, line: Mapping[str, Any], names: Sequence[str]) -> str:
        return "dealer" if line["seat"] is None else names[line["seat"]]

    @classmethod
    def describe(cls, line: Mapping[str, Any], names: Sequence[str]) -> str:
        """One line for a person about a transcript line."""
        kind, d, who = line["action"], line["data"], cls.who(line, names)
        if kind == "header":
            return f"match {d['matchId']}: " + " vs ".join(d["seats"])
        if kind == "end":
            winners = [i for i, p in enumerate(d["placements"]) if p == 1]
            head = verb(names[winners[0]], "wins") if len(winners) == 1 else "a draw"
            return f"{head}: {_names_seat(d['reason'], names)}; final scores: {_scores(d['scores'], names)}"
        if kind == "timeout":
            return f"{verb(names[d['seat']], 'ran')} out of time ({d['limit']})"
        if kind == "entropy.dealer":
            return "the dealer commits to its entropy (first: it cannot re-draw it later)"
        if kind == "entropy.seat":
            return (f"{verb(who, 'commits')} to its entropy" if d.get("commitment") is not None
                    else f"{verb(who, 'commits')} to its hand key (the dealer's seat)")
        if kind == "entropy.open":
            return f"{verb(who, 'opens')} its commitment to the dealer (sealed), after every seat committed"
        if kind == "entropy.forfeit":
            return f"seat(s) {', '.join(names[s] for s in d['seats'])} sent no entropy in time: forfeit"
        if kind == "complaint":
            return f"{verb(who, 'complains')}: the hand sealed on line {d['line']} does not open its commitment"
        if kind.startswith("oblivious."):
            return _oblivious(kind, d, who, names)
        if kind.startswith("house-blind."):
            from zkbluff.games.engine.house_blind_deal import describe_line

            return str(describe_line(kind, d, who, names))
        if kind == "accept":
            return verb(who, "accepts")
        if kind == "challenge":
            return verb(who, "challenges") + " (Proof or Bluff!)"
        return cls._describe(kind, d, who)

    @classmethod
    def _describe(cls, kind: str, d: Mapping[str, Any], who: str) -> str:
        return f"{who} {kind}"

    @classmethod
    def outcome(cls, line: Mapping[str, Any], before: Any, after: Any, names: Sequence[str]) -> list[str]:
        """What a line changed, in words (scores, the pile, who moves next): every screen
        prints these under the line's own description (:mod:`zkbluff.games.engine.narration`).
        ``before``/``after`` are the public states around the line."""
        return cls._idle(line, names)

    @staticmethod
    def time_up(rules: Any, seat: int) -> str:
        """What the referee's clock does when ``seat``'s move is not made in time."""
        return "you forfeit the match (the idle limit: `zkbluff rules` explains it)"

    @staticmethod
    def _idle(line: Mapping[str, Any], names: Sequence[str]) -> list[str]:
        """The idle limit's timeout: the seat that let it run out forfeits the match."""
        if line["action"] != "timeout" or line["data"].get("limit") != "idle":
            return []
        clock = line.get("clock")
        seconds = clock.get("seconds") if isinstance(clock, Mapping) else None
        return [f"{verb(names[line['data']['seat']], 'forfeits')} the match: no move in {_minutes(seconds)} "
                f"(the idle limit)"]


class ClassicText(_Text):
    RULES = f"""Proof or Bluff: two tables, three modes

THE CLASSIC TABLE (two players; `zkbluff play proof-or-bluff`)
Each player is dealt a hand ({MODES['casual'].hand_size} cards in Casual, {MODES['standard'].hand_size} in Standard and Casino).
The required rank starts where the deal says and moves up by one after every claim
(2, 3, ... 10, Jack, Queen, King, Ace, then 2 again). On your turn place 1 to {MAX_PLAY} cards
face down and claim "that many of the required rank" - truthfully or not. There is no pass.
The other player then either
  accepts: the cards stay on the pile, the rank moves on, and the accepter plays next; or
  challenges ("Proof or Bluff!"): the claimer's client proves, with a zero-knowledge
  proof, whether every played card was of the rank, without showing the cards.
Scoring: a caught bluff gives the challenger 3 points; a wrong challenge (the claim was
true) costs the challenger 1 point (a score never goes below 0). After a challenge the
pile is discarded, the rank moves on, and the challenger plays next.
Going out: empty your hand with a play that is accepted, or challenged and proven true,
and you win the match. Caught bluffing on your last play: the round ends and both hands
are dealt again (after {CLASSIC_MAX_ROUNDS} such rounds the match is a draw).
Winning: go out, or be first to the target score.

5 UP 2 DOWN (two players; `zkbluff play five-up-two-down`)
Each round five cards are dealt face up (the board) and each player gets two hidden
cards. In turn, each player names none, one or {MAX_NAMES} board ranks that their hidden cards
match (a rank may be named twice: two Kings in hand against a King on the board). The
other player accepts or challenges; the claimer's client then proves with a
zero-knowledge proof how many named ranks were lies, showing no card.
Scoring:  accepted claim: 1 point for one name, 3 for two.
          challenged and true: 2 points for one name, 4 for two.
          challenged with any lie: the claim is void; the liar loses 1 point per lie
          (never below 0) and the challenger gains 1 per lie.
          a claim of none scores nothing and cannot be challenged.
Scores are checked at the end of each round (after both claims): the first player at or
above the target, and ahead, wins. After {FIVE_UP_MAX_ROUNDS} rounds the higher score wins; a tie is a draw.

TIME LIMITS (the table's clock; every match's header states them)
Your move: {IDLE_WORDS}. Let it pass and you forfeit the match (the other player wins),
also while the match is stopped: a match resumed after the limit ends at once. The
prompt shows the time left. A challenged claim's proof: {PROOF_WORDS} (your client makes
it by itself); a proof not made in time counts as a caught bluff.

MODES (`--mode MODE`; default standard)
{MODE_TABLE}

Fairness: every card, hand and claim is committed and every move proven; `zkbluff
transcript verify FILE` checks a finished match without seeing anyone's cards. Your
own secrets (your hand, salts and signing key) are kept beside the transcript in
FILE.seat0.secrets.json (readable by you only) so that `zkbluff play --resume FILE`
can continue; never share them."""

    @classmethod
    def _describe(cls, kind: str, d: Mapping[str, Any], who: str) -> str:
        if kind == "deal":
            start = d.get("starting_rank")
            return f"round {d['round']} dealt" + (f", starting rank {rank_name(start)}" if start is not None else "")
        if kind == "play":
            n = d["count"]
            return f"{verb(who, 'plays')} {plural(n, 'card')} face down: \"{n} × {rank_name(d['rank'])}\""
        if kind == "prove":
            return f"{possessive(who)} client proves the claim: " + \
                ("TRUE (every card was of the rank)" if d["verdict"] else "a BLUFF (not every card was of the rank)")
        return super()._describe(kind, d, who)

    @classmethod
    def outcome(cls, line: Mapping[str, Any], before: Any, after: Any, names: Sequence[str]) -> list[str]:
        kind, seat = line["action"], line["seat"]
        if kind == "accept" and before.claim is not None:
            stay = f"the cards stay on the pile (now {after.pile})"
            if after.end_reason == "":
                stay += f"; the required rank moves to {rank_name(after.required_rank)}; {verb(names[seat], 'plays')} next"
            return [stay]
        if kind == "prove" and seat is not None:
            claimant, challenger = seat, 1 - seat
            c, ch = names[claimant], names[challenger]
            if line["data"]["verdict"]:
                head = (f"{possessive(ch)} challenge failed: "
                        f"{score_change(ch, before.scores[challenger], after.scores[challenger], 1)}")
            else:
                head = (f"{verb(c, 'was')} caught bluffing: "
                        f"{score_change(ch, before.scores[challenger], after.scores[challenger])}")
            return [head, cls._after_challenge(before, after, claimant, names)]
        if kind == "timeout" and line["data"].get("limit") == "proof" and before.claim is not None:
            claimant = before.claim[0]
            challenger = 1 - claimant
            ch = names[challenger]
            head = (f"an unproven claim counts as a caught bluff: "
                    f"{score_change(ch, before.scores[challenger], after.scores[challenger])}")
            return [head, cls._after_challenge(before, after, claimant, names)]
        return cls._idle(line, names)

    @staticmethod
    def _after_challenge(before: Any, after: Any, claimant: int, names: Sequence[str]) -> str:
        """What a settled challenge leaves: the pile discarded, and the rank and the next
        player, or the round's end when the claimant had played its last cards."""
        ch = names[1 - claimant]
        tail = f"the pile of {plural(before.pile, 'card')} is discarded"
        if after.end_reason:
            return tail
        if after.completed_rounds > before.completed_rounds:  # a bluff on the last cards: the round ends
            return (tail + f"; {verb(names[claimant], 'was')} caught at the door (a bluff on the last cards): "
                    f"round {before.round} ends with no winner and both hands are dealt again; "
                    f"the required rank moves to {rank_name(after.required_rank)}; {verb(ch, 'plays')} first")
        return tail + f"; the required rank moves to {rank_name(after.required_rank)}; {verb(ch, 'plays')} next"

    @staticmethod
    def prompt(obs: ClassicObservation, ask: Ask, say: Say, names: Sequence[str]) -> ClassicIntent:
        """Ask a person for a move; raise :class:`MalformedInput` (say why) if the answer is not one."""
        s, seat = obs.state, obs.seat
        other = 1 - seat
        if s.phase == PROVE:
            say("You were challenged: your client proves the claim.")
            return ProveClaim()
        hand = by_rank(obs.hand)
        held = f"{names[other]} holds {plural(s.hand_sizes[other], 'card')}"
        if s.claim is not None:  # the state and your hand first (after a re-deal: the new one)
            _, count, rank = s.claim
            say(f"Round {s.round}   pile: {s.pile}   scores: you {s.scores[seat]}, {names[other]} "
                f"{s.scores[other]} (target {s.target})   {held}")
            say("Your hand: " + "  ".join(card_label(c) for c in hand))
            say(f"{names[other]} claims: {count} × {rank_name(rank)}   (you hold "
                f"{sum(1 for c in obs.hand if DECK.rank_of(c) == rank)} of that rank)")
            return _respond(ask)
        say(f"Required rank: {rank_name(s.required_rank)}   pile: {s.pile}   scores: you {s.scores[seat]}, "
            f"{names[other]} {s.scores[other]} (target {s.target})   {held}")
        say("Your hand: " + "  ".join(f"{i + 1}:{card_label(c)}" for i, c in enumerate(hand)))
        text = ask(f"Cards to play as '{rank_name(s.required_rank)}' (positions or names, e.g. '1 3', "
                   f"'{_plain(hand[0])}', 'K K')")
        cards = parse_cards(text, hand)
        if len(cards) > MAX_PLAY:
            raise MalformedInput(f"play 1 to {MAX_PLAY} cards at a time; you named {len(cards)}")
        return PlayCards(cards)


def _oblivious(kind: str, d: Mapping[str, Any], who: str, names: Sequence[str]) -> str:
    """The oblivious deal's lines (docs/oblivious-deal.md), in words."""
    if kind == "oblivious.commit":
        return f"{verb(who, 'commits')} a shuffled deck, position by position, and proves it is a whole deck"
    if kind == "oblivious.choose":
        return (f"{verb(who, 'picks')} secret positions to fetch by oblivious transfer "
                "(the other seat's are named in public)")
    if kind == "oblivious.transfer":
        return (f"{verb(who, 'sends')} every position through the oblivious transfer, with a proof of "
                "the hand at the public positions")
    if kind == "oblivious.hand":
        return f"{verb(who, 'proves')} the hand was fetched from allowed positions"
    if kind == "oblivious.complaint":
        return f"{verb(who, 'complains')}: a fetched card does not open its position's commitment"
    if kind == "oblivious.timeout":
        late = "the dealer" if d.get("seat") is None else names[d["seat"]]
        return f"{verb(late, 'sent')} no {d['line']} line in time"
    return f"{who} {kind}"


class FiveUpText(_Text):
    RULES = ClassicText.RULES

    @classmethod
    def _describe(cls, kind: str, d: Mapping[str, Any], who: str) -> str:
        if kind == "deal":
            return f"round {d['round']} dealt, board {_cards(DECK.cards(d['board']))}"
        if kind == "claim":
            named = ", ".join(rank_name(n) for n in d["names"])
            return f"{verb(who, 'claims')} " + (f"a match for {named}" if named else "no match")
        if kind == "prove":
            lies = d["lies"]
            return f"{possessive(who)} client proves the claim: " + \
                ("no lie" if lies == 0 else plural(lies, "lie"))
        return super()._describe(kind, d, who)

    @classmethod
    def outcome(cls, line: Mapping[str, Any], before: Any, after: Any, names: Sequence[str]) -> list[str]:
        kind, seat = line["action"], line["seat"]
        if kind == "accept" and before.claim is not None:
            claimant = before.claim[0]
            c = names[claimant]
            return [f"the claim stands: {score_change(c, before.scores[claimant], after.scores[claimant])}"]
        if kind == "prove" and seat is not None:
            claimant, challenger = seat, 1 - seat
            c, ch = names[claimant], names[challenger]
            if line["data"]["lies"] == 0:
                return [f"{possessive(ch)} challenge failed, the claim was true: "
                        f"{score_change(c, before.scores[claimant], after.scores[claimant])}"]
            lies = line["data"]["lies"]
            return [f"the claim is void: {score_change(c, before.scores[claimant], after.scores[claimant], lies)}; "
                    f"{score_change(ch, before.scores[challenger], after.scores[challenger])}"]
        if kind == "claim" and not line["data"]["names"]:
            return ["a claim of none scores nothing"]
        return cls._idle(line, names)

    @staticmethod
    def prompt(obs: FiveUpObservation, ask: Ask, say: Say, names: Sequence[str]) -> FiveUpIntent:
        s, seat = obs.state, obs.seat
        other = 1 - seat
        if s.phase == PROVE:
            say("You were challenged: your client proves the claim.")
            return ProveClaim()
        say(f"Board: {_cards(DECK.cards(s.board))}   your cards: {_cards(obs.hand)}   scores: you {s.scores[seat]}, "
            f"{names[other]} {s.scores[other]} (target {s.target})")
        if s.claim is not None:
            say(f"{names[other]} claims a match for: {', '.join(rank_name(n) for n in s.claim[1])}")
            return _respond(ask)  # type: ignore[return-value]
        on_board = sorted(board_ranks(s.board))
        text = ask("Name the board ranks you match (e.g. 'K 7', 'K K', or 'none')").strip()
        if text.lower() in ("none", "0", "-", "no"):
            return Claim(())
        if not text:  # an empty Enter claims nothing by accident: "none" is a word to type
            raise MalformedInput("name the board ranks you match, or type 'none' to claim no match")
        named = []
        for tok in text.replace(",", " ").split():
            rank = DECK.parse_rank(tok)
            if rank not in on_board:
                raise MalformedInput(f"{rank_name(rank)} is not on the board; the board's ranks are "
                                     f"{', '.join(rank_name(r) for r in on_board)}")
            named.append(rank)
        if len(named) > MAX_NAMES:
            raise MalformedInput(f"name at most {MAX_NAMES} ranks, got {len(named)}")
        return Claim(tuple(sorted(named)))
