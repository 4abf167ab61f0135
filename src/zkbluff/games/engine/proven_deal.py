"""``ProvenDeal``: the zk dealer's deal in proof, for any game on the engine whose shares are
drawn from the seed: cards, dice, tokens (what is drawn is its *deal statement*'s,
:mod:`zkbluff.games.engine.deal_statement`: ``card.deal.v2`` for cards, ``dice.deal.v1`` for dice).

The dealer (at Proof or Bluff the house) deals every round with the deal statement (cards: ``card.deal.v2``): the
hands (and a public board) are computed *inside the proof* from entropies committed in an
order nobody can grind (:mod:`zkbluff.protocol.entropy`), and nothing is revealed after the
match. The order is written in the transcript, before any card is dealt:

1. ``entropy.dealer`` (the dealer's line): its entropy commitment ``Poseidon(e_D, s_D)``, its
   X25519 channel key and ``deadline = at + limits.entropy`` (the header's window: the
   dealer does not choose how long the seats get). The window runs from the line's referee
   stamp: the referee's receipt of it (within the tolerance of the dealer's ``at``), so the
   entropies are due by the receipt plus the window.
2. ``entropy.seat`` (each seat's own line, stamped by the deadline): its commitment
   ``Poseidon(e_i, s_i)`` (null for the dealer's own seat, which contributes no entropy),
   the SHA-256 commitment of a fresh *hand key* and its X25519 channel key; no opening.
   Refused before the dealer's line (``OutOfOrder``) and after the deadline (``LateEntropy``).
3. ``entropy.open`` (each seat's own line, once *every* seat's ``entropy.seat`` is recorded,
   stamped by the open deadline: the last commitment's stamp plus the same window): sealed to
   the dealer (AES-256-GCM under the X25519 channel key, bound to the match and the dealer's
   line) the opening and the hand key. An opening before the last commitment is refused
   (:class:`~zkbluff.errors.EarlyOpening`, ``deal.open-early``): sent then, the dealer could
   hand the honest seats' entropies to a planted seat still to commit, which would re-draw its
   own until it is dealt a hand it chose. Commit, then open: when the first opening is sent
   every entropy is already fixed (docs/fairness-draws.md says who can learn what, when).
4. ``entropy.forfeit`` (the referee's line, after a deadline): the seats that sent no
   commitment (or, after all committed, no opening) forfeit before any card is dealt; the
   match ends.

Then each deal action (any action with a ``sealed_hands`` field) carries a deal statement's
proof whose publics the table pins: every contributor's entropy commitment (contributor 0 the
dealer, then every seat that is not the dealer's, in seat order), the ``round`` (the round index:
every re-deal is its own round) and the public draw where the statement has one (a card deal's
``board``). Its share (hand) commitments become the seats'. The deal finds each of these among
the publics by position in the statement's typed declaration
(:class:`~zkbluff.games.engine.deal_statement.DealLayout`), never by a name it builds.
The dealer seals each seat's hand (mask and salt) under that seat's hand key. Each seat
checks that its own entropy commitment is an input of the proof and that its sealed hand
opens its hand commitment; if it does not, the seat writes a ``complaint`` line (the sealed
message and the hand key that opens it) and any verifier finds the dealer at fault: the
match ends there and ``transcript verify`` exits 1 naming the complaint line
(:class:`~zkbluff.errors.DealerAtFault`).

Using it in a game (Proof or Bluff, Cheat, Bluffers): hold a ``ProvenDeal(game, n_seats, hands,
board, dealer_seat, deck)`` (or ``ProvenDeal(game, n_seats, deals=DiceDeal(...))``) as the spec's ``deal``; give the ledger a ``deal`` attribute made by
:meth:`ProvenDeal.new_public`; in ``demand`` for the deal action return
:meth:`ProvenDeal.demand`; in ``record`` take the hand commitments from the proof's publics
(:meth:`ProvenDeal.read_publics`; cards: ``hand{k}_commitment``); in ``dealer_move`` call :meth:`ProvenDeal.deal_round`; in ``seat_receive`` call
:meth:`ProvenDeal.seat_open`. The deal action needs a ``sealed_hands: tuple[str, ...]`` field (one
sealed hand per hand of the proof, in the proof's order) and, where hand ``k`` is not seat ``k``'s,
a ``seats: tuple[int, ...]`` field (hand ``k`` is seat ``seats[k]``'s). The deal statement's parameter
set (``card.deal.v2`` with the game's deck, hands, board and ``entropies``) must be in the statement registry.

Its private state is typed (:mod:`zkbluff.games.engine.deal_state`: :class:`SeatSecrets`,
:class:`DealerState`); the parties hold and save it in its JSON form, read once at each call.
Each of its own lines has one checker (:attr:`ProvenDeal.checks`).

Where games differ, the deal is parametrised, not copied:

- *what one line deals* (a :class:`~zkbluff.games.engine.deal_statement.DealStatement`; for cards
  :class:`DealShape`, which is :class:`~zkbluff.games.engine.deal_statement.CardDeal`): the constructor's ``deals`` or ``hands``/``board``/``deck`` are the
  default; a game that deals other shapes (Bluffers: five cards to each *standing* seat; its table
  card, a public draw from a 3-card deck) passes a ``shape`` (and the ``seats`` dealt to) to
  :meth:`~ProvenDeal.demand` and :meth:`~ProvenDeal.deal_round`, and lists every shape's
  :meth:`~ProvenDeal.key_id` among its statements;
- *which seat gets which hand*: ``seats`` (Cheat deals in the order from the seat next to the
  hand's dealer, so one statement with non-increasing hand sizes serves every dealer);
- *more public keys on a seat's entropy line* (``seat_keys``): a named key per seat, its 32-byte
  secret in the seat's deal secrets (``<name>Secret``), its public key on the seat's own
  ``entropy.seat`` line (``<name>Key``), made and checked as ``seat_key_kind`` says (X25519 by
  default; Cheat's pile key is a G1 key, :mod:`zkbluff.protocol.dleq`, so that a dispute can
  disclose one hand-over's key with a proof instead of the key itself);
- *the dealer's seat*: ``dealer_seat`` (Proof or Bluff: the house plays seat 1 and contributes no
  entropy as a seat) or None (Cheat, Bluffers: the house is no seat; every seat contributes).
"""
from __future__ import annotations

import hashlib
import math
import secrets as pysecrets
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, ClassVar, Mapping, Optional, Sequence

from Crypto.PublicKey import ECC

from zkbluff.errors import (
    CommitmentMismatch, EarlyOpening, EarlyTimeout, IllegalMove, LateEntropy, MalformedInput, OutOfOrder,
    UnfoundedComplaint,
)
from zkbluff.games.engine.deal_state import DealerState, OpenedSeat, SeatSecrets
from zkbluff.games.engine.deal_statement import CardDeal, DealLayout, DealPublics, DealStatement
from zkbluff.games.engine.rules import Result
from zkbluff.games.engine.spec import DealScheme, ProofDemand, Role
from zkbluff.protocol.entropy import (
    HAND_KEY_BYTES, DealerCommit, EntropySecret, SeatEntropy, channel_key, check_wrong_hand_complaint,
    fresh_hand_key, hand_key_commitment, open_hand, open_seat_entropy, seal_hand, seat_entropy,
)
from zkbluff.protocol.messages import open_sealed, seal
from zkbluff.statements.base import Statement

SCHEME = "proven-deal.v1"
TRUST = ("zk dealer: the house deals and could see every hand, but cannot choose them: it committed its "
         "entropy first, each seat sent its own sealed with a public commitment, and every deal is computed "
         "inside the proof (card.deal.v2) from the committed entropies; nothing is revealed after the match, so a "
         "successful bluff stays secret forever; every line is signed by its party")

DEALER_LINE, SEAT_LINE, FORFEIT_LINE, COMPLAINT_LINE = "entropy.dealer", "entropy.seat", "entropy.forfeit", "complaint"
DEAL_TIMEOUT_LINE = "deal.timeout"
OPEN_LINE = "entropy.open"


#: what one deal line deals, for a card game (``card.deal.v2``): the deal statement of cards
DealShape = CardDeal


@dataclass(frozen=True)
class DealtHands:
    """One deal line as the table holds it: its line number, round, and per seat (in seat
    order; None for a seat dealt nothing on it) the sealed hand and the hand commitment its
    proof gave."""

    line: int
    round: int
    sealed: tuple[Optional[str], ...]
    commitments: tuple[Optional[int], ...]


@dataclass(frozen=True)
class DealPublic:
    """The deal's public state (in the game's ledger as ``ledger.deal``): the recorded
    entropy lines, the forfeits, the deals made, a dealer's fault. Immutable: a line that
    is refused leaves it unchanged."""

    dealer: Optional[dict[str, Any]] = None  # {"line", "at", "commitment", "deadline", "channelKey"}
    seats: Mapping[int, dict[str, Any]] = field(default_factory=dict)  # seat -> {"line", "at", "commitment", ...}
    opened: Mapping[int, dict[str, Any]] = field(default_factory=dict)  # seat -> {"line", "at", "sealed"}
    forfeited: tuple[int, ...] = ()
    deals: tuple[DealtHands, ...] = ()
    fault: Optional[str] = None
    fault_line: Optional[int] = None


def _field_str(data: Mapping[str, Any], key: str, what: str, nullable: bool = False) -> Optional[int]:
    from zkbluff.field import r

    v = data.get(key)
    if v is None and nullable:
        return None
    if not isinstance(v, str) or not v.isdigit() or len(v) > 78 or int(v) >= r:
        raise MalformedInput(f"{what}: {key!r} must be a decimal string of a field element, got {v!r:.40}")
    return int(v)


def _hex(data: Mapping[str, Any], key: str, what: str, n_bytes: Optional[int] = None) -> str:
    v = data.get(key)
    if not isinstance(v, str) or len(v) % 2 or not v or any(c not in "0123456789abcdef" for c in v) or \
            (n_bytes is not None and len(v) != 2 * n_bytes):
        raise MalformedInput(f"{what}: {key!r} must be {'' if n_bytes is None else 2 * n_bytes} lowercase hex "
                             f"digits, got {v!r:.40}")
    return v


def _fields(data: Any, expected: "set[str] | frozenset[str]", what: str) -> Mapping[str, Any]:
    if not isinstance(data, dict) or set(data) != expected:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise MalformedInput(f"{what}: fields {got}, expected {sorted(expected)}")
    return data


def stamp(event: Mapping[str, Any], what: str) -> float:
    """The line's referee stamp: the referee's signed receipt of a seat's line (checked by
    the referee before the deal sees the line), else the line's ``at``. Every window of the
    deal runs from, and every lateness is judged by, these: never a seat's own stamp."""
    received = event.get("received")
    v = received.get("at") if isinstance(received, dict) else event.get("at")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise MalformedInput(f"{what}: the line needs a time stamp 'at' (seconds >= 0), got {v!r}")
    return float(v)


def x25519_from_seed(seed_hex: str) -> ECC.EccKey:
    """The X25519 key of a 32-byte secret seed (hex), as the deal secrets hold them."""
    return ECC.construct(curve="X25519", seed=bytes.fromhex(seed_hex))


def x25519_public(seed_hex: str) -> str:
    """The raw public key (64 hex digits) of :func:`x25519_from_seed`."""
    return str(x25519_from_seed(seed_hex).public_key().export_key(format="raw").hex())


def _x25519_check(value: Any, what: str) -> str:
    return _hex({"key": value}, "key", what, 32)


@dataclass(frozen=True)
class SeatKeyKind:
    """How a seat's named extra key is published: ``public`` makes the published value from the
    seat's 32-byte secret (hex); ``check`` checks a published one (returns it, or raises
    :class:`MalformedInput` naming ``what``)."""

    public: Callable[[str], str]
    check: Callable[[Any, str], str]


@lru_cache(maxsize=256)
def _layout(shape: DealStatement, entropies: int, shares: int) -> DealLayout:
    """``shape``'s layout for ``entropies`` contributors and ``shares`` shares (made once)."""
    return shape.layout(entropies, shares)


#: the default extra seat key: an X25519 public key, 64 hex digits
X25519_KEY = SeatKeyKind(x25519_public, _x25519_check)


class ProvenDeal(DealScheme):
    """The deal in proof (its deal statement's: ``card.deal.v2`` for cards) behind the entropy
    commit order; see the module."""

    closing: ClassVar[Optional[str]] = None  # nothing is revealed after the match
    trust: ClassVar[str] = TRUST
    line_roles: ClassVar[Mapping[str, Role]] = {DEALER_LINE: Role.DEALER, SEAT_LINE: Role.SEAT,
                                                OPEN_LINE: Role.SEAT, FORFEIT_LINE: Role.REFEREE,
                                                COMPLAINT_LINE: Role.SEAT,
                                                DEAL_TIMEOUT_LINE: Role.REFEREE}
    #: the data fields of each of the deal's own lines (exactly these)
    line_fields: Mapping[str, frozenset[str]] = {
        DEALER_LINE: frozenset({"commitment", "deadline", "channelKey"}),
        SEAT_LINE: frozenset({"commitment", "handKeyCommitment", "channelKey"}),
        OPEN_LINE: frozenset({"sealed"}),
        FORFEIT_LINE: frozenset({"seats", "since", "deadline"}),
        COMPLAINT_LINE: frozenset({"line", "sealed", "handKey"}),
        DEAL_TIMEOUT_LINE: frozenset({"since", "deadline"})}

    def __init__(self, game: str, n_seats: int, hands: Optional[tuple[int, ...]] = None, board: int = 0,
                 dealer_seat: Optional[int] = None, deck: int = 52, seat_keys: tuple[str, ...] = (),
                 seat_key_kind: SeatKeyKind = X25519_KEY, deals: Optional[DealStatement] = None):
        """``deals``: the default deal line's statement (hand ``k`` to seat ``k``); by default
        the cards of ``hands`` (one size a seat) and ``board`` from a deck of ``deck`` cards."""
        if deals is None:
            if hands is None:
                raise ValueError(f"{game}: a deal needs hand sizes or a deal statement")
            deals = CardDeal(deck, tuple(hands), board)
        if deals.shares != n_seats:
            raise ValueError(f"{game}: {deals.shares} hand sizes for {n_seats} seats")
        if dealer_seat is not None and not 0 <= dealer_seat < n_seats:
            raise ValueError(f"{game}: the dealer's seat {dealer_seat} is not a seat")
        if any(not name.isalpha() or not name.islower() for name in seat_keys) or len(set(seat_keys)) != len(seat_keys):
            raise ValueError(f"{game}: seat key names must be distinct lowercase words, got {seat_keys}")
        self.game, self.n_seats, self.dealer_seat = game, n_seats, dealer_seat
        #: the seats that contribute entropy, in contributor order after the dealer
        self.entropy_seats = tuple(s for s in range(n_seats) if s != dealer_seat)
        #: the names of the extra keys each seat publishes on its entropy line, and their kind
        self.seat_keys, self.seat_key_kind = tuple(seat_keys), seat_key_kind
        # a seat's entropy line carries one more key per name in seat_keys (Cheat's pile key)
        self.line_fields = {**ProvenDeal.line_fields,
                            SEAT_LINE: ProvenDeal.line_fields[SEAT_LINE] | {f"{name}Key" for name in self.seat_keys}}
        #: the default deal: hand i to seat i
        self.shape: DealStatement = deals
        self.statement = self.statement_of(self.shape)

    @property
    def entropies(self) -> int:
        """How many contributors every deal proof takes: the dealer and each entropy seat."""
        return 1 + len(self.entropy_seats)

    @property
    def statement_id(self) -> str:
        return self.statement.key_id

    def statement_of(self, shape: DealStatement) -> Statement:
        """``shape``'s statement (cards: ``card.deal.v2``) with this table's entropy contributors."""
        return shape.statement(self.entropies)

    def key_id(self, shape: Optional[DealStatement] = None) -> str:
        """The statement key id of ``shape`` (the default deal's when None)."""
        return self.statement_id if shape is None else self.statement_of(shape).key_id

    def read_publics(self, publics: Mapping[str, int]) -> Optional[DealPublics]:
        """A deal proof's publics read by position (:class:`DealLayout`), or None when
        ``publics`` are not a deal proof's of this table (another proof of the line). Every
        statement a table deals is of its default deal statement's kind (Bluffers' rounds and
        table card: both ``card.deal.v2``), so one layout, sized by the share count, reads each."""
        shares = len(publics) - (len(_layout(self.shape, self.entropies, 1).inputs.public) - 1)
        if shares < 1:
            return None
        layout = _layout(self.shape, self.entropies, shares)
        return layout.read(publics) if layout.fits(publics) else None

    def _dealt_to(self, shape: DealStatement, seats: Optional[Sequence[int]]) -> tuple[int, ...]:
        """The seats share ``k`` goes to (``seats``, by default share k to seat k; none for a
        public draw); raises :class:`MalformedInput` unless they are distinct seats, one a share."""
        if not shape.sealed:
            if seats:
                raise MalformedInput(f"deal: a public draw is dealt to no seat, got seats {seats!r:.80}")
            return ()
        got = tuple(range(shape.shares)) if seats is None else seats
        if not isinstance(got, tuple) or len(got) != shape.shares or len(set(got)) != len(got) or \
                any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < self.n_seats for s in got):
            raise MalformedInput(f"deal: {shape.shares} distinct seats of 0..{self.n_seats - 1} are dealt to "
                                 f"(one a hand), got {got!r:.80}")
        return got

    @staticmethod
    def _line_seats(sealed: Sequence[Any], seats: Any) -> tuple[int, ...]:
        """Who each sealed hand of a deal line is for: its ``seats`` field, or hand k seat k's."""
        return tuple(range(len(sealed))) if seats is None else tuple(seats)

    # ---------------------------------------------------------------- the header
    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"scheme": SCHEME, "dealerSeat": self.dealer_seat,
                               "entropySeats": list(self.entropy_seats), "statement": self.statement_id}
        if self.seat_keys:
            out["seatKeys"] = list(self.seat_keys)
        return out

    def check_header(self, deal: Any, n_seats: int) -> None:
        expected = self.header({}, [])
        if deal != expected:
            raise MalformedInput(f"header: deal must be {expected}, got {deal!r:.200}")

    def new_public(self) -> DealPublic:
        return DealPublic()

    # ---------------------------------------------------------------- seat side
    def seat_secrets(self) -> dict[str, Any]:
        """A seat's fresh :class:`SeatSecrets`, in their saved (JSON) form."""
        e = EntropySecret.fresh()
        hand_key, x25519 = fresh_hand_key(), pysecrets.token_bytes(32).hex()
        keys = {name: pysecrets.token_bytes(32).hex() for name in self.seat_keys}
        return SeatSecrets(e, hand_key, x25519, keys).to_json()

    def secrets_of(self, secrets: "SeatSecrets | Mapping[str, Any]") -> SeatSecrets:
        """A seat's deal secrets, typed (read from their saved form when given as one)."""
        return secrets if isinstance(secrets, SeatSecrets) else SeatSecrets.from_json(secrets, self.seat_keys)

    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # everything public goes on the seat's own entropy line

    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # the entropy goes sealed on the seat's line, after the dealer's commitment

    def seat_line(self, secrets: "SeatSecrets | Mapping[str, Any]", seat: int, ledger: Any, match_id: str,
                  at: float) -> Optional[tuple[str, dict[str, Any]]]:
        """The seat's ``entropy.seat`` line (its commitments, no opening) once the dealer's
        commitment is recorded and before the seat sent one; its ``entropy.open`` line (the
        opening sealed to the dealer) once *every* seat's commitment is recorded, never
        before; None otherwise."""
        pub: DealPublic = ledger.deal
        if pub.dealer is None or pub.forfeited or pub.fault:
            return None
        own = self.secrets_of(secrets)
        if seat not in pub.seats:
            return SEAT_LINE, self._commit_data(own, seat)
        if not self.committed(pub) or seat in pub.opened:
            return None  # commit, then open: nothing leaves this seat before the last commitment
        return OPEN_LINE, {"sealed": self._sealed_opening(own, seat, pub.dealer, match_id, at)}

    def _commit_data(self, own: SeatSecrets, seat: int) -> dict[str, Any]:
        """The data of the seat's ``entropy.seat`` line: its commitments and public keys."""
        commitment = None if seat == self.dealer_seat else str(own.entropy.commitment)
        data: dict[str, Any] = {"commitment": commitment, "handKeyCommitment": hand_key_commitment(own.hand_key),
                                "channelKey": x25519_public(own.x25519)}
        for name in self.seat_keys:
            data[f"{name}Key"] = self.seat_key_kind.public(own.keys[name])
        return data

    def _sealed_opening(self, own: SeatSecrets, seat: int, d: Mapping[str, Any], match_id: str, at: float) -> str:
        """The seat's opening (its entropy and hand key; the dealer's own seat: its hand key
        only) sealed to the dealer's channel key ``d["channelKey"]`` of the dealer's line ``d``."""
        key = channel_key(x25519_from_seed(own.x25519), bytes.fromhex(d["channelKey"]), match_id, seat)
        if seat == self.dealer_seat:  # the dealer's own seat: a hand key, no entropy
            return seal(key, match_id, d["line"], {"handKey": own.hand_key.hex()})
        commit_line = DealerCommit(d["commitment"], d["deadline"], d["at"], d["line"])
        return seat_entropy(seat, own.entropy, own.hand_key, key, match_id, commit_line, at).sealed

    def seat_open(self, secrets: "SeatSecrets | Mapping[str, Any]", seat: int, match_id: str, line: int, sealed: str,
                  publics: Mapping[str, int], hand: Optional[int] = None) -> tuple[int, int]:
        """A seat's checks of a deal line: its own entropy commitment is the proof's input
        (:class:`IllegalMove` if not), and its sealed share opens the commitment of the proof's
        share ``hand`` (by default share ``seat``; :class:`CommitmentMismatch` if not: then it
        complains, :meth:`complaint`). Returns ``(value, salt)``: a hand's mask, a cup's dice."""
        own = self.secrets_of(secrets)
        got = self.read_publics(publics)
        if got is None:
            raise MalformedInput(f"deal: publics {sorted(publics)} are not a deal proof's of {self.statement.name}")
        if seat != self.dealer_seat:
            k = 1 + self.entropy_seats.index(seat)
            if got.entropies[k] != own.entropy.commitment:
                raise IllegalMove(f"seat {seat}: the deal proof's entropy{k}_commitment is not this seat's")
        slot = seat if hand is None else hand
        return open_hand(own.hand_key, match_id, line, sealed, got.shares[slot])

    def complaint(self, secrets: "SeatSecrets | Mapping[str, Any]", seat: int,
                  event: Mapping[str, Any]) -> Optional[dict[str, Any]]:
        """The ``complaint`` line's data for a deal line whose sealed hand for ``seat`` does
        not open; None for any other line (the seat's error stands)."""
        data = event.get("data")
        sealed = data.get("sealed_hands") if isinstance(data, dict) else None
        if not isinstance(sealed, list):
            return None
        seats = self._line_seats(sealed, data.get("seats"))  # type: ignore[union-attr]
        if seat not in seats:
            return None
        return {"line": event["n"], "sealed": sealed[seats.index(seat)],
                "handKey": self.secrets_of(secrets).hand_key.hex()}

    # ---------------------------------------------------------------- dealer side
    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The dealer's fresh :class:`DealerState`, in its saved (JSON) form."""
        e = EntropySecret.fresh()
        return DealerState(match_id, e, pysecrets.token_bytes(32).hex()).to_json()

    @staticmethod
    def state_of(dealer: "DealerState | Mapping[str, Any]") -> DealerState:
        """The dealer's state, typed (read from its saved form when given as one)."""
        return dealer if isinstance(dealer, DealerState) else DealerState.from_json(dealer)

    def dealer_line(self, dealer: "DealerState | Mapping[str, Any]", ledger: Any, header: Mapping[str, Any],
                    at: float) -> Optional[tuple[str, dict[str, Any]]]:
        """The dealer's ``entropy.dealer`` line (its first), or None once written."""
        if ledger.deal.dealer is not None:
            return None
        state = self.state_of(dealer)
        return DEALER_LINE, {"commitment": str(state.entropy.commitment), "deadline": at + entropy_window(header),
                             "channelKey": x25519_public(state.x25519)}

    def dealer_receive(self, dealer: "DealerState | Mapping[str, Any]", ledger: Any,
                       event: Mapping[str, Any]) -> Any:
        """The dealer opens a seat's sealed entropy (and hand key) from its recorded
        ``entropy.open`` line (the table records none before every commitment); the state
        comes back in the form it was given in (typed, or saved)."""
        if event.get("action") != OPEN_LINE:
            return dealer
        state, seat = self.state_of(dealer), event["seat"]
        after = state.opened(seat, self._open_seat(state, ledger.deal, seat))
        return after if isinstance(dealer, DealerState) else after.to_json()

    def _open_seat(self, state: DealerState, pub: DealPublic, seat: int) -> OpenedSeat:
        """What ``seat``'s recorded opening holds (raises :class:`CommitmentMismatch` if it does
        not open its commitments)."""
        rec = {**pub.seats[seat], "sealed": pub.opened[seat]["sealed"]}
        d = pub.dealer
        assert d is not None
        key = channel_key(x25519_from_seed(state.x25519), bytes.fromhex(rec["channelKey"]), state.match_id, seat)
        if seat == self.dealer_seat:
            got = open_sealed(key, state.match_id, d["line"], rec["sealed"])
            hand_key = bytes.fromhex(_hex(got, "handKey", "sealed hand key", HAND_KEY_BYTES))
            if hand_key_commitment(hand_key) != rec["handKeyCommitment"]:
                raise CommitmentMismatch(f"seat {seat}: the sealed hand key does not match its commitment")
            return OpenedSeat(hand_key)
        msg = SeatEntropy(seat, rec["commitment"], rec["handKeyCommitment"], rec["sealed"], rec["at"])
        secret, hand_key = open_seat_entropy(key, state.match_id, DealerCommit(
            d["commitment"], d["deadline"], d["at"], d["line"]), msg)
        return OpenedSeat(hand_key, secret)

    def contributors(self, dealer: "DealerState | Mapping[str, Any]") -> list[tuple[int, int]]:
        """``(entropy, salt)`` in contributor order: the dealer, then the entropy seats."""
        state = self.state_of(dealer)
        out = [(state.entropy.entropy, state.entropy.salt)]
        for s in self.entropy_seats:
            e = state.seats[s].entropy
            if e is None:  # pragma: no cover - an entropy seat's opening always holds its entropy
                raise MalformedInput(f"dealer state: seat {s} opened no entropy")
            out.append((e.entropy, e.salt))
        return out

    def deal_round(self, dealer: "DealerState | Mapping[str, Any]", round_no: int, line: int,
                   shape: Optional[DealStatement] = None, seats: Optional[tuple[int, ...]] = None
                   ) -> tuple[list[int], int, dict[str, int], tuple[str, ...]]:
        """Round ``round_no``'s deal of ``shape`` (the default deal when None), share ``k`` to
        seat ``seats[k]`` (by default seat k): ``(share values, public draw, proof inputs,
        sealed shares)`` (for cards: hand masks and the board mask); each share and a fresh salt
        sealed under its seat's hand key for ``line`` (none for a public draw)."""
        from zkbluff.field import r

        shape = shape or self.shape
        to = self._dealt_to(shape, seats)
        state = self.state_of(dealer)
        ents = self.contributors(state)
        drawn = shape.draw([e for e, _ in ents], round_no)
        salts = [pysecrets.randbelow(r) for _ in range(shape.shares)]
        inputs = shape.inputs(ents, salts, round_no)
        sealed = tuple(seal_hand(state.seats[s].hand_key, state.match_id, line, drawn.shares[k], salts[k])
                       for k, s in enumerate(to))
        return list(drawn.shares), drawn.public, inputs, sealed

    # ---------------------------------------------------------------- the table (referee side)
    def committed(self, pub: DealPublic) -> bool:
        """Every seat's ``entropy.seat`` (its commitment) is recorded: openings may come."""
        return pub.dealer is not None and len(pub.seats) == self.n_seats

    def open_due(self, pub: DealPublic, header: Mapping[str, Any]) -> tuple[int, float]:
        """``(line, deadline)`` of the openings: from the last commitment's line, its stamp
        plus the header's entropy window (every seat gets the whole window to open)."""
        last = max(pub.seats.values(), key=lambda rec: rec["line"])
        return last["line"], float(last["at"]) + entropy_window(header)

    def ready(self, ledger: Any) -> bool:
        """Every seat's commitment and then its opening is recorded, nobody forfeited, no
        fault: cards may be dealt."""
        pub: DealPublic = ledger.deal
        return self.committed(pub) and len(pub.opened) == self.n_seats and not pub.forfeited and not pub.fault

    def demand(self, ledger: Any, round_no: int, board: int, sealed_hands: tuple[str, ...],
               shape: Optional[DealStatement] = None, seats: Optional[tuple[int, ...]] = None) -> ProofDemand:
        """The deal action's proof: the statement of ``shape`` (the default deal when None)
        pinning the recorded entropy commitments in contributor order, the round index and the
        public draw ``board`` (where the statement has one: a card deal's board, 0 without);
        one sealed share for each of ``seats`` (by default share k to seat k)."""
        pub: DealPublic = ledger.deal
        shape = shape or self.shape
        if not self.ready(ledger):
            raise IllegalMove("deal: the entropy phase is not complete (no card is dealt before every seat's entropy)")
        to = self._dealt_to(shape, seats)
        if not isinstance(sealed_hands, tuple) or len(sealed_hands) != len(to):
            raise MalformedInput(f"deal: {len(sealed_hands)} sealed hands, expected one for each of the "
                                 f"{len(to)} seats dealt to")
        for i, text in enumerate(sealed_hands):
            _hex({"s": text}, "s", f"deal: sealed hand {i}")
        assert pub.dealer is not None
        commitments = [pub.dealer["commitment"]] + [pub.seats[s]["commitment"] for s in self.entropy_seats]
        pinned = _layout(shape, self.entropies, shape.shares).pin(commitments, round_no, board)
        return ProofDemand(self.key_id(shape), pinned)

    def observe(self, ledger: Any, line: int, action: Any, publics: list[dict[str, int]]) -> None:
        """After an accepted game line: a deal line (its ``sealed_hands``, its ``seats`` if
        any, and its deal proof's publics) is recorded per seat, so a complaint can name it."""
        sealed = getattr(action, "sealed_hands", None)
        deal = next((got for got in map(self.read_publics, publics) if got is not None), None)
        if not sealed or deal is None:
            return
        by_seat: list[Optional[str]] = [None] * self.n_seats
        commitments: list[Optional[int]] = [None] * self.n_seats
        for k, s in enumerate(self._line_seats(sealed, getattr(action, "seats", None))):
            by_seat[s], commitments[s] = sealed[k], deal.shares[k]
        ledger.deal = replace(ledger.deal, deals=ledger.deal.deals + (
            DealtHands(line, deal.round, tuple(by_seat), tuple(commitments)),))

    # ---------------------------------------------------------------- the deal's own lines
    def check_line(self, view: Any, kind: str, seat: Optional[int], event: Mapping[str, Any]) -> None:
        """Check one of the deal's own lines against the recorded state and record it:
        :attr:`checks` holds one checker per line kind, each returning the deal's public state
        with the line recorded (``ledger.deal`` is replaced only when the line is accepted)."""
        pub: DealPublic = view.ledger.deal
        if pub.forfeited or pub.fault:
            raise IllegalMove(f"{kind}: the match is over")
        check = self.checks.get(kind)
        if check is None:  # pragma: no cover - the referee only routes this scheme's kinds here
            raise MalformedInput(f"unknown deal line {kind!r}")
        view.ledger.deal = check(self, view, pub, seat, event)

    def _check_dealer(self, view: Any, pub: DealPublic, seat: Optional[int], event: Mapping[str, Any]) -> DealPublic:
        """``entropy.dealer``: the dealer's commitment, once, its deadline its own stamp plus
        the header's entropy window; the window runs from the line's referee stamp."""
        d = _fields(event.get("data"), self.line_fields[DEALER_LINE], "entropy.dealer")
        at = stamp(event, "entropy.dealer")
        if pub.dealer is not None:
            raise OutOfOrder(f"entropy.dealer: the dealer's commitment is already recorded (line {pub.dealer['line']})")
        window, own = entropy_window(view.header), float(event["at"])  # (a time: the referee checked it first)
        if d["deadline"] != own + window:
            raise MalformedInput(f"entropy.dealer: deadline {d['deadline']!r} is not its stamp {own} + the "
                                 f"header's entropy window {window}")
        # the window runs from the referee's receipt of the line (the dealer's own stamp, as it
        # signed its deadline, when the line has none: a transcript from before dealer receipts)
        rec = {"line": event["n"], "at": at, "commitment": _field_str(d, "commitment", "entropy.dealer"),
               "deadline": at + window, "channelKey": _hex(d, "channelKey", "entropy.dealer", 32)}
        return replace(pub, dealer=rec)

    def _check_seat(self, view: Any, pub: DealPublic, seat: Optional[int], event: Mapping[str, Any]) -> DealPublic:
        """``entropy.seat``: a seat's commitments, once, after the dealer's and by its deadline;
        a commitment from every seat but the dealer's own (which contributes no entropy)."""
        assert seat is not None
        d = _fields(event.get("data"), self.line_fields[SEAT_LINE], "entropy.seat")
        at = stamp(event, "entropy.seat")
        if pub.dealer is None:
            raise OutOfOrder(f"seat {seat}: an entropy before the dealer's commitment is refused "
                             "(the dealer must be bound first, or it could grind its own)")
        if seat in pub.seats:
            raise OutOfOrder(f"seat {seat}: its entropy is already recorded (line {pub.seats[seat]['line']})")
        if at > pub.dealer["deadline"]:
            raise LateEntropy(f"seat {seat}: entropy stamped {at}, after the deadline {pub.dealer['deadline']}")
        commitment = _field_str(d, "commitment", "entropy.seat", nullable=True)
        if (commitment is None) != (seat == self.dealer_seat):
            raise IllegalMove(f"seat {seat}: " + ("the dealer's seat contributes no entropy"
                                                  if seat == self.dealer_seat else "an entropy commitment is due"))
        rec = {"line": event["n"], "at": at, "commitment": commitment,
               "handKeyCommitment": _hex(d, "handKeyCommitment", "entropy.seat", 32),
               "channelKey": _hex(d, "channelKey", "entropy.seat", 32)}
        for name in self.seat_keys:
            rec[f"{name}Key"] = self.seat_key_kind.check(d.get(f"{name}Key"), f"entropy.seat: {name}Key")
        return replace(pub, seats={**pub.seats, seat: rec})

    def _check_open(self, view: Any, pub: DealPublic, seat: Optional[int], event: Mapping[str, Any]) -> DealPublic:
        """``entropy.open``: a seat's sealed opening, once, only after *every* commitment
        (:class:`EarlyOpening` before) and by the open deadline."""
        assert seat is not None
        d = _fields(event.get("data"), self.line_fields[OPEN_LINE], "entropy.open")
        at = stamp(event, "entropy.open")
        sealed = _hex(d, "sealed", "entropy.open")
        if seat not in pub.seats:
            raise EarlyOpening(f"seat {seat}: an opening before its own commitment (entropy.seat) is refused")
        if not self.committed(pub):
            waiting = [s for s in range(self.n_seats) if s not in pub.seats]
            raise EarlyOpening(f"seat {seat}: an opening before every commitment is refused (seats {waiting} "
                               "have not committed; whoever saw it could hand it to one of them)")
        if seat in pub.opened:
            raise OutOfOrder(f"seat {seat}: its opening is already recorded (line {pub.opened[seat]['line']})")
        deadline = self.open_due(pub, view.header)[1]
        if at > deadline:
            raise LateEntropy(f"seat {seat}: opening stamped {at}, after the deadline {deadline}")
        return replace(pub, opened={**pub.opened, seat: {"line": event["n"], "at": at, "sealed": sealed}})

    def _check_forfeit(self, view: Any, pub: DealPublic, seat: Optional[int], event: Mapping[str, Any]) -> DealPublic:
        """``entropy.forfeit`` (the referee's): after the phase's deadline, naming exactly the
        seats without a commitment (or, once all committed, an opening)."""
        d = _fields(event.get("data"), self.line_fields[FORFEIT_LINE], "entropy.forfeit")
        at = stamp(event, "entropy.forfeit")
        if pub.dealer is None:
            raise OutOfOrder("entropy.forfeit: no dealer's commitment, so no seat's deadline")
        since, deadline, missing = self._forfeit_due(pub, view.header)
        if d["since"] != since or d["deadline"] != deadline:
            raise MalformedInput(f"entropy.forfeit: it relies on line {d['since']!r} and deadline "
                                 f"{d['deadline']!r}; the transcript gives line {since} with deadline {deadline}")
        if at <= deadline:
            raise EarlyTimeout(f"entropy.forfeit: declared at {at}, not after the deadline {deadline}")
        if not missing or d["seats"] != missing:
            raise IllegalMove(f"entropy.forfeit: names seats {d['seats']!r}; the seats without an entropy line "
                              f"(or, once all committed, an opening) are {missing}")
        return replace(pub, forfeited=tuple(missing))

    def _check_complaint(self, view: Any, pub: DealPublic, seat: Optional[int],
                         event: Mapping[str, Any]) -> DealPublic:
        """``complaint``: a seat's sealed share of a recorded deal line and its hand key; the
        dealer is at fault if the key is the committed one and the share does not open
        (:class:`UnfoundedComplaint` otherwise)."""
        assert seat is not None
        d = _fields(event.get("data"), self.line_fields[COMPLAINT_LINE], "complaint")
        dealt = next((x for x in pub.deals if x.line == d["line"]), None)
        if dealt is None:
            raise MalformedInput(f"complaint: line {d['line']!r} is not a deal line")
        if seat not in pub.seats:
            raise IllegalMove(f"complaint: seat {seat} has no recorded hand key")
        sealed_on_line, hand_commitment = dealt.sealed[seat], dealt.commitments[seat]
        if sealed_on_line is None or hand_commitment is None:
            raise IllegalMove(f"complaint: line {d['line']} dealt seat {seat} no hand")
        fault = check_wrong_hand_complaint(
            {"type": "complaint.wrongHand", "seat": seat, "line": d["line"], "sealed": d["sealed"],
             "handKey": d["handKey"]},
            match_id=view.header["matchId"], hand_key_commitment_recorded=pub.seats[seat]["handKeyCommitment"],
            sealed_on_line=sealed_on_line, hand_commitment=hand_commitment)
        return replace(pub, fault=fault.reason, fault_line=event["n"])

    def _check_timeout(self, view: Any, pub: DealPublic, seat: Optional[int], event: Mapping[str, Any]) -> DealPublic:
        """``deal.timeout`` (the referee's): the dealer let its deadline (its commitment or its
        deal, ``limits.deal`` from the last line) pass: the dealer is at fault."""
        d = _fields(event.get("data"), self.line_fields[DEAL_TIMEOUT_LINE], "deal.timeout")
        at = stamp(event, "deal.timeout")
        due = self.dealer_due(view)
        if due is None:
            raise IllegalMove("deal.timeout: the table does not wait for the dealer's deal")
        if d != {"since": due[0], "deadline": due[1]}:
            raise MalformedInput(f"deal.timeout: it relies on line {d['since']!r} and deadline {d['deadline']!r}; "
                                 f"the transcript gives line {due[0]} and {due[1]}")
        if at <= due[1]:
            raise EarlyTimeout(f"deal.timeout: declared at {at}, not after the deadline {due[1]}")
        what = "no entropy commitment" if pub.dealer is None else "no deal (no hand sent)"
        return replace(pub, fault=f"{what} by the deadline {due[1]}", fault_line=event["n"])

    #: one checker per deal line kind (:meth:`check_line`)
    checks: ClassVar[Mapping[str, Callable[["ProvenDeal", Any, DealPublic, Optional[int], Mapping[str, Any]],
                                           DealPublic]]] = {
        DEALER_LINE: _check_dealer, SEAT_LINE: _check_seat, OPEN_LINE: _check_open, FORFEIT_LINE: _check_forfeit,
        COMPLAINT_LINE: _check_complaint, DEAL_TIMEOUT_LINE: _check_timeout}

    def _forfeit_due(self, pub: DealPublic, header: Mapping[str, Any]) -> tuple[int, float, list[int]]:
        """``(since, deadline, seats)`` of the entropy phase's forfeit: the dealer's line and
        deadline and the seats with no commitment; once all committed, the last commitment's
        line, the open deadline and the seats with no opening."""
        assert pub.dealer is not None
        if not self.committed(pub):
            return (pub.dealer["line"], float(pub.dealer["deadline"]),
                    [s for s in range(self.n_seats) if s not in pub.seats])
        since, deadline = self.open_due(pub, header)
        return since, deadline, [s for s in range(self.n_seats) if s not in pub.opened]

    def outcome(self, ledger: Any, scores: tuple[int, ...],
                standing: Optional[tuple[int, ...]] = None) -> Optional[Result]:
        """The match's end decided by the deal: a forfeit in the entropy phase (the seats
        that sent nothing place last) or the dealer at fault: its own seat, if it holds one,
        places last; a dealer that holds no seat (Cheat, Bluffers) ends the match on the
        ``standing`` at the fault (no seat's standing worsened; a leader keeps its lead),
        every seat place 1 only when the rules keep no standing."""
        pub: DealPublic = ledger.deal
        if pub.forfeited:
            who = ", ".join(str(s) for s in pub.forfeited)
            return Result(tuple(2 if s in pub.forfeited else 1 for s in range(self.n_seats)), scores,
                          f"seat(s) {who} sent no entropy in time: forfeit before any card was dealt")
        if pub.fault:
            if self.dealer_seat is None and standing is not None:
                return Result(tuple(standing), scores,
                              f"the dealer is at fault: {pub.fault}; settled on the standing at the fault")
            return Result(tuple(2 if s == self.dealer_seat else 1 for s in range(self.n_seats)), scores,
                          f"the dealer is at fault: {pub.fault}")
        return None

    def fault(self, ledger: Any) -> Optional[tuple[int, str]]:
        pub: DealPublic = ledger.deal
        return None if pub.fault is None else (pub.fault_line, pub.fault)  # type: ignore[return-value]

    def dealer_due(self, view: Any) -> Optional[tuple[int, float]]:
        """``(since, deadline)`` when the table waits for the dealer: its entropy commitment
        (right after the header) or its deal (the entropy phase complete, no seat to move and
        no wait on the referee's clock, such as Cheat's calling window); since the last line,
        for ``limits.deal``."""
        pub: DealPublic = view.ledger.deal
        waits = pub.dealer is None or (self.ready(view.ledger) and view.rules.to_move is None
                                       and not view.spec.clock_due(view.rules))
        if not waits or pub.forfeited or pub.fault or view.over or view.head_at is None:
            return None
        limits = view.header.get("limits", {})
        if "deal" not in limits:
            return None
        return view.next_line - 1, view.head_at + float(limits["deal"])

    def deal_deadline(self, view: Any) -> Optional[float]:
        """The entropy phase's deadline while it waits for seats, or the dealer's deal's."""
        pub: DealPublic = view.ledger.deal
        if pub.forfeited or pub.fault:
            return None
        if pub.dealer is not None and not self.ready(view.ledger):
            return self._forfeit_due(pub, view.header)[1]
        due = self.dealer_due(view)
        return None if due is None else due[1]

    def referee_line(self, view: Any, now: float) -> Optional[tuple[str, dict[str, Any]]]:
        """After the deadline: ``entropy.forfeit`` naming the seats that sent no entropy, or
        ``deal.timeout`` when the dealer dealt nothing (the dealer at fault)."""
        pub: DealPublic = view.ledger.deal
        deadline = self.deal_deadline(view)
        if deadline is None or now <= deadline:
            return None
        if pub.dealer is not None and not self.ready(view.ledger):
            since, _, missing = self._forfeit_due(pub, view.header)
            return FORFEIT_LINE, {"seats": missing, "since": since, "deadline": deadline}
        due = self.dealer_due(view)
        assert due is not None
        return DEAL_TIMEOUT_LINE, {"since": due[0], "deadline": due[1]}


def describe_line(kind: str, data: Mapping[str, Any], who: str, names: Sequence[str]) -> Optional[str]:
    """One sentence for a person about one of the deal's own lines (``who`` names the line's
    seat), or None for any other line: the games' terminal text says these the same way."""
    if kind == DEALER_LINE:
        return "The dealer commits to its entropy first (it cannot re-draw it later)."
    if kind == SEAT_LINE:
        return (f"{who} commits to its entropy." if data.get("commitment") is not None
                else f"{who} commits to its hand key (the dealer's seat).")
    if kind == OPEN_LINE:
        return f"{who} opens its commitment to the dealer (sealed), now that every seat has committed."
    if kind == FORFEIT_LINE:
        return f"{', '.join(names[s] for s in data['seats'])} sent no entropy in time: forfeit before any card."
    if kind == COMPLAINT_LINE:
        return f"{who} complains: the hand sealed on line {data['line']} does not open its commitment."
    if kind == DEAL_TIMEOUT_LINE:
        return f"The dealer let its deadline {data['deadline']} pass: the dealer is at fault."
    return None


def entropy_window(header: Mapping[str, Any]) -> float:
    limits = header.get("limits")
    if not isinstance(limits, dict) or isinstance(limits.get("entropy"), bool) or \
            not isinstance(limits.get("entropy"), (int, float)) or not limits["entropy"] > 0:
        raise MalformedInput("header: limits.entropy (the seats' entropy window in seconds) is required by this deal")
    return float(limits["entropy"])


def starting_draw(ledger: Any, modulus: int) -> int:
    """A public draw fixed by the entropy commitments (SHA-256 of them in contributor order,
    mod ``modulus``): the dealer's came first, so it cannot steer it; a seat could steer it
    by re-drawing its salt, but learns nothing about any hand by doing so."""
    pub: DealPublic = ledger.deal
    assert pub.dealer is not None
    parts = [str(pub.dealer["commitment"])] + [str(pub.seats[s]["commitment"]) for s in sorted(pub.seats)
                                               if pub.seats[s]["commitment"] is not None]
    digest = hashlib.sha256(("zkbluff:start-draw:v1:" + ":".join(parts)).encode()).digest()
    return int.from_bytes(digest, "big") % modulus


__all__ = ["ProvenDeal", "DealPublic", "DealShape", "DealtHands", "CardDeal", "DealStatement", "DealerState",
           "SeatSecrets", "SCHEME", "OPEN_LINE", "TRUST", "starting_draw", "entropy_window",
           "describe_line", "x25519_from_seed", "x25519_public",
           "UnfoundedComplaint"]
