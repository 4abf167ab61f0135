"""The zk dealer's commit order, sealed entropies, each seat's own checks, complaints and
timeouts: pure functions over frozen dataclasses and plain dict messages (JSON-ready:
field elements as decimal strings, bytes as hex, times as seconds on the referee's clock).

The order (docs/timeouts-and-complaints.md says what each step rests on):

1. ``entropy.dealer`` — the dealer publishes its entropy commitment ``Poseidon(e_D, s_D)``
   and the deadline for the seats' entropies. Nothing a seat sends counts before it, so
   the dealer's entropy is fixed before it can see anyone else's: it cannot grind.
2. ``entropy.seat`` — each seat that is not the dealer publishes its commitment
   ``Poseidon(e_i, s_i)`` and the SHA-256 commitment of a fresh *hand key*, and seals to
   the dealer the opening ``(e_i, s_i)`` and the hand key. A seat's entropy after the
   deadline is refused (:class:`LateEntropy`); a seat that has not sent one by then
   forfeits, before any card is dealt. Seats never see each other's entropies (sealed),
   so no seat can grind either — *provided the dealer opens nothing before every seat has
   committed*: a dealer that opened each as it arrived could hand the honest entropies to a
   planted seat still to commit. A match therefore sends the commitment and the sealed
   opening on two lines (``games/engine/proven_deal.py``: ``entropy.seat``, then, once every
   seat's is recorded, ``entropy.open``; an earlier opening is refused with
   :class:`~zkbluff.errors.EarlyOpening`); here a :class:`SeatEntropy` still holds both,
   and the dealer must call :func:`open_seat_entropy` only once :func:`close_entropy_phase`
   is complete (docs/fairness-draws.md).
3. The deal proof (``card.deal.v2``) takes the commitments as public inputs in
   *contributor order*: the dealer first, then the entropy seats in seat order. Every
   seat checks those publics against the recorded commitments
   (:func:`check_deal_entropies`) and opens its sealed hand against its hand commitment
   (:func:`open_hand`).
4. The dealer seals each seat's hand under that seat's hand key. A hand that does not open,
   or opens to something that is not its commitment, gives a :func:`wrong_hand_complaint`
   that any verifier checks (:func:`check_wrong_hand_complaint`): the seat reveals the hand
   key, whose commitment it published before the deal, so it cannot frame the dealer with
   another key. A hand never sent gives a :func:`missing_hand_complaint`.

Keys. The channel a seat seals its entropy on is keyed by X25519 (static keys of the
seat and the dealer, pycryptodome) and HKDF-SHA256 bound to the match, the seat and both
public keys (:func:`channel_key`); a caller with a pre-shared secret instead uses
:func:`channel_key_from_secret`. The hand key is a fresh random 256-bit key per seat and
match, separate from the channel, so a complaint that reveals it reveals that seat's
hands in this match and nothing else (its entropy stays sealed under the channel key).
"""
from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass, field, replace
from typing import Iterable, Optional, Sequence

from Crypto.PublicKey import ECC

from zkbluff.errors import (
    CommitmentMismatch, EarlyTimeout, IllegalMove, LateEntropy, MalformedInput, OutOfOrder, UnfoundedComplaint,
)
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.protocol.messages import open_sealed, seal

HAND_KEY_BYTES = 32


# ---------------------------------------------------------------- parsing helpers

def _field(d: dict, key: str, what: str) -> int:
    v = d.get(key)
    if not isinstance(v, str) or not v.isdigit() or len(v) > 78 or int(v) >= r:
        raise MalformedInput(f"{what}: {key!r} must be a decimal string of a field element below r, got {v!r}")
    return int(v)


def _int(d: dict, key: str, what: str, low: int = 0) -> int:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise MalformedInput(f"{what}: {key!r} must be an integer >= {low}, got {v!r}")
    return v


def _time(d: dict, key: str, what: str) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise MalformedInput(f"{what}: {key!r} must be a finite time in seconds >= 0, got {v!r}")
    return float(v)


def _hex(d: dict, key: str, what: str, n_bytes: Optional[int] = None) -> str:
    v = d.get(key)
    if not isinstance(v, str) or len(v) % 2 or any(c not in "0123456789abcdef" for c in v) or \
            (n_bytes is not None and len(v) != 2 * n_bytes):
        size = f"{2 * n_bytes} " if n_bytes else ""
        raise MalformedInput(f"{what}: {key!r} must be {size}lowercase hex digits, got {v!r}")
    return v


def _type(d: dict, expected: str) -> None:
    if not isinstance(d, dict):
        raise MalformedInput(f"{expected}: expected a JSON object, got {type(d).__name__}")
    if d.get("type") != expected:
        raise MalformedInput(f"expected a {expected!r} message, got type {d.get('type')!r}")


# ---------------------------------------------------------------- secrets and keys

@dataclass(frozen=True)
class EntropySecret:
    """A party's entropy and the salt of its public commitment (both field elements)."""

    entropy: int
    salt: int

    @classmethod
    def fresh(cls) -> "EntropySecret":
        return cls(secrets.randbelow(r), secrets.randbelow(r))

    @property
    def commitment(self) -> int:
        """``Poseidon(entropy, salt)``: what ``card.deal.v2`` opens in the circuit."""
        return commit(self.entropy, self.salt)


def fresh_hand_key() -> bytes:
    return secrets.token_bytes(HAND_KEY_BYTES)


def hand_key_commitment(hand_key: bytes) -> str:
    """SHA-256 (hex) of a seat's hand key, published before the deal."""
    if not isinstance(hand_key, bytes) or len(hand_key) != HAND_KEY_BYTES:
        raise MalformedInput(f"hand key: expected {HAND_KEY_BYTES} bytes")
    return hashlib.sha256(b"zkbluff:hand-key:v1:" + hand_key).hexdigest()


def x25519_keypair() -> tuple[ECC.EccKey, bytes]:
    """A fresh X25519 key of a party and its raw 32-byte public key (made on the party's
    own machine; only the public key leaves it)."""
    key = ECC.generate(curve="X25519")
    return key, key.public_key().export_key(format="raw")


def channel_key(own_key: ECC.EccKey, peer_public: bytes, match_id: str, seat: int) -> bytes:
    """The 256-bit key of the private channel between the dealer and ``seat`` in
    ``match_id``: X25519 of one side's private key and the other's public key, through
    HKDF-SHA256 whose context binds the match, the seat and both public keys (sorted, so
    both sides derive the same key)."""
    from Crypto.Hash import SHA256  # (here: an offline verifier derives no key and never imports them)
    from Crypto.Protocol.DH import import_x25519_public_key, key_agreement
    from Crypto.Protocol.KDF import HKDF

    try:
        peer = import_x25519_public_key(peer_public)
    except (ValueError, TypeError):
        raise MalformedInput("channel key: the peer's X25519 public key must be 32 raw bytes on the curve") from None
    own_public = own_key.public_key().export_key(format="raw")
    info = (f"zkbluff:channel:v1:{match_id}:{seat}:".encode()
            + b"".join(sorted([own_public, peer_public])))
    return key_agreement(static_priv=own_key, static_pub=peer,
                         kdf=lambda z: HKDF(z, 32, b"zkbluff:x25519", SHA256, context=info))


def channel_key_from_secret(shared_secret: bytes, match_id: str, seat: int) -> bytes:
    """The same channel key from a secret the caller already shares with the dealer
    (at least 16 bytes), through HKDF-SHA256 bound to the match and the seat."""
    if not isinstance(shared_secret, bytes) or len(shared_secret) < 16:
        raise MalformedInput("channel key: a pre-shared secret must be at least 16 bytes")
    from Crypto.Hash import SHA256
    from Crypto.Protocol.KDF import HKDF

    return HKDF(shared_secret, 32, b"zkbluff:psk", SHA256, context=f"zkbluff:channel:v1:{match_id}:{seat}".encode())


# ---------------------------------------------------------------- the commit order

@dataclass(frozen=True)
class DealerCommit:
    """``entropy.dealer``: the dealer's entropy commitment and the seats' deadline,
    recorded ``at`` (referee clock) on transcript line ``line``."""

    commitment: int
    deadline: float
    at: float
    line: int

    def to_data(self) -> dict:
        return {"type": "entropy.dealer", "commitment": str(self.commitment), "deadline": self.deadline,
                "at": self.at, "line": self.line}

    @classmethod
    def from_data(cls, d: dict) -> "DealerCommit":
        _type(d, "entropy.dealer")
        what = "dealer's entropy commitment"
        out = cls(_field(d, "commitment", what), _time(d, "deadline", what), _time(d, "at", what),
                  _int(d, "line", what, 1))
        if out.deadline <= out.at:
            raise MalformedInput(f"{what}: the deadline {out.deadline} is not after the commitment ({out.at})")
        return out


def dealer_commit(secret: EntropySecret, at: float, line: int, window: float) -> DealerCommit:
    """The dealer's first message: its commitment, seats' entropies due ``window`` seconds later."""
    if not window > 0:
        raise MalformedInput(f"entropy window: expected a positive number of seconds, got {window!r}")
    return DealerCommit(secret.commitment, at + window, at, line)


@dataclass(frozen=True)
class SeatEntropy:
    """``entropy.seat``: a seat's public entropy commitment, its hand key's commitment and
    the sealed opening (for the dealer), recorded ``at`` (referee clock)."""

    seat: int
    commitment: int
    hand_key_commitment: str
    sealed: str
    at: float

    def to_data(self) -> dict:
        return {"type": "entropy.seat", "seat": self.seat, "commitment": str(self.commitment),
                "handKeyCommitment": self.hand_key_commitment, "sealed": self.sealed, "at": self.at}

    @classmethod
    def from_data(cls, d: dict) -> "SeatEntropy":
        _type(d, "entropy.seat")
        what = "seat's entropy"
        return cls(_int(d, "seat", what), _field(d, "commitment", what), _hex(d, "handKeyCommitment", what, 32),
                   _hex(d, "sealed", what), _time(d, "at", what))


def seat_entropy(seat: int, secret: EntropySecret, hand_key: bytes, key: bytes, match_id: str,
                 dealer: DealerCommit, at: float) -> SeatEntropy:
    """A seat's entropy message, sealed under its channel ``key`` with the match and the
    dealer's commitment line as associated data (it cannot be replayed elsewhere)."""
    sealed = seal(key, match_id, dealer.line, {"entropy": str(secret.entropy), "salt": str(secret.salt),
                                               "handKey": hand_key.hex()})
    return SeatEntropy(seat, secret.commitment, hand_key_commitment(hand_key), sealed, at)


def open_seat_entropy(key: bytes, match_id: str, dealer: DealerCommit, msg: SeatEntropy) -> tuple[EntropySecret, bytes]:
    """The dealer opens a seat's sealed entropy: ``(secret, hand key)``. Raises
    :class:`CommitmentMismatch` if it does not open or does not match the seat's public
    commitments (the seat then has sent no valid entropy)."""
    got = open_sealed(key, match_id, dealer.line, msg.sealed)
    try:
        secret = EntropySecret(_field(got, "entropy", "sealed entropy"), _field(got, "salt", "sealed entropy"))
        hand_key = bytes.fromhex(_hex(got, "handKey", "sealed entropy", HAND_KEY_BYTES))
    except MalformedInput as exc:
        raise CommitmentMismatch(f"seat {msg.seat}: the sealed entropy is not an opening ({exc})") from None
    if secret.commitment != msg.commitment:
        raise CommitmentMismatch(f"seat {msg.seat}: the sealed entropy does not open its public commitment")
    if hand_key_commitment(hand_key) != msg.hand_key_commitment:
        raise CommitmentMismatch(f"seat {msg.seat}: the sealed hand key does not match its commitment")
    return secret, hand_key


@dataclass(frozen=True)
class EntropyPhase:
    """The entropies recorded so far: the dealer's commitment (None until it comes) and
    the seats' messages by seat. Immutable: every step returns a new phase."""

    seats: tuple[int, ...]
    dealer: Optional[DealerCommit] = None
    received: tuple[SeatEntropy, ...] = field(default=())

    def received_from(self, seat: int) -> Optional[SeatEntropy]:
        return next((m for m in self.received if m.seat == seat), None)


def entropy_phase(seats: Iterable[int]) -> EntropyPhase:
    """An empty phase for the entropy seats (every seat that is not the dealer)."""
    seats = tuple(seats)
    if not seats or len(set(seats)) != len(seats) or any(isinstance(s, bool) or not isinstance(s, int) or s < 0
                                                         for s in seats):
        raise MalformedInput(f"entropy seats: expected distinct seat numbers, got {list(seats)}")
    return EntropyPhase(tuple(sorted(seats)))


def accept_dealer_commit(phase: EntropyPhase, msg: DealerCommit, window: Optional[float] = None) -> EntropyPhase:
    """The phase with the dealer's commitment recorded; refused if one is already there,
    or (:class:`MalformedInput`) if its deadline is not ``at + window`` when the rules'
    ``window`` is given (the dealer does not choose how long the seats get)."""
    if phase.dealer is not None:
        raise OutOfOrder(f"the dealer's entropy commitment is already recorded (line {phase.dealer.line})")
    if window is not None and msg.deadline != msg.at + window:
        raise MalformedInput(f"dealer's entropy commitment: deadline {msg.deadline} is not {msg.at} + the rules' "
                             f"window {window}")
    return replace(phase, dealer=msg)


def accept_seat_entropy(phase: EntropyPhase, msg: SeatEntropy) -> EntropyPhase:
    """The phase with ``msg`` recorded. Refused (phase unchanged) with :class:`OutOfOrder`
    before the dealer's commitment or when the seat already sent one, with
    :class:`LateEntropy` after the deadline, with :class:`IllegalMove` from a seat that
    contributes no entropy (the dealer's seat included)."""
    if phase.dealer is None:
        raise OutOfOrder(f"seat {msg.seat}: an entropy before the dealer's commitment is refused "
                         "(the dealer must be bound first, or it could grind its own)")
    if msg.seat not in phase.seats:
        raise IllegalMove(f"seat {msg.seat} contributes no entropy here (entropy seats: {list(phase.seats)})")
    if phase.received_from(msg.seat) is not None:
        raise OutOfOrder(f"seat {msg.seat}: its entropy is already recorded; a second one is refused")
    if msg.at < phase.dealer.at:
        raise OutOfOrder(f"seat {msg.seat}: recorded at {msg.at}, before the dealer's commitment ({phase.dealer.at})")
    if msg.at > phase.dealer.deadline:
        raise LateEntropy(f"seat {msg.seat}: entropy recorded at {msg.at}, after the deadline {phase.dealer.deadline}")
    return replace(phase, received=phase.received + (msg,))


@dataclass(frozen=True)
class EntropyOutcome:
    """How the entropy phase ended: the commitments in contributor order (the dealer, then
    the entropy seats in seat order) when every seat sent one, else the seats that forfeit
    (no card is dealt)."""

    commitments: tuple[int, ...]
    forfeited: tuple[int, ...]
    hand_key_commitments: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.forfeited


def close_entropy_phase(phase: EntropyPhase, now: float) -> EntropyOutcome:
    """End the phase at ``now`` (referee clock). Complete as soon as every seat has sent;
    otherwise refused with :class:`EarlyTimeout` before the deadline, and after it the
    seats that sent nothing forfeit."""
    if phase.dealer is None:
        raise OutOfOrder("no entropy phase without the dealer's commitment")
    missing = tuple(s for s in phase.seats if phase.received_from(s) is None)
    if missing and now <= phase.dealer.deadline:
        raise EarlyTimeout(f"seats {list(missing)} still have until {phase.dealer.deadline} (now {now})")
    if missing:
        return EntropyOutcome((), missing)
    by_seat = {m.seat: m for m in phase.received}
    return EntropyOutcome((phase.dealer.commitment,) + tuple(by_seat[s].commitment for s in phase.seats), (),
                          {s: by_seat[s].hand_key_commitment for s in phase.seats})


def check_commit_order(events: Sequence[dict], seats: Iterable[int], now: Optional[float] = None,
                       window: Optional[float] = None) -> EntropyOutcome:
    """Replay a recorded entropy phase (``entropy.dealer`` then ``entropy.seat`` messages,
    as recorded, in order) and return its outcome. Raises what the live referee raises
    for the first message out of order. ``now`` is the recorded time of the line that
    closed the phase (default: any time after the deadline); ``window``, if given, the
    rules' entropy window that the dealer's deadline must respect."""
    phase = entropy_phase(seats)
    for i, ev in enumerate(events):
        kind = ev.get("type") if isinstance(ev, dict) else None
        if kind == "entropy.dealer":
            phase = accept_dealer_commit(phase, DealerCommit.from_data(ev), window)
        elif kind == "entropy.seat":
            phase = accept_seat_entropy(phase, SeatEntropy.from_data(ev))
        else:
            raise MalformedInput(f"entropy event {i}: expected entropy.dealer or entropy.seat, got {kind!r}")
    if phase.dealer is None:
        raise OutOfOrder("no dealer's entropy commitment was recorded")
    return close_entropy_phase(phase, math.inf if now is None else now)


def deal_contributors(dealer: EntropySecret, opened: dict, outcome: EntropyOutcome) -> list[EntropySecret]:
    """The dealer's list of secrets for ``card.deal.v2`` in contributor order (its own,
    then the opened seats' in seat order), checked against the recorded commitments so
    the dealer cannot prove with anything else."""
    if not outcome.complete:
        raise IllegalMove(f"no deal: seats {list(outcome.forfeited)} forfeited in the entropy phase")
    seats = sorted(opened)
    ordered = [dealer] + [opened[s] for s in seats]
    if tuple(x.commitment for x in ordered) != outcome.commitments:
        raise CommitmentMismatch("the secrets do not open the recorded commitments in contributor order")
    return ordered


# ---------------------------------------------------------------- each seat's own checks

def check_deal_entropies(statement, publics: Sequence[int], outcome: EntropyOutcome) -> None:
    """The deal proof's entropy commitments are exactly the recorded ones, in contributor
    order (everyone checks it, each seat for its own). Raises :class:`CommitmentMismatch`."""
    if not outcome.complete:
        raise IllegalMove(f"no deal: seats {list(outcome.forfeited)} forfeited in the entropy phase")
    names = [n for n in statement.public if n.startswith("entropy") and n.endswith("_commitment")]
    if len(publics) != len(statement.public):
        raise MalformedInput(f"deal publics: got {len(publics)} values, expected {len(statement.public)}")
    if len(names) != len(outcome.commitments):
        raise CommitmentMismatch(f"the deal statement takes {len(names)} entropy commitments, "
                                 f"the phase recorded {len(outcome.commitments)}")
    for i, (name, recorded) in enumerate(zip(names, outcome.commitments)):
        got = publics[statement.public.index(name)]
        if got != recorded:
            who = "the dealer's" if i == 0 else f"contributor {i}'s"
            raise CommitmentMismatch(f"deal proof: {name} is {got}, but {who} recorded commitment is {recorded}")


def check_own_entropy(statement, publics: Sequence[int], contributor: int, own: EntropySecret) -> None:
    """A seat's check that its own commitment is the deal proof's ``entropy{contributor}``."""
    name = f"entropy{contributor}_commitment"
    if name not in statement.public:
        raise MalformedInput(f"the deal statement has no {name}")
    if publics[statement.public.index(name)] != own.commitment:
        raise CommitmentMismatch(f"deal proof: {name} is not this seat's entropy commitment")


def seal_hand(hand_key: bytes, match_id: str, line: int, mask: int, salt: int) -> str:
    """The dealer seals a seat's hand (mask and salt) on transcript line ``line``."""
    return seal(hand_key, match_id, line, {"hand": str(mask), "salt": str(salt)})


def open_hand(hand_key: bytes, match_id: str, line: int, sealed: str, hand_commitment: int) -> tuple[int, int]:
    """A seat opens its sealed hand and checks it against its public hand commitment:
    ``(mask, salt)``. :class:`CommitmentMismatch` when it does not open or does not match
    (then the seat publishes a :func:`wrong_hand_complaint`)."""
    got = open_sealed(hand_key, match_id, line, sealed)
    try:
        mask, salt = _field(got, "hand", "sealed hand"), _field(got, "salt", "sealed hand")
    except MalformedInput as exc:
        raise CommitmentMismatch(f"the sealed hand is not a hand and salt ({exc})") from None
    if commit(mask, salt) != hand_commitment:
        raise CommitmentMismatch("the sealed hand does not open the hand commitment of the deal proof")
    return mask, salt


# ---------------------------------------------------------------- complaints

@dataclass(frozen=True)
class Fault:
    """A verified finding: ``party`` (``"dealer"`` or a seat number) is at fault."""

    party: object
    reason: str


def wrong_hand_complaint(seat: int, line: int, sealed: str, hand_key: bytes) -> dict:
    """A seat's complaint: the sealed hand on the dealer's line ``line`` and the key that
    opens it (the hand key whose commitment the seat published before the deal)."""
    return {"type": "complaint.wrongHand", "seat": seat, "line": line, "sealed": sealed, "handKey": hand_key.hex()}


def check_wrong_hand_complaint(complaint: dict, *, match_id: str, hand_key_commitment_recorded: str,
                               sealed_on_line: str, hand_commitment: int) -> Fault:
    """Judge a wrong-hand complaint from public data only: the seat's hand-key commitment
    from its entropy line, the sealed text on the dealer's line, and the seat's hand
    commitment in the deal proof's publics. Returns the dealer's :class:`Fault`; raises
    :class:`UnfoundedComplaint` when the evidence clears the dealer (the key is not the
    committed one, the message is not the dealer's, or the hand opens its commitment)."""
    _type(complaint, "complaint.wrongHand")
    what = "wrong-hand complaint"
    seat, line = _int(complaint, "seat", what), _int(complaint, "line", what, 1)
    sealed = _hex(complaint, "sealed", what)
    key = bytes.fromhex(_hex(complaint, "handKey", what, HAND_KEY_BYTES))
    if sealed != sealed_on_line:
        raise UnfoundedComplaint(f"seat {seat}: the complaint's sealed message is not the one on line {line}")
    if hand_key_commitment(key) != hand_key_commitment_recorded:
        raise UnfoundedComplaint(f"seat {seat}: the revealed key is not the hand key the seat committed to")
    try:
        open_hand(key, match_id, line, sealed, hand_commitment)
    except CommitmentMismatch as exc:
        return Fault("dealer", f"seat {seat}'s sealed hand on line {line}: {exc}")
    except MalformedInput as exc:
        return Fault("dealer", f"seat {seat}'s sealed hand on line {line} is malformed: {exc}")
    raise UnfoundedComplaint(f"seat {seat}: the sealed hand on line {line} opens its commitment")


def missing_hand_complaint(seat: int, round_no: int, deal_line: int, deadline: float, at: float) -> dict:
    """A seat's complaint that the dealer sent no hand for ``round_no`` by ``deadline``."""
    return {"type": "complaint.missingHand", "seat": seat, "round": round_no, "dealLine": deal_line,
            "deadline": deadline, "at": at}


def check_missing_hand_complaint(complaint: dict, *, deal_line_at: float, hand_window: float,
                                 deliveries: Iterable[tuple[int, int, float]]) -> Fault:
    """Judge a missing-hand complaint: its deadline must be the rule's (the deal line's
    time plus ``hand_window``), it must be recorded after that deadline
    (:class:`EarlyTimeout` otherwise), and no hand for that seat and round may have been
    recorded by then (``deliveries``: ``(seat, round, at)`` of every sealed hand on the
    transcript). Returns the dealer's :class:`Fault` or raises :class:`UnfoundedComplaint`."""
    _type(complaint, "complaint.missingHand")
    what = "missing-hand complaint"
    seat, round_no = _int(complaint, "seat", what), _int(complaint, "round", what)
    deadline, at = _time(complaint, "deadline", what), _time(complaint, "at", what)
    _int(complaint, "dealLine", what, 1)
    if deadline != deal_line_at + hand_window:
        raise MalformedInput(f"{what}: the deadline {deadline} is not the deal line's time plus the hand window "
                             f"({deal_line_at} + {hand_window})")
    if at <= deadline:
        raise EarlyTimeout(f"{what}: recorded at {at}, not after the deadline {deadline}")
    for s, rnd, when in deliveries:
        if s == seat and rnd == round_no and when <= deadline:
            raise UnfoundedComplaint(f"seat {seat}: the dealer sent its round-{round_no} hand at {when}, "
                                     f"by the deadline {deadline}")
    return Fault("dealer", f"no round-{round_no} hand for seat {seat} by the deadline {deadline}")


# ---------------------------------------------------------------- timeouts

def timeout_record(seat: int, since_line: int, since_at: float, limit: float,
                   last_signed: Optional[tuple[int, str]], at: float) -> dict:
    """A timeout of ``seat``: the clock ran from line ``since_line`` (recorded at
    ``since_at``) for ``limit`` seconds; ``last_signed`` is ``(line, hash)`` of the last
    line the seat signed (None if it signed none); ``at`` is the referee's time now."""
    return {"type": "timeout", "seat": seat, "sinceLine": since_line, "sinceAt": since_at, "limit": limit,
            "deadline": since_at + limit, "lastSignedLine": None if last_signed is None else last_signed[0],
            "lastSignedHash": None if last_signed is None else last_signed[1], "at": at}


def check_timeout(record: dict, *, since_at: float, limit: float, last_signed: Optional[tuple[int, str]]) -> None:
    """Accept a timeout record or raise. ``since_at`` is the recorded time of the record's
    ``sinceLine`` on the transcript, ``limit`` the rules' turn limit, ``last_signed``
    the ``(line, hash)`` of the last line the seat signed before the timeout. Refuses
    (:class:`EarlyTimeout`) a timeout recorded at or before its deadline, and
    (:class:`MalformedInput`) one whose deadline or last signed line is not the
    transcript's."""
    _type(record, "timeout")
    what = "timeout"
    _int(record, "seat", what)
    _int(record, "sinceLine", what, 1)
    deadline, at = _time(record, "deadline", what), _time(record, "at", what)
    if _time(record, "sinceAt", what) != since_at or _time(record, "limit", what) != limit:
        raise MalformedInput(f"{what}: it relies on a clock from {record.get('sinceAt')} for {record.get('limit')} s; "
                             f"the transcript says {since_at} and the rules {limit}")
    if deadline != since_at + limit:
        raise MalformedInput(f"{what}: deadline {deadline} is not {since_at} + {limit}")
    got = (record.get("lastSignedLine"), record.get("lastSignedHash"))
    expected = (None, None) if last_signed is None else tuple(last_signed)
    if got != expected:
        raise MalformedInput(f"{what}: it names {got} as the seat's last signed line; the transcript's is {expected}")
    if at <= deadline:
        raise EarlyTimeout(f"{what}: declared at {at}, not after its deadline {deadline}")
