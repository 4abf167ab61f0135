"""``ObliviousDeal``: the two-seat oblivious deal (docs/oblivious-deal.md) as a deal scheme
of the match engine. Nobody — the house (the engine's dealer and referee) included —
learns a hand it was not dealt, and nothing is revealed after the match.

The two *seats* run the protocol of :mod:`zkbluff.protocol.oblivious_deal` between them as
signed transcript lines; the engine's dealer only opens each round once its exchange is
complete (its ``deal`` line carries no proof and no sealed hand: the hands were committed
in the exchange). The *deck seat* (at Proof or Bluff the house's seat) commits a permuted
deck and serves the transfers; the *chooser* (player one) fetches its cards by
oblivious transfer. Per round ``r`` (every re-deal is its own round), while the rules wait
for a deal:

1. ``oblivious.commit`` (deck seat): the 52 position commitments, the ``card.permutation.v1``
   proof, the OT key ``A``;
2. ``oblivious.choose`` (chooser): the deck seat's and the board's positions (public) and
   one OT request per secret position;
3. ``oblivious.transfer`` (deck seat): every opening through the OT, the board openings,
   the deck seat's hand commitment and its ``card.chosen_hand.v1`` proof;
4. ``oblivious.hand`` (chooser): its hand commitment and its ``card.chosen_hand.v1`` proof —
   or ``oblivious.complaint``: the reveal of a transfer whose opening was wrong
   (:func:`~zkbluff.protocol.oblivious_deal.verify_complaint`); upheld, the deck seat is at
   fault and the match ends (``transcript verify`` exits 1 naming the complaint line);
5. ``deal`` (the engine's dealer, a rules action): the round starts with the two hand
   commitments of the exchange (and its board).

Each line's data *is* the protocol message (session = the match id, round = ``r``, so a
message of another match or round is refused as a replay); the referee checks every one
(proofs under the header's trusted keys, points on the curve, positions, board openings)
before it is written, and the offline verifier does the same. A seat that lets the
header's ``limits.deal`` pass without its line is timed out (``oblivious.timeout``, the
referee's line) and places last; an engine dealer that sends no ``deal`` once the exchange
is complete is timed out the same way (a draw, and ``transcript verify`` names the line).

The seats keep JSON-safe secrets only: a 32-byte seed from which every random choice of
their side of every round is derived (:class:`~zkbluff.protocol.oblivious_deal.DealRandom`),
so each rebuilds its protocol party from the seed and the transcript; and, once made, each
round's own hand (mask and salt) for the game.

Using it in a two-seat card game: hold ``ObliviousDeal(game, hand, board)`` as the spec's
``deal``; give the ledger ``deal`` (:meth:`new_public`) and ``hands``; the deal action has
``round`` (and ``board``) and empty ``sealed_hands``; the game's rules expose
``public_state().round`` and wait for a deal with nobody to move.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets as pysecrets
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any, Callable, ClassVar, Mapping, Optional

from zkbluff.errors import (
    CommitmentMismatch, DealerFault, IllegalMove, InvalidComplaint, MalformedInput, OutOfOrder,
    UnfoundedComplaint,
)
from zkbluff.games.engine.rules import Result
from zkbluff.games.engine.deal_clock import OneLineDealClock
from zkbluff.games.engine.spec import DealScheme, Role
from zkbluff.protocol import oblivious_deal as od

SCHEME = "oblivious-deal.v1"
TRUST = ("oblivious deal: the two seats deal between themselves — the deck seat commits a permuted deck "
         "(card.permutation.v1), the other fetches its cards from secret positions by oblivious transfer and "
         "each proves its hand from its positions (card.chosen_hand.v1); nobody, the house included, learns a "
         "hand it was not dealt, neither seat can bias one, and nothing is revealed after the match; every line "
         "is signed by its party")

COMMIT, CHOOSE, TRANSFER, HAND = "oblivious.commit", "oblivious.choose", "oblivious.transfer", "oblivious.hand"
COMPLAINT, TIMEOUT = "oblivious.complaint", "oblivious.timeout"


@dataclass(frozen=True)
class Exchange:
    """One round's exchange as the table holds it (the messages, as written, and what the
    checks gave)."""

    round: int
    commit: dict[str, Any]
    commitments: tuple[int, ...]
    choose: Optional[dict[str, Any]] = None
    dealer_positions: tuple[int, ...] = ()
    board_positions: tuple[int, ...] = ()
    transfer: Optional[dict[str, Any]] = None
    board: int = 0
    deck_commitment: int = 0
    chooser_commitment: Optional[int] = None

    @property
    def complete(self) -> bool:
        return self.chooser_commitment is not None


@dataclass(frozen=True)
class ObliviousPublic:
    """The deal's public state (``ledger.deal``): the current round's exchange and a
    seat's fault (a complaint upheld against the deck seat, a seat timed out)."""

    current: Optional[Exchange] = None
    fault: Optional[str] = None
    fault_line: Optional[int] = None
    fault_seat: Optional[int] = None  # None: the engine's dealer
    #: a fault shown by the transcript (an upheld complaint, the dealer's silence), not a seat's timeout
    proven: bool = False


def _key_source(view: Any) -> od.KeySource:
    """The header's verifying keys (already accepted under the referee's trust) in the
    shape the protocol's checks take."""
    return lambda key_id: SimpleNamespace(vk=view.vks[key_id])  # type: ignore[return-value]


def _defer(view: Any, line: int) -> Optional[od.Defer]:
    """Where a deal line's proof goes: verified at once for a live view (``verify_now``),
    else into the view's batch with the other proofs of the transcript, tagged with the
    line, so a bad one fails the transcript there (the offline verifier)."""
    if getattr(view, "verify_now", True):
        return None
    batch = view.batch
    return lambda key_id, vk, public, proof: batch.add_proof(vk, key_id, public, proof, line)


def _rng(secrets: Mapping[str, Any], match_id: str, round_no: int, role: str) -> od.DealRandom:
    seed = bytes.fromhex(secrets["seed"])
    return od.DealRandom(hmac.digest(seed, f"zkbluff:oblivious-seat:v1:{match_id}:{round_no}:{role}".encode(),
                                     hashlib.sha256))


class ObliviousDeal(OneLineDealClock, DealScheme):
    """The oblivious deal between seat ``chooser_seat`` and seat ``deck_seat``; see the module."""

    closing: ClassVar[Optional[str]] = None  # nothing is revealed after the match
    trust: ClassVar[str] = TRUST
    timeout_kind: ClassVar[str] = TIMEOUT
    line_roles: ClassVar[Mapping[str, Role]] = {COMMIT: Role.SEAT, CHOOSE: Role.SEAT, TRANSFER: Role.SEAT,
                                                HAND: Role.SEAT, COMPLAINT: Role.SEAT, TIMEOUT: Role.REFEREE}

    def __init__(self, game: str, hand: int, board: int = 0, deck_seat: int = 1, chooser_seat: int = 0):
        if {deck_seat, chooser_seat} != {0, 1}:
            raise ValueError(f"{game}: the oblivious deal is between seats 0 and 1")
        self.game, self.deck_seat, self.chooser_seat = game, deck_seat, chooser_seat
        self.n_seats = 2
        self.shape = od.DealShape(dealer_hand=hand, chooser_hand=hand, board=board)

    @property
    def statement_ids(self) -> list[str]:
        return [self.shape.permutation_key, self.shape.hand_key(self.shape.chooser_hand)]

    # ---------------------------------------------------------------- the header
    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        return {"scheme": SCHEME, "deckSeat": self.deck_seat, "chooserSeat": self.chooser_seat,
                "shape": self.shape.to_json(), "statements": self.statement_ids}

    def check_header(self, deal: Any, n_seats: int) -> None:
        expected = self.header({}, [])
        if deal != expected:
            raise MalformedInput(f"header: deal must be {expected}, got {deal!r:.200}")

    def new_public(self) -> ObliviousPublic:
        return ObliviousPublic()

    # ---------------------------------------------------------------- the state of play
    @staticmethod
    def wanted_round(view: Any) -> Optional[int]:
        """The round the rules wait to be dealt (nobody to move, not over), or None."""
        if view.over or view.rules.to_move is not None:
            return None
        return int(view.rules.public_state().round) + 1

    def due(self, view: Any) -> Optional[tuple[str, int, int]]:
        """``(kind, seat, round)`` of the exchange line the table waits for, or None (no
        deal wanted, the exchange complete, or a fault)."""
        pub: ObliviousPublic = view.ledger.deal
        w = self.wanted_round(view)
        if w is None or pub.fault:
            return None
        x = pub.current if pub.current is not None and pub.current.round == w else None
        if x is None:
            return COMMIT, self.deck_seat, w
        if x.choose is None:
            return CHOOSE, self.chooser_seat, w
        if x.transfer is None:
            return TRANSFER, self.deck_seat, w
        if not x.complete:
            return HAND, self.chooser_seat, w
        return None

    def owed(self, view: Any) -> Optional[tuple[str, Optional[int], int]]:
        """What the table waits for from the deal: an exchange line (:meth:`due`), or the
        dealer's ``deal`` line once the exchange is complete (seat None)."""
        step = self.due(view)
        if step is not None:
            return step
        w, x = self.wanted_round(view), view.ledger.deal.current
        if w is None or view.ledger.deal.fault or x is None or x.round != w or not x.complete:
            return None
        return "deal", None, w

    def exchange(self, ledger: Any, round_no: int) -> Exchange:
        """The complete exchange of ``round_no`` (:class:`IllegalMove` if there is none)."""
        x: Optional[Exchange] = ledger.deal.current
        if x is None or x.round != round_no or not x.complete:
            raise IllegalMove(f"deal: round {round_no}'s oblivious exchange is not complete (no card is dealt "
                              "before both hands are committed)")
        return x

    def ready(self, ledger: Any) -> bool:
        return not ledger.deal.fault

    # ---------------------------------------------------------------- the game's deal action
    def demand(self, ledger: Any, round_no: int, board: int, sealed_hands: tuple[str, ...]) -> None:
        """Check a deal action against the round's exchange; it owes no proof (the hands
        were proven in the exchange)."""
        x = self.exchange(ledger, round_no)
        if sealed_hands != ():
            raise MalformedInput("deal: no sealed hands at an oblivious deal (each seat holds its own)")
        if board != x.board:
            raise IllegalMove(f"deal: board {board:#x}, the exchange's board openings give {x.board:#x}")

    def hand_commitments(self, ledger: Any, round_no: int) -> list[int]:
        x = self.exchange(ledger, round_no)
        assert x.chooser_commitment is not None
        return [x.chooser_commitment if s == self.chooser_seat else x.deck_commitment for s in range(self.n_seats)]

    def board(self, ledger: Any, round_no: int) -> int:
        return self.exchange(ledger, round_no).board

    def complete(self, ledger: Any, round_no: int) -> bool:
        x: Optional[Exchange] = ledger.deal.current
        return x is not None and x.round == round_no and x.complete and not ledger.deal.fault

    def starting_draw(self, ledger: Any, modulus: int) -> int:
        """A public draw fixed by round 1's exchange: SHA-256 of the deck seat's commitments
        and the chooser's OT request, mod ``modulus``. The deck seat committed first and
        cannot steer it; the chooser could (by re-drawing its request) but then knows no
        card at all, its own included, so it has nothing to steer towards."""
        x = self.exchange(ledger, 1)
        assert x.choose is not None
        parts = [str(c) for c in x.commitments] + list(x.choose["ot"]["B"])
        digest = hashlib.sha256(("zkbluff:oblivious-start-draw:v1:" + ":".join(parts)).encode()).digest()
        return int.from_bytes(digest, "big") % modulus

    # ---------------------------------------------------------------- the table (referee side)
    def check_line(self, view: Any, kind: str, seat: Optional[int], event: Mapping[str, Any]) -> None:
        ledger, match_id = view.ledger, view.match_id
        pub: ObliviousPublic = ledger.deal
        data, n = event.get("data"), event["n"]
        if kind == TIMEOUT:
            self._check_timeout(view, data, event)
            return
        step = self.due(view)
        if step is None:
            raise IllegalMove(f"{kind}: no oblivious exchange line is due now")
        want, want_seat, w = step
        if kind not in ({want, COMPLAINT} if want == HAND else {want}) or seat != want_seat:
            raise OutOfOrder(f"{kind} from seat {seat}: the deal waits for {want} from seat {want_seat} (round {w})")
        if kind == COMPLAINT:
            self._check_complaint(view, data, n, w)
            return
        if not isinstance(data, dict):
            raise MalformedInput(f"{kind}: the data must be the protocol message, got {type(data).__name__}")
        if data.get("session") != match_id or data.get("round") != w:
            raise IllegalMove(f"{kind}: a message of session {data.get('session')!r:.60} round "
                              f"{data.get('round')!r:.10}; this deal is match {match_id!r:.60} round {w} "
                              f"(a replayed message is refused)")
        keys, x, defer = _key_source(view), pub.current, _defer(view, n)
        if kind == COMMIT:
            commitments = od.check_commit(data, self.shape, match_id, w, keys, defer=defer)
            ledger.deal = replace(pub, current=Exchange(w, dict(data), tuple(commitments)))
            view.n_proofs += 1  # verified here (bound to the match, round and step), or in the view's batch
            return
        assert x is not None
        if kind == CHOOSE:
            dealer, board = od.check_choose(data, self.shape, match_id, w)
            ledger.deal = replace(pub, current=replace(x, choose=dict(data), dealer_positions=tuple(dealer),
                                                       board_positions=tuple(board)))
        elif kind == TRANSFER:
            board_mask, deck = od.check_transfer(data, self.shape, match_id, w, list(x.commitments),
                                                 list(x.dealer_positions), list(x.board_positions), keys,
                                                 defer=defer)
            ledger.deal = replace(pub, current=replace(x, transfer=dict(data), board=board_mask, deck_commitment=deck))
            view.n_proofs += 1
        else:  # HAND
            chooser = od.check_hand(data, self.shape, match_id, w, list(x.commitments), list(x.dealer_positions),
                                    list(x.board_positions), keys, defer=defer)
            ledger.deal = replace(pub, current=replace(x, chooser_commitment=chooser))
            view.n_proofs += 1

    def complaint_record(self, x: Exchange, match_id: str, reveal: Any) -> dict[str, Any]:
        """The complaint :func:`~zkbluff.protocol.oblivious_deal.verify_complaint` checks,
        from the exchange's messages as written (signed) in the transcript."""
        return {"type": "oblivious.complaint", "version": od.VERSION, "session": match_id, "round": x.round,
                "commit": x.commit, "choose": x.choose, "transfer": x.transfer, "reveal": reveal}

    def _check_complaint(self, view: Any, data: Any, n: int, w: int) -> None:
        pub: ObliviousPublic = view.ledger.deal
        if not isinstance(data, dict) or set(data) != {"round", "reveal"} or type(data["round"]) is not int \
                or data["round"] != w:
            raise MalformedInput(f"oblivious.complaint: expected {{round: {w}, reveal}}, got {data!r:.120}")
        assert pub.current is not None
        try:
            reason = od.verify_complaint(self.complaint_record(pub.current, view.match_id, data["reveal"]))
        except InvalidComplaint as exc:
            raise UnfoundedComplaint(str(exc)) from None
        view.ledger.deal = replace(pub, fault=f"seat {self.deck_seat} (the deck seat) sent a wrong card: {reason}",
                                   fault_line=n, fault_seat=self.deck_seat, proven=True)

    # ---- time (deal_deadline, referee_line: OneLineDealClock)
    def _check_timeout(self, view: Any, data: Any, event: Mapping[str, Any]) -> None:
        timed_out = self.check_timeout_line(view, data, event)
        seat, deadline = timed_out["seat"], timed_out["deadline"]
        who = "the dealer" if seat is None else f"seat {seat}"
        view.ledger.deal = replace(view.ledger.deal, fault=f"{who} sent no {timed_out['line']} by the deadline "
                                   f"{deadline}", fault_line=event["n"], fault_seat=seat, proven=seat is None)

    def outcome(self, ledger: Any, scores: tuple[int, ...],
                standing: Optional[tuple[int, ...]] = None) -> Optional[Result]:
        """A seat at fault places last; the engine's dealer at fault (it sent no deal after a
        complete exchange; it holds no seat): the match is settled on the ``standing`` at the
        fault (no seat's standing worsened: a leader keeps its win), every seat place 1 only
        when the rules keep no standing."""
        pub: ObliviousPublic = ledger.deal
        if pub.fault is None:
            return None
        if pub.fault_seat is None and standing is not None:
            return Result(tuple(standing), scores,
                          f"the deal ended the match: {pub.fault}; settled on the standing at the fault")
        return Result(tuple(2 if s == pub.fault_seat else 1 for s in range(self.n_seats)), scores,
                      f"the deal ended the match: {pub.fault}")

    def fault(self, ledger: Any) -> Optional[tuple[int, str]]:
        """A fault the transcript proves — a complaint upheld against the deck seat, the
        dealer's silence after a complete exchange; a seat's own timeout is not one."""
        pub: ObliviousPublic = ledger.deal
        if pub.fault is None or pub.fault_line is None or not pub.proven:
            return None
        return pub.fault_line, pub.fault

    # ---------------------------------------------------------------- the engine's dealer: nothing secret
    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"matchId": match_id}

    # ---------------------------------------------------------------- the seats
    def seat_secrets(self) -> dict[str, Any]:
        return {"seed": pysecrets.token_bytes(32).hex(), "hands": {}}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # the house gets nothing

    def deck_party(self, secrets: Mapping[str, Any], match_id: str, round_no: int, prover: Any) -> od.ObliviousDealer:
        """The deck seat's protocol party of ``round_no``, rebuilt from its seed."""
        return od.ObliviousDealer(match_id, round_no, self.shape, keys=prover.key, backend=prover.backend,
                                  rng=_rng(secrets, match_id, round_no, "deck"))

    def chooser_party(self, secrets: Mapping[str, Any], match_id: str, round_no: int,
                      prover: Any) -> od.ObliviousChooser:
        return od.ObliviousChooser(match_id, round_no, self.shape, keys=prover.key, backend=prover.backend,
                                   rng=_rng(secrets, match_id, round_no, "chooser"))

    def seat_line_in(self, secrets: dict[str, Any], seat: int, view: Any, prover: Any,
                     clock: Callable[[], float]) -> Optional[tuple[str, dict[str, Any], float]]:
        """This seat's exchange line ``(kind, data, at)`` when the table waits for it, made
        from its seed and the transcript and stamped once made."""
        due = self._seat_line(secrets, seat, view, prover)
        return None if due is None else (due[0], due[1], clock())

    def _seat_line(self, secrets: dict[str, Any], seat: int, view: Any,
                   prover: Any) -> Optional[tuple[str, dict[str, Any]]]:
        """The line's kind and data. The seat's own hand (mask and salt, both fixed by the
        seed and the transcript) is kept in ``secrets["hands"]`` as it is made."""
        step = self.due(view)
        if step is None or step[1] != seat:
            return None
        kind, _, w = step
        match_id, x = view.match_id, view.ledger.deal.current
        if kind == COMMIT:
            return COMMIT, self.deck_party(secrets, match_id, w, prover).commit()
        assert x is not None
        if kind == TRANSFER:
            deck = self.deck_party(secrets, match_id, w, prover)
            deck.resume(x.commit)
            msg = deck.transfer(x.choose)
            secrets.setdefault("hands", {})[str(w)] = [str(deck.hand), str(deck.hand_salt)]
            return TRANSFER, msg
        chooser = self.chooser_party(secrets, match_id, w, prover)
        if kind == CHOOSE:
            return CHOOSE, chooser.choose(x.commit)
        if chooser.choose(x.commit) != x.choose:  # HAND: the same party again, from the seed
            raise CommitmentMismatch(f"seat {seat}: the choose line of round {w} is not the one this seat's seed makes")
        try:
            chooser.open_transfer(x.transfer)
        except DealerFault as exc:
            assert exc.complaint is not None
            return COMPLAINT, {"round": w, "reveal": exc.complaint["reveal"]}
        msg = chooser.prove_hand()
        secrets.setdefault("hands", {})[str(w)] = [str(chooser.hand), str(chooser.hand_salt)]
        return HAND, msg

    def seat_hand(self, secrets: Mapping[str, Any], seat: int, round_no: int) -> tuple[int, int]:
        """A seat's own hand of ``round_no`` as ``(mask, salt)``: the one it made (and
        committed to, in its own exchange line) from its seed."""
        got = secrets.get("hands", {}).get(str(round_no))
        if got is None:
            raise CommitmentMismatch(f"seat {seat}: it made no hand in round {round_no}'s exchange")
        return int(got[0]), int(got[1])


__all__ = ["ObliviousDeal", "ObliviousPublic", "Exchange", "SCHEME", "TRUST"]
