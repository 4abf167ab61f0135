"""Bluffers (seed 003) on the match engine: 2-4 seats (option ``players``), the deal and the
table card in proof, every play, pick and revolver share proven.

The lines of a match (:class:`~zkbluff.games.bluffers.rules.TableRules`):

1. the deal's entropy lines (the engine's
   :class:`~zkbluff.games.engine.proven_deal.ProvenDeal`): ``entropy.dealer`` — the dealer
   commits its deal entropy first; ``entropy.seat`` — every seat its entropy commitment, its
   channel key and hand-key commitment, and the entropy's opening and hand key sealed to
   the dealer;
2. ``commit_seed`` — each seat in order: its revolver seed commitment;
3. each round, ``draw`` (``card.deal.v2`` over a 3-card deck: the board is the table card,
   on the round's own stream ``DRAW_ROUND_TAG + round``; a public draw, no hand sealed to
   anyone) and ``deal`` (``card.deal.v2`` over the 20 cards: 5 to each standing seat, hand
   ``k`` to ``seats[k]``, sealed to its hand key; a seat whose sealed hand does not open
   writes a ``complaint`` and the dealer is at fault). The entropy contributors are the
   dealer and every seat (knocked out or not), so nobody, the dealer included, chooses a
   hand or a table card; nothing is revealed afterwards;
4. ``play`` (``card.play.v1``), ``call_bluff``, ``reveal`` (the play's opening, checked
   against its commitment), ``share`` from each standing seat (``revolver.share.v1``);
5. ``timeout`` (the referee's clock, 30 s a move) then ``auto_move`` carrying
   ``card.pick.v1`` (the card the seat's own seed picks for that line) and ``shed``
   (``card.play.v1`` on the picked card's commitment: the new hand). A dropped or departed
   seat's turns are the same ``auto_move`` made by its own agent, without the wait;
6. ``forfeit`` (the referee's clock: the header's ``idle`` limit for the automatic move
   after a timeout, its ``proof`` limit for the rest): a seat that owes a line only its own
   agent can make (the automatic move and its shed, its seed, its reveal, its share) and
   lets the limit run out is out with no points and the round ends (a withheld share of
   another seat's pull re-runs that pull among the others on fresh shares: the withholder can
   neither save the puller nor shoot it), so a match never
   waits on a seat whose agent is gone (docs/bluffers.md, "Time limits").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional, Sequence

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.bluffers import bot as policies
from zkbluff.games.bluffers.text import TableText
from zkbluff.games.bluffers.moves import BluffersObservation, PlayCards, Proceed
from zkbluff.games.bluffers.proofs import PICK_ID, PLAY_ID, SHARE_ID, cards_of, fresh_salt, mask_of
from zkbluff.games.bluffers.rules import (
    DECK, DRAW_ROUND_TAG, END_CODES, HAND_SIZE, MAX_SEATS, MIN_SEATS, TABLE_ACTIONS, TABLE_CARDS, AutoMove, CallBluff,
    CommitSeed, DealHands, DrawTableCard, LeaveTable, OpenPlay, Phase, Play, SealedMove, ShedCard, Share, TableRules,
    Timeout,
)
from zkbluff.games.bluffers import sealed
from zkbluff.games.engine.house_blind_deal import HouseBlindDeal, hands_then
from zkbluff.games.engine.proven_deal import DealPublic, DealShape, ProvenDeal
from zkbluff.protocol.house_blind import BOARD, UNDEALT
from zkbluff.games.engine.rules import NO_SEAT, Action, Rules
from zkbluff.games.engine.spec import GameSpec, Move, ProofDemand
from zkbluff.gadgets.native import commit
from zkbluff.protocol.entropy import EntropySecret
from zkbluff.statements.revolver import picked_card_native, share_native

#: seconds a seat has for a move before the referee's clock plays its automatic card
MOVE_SECONDS = 30.0
#: the table card's draw: one card of King, Queen, Ace as the public board (the hand is a
#: filler nobody is dealt)
DRAW = DealShape(len(TABLE_CARDS), (1,), board=1, sealed=False)


#: the deal modes (the ``deal`` option): ``dealer`` (the zk dealer's deal in proof: the house
#: could see every hand) or ``house-blind`` (the seats deal between themselves; the undealt
#: cards stay hidden from everyone; games/engine/house_blind_deal.py)
DEALS = ("dealer", "house-blind")
DEFAULT_DEAL = "dealer"
#: at a house-blind table, the round's table card: a 3-card deck (King, Queen, Ace) shuffled by
#: every seat, its top card opened to all, the other two to nobody
DRAW_OWNERS = (BOARD, UNDEALT, UNDEALT)


def _wanted(view: Any) -> Optional[tuple[int, tuple[int, ...]]]:
    """The house-blind round the rules wait for: the table card's draw (on its own round
    number, ``DRAW_ROUND_TAG + round``), then the deal of five cards to each standing seat
    (the rest undealt)."""
    rules = view.rules
    if rules.over or rules.s.phase != Phase.DEAL or rules.to_move is not None:
        return None
    round_no = rules.s.round + 1
    if rules.drawn is None:
        return DRAW_ROUND_TAG + round_no, DRAW_OWNERS
    return round_no, hands_then(tuple(rules.standing()), HAND_SIZE, DECK.size)


def round_deal(standing: int) -> DealShape:
    """A round's deal: five cards to each of ``standing`` seats from the 20."""
    return DealShape(DECK.size, (HAND_SIZE,) * standing)


@dataclass
class Ledger:
    """The public commitments the table holds: each seat's hand and last play, and the
    deal's public state (``deal``)."""

    hands: list[Optional[int]] = field(default_factory=list)
    plays: list[Optional[int]] = field(default_factory=list)
    rounds: list[list[Optional[int]]] = field(default_factory=list)
    deal: Any = field(default_factory=DealPublic)  # DealPublic or HouseBlindPublic (the referee sets it)
    #: per seat, the context of the proof that made its hand commitment (a sealed move's
    #: is :func:`~zkbluff.games.bluffers.sealed.sealed_context` of it)
    hand_contexts: list[Optional[int]] = field(default_factory=list)
    match_id: str = ""
    seat_keys: tuple[str, ...] = ()


def _new_private() -> dict[str, Any]:
    seed = EntropySecret.fresh()
    return {"seed": seed.entropy, "seedSalt": seed.salt, "hand": 0, "handSalt": 0, "play": 0, "playSalt": 0,
            "played": [], "claims": []}


class HouseSeat:
    """A seat's agent around a policy: the mechanical steps (commit, reveal, share, the
    automatic card and its new hand) are :class:`Proceed`; on its turn the policy decides
    from what the seat sees (its hand, its own plays, the claims of this round)."""

    policy: ClassVar[type] = policies.HouseBot

    def __init__(self, seed: int):
        import random
        self.rng = random.Random(seed)
        self.bot = self.policy()

    def act(self, obs: BluffersObservation) -> Any:
        if obs.due != "turn":
            return Proceed()
        view = policies.View(obs.seat, obs.state, obs.hand, obs.played, obs.claims)
        decision = self.bot.decide(view, list(obs.legal), self.rng)
        return CallBluff() if decision.call else PlayCards(decision.cards)


class RandomSeat(HouseSeat):
    policy = policies.RandomBot


class BluffersSpec(GameSpec):
    game = "bluffers"
    title = "Bluffers"
    #: the end reason codes (the rules' table): the end line's ``code`` under rules /1
    end_codes = END_CODES
    actions = TABLE_ACTIONS
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "players": tuple(str(n) for n in range(MIN_SEATS, MAX_SEATS + 1)), "deal": DEALS}
    default_options: ClassVar[Mapping[str, str]] = {"players": "2", "deal": DEFAULT_DEAL}
    time_limits: ClassVar[Mapping[str, float]] = {"move": MOVE_SECONDS}
    house_bot = HouseSeat
    random_bot = RandomSeat
    text = TableText
    deal: Any  # ProvenDeal or HouseBlindDeal

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.n_seats = int(self.options["players"])
        self.house_blind = self.options["deal"] == "house-blind"
        if self.house_blind:  # every seat shuffles and shares (knocked out or not); the standing ones bind hands
            self.deal = HouseBlindDeal(self.game, self.n_seats, DECK.size, _wanted, (HAND_SIZE,))
        else:  # the house deals from no seat: every seat contributes entropy (knocked out or not)
            self.deal = ProvenDeal(self.game, self.n_seats, (HAND_SIZE,) * self.n_seats, deck=DECK.size)

    @property
    def min_seats(self) -> int:
        """Seed: "Once at least two players are in, the room owner taps Start"."""
        return MIN_SEATS

    def leave_intent(self) -> LeaveTable:
        """Seed: "If you leave the table you earn no points from that match"."""
        return LeaveTable()

    seat_set_options: ClassVar[tuple[str, ...]] = ("players",)

    def table_options(self, people: Sequence[bool]) -> dict[str, str]:
        """The table has the seats the owner filled by Start (players, then bots)."""
        return {"players": str(len(people))}

    @property
    def contributors(self) -> int:
        if self.house_blind:
            return self.n_seats
        return 1 + len(self.deal.entropy_seats)

    def statements(self) -> list[str]:
        """The plays, picks and shares; the table card's draw; a deal for every number of
        standing seats (knock-outs leave fewer; one standing seat is the end)."""
        if self.house_blind:
            return [PLAY_ID, PICK_ID, SHARE_ID, *self.deal.statement_ids]
        return [PLAY_ID, PICK_ID, SHARE_ID, self.deal.key_id(DRAW)] + \
            [self.deal.key_id(round_deal(k)) for k in range(self.n_seats, 1, -1)]

    def new_rules(self) -> TableRules:
        return TableRules(self.n_seats, seats_deal=self.house_blind)

    def new_ledger(self, header: Mapping[str, Any]) -> Ledger:
        return Ledger([None] * self.n_seats, [None] * self.n_seats, hand_contexts=[None] * self.n_seats,
                      match_id=str(header.get("matchId", "")),
                      seat_keys=tuple(header.get("parties", {}).get("seats", ())))

    # ---- the public side
    receive_own_lines: ClassVar[bool] = True

    def demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> list[ProofDemand]:
        """Each Bluffers line owes at most one proof."""
        if isinstance(action, SealedMove):
            assert isinstance(rules, TableRules)
            sealed.check_seal_signature(ledger.match_id, ledger.seat_keys[action.seat], action)
            return self.seal_demands(ledger, rules, action)
        one = self._demand(rules, ledger, seat, action)
        return [] if one is None else [one]

    def seal_demands(self, ledger: Ledger, rules: TableRules, action: SealedMove, hand: Any = None,
                     made_by: Any = None, size: Optional[int] = None) -> list[ProofDemand]:
        """The two proofs a seal carries, for the hand its seat holds now: the pick and the
        shed, both bound to that hand's sealed context (any other is ``proof.replayed``).
        (On receipt of a chain, seal k is for the hand seal k-1 leaves: ``hand``, ``made_by``
        and ``size`` are that hand's commitment, the context that made it and its size.)"""
        i, s = action.seat, rules.s
        chained = size is not None
        hand = _committed(hand if chained else ledger.hands[i], "the hand")
        made_by = made_by if chained else ledger.hand_contexts[i]
        n_cards = s.hand_sizes[i] if size is None else size
        if made_by is None or action.context != sealed.sealed_context(made_by):
            raise IllegalMove(f"sealed_move: made for another hand or turn of seat {i} (its context is not the sealed "
                              f"context of the seat's hand now)", code="proof.replayed")
        bound = {"context": action.context, "play_commitment": action.play_commitment}
        seed = _committed(s.seed_commitments[i], "the seed")
        return [ProofDemand(PICK_ID, {"hand_commitment": hand, "seed_commitment": seed, "hand_size": n_cards,
                                      **bound}, for_seat=i),
                ProofDemand(PLAY_ID, {"old_hand_commitment": hand, "new_hand_commitment": action.hand_commitment,
                                      "count": 1, **bound}, for_seat=i)]

    def _demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> Optional[ProofDemand]:
        assert isinstance(rules, TableRules)
        s = rules.s
        if self.house_blind and isinstance(action, DrawTableCard):  # the card the seats' shares opened
            drawn = self.deal.board(ledger, DRAW_ROUND_TAG + s.round + 1)
            if 1 << action.table_card != drawn:
                raise IllegalMove(f"draw: the table card the seats opened is {drawn.bit_length() - 1}, not "
                                  f"{action.table_card!r}")
            return None
        if self.house_blind and isinstance(action, DealHands):
            self.deal.demand(ledger, s.round + 1, 0, action.sealed_hands)
            return None
        if isinstance(action, DrawTableCard):
            proven: ProvenDeal = self.deal
            return proven.demand(ledger, DRAW_ROUND_TAG + s.round + 1, 1 << action.table_card, (), DRAW)
        if isinstance(action, DealHands):
            dealer: ProvenDeal = self.deal
            return dealer.demand(ledger, s.round + 1, 0, action.sealed_hands, round_deal(len(action.seats)),
                                 action.seats)
        if isinstance(action, Play):
            assert seat is not None
            return ProofDemand(PLAY_ID, {"old_hand_commitment": _committed(ledger.hands[seat], "the hand"), "count": action.count})
        if isinstance(action, AutoMove):
            assert seat is not None
            if rules.must_call(seat):
                return None  # the forced call
            return ProofDemand(PICK_ID, {"hand_commitment": _committed(ledger.hands[seat], "the hand"),
                                         "seed_commitment": _committed(s.seed_commitments[seat], "the seed"),
                                         "hand_size": s.hand_sizes[seat]})
        if isinstance(action, ShedCard):
            assert seat is not None
            return ProofDemand(PLAY_ID, {"old_hand_commitment": _committed(ledger.hands[seat], "the hand"),
                                         "play_commitment": _committed(ledger.plays[seat], "the play"), "count": 1})
        if isinstance(action, SealedMove):
            raise AssertionError("a sealed move owes two proofs (demand)")
        if isinstance(action, Share):
            assert seat is not None and s.share_slot is not None
            revolver, pull = s.share_slot  # the puller's revolver at its chamber; in a re-run, the withholder's
            return ProofDemand(SHARE_ID, {"seed_commitment": s.seed_commitments[seat], "revolver": revolver,  # type: ignore[dict-item]
                                          "pull": pull, "share": action.value})
        if isinstance(action, OpenPlay):
            assert seat is not None
            if commit(mask_of(action.cards), action.play_salt) != ledger.plays[seat]:
                raise CommitmentMismatch(f"reveal: cards {list(action.cards)} with that salt do not open seat "
                                         f"{seat}'s last play commitment")
        return None

    def record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        self._record(ledger, seat, action, publics[0] if publics else {})

    def _record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: Mapping[str, int]) -> None:
        if isinstance(action, DealHands) and self.house_blind:
            round_no = ledger.deal.current.round
            ledger.hands, ledger.plays = self.deal.hand_commitments(ledger, round_no), [None] * self.n_seats
            ledger.hand_contexts = self.deal.hand_contexts(ledger, round_no)
            ledger.rounds.append(list(ledger.hands))
        elif isinstance(action, DealHands):
            hands: list[Optional[int]] = [None] * self.n_seats
            for k, i in enumerate(action.seats):  # hand k of the proof is seats[k]'s
                hands[i] = publics[f"hand{k}_commitment"]
            ledger.hands, ledger.plays = hands, [None] * self.n_seats
            ledger.hand_contexts = [None if h is None else publics["context"] for h in hands]
            ledger.rounds.append(list(hands))
        elif isinstance(action, (Play, ShedCard)):
            assert seat is not None
            ledger.hands[seat] = publics["new_hand_commitment"]
            ledger.plays[seat] = publics["play_commitment"]
            ledger.hand_contexts[seat] = publics["context"]
        elif isinstance(action, SealedMove):
            i = action.seat
            ledger.hands[i], ledger.plays[i] = action.hand_commitment, action.play_commitment
            ledger.hand_contexts[i] = action.context
        elif isinstance(action, AutoMove) and publics:
            assert seat is not None
            ledger.plays[seat] = publics["play_commitment"]  # the picked card; the new hand comes with shed

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        """The seat to move's own choice runs on the seed's 30 seconds (``move``: then
        ``Timeout``, and its agent owes the automatic move); every line only that seat's
        agent can make runs on a header limit, then ``Forfeit`` (out, no points): the
        automatic move after the seat's own timeout on ``idle`` (a person's client may still
        be showing the prompt when the 30 seconds end: it is given the idle turn's time to
        notice), every other such line (a seed, a reveal, a share, a new hand, a dropped
        seat's automatic move) on ``proof``."""
        assert isinstance(rules, TableRules)
        due = rules.overdue()
        if due is None:
            return None
        if isinstance(due, Timeout):
            return due, "move"
        return due, ("idle" if rules.shed_due is None and rules.timed_out == rules.to_move else "proof")

    # ---- sealed automatic moves (games/bluffers/sealed.py)
    def plan_seal(self, seat: Any) -> Optional[sealed.SealPlan]:
        return sealed.plan_seal(seat)

    def prove_seal(self, plan: Any) -> Any:
        return sealed.prove_seal(plan)

    def adopt_seal(self, seat: Any, plan: Any, proved: Any) -> Optional[list[dict[str, Any]]]:
        return sealed.adopt_seal(seat, plan, proved)

    def pending_seal(self, seat: Any) -> Optional[list[dict[str, Any]]]:
        return sealed.pending_seal(seat)

    def check_seal(self, view: Any, seat: int, seal: Any) -> None:
        sealed.check_seal(view, seat, seal)

    def seal_to_open(self, rules: Rules) -> Optional[int]:
        """The seat whose 30 seconds ran out, while its automatic move is a card."""
        assert isinstance(rules, TableRules)
        seat = rules.timed_out
        if seat is None or rules.shed_due is not None or rules.to_move != seat or rules.must_call(seat):
            return None
        return seat

    # ---- the seat side
    def new_private(self) -> dict[str, Any]:
        return _new_private()

    def _due(self, rules: TableRules, seat: int) -> Optional[str]:
        if rules.over or rules.to_move != seat:
            return None
        if rules.shed_due == seat:
            return "shed"
        phase = rules.s.phase
        if phase == Phase.COMMIT:
            return "commit"
        if phase == Phase.REVEAL:
            return "reveal"
        if phase == Phase.PULL:
            return "share"
        if rules.timed_out == seat or rules.plays_automatically(seat):
            return "auto"
        return "turn"

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> BluffersObservation:
        assert isinstance(rules, TableRules)
        return BluffersObservation(seat, rules.public_state(), tuple(cards_of(private["hand"])),
                                   tuple(rules.legal_actions(seat)), self._due(rules, seat),
                                   tuple(private["played"]), tuple((a, b) for a, b in private["claims"]))

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        assert isinstance(rules, TableRules)
        due = self._due(rules, seat)
        if isinstance(intent, PlayCards):
            if due != "turn":
                raise IllegalMove(f"play: not seat {seat}'s turn to choose cards now")
            if not isinstance(intent.cards, (tuple, list)) or not intent.cards:
                raise MalformedInput(f"play: a list of 1-3 card ids, got {intent.cards!r}")
            mask = DECK.mask(intent.cards, "play")
            if mask & ~private["hand"]:
                raise IllegalMove(f"play: cards {sorted(cards_of(mask & ~private['hand']))} are not in your hand")
            play = Play(len(intent.cards))
            rules.check(seat, play)
            new_salt, play_salt = fresh_salt(), fresh_salt()
            return _move(play, {"old_hand": private["hand"], "old_salt": private["handSalt"], "play": mask,
                               "play_salt": play_salt, "new_salt": new_salt},
                        {"hand": private["hand"] & ~mask, "handSalt": new_salt, "play": mask, "playSalt": play_salt,
                         "played": list(private["played"]) + sorted(cards_of(mask))})
        if isinstance(intent, CallBluff):
            return _move(CallBluff())
        if isinstance(intent, (Play, AutoMove, ShedCard, OpenPlay, Share, CommitSeed)):
            raise MalformedInput(f"{intent.kind}: a seat says PlayCards, CallBluff or Proceed; the rest follows "
                                 f"from its own secrets")
        if isinstance(intent, LeaveTable):
            return _move(intent)
        if not isinstance(intent, Proceed):
            raise MalformedInput(f"bluffers: {intent!r:.80} is not a move of this table")
        if due is None or due == "turn":
            raise IllegalMove(f"seat {seat}: nothing automatic is due now (it is {'your turn' if due else 'not your move'})")
        if due == "commit":
            return _move(CommitSeed(commit(private["seed"], private["seedSalt"])))
        if due == "reveal":
            return _move(OpenPlay(cards_of(private["play"]), private["playSalt"]))
        if due == "share":
            s = rules.s
            assert s.share_slot is not None
            revolver, pull = s.share_slot
            return _move(Share(share_native(private["seed"], revolver, pull)),
                        {"seed": private["seed"], "salt": private["seedSalt"], "revolver": revolver, "pull": pull})
        if due == "auto":
            reason = "timeout" if rules.timed_out == seat else "dropped"
            if rules.must_call(seat):
                return _move(AutoMove(reason))
            play_salt = fresh_salt()
            return _move(AutoMove(reason), {"hand": private["hand"], "hand_salt": private["handSalt"],
                                           "play_salt": play_salt, "seed": private["seed"],
                                           "seed_salt": private["seedSalt"]},
                        {"playSalt": play_salt})
        assert due == "shed"
        card_mask = private["play"]
        new_salt = fresh_salt()
        return _move(ShedCard(), {"old_hand": private["hand"], "old_salt": private["handSalt"], "play": card_mask,
                                 "play_salt": private["playSalt"], "new_salt": new_salt},
                    {"hand": private["hand"] & ~card_mask, "handSalt": new_salt,
                     "played": list(private["played"]) + list(cards_of(card_mask))})

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        return self._seat_receive(private, deal_secrets, seat, match_id, event, action, publics[0] if publics else {})

    def _seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                      event: Mapping[str, Any], action: Action, publics: Mapping[str, int]) -> dict[str, Any]:
        out = dict(private)
        who = event.get("seat")
        if isinstance(action, DealHands):
            if seat not in action.seats:
                out.update(hand=0, handSalt=0)
            elif self.house_blind:  # the hand it bound on its own line (the latest round's: draws bind none)
                rounds = [int(k) for k in deal_secrets.get("hands", {})]
                hand, salt = self.deal.seat_hand(deal_secrets, seat, max(rounds, default=0))
                out.update(hand=hand, handSalt=salt)
            else:
                k = action.seats.index(seat)
                hand, salt = self.deal.seat_open(deal_secrets, seat, match_id, event["n"], action.sealed_hands[k],
                                                 publics, hand=k)
                out.update(hand=hand, handSalt=salt)
            out.update(play=0, playSalt=0, played=[], claims=[])
        elif isinstance(action, Play):
            out["claims"] = list(private["claims"]) + [[who, action.count]]
        elif isinstance(action, SealedMove):
            out["claims"] = list(private["claims"]) + [[action.seat, 1]]
            if action.seat == seat:  # its own seal, played by the referee after its timeout
                out = sealed.opened_by(out, action)
        elif isinstance(action, AutoMove) and publics:
            out["claims"] = list(private["claims"]) + [[who, 1]]
            if who == seat:  # the card this line's context picked; its opening salt came with the update
                card = picked_card_native(private["hand"], private["seed"], publics["context"])
                out["play"] = 1 << card
                if commit(out["play"], private["playSalt"]) != publics["play_commitment"]:
                    raise CommitmentMismatch(f"seat {seat}: the picked card does not open its own play commitment")
        return out

    # ---- the dealer side
    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Ledger, match_id: str,
                    line: int) -> Optional[Move]:
        """The round's table card (a public draw), then its deal to the standing seats."""
        assert isinstance(rules, TableRules)
        round_no = rules.s.round + 1
        if self.house_blind:  # the seats dealt; the dealer writes what their lines opened and bound
            if rules.drawn is None:
                if not self.deal.complete(ledger, DRAW_ROUND_TAG + round_no):
                    return None
                return _move(DrawTableCard(self.deal.board(ledger, DRAW_ROUND_TAG + round_no).bit_length() - 1))
            if not self.deal.complete(ledger, round_no):
                return None
            return _move(DealHands(rules.drawn, tuple(i for i in range(self.n_seats) if rules.s.alive[i]), ()))
        if rules.drawn is None:
            _, board, inputs, _ = self.deal.deal_round(dealer, DRAW_ROUND_TAG + round_no, line, DRAW)
            return _move(DrawTableCard(board.bit_length() - 1), inputs)
        standing = tuple(i for i in range(self.n_seats) if rules.s.alive[i])
        _, _, inputs, sealed = self.deal.deal_round(dealer, round_no, line, round_deal(len(standing)), standing)
        return _move(DealHands(rules.drawn, standing, sealed), inputs)


def _move(action: Action, proof_inputs: Optional[Mapping[str, int]] = None,
          update: Optional[Mapping[str, Any]] = None) -> Move:
    """A Bluffers move: at most one proof's inputs."""
    return Move(action, () if proof_inputs is None else (proof_inputs,), update or {})


def _committed(value: Optional[int], what: str) -> int:
    """A commitment the ledger must hold by now (an action before it is out of order)."""
    if value is None:
        raise IllegalMove(f"{what} is not committed yet")
    return value
