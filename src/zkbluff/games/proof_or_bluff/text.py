"""Proof or Bluff's terminal text: the rules in plain words, one line per transcript
event, and the prompts that turn a person's typing into an intent. No I/O of its own: the
CLI passes ``ask`` (prompt → typed text) and ``say`` (print a line)."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from zkbluff.errors import MalformedInput
from zkbluff.games.proof_or_bluff.moves import (
    ClassicIntent, ClassicObservation, FiveUpIntent, FiveUpObservation, PlayCards, ProveClaim,
)
from zkbluff.games.proof_or_bluff.rules import (
    DECK, FIVE_UP_TARGETS, MAX_NAMES, MAX_PLAY, MODES, PROVE, Accept, Challenge, Claim, rank_name,
)

Ask = Callable[[str], str]
Say = Callable[[str], None]


def _cards(cards: Sequence[int]) -> str:
    return " ".join(DECK.card_name(c) for c in cards)


def _scores(scores: Sequence[int]) -> str:
    return "–".join(str(x) for x in scores)


def _respond(ask: Ask) -> ClassicIntent:
    answer = ask("[a]ccept or [c]hallenge (Proof or Bluff!)").strip().lower()
    if answer in ("a", "accept"):
        return Accept()
    if answer in ("c", "challenge"):
        return Challenge()
    raise MalformedInput(f"answer a or c, got {answer!r}")


class _Text:
    RULES = ""

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
            head = f"{names[winners[0]]} wins" if len(winners) == 1 else "draw"
            return f"{head} ({d['reason']}; scores {_scores(d['scores'])})"
        if kind == "timeout":
            return f"{names[d['seat']]} ran out of time ({d['limit']})"
        if kind == "entropy.dealer":
            return "the dealer commits to its entropy (first: it cannot re-draw it later)"
        if kind == "entropy.seat":
            return (f"{who} commits to its entropy, sealed to the dealer" if d.get("commitment") is not None
                    else f"{who} (the dealer's seat) sends its hand key")
        if kind == "entropy.forfeit":
            return f"seat(s) {', '.join(names[s] for s in d['seats'])} sent no entropy in time: forfeit"
        if kind == "complaint":
            return f"{who} complains: the hand sealed on line {d['line']} does not open its commitment"
        if kind in ("accept", "challenge"):
            return f"{who} {kind}s" + (" (Proof or Bluff!)" if kind == "challenge" else "")
        return cls._describe(kind, d, who)

    @classmethod
    def _describe(cls, kind: str, d: Mapping[str, Any], who: str) -> str:
        return f"{who} {kind}"


class ClassicText(_Text):
    RULES = f"""Proof or Bluff (classic table, two players)

Each player is dealt a hand ({MODES['casual'].hand_size} cards in Casual, {MODES['standard'].hand_size} in Standard
and Casino). The required rank starts where the dealt seed says and moves up by one after
every claim (2, 3, ... King, Ace, 2 ...). On your turn place 1 to {MAX_PLAY} cards face down and
claim "that many of the required rank" - truthfully or not. There is no pass.
The other player accepts (the cards stay on the pile, the rank moves on, they play next)
or challenges: "Proof or Bluff!". Your client then proves, with a zero-knowledge proof,
whether every played card was of the rank, without showing the cards. A caught bluff
gives the challenger 3 points; a wrong challenge costs the challenger 1 (never below 0).
The pile is discarded after a challenge and the challenger plays next.
Empty your hand with an accepted (or truthfully proven) play to win; caught on your last
play, both hands are dealt again. First to the target wins ({', '.join(f'{m.name} {m.target}' for m in MODES.values())}).
Every card, hand and claim is committed and every move proven: `zkbluff transcript verify`
checks a finished match without seeing anyone's cards."""

    @classmethod
    def _describe(cls, kind: str, d: Mapping[str, Any], who: str) -> str:
        if kind == "deal":
            start = d.get("starting_rank")
            return f"round {d['round']} dealt" + (f", starting rank {rank_name(start)}" if start is not None else "")
        if kind == "play":
            return f"{who} plays {d['count']} card(s): \"{d['count']} × {rank_name(d['rank'])}\""
        if kind == "prove":
            return f"{who} proves the claim: {'TRUE' if d['verdict'] else 'BLUFF'}"
        return super()._describe(kind, d, who)

    @staticmethod
    def prompt(obs: ClassicObservation, ask: Ask, say: Say, names: Sequence[str]) -> ClassicIntent:
        """Ask a person for a move; raise :class:`MalformedInput` (say why) if the answer is not one."""
        s, seat = obs.state, obs.seat
        other = 1 - seat
        if s.phase == PROVE:
            say("You were challenged: your client proves the claim.")
            return ProveClaim()
        if s.claim is not None:
            _, count, rank = s.claim
            say(f"{names[other]} claims: {count} × {rank_name(rank)}")
            return _respond(ask)
        say(f"Required rank: {rank_name(s.required_rank)}   pile: {s.pile}   scores you {s.scores[seat]} – "
            f"{names[other]} {s.scores[other]}   {names[other]} holds {s.hand_sizes[other]}")
        hand = obs.hand
        say("Your hand: " + "  ".join(f"{i + 1}:{DECK.card_name(c)}" for i, c in enumerate(hand)))
        text = ask(f"Cards to play as '{rank_name(s.required_rank)}' (numbers, e.g. '1 3')")
        try:
            idx = [int(x) - 1 for x in text.replace(",", " ").split()]
        except ValueError:
            raise MalformedInput(f"give the numbers of the cards, e.g. '1 3', got {text!r}") from None
        if any(not 0 <= i < len(hand) for i in idx):
            raise MalformedInput(f"card numbers are 1 to {len(hand)}, got {text!r}")
        return PlayCards(tuple(hand[i] for i in idx))


class FiveUpText(_Text):
    RULES = f"""5 Up 2 Down (two players)

Each round five cards are dealt face up (the board) and each player gets two hidden
cards. In turn, each player names none, one or {MAX_NAMES} board ranks that their hidden cards
match (a rank may be named twice: two Kings in hand against a King on the board). The other
player accepts (1 point for one match, 3 for two) or challenges; the claimer's client
then proves with a zero-knowledge proof how many named ranks were lies, showing no card.
A true claim challenged scores 2 (one) or 4 (two); a claim with any lie is void: the liar
loses a point per lie (never below 0) and the challenger gains one per lie. A claim of
none scores nothing and cannot be challenged. Scores are checked at the end of each round:
first to the target wins ({', '.join(f'{k} {v}' for k, v in FIVE_UP_TARGETS.items())}); after ten rounds the higher
score wins, a tie is a draw."""

    @classmethod
    def _describe(cls, kind: str, d: Mapping[str, Any], who: str) -> str:
        if kind == "deal":
            return f"round {d['round']} dealt, board {_cards(DECK.cards(d['board']))}"
        if kind == "claim":
            return f"{who} claims {', '.join(rank_name(n) for n in d['names']) or 'no match'}"
        if kind == "prove":
            return f"{who} proves the claim: {d['lies']} lie(s)"
        return super()._describe(kind, d, who)

    @staticmethod
    def prompt(obs: FiveUpObservation, ask: Ask, say: Say, names: Sequence[str]) -> FiveUpIntent:
        s, seat = obs.state, obs.seat
        other = 1 - seat
        if s.phase == PROVE:
            say("You were challenged: your client proves the claim.")
            return ProveClaim()
        say(f"Board: {_cards(DECK.cards(s.board))}   your cards: {_cards(obs.hand)}   scores you {s.scores[seat]} – "
            f"{names[other]} {s.scores[other]}")
        if s.claim is not None:
            say(f"{names[other]} claims: {', '.join(rank_name(n) for n in s.claim[1])}")
            return _respond(ask)  # type: ignore[return-value]
        text = ask("Name the board ranks you match (e.g. 'K 7', 'K K', or 'none')").strip()
        if text.lower() in ("", "none"):
            return Claim(())
        return Claim(tuple(sorted(DECK.parse_rank(tok) for tok in text.replace(",", " ").split())))
