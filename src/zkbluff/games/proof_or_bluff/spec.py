"""Proof or Bluff as two engine specs: the classic table (``proof-or-bluff``) and 5 Up 2
Down (``five-up-two-down``). Each names its statements, its deal, its actions and who
makes them, the proof each action carries and the publics the table pins, how a seat
turns an intent into an action and its proof inputs, its observation, bots and text.
Nothing here branches on a table kind: each table is its own class."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Optional

from zkbluff.errors import IllegalMove, MalformedInput
from zkbluff.games.engine.rules import NO_SEAT, Action, Rules
from zkbluff.games.engine.oblivious_deal import ObliviousDeal
from zkbluff.games.engine.spec import GameSpec, LazyAttribute, Move, ProofDemand
from zkbluff.games.proof_or_bluff.rules import (
    DECK, END_CODES, FIVE_UP_BOARD, FIVE_UP_HAND, MAX_NAMES, MAX_PLAY, MODES, N_RANKS, PROVE, Accept, Challenge, Claim,
    ClassicDeal, ClassicRules, FiveUpDeal, FiveUpRules, Play, ProveLies, ProveVerdict, Timeout, TimeLimit,
)
from zkbluff.protocol.commit_reveal import fresh_salt
from zkbluff.statements.cards import NO_RANK, claim_statement, lies_native, match_statement, play_statement
from zkbluff.statements.deal import deal_v2_statement

if TYPE_CHECKING:
    from zkbluff.games.proof_or_bluff.moves import ClassicObservation, FiveUpObservation

# A verifier imports none of the seat side: the dealer's deal (``proven_deal``, with its sealed
# channel) is imported when a table deals that way, the intents and observations (``moves``)
# when a seat moves, the bots and the terminal text (``LazyAttribute``) when first asked for.

PLAY_ID = play_statement(DECK.size, MAX_PLAY).key_id
CLAIM_ID = claim_statement(DECK.size).key_id
MATCH_ID = match_statement().key_id
#: the house plays seat 1 (the player is seat 0, player one) and deals: entropy contributor
#: 0 is the house as dealer, contributor 1 the player
HOUSE_SEAT = 1
FIVE_UP_DEAL_ID = deal_v2_statement(DECK.size, (FIVE_UP_HAND, FIVE_UP_HAND), FIVE_UP_BOARD, entropies=2).key_id


#: the deal modes (the ``deal`` option) and the default
DEALS = ("oblivious", "dealer", "house-blind")
#: oblivious: its whole first deal (7+7, four exchange lines, every party checking) costs
#: 1.5 s of CPU on this machine class (benchmarks/results.md), under the 2 s bar
DEFAULT_DEAL = "oblivious"


def classic_deal_id(hand_size: int) -> str:
    return deal_v2_statement(DECK.size, (hand_size, hand_size), entropies=2).key_id


@dataclass
class Ledger:
    """The public commitments the table holds: each seat's hand, the last play, and the
    deal's public state (the entropy lines, the deals: :class:`DealPublic`)."""

    hands: list[Optional[int]] = field(default_factory=lambda: [None, None])
    play: Optional[int] = None
    deal: Any = field(default_factory=lambda: _deal_public())  # DealPublic or ObliviousPublic (the referee sets it)


def _deal_public() -> Any:
    from zkbluff.games.engine.proven_deal import DealPublic

    return DealPublic()


class _ProofOrBluffSpec(GameSpec):
    n_seats = 2
    #: the end reason codes (the rules' table): the end line's ``code`` under rules /1
    end_codes = END_CODES
    #: ``deal``: ``oblivious`` (the two seats deal between themselves: the house sees no hand
    #: but its own seat's) or ``dealer`` (the house deals in proof and could see both hands)
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {"mode": tuple(MODES), "deal": DEALS}
    default_options: ClassVar[Mapping[str, str]] = {"mode": "standard", "deal": DEFAULT_DEAL}
    deal: Any  # ProvenDeal or ObliviousDeal

    def _make_deal(self, hand: int, board: int = 0) -> Any:
        if self.options["deal"] == "oblivious":  # the house's seat holds the deck, player one chooses
            return ObliviousDeal(self.game, hand, board, deck_seat=HOUSE_SEAT, chooser_seat=1 - HOUSE_SEAT)
        if self.options["deal"] == "house-blind":  # both seats shuffle; each card opens to its seat alone
            from zkbluff.games.engine.house_blind_deal import HouseBlindDeal, hands_then

            owners = hands_then((0, 1), hand, DECK.size, board)

            def wanted(view: Any) -> Optional[tuple[int, tuple[int, ...]]]:
                if view.rules.to_move is not None:
                    return None
                return int(view.rules.public_state().round) + 1, owners
            return HouseBlindDeal(self.game, self.n_seats, DECK.size, wanted, (hand,))
        from zkbluff.games.engine.proven_deal import ProvenDeal

        return ProvenDeal(self.game, self.n_seats, (hand, hand), board, dealer_seat=HOUSE_SEAT)

    @property
    def oblivious(self) -> bool:
        """Whether the seats deal between themselves (the oblivious or the house-blind deal: the
        same interface), not the house's dealer."""
        return self.options["deal"] != "dealer"

    def _deal_ids(self) -> list[str]:
        return self.deal.statement_ids if self.oblivious else [self.deal.statement_id]

    def _deal_demand(self, ledger: "Ledger", round_no: int, board: int, sealed: tuple[str, ...]) -> list[ProofDemand]:
        if self.oblivious:
            self.deal.demand(ledger, round_no, board, sealed)
            return []
        return [self.deal.demand(ledger, round_no, board, sealed)]

    def _start_draw(self, ledger: "Ledger") -> int:
        if self.oblivious:
            return int(self.deal.starting_draw(ledger, N_RANKS))
        from zkbluff.games.engine.proven_deal import starting_draw

        return starting_draw(ledger, N_RANKS)

    @property
    def mode(self) -> str:
        return self.options["mode"]

    def new_ledger(self, header: Mapping[str, Any]) -> Ledger:
        return Ledger(deal=self.deal.new_public())  # the deal's own public state (what the referee sets)

    def new_private(self) -> dict[str, Any]:
        return {"hand": 0, "salt": 0, "play": 0, "playSalt": 0}

    def _record_deal(self, ledger: Ledger, round_no: int, publics: list[dict[str, int]]) -> None:
        ledger.hands = self.deal.hand_commitments(ledger, round_no) if self.oblivious else \
            [publics[0][f"hand{i}_commitment"] for i in range(self.n_seats)]
        ledger.play = None

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        if isinstance(action, (ClassicDeal, FiveUpDeal)):
            hand, salt = self.deal.seat_hand(deal_secrets, seat, action.round) if self.oblivious else \
                self.deal.seat_open(deal_secrets, seat, match_id, event["n"], action.sealed_hands[seat], publics[0])
            return {**private, "hand": hand, "salt": salt, "play": 0, "playSalt": 0}
        return dict(private)

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        seat = rules.to_move
        if rules.over or seat is NO_SEAT:
            return None
        limit = TimeLimit.PROOF if rules.public_state().phase == PROVE else TimeLimit.IDLE
        return Timeout(seat, limit.value), limit.value

    def _common_move(self, intent: Any) -> Move:
        if isinstance(intent, (Accept, Challenge)):
            return Move(intent)
        raise MalformedInput(f"{self.game}: {intent!r:.80} is not a move of this table")


class ClassicSpec(_ProofOrBluffSpec):
    game = "proof-or-bluff"
    title = "Proof or Bluff"
    actions = (ClassicDeal, Play, Accept, Challenge, ProveVerdict, Timeout)
    house_bot = LazyAttribute("zkbluff.games.proof_or_bluff.bot:ClassicHouseBot")
    random_bot = LazyAttribute("zkbluff.games.proof_or_bluff.bot:ClassicRandomBot")
    text = LazyAttribute("zkbluff.games.proof_or_bluff.text:ClassicText")

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.deal = self._make_deal(MODES[self.mode].hand_size)

    def statements(self) -> list[str]:
        return [*self._deal_ids(), PLAY_ID, CLAIM_ID]

    def new_rules(self) -> ClassicRules:
        return ClassicRules(MODES[self.mode])

    def demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> list[ProofDemand]:
        if isinstance(action, ClassicDeal):
            if action.round == 1 and action.starting_rank != self._start_draw(ledger):
                raise IllegalMove(f"deal: the starting rank is the deal's public draw "
                                  f"{self._start_draw(ledger)}, not {action.starting_rank!r}")
            return self._deal_demand(ledger, action.round, 0, action.sealed_hands)
        if isinstance(action, Play):
            assert seat is not None and ledger.hands[seat] is not None
            return [ProofDemand(PLAY_ID, {"old_hand_commitment": ledger.hands[seat],  # type: ignore[dict-item]
                                          "count": action.count})]
        if isinstance(action, ProveVerdict):
            assert isinstance(rules, ClassicRules) and rules.s.claim is not None and ledger.play is not None
            return [ProofDemand(CLAIM_ID, {"play_commitment": ledger.play,
                                           "rank_mask": DECK.rank_mask(rules.s.claim[2]),
                                           "verdict": int(action.verdict)})]
        return []

    def record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        if isinstance(action, ClassicDeal):
            self._record_deal(ledger, action.round, publics)
        elif isinstance(action, Play):
            assert seat is not None
            ledger.hands[seat] = publics[0]["new_hand_commitment"]
            ledger.play = publics[0]["play_commitment"]

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        from zkbluff.games.proof_or_bluff.moves import PlayCards, ProveClaim

        assert isinstance(rules, ClassicRules)
        if isinstance(intent, PlayCards):
            if not isinstance(intent.cards, (tuple, list)):
                raise MalformedInput(f"play: a list of card ids, got {intent.cards!r}")
            mask = DECK.mask(intent.cards, "play")  # a card listed twice: MalformedInput
            play = Play(len(intent.cards), rules.s.required_rank)
            rules.check(seat, play)  # 0 or 5 cards, out of turn: IllegalMove
            if mask & ~private["hand"]:
                raise IllegalMove("play: you can only play cards from your own hand")
            new_salt, play_salt = fresh_salt(), fresh_salt()
            return Move(play, ({"old_hand": private["hand"], "old_salt": private["salt"], "play": mask,
                                "play_salt": play_salt, "new_salt": new_salt},),
                        {"hand": private["hand"] & ~mask, "salt": new_salt, "play": mask, "playSalt": play_salt})
        if isinstance(intent, ProveClaim):
            s = rules.s
            if s.phase != PROVE or s.claim is None or s.to_move != seat:
                raise IllegalMove(f"prove: not expected from seat {seat} now")
            mask = DECK.rank_mask(s.claim[2])
            verdict = private["play"] & ~mask == 0
            return Move(ProveVerdict(verdict), ({"play": private["play"], "play_salt": private["playSalt"],
                                                 "rank_mask": mask},))
        if isinstance(intent, (Play, ProveVerdict)):
            raise MalformedInput(f"{intent.kind}: a seat says which cards (PlayCards) or asks to prove "
                                 f"(ProveClaim); the count and the verdict follow from its cards")
        return self._common_move(intent)

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> "ClassicObservation":
        from zkbluff.games.proof_or_bluff.moves import ClassicObservation

        return ClassicObservation(seat, rules.public_state(), tuple(DECK.cards(private["hand"])),
                                  tuple(rules.legal_actions(seat)))

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Ledger, match_id: str,
                    line: int) -> Optional[Move]:
        round_no = rules.public_state().round + 1
        if self.oblivious:  # the seats' exchange committed the hands; none until it is complete
            if not self.deal.complete(ledger, round_no):
                return None
            return Move(ClassicDeal(round_no, self._start_draw(ledger) if round_no == 1 else None, ()))
        _, _, inputs, sealed = self.deal.deal_round(dealer, round_no, line)
        start = self._start_draw(ledger) if round_no == 1 else None
        return Move(ClassicDeal(round_no, start, sealed), (inputs,))


class FiveUpSpec(_ProofOrBluffSpec):
    game = "five-up-two-down"
    title = "5 Up 2 Down"
    actions = (FiveUpDeal, Claim, Accept, Challenge, ProveLies, Timeout)
    house_bot = LazyAttribute("zkbluff.games.proof_or_bluff.bot:FiveUpHouseBot")
    random_bot = LazyAttribute("zkbluff.games.proof_or_bluff.bot:FiveUpRandomBot")
    text = LazyAttribute("zkbluff.games.proof_or_bluff.text:FiveUpText")

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.deal = self._make_deal(FIVE_UP_HAND, FIVE_UP_BOARD)

    def statements(self) -> list[str]:
        return [*self._deal_ids(), MATCH_ID]

    def new_rules(self) -> FiveUpRules:
        return FiveUpRules(self.mode)

    @staticmethod
    def _names(names: tuple[int, ...]) -> list[int]:
        return list(names) + [NO_RANK] * (MAX_NAMES - len(names))

    def demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> list[ProofDemand]:
        if isinstance(action, FiveUpDeal):
            return self._deal_demand(ledger, action.round, action.board, action.sealed_hands)
        if isinstance(action, ProveLies):
            assert isinstance(rules, FiveUpRules) and rules.s.claim is not None and seat is not None
            n1, n2 = self._names(rules.s.claim[1])
            return [ProofDemand(MATCH_ID, {"hand_commitment": ledger.hands[seat],  # type: ignore[dict-item]
                                           "board": rules.s.board, "name1": n1, "name2": n2, "lies": action.lies})]
        return []

    def record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        if isinstance(action, FiveUpDeal):
            self._record_deal(ledger, action.round, publics)

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        from zkbluff.games.proof_or_bluff.moves import ProveClaim

        assert isinstance(rules, FiveUpRules)
        if isinstance(intent, Claim):
            return Move(Claim(tuple(sorted(intent.names))) if all(isinstance(n, int) for n in intent.names)
                        else intent)
        if isinstance(intent, ProveClaim):
            s = rules.s
            if s.phase != PROVE or s.claim is None or s.to_move != seat:
                raise IllegalMove(f"prove: not expected from seat {seat} now")
            n1, n2 = self._names(s.claim[1])
            lies = lies_native(private["hand"], s.board, n1, n2)
            return Move(ProveLies(lies), ({"hand": private["hand"], "hand_salt": private["salt"], "board": s.board,
                                           "name1": n1, "name2": n2},))
        if isinstance(intent, ProveLies):
            raise MalformedInput("prove: a seat asks to prove (ProveClaim); the lie count follows from its cards")
        return self._common_move(intent)

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> "FiveUpObservation":
        from zkbluff.games.proof_or_bluff.moves import FiveUpObservation

        return FiveUpObservation(seat, rules.public_state(), tuple(DECK.cards(private["hand"])),
                                 tuple(rules.legal_actions(seat)))

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Ledger, match_id: str,
                    line: int) -> Optional[Move]:
        round_no = rules.public_state().round + 1
        if self.oblivious:
            if not self.deal.complete(ledger, round_no):
                return None
            return Move(FiveUpDeal(round_no, self.deal.board(ledger, round_no), ()))
        _, board, inputs, sealed = self.deal.deal_round(dealer, round_no, line)
        return Move(FiveUpDeal(round_no, board, sealed), (inputs,))
