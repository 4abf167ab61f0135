"""Bluffers (seed 003) on the match engine: 2-4 seats (option ``players``), the deal and the
table card in proof, every play, pick and revolver share proven.

The lines of a match (:class:`~zkbluff.games.bluffers.rules.TableRules`):

1. ``dealer_entropy`` — the dealer commits its deal entropy first (the commit order of
   :mod:`zkbluff.protocol.entropy`) with its X25519 channel key;
2. ``commit_seed`` — each seat in order: its revolver seed commitment, its deal entropy
   commitment, its channel key and hand-key commitment, and the entropy's opening and
   hand key sealed to the dealer (:func:`~zkbluff.protocol.entropy.seat_entropy`);
3. each round, ``draw`` (``card.deal.v2`` over a 3-card deck: the board is the table card,
   on the round's own stream ``DRAW_ROUND_TAG + round``) and ``deal`` (``card.deal.v2`` over
   the 20 cards: 5 to each standing seat, hands sealed to each seat's hand key). The
   entropy contributors are the dealer and every seat (knocked out or not), so nobody,
   the dealer included, chooses a hand or a table card; nothing is revealed afterwards;
4. ``play`` (``card.play.v1``), ``call_bluff``, ``reveal`` (the play's opening, checked
   against its commitment), ``share`` from each standing seat (``revolver.share.v1``);
5. ``timeout`` (the referee's clock, 30 s a move) then ``auto_move`` carrying
   ``card.pick.v1`` (the card the seat's own seed picks for that line) and ``shed``
   (``card.play.v1`` on the picked card's commitment: the new hand). A dropped or departed
   seat's turns are the same ``auto_move`` made by its own agent, without the wait.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Optional

from Crypto.PublicKey import ECC

from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput
from zkbluff.games.bluffers import bot as policies
from zkbluff.games.bluffers.text import TableText
from zkbluff.games.bluffers.moves import BluffersObservation, PlayCards, Proceed
from zkbluff.games.bluffers.proofs import PICK_ID, PLAY_ID, SHARE_ID, cards_of, fresh_salt, mask_of
from zkbluff.games.bluffers.rules import (
    DECK, DRAW_ROUND_TAG, HAND_SIZE, MAX_SEATS, MIN_SEATS, TABLE_ACTIONS, TABLE_CARDS, AutoMove, CallBluff,
    DealerEntropy, DealHands, DrawTableCard, LeaveTable, OpenPlay, Phase, Play, SeatCommit,
    ShedCard, Share, TableRules, Timeout,
)
from zkbluff.games.engine.rules import NO_SEAT, Action, Rules
from zkbluff.games.engine.spec import DealScheme, GameSpec, Move, ProofDemand, Role
from zkbluff.gadgets.native import commit
from zkbluff.protocol.entropy import (
    DealerCommit, EntropySecret, SeatEntropy, channel_key, fresh_hand_key, open_hand, open_seat_entropy, seal_hand,
    seat_entropy, x25519_keypair,
)
from zkbluff.statements.deal import deal_native, deal_v2_statement
from zkbluff.statements.revolver import picked_card_native, share_native

SCHEME = "bluffers.deal-in-proof.v1"
TRUST = ("zk dealer: the house deals and sees every hand, but cannot choose one: each round's hands and table "
         "card are computed inside card.deal.v2 proofs from entropy the dealer committed first and every seat "
         "then sealed to it; every play, timeout pick and revolver share is proven against the seat's own "
         "commitments; nothing is revealed after the match; every line is signed by its party")
#: the transcript line of the dealer's entropy (the first after the header): the sealed
#: entropies are bound to it
DEALER_LINE = 2
#: seconds a seat has for a move before the referee's clock plays its automatic card
MOVE_SECONDS = 30.0


def deal_id(hands: int, contributors: int) -> str:
    return deal_v2_statement(DECK.size, (HAND_SIZE,) * hands, entropies=contributors).key_id


def draw_id(contributors: int) -> str:
    return deal_v2_statement(len(TABLE_CARDS), (1,), board=1, entropies=contributors).key_id


def _pub(key: ECC.EccKey) -> str:
    return key.public_key().export_key(format="raw").hex()


def _dealer_commit(commitment: int) -> DealerCommit:
    """The dealer's commitment as :mod:`zkbluff.protocol.entropy` seals against it: the
    order here is the transcript's (line ``DEALER_LINE``), not a clock's deadline."""
    return DealerCommit(commitment, 1.0, 0.0, DEALER_LINE)


class BluffersDeal(DealScheme):
    """The deal in proof. Everything a seat sends the dealer goes on transcript lines after
    the dealer's commitment (sealed), so the engine's pre-header messages carry nothing.
    (Written beside the engine's generic ``ProvenDeal``, which should replace it.)"""

    closing: ClassVar[Optional[str]] = None
    trust: ClassVar[str] = TRUST

    def seat_secrets(self) -> dict[str, Any]:
        return {}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        secret = EntropySecret.fresh()
        key, _ = x25519_keypair()
        return {"matchId": match_id, "entropy": str(secret.entropy), "salt": str(secret.salt),
                "x25519": key.export_key(format="PEM")}

    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        return {"scheme": SCHEME}

    def check_header(self, deal: Any, n_seats: int) -> None:
        if deal != {"scheme": SCHEME}:
            raise MalformedInput(f"header: deal must be {{scheme: {SCHEME}}}, got {deal!r:.80}")


@dataclass
class Ledger:
    """The public commitments the table holds: each seat's hand and last play."""

    hands: list[Optional[int]] = field(default_factory=list)
    plays: list[Optional[int]] = field(default_factory=list)
    rounds: list[list[Optional[int]]] = field(default_factory=list)


def _new_private() -> dict[str, Any]:
    seed, key = EntropySecret.fresh(), x25519_keypair()[0]
    return {"seed": seed.entropy, "seedSalt": seed.salt, "entropy": EntropySecret.fresh().entropy,
            "entropySalt": EntropySecret.fresh().salt, "handKey": fresh_hand_key().hex(),
            "x25519": key.export_key(format="PEM"), "matchId": None, "dealerKey": None, "dealerCommitment": None,
            "hand": 0, "handSalt": 0, "play": 0, "playSalt": 0, "played": [], "claims": []}


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
    actions = TABLE_ACTIONS
    roles: ClassVar[Mapping[str, Role]] = {
        "dealer_entropy": Role.DEALER, "commit_seed": Role.SEAT, "draw": Role.DEALER, "deal": Role.DEALER,
        "play": Role.SEAT, "call_bluff": Role.SEAT, "timeout": Role.REFEREE, "auto_move": Role.SEAT,
        "shed": Role.SEAT, "reveal": Role.SEAT, "share": Role.SEAT, "disconnect": Role.REFEREE,
        "reconnect": Role.REFEREE, "leave_table": Role.SEAT}
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "players": tuple(str(n) for n in range(MIN_SEATS, MAX_SEATS + 1))}
    default_options: ClassVar[Mapping[str, str]] = {"players": "2"}
    time_limits: ClassVar[Mapping[str, float]] = {"move": MOVE_SECONDS}
    house_bot = HouseSeat
    random_bot = RandomSeat
    text = TableText

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.n_seats = int(self.options["players"])
        self.deal = BluffersDeal()

    @property
    def contributors(self) -> int:
        return self.n_seats + 1

    def statements(self) -> list[str]:
        return [PLAY_ID, PICK_ID, SHARE_ID, draw_id(self.contributors)] + \
            [deal_id(k, self.contributors) for k in range(self.n_seats, 1, -1)]

    def new_rules(self) -> TableRules:
        return TableRules(self.n_seats)

    def new_ledger(self) -> Ledger:
        return Ledger([None] * self.n_seats, [None] * self.n_seats)

    # ---- the public side
    def _entropy_pins(self, rules: TableRules) -> dict[str, int]:
        return {f"entropy{i}_commitment": c for i, c in enumerate(rules.entropy_commitments())}

    receive_own_lines: ClassVar[bool] = True

    def demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> list[ProofDemand]:
        """Each Bluffers line owes at most one proof."""
        one = self._demand(rules, ledger, seat, action)
        return [] if one is None else [one]

    def _demand(self, rules: Rules, ledger: Ledger, seat: Optional[int], action: Action) -> Optional[ProofDemand]:
        assert isinstance(rules, TableRules)
        s = rules.s
        if isinstance(action, DrawTableCard):
            return ProofDemand(draw_id(self.contributors), {
                **self._entropy_pins(rules), "board": 1 << action.table_card, "round": DRAW_ROUND_TAG + s.round + 1})
        if isinstance(action, DealHands):
            return ProofDemand(deal_id(sum(s.alive), self.contributors), {
                **self._entropy_pins(rules), "board": 0, "round": s.round + 1})
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
        if isinstance(action, Share):
            assert seat is not None and s.puller is not None
            return ProofDemand(SHARE_ID, {"seed_commitment": s.seed_commitments[seat], "revolver": s.puller,  # type: ignore[dict-item]
                                          "pull": s.chambers[s.puller], "share": action.value})
        if isinstance(action, OpenPlay):
            assert seat is not None
            if commit(mask_of(action.cards), action.play_salt) != ledger.plays[seat]:
                raise CommitmentMismatch(f"reveal: cards {list(action.cards)} with that salt do not open seat "
                                         f"{seat}'s last play commitment")
        return None

    def record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        self._record(ledger, seat, action, publics[0] if publics else {})

    def _record(self, ledger: Ledger, seat: Optional[int], action: Action, publics: Mapping[str, int]) -> None:
        if isinstance(action, DealHands):
            hands: list[Optional[int]] = [None] * self.n_seats
            for k, i in enumerate(action.seats):  # hand k of the proof is seats[k]'s
                hands[i] = publics[f"hand{k}_commitment"]
            ledger.hands, ledger.plays = hands, [None] * self.n_seats
            ledger.rounds.append(list(hands))
        elif isinstance(action, (Play, ShedCard)):
            assert seat is not None
            ledger.hands[seat] = publics["new_hand_commitment"]
            ledger.plays[seat] = publics["play_commitment"]
        elif isinstance(action, AutoMove) and publics:
            assert seat is not None
            ledger.plays[seat] = publics["play_commitment"]  # the picked card; the new hand comes with shed

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        assert isinstance(rules, TableRules)
        seat = rules.to_move
        if rules.over or seat is NO_SEAT or rules.shed_due is not None or rules.s.phase != Phase.TURN:
            return None
        if rules.timed_out is not None or rules.plays_automatically(seat):
            return None
        return Timeout(seat), "move"

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
        if isinstance(intent, (Play, AutoMove, ShedCard, OpenPlay, Share, SeatCommit)):
            raise MalformedInput(f"{intent.kind}: a seat says PlayCards, CallBluff or Proceed; the rest follows "
                                 f"from its own secrets")
        if isinstance(intent, LeaveTable):
            return _move(intent)
        if not isinstance(intent, Proceed):
            raise MalformedInput(f"bluffers: {intent!r:.80} is not a move of this table")
        if due is None or due == "turn":
            raise IllegalMove(f"seat {seat}: nothing automatic is due now (it is {'your turn' if due else 'not your move'})")
        if due == "commit":
            return self._commit(private, seat)
        if due == "reveal":
            return _move(OpenPlay(cards_of(private["play"]), private["playSalt"]))
        if due == "share":
            s = rules.s
            assert s.puller is not None
            pull = s.chambers[s.puller]
            return _move(Share(share_native(private["seed"], s.puller, pull)),
                        {"seed": private["seed"], "salt": private["seedSalt"], "revolver": s.puller, "pull": pull})
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

    def _commit(self, private: Mapping[str, Any], seat: int) -> Move:
        if private["dealerKey"] is None:
            raise IllegalMove("commit: the dealer's entropy line has not been seen")
        own = ECC.import_key(private["x25519"])
        key = channel_key(own, bytes.fromhex(private["dealerKey"]), private["matchId"], seat)
        secret = EntropySecret(private["entropy"], private["entropySalt"])
        msg = seat_entropy(seat, secret, bytes.fromhex(private["handKey"]), key, private["matchId"],
                           _dealer_commit(private["dealerCommitment"]), 0.0)
        seed_commitment = commit(private["seed"], private["seedSalt"])
        return _move(SeatCommit(seed_commitment, msg.commitment, _pub(own), msg.hand_key_commitment, msg.sealed))

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        return self._seat_receive(private, seat, match_id, event, action, publics[0] if publics else {})

    def _seat_receive(self, private: Mapping[str, Any], seat: int, match_id: str, event: Mapping[str, Any],
                      action: Action, publics: Mapping[str, int]) -> dict[str, Any]:
        out = dict(private)
        who = event.get("seat")
        if isinstance(action, DealerEntropy):
            out.update(matchId=match_id, dealerKey=action.channel_key, dealerCommitment=action.commitment)
        elif isinstance(action, DealHands):
            if seat not in action.seats:
                out.update(hand=0, handSalt=0)
            else:
                k = action.seats.index(seat)
                hand, salt = open_hand(bytes.fromhex(private["handKey"]), match_id, event["n"],
                                       action.sealed_hands[k], publics[f"hand{k}_commitment"])
                out.update(hand=hand, handSalt=salt)
            out.update(play=0, playSalt=0, played=[], claims=[])
        elif isinstance(action, Play):
            out["claims"] = list(private["claims"]) + [[who, action.count]]
        elif isinstance(action, AutoMove) and publics:
            out["claims"] = list(private["claims"]) + [[who, 1]]
            if who == seat:  # the card this line's context picked; its opening salt came with the update
                card = picked_card_native(private["hand"], private["seed"], publics["context"])
                out["play"] = 1 << card
                if commit(out["play"], private["playSalt"]) != publics["play_commitment"]:
                    raise CommitmentMismatch(f"seat {seat}: the picked card does not open its own play commitment")
        return out

    # ---- the dealer side
    def _entropies(self, dealer: Mapping[str, Any], rules: TableRules) -> list[EntropySecret]:
        """The dealer's secrets in contributor order: its own, then each seat's sealed
        opening, checked against the seat's public commitments."""
        assert rules.dealer_commitment is not None
        own_key = ECC.import_key(dealer["x25519"])
        out = [EntropySecret(int(dealer["entropy"]), int(dealer["salt"]))]
        for i, rec in enumerate(rules.entropies):
            assert rec is not None
            key = channel_key(own_key, bytes.fromhex(rec.channel_key), dealer["matchId"], i)
            secret, _ = open_seat_entropy(key, dealer["matchId"], _dealer_commit(rules.dealer_commitment),
                                          SeatEntropy(i, rec.commitment, rec.hand_key_commitment, rec.sealed, 0.0))
            out.append(secret)
        return out

    def _hand_keys(self, dealer: Mapping[str, Any], rules: TableRules) -> list[bytes]:
        assert rules.dealer_commitment is not None
        own_key = ECC.import_key(dealer["x25519"])
        keys = []
        for i, rec in enumerate(rules.entropies):
            assert rec is not None
            key = channel_key(own_key, bytes.fromhex(rec.channel_key), dealer["matchId"], i)
            keys.append(open_seat_entropy(key, dealer["matchId"], _dealer_commit(rules.dealer_commitment),
                                          SeatEntropy(i, rec.commitment, rec.hand_key_commitment, rec.sealed,
                                                      0.0))[1])
        return keys

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Ledger, match_id: str, line: int) -> Move:
        assert isinstance(rules, TableRules)
        if rules.dealer_commitment is None:
            own = ECC.import_key(dealer["x25519"])
            return _move(DealerEntropy(EntropySecret(int(dealer["entropy"]), int(dealer["salt"])).commitment,
                                      _pub(own)))
        ents = self._entropies(dealer, rules)
        inputs: dict[str, int] = {}
        for i, e in enumerate(ents):
            inputs[f"entropy{i}"], inputs[f"entropy{i}_salt"] = e.entropy, e.salt
        round_no = rules.s.round + 1
        if rules.drawn is None:
            _, board = deal_native([e.entropy for e in ents], DRAW_ROUND_TAG + round_no, (1,), board=1,
                                   deck=len(TABLE_CARDS))
            return _move(DrawTableCard(board.bit_length() - 1),
                        {**inputs, "hand0_salt": fresh_salt(), "round": DRAW_ROUND_TAG + round_no})
        standing = [i for i in range(self.n_seats) if rules.s.alive[i]]
        masks, _ = deal_native([e.entropy for e in ents], round_no, (HAND_SIZE,) * len(standing), deck=DECK.size)
        keys = self._hand_keys(dealer, rules)
        sealed = []
        for k, i in enumerate(standing):
            salt = fresh_salt()
            inputs[f"hand{k}_salt"] = salt
            sealed.append(seal_hand(keys[i], match_id, line, masks[k], salt))
        inputs["round"] = round_no
        return _move(DealHands(rules.drawn, tuple(standing), tuple(sealed)), inputs)


def _move(action: Action, proof_inputs: Optional[Mapping[str, int]] = None,
          update: Optional[Mapping[str, Any]] = None) -> Move:
    """A Bluffers move: at most one proof's inputs."""
    return Move(action, () if proof_inputs is None else (proof_inputs,), update or {})


def _committed(value: Optional[int], what: str) -> int:
    """A commitment the ledger must hold by now (an action before it is out of order)."""
    if value is None:
        raise IllegalMove(f"{what} is not committed yet")
    return value
