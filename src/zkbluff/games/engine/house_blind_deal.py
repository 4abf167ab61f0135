"""``HouseBlindDeal``: the house-blind deal for 2–6 seats (docs/house-blind-deal.md) as a deal
scheme of the match engine. No party — the house (the engine's dealer and referee), a seat,
or any coalition that leaves out one honest seat — learns a card it was not dealt, and
nobody can bias the deck (one honest shuffler keeps it uniform).

The *seats* run :mod:`zkbluff.protocol.house_blind` between them as signed transcript lines;
the engine's dealer only writes the game's ``deal`` action once every seat's hand is bound
(it carries no proof and no sealed hand). Per round ``r`` (every deal of the match is its
own round), while the rules wait for a deal, in seat order within each step:

1. ``house-blind.key`` (each seat): ``h_k`` with its Schnorr proof (and, on round 1, the
   game's extra seat keys, e.g. Cheat's pile key);
2. ``house-blind.shuffle`` (each seat, seat 0 first, each on the deck of the line before):
   the deck re-encrypted and permuted, with its shuffle argument;
3. ``house-blind.shares`` (each seat): its Chaum–Pedersen-proven decryption share of every
   card of the final deck held by another seat or the board (never its own, never an
   undealt card);
4. ``house-blind.hand`` (each seat): its Poseidon hand commitment, the committed Groth16
   proof of ``card.hand_binding.v1`` and the sigma proof binding it to exactly the cards
   opened to it (:mod:`zkbluff.protocol.hand_binding`) — or ``house-blind.complaint``: the
   seat names a share of one of its cards that does not verify; any verifier re-checks it
   from the share line as written: upheld, its sender is at fault and the match ends;
5. ``deal`` (the engine's dealer, a rules action): the round starts with the hand
   commitments of step 4 (and the board, opened by the shares).

Every proof is bound to its line: its context is ``(match, seat, "house-blind:<r>:<step>",
the hash of the line before)``, so a message of another match, round, seat or position is
refused. The live referee checks every line when it is written; the offline verifier checks
the keys and shuffles at their lines and every share in one batch once the shares are in
(a founded complaint stops the round first). A seat that lets ``limits.deal`` pass without
its line — it does not shuffle, or withholds a share after the others acted — is timed out
by the referee (``house-blind.timeout``) and is **at fault**: it places last and the match
ends there (the verifier's result names it), so withholding never helps it: it can only lose.

Each seat keeps JSON-safe secrets: a 32-byte seed from which every random choice of its side
is derived (so it rebuilds its party from the seed and the transcript), its extra keys'
secrets, and each round's own hand (mask and salt) once it has bound it.

Using it in a game: hold ``HouseBlindDeal(game, n_seats, deck, wanted)`` as the spec's
``deal``, where ``wanted(view)`` gives ``(round, owners)`` for the deal the rules wait for
(owners: a seat, :data:`~zkbluff.protocol.house_blind.BOARD` or ``UNDEALT`` per position) or
None; give the ledger ``deal`` (:meth:`new_public`); the game's deal action owes no proof
(:meth:`demand` checks it) and takes its hand commitments from :meth:`hand_commitments`; a
seat's own hand is :meth:`seat_hand`.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets as pysecrets
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Mapping, Optional, Sequence

from zkbluff.errors import (
    CommitmentMismatch, IllegalMove, InvalidProof, InvalidShare, InvalidShuffle, MalformedInput,
    OutOfOrder, TranscriptError, UnfoundedComplaint,
)
from zkbluff.field import r
from zkbluff.games.engine.deal_clock import OneLineDealClock, last_at_fault
from zkbluff.games.engine.rules import Result
from zkbluff.games.engine.spec import DealScheme, Role
from zkbluff.protocol import dleq
from zkbluff.protocol.elgamal import (
    Deck, KeyAnnouncement, Share, Terms, add_share_terms, check_share_labels, initial_deck, joint_key,
    verify_key, verify_shares,
)
from zkbluff.protocol.hand_binding import HandMessage, hand_message, verify_hands
from zkbluff.protocol.house_blind import (
    BOARD, UNDEALT, DealLayout, DealRecord, HouseBlindSeat, expected_shares, step_context,
)
from zkbluff.protocol.oblivious_deal import DealRandom
from zkbluff.protocol.shuffle import ShuffleProof, verify_shuffle

SCHEME = "house-blind-deal.v1"
TRUST = ("house-blind deal: the seats deal between themselves — each shuffles and re-encrypts the deck in turn "
         "and proves it (ElGamal on BN254 G1, a Terelius–Wikström shuffle argument), each card is opened to its "
         "seat alone by the other seats' proven decryption shares, and each seat binds its hand commitment to "
         "exactly the cards opened to it (card.hand_binding.v1); nobody, the house included, learns a card it "
         "was not dealt, one honest shuffler keeps the deck uniform, a seat that withholds its line is at fault, "
         "and nothing is revealed after the match; every line is signed by its party")

PREFIX = "house-blind."
KEY, SHUFFLE, SHARES, HAND = PREFIX + "key", PREFIX + "shuffle", PREFIX + "shares", PREFIX + "hand"
COMPLAINT, TIMEOUT = PREFIX + "complaint", PREFIX + "timeout"
STEPS = (KEY, SHUFFLE, SHARES, HAND)
#: the protocol step of each line kind (the proofs' context names it)
_STEP = {KEY: "key", SHUFFLE: "shuffle", SHARES: "shares", HAND: "hand"}

Wanted = Callable[[Any], Optional[tuple[int, tuple[int, ...]]]]


@dataclass(frozen=True)
class Round:
    """One round's deal as the table holds it: each step's messages in seat order with the
    hash of the line before each (its proofs' ``prev``) and its line number."""

    round: int
    layout: DealLayout
    match_id: str = ""
    keys: tuple[tuple[KeyAnnouncement, str, int], ...] = ()
    shuffles: tuple[tuple[Deck, ShuffleProof, str, int], ...] = ()
    shares: tuple[tuple[tuple[Share, ...], str, int], ...] = ()
    #: whether every share was verified (live: at its line; offline: in one batch, once all were in)
    shares_checked: bool = False
    #: ``(seat, message, prev, line)`` of each seat that holds cards, in seat order
    hands: tuple[tuple[int, HandMessage, str, int], ...] = ()
    board: Mapping[int, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.layout.n_seats

    @property
    def complete(self) -> bool:
        """Every seat's key, shuffle and shares in and checked, and every binder's hand bound
        (a public draw binds no hand: it is complete once its last share line is in)."""
        return len(self.shares) == self.n and self.shares_checked and len(self.hands) == len(self.binders)

    @property
    def binders(self) -> list[int]:
        """The seats that hold cards this round (a public draw has none; a knocked-out seat
        shuffles and shares but holds none), in the order they bind their hands."""
        return [s for s in range(self.n) if self.layout.positions_of(s)]

    def record(self, match_id: str) -> DealRecord:
        return DealRecord(match_id, self.round, self.layout, [(k, prev) for k, prev, _ in self.keys],
                          [(d, pf, prev) for d, pf, prev, _ in self.shuffles],
                          [(list(s), prev) for s, prev, _ in self.shares])

    def joint_key(self) -> Any:
        return joint_key([k.h for k, _, _ in self.keys])

    def deck_before(self, seat: int) -> Deck:
        """The deck seat ``seat`` shuffles (the public starting deck for seat 0)."""
        if seat == 0:
            return initial_deck(self.layout.deck, self.joint_key())
        return self.shuffles[seat - 1][0]

    @property
    def final(self) -> Deck:
        return self.shuffles[-1][0]

    def hand_commitment(self, seat: int) -> int:
        return next(msg.hand_commitment for s, msg, _, _ in self.hands if s == seat)

    def hand_context(self, seat: int) -> int:
        """The ``context`` public input of ``seat``'s binding proof (what made its hand commitment)."""
        from zkbluff.protocol.hand_binding import context_scalar

        prev = next(p for s, _, p, _ in self.hands if s == seat)
        return context_scalar(step_context(self.match_id, self.round, seat, "hand", prev))


@dataclass(frozen=True)
class HouseBlindPublic:
    """The deal's public state (``ledger.deal``): the current round, each seat's extra keys
    (from its round-1 key line), what the hand-overs of a game are bound to, a fault."""

    current: Optional[Round] = None
    seat_keys: Mapping[int, Mapping[str, str]] = field(default_factory=dict)
    binding: Optional[int] = None
    fault: Optional[str] = None
    fault_line: Optional[int] = None
    fault_seat: Optional[int] = None  # None: the engine's dealer
    #: a fault the transcript shows (an upheld complaint, the dealer's silence), not a seat's timeout
    proven: bool = False


def binding_of(prev: str) -> int:
    """What a game binds its own seat-to-seat messages to at a house-blind table (Cheat's
    hand-overs): a field element hashed from the hash of the line before seat 0's first key
    line (the header's hash: unique to the match)."""
    return int.from_bytes(hashlib.sha256(b"zkbluff:house-blind:binding:v1:" + prev.encode()).digest(), "big") % r


def binding_key_id(deck: int, hand: int) -> str:
    from zkbluff.statements.hand_binding import hand_binding_statement

    return hand_binding_statement(deck, hand).key_id


def _rng(secrets: Mapping[str, Any], match_id: str, round_no: int, step: str) -> DealRandom:
    seed = bytes.fromhex(secrets["seed"])
    return DealRandom(hmac.digest(seed, f"zkbluff:house-blind-seat:v1:{match_id}:{round_no}:{step}".encode(),
                                  hashlib.sha256))


def _fields(data: Any, expected: set[str], what: str) -> dict[str, Any]:
    if not isinstance(data, dict) or set(data) != expected:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise MalformedInput(f"{what}: fields {got}, expected {sorted(expected)}")
    return data


def _at(exc: Exception, line: int) -> Exception:
    """``exc`` naming ``line`` (a check deferred to a later line reports the line it checks)."""
    setattr(exc, "line", line)
    return exc


class HouseBlindDeal(OneLineDealClock, DealScheme):
    """The house-blind deal of ``n_seats`` seats over a deck of ``deck`` cards; see the module."""

    closing: ClassVar[Optional[str]] = None  # nothing is revealed after the match
    trust: ClassVar[str] = TRUST
    timeout_kind: ClassVar[str] = TIMEOUT
    line_roles: ClassVar[Mapping[str, Role]] = {KEY: Role.SEAT, SHUFFLE: Role.SEAT, SHARES: Role.SEAT,
                                                HAND: Role.SEAT, COMPLAINT: Role.SEAT, TIMEOUT: Role.REFEREE}

    def __init__(self, game: str, n_seats: int, deck: int, wanted: Wanted, hand_sizes: Sequence[int],
                 seat_keys: tuple[str, ...] = ()):
        self.game, self.n_seats, self.deck, self.wanted = game, n_seats, deck, wanted
        self.hand_sizes = tuple(sorted(set(hand_sizes)))
        self.seat_keys = tuple(seat_keys)
        self.line_fields = {KEY: frozenset({"round", "key"} | {f"{k}Key" for k in self.seat_keys}),
                            SHUFFLE: frozenset({"round", "deck", "proof"}), SHARES: frozenset({"round", "shares"}),
                            HAND: frozenset({"round", "hand"}), COMPLAINT: frozenset({"round", "sender", "position"}),
                            TIMEOUT: frozenset({"seat", "line", "since", "deadline"})}

    @property
    def statement_ids(self) -> list[str]:
        """The binding keys of every hand size this table deals."""
        return [binding_key_id(self.deck, m) for m in self.hand_sizes]

    # ---------------------------------------------------------------- the header
    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"scheme": SCHEME, "seats": self.n_seats, "deck": self.deck,
                               "statements": self.statement_ids}
        if self.seat_keys:
            out["seatKeys"] = list(self.seat_keys)
        return out

    def check_header(self, deal: Any, n_seats: int) -> None:
        expected = self.header({}, [])
        if deal != expected:
            raise MalformedInput(f"header: deal must be {expected}, got {deal!r:.200}")

    def new_public(self) -> HouseBlindPublic:
        return HouseBlindPublic()

    # ---------------------------------------------------------------- the state of the deal
    def _wanted(self, view: Any) -> Optional[tuple[int, DealLayout]]:
        if view.over:
            return None
        got = self.wanted(view)
        if got is None:
            return None
        return got[0], DealLayout(self.n_seats, tuple(got[1]))

    def _round(self, view: Any, w: int) -> Optional[Round]:
        x: Optional[Round] = view.ledger.deal.current
        return x if x is not None and x.round == w else None

    def due(self, view: Any) -> Optional[tuple[str, int, int]]:
        """``(kind, seat, round)`` of the deal line the table waits for, or None (no deal
        wanted, the round's hands all bound, or a fault)."""
        pub: HouseBlindPublic = view.ledger.deal
        want = self._wanted(view)
        if want is None or pub.fault:
            return None
        w = want[0]
        x = self._round(view, w)
        if x is None:
            return KEY, 0, w
        for kind, got in ((KEY, x.keys), (SHUFFLE, x.shuffles), (SHARES, x.shares)):
            if len(got) < x.n:
                return kind, len(got), w
        if not x.complete:
            return HAND, x.binders[len(x.hands)], w
        return None

    def owed(self, view: Any) -> Optional[tuple[str, Optional[int], int]]:
        """What the table waits for from the deal: a seat's line (:meth:`due`), or the
        dealer's ``deal`` line once every hand is bound (seat None)."""
        step = self.due(view)
        if step is not None:
            return step
        want = self._wanted(view)
        if want is None or view.ledger.deal.fault:
            return None
        x = self._round(view, want[0])
        if x is None or not x.complete:
            return None
        return "deal", None, want[0]

    def ready(self, ledger: Any) -> bool:
        return not ledger.deal.fault

    def exchange(self, ledger: Any, round_no: int) -> Round:
        """The complete round ``round_no`` (:class:`IllegalMove` if there is none)."""
        x: Optional[Round] = ledger.deal.current
        if x is None or x.round != round_no or not x.complete or ledger.deal.fault:
            raise IllegalMove(f"deal: round {round_no}'s house-blind deal is not complete (no card is dealt before "
                              f"every seat has bound its hand)")
        return x

    def complete(self, ledger: Any, round_no: int) -> bool:
        x: Optional[Round] = ledger.deal.current
        return x is not None and x.round == round_no and x.complete and not ledger.deal.fault

    # ---------------------------------------------------------------- the game's deal action
    def demand(self, ledger: Any, round_no: int, board: int = 0, sealed_hands: tuple[str, ...] = ()) -> None:
        """Check a deal action against the round; it owes no proof (the hands were bound on
        the seats' own lines)."""
        x = self.exchange(ledger, round_no)
        if sealed_hands != ():
            raise MalformedInput("deal: no sealed hands at a house-blind deal (each seat opened its own)")
        if board != self.board_mask(x):
            raise IllegalMove(f"deal: board {board:#x}, the shares open {self.board_mask(x):#x}")

    def hand_commitments(self, ledger: Any, round_no: int) -> list[Optional[int]]:
        x = self.exchange(ledger, round_no)
        return [x.hand_commitment(s) if x.layout.positions_of(s) else None for s in range(self.n_seats)]

    def hand_contexts(self, ledger: Any, round_no: int) -> list[Optional[int]]:
        """Each seat's binding proof's ``context`` (None for a seat dealt nothing)."""
        x = self.exchange(ledger, round_no)
        return [x.hand_context(s) if x.layout.positions_of(s) else None for s in range(self.n_seats)]

    @staticmethod
    def board_mask(x: Round) -> int:
        return sum(1 << c for c in x.board.values())

    def board(self, ledger: Any, round_no: int) -> int:
        return self.board_mask(self.exchange(ledger, round_no))

    def starting_draw(self, ledger: Any, modulus: int) -> int:
        """A public draw fixed by round 1's key lines: SHA-256 of every seat's key, mod
        ``modulus``. The last seat to announce could re-draw its key to steer it, but it then
        knows no card at all (the deck is not yet shuffled), so it has nothing to steer towards."""
        x = self.exchange(ledger, 1)
        from zkbluff.protocol.elgamal import point_hex

        parts = [point_hex(k.h) for k, _, _ in x.keys]
        digest = hashlib.sha256(("zkbluff:house-blind-start-draw:v1:" + ":".join(parts)).encode()).digest()
        return int.from_bytes(digest, "big") % modulus

    # ---------------------------------------------------------------- the table (referee side)
    def check_line(self, view: Any, kind: str, seat: Optional[int], event: Mapping[str, Any]) -> None:
        pub: HouseBlindPublic = view.ledger.deal
        data, n, prev = event.get("data"), event["n"], event["prev"]
        if kind == TIMEOUT:
            self._check_timeout(view, data, event)
            return
        step = self.due(view)
        if step is None:
            raise IllegalMove(f"{kind}: no house-blind deal line is due now", code="deal.order")
        want, want_seat, w = step
        complaint = kind == COMPLAINT and want == HAND and seat is not None and seat >= want_seat \
            and bool(layout_now(self, view).positions_of(seat))
        if not complaint and (kind != want or seat != want_seat):
            raise OutOfOrder(f"{kind} from seat {seat}: the deal waits for {want} from seat {want_seat} (round {w})")
        assert seat is not None
        if not isinstance(data, dict) or data.get("round") != w or type(data.get("round")) is not int:
            raise IllegalMove(f"{kind}: a message of round {data.get('round') if isinstance(data, dict) else None!r:.10}; "
                              f"the deal is in round {w} (a replayed message is refused)", code="deal.round")
        want_layout = self._wanted(view)
        assert want_layout is not None
        layout = want_layout[1]
        x = self._round(view, w) or Round(w, layout, view.match_id)
        ctx = step_context(view.match_id, w, seat, _STEP.get(kind, "hand"), prev)
        if kind == KEY:
            extra = self.seat_keys if w == 1 else ()
            _fields(data, {"round", "key"} | {f"{k}Key" for k in extra}, KEY)
            ann = KeyAnnouncement.from_json(data["key"])
            keys = {k: dleq.check_public_hex(data[f"{k}Key"], f"{KEY}: {k}Key") for k in extra}
            verify_key(ann, ctx)
            new = replace(pub, current=replace(x, keys=x.keys + ((ann, prev, n),)))
            if extra:
                new = replace(new, seat_keys={**pub.seat_keys, seat: keys})
            if w == 1 and seat == 0:
                new = replace(new, binding=binding_of(prev))
            view.ledger.deal = new
            return
        if kind == SHUFFLE:
            _fields(data, {"round", "deck", "proof"}, SHUFFLE)
            got = data["deck"].get("A") if isinstance(data["deck"], dict) else None
            size = len(got) if isinstance(got, list) and 0 < len(got) <= layout.deck else layout.deck
            deck = Deck.from_json(data["deck"], size)  # a deck short of a card: refused by shuffle.shape below
            proof = ShuffleProof.from_json(data["proof"], layout.deck)
            verify_shuffle(x.deck_before(seat), deck, proof, x.joint_key(), ctx)
            view.ledger.deal = replace(pub, current=replace(x, shuffles=x.shuffles + ((deck, proof, prev, n),)))
            return
        if kind == SHARES:
            _fields(data, {"round", "shares"}, SHARES)
            raw = data["shares"]
            if not isinstance(raw, list) or len(raw) > layout.deck:
                raise MalformedInput(f"{SHARES}: a list of at most {layout.deck} shares")
            shares = tuple(Share.from_json(s, f"{SHARES}[{i}]") for i, s in enumerate(raw))
            check_share_labels(shares, expected_shares(layout, seat))
            x = replace(x, shares=x.shares + ((shares, prev, n),))
            if getattr(view, "verify_now", True):  # live: a wrong share is refused at its line
                self._verify_shares(view.match_id, x, [seat])
            if len(x.shares) == x.n:
                if not getattr(view, "verify_now", True) and not x.binders:  # a public draw: nobody to complain
                    self._verify_shares(view.match_id, x, range(x.n))
                if getattr(view, "verify_now", True) or not x.binders:
                    x = replace(x, shares_checked=True)
                x = replace(x, board=self._open_board(view.match_id, x) if x.shares_checked else {})
            view.ledger.deal = replace(pub, current=x)
            return
        if kind == COMPLAINT:
            self._check_complaint(view, data, seat, n, x)
            return
        # HAND
        _fields(data, {"round", "hand"}, HAND)
        m = len(layout.positions_of(seat))
        msg = HandMessage.from_json(data["hand"], m)
        if not x.shares_checked:  # offline: every share of the round in one batch, before any hand relies on them
            self._verify_shares(view.match_id, x, range(x.n))
            x = replace(x, shares_checked=True, board=self._open_board(view.match_id, x))
        key_id = binding_key_id(layout.deck, m)
        if key_id not in view.vks:
            raise InvalidShare(f"seat {seat} holds {m} cards; the header has no binding key {key_id}", seat=seat,
                               check="hand.binding")
        verify_hands(x.record(view.match_id), x.final, {seat: (msg, prev)}, view.vks[key_id], m + 1)
        view.n_proofs += 1
        view.ledger.deal = replace(pub, current=replace(x, hands=x.hands + ((seat, msg, prev, n),)))

    def _verify_shares(self, match_id: str, x: Round, seats: Any) -> None:
        keys = [k.h for k, _, _ in x.keys]
        final = x.final
        for seat in seats:
            shares, prev, line = x.shares[seat]
            try:
                verify_shares(shares, keys, final, expected_shares(x.layout, seat),
                              lambda k, prev=prev: step_context(match_id, x.round, k, "shares", prev))
            except InvalidShare as exc:
                raise _at(exc, line) from None

    def _open_board(self, match_id: str, x: Round) -> dict[int, int]:
        from zkbluff.protocol.house_blind import _open_board

        return _open_board(x.record(match_id), x.final, _backend())

    def _check_complaint(self, view: Any, data: Any, seat: int, n: int, x: Round) -> None:
        """Seat ``seat`` names the share of ``sender`` at ``position`` (one of its own cards)
        as not verifying: upheld when it does not, against the share line as written."""
        pub: HouseBlindPublic = view.ledger.deal
        _fields(data, {"round", "sender", "position"}, COMPLAINT)
        sender, pos = data["sender"], data["position"]
        if type(sender) is not int or type(pos) is not int or not 0 <= sender < x.n or sender == seat \
                or not 0 <= pos < x.layout.deck or x.layout.owners[pos] != seat:
            raise MalformedInput(f"{COMPLAINT}: sender must be another seat and position one of seat {seat}'s "
                                 f"cards, got {data!r:.80}")
        shares, prev, line = x.shares[sender]
        share = next((s for s in shares if s.card == pos), None)
        assert share is not None  # the labels were checked at the share line
        one = Terms()
        add_share_terms(one, share, x.keys[sender][0].h, x.final.A[pos],
                        step_context(view.match_id, x.round, sender, "shares", prev))
        if one.holds(_backend()):
            raise UnfoundedComplaint(f"{COMPLAINT}: seat {sender}'s share of position {pos} (line {line}) verifies; "
                                     f"the complaint is unfounded")
        view.ledger.deal = replace(pub, current=x, fault=f"seat {sender} sent seat {seat} a wrong decryption share "
                                   f"(position {pos}, line {line}: share.proof)", fault_line=n, fault_seat=sender,
                                   proven=True)

    # ---- time (deal_deadline, referee_line: OneLineDealClock)
    def _check_timeout(self, view: Any, data: Any, event: Mapping[str, Any]) -> None:
        deadline = self.check_timeout_line(view, data, event, code="timeout.clock")["deadline"]
        step = self.owed(view)
        assert step is not None  # the line was owed
        who = "the dealer" if step[1] is None else f"seat {step[1]}"
        what = {KEY: "its key", SHUFFLE: "its shuffle", SHARES: "its decryption shares", HAND: "its hand binding",
                "deal": "the deal"}[step[0]]
        view.ledger.deal = replace(view.ledger.deal, fault=f"{who} withheld {what} ({step[0]}, round {step[2]}) past "
                                   f"the deadline {deadline}: at fault", fault_line=event["n"],
                                   fault_seat=step[1], proven=step[1] is None)

    def outcome(self, ledger: Any, scores: tuple[int, ...],
                standing: Optional[tuple[int, ...]] = None) -> Optional[Result]:
        """Settled on the ``standing`` at the fault (the rules' standing places): the engine's
        dealer at fault (it sent no deal after every hand was bound; it holds no seat) worsens
        no seat's standing; a seat at fault places strictly last, below every other seat (a
        standing place already worse than everyone's is kept), the others in their standing
        order (withholding can only lose: a knocked-out seat cannot rise by it, nor turn a
        leader's win into a draw). When the rules keep no standing: the seat at fault 2, every
        other seat 1."""
        pub: HouseBlindPublic = ledger.deal
        if pub.fault is None:
            return None
        settled = "; settled on the standing at the fault"
        if standing is None:
            return Result(tuple(2 if s == pub.fault_seat else 1 for s in range(self.n_seats)), scores,
                          f"the deal ended the match: {pub.fault}")
        if pub.fault_seat is None:
            return Result(tuple(standing), scores, f"the deal ended the match: {pub.fault}{settled}")
        return Result(last_at_fault(tuple(standing), pub.fault_seat), scores,
                      f"the deal ended the match: {pub.fault}{settled}, seat {pub.fault_seat} last")

    def fault(self, ledger: Any) -> Optional[tuple[int, str]]:
        """A fault the transcript proves: an upheld complaint, the dealer's silence; or (the
        offline verifier, at the end of a transcript whose last round's shares were not yet
        needed) a share line that does not verify is :class:`TranscriptError` naming its line."""
        pub: HouseBlindPublic = ledger.deal
        x = pub.current
        # a seat's timeout ends no check: a share line before it must verify too (else a house that
        # dropped a complaint would have the victim, timed out, blamed)
        if (pub.fault is None or not pub.proven) and x is not None and x.shares and not x.shares_checked:
            try:
                self._verify_shares(x.match_id, x, range(len(x.shares)))
            except InvalidShare as exc:  # the transcript fails at the share line, as a check at that line would
                raise TranscriptError(f"transcript line {getattr(exc, 'line')}: {exc}", line=getattr(exc, "line"),
                                      code=exc.check) from None
        if pub.fault is None or pub.fault_line is None or not pub.proven:
            return None
        return pub.fault_line, pub.fault

    # ---------------------------------------------------------------- the engine's dealer: nothing secret
    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"matchId": match_id}

    # ---------------------------------------------------------------- the seats
    def seat_secrets(self) -> dict[str, Any]:
        return {"seed": pysecrets.token_bytes(32).hex(), "hands": {},
                **{f"{k}Secret": pysecrets.token_bytes(32).hex() for k in self.seat_keys}}

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # the house gets nothing

    def party(self, secrets: Mapping[str, Any], seat: int, layout: DealLayout, match_id: str,
              round_no: int, step: str, prev: str) -> HouseBlindSeat:
        """The seat's protocol party of ``round_no``, rebuilt from its seed: the same key in
        every step; every other random choice (nonces, permutation, re-encryption, blind) drawn
        for this step *and the line it follows*. A line made again after another line took its
        place follows another hash, so no nonce is ever used under two challenges (two Schnorr,
        Chaum–Pedersen or shuffle answers to one commitment would give the house the key or the
        permutation)."""
        p = HouseBlindSeat(seat, layout, match_id, round_no, rng=_rng(secrets, match_id, round_no, "keygen"),
                           backend=_backend())
        p.rng = _rng(secrets, match_id, round_no, f"{step}:{prev}")
        return p

    def seat_line_in(self, secrets: dict[str, Any], seat: int, view: Any, prover: Any,
                     clock: Callable[[], float]) -> Optional[tuple[str, dict[str, Any], float]]:
        due = self._seat_line(secrets, seat, view, prover)
        return None if due is None else (due[0], due[1], clock())

    def _seat_line(self, secrets: dict[str, Any], seat: int, view: Any,
                   prover: Any) -> Optional[tuple[str, dict[str, Any]]]:
        step = self.due(view)
        if step is None:
            return None
        kind, due_seat, w = step
        if kind == HAND and due_seat < seat and layout_now(self, view).positions_of(seat):
            # not its turn to bind yet: a wrong share of its own cards is its complaint now
            return self._early_complaint(secrets, seat, view)
        if due_seat != seat:
            return None
        want = self._wanted(view)
        assert want is not None
        layout, match_id, prev = want[1], view.match_id, view.head
        x = self._round(view, w) or Round(w, layout, match_id)
        p = self.party(secrets, seat, layout, match_id, w, _STEP[kind], prev)
        if kind == KEY:
            data: dict[str, Any] = {"round": w, "key": p.key_message(prev).to_json()}
            if w == 1:
                for k in self.seat_keys:
                    data[f"{k}Key"] = dleq.public_hex(secrets[f"{k}Secret"])
            return KEY, data
        h = _public(p)
        if x.keys[seat][0].h != h:
            raise CommitmentMismatch(f"seat {seat}: the key line of round {w} is not the one this seat's seed makes")
        p.announcement = x.keys[seat][0]
        if kind == SHUFFLE:
            deck, proof = p.shuffle_message(x.deck_before(seat), x.joint_key(), prev)
            return SHUFFLE, {"round": w, "deck": deck.to_json(), "proof": proof.to_json()}
        if kind == SHARES:
            return SHARES, {"round": w, "shares": [s.to_json() for s in p.share_message(x.final, prev)]}
        record = x.record(match_id)
        try:
            cards = p.open_hand(x.final, record.shares, [k.h for k, _, _ in x.keys])
        except InvalidShare as exc:
            if exc.seat is None or exc.card is None:
                raise
            return COMPLAINT, {"round": w, "sender": exc.seat, "position": exc.card}
        m = len(cards)
        key_id = binding_key_id(layout.deck, m)
        from zkbluff.statements.registry import get_statement

        salt = int.from_bytes(hmac.digest(bytes.fromhex(secrets["seed"]),
                                          f"zkbluff:house-blind-salt:v1:{match_id}:{w}".encode(), hashlib.sha512),
                              "big") % r
        msg = hand_message(p.key, h, seat, record, x.final, cards, salt, get_statement(key_id),
                           prover.key(key_id), prev, rng=p.rng, backend=_backend())
        mask = sum(1 << c for c in cards.values())
        secrets.setdefault("hands", {})[str(w)] = [str(mask), str(salt)]
        return HAND, {"round": w, "hand": msg.to_json()}

    def _early_complaint(self, secrets: dict[str, Any], seat: int, view: Any) -> Optional[tuple[str, dict[str, Any]]]:
        """Once every share is in, a seat checks the shares of its own cards (once a round): a
        wrong one is its complaint, sent before any seat binds a hand on them."""
        want = self._wanted(view)
        assert want is not None
        w, layout = want
        tag = f"{view.match_id}:{w}"
        if secrets.get("checked") == tag:
            return None
        x = self._round(view, w)
        assert x is not None
        p = self.party(secrets, seat, layout, view.match_id, w, "check", view.head)
        try:
            p.open_hand(x.final, x.record(view.match_id).shares, [k.h for k, _, _ in x.keys])
        except InvalidShare as exc:
            if exc.seat is None or exc.card is None:
                raise
            return COMPLAINT, {"round": w, "sender": exc.seat, "position": exc.card}
        secrets["checked"] = tag
        return None

    def seat_hand(self, secrets: Mapping[str, Any], seat: int, round_no: int) -> tuple[int, int]:
        """A seat's own hand of ``round_no`` as ``(mask, salt)``: the one it bound on its hand line."""
        got = secrets.get("hands", {}).get(str(round_no))
        if got is None:
            raise CommitmentMismatch(f"seat {seat}: it bound no hand in round {round_no}")
        return int(got[0]), int(got[1])


def describe_line(kind: str, data: Mapping[str, Any], who: str, names: Sequence[str]) -> Optional[str]:
    """One sentence for a person about one of the house-blind deal's lines (``who`` names the
    line's seat) or one of the zk dealer's (:func:`~zkbluff.games.engine.proven_deal.describe_line`),
    or None for any other line: the games' terminal text says these the same way."""
    if kind == KEY:
        return f"{who} announces its deal key for round {data.get('round')}, with a proof it knows the secret."
    if kind == SHUFFLE:
        return f"{who} shuffles and re-encrypts the deck, and proves it is the same cards."
    if kind == SHARES:
        n = len(data.get("shares") or [])
        return f"{who} sends its proven decryption shares of the {n} cards that are not its own."
    if kind == HAND:
        return f"{who} opens its own cards alone and commits to them, with a proof they are the cards opened to it."
    if kind == COMPLAINT:
        return (f"{who} complains: {names[data['sender']]}'s share of one of its cards (position "
                f"{data['position']}) does not verify.")
    if kind == TIMEOUT:
        late = "the dealer" if data.get("seat") is None else names[data["seat"]]
        return f"{late} sent no {data.get('line')} line by the deadline: at fault."
    from zkbluff.games.engine.proven_deal import describe_line as proven

    return proven(kind, data, who, names)


def layout_now(deal: HouseBlindDeal, view: Any) -> DealLayout:
    want = deal._wanted(view)
    assert want is not None
    return want[1]


def _public(p: HouseBlindSeat) -> Any:
    from zkbluff.protocol.elgamal import G

    return p.be.g1_mul_many(G, [p.key.x])[0]


def _backend() -> Any:
    from zkbluff.curve import get_backend

    return get_backend()


def full_deal(n_seats: int, deck: int, order: Sequence[int]) -> tuple[int, ...]:
    """Owners of a whole-deck deal: position ``i`` to ``order[i % n]`` (the first seats of
    ``order`` get the extra cards)."""
    return tuple(order[i % n_seats] for i in range(deck))


def hands_then(n_hands: Sequence[int], hand: int, deck: int, board: int = 0) -> tuple[int, ...]:
    """Owners: ``hand`` cards to each seat of ``n_hands`` (round-robin), then ``board``
    cards to the board, the rest undealt."""
    owners = [n_hands[i % len(n_hands)] for i in range(hand * len(n_hands))] + [BOARD] * board
    return tuple(owners + [UNDEALT] * (deck - len(owners)))


__all__ = ["HouseBlindDeal", "HouseBlindPublic", "Round", "last_at_fault", "SCHEME", "TRUST", "KEY", "SHUFFLE", "SHARES", "HAND",
           "COMPLAINT", "TIMEOUT", "binding_of", "describe_line", "binding_key_id", "full_deal", "hands_then", "InvalidProof",
           "InvalidShuffle"]
