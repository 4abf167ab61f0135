"""Cheat (seed 004) as an engine spec: 3..6 seats, the whole deck dealt in proof, a
calling window on the referee's clock, the last play turned over in public, the pile
taken with a proven pick-up.

Options (strings, as every header's): ``players`` 3..6, ``hands`` 3/5/7, ``window`` 1/3/5/7
seconds.

The deal is the engine's :class:`~zkbluff.games.engine.proven_deal.ProvenDeal` (``card.deal.v2``):
the dealer (the house, not a seat) commits its entropy first, every seat then sends its own on
its ``entropy.seat`` line (with its opening sealed to the dealer and, as Cheat's extra key, its
*pile* key), and each hand is dealt inside a proof from all of them with ``round`` = the hand's
number. Hand k of the statement is seat ``deal_order(n, dealer)[k]``, so one statement serves
every dealer. A seat whose sealed hand does not open writes a ``complaint`` line and any
verifier finds the dealer at fault. Nothing is revealed after the match: the set-aside piles
stay secret forever.

What each line proves or opens:

- ``play``: ``card.play.v1`` (cards from the committed hand, ``count`` of them; the new
  hand commitment and the play commitment are recorded).
- ``reveal``: the play's cards and salt, checked against the play's commitment by
  everyone (Poseidon recomputed, :func:`open_play`); no proof needed.
- ``hand_over``: each seat that made an earlier play of the pile seals its openings to the
  picker under a key of this hand-over alone: a fresh ephemeral ``R = k G`` on BN254's G1 with
  the sender's proof of knowing ``k``, the key hashed from ``k P`` (``P`` the picker's pile key
  from its ``entropy.seat`` line) and the hand-over's binding (match, called play, sender,
  picker), AES-GCM. The picker checks each opening against the play's public commitment before
  proving.
- ``dispute``: a picker whose hand-over does not open discloses that hand-over's key point
  ``x R`` with a Chaum–Pedersen proof against its pile key (:mod:`zkbluff.protocol.dleq`):
  anyone opens that one hand-over and checks it; every other hand-over of the match, to or
  from the picker, stays sealed (the uncalled plays in them stay secret forever).
- ``pick_up``: ``card.absorb_many.v1`` over four plays per line, chained (each line's old
  hand is the previous one's new hand): the new hand is the old hand plus exactly the
  pile's cards, all disjoint.

Counts are public and each hand change is a proof, so at every line the hands, the pile
and the set-aside cards are the deck.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.cheat import text
from zkbluff.games.cheat.engine_bot import CheatEngineBot, RandomEngineBot
from zkbluff.games.cheat.match import (
    PICKUP_SLOTS, CheatTable, Dispute, HandOver, OpenedReveal, PickUpPart, SealedDeal, Stage,
)
from zkbluff.games.cheat.moves import CallBluff, CheatObservation, PassTurn, PlayCards, Proceed
from zkbluff.games.cheat.rules import (
    DECK, END_CODES, HAND_COUNTS, MAX_SEATS, MIN_SEATS, WINDOW_SECONDS, Call, CloseWindow, Forfeit, Pass, Phase, Play,
    deal_order, deal_sizes,
)
from zkbluff.games.engine.house_blind_deal import KEY as HB_KEY, HouseBlindDeal, HouseBlindPublic, binding_of, full_deal
from zkbluff.games.engine.proven_deal import DEALER_LINE, SEAT_LINE, DealPublic, ProvenDeal, SeatKeyKind
from zkbluff.games.engine.rules import NO_SEAT, Action, Rules
from zkbluff.games.engine.spec import GameSpec, Move, ProofDemand
from zkbluff.gadgets.native import commit
from zkbluff.curve.codec import g1_to_bytes
from zkbluff.protocol import dleq
from zkbluff.protocol.commit_reveal import fresh_salt
from zkbluff.protocol.messages import open_sealed, seal
from zkbluff.games.cheat.statements import EMPTY_PLAY_COMMITMENT, open_play
from zkbluff.games.cheat.witness import ABSORB_KEY, PLAY_KEY

FIRST_DEALER = 0
#: Cheat's extra key on each seat's entropy line: the pile key (a G1 key), for openings between seats
PILE = "pile"
PILE_KEY = SeatKeyKind(dleq.public_hex, dleq.check_public_hex)


def cheat_deal(n_seats: int) -> ProvenDeal:
    """Cheat's deal for ``n_seats``: the whole deck, hand k to the k-th seat of the deal order
    (sizes never increase in that order, for every dealer), the house a dealer of no seat."""
    slots = tuple(sorted(deal_sizes(n_seats, n_seats - 1), reverse=True))
    return ProvenDeal(CheatSpec.game, n_seats, slots, deck=DECK.size, dealer_seat=None, seat_keys=(PILE,),
                      seat_key_kind=PILE_KEY)


#: the deal modes (the ``deal`` option): ``dealer`` (the zk dealer's deal in proof: the house could
#: see every hand) or ``house-blind`` (the seats deal between themselves: nobody sees a hand it
#: was not dealt; games/engine/house_blind_deal.py)
DEALS = ("dealer", "house-blind")
DEFAULT_DEAL = "dealer"


def _wanted(view: Any) -> Optional[tuple[int, tuple[int, ...]]]:
    """The house-blind round the rules wait for: the hand's number and who gets each position
    (the whole deck, from the seat next to the hand's dealer), or None."""
    rules = view.rules
    if rules.over or rules.stage != Stage.RULES or rules.game.phase != Phase.DEAL:
        return None
    n = rules.n_seats
    return rules.s.hand_no + 1, full_deal(n, DECK.size, deal_order(n, rules.s.dealer))


def cheat_house_blind_deal(n_seats: int) -> HouseBlindDeal:
    """Cheat's house-blind deal for ``n_seats``: the whole deck, the pile key on each seat's
    first key line."""
    base, extra = divmod(DECK.size, n_seats)
    return HouseBlindDeal(CheatSpec.game, n_seats, DECK.size, _wanted, (base, base + 1) if extra else (base,),
                          seat_keys=(PILE,))


def deal_key(n_seats: int) -> str:
    """The ``card.deal.v2`` key id for ``n_seats`` (hands in deal order, the dealer plus every seat contributing)."""
    return cheat_deal(n_seats).statement_id


def hand_over_tag(dealer_commitment: Any) -> str:
    """What a hand-over's key and sealing are bound to: the match, by the dealer's entropy
    commitment (fresh and random per match; on the table for any verifier)."""
    return f"cheat-hand-over:{dealer_commitment}"


def hand_over_context(dealer_commitment: Any, called: int, sender: int, picker: int) -> str:
    """What one hand-over is bound to: the match, the called play, the sender and the picker."""
    return f"{hand_over_tag(dealer_commitment)}:play {called}:seat {sender} to seat {picker}"


def hand_over_key(shared: dleq.Point, ephemeral: dleq.Point, context: str) -> bytes:
    """The AES key of one hand-over: SHA-256 of its binding, its ephemeral point and the shared
    point ``k P = x R`` (only the sender, the picker, and whoever the picker discloses this one
    point to, with its proof, hold it)."""
    return hashlib.sha256(b"zkbluff:cheat-hand-over:v1:" + context.encode() + g1_to_bytes(ephemeral)
                          + g1_to_bytes(shared)).digest()


def seal_hand_over(picker_key: str, dealer_commitment: Any, called: int, sender: int, picker: int,
                   payload: Mapping[str, Any]) -> HandOver:
    """``sender``'s hand-over of ``payload`` to ``picker`` (pile key ``picker_key``): a fresh
    ephemeral key, its proof of knowledge, the payload sealed under this hand-over's key."""
    k, context = dleq.fresh_scalar(), hand_over_context(dealer_commitment, called, sender, picker)
    ephemeral, shared = dleq.public_of(k), dleq.mul(dleq.point_of(picker_key, "the picker's pile key"), k)
    assert shared is not None
    sealed = seal(hand_over_key(shared, ephemeral, context), hand_over_tag(dealer_commitment), called, dict(payload))
    return HandOver(sealed, dleq.point_hex(ephemeral), dleq.prove_dlog(k, context))


def open_hand_over(shared: dleq.Point, hand_over: HandOver, dealer_commitment: Any, called: int, sender: int,
                   picker: int) -> dict[str, Any]:
    """The payload of a hand-over under its shared point (:class:`CommitmentMismatch` if it
    does not open)."""
    ephemeral = dleq.point_of(hand_over.ephemeral, "hand_over: ephemeral")
    key = hand_over_key(shared, ephemeral, hand_over_context(dealer_commitment, called, sender, picker))
    return open_sealed(key, hand_over_tag(dealer_commitment), called, hand_over.sealed)


def check_openings(got: Any, commitments: Mapping[Any, int], expected: Mapping[int, int],
                   sender: int) -> dict[str, Any]:
    """The openings a hand-over carried, checked: exactly the plays ``expected`` (play
    number -> count), each opening its commitment. :class:`CommitmentMismatch` otherwise."""
    plays = got.get("plays") if isinstance(got, dict) else None
    if not isinstance(plays, dict) or set(plays) != {str(no) for no in expected}:
        raise CommitmentMismatch(f"seat {sender}: its hand-over does not hold the openings of its plays "
                                 f"{sorted(expected)}")
    out = {}
    for no, count in expected.items():
        pair = plays[str(no)]
        if not isinstance(pair, list) or len(pair) != 2:
            raise CommitmentMismatch(f"seat {sender}: the opening of play {no} is not a mask and a salt")
        mask, salt = pair
        try:
            open_play(int(commitments[no]), mask, salt, count, DECK.size)
        except MalformedInput as exc:
            raise CommitmentMismatch(f"seat {sender}: play {no}: {exc}") from None
        out[str(no)] = [mask, salt]
    return out


def _int_text(v: str, what: str) -> int:
    if not isinstance(v, str) or not v.isdigit() or len(v) > 78:
        raise MalformedInput(f"{what}: a decimal string, got {v!r:.40}")
    return int(v)


@dataclass
class Ledger:
    """The public commitments the table holds, and the deal's public state (``deal``)."""

    n_seats: int
    hands: list[Optional[int]] = field(default_factory=list)
    plays: dict[int, int] = field(default_factory=dict)  # play number -> play commitment
    hand_overs: dict[int, HandOver] = field(default_factory=dict)  # seat -> its hand-over (this pick-up)
    next_play: int = 0
    deal: Any = field(default_factory=DealPublic)  # DealPublic or HouseBlindPublic (the referee sets it)

    def pile_key(self, seat: int) -> str:
        """``seat``'s pile key from its entropy line (a house-blind deal: its first key line)."""
        if isinstance(self.deal, HouseBlindPublic):
            return str(self.deal.seat_keys[seat][f"{PILE}Key"])
        return str(self.deal.seats[seat][f"{PILE}Key"])

    @property
    def dealer_commitment(self) -> int:
        """What the hand-overs are bound to: the dealer's entropy commitment (a house-blind
        deal: :func:`~zkbluff.games.engine.house_blind_deal.binding_of` the header)."""
        if isinstance(self.deal, HouseBlindPublic):
            assert self.deal.binding is not None
            return self.deal.binding
        assert self.deal.dealer is not None
        return int(self.deal.dealer["commitment"])


class CheatSpec(GameSpec):
    game = "cheat"
    title = "Cheat"
    #: the end reason codes (the rules' table): the end line's ``code`` under rules /1
    end_codes = END_CODES
    actions = (SealedDeal, Play, Pass, Call, CloseWindow, OpenedReveal, HandOver, PickUpPart, Dispute, Forfeit)
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "players": tuple(str(n) for n in range(MIN_SEATS, MAX_SEATS + 1)),
        "hands": tuple(str(n) for n in HAND_COUNTS),
        "window": tuple(str(n) for n in WINDOW_SECONDS),
        "deal": DEALS,
    }
    default_options: ClassVar[Mapping[str, str]] = {"players": "4", "hands": "3", "window": "3", "deal": DEFAULT_DEAL}
    house_bot = CheatEngineBot
    random_bot = RandomEngineBot
    text = text.CheatText
    deal: Any  # ProvenDeal or HouseBlindDeal

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.n_seats = int(self.options["players"])
        self.hands = int(self.options["hands"])
        self.window = int(self.options["window"])
        self.house_blind = self.options["deal"] == "house-blind"
        self.deal = cheat_house_blind_deal(self.n_seats) if self.house_blind else cheat_deal(self.n_seats)
        # an instance per match: it follows the lines it describes (the class has RULES for `zkbluff rules`)
        self.text = text.CheatText(self.n_seats, self.hands, self.window)  # type: ignore[assignment,misc]

    # ---- the public side
    def statements(self) -> list[str]:
        deal = self.deal.statement_ids if self.house_blind else [self.deal.statement_id]
        return [*deal, PLAY_KEY, ABSORB_KEY]

    def new_rules(self) -> CheatTable:
        return CheatTable(self.n_seats, self.hands, self.window, FIRST_DEALER, sealed=not self.house_blind)

    def new_ledger(self, header: Mapping[str, Any]) -> Ledger:
        return Ledger(self.n_seats, hands=[None] * self.n_seats)

    def demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> list[ProofDemand]:
        """Each Cheat action owes at most one proof."""
        one = self._demand(rules, ledger, seat, action)
        return [] if one is None else [one]

    def _demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> Optional[ProofDemand]:
        assert isinstance(rules, CheatTable)
        if isinstance(action, SealedDeal):
            if self.house_blind:  # the hands were bound on the deal's own lines: no proof here
                self.deal.demand(ledger, rules.s.hand_no + 1, 0, action.sealed_hands)
                return None
            proven: ProvenDeal = self.deal
            return proven.demand(ledger, rules.s.hand_no + 1, 0, action.sealed_hands, seats=action.seats)
        if isinstance(action, Play):
            assert seat is not None and ledger.hands[seat] is not None
            return ProofDemand(PLAY_KEY, {"old_hand_commitment": ledger.hands[seat],  # type: ignore[dict-item]
                                          "count": action.count})
        if isinstance(action, OpenedReveal):
            no = rules.pile_plays[-1]
            open_play(ledger.plays[no], DECK.mask(action.cards, "reveal"), _int_text(action.salt, "reveal: salt"),
                      len(action.cards), DECK.size)
            return None
        if isinstance(action, HandOver):
            self._check_hand_over(rules, ledger, seat, action)
            return None
        if isinstance(action, Dispute):
            self._judge_dispute(rules, ledger, seat, action)
            return None
        if isinstance(action, PickUpPart):
            assert seat is not None
            old = ledger.hands[seat]
            assert old is not None
            chunk = rules.pile_plays[PICKUP_SLOTS * action.part:PICKUP_SLOTS * (action.part + 1)]
            pinned = {"old_hand_commitment": old}
            for j in range(PICKUP_SLOTS):
                pinned[f"play{j}_commitment"] = ledger.plays[chunk[j]] if j < len(chunk) else EMPTY_PLAY_COMMITMENT
            return ProofDemand(ABSORB_KEY, pinned)
        return None

    @staticmethod
    def _earlier_plays(rules: CheatTable, sender: int) -> dict[int, int]:
        """``sender``'s plays in the pile before the called one: play number -> count."""
        return {no: count for no, (p, count) in zip(rules.pile_plays[:-1], rules.s.pile[:-1]) if p == sender}

    @staticmethod
    def _check_hand_over(rules: CheatTable, ledger: Ledger, seat: Optional[int], action: HandOver) -> None:
        """A hand-over's ephemeral is a G1 point whose sender proved it knows its key, for this
        hand-over (else a sender could reuse a multiple of another's and have a dispute open it)."""
        assert seat is not None and rules.s.picker is not None
        ephemeral = dleq.point_of(action.ephemeral, "hand_over: ephemeral")
        context = hand_over_context(ledger.dealer_commitment, rules.pile_plays[-1], seat, rules.s.picker)
        dleq.check_dlog(ephemeral, action.proof, context, "hand_over")

    def _judge_dispute(self, rules: CheatTable, ledger: Ledger, seat: Optional[int], action: Dispute) -> None:
        """A founded dispute passes (the sender forfeits); an unfounded one is refused, and so is
        one whose disclosed point is not proven to be this hand-over's key."""
        assert seat is not None
        sender, called = action.sender, rules.pile_plays[-1]
        hand_over = ledger.hand_overs[sender]
        shared = dleq.point_of(action.shared, "dispute: shared")
        context = hand_over_context(ledger.dealer_commitment, called, sender, seat)
        dleq.check_dleq(dleq.point_of(ledger.pile_key(seat), "pile key"),
                        dleq.point_of(hand_over.ephemeral, "hand_over: ephemeral"), shared, action.proof, context,
                        f"dispute: seat {seat}'s disclosed key of seat {sender}'s hand-over")
        try:
            got = open_hand_over(shared, hand_over, ledger.dealer_commitment, called, sender, seat)
            check_openings(got, ledger.plays, self._earlier_plays(rules, sender), sender)
        except (CommitmentMismatch, MalformedInput):
            return None  # founded: it does not open, or not to the plays on the table
        raise IllegalMove(f"dispute: seat {sender}'s hand-over opens every one of its plays; the dispute is unfounded")

    def record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        self._record(ledger, seat, action, publics[0] if publics else {})

    def _record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: Mapping[str, int]) -> None:
        if isinstance(action, SealedDeal):
            if self.house_blind:
                ledger.hands = list(self.deal.hand_commitments(ledger, ledger.deal.current.round))
                return
            for k, s in enumerate(action.seats):
                ledger.hands[s] = publics[f"hand{k}_commitment"]
        elif isinstance(action, Play):
            assert seat is not None
            ledger.next_play += 1
            ledger.hands[seat] = publics["new_hand_commitment"]
            ledger.plays[ledger.next_play] = publics["play_commitment"]
        elif isinstance(action, PickUpPart):
            assert seat is not None
            ledger.hands[seat] = publics["new_hand_commitment"]
        elif isinstance(action, HandOver):
            assert seat is not None
            ledger.hand_overs[seat] = action

    def clock_due(self, rules: Rules) -> bool:
        assert isinstance(rules, CheatTable)
        return not rules.over and rules.stage == Stage.RULES and rules.game.phase == Phase.WINDOW

    def timeout(self, rules: Rules) -> Optional[tuple[Action, Any]]:
        assert isinstance(rules, CheatTable)
        if rules.over:
            return None
        seat = rules.to_move
        if rules.stage == Stage.RULES and rules.game.phase == Phase.WINDOW:
            return CloseWindow(rules.s.play_no), float(self.window)
        if seat is NO_SEAT:
            return None
        if rules.stage == Stage.HAND_OVER:
            return Forfeit(seat, "withheld the openings of its plays from the picker"), "proof"
        if rules.stage == Stage.ABSORB:
            return Forfeit(seat, "did not prove its pick-up in time"), "proof"
        if rules.game.phase == Phase.TURNOVER:
            return Forfeit(seat, "did not turn its play over in time"), "proof"
        return Forfeit(seat, "let its turn time out"), "idle"

    # ---- the seat side
    def new_private(self) -> dict[str, Any]:
        return {"pileSecret": "", "dealerCommitment": "0", "peers": {}, "playNo": 0, "hand": 0, "salt": 0,
                "plays": {}, "commitments": {}, "received": {}, "handOvers": {}}

    def seat_deal_line(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int,
                       event: Mapping[str, Any]) -> dict[str, Any]:
        """What the deal's lines give the hand-overs: the dealer's commitment (they are bound
        to it), each seat's pile key, and this seat's own pile key from its deal secrets."""
        kind, data = event["action"], event["data"]
        if kind == HB_KEY and data.get("round") == 1:  # a house-blind deal: the pile keys ride on the first key lines
            out = {**private, "peers": {**private["peers"], str(event["seat"]): data[f"{PILE}Key"]}}
            if event["seat"] == 0:
                out["dealerCommitment"] = str(binding_of(event["prev"]))
            if event["seat"] == seat:
                out["pileSecret"] = deal_secrets[f"{PILE}Secret"]
            return out
        if kind == DEALER_LINE:
            return {**private, "dealerCommitment": data["commitment"]}
        if kind == SEAT_LINE:
            out = {**private, "peers": {**private["peers"], str(event["seat"]): data[f"{PILE}Key"]}}
            if event["seat"] == seat:
                out["pileSecret"] = deal_secrets[f"{PILE}Secret"]
            return out
        return dict(private)

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        assert isinstance(rules, CheatTable)
        if isinstance(intent, Proceed):
            return self._proceed(private, rules, seat)
        if isinstance(intent, PlayCards):
            if not isinstance(intent.cards, (tuple, list)) or isinstance(intent.rank, bool) \
                    or not isinstance(intent.rank, int):
                raise MalformedInput(f"play: a rank and a list of card ids, got {intent!r:.80}")
            mask = DECK.mask(intent.cards, "play")
            play = Play(intent.rank, len(intent.cards))
            rules.check(seat, play)
            if mask & ~private["hand"]:
                raise IllegalMove("play: you can only play cards from your own hand")
            new_salt, play_salt = fresh_salt(), fresh_salt()
            no = rules.s.play_no + 1
            return Move(play, ({"old_hand": private["hand"], "old_salt": private["salt"], "play": mask,
                                "play_salt": play_salt, "new_salt": new_salt},),
                        {"hand": private["hand"] & ~mask, "salt": new_salt, "playNo": no,
                         "plays": {**private["plays"], str(no): [mask, play_salt]},
                         "commitments": {**private["commitments"], str(no): commit(mask, play_salt)}})
        if isinstance(intent, PassTurn):
            return Move(Pass())
        if isinstance(intent, CallBluff):
            call = Call(intent.play)
            rules.check(seat, call)
            return Move(call)
        raise MalformedInput(f"cheat: {intent!r:.80} is not a move (PlayCards, PassTurn, CallBluff or Proceed)")

    def _proceed(self, private: Mapping[str, Any], rules: CheatTable, seat: int) -> Move:
        """Whatever the table needs from this seat's secrets: the turn-over of its called play,
        its openings for the picker, its pick-up proof."""
        if rules.to_move != seat:
            raise IllegalMove(f"seat {seat}: nothing is expected from you now")
        if rules.stage == Stage.HAND_OVER:
            called, picker = rules.pile_plays[-1], rules.s.picker
            assert picker is not None
            mine = {str(no): private["plays"][str(no)] for no, (p, _) in zip(rules.pile_plays, rules.s.pile)
                    if p == seat and no != called}
            return Move(seal_hand_over(private["peers"][str(picker)], private["dealerCommitment"], called, seat,
                                       picker, {"plays": mine}))
        if rules.stage == Stage.ABSORB:
            return self._pick_up(private, rules)
        if rules.game.phase == Phase.TURNOVER:
            mask, salt = private["plays"][str(rules.pile_plays[-1])]
            return Move(OpenedReveal(tuple(DECK.cards(mask)), str(salt)))
        raise IllegalMove(f"seat {seat}: choose a move (play, pass or call); nothing runs by itself now")

    def _opening(self, private: Mapping[str, Any], no: int) -> tuple[int, int]:
        for src in ("plays", "received"):
            if str(no) in private[src]:
                mask, salt = private[src][str(no)]
                return int(mask), int(salt)
        raise CommitmentMismatch(f"pick-up: no opening of play {no} was received; its player withheld it")

    def hand_over_openings(self, private: Mapping[str, Any], rules: CheatTable, seat: int,
                           sender: int) -> dict[str, Any]:
        """The picker opens ``sender``'s hand-over and checks it (:func:`check_openings`)."""
        hand_over = self._received_hand_over(private, rules, sender)
        shared = dleq.mul(dleq.point_of(hand_over.ephemeral, "hand_over: ephemeral"),
                          dleq.scalar_of(private["pileSecret"]))
        assert shared is not None
        got = open_hand_over(shared, hand_over, private["dealerCommitment"], rules.pile_plays[-1], sender, seat)
        commitments = {int(k): v for k, v in private["commitments"].items()}
        return check_openings(got, commitments, self._earlier_plays(rules, sender), sender)

    @staticmethod
    def _received_hand_over(private: Mapping[str, Any], rules: CheatTable, sender: int) -> HandOver:
        got = private["handOvers"].get(f"{rules.pile_plays[-1]}:{sender}")
        if got is None:
            raise CommitmentMismatch(f"seat {sender}: no hand-over received")
        return HandOver(got["sealed"], got["ephemeral"], got["proof"])

    def dispute(self, private: Mapping[str, Any], rules: CheatTable, seat: int, sender: int) -> Dispute:
        """The picker's dispute of ``sender``'s hand-over: that hand-over's key point, proven."""
        hand_over = self._received_hand_over(private, rules, sender)
        context = hand_over_context(private["dealerCommitment"], rules.pile_plays[-1], sender, seat)
        shared, proof = dleq.prove_dleq(dleq.scalar_of(private["pileSecret"]),
                                        dleq.point_of(hand_over.ephemeral, "hand_over: ephemeral"), context)
        return Dispute(sender, dleq.point_hex(shared), proof)

    def _pick_up(self, private: Mapping[str, Any], rules: CheatTable) -> Move:
        seat = rules.to_move
        assert seat is not None
        received = dict(private["received"])
        for sender in rules.handed:
            try:
                received.update(self.hand_over_openings(private, rules, seat, sender))
            except (CommitmentMismatch, MalformedInput):
                if rules.next_part:
                    raise
                return Move(self.dispute(private, rules, seat, sender))
        private = {**private, "received": received}
        part = rules.next_part
        chunk = rules.pile_plays[PICKUP_SLOTS * part:PICKUP_SLOTS * (part + 1)]
        counts = dict(zip(rules.pile_plays, (c for _, c in rules.s.pile)))
        inputs: dict[str, int] = {"old_hand": private["hand"], "old_salt": private["salt"]}
        hand = private["hand"]
        for j in range(PICKUP_SLOTS):
            mask, salt = self._opening(private, chunk[j]) if j < len(chunk) else (0, 0)
            if j < len(chunk):  # the picker's own check: the opening is the play on the table
                open_play(int(private["commitments"][str(chunk[j])]), mask, salt, counts[chunk[j]], DECK.size)
            inputs[f"play{j}"], inputs[f"play{j}_salt"] = mask, salt
            hand |= mask
        inputs["new_salt"] = new_salt = fresh_salt()
        return Move(PickUpPart(rules.s.pile_size, part), (inputs,),
                    {"hand": hand, "salt": new_salt, "received": received})

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        return self._seat_receive(private, deal_secrets, seat, match_id, event, action, publics[0] if publics else {})

    def _seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                      event: Mapping[str, Any], action: Action, publics: Mapping[str, int]) -> dict[str, Any]:
        out = dict(private)
        if isinstance(action, SealedDeal):
            if self.house_blind:  # the hand this seat bound on its own hand line, the latest round's
                rounds = [int(k) for k in deal_secrets.get("hands", {})]
                mask, salt = self.deal.seat_hand(deal_secrets, seat, max(rounds, default=0))
                out.update(hand=mask, salt=salt, plays={}, received={}, commitments={}, handOvers={})
                return out
            k = action.seats.index(seat)
            mask, salt = self.deal.seat_open(deal_secrets, seat, match_id, event["n"], action.sealed_hands[k], publics,
                                             hand=k)
            out.update(hand=mask, salt=salt, plays={}, received={}, commitments={}, handOvers={})
        elif isinstance(action, Play):
            out["playNo"] = private["playNo"] + 1
            out["commitments"] = {**private["commitments"], str(out["playNo"]): publics["play_commitment"]}
        elif isinstance(action, OpenedReveal):
            out["received"] = {**private["received"],
                               str(private["playNo"]): [DECK.mask(action.cards), _int_text(action.salt, "salt")]}
        elif isinstance(action, HandOver):  # kept; the picker opens it when it picks up
            out["handOvers"] = {**private["handOvers"], f"{private['playNo']}:{event['seat']}": action.to_data()}
        return out

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> CheatObservation:
        assert isinstance(rules, CheatTable)
        return CheatObservation(seat, rules.public_state(), tuple(DECK.cards(private["hand"])),
                                tuple(rules.legal_actions(seat)), tuple(rules.history))

    # ---- the dealer side
    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Ledger, match_id: str,
                    line: int) -> Optional[Move]:
        """The hand's deal: every seat's cards in proof, dealt in order from the seat next to
        the hand's dealer, each sealed to its seat."""
        assert isinstance(rules, CheatTable)
        hand_dealer = rules.s.dealer
        order = deal_order(self.n_seats, hand_dealer)
        if self.house_blind:  # the seats dealt; the dealer starts the hand once every seat bound its own
            if not self.deal.complete(ledger, rules.s.hand_no + 1):
                return None
            return Move(SealedDeal(deal_sizes(self.n_seats, hand_dealer), order, ()))
        _, _, inputs, sealed = self.deal.deal_round(dealer, rules.s.hand_no + 1, line, seats=order)
        return Move(SealedDeal(deal_sizes(self.n_seats, hand_dealer), order, sealed), (inputs,))
