"""The house-blind deal's steps for 2–6 seats (docs/house-blind-deal.md), as a library: each
party holds only its own secrets and exchanges JSON-serialisable messages; a third party
checks a whole deal with :func:`verify_deal` (one MSM for every proof of it).

1. ``key`` (every seat): ``h_k = x_k G`` with a proof of knowledge of ``x_k``.
2. ``shuffle`` (every seat in turn, seat 0 first): the deck from the step before (the
   public :func:`~zkbluff.protocol.elgamal.initial_deck` for seat 0) permuted and
   re-encrypted under the joint key, with its shuffle argument.
3. ``shares`` (every seat): a Chaum–Pedersen-proven decryption share of every card of the
   final deck that is another seat's or the board's (never of its own, never of an undealt
   card).
4. each seat opens its own cards with its own key (:meth:`HouseBlindSeat.open_hand`); the
   board opens to everyone (:meth:`DealOpening.board`).

The seam for the match engine (which does not use this yet): a ``DealScheme`` drives one
:class:`HouseBlindSeat` per seat, writes each message as a signed transcript line, passes
the hash of the line before as ``prev_hash``, and its verifier rebuilds a
:class:`DealRecord` from those lines. Step 5, each seat's hand commitment bound to the cards
opened to it, is :mod:`zkbluff.protocol.hand_binding`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from zkbluff.curve import Backend, get_backend
from zkbluff.errors import InvalidShare, InvalidShuffle, MalformedInput
from zkbluff.field import r
from zkbluff.protocol.elgamal import (
    Deck,
    KeyAnnouncement,
    Point,
    ProofContext,
    Randomness,
    SeatKey,
    Share,
    Terms,
    add_key_terms,
    add_share_terms,
    card_lookup,
    check_share_labels,
    initial_deck,
    joint_key,
    make_shares,
    open_cards,
    verify_key,
    verify_shares,
)
from zkbluff.protocol.shuffle import ShuffleProof, add_shuffle_terms, diagnose_shuffle, shuffle_deck

BOARD = -1
UNDEALT = -2
MAX_SEATS = 6


@dataclass(frozen=True)
class DealLayout:
    """Who gets each position of the final deck: a seat, :data:`BOARD` (opened to all) or
    :data:`UNDEALT` (opened to nobody)."""

    n_seats: int
    owners: tuple[int, ...]

    def __post_init__(self) -> None:
        if not _small_int(self.n_seats) or not all(_small_int(o, UNDEALT) for o in self.owners):
            raise MalformedInput("house-blind deal: seats and owners must be integers")
        if not 2 <= self.n_seats <= MAX_SEATS:
            raise MalformedInput(f"house-blind deal: got {self.n_seats} seats, expected 2 to {MAX_SEATS}")
        if not self.owners or any(o not in (BOARD, UNDEALT) and not 0 <= o < self.n_seats for o in self.owners):
            raise MalformedInput(f"house-blind deal: an owner outside the seats 0..{self.n_seats - 1}, "
                                 f"BOARD and UNDEALT")

    @classmethod
    def hands(cls, n_seats: int, deck: int, hand: Optional[int] = None, board: int = 0) -> "DealLayout":
        """Round-robin hands of ``hand`` cards each (all of the deck when None), then ``board``
        cards to the board, the rest undealt."""
        dealt = deck - board if hand is None else hand * n_seats
        if dealt + board > deck:
            raise MalformedInput(f"house-blind deal: {dealt} dealt and {board} on the board from a deck of {deck}")
        owners = [i % n_seats for i in range(dealt)] + [BOARD] * board + [UNDEALT] * (deck - dealt - board)
        return cls(n_seats, tuple(owners))

    @property
    def deck(self) -> int:
        return len(self.owners)

    def shared_by(self, seat: int) -> list[int]:
        """The positions ``seat`` owes a share of: every other seat's and the board's."""
        return [i for i, o in enumerate(self.owners) if o != seat and o != UNDEALT]

    def positions_of(self, seat: int) -> list[int]:
        return [i for i, o in enumerate(self.owners) if o == seat]


def step_context(match_id: str, round_no: int, seat: int, step: str, prev_hash: str) -> ProofContext:
    return ProofContext(match_id, seat, f"house-blind:{round_no}:{step}", prev_hash)


@dataclass
class DealRecord:
    """What a third party needs to check one deal: every message with the ``prev_hash`` its
    proofs are bound to, in order (keys by seat, shuffles by seat, shares by seat)."""

    match_id: str
    round_no: int
    layout: DealLayout
    keys: list[tuple[KeyAnnouncement, str]] = field(default_factory=list)
    shuffles: list[tuple[Deck, ShuffleProof, str]] = field(default_factory=list)
    shares: list[tuple[list[Share], str]] = field(default_factory=list)

    def ctx(self, seat: int, step: str, prev_hash: str) -> ProofContext:
        return step_context(self.match_id, self.round_no, seat, step, prev_hash)

    def to_json(self) -> dict:
        return {
            "match": self.match_id, "round": self.round_no, "seats": self.layout.n_seats,
            "owners": list(self.layout.owners),
            "keys": [{"key": k.to_json(), "prev": prev} for k, prev in self.keys],
            "shuffles": [{"deck": d.to_json(), "proof": pf.to_json(), "prev": prev} for d, pf, prev in self.shuffles],
            "shares": [{"shares": [s.to_json() for s in sh], "prev": prev} for sh, prev in self.shares],
        }

    @classmethod
    def from_json(cls, obj: dict) -> "DealRecord":
        if not isinstance(obj, dict):
            raise MalformedInput("deal record: expected an object")
        try:
            match, round_no, seats, owners = obj["match"], obj["round"], obj["seats"], obj["owners"]
            if not isinstance(match, str) or not _small_int(round_no) or not isinstance(owners, list):
                raise MalformedInput("deal record: expected a match string, a round number and a list of owners")
            layout = DealLayout(seats, tuple(owners))
            n = layout.deck
            return cls(
                match, round_no, layout,
                [(KeyAnnouncement.from_json(k["key"]), _prev(k)) for k in obj["keys"]],
                [(Deck.from_json(s["deck"], n), ShuffleProof.from_json(s["proof"], n), _prev(s)) for s in obj["shuffles"]],
                [([Share.from_json(x) for x in s["shares"]], _prev(s)) for s in obj["shares"]],
            )
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"deal record: missing or mistyped field {exc}") from None


def _small_int(v: object, low: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v < 4096


def _prev(obj: dict) -> str:
    prev = obj["prev"]
    if not isinstance(prev, str) or len(prev) > 128:
        raise MalformedInput("deal record: prev must be a hash string")
    return prev


@dataclass(frozen=True)
class DealOpening:
    """A verified deal: the joint key, the final deck, and the board's cards."""

    joint_key: Point
    deck: Deck
    board: dict[int, int]


class HouseBlindSeat:
    """One seat's side of the deal: its key, its shuffle, its shares, its own cards."""

    def __init__(self, seat: int, layout: DealLayout, match_id: str, round_no: int = 0,
                 rng: Optional[Randomness] = None, backend: Optional[Backend] = None):
        self.seat, self.layout, self.match_id, self.round_no = seat, layout, match_id, round_no
        self.rng, self.be = rng, backend or get_backend()
        self.key = SeatKey.generate(rng)
        self.announcement: Optional[KeyAnnouncement] = None

    def ctx(self, step: str, prev_hash: str) -> ProofContext:
        return step_context(self.match_id, self.round_no, self.seat, step, prev_hash)

    def key_message(self, prev_hash: str) -> KeyAnnouncement:
        self.announcement = self.key.announce(self.ctx("key", prev_hash), self.rng, self.be)
        return self.announcement

    def shuffle_message(self, deck: Deck, H: Point, prev_hash: str) -> tuple[Deck, ShuffleProof]:
        out, proof, _secret = shuffle_deck(deck, H, self.ctx("shuffle", prev_hash), self.rng, self.be)
        return out, proof

    def share_message(self, deck: Deck, prev_hash: str) -> list[Share]:
        assert self.announcement is not None, "key_message first"
        return make_shares(self.key, self.seat, self.announcement.h, deck, self.layout.shared_by(self.seat),
                           self.ctx("shares", prev_hash), self.rng, self.be)

    def open_hand(self, deck: Deck, shares: Sequence[tuple[Sequence[Share], str]],
                  keys: Sequence[Point]) -> dict[int, int]:
        """This seat's cards ``{position: card}`` from every seat's share message (``(shares,
        prev_hash)`` in seat order, as in :class:`DealRecord`) and the seats' keys. The shares of
        its own positions are checked first (one MSM): a wrong one raises :class:`InvalidShare`
        naming the seat that sent it — the seat's complaint, which anyone re-checks from the
        public share line. (Unchecked, a share off by ``jG`` would open to another card: the
        card points are consecutive multiples of ``G``.)"""
        mine: dict[int, list[Share]] = {i: [] for i in self.layout.positions_of(self.seat)}
        terms = Terms()
        for seat, (seat_shares, prev) in enumerate(shares):
            ctx = step_context(self.match_id, self.round_no, seat, "shares", prev)
            for s in seat_shares:
                if s.card in mine and s.seat == seat != self.seat:
                    mine[s.card].append(s)
                    add_share_terms(terms, s, keys[seat], deck.A[s.card], ctx)
        if not terms.holds(self.be):
            for seat, (seat_shares, prev) in enumerate(shares):
                own = [s for s in seat_shares if s.card in mine and s.seat == seat]
                verify_shares(own, keys, deck, [(seat, s.card) for s in own],
                              lambda k, prev=prev: step_context(self.match_id, self.round_no, k, "shares", prev), self.be)
        return open_cards(self.key, deck, mine, self.be)


def expected_shares(layout: DealLayout, seat: int) -> list[tuple[int, int]]:
    return [(seat, i) for i in layout.shared_by(seat)]


def _check_complete(record: DealRecord) -> None:
    """Every seat's key, shuffle and shares present: the first missing names the seat at fault."""
    n = record.layout.n_seats
    if len(record.keys) != n:
        raise InvalidShare(f"seat {len(record.keys)} announced no key", seat=min(len(record.keys), n - 1),
                           check="key.missing")
    if len(record.shuffles) != n:
        raise InvalidShuffle(f"seat {len(record.shuffles)} did not shuffle", seat=min(len(record.shuffles), n - 1),
                             check="shuffle.missing")
    if len(record.shares) != n:
        raise InvalidShare(f"seat {len(record.shares)} sent no shares", seat=min(len(record.shares), n - 1),
                           check="share.missing")


def _decks(record: DealRecord, H: Point, be: Backend) -> list[Deck]:
    return [initial_deck(record.layout.deck, H, be)] + [d for d, _pf, _prev in record.shuffles]


def verify_deal(record: DealRecord, backend: Optional[Backend] = None) -> DealOpening:
    """Check every key proof, shuffle argument and decryption share of a deal in one MSM and
    open the board. On failure, each is checked alone in the order of the deal and the
    first bad one raises (:class:`InvalidShuffle` or :class:`InvalidShare`, naming the seat
    and the check)."""
    be = backend or get_backend()
    _check_complete(record)
    keys = [k.h for k, _prev in record.keys]
    H = joint_key(keys, be)
    decks = _decks(record, H, be)
    for seat, (shares, _prev) in enumerate(record.shares):
        check_share_labels(shares, expected_shares(record.layout, seat))
    terms = Terms()
    _add_all(terms, record, keys, H, decks)
    if not terms.holds(be):
        _diagnose(record, keys, H, decks, be)
    return DealOpening(H, decks[-1], _open_board(record, decks[-1], be))


def _add_all(terms: Terms, record: DealRecord, keys: list[Point], H: Point, decks: list[Deck]) -> None:
    for seat, (ann, prev) in enumerate(record.keys):
        add_key_terms(terms, ann, record.ctx(seat, "key", prev))
    for seat, (deck, proof, prev) in enumerate(record.shuffles):
        add_shuffle_terms(lambda _check: terms, decks[seat], deck, proof, H, record.ctx(seat, "shuffle", prev))
    final = decks[-1]
    for seat, (shares, prev) in enumerate(record.shares):
        ctx = record.ctx(seat, "shares", prev)
        w = Terms.weights(2 * len(shares))
        for i, s in enumerate(shares):
            add_share_terms(terms, s, keys[seat], final.A[s.card], ctx, w[2 * i:2 * i + 2])


def _diagnose(record: DealRecord, keys: list[Point], H: Point, decks: list[Deck], be: Backend) -> None:
    for seat, (ann, prev) in enumerate(record.keys):
        verify_key(ann, record.ctx(seat, "key", prev), be)
    for seat, (deck, proof, prev) in enumerate(record.shuffles):
        diagnose_shuffle(decks[seat], deck, proof, H, record.ctx(seat, "shuffle", prev), be)
    for seat, (shares, prev) in enumerate(record.shares):
        verify_shares(shares, keys, decks[-1], expected_shares(record.layout, seat),
                      lambda k, prev=prev: record.ctx(k, "shares", prev), be)
    raise AssertionError("verify_deal: the batch failed but no proof does")  # pragma: no cover - 2^-128


def _open_board(record: DealRecord, deck: Deck, be: Backend) -> dict[int, int]:
    board = [i for i, o in enumerate(record.layout.owners) if o == BOARD]
    if not board:
        return {}
    by_pos: dict[int, list[Point]] = {i: [] for i in board}
    for shares, _prev in record.shares:
        for s in shares:
            if s.card in by_pos:
                by_pos[s.card].append(s.D)
    groups = [([deck.B[i]] + by_pos[i], [1] + [r - 1] * len(by_pos[i])) for i in board]
    lookup = card_lookup(record.layout.deck)
    out = {}
    for i, M in zip(board, be.g1_msm_many(groups)):
        if M not in lookup:
            raise InvalidShare(f"board position {i} does not open to a card", card=i, check="share.opening")
        out[i] = lookup[M]
    return out


def run_deal(layout: DealLayout, match_id: str = "house-blind", round_no: int = 0,
             rng: Optional[Randomness] = None,
             backend: Optional[Backend] = None) -> tuple[list[HouseBlindSeat], DealRecord]:
    """Every seat's steps in order, honestly, in one process (tests and the benchmark). The
    ``prev`` hashes are placeholders naming the step (a table passes its transcript's)."""
    be = backend or get_backend()
    seats = [HouseBlindSeat(k, layout, match_id, round_no, rng, be) for k in range(layout.n_seats)]
    record = DealRecord(match_id, round_no, layout)
    for s in seats:
        prev = f"key-{s.seat}"
        record.keys.append((s.key_message(prev), prev))
    H = joint_key([k.h for k, _ in record.keys], be)
    deck = initial_deck(layout.deck, H, be)
    for s in seats:
        prev = f"shuffle-{s.seat}"
        deck, proof = s.shuffle_message(deck, H, prev)
        record.shuffles.append((deck, proof, prev))
    for s in seats:
        prev = f"shares-{s.seat}"
        record.shares.append((s.share_message(deck, prev), prev))
    return seats, record
