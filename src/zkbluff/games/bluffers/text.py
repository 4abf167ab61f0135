"""Bluffers in words: the rules in plain language (:data:`RULES_TEXT`, the same text as
RULES.md next to this file) and :func:`describe`, which says an applied action as a line a
player would read at the table ("Seat 0 plays two cards: “Two Kings!”")."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence

from zkbluff.games.bluffers.rules import (
    CHAMBERS, DECK, JOKERS, POINTS, AutoMove, BluffersRules, CallBluff, CommitSeed, Deal, Disconnect, LeaveTable,
    Phase, Play, Reconnect, Reveal, Share, Snapshot,
)
from zkbluff.games.engine.house_blind_deal import describe_line
from zkbluff.games.engine.rules import Action
from zkbluff.games.engine.text import plural, seat_name

RANK_PLURALS = ("Kings", "Queens", "Aces")
NUMBER_WORDS = ("No", "One", "Two", "Three", "Four", "Five")
PLACE_WORDS = ("1st", "2nd", "3rd", "4th")

RULES_TEXT = """\
# Bluffers

Bluffers is a bluff card game for 2 to 4 players. Play your cards face down, make your
rivals believe you, and be the last player at the table.

## The deck and the hand

- The deck has 20 cards: 6 Kings, 6 Queens, 6 Aces and 2 Jokers. A Joker counts as any card.
- At the start of every round each player still standing gets 5 cards. At a 4-player
  table the whole deck is dealt.
- Only you can see your cards.

## The table card

At the start of every round a card is drawn at random: King, Queen or Ace. Everybody sees
it. For the whole round everyone claims to play that card. A Joker always counts as the
table card.

## Your turn

- Play 1, 2 or 3 cards from your hand face down. You claim they all match the table card
  ("Two Kings!"). Tell the truth or bluff.
- You have 30 seconds. If time runs out, one random card from your hand is played for you
  (picked by your own committed randomness, never by the dealer). If you had to call
  bluff, the timer calls it for you.

## The next player

- Plays cards: that accepts the claim, and the turn passes on.
- Calls bluff: the last cards played are turned over. Cards that match the table card
  (Jokers included) are shown as matching, the others as not matching.

## Whoever was wrong pulls the trigger

- If all the cards matched, the claim was true: the player who called bluff pulls the
  trigger.
- If any card did not match, the lie is caught: the player who played them pulls.

Every player has their own revolver: 6 chambers, 1 bullet. The chamber advances with
every pull, so the risk grows: 1 in 6, then 1 in 5, then 1 in 4, and so on; it carries over
from round to round, and the sixth pull always fires. A click and the game goes on; a bang
and that player is out. (The revolver is a cartoon game rule.)

Nobody can know or move the bullet: every player committed a secret seed before the first
deal, and each pull is decided by all standing players' shares, each proven against its
seed. Only the pull itself shows click or bang.

After every pull the cards are collected, a new round is dealt and a new table card
drawn. The player who pulled the trigger starts the new round; if they are out, the next
player starts it.

## Special cases

- A player with no cards left is skipped until the round ends; the cards they played
  last can still be called.
- If you are the only player who still has cards, you must call bluff on your turn.
- If your connection drops the match does not stop: on your turn a move is played for
  you (one random card, or the call when calling is forced). When you come back you pick
  up where you left off.
- If you leave the table you earn no points from the match; your seat is played
  automatically to the end and the match goes on for the others.
- If your device stops answering altogether (a move played for you, turning your cards
  over when called, your share of a pull: only your own device can prove these), after
  the table's limit (ten minutes for the card played after your 30 seconds, a minute for
  the rest, unless the table says otherwise) you are out of the match with no points;
  the round is void and a new one is dealt to the others. If what you did not send was your
  share of someone else's pull, that pull is made again by the others with fresh shares
  you cannot foresee: staying silent neither saves the puller nor shoots it.

## Winning and points

The last player standing wins. Your place is settled the moment you are knocked out: the
winner is 1st, the last player knocked out 2nd, and so on.

- 4 players: 10, 6, 3 and 1 points.
- 3 players: 8, 4 and 1 points.
- 2 players: 5 and 1 points.
"""


def card_name(card: int) -> str:
    """``King``, ``Queen``, ``Ace`` or ``Joker`` for a card id 0-19."""
    if card in JOKERS:
        return "Joker"
    return DECK.rank_names[card // 6]


def card_names(card: int) -> tuple[str, ...]:
    """What a person may type for a card (upper case): ``K``/``KING``, ``Q``/``QUEEN``,
    ``A``/``ACE``, ``J``/``JOKER`` (Bluffers has no Jack)."""
    name = card_name(card).upper()
    return (name[0], name) + (("JK", "JO") if card in JOKERS else ())


def claim_words(count: int, table_card: int) -> str:
    """What the game announces for a play: "One King!", "Three Aces!"."""
    noun = DECK.rank_names[table_card] if count == 1 else RANK_PLURALS[table_card]
    return f"{NUMBER_WORDS[count]} {noun}!"


def _seat(i: Optional[int], names: Optional[Sequence[str]]) -> str:
    return seat_name(i, names, "The dealer")


def _cards(n: int) -> str:
    return f"{NUMBER_WORDS[n].lower()} card{'s' if n != 1 else ''}"


def describe(seat: Optional[int], action: Action, before: Snapshot, after: Snapshot,
             names: Optional[Sequence[str]] = None) -> str:
    """One line saying what ``action`` by ``seat`` did, from the public snapshots taken
    just before and just after it was applied."""
    who = _seat(seat, names)
    if isinstance(action, CommitSeed):
        return f"{who} loads its revolver: its secret seed is committed."
    if isinstance(action, Deal):
        dealt = ", ".join(_seat(i, names) for i in range(after.n_seats) if after.alive[i])
        return (f"Round {after.round}: 5 cards each to {dealt}. "
                f"The table card is the {DECK.rank_names[action.table_card]}.")
    if isinstance(action, Play):
        assert after.table_card is not None
        return f"{who} plays {_cards(action.count)}: “{claim_words(action.count, after.table_card)}”"
    if isinstance(action, (CallBluff, AutoMove)):
        prefix = ""
        if isinstance(action, AutoMove):
            prefix = (f"{who}'s time ran out: " if action.reason == "timeout"
                      else f"{who} is away: ")
            if after.phase == Phase.TURN:  # a random card was played
                assert after.table_card is not None
                return prefix + f"one random card is played for them: “{claim_words(1, after.table_card)}”"
            who = "they"
        assert before.last_play is not None
        forced = " (the only player with cards must call)" if sum(
            1 for i in range(before.n_seats) if before.alive[i] and before.hand_sizes[i] > 0) == 1 else ""
        return (prefix + f"{who} call{'s' if who != 'they' else ''} bluff on "
                f"{_seat(before.last_play.seat, names)}'s {_cards(before.last_play.count)}!{forced}")
    if isinstance(action, Reveal):
        shown = ", ".join(f"{card_name(c)} ({'matches' if m else 'no match'})"
                          for c, m in zip(after.revealed, after.matched))
        verdict = ("The claim was true" if all(after.matched) else "The lie is caught")
        return f"{who} turns over {shown}. {verdict}: {_seat(after.puller, names)} pulls the trigger."
    if isinstance(action, Share):
        puller = before.puller
        assert puller is not None
        chamber = before.chambers[puller]
        line = (f"{who} gives its proven share for {_seat(puller, names)}'s pull "
                f"(chamber {chamber + 1} of {CHAMBERS}, risk 1 in {CHAMBERS - chamber}).")
        if after.last_pull is None or after.phase == Phase.PULL:
            return line
        if not after.last_pull.fired:
            left = CHAMBERS - after.chambers[puller]
            return line + f" Click! {_seat(puller, names)} survives; next time the risk is 1 in {left}."
        place = after.places[puller]
        assert place is not None
        line += f" BANG! {_seat(puller, names)} is out and finishes {PLACE_WORDS[place - 1]}."
        if after.phase == Phase.OVER:
            winner = after.places.index(1)
            line += f" {_seat(winner, names)} is the last one standing and wins " \
                    f"({POINTS[after.n_seats][0]} points)."
        return line
    if isinstance(action, Disconnect):
        return f"{_seat(action.seat, names)} lost the connection; its moves are played automatically."
    if isinstance(action, Reconnect):
        return f"{_seat(action.seat, names)} is back and rejoins where it left off."
    if isinstance(action, LeaveTable):
        return f"{who} leaves the table and will earn no points; the match goes on."
    raise ValueError(f"not a Bluffers action: {action!r}")


def revolvers(s: Snapshot, names: Sequence[str]) -> str:
    """Every standing seat's revolver: its pulls so far and the risk of its next one."""
    return "Revolvers: " + ", ".join(
        f"{_seat(i, names)} {plural(s.chambers[i], 'pull')} (next: 1 in {CHAMBERS - s.chambers[i]})"
        for i in range(s.n_seats) if s.alive[i]) + "."


def _must_call(s: Snapshot, seat: Optional[int]) -> bool:
    if seat is None or not 0 <= seat < s.n_seats:
        return False
    with_cards = [i for i in range(s.n_seats) if s.alive[i] and s.hand_sizes[i] > 0]
    return with_cards == [seat] or (not with_cards and s.last_play is not None)


def _pull_result(before: Snapshot, after: Snapshot, names: Sequence[str]) -> list[str]:
    """Click or BANG, when the line completed a pull (the last share, or a withheld share's forfeit)."""
    pull = after.last_pull
    if pull is None or pull == before.last_pull:
        if after.phase == Phase.PULL and after.attempt > before.attempt:
            return [f"The shares given are void: {_seat(after.puller, names)}'s pull is re-run among the "
                    f"{len(after.contributors)} seats left, on fresh shares."]
        if after.phase == Phase.PULL:
            return [f"Shares {len(after.shares)} of {len(after.contributors)} given."]
        return []
    who = _seat(pull.seat, names)
    if not pull.fired:
        return [f"Click! {who} survives ({plural(after.chambers[pull.seat], 'pull')} so far; next time the risk is "
                f"1 in {CHAMBERS - after.chambers[pull.seat]}). Cards are collected; a new round is dealt."]
    place = after.places[pull.seat]
    return [f"BANG! {who} is out" + (f" and finishes {PLACE_WORDS[place - 1]}" if place else "") + "."]


# ---------------------------------------------------------------- the proven table's lines

def _line_seat(line: Mapping[str, Any], names: Sequence[str]) -> str:
    return seat_name(line.get("seat"), names, "The table")


class TableText:
    """The engine's text for Bluffers: the rules page, one line per transcript line (from
    the line alone), and the terminal prompt."""

    RULES = RULES_TEXT

    @staticmethod
    def hand_words(obs: Any) -> str:
        """The seat's own hand, for its review (``games/engine/review.py``)."""
        return "your hand: " + (", ".join(card_name(c) for c in sorted(obs.hand)) if obs.hand else "empty")

    @staticmethod
    def describe(line: Mapping[str, Any], names: Sequence[str]) -> str:
        kind, data, who = line.get("action"), line.get("data") or {}, _line_seat(line, names)
        proofs = line.get("proofs")
        stated = [p.get("statement") for p in proofs if isinstance(p, dict)] if isinstance(proofs, list) else []
        tag = f"  [{', '.join(str(x).split('@')[0] for x in stated if x)}]" if any(stated) else ""
        said = describe_line(str(kind), data, who, names)
        if said is not None:
            return said
        if kind == "commit_seed":
            return f"{who} loads its revolver (seed committed)." + tag
        if kind == "draw":
            return f"The table card is drawn from everyone's entropy: the {DECK.rank_names[data['table_card']]}." + tag
        if kind == "deal":
            dealt = ", ".join(names[i] for i in data["seats"])
            return f"5 cards each to {dealt}, dealt inside the proof." + tag
        if kind == "play":
            return f"{who} plays {_cards(data['count'])} face down." + tag
        if kind == "call_bluff":
            return f"{who} calls bluff!"
        if kind == "timeout":
            return f"{names[data['seat']]}'s 30 seconds ran out."
        if kind == "forfeit":
            return (f"{names[data['seat']]} did not make a move only it can make in time: out of the match, "
                    f"no points; the round ends (a share it owed of another seat's pull: that pull is re-run "
                    f"among the others on fresh shares).")
        if kind == "auto_move":  # a card carries its pick's proof; the forced call none
            how = "time ran out" if data["reason"] == "timeout" else "away"
            did = ("one card, picked by the seat's own committed seed, is played face down." if proofs
                   else "the only one with cards, it calls bluff.")
            return f"{who} ({how}): {did}" + tag
        if kind == "shed":
            return f"{who} proves its hand without that card." + tag
        if kind == "sealed_move":
            return (f"{names[data['seat']]} (time ran out): the referee plays the automatic card it sealed in "
                    f"advance; its own proofs and signature are on the line.")
        if kind == "reveal":
            cards = ", ".join(card_name(c) for c in data["cards"])
            return f"{who} turns over {cards}."
        if kind == "share":
            return f"{who} gives its proven share of the pull." + tag
        if kind == "disconnect":
            return f"{names[data['seat']]} lost the connection; its own agent plays for it."
        if kind == "reconnect":
            return f"{names[data['seat']]} is back where it left off."
        if kind == "leave_table":
            return f"{who} leaves the table: no points from this match."
        if kind == "end":
            places = data.get("placements", [])
            scores = data["scores"]
            return "Final: " + ", ".join(f"{names[i]} {PLACE_WORDS[p - 1]} ({plural(scores[i], 'point')})"
                                         for i, p in enumerate(places)) + f". {data.get('reason', '')}"
        return f"{who}: {kind}"

    @staticmethod
    def time_up(rules: Any, seat: int) -> str:
        """What the referee's clock does when ``seat``'s 30 seconds run out."""
        if rules.must_call(seat):
            return "the call is made for you (you are the only one with cards)"
        return "one card your own committed seed picks is played for you"

    @staticmethod
    def snapshot(rules: BluffersRules) -> Snapshot:
        """The public state the narration reads (:mod:`zkbluff.games.engine.narration`)."""
        return rules.public_state()

    @staticmethod
    def outcome(line: Mapping[str, Any], before: Snapshot, after: Snapshot, names: Sequence[str]) -> list[str]:
        """What a line decided, from the public state before and after it: the verdict of a
        call and who pulls, click or BANG, who is out, the winner, whose turn, every seat's
        revolver at a new round."""
        kind, data = line.get("action"), line.get("data") or {}
        nm = list(names)
        out: list[str] = []
        if kind == "deal":
            out.append(f"Round {after.round}: {_seat(after.to_move, nm)} starts. " + revolvers(after, nm))
        elif kind in ("play", "auto_move", "sealed_move") and after.phase == Phase.TURN:
            if after.last_play is not None and after.hand_sizes[after.last_play.seat] == 0:
                out.append(f"{_seat(after.last_play.seat, nm)} has no cards left.")
            if after.to_move is not None:
                forced = " (the only one with cards: must call bluff)" if _must_call(after, after.to_move) else ""
                out.append(f"{_seat(after.to_move, nm)} to move{forced}.")
        elif kind in ("call_bluff", "auto_move") and after.phase == Phase.REVEAL and before.last_play is not None:
            out.append(f"{_seat(before.last_play.seat, nm)} must turn the "
                       f"{_cards(before.last_play.count)} over.")
        elif kind == "reveal" and after.puller is not None:
            chamber = after.chambers[after.puller]
            verdict = ("All matched: the claim was true" if all(after.matched)
                       else "Not all matched: the lie is caught")
            out.append(f"{verdict}. {_seat(after.puller, nm)} pulls the trigger (chamber {chamber + 1} of "
                       f"{CHAMBERS}, risk 1 in {CHAMBERS - chamber}); every standing seat gives its proven share.")
        elif kind == "timeout":
            seat = data.get("seat")
            out.append(f"{_seat(seat, nm)}'s move is now automatic: " +
                       ("it must call, so the call is made for it." if _must_call(after, seat) else
                        "one card, picked by the seat's own committed seed, is played."))
        if kind in ("share", "forfeit"):
            out += _pull_result(before, after, nm)
        if kind == "forfeit":
            seat = data.get("seat")
            place = after.places[seat] if isinstance(seat, int) else None
            if place is not None:
                out.insert(0, f"{_seat(seat, nm)} is out, {PLACE_WORDS[place - 1]} with no points"
                              + ("; the round is void." if before.phase != Phase.COMMIT else "."))
        if kind in ("share", "forfeit", "leave_table") and after.phase == Phase.OVER \
                and before.phase != Phase.OVER:
            winner = after.places.index(1)
            out.append(f"{_seat(winner, nm)} is the last one standing and wins.")
        return out

    @staticmethod
    def prompt(obs: Any, ask: Callable[[str], str], say: Callable[[str], None], names: Sequence[str]) -> Any:
        """On the seat's own turn, ask which cards to play, c to call, or leave to leave the
        table (seed: no points from the match; the seat is then played automatically to
        the end); anything else due from it (a reveal, a share, an automatic card) is made
        without asking."""
        from zkbluff.errors import MalformedInput
        from zkbluff.games.bluffers.moves import PlayCards, Proceed

        if obs.due != "turn":
            return Proceed()
        s = obs.state
        assert s.table_card is not None
        hand = ", ".join(f"{i + 1}:{card_name(c)}" for i, c in enumerate(obs.hand))
        last = ""
        if s.last_play is not None:
            last = f"; {names[s.last_play.seat]} claimed {claim_words(s.last_play.count, s.table_card)}"
        say(f"Round {s.round}, table card {DECK.rank_names[s.table_card]}{last}; your revolver has had "
            f"{plural(s.chambers[obs.seat], 'pull')}. Your hand: {hand}")
        can_call = any(isinstance(a, CallBluff) for a in obs.legal)
        text = ask("positions to play, or card names (e.g. 1 3 or K J)" + (", c to call bluff" if can_call else "")
                   + ", or leave to leave the table (no points)").strip()
        if text.lower() in ("c", "call") and can_call:
            return CallBluff()
        if text.lower() in ("leave", "leave table"):
            return LeaveTable()
        from zkbluff.games.engine.card_input import parse_cards

        picks = parse_cards(text, obs.hand, card_names, label=card_name,
                            example="1 3 or K J" + (", or c to call bluff" if can_call else ""))
        if len(picks) > 3:
            raise MalformedInput(f"play 1 to 3 cards at a time; you named {len(picks)}")
        return PlayCards(picks)
