"""Liar's Dice (Perudo) as an engine spec: its statements (``statements.py``), its roll
(``roll.py``: a deal scheme in which each seat proves its own dice), its actions and who
makes them, the proof a count carries and what the table pins, a seat's intents, its
observation, bots and text."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT, Action, Rules
from zkbluff.games.engine.spec import GameSpec, LazyAttribute, Move, ProofDemand
from zkbluff.games.liars_dice.roll import DiceRoll, RollPublic
from zkbluff.games.liars_dice.rules import END_CODES, START_DICE, Bid, Count, Dudo, LiarsDiceRules, Phase, Roll, Timeout
from zkbluff.games.liars_dice.statements import COUNT_ID, ROLL_ID, count_face, unpack_dice


@dataclass
class Ledger:
    """The public commitments the table holds: each seat's dice commitment of the round
    (None for a seat out) and the roll's public state."""

    dice: list[Optional[int]] = field(default_factory=list)
    deal: Any = field(default_factory=RollPublic)


class LiarsDiceSpec(GameSpec):
    game = "liars-dice"
    title = "Liar's Dice (Perudo)"
    actions: ClassVar[tuple[type[Action], ...]] = (Roll, Bid, Dudo, Count, Timeout)
    #: the end reason codes (the rules' table): the end line's ``code`` under rules /1
    end_codes = END_CODES
    #: ``players`` 2..6; ``wild``: ones are wild (Perudo's rule, on by default); ``dice``: a
    #: seat's dice at the start (five; fewer for a short table)
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "players": ("2", "3", "4", "5", "6"), "wild": ("on", "off"), "dice": ("5", "4", "3", "2", "1")}
    default_options: ClassVar[Mapping[str, str]] = {"players": "2", "wild": "on", "dice": str(START_DICE)}
    house_bot = LazyAttribute("zkbluff.games.liars_dice.bot:HouseBot")
    random_bot = LazyAttribute("zkbluff.games.liars_dice.bot:RandomBot")
    text = LazyAttribute("zkbluff.games.liars_dice.text:TEXT")

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.n_seats = int(self.options["players"])
        self.wild = self.options["wild"] == "on"
        self.start_dice = int(self.options["dice"])
        self.deal: DiceRoll = DiceRoll(self.n_seats)

    # ---- the public side
    def statements(self) -> list[str]:
        return [ROLL_ID, COUNT_ID]

    def new_rules(self) -> LiarsDiceRules:
        return LiarsDiceRules(self.n_seats, self.wild, self.start_dice)

    def new_ledger(self, header: Mapping[str, Any]) -> Ledger:
        return Ledger([None] * self.n_seats, self.deal.new_public())

    def demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> list[ProofDemand]:
        assert isinstance(rules, LiarsDiceRules)
        if isinstance(action, Roll):
            self.deal.dice_commitments(ledger, action.round)  # every seat still in has proven its roll
            return []
        if isinstance(action, Count):
            bid = rules.s.bid
            assert bid is not None and seat is not None
            commitment = ledger.dice[seat]
            if commitment is None:
                raise IllegalMove(f"count: seat {seat} holds no dice commitment this round")
            return [ProofDemand(COUNT_ID, {"dice_commitment": commitment, "face": bid[1], "wild": int(rules.s.wild),
                                           "count": action.count})]
        return []

    def record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        if isinstance(action, Roll):
            ledger.dice = self.deal.dice_commitments(ledger, action.round)

    def timeout(self, rules: Rules) -> Optional[tuple[Action, Any]]:
        assert isinstance(rules, LiarsDiceRules)
        seat = rules.to_move
        if rules.over or seat is NO_SEAT:
            return None
        return Timeout(seat), ("proof" if rules.s.phase is Phase.COUNT else "idle")

    # ---- the seat side
    def new_private(self) -> dict[str, Any]:
        return {"round": 0, "dice": 0, "salt": "0"}

    def own_dice(self, private: Mapping[str, Any], rules: LiarsDiceRules) -> tuple[int, ...]:
        if private.get("round") != rules.s.round or rules.s.phase is Phase.ROLL:
            return ()
        return tuple(d for d in unpack_dice(int(private["dice"])) if d)

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        from zkbluff.games.liars_dice.moves import BidIntent, CountIntent, DudoIntent

        assert isinstance(rules, LiarsDiceRules)
        if isinstance(intent, BidIntent):
            action: Action = Bid(intent.quantity, intent.face)
        elif isinstance(intent, DudoIntent):
            action = Dudo()
        elif isinstance(intent, CountIntent):
            bid = rules.s.bid
            if bid is None or rules.s.phase is not Phase.COUNT:
                raise IllegalMove("count: no dudo was called")
            if private.get("round") != rules.s.round:
                raise IllegalMove(f"count: seat {seat} holds no dice of round {rules.s.round}")
            pack = int(private["dice"])
            count = count_face(unpack_dice(pack), bid[1], rules.s.wild)
            rules.check(seat, Count(count))
            return Move(Count(count), ({"dice": pack, "dice_salt": int(private["salt"]), "face": bid[1],
                                        "wild": int(rules.s.wild), "count": count},))
        else:
            raise MalformedInput(f"liar's dice: not an intent: {intent!r:.80}")
        rules.check(seat, action)
        return Move(action)

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        out = dict(private)
        if isinstance(action, Roll):
            try:
                pack, salt = self.deal.seat_dice(deal_secrets, seat, action.round)
            except Exception:  # a seat out of the match rolled nothing
                return out
            out.update(round=action.round, dice=pack, salt=str(salt))
        return out

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> Any:
        from zkbluff.games.liars_dice.moves import Observation

        assert isinstance(rules, LiarsDiceRules)
        return Observation(seat, rules.public_state(), self.own_dice(private, rules),
                           tuple(rules.legal_actions(seat)))

    # ---- the dealer side
    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Ledger, match_id: str,
                    line: int) -> Optional[Move]:
        """The round's ``roll`` line once every seat still in has proven its roll; None
        while the roll is under way (the seats' own lines)."""
        assert isinstance(rules, LiarsDiceRules)
        w = rules.s.round + 1
        if rules.s.phase is not Phase.ROLL or not self.deal.complete(ledger, w):
            return None
        return Move(Roll(w))


#: this game's transcript vector bases (vectors/transcripts/generate.py finds them here): name,
#: game, options, seed
TRANSCRIPT_BASES = (
    ("liars-dice-2", "liars-dice", {"players": "2"}, 23),
    ("liars-dice-3", "liars-dice", {"players": "3", "dice": "2", "wild": "off"}, 24),
)
