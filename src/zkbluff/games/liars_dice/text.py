"""Liar's Dice in words: the rules page (RULES.md beside this module), each transcript line
as a sentence, what follows from it (:func:`outcome`, through the engine's
:class:`~zkbluff.games.engine.narration.Narrator`), and the prompt that turns a person's
typing into an intent. No I/O of its own: the CLI passes ``ask`` and ``say``."""
from __future__ import annotations

from importlib.resources import files
from typing import Any, Callable, Mapping, Sequence

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.liars_dice.moves import BidIntent, CountIntent, DudoIntent, Observation
from zkbluff.games.liars_dice.rules import FACES, Phase, State, bid_above

FACE_WORDS = ("", "1s", "2s", "3s", "4s", "5s", "6s")
DIE_FACES = ("", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅")


def rules_text() -> str:
    """The rules page (``RULES.md`` next to this module), for ``zkbluff rules liars-dice``."""
    return files("zkbluff.games.liars_dice").joinpath("RULES.md").read_text(encoding="utf-8")


def _name(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"


def dice_words(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def bid_words(quantity: int, face: int) -> str:
    return f"{quantity} x {FACE_WORDS[face] if 1 <= face <= FACES else face}"


class _Text:
    RULES = rules_text()

    @staticmethod
    def describe(line: Mapping[str, Any], names: Sequence[str]) -> str:
        kind, seat, data = line.get("action"), line.get("seat"), line.get("data")
        d: Mapping[str, Any] = data if isinstance(data, dict) else {}
        who = _name(names, seat)
        if kind == "header":
            return "the table is set: " + ", ".join(names)
        if kind == "roll.commit":
            return f"{who} commits its entropy for round {d.get('round')}"
        if kind == "roll.open":
            return f"{who} opens its entropy for round {d.get('round')}"
        if kind == "roll.dice":
            return f"{who} proves its roll of round {d.get('round')} (dice committed, none shown)"
        if kind == "roll.timeout":
            return f"the referee times out {_name(names, d.get('seat')) if d.get('seat') is not None else 'the dealer'}" \
                   f": no {d.get('line')} by the deadline"
        if kind == "roll":
            return f"round {d.get('round')}: the dice are rolled"
        if kind == "bid":
            return f"{who} claims {bid_words(int(d.get('quantity', 0)), int(d.get('face', 0)))}"
        if kind == "dudo":
            return f"{who} calls Dudo!"
        if kind == "count":
            return f"{who} proves a count of {d.get('count')} for the bid face"
        if kind == "timeout":
            return f"the referee's clock runs out for {_name(names, d.get('seat'))}"
        if kind == "end":
            return f"the match is over: {d.get('reason', '')}"
        return f"{who}: {kind}"

    @staticmethod
    def outcome(line: Mapping[str, Any], before: State, after: State, names: Sequence[str]) -> list[str]:
        if before is after or not isinstance(after, State):
            return []
        out: list[str] = []
        if after.last is not None and after.last != before.last:
            e = after.last
            if e.void:
                out.append(f"{_name(names, e.loser)} is out of the match; the round is void")
            else:
                out.append(f"{e.total} counted for {bid_words(e.quantity, e.face)}: "
                           f"{_name(names, e.loser)} loses a die ({dice_words(after.dice[e.loser])} left)")
                if after.dice[e.loser] == 0:
                    out.append(f"{_name(names, e.loser)} is out")
        if after.phase is Phase.OVER and after.standing:
            out.append(f"{_name(names, after.standing[0])} wins with {dice_words(after.dice[after.standing[0]])} left")
        elif after.phase is Phase.BID and before.phase is not Phase.BID and after.to_move is not None:
            out.append(f"{_name(names, after.to_move)} starts the bidding ({dice_words(after.in_play)} in play)")
        return out

    @staticmethod
    def time_up(rules: Any, seat: int) -> str:
        return "you are out of the match and the round is rolled again"

    @staticmethod
    def prompt(obs: Observation, ask: Callable[[str], str], say: Callable[[str], None],
               names: Sequence[str]) -> Any:
        s = obs.state
        if s.phase is Phase.COUNT:
            say("your client proves your count of the bid face (no die is shown)")
            return CountIntent()
        dice = " ".join(DIE_FACES[d] + str(d) for d in sorted(obs.dice))
        last = f"last bid {bid_words(s.bid[0], s.bid[1])} by {_name(names, s.bid[2])}" if s.bid else "no bid yet"
        typed = ask(f"[round {s.round}, {s.in_play} dice in play, ones {'wild' if s.wild else 'not wild'}] "
                    f"your dice: {dice}; {last}. Bid 'QUANTITY FACE' (e.g. '3 5')"
                    + (" or 'dudo'" if s.bid else "")).strip().lower()
        if typed in ("dudo", "d", "call", "liar"):
            if s.bid is None:
                raise IllegalMove("dudo: there is no bid to doubt yet")
            return DudoIntent()
        parts = typed.replace("x", " ").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise MalformedInput("type a bid as two numbers, quantity then face (e.g. '3 5'), or 'dudo'")
        quantity, face = int(parts[0]), int(parts[1])
        if not 1 <= face <= FACES or not bid_above(quantity, face, s.bid):
            raise IllegalMove(f"bid: {bid_words(quantity, face)} is not a face 1..6 above the last bid")
        return BidIntent(quantity, face)


TEXT = _Text
