"""The oblivious deal at a two-player table (docs/oblivious-deal.md): nobody, the dealer
included, learns a hand it was not dealt, and neither side can bias one.

Two parties, each holding only its own secrets, exchange JSON-serialisable dicts:

1. ``ObliviousDealer.commit()`` → ``oblivious.commit``: the dealer draws a permutation
   of the deck, commits every position as ``Poseidon(card_j, salt_j)``, proves
   ``card.permutation.v1`` and opens its oblivious-transfer session (``A``).
2. ``ObliviousChooser.choose(commit)`` → ``oblivious.choose``: the chooser checks the
   permutation proof, draws a uniformly random arrangement of the positions — its own
   secret positions, the dealer's and the board's (public) — and sends one OT request
   per secret position.
3. ``ObliviousDealer.transfer(choose)`` → ``oblivious.transfer``: the dealer sends every
   opening through the OT (the chooser can decrypt one per transfer), opens the board
   positions publicly, and proves its own hand from its public positions
   (``card.chosen_hand.v1`` with ``required`` = its positions).
4. ``ObliviousChooser.finish(transfer)`` → ``oblivious.hand``: the chooser checks the
   board and the dealer's proof, decrypts its openings and checks each against its
   position's commitment — a wrong one raises :class:`DealerFault` carrying a complaint
   that :func:`verify_complaint` checks — then proves its hand (``card.chosen_hand.v1``
   with ``excluded`` = the dealer's and the board's positions).
5. ``ObliviousDealer.accept(hand)``: the dealer checks the chooser's proof.

:func:`deal_record` gathers what a third party needs and :func:`verify_deal` checks it.
A re-deal is a new pair of parties with the next ``round_no``: a fresh permutation, fresh
salts, a fresh OT session and fresh proof contexts.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Sequence

from zkbluff.curve import Backend, get_backend
from zkbluff.curve.codec import parse_decimal
from zkbluff.errors import CommitmentMismatch, DealerFault, InvalidComplaint, InvalidProof, MalformedInput
from zkbluff.fair.stream import sha256_hex
from zkbluff.field import r
from zkbluff.gadgets.native import commit as native_commit
from zkbluff.groth16 import Proof, ProvingKey, VerifyingKey, prove, verify
from zkbluff.protocol.ot import TAG_BYTES, OTReceiver, OTSender, decode_point, open_revealed
from zkbluff.statements.oblivious import chosen_hand_inputs, permutation_inputs
from zkbluff.statements.registry import get_statement

VERSION = 1
OPENING_BYTES = 33  # one byte of card id, 32 bytes of salt (big-endian)
_HEX = frozenset("0123456789abcdef")

KeySource = Callable[[str], ProvingKey]
#: where a third party's check puts a proof instead of verifying it at once: ``defer(key id,
#: verifying key, public inputs, proof)`` (an offline verifier's batch, checked at the end;
#: a proof that fails there is reported on the line that carried it)
Defer = Callable[[str, VerifyingKey, list[int], Proof], None]


class DealRandom:
    """Where a party's random choices come from: the OS by default, or (``seed`` given) an
    HMAC-SHA256 stream keyed by a secret seed, so a party that keeps only its seed can
    make the same messages again (a table's parties keep JSON-safe secrets and rebuild
    their side of a deal from the transcript). ``randbelow(n)`` reduces 64 bytes mod
    ``n`` (bias below 2^-250 for n < 2^254)."""

    def __init__(self, seed: Optional[bytes] = None):
        self._seed = seed
        self._counter = 0

    def randbelow(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"randbelow: n must be positive, got {n}")
        if self._seed is None:
            return secrets.randbelow(n)
        blocks = b""
        for _ in range(2):
            self._counter += 1
            blocks += hmac.digest(self._seed, self._counter.to_bytes(8, "big"), hashlib.sha256)
        return int.from_bytes(blocks, "big") % n

    def answering(self, message: dict) -> "DealRandom":
        """The stream for this party's answer to ``message`` (a dealer's commit): keyed by
        the seed and the message's canonical JSON, so the same message gets the same answer
        (a party rebuilt from its seed and the transcript) and two different messages for
        one round get unrelated ones. Unseeded: the OS again."""
        if self._seed is None:
            return DealRandom()
        body = json.dumps(message, sort_keys=True, separators=(",", ":")).encode()
        return DealRandom(hmac.digest(self._seed, b"zkbluff:oblivious-answer:v1:" + hashlib.sha256(body).digest(),
                                      hashlib.sha256))

    def shuffle(self, xs: list) -> None:
        for i in range(len(xs) - 1, 0, -1):  # Fisher–Yates
            j = self.randbelow(i + 1)
            xs[i], xs[j] = xs[j], xs[i]

    def sample(self, population: Sequence[int], k: int) -> list[int]:
        pool = list(population)
        for i in range(k):  # a partial Fisher–Yates from the front
            j = i + self.randbelow(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


def deal_context(session: str, round_no: int, label: str) -> int:
    """The ``context`` public input of one proof of one deal:
    ``SHA-256("zkbluff:oblivious-deal:v1:" session ":" round ":" label) mod r``. A table
    passes a ``session`` that names its match (and transcript position), so the deal's
    proofs cannot be replayed in another match or round."""
    return int(sha256_hex(f"zkbluff:oblivious-deal:v1:{session}:{round_no}:{label}"), 16) % r


def ot_session(session: str, round_no: int) -> str:
    return f"zkbluff:oblivious-deal:v1:{session}:{round_no}"


@dataclass(frozen=True)
class DealShape:
    """How many cards each side gets and how many go face up on the board."""

    dealer_hand: int
    chooser_hand: int
    board: int = 0
    deck: int = 52

    def __post_init__(self) -> None:
        if not (1 <= self.dealer_hand and 1 <= self.chooser_hand and 0 <= self.board
                and self.dealer_hand + self.chooser_hand + self.board <= self.deck):
            raise ValueError(f"oblivious deal: hands {self.dealer_hand}+{self.chooser_hand} and a board of "
                             f"{self.board} do not fit a deck of {self.deck}")

    @property
    def permutation_key(self) -> str:
        return f"card.permutation.v1@deck={self.deck}"

    def hand_key(self, hand: int) -> str:
        return f"card.chosen_hand.v1@deck={self.deck},hand={hand}"

    def to_json(self) -> dict:
        return {"dealer_hand": self.dealer_hand, "chooser_hand": self.chooser_hand, "board": self.board,
                "deck": self.deck}

    @classmethod
    def from_json(cls, obj) -> "DealShape":
        if not isinstance(obj, dict) or set(obj) != {"dealer_hand", "chooser_hand", "board", "deck"} \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in obj.values()):
            raise MalformedInput(f"deal shape: expected integers dealer_hand, chooser_hand, board, deck; got {obj!r:.120}")
        try:
            return cls(obj["dealer_hand"], obj["chooser_hand"], obj["board"], obj["deck"])
        except ValueError as exc:
            raise MalformedInput(str(exc)) from None


def _default_keys(key_id: str) -> ProvingKey:
    from zkbluff.statements.keys import load_keys

    return load_keys(key_id)


def _mask(xs: Iterable[int]) -> int:
    m = 0
    for x in xs:
        m |= 1 << x
    return m


# ---------------------------------------------------------------- message checks

def _message(msg, kind: str, session: str, round_no: int, fields: Sequence[str]) -> dict:
    """``msg`` as an ``oblivious.<kind>`` message of this session and round, with ``fields``."""
    what = f"oblivious.{kind} message"
    if not isinstance(msg, dict):
        raise MalformedInput(f"{what}: expected a JSON object, got {type(msg).__name__}")
    if msg.get("type") != f"oblivious.{kind}":
        raise MalformedInput(f"{what}: expected type 'oblivious.{kind}', got {msg.get('type')!r:.40}")
    if msg.get("version") != VERSION:
        raise MalformedInput(f"{what}: expected version {VERSION}, got {msg.get('version')!r:.20}")
    if msg.get("session") != session or type(msg.get("round")) is not int or msg.get("round") != round_no:
        raise MalformedInput(f"{what}: for session {msg.get('session')!r:.60} round {msg.get('round')!r:.10}, "
                             f"expected session {session!r:.60} round {round_no}")
    missing = [f for f in fields if f not in msg]
    if missing:
        raise MalformedInput(f"{what}: missing field(s) {', '.join(missing)}")
    return msg


def _header(kind: str, session: str, round_no: int) -> dict:
    return {"type": f"oblivious.{kind}", "version": VERSION, "session": session, "round": round_no}


def _field_list(x, n: int, what: str) -> list[int]:
    if not isinstance(x, list) or len(x) != n:
        raise MalformedInput(f"{what}: expected a list of {n} decimal strings, got "
                             f"{len(x) if isinstance(x, list) else type(x).__name__}")
    return [parse_decimal(v, f"{what}[{i}]", r) for i, v in enumerate(x)]


def _positions(x, n: int, deck: int, what: str) -> list[int]:
    if not isinstance(x, list) or len(x) != n:
        raise MalformedInput(f"{what}: expected a list of {n} positions, got "
                             f"{len(x) if isinstance(x, list) else type(x).__name__}")
    if any(isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < deck for p in x):
        raise MalformedInput(f"{what}: expected positions in 0..{deck - 1}, got {x!r:.120}")
    if len(set(x)) != n:
        raise MalformedInput(f"{what}: positions repeat: {x}")
    return list(x)


def _proof(x, what: str, backend: Backend) -> Proof:
    try:
        return Proof.from_json(x, backend)
    except MalformedInput as exc:
        raise MalformedInput(f"{what}: {exc}") from None


def _check_choose(msg: dict, shape: DealShape) -> tuple[list[int], list[int]]:
    dealer = _positions(msg["dealer_positions"], shape.dealer_hand, shape.deck, "dealer_positions")
    board = _positions(msg["board_positions"], shape.board, shape.deck, "board_positions")
    if set(dealer) & set(board):
        raise MalformedInput(f"board_positions {board} overlap dealer_positions {dealer}")
    return dealer, board


def _board_openings(x, board_positions: list[int], shape: DealShape) -> list[tuple[int, int, int]]:
    """``[(position, card, salt)]`` from an ``oblivious.transfer`` message's board openings."""
    if not isinstance(x, list) or len(x) != shape.board:
        raise MalformedInput(f"board_openings: expected {shape.board} openings")
    out = []
    for k, (o, pos) in enumerate(zip(x, board_positions)):
        if not isinstance(o, dict) or set(o) != {"position", "card", "salt"} or o["position"] != pos:
            raise MalformedInput(f"board_openings[{k}]: expected position {pos}, card and salt")
        card = o["card"]
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < shape.deck:
            raise MalformedInput(f"board_openings[{k}]: card must be 0..{shape.deck - 1}, got {card!r:.20}")
        out.append((pos, card, parse_decimal(o["salt"], f"board_openings[{k}].salt", r)))
    return out


def _bad_board_opening(openings: list[tuple[int, int, int]], commitments: list[int]) -> Optional[str]:
    for pos, card, salt in openings:
        if native_commit(card, salt) != commitments[pos]:
            return f"the board opening at position {pos} does not match its commitment"
    return None


def encode_opening(card: int, salt: int) -> bytes:
    return bytes([card]) + salt.to_bytes(32, "big")


def decode_opening(payload: bytes, deck: int) -> Optional[tuple[int, int]]:
    """(card, salt) from an OT payload, or None if it is no opening (card or salt out of range)."""
    if len(payload) != OPENING_BYTES:
        return None
    card, salt = payload[0], int.from_bytes(payload[1:], "big")
    return (card, salt) if card < deck and salt < r else None


# ---------------------------------------------------------------- the dealer

class ObliviousDealer:
    """Draws and commits the permuted deck, serves the chooser's transfers, opens the
    board, proves its own hand. Holds the permutation and the salts."""

    def __init__(self, session: str, round_no: int, shape: DealShape, keys: Optional[KeySource] = None,
                 backend: Optional[Backend] = None, rng: Optional[DealRandom] = None):
        self.session, self.round_no, self.shape = session, round_no, shape
        self.keys = keys or _default_keys
        self.backend = backend or get_backend()
        self._rng = rng or DealRandom()
        self._cards = list(range(shape.deck))
        self._rng.shuffle(self._cards)
        self._salts = [self._rng.randbelow(r) for _ in self._cards]
        self.commitments: list[int] = []  # known once the permutation is proven (its public inputs)
        self._ot = OTSender(ot_session(session, round_no), shape.deck, shape.chooser_hand, OPENING_BYTES,
                            self.backend, randbelow=self._rng.randbelow)
        self.state = "new"
        self._permutation_proof: Optional[Proof] = None
        self.dealer_positions: list[int] = []
        self.board_positions: list[int] = []
        self.board = 0
        self.hand = 0
        self.hand_salt = 0
        self.hand_commitment = 0
        self.chooser_hand_commitment = 0
        self.messages: dict[str, dict] = {}

    def prepare(self) -> None:
        """Prove the permutation now. It depends on nothing the chooser sends, so a table
        can run it before the chooser connects (or during the round before a re-deal);
        :meth:`commit` then answers at once. Idempotent."""
        if self._permutation_proof is None:
            ctx = deal_context(self.session, self.round_no, "permutation")
            stmt = get_statement(self.shape.permutation_key)
            witness = stmt.witness(permutation_inputs(self._cards, self._salts, ctx))
            self._permutation_proof = prove(self.keys(stmt.key_id), witness, backend=self.backend)
            self.commitments = witness[1: 1 + self.shape.deck]

    def resume(self, commit: dict) -> None:
        """Continue after this dealer's own ``oblivious.commit`` (sent by an earlier instance
        made from the same seed): take its commitments without proving again. Raises
        :class:`MalformedInput` if the message is not the one this dealer makes (another
        seed, session or round)."""
        if self.state != "new":
            raise MalformedInput(f"oblivious dealer: resume() after {self.state}")
        msg = _message(commit, "commit", self.session, self.round_no, ("shape", "commitments", "ot"))
        commitments = _field_list(msg["commitments"], self.shape.deck, "commitments")
        if msg["ot"] != self._ot.setup() or any(native_commit(self._cards[j], self._salts[j]) != commitments[j]
                                                for j in (0, self.shape.deck - 1)):
            raise MalformedInput("oblivious dealer: the commit message is not this dealer's (another seed?)")
        self.commitments = commitments
        self.messages["commit"] = commit
        self.state = "committed"

    def commit(self) -> dict:
        """The ``oblivious.commit`` message: the commitments, the permutation proof, the OT setup."""
        if self.state != "new":
            raise MalformedInput(f"oblivious dealer: commit() after {self.state}")
        self.prepare()
        assert self._permutation_proof is not None
        msg = {**_header("commit", self.session, self.round_no), "shape": self.shape.to_json(),
               "commitments": [str(c) for c in self.commitments], "proof": self._permutation_proof.to_json(),
               "ot": self._ot.setup()}
        self.state = "committed"
        self.messages["commit"] = msg
        return msg

    def transfer(self, choose: dict) -> dict:
        """The ``oblivious.transfer`` message for the chooser's ``oblivious.choose``: every
        opening through the OT, the board openings, the dealer's hand proof. The choose
        message is checked whole first; on any error nothing changes."""
        if self.state != "committed":
            raise MalformedInput(f"oblivious dealer: transfer() expected after commit(), state is {self.state}")
        msg = _message(choose, "choose", self.session, self.round_no, ("dealer_positions", "board_positions", "ot"))
        dealer, board = _check_choose(msg, self.shape)
        self._ot.check_request(msg["ot"])  # every point validated before anything is computed
        hand = _mask(self._cards[p] for p in dealer)
        hand_salt = self._rng.randbelow(r)
        stmt = get_statement(self.shape.hand_key(self.shape.dealer_hand))
        inputs = chosen_hand_inputs(self.commitments, [(p, self._cards[p], self._salts[p]) for p in dealer],
                                    hand_salt, _mask(board), _mask(dealer),
                                    deal_context(self.session, self.round_no, "dealer_hand"))
        witness = stmt.witness(inputs)
        proof = prove(self.keys(stmt.key_id), witness, backend=self.backend)
        ot_response = self._ot.respond(msg["ot"], [encode_opening(c, s) for c, s in zip(self._cards, self._salts)])
        self.dealer_positions, self.board_positions = dealer, board
        self.hand, self.hand_salt = hand, hand_salt
        self.hand_commitment = native_commit(hand, hand_salt)
        self.board = _mask(self._cards[p] for p in board)
        out = {**_header("transfer", self.session, self.round_no),
               "board_openings": [{"position": p, "card": self._cards[p], "salt": str(self._salts[p])}
                                  for p in board],
               "dealer_hand": {"commitment": str(self.hand_commitment), "proof": proof.to_json()},
               "ot": ot_response}
        self.state = "transferred"
        self.messages["choose"] = choose
        self.messages["transfer"] = out
        return out

    def accept(self, hand: dict) -> None:
        """Check the chooser's ``oblivious.hand``; raises :class:`InvalidProof` if its proof
        fails, :class:`MalformedInput` if it is malformed. Then the deal is done."""
        if self.state != "transferred":
            raise MalformedInput(f"oblivious dealer: accept() expected after transfer(), state is {self.state}")
        msg = _message(hand, "hand", self.session, self.round_no, ("commitment", "proof"))
        commitment = parse_decimal(msg["commitment"], "hand commitment", r)
        proof = _proof(msg["proof"], "chooser hand proof", self.backend)
        verify_chooser_hand(self.shape, self.session, self.round_no, self.commitments, self.dealer_positions,
                            self.board_positions, commitment, proof, self.keys, self.backend)
        self.chooser_hand_commitment = commitment
        self.messages["hand"] = hand
        self.state = "done"


# ---------------------------------------------------------------- the chooser

class ObliviousChooser:
    """Picks secret positions and fetches their openings by OT; names the dealer's and the
    board's positions; proves its hand. Holds its positions, its OT secrets, its openings."""

    def __init__(self, session: str, round_no: int, shape: DealShape, keys: Optional[KeySource] = None,
                 backend: Optional[Backend] = None, rng: Optional[DealRandom] = None):
        self.session, self.round_no, self.shape = session, round_no, shape
        self.keys = keys or _default_keys
        self.backend = backend or get_backend()
        self._rng = rng or DealRandom()
        self._answer: Optional[DealRandom] = None  # the stream of the commit answered (choose)
        self.state = "new"
        self.commitments: list[int] = []
        self.secret_positions: list[int] = []
        self.dealer_positions: list[int] = []
        self.board_positions: list[int] = []
        self.board_openings: list[tuple[int, int, int]] = []
        self.board = 0
        self.openings: list[tuple[int, int, int]] = []
        self.hand = 0
        self.hand_salt = 0
        self.hand_commitment = 0
        self.dealer_hand_commitment = 0
        self.messages: dict[str, dict] = {}
        self._ot: Optional[OTReceiver] = None

    def arrange(self) -> tuple[list[int], list[int], list[int]]:
        """A uniformly random arrangement: (secret positions, dealer positions, board positions),
        drawn from the stream of the commit being answered (:meth:`DealRandom.answering`)."""
        s = self.shape
        picked = (self._answer or self._rng).sample(range(s.deck), s.chooser_hand + s.dealer_hand + s.board)
        return (picked[:s.chooser_hand], sorted(picked[s.chooser_hand:s.chooser_hand + s.dealer_hand]),
                sorted(picked[s.chooser_hand + s.dealer_hand:]))

    def choose(self, commit: dict) -> dict:
        """Check the dealer's ``oblivious.commit`` (its shape, commitments, permutation proof
        and OT setup) and answer with ``oblivious.choose``."""
        if self.state != "new":
            raise MalformedInput(f"oblivious chooser: choose() after {self.state}")
        msg = _message(commit, "commit", self.session, self.round_no, ("shape", "commitments", "proof", "ot"))
        if DealShape.from_json(msg["shape"]) != self.shape:
            raise MalformedInput(f"oblivious.commit: shape {msg['shape']}, expected {self.shape.to_json()}")
        commitments = _field_list(msg["commitments"], self.shape.deck, "commitments")
        proof = _proof(msg["proof"], "permutation proof", self.backend)
        verify_permutation(self.shape, self.session, self.round_no, commitments, proof, self.keys, self.backend)
        # positions and OT blinders from the commit answered: two commits for one round answered
        # from one seed give unrelated arrangements and blinders (nothing links the answers)
        rng = self._answer = self._rng.answering(commit)
        secret, dealer, board = self.arrange()
        ot = OTReceiver(ot_session(self.session, self.round_no), self.shape.deck, secret, OPENING_BYTES,
                        self.backend, randbelow=rng.randbelow)
        request = ot.request(msg["ot"])  # validates A before use
        self._ot, self.commitments = ot, commitments
        self.secret_positions, self.dealer_positions, self.board_positions = secret, dealer, board
        out = {**_header("choose", self.session, self.round_no), "dealer_positions": dealer,
               "board_positions": board, "ot": request}
        self.messages["commit"] = commit
        self.messages["choose"] = out
        self.state = "chosen"
        return out

    def _complaint(self, transfer: dict, reveal: Optional[dict]) -> dict:
        return {**_header("complaint", self.session, self.round_no), "commit": self.messages["commit"],
                "choose": self.messages["choose"], "transfer": transfer, "reveal": reveal}

    def finish(self, transfer: dict) -> dict:
        """Check the dealer's ``oblivious.transfer`` and answer with ``oblivious.hand``:
        :meth:`open_transfer`, then :meth:`prove_hand`.

        Raises :class:`MalformedInput` for a malformed message, :class:`InvalidProof` if the
        dealer's hand proof fails, and :class:`DealerFault` (with ``complaint`` set) if a
        board opening or a fetched opening is wrong. Nothing is dealt then."""
        self.open_transfer(transfer)
        return self.prove_hand()

    def open_transfer(self, transfer: dict) -> list[tuple[int, int, int]]:
        """Check the dealer's ``oblivious.transfer`` (board openings, the dealer's hand
        proof, every fetched opening against its commitment) and keep the openings
        ``[(position, card, salt)]``; raises as :meth:`finish` and changes nothing then."""
        if self.state != "chosen":
            raise MalformedInput(f"oblivious chooser: finish() expected after choose(), state is {self.state}")
        msg = _message(transfer, "transfer", self.session, self.round_no, ("board_openings", "dealer_hand", "ot"))
        board_openings = _board_openings(msg["board_openings"], self.board_positions, self.shape)
        dh = msg["dealer_hand"]
        if not isinstance(dh, dict) or set(dh) != {"commitment", "proof"}:
            raise MalformedInput("dealer_hand: expected commitment and proof")
        dealer_commitment = parse_decimal(dh["commitment"], "dealer hand commitment", r)
        dealer_proof = _proof(dh["proof"], "dealer hand proof", self.backend)
        bad = _bad_board_opening(board_openings, self.commitments)
        if bad:
            raise DealerFault(bad, complaint=self._complaint(transfer, None))
        verify_dealer_hand(self.shape, self.session, self.round_no, self.commitments, self.dealer_positions,
                           self.board_positions, dealer_commitment, dealer_proof, self.keys, self.backend)
        assert self._ot is not None
        try:
            payloads = self._ot.receive(msg["ot"])
        except DealerFault as exc:
            assert exc.transfer is not None  # the receiver names the transfer that failed
            raise DealerFault(str(exc), exc.transfer,
                              self._complaint(transfer, self._ot.reveal(exc.transfer))) from None
        openings = []
        for i, (pos, payload) in enumerate(zip(self.secret_positions, payloads)):
            opening = decode_opening(payload, self.shape.deck)
            if opening is None or native_commit(*opening) != self.commitments[pos]:
                raise DealerFault(f"OT transfer {i}: the opening of position {pos} does not match its commitment",
                                  i, self._complaint(transfer, self._ot.reveal(i)))
            openings.append((pos, *opening))
        self.openings, self.board_openings = openings, board_openings
        self.board = _mask(card for _, card, _ in board_openings)
        self.hand = _mask(card for _, card, _ in openings)
        self.hand_salt = self._rng.randbelow(r)
        self.hand_commitment = native_commit(self.hand, self.hand_salt)
        self.dealer_hand_commitment = dealer_commitment
        self.messages["transfer"] = transfer
        self.state = "opened"
        return openings

    def prove_hand(self) -> dict:
        """The ``oblivious.hand`` message: the hand commitment and its
        ``card.chosen_hand.v1`` proof (after :meth:`open_transfer`)."""
        if self.state != "opened":
            raise MalformedInput(f"oblivious chooser: prove_hand() expected after open_transfer(), "
                                 f"state is {self.state}")
        stmt = get_statement(self.shape.hand_key(self.shape.chooser_hand))
        inputs = chosen_hand_inputs(self.commitments, self.openings, self.hand_salt,
                                    _mask(self.dealer_positions) | _mask(self.board_positions), 0,
                                    deal_context(self.session, self.round_no, "chooser_hand"))
        witness = stmt.witness(inputs)
        proof = prove(self.keys(stmt.key_id), witness, backend=self.backend)
        out = {**_header("hand", self.session, self.round_no), "commitment": str(self.hand_commitment),
               "proof": proof.to_json()}
        self.messages["hand"] = out
        self.state = "done"
        return out


# ---------------------------------------------------------------- checks anyone can run

def verify_permutation(shape: DealShape, session: str, round_no: int, commitments: list[int], proof: Proof,
                       keys: KeySource, backend: Optional[Backend] = None, defer: Optional[Defer] = None) -> None:
    """The dealer's permutation proof for these commitments; raises :class:`InvalidProof`
    (or, ``defer`` given, hands the proof with its public inputs to it)."""
    vk: VerifyingKey = keys(shape.permutation_key).vk
    public = [*commitments, deal_context(session, round_no, "permutation")]
    if defer is not None:
        defer(shape.permutation_key, vk, public, proof)
        return
    try:
        verify(vk, public, proof, backend)
    except InvalidProof:
        raise InvalidProof("the dealer's permutation proof does not verify: the committed deck is not "
                           "shown to be a permutation") from None


def _verify_hand(shape: DealShape, hand: int, label: str, who: str, session: str, round_no: int,
                 commitments: list[int], excluded: int, required: int, hand_commitment: int, proof: Proof,
                 keys: KeySource, backend: Optional[Backend], defer: Optional[Defer] = None) -> None:
    vk = keys(shape.hand_key(hand)).vk
    public = [*commitments, excluded, required, hand_commitment, deal_context(session, round_no, label)]
    if defer is not None:
        defer(shape.hand_key(hand), vk, public, proof)
        return
    try:
        verify(vk, public, proof, backend)
    except InvalidProof:
        raise InvalidProof(f"the {who}'s hand proof does not verify") from None


def verify_dealer_hand(shape: DealShape, session: str, round_no: int, commitments: list[int],
                       dealer_positions: list[int], board_positions: list[int], hand_commitment: int,
                       proof: Proof, keys: KeySource, backend: Optional[Backend] = None,
                       defer: Optional[Defer] = None) -> None:
    """The dealer's hand is made of the openings at exactly its public positions."""
    _verify_hand(shape, shape.dealer_hand, "dealer_hand", "dealer", session, round_no, commitments,
                 _mask(board_positions), _mask(dealer_positions), hand_commitment, proof, keys, backend, defer)


def verify_chooser_hand(shape: DealShape, session: str, round_no: int, commitments: list[int],
                        dealer_positions: list[int], board_positions: list[int], hand_commitment: int,
                        proof: Proof, keys: KeySource, backend: Optional[Backend] = None,
                        defer: Optional[Defer] = None) -> None:
    """The chooser's hand is made of openings at distinct positions outside the dealer's
    and the board's."""
    _verify_hand(shape, shape.chooser_hand, "chooser_hand", "chooser", session, round_no, commitments,
                 _mask(dealer_positions) | _mask(board_positions), 0, hand_commitment, proof, keys, backend, defer)


# ---------------------------------------------------------------- one message at a time, by a third party
# (a table's referee checks each line of a deal with these before it is written; the
# offline verifier does the same from the transcript)

_FIELDS = {"commit": {"shape", "commitments", "proof", "ot"}, "choose": {"dealer_positions", "board_positions", "ot"},
           "transfer": {"board_openings", "dealer_hand", "ot"}, "hand": {"commitment", "proof"}}


def _exact(msg, kind: str, session: str, round_no: int) -> dict:
    m = _message(msg, kind, session, round_no, sorted(_FIELDS[kind]))
    extra = sorted(set(m) - _FIELDS[kind] - {"type", "version", "session", "round"})
    if extra:
        raise MalformedInput(f"oblivious.{kind} message: unexpected field(s) {', '.join(extra)}")
    return m


def check_commit(msg, shape: DealShape, session: str, round_no: int, keys: KeySource,
                 backend: Optional[Backend] = None, defer: Optional[Defer] = None) -> list[int]:
    """An ``oblivious.commit`` as a third party sees it: its shape, 52 commitments, the OT
    key ``A`` (a valid point) and the permutation proof (decoded and checked here, or, with
    ``defer``, decoded here and handed to it). Returns the commitments."""
    be = backend or get_backend()
    m = _exact(msg, "commit", session, round_no)
    if DealShape.from_json(m["shape"]) != shape:
        raise MalformedInput(f"oblivious.commit: shape {m['shape']!r:.120}, expected {shape.to_json()}")
    commitments = _field_list(m["commitments"], shape.deck, "commitments")
    if not isinstance(m["ot"], dict) or set(m["ot"]) != {"A"}:
        raise MalformedInput("oblivious.commit: ot must be {A}")
    decode_point(m["ot"]["A"], "OT setup A")
    verify_permutation(shape, session, round_no, commitments, _proof(m["proof"], "permutation proof", be), keys, be,
                       defer)
    return commitments


def check_choose(msg, shape: DealShape, session: str, round_no: int) -> tuple[list[int], list[int]]:
    """An ``oblivious.choose``: the dealer's and the board's positions (distinct, apart)
    and one valid OT request point per secret position. Returns (dealer, board) positions."""
    m = _exact(msg, "choose", session, round_no)
    dealer, board = _check_choose(m, shape)
    if not isinstance(m["ot"], dict) or set(m["ot"]) != {"B"} or not isinstance(m["ot"]["B"], list) \
            or len(m["ot"]["B"]) != shape.chooser_hand:
        raise MalformedInput(f"oblivious.choose: ot must be {{B: {shape.chooser_hand} points}}")
    for i, x in enumerate(m["ot"]["B"]):
        decode_point(x, f"OT request B[{i}]")
    return dealer, board


def check_transfer(msg, shape: DealShape, session: str, round_no: int, commitments: list[int],
                   dealer: list[int], board: list[int], keys: KeySource,
                   backend: Optional[Backend] = None, defer: Optional[Defer] = None) -> tuple[int, int]:
    """An ``oblivious.transfer`` as far as a third party can check it: the board openings
    against their commitments (:class:`CommitmentMismatch`), the dealer's hand proof (or,
    with ``defer``, the proof handed to it), and
    the OT response's shape (one row of ``deck`` ciphertexts per transfer). What the
    ciphertexts hold only the chooser can tell (and prove by a complaint). Returns
    (board mask, the dealer's hand commitment)."""
    be = backend or get_backend()
    m = _exact(msg, "transfer", session, round_no)
    openings = _board_openings(m["board_openings"], board, shape)
    dh = m["dealer_hand"]
    if not isinstance(dh, dict) or set(dh) != {"commitment", "proof"}:
        raise MalformedInput("dealer_hand: expected commitment and proof")
    commitment = parse_decimal(dh["commitment"], "dealer hand commitment", r)
    proof = _proof(dh["proof"], "dealer hand proof", be)
    rows = m["ot"].get("ciphertexts") if isinstance(m["ot"], dict) and set(m["ot"]) == {"ciphertexts"} else None
    if not isinstance(rows, list) or len(rows) != shape.chooser_hand:
        raise MalformedInput(f"oblivious.transfer: ot must be {{ciphertexts: {shape.chooser_hand} rows}}")
    blob = 2 * (OPENING_BYTES + TAG_BYTES)
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != shape.deck or \
                any(not isinstance(x, str) or len(x) != blob or not _HEX.issuperset(x) for x in row):
            raise MalformedInput(f"oblivious.transfer: ciphertexts[{i}] must be {shape.deck} strings of {blob} "
                                 f"lowercase hex digits")
    bad = _bad_board_opening(openings, commitments)
    if bad:
        raise CommitmentMismatch(bad)
    verify_dealer_hand(shape, session, round_no, commitments, dealer, board, commitment, proof, keys, be, defer)
    return _mask(card for _, card, _ in openings), commitment


def check_hand(msg, shape: DealShape, session: str, round_no: int, commitments: list[int], dealer: list[int],
               board: list[int], keys: KeySource, backend: Optional[Backend] = None,
               defer: Optional[Defer] = None) -> int:
    """An ``oblivious.hand``: the chooser's hand proof (or, with ``defer``, the proof
    handed to it). Returns its hand commitment."""
    be = backend or get_backend()
    m = _exact(msg, "hand", session, round_no)
    commitment = parse_decimal(m["commitment"], "hand commitment", r)
    verify_chooser_hand(shape, session, round_no, commitments, dealer, board, commitment,
                        _proof(m["proof"], "chooser hand proof", be), keys, be, defer)
    return commitment


def deal_record(dealer_or_chooser) -> dict:
    """The public record of a finished deal, from either party's messages: what a
    third party needs to check it with :func:`verify_deal` (no OT traffic)."""
    m = dealer_or_chooser.messages
    if set(m) != {"commit", "choose", "transfer", "hand"}:
        raise MalformedInput("deal record: the deal is not finished")
    c, ch, t, h = m["commit"], m["choose"], m["transfer"], m["hand"]
    return {**_header("record", c["session"], c["round"]), "shape": c["shape"], "commitments": c["commitments"],
            "permutation_proof": c["proof"], "dealer_positions": ch["dealer_positions"],
            "board_positions": ch["board_positions"], "board_openings": t["board_openings"],
            "dealer_hand": t["dealer_hand"], "chooser_hand": {"commitment": h["commitment"], "proof": h["proof"]}}


def verify_deal(record: dict, keys: Optional[KeySource] = None, backend: Optional[Backend] = None) -> dict:
    """Check a deal record: the permutation proof, the board openings, both hand proofs.
    Returns ``{"board": mask, "dealer_hand_commitment", "chooser_hand_commitment"}``;
    raises :class:`InvalidProof`, :class:`CommitmentMismatch` (a board opening) or
    :class:`MalformedInput`."""
    keys = keys or _default_keys
    be = backend or get_backend()
    if not isinstance(record, dict) or not isinstance(record.get("session"), str) \
            or isinstance(record.get("round"), bool) or not isinstance(record.get("round"), int):
        raise MalformedInput("deal record: expected an object with session and round")
    session, round_no = record["session"], record["round"]
    msg = _message(record, "record", session, round_no,
                   ("shape", "commitments", "permutation_proof", "dealer_positions", "board_positions",
                    "board_openings", "dealer_hand", "chooser_hand"))
    shape = DealShape.from_json(msg["shape"])
    commitments = _field_list(msg["commitments"], shape.deck, "commitments")
    dealer, board = _check_choose(msg, shape)
    openings = _board_openings(msg["board_openings"], board, shape)
    hands = {}
    for who in ("dealer_hand", "chooser_hand"):
        x = msg[who]
        if not isinstance(x, dict) or set(x) != {"commitment", "proof"}:
            raise MalformedInput(f"{who}: expected commitment and proof")
        hands[who] = (parse_decimal(x["commitment"], f"{who} commitment", r), _proof(x["proof"], who, be))
    verify_permutation(shape, session, round_no, commitments, _proof(msg["permutation_proof"], "permutation", be),
                       keys, be)
    bad = _bad_board_opening(openings, commitments)
    if bad:
        raise CommitmentMismatch(bad)
    verify_dealer_hand(shape, session, round_no, commitments, dealer, board, *hands["dealer_hand"], keys, be)
    verify_chooser_hand(shape, session, round_no, commitments, dealer, board, *hands["chooser_hand"], keys, be)
    return {"board": _mask(card for _, card, _ in openings), "dealer_hand_commitment": hands["dealer_hand"][0],
            "chooser_hand_commitment": hands["chooser_hand"][0]}


def verify_complaint(complaint: dict, backend: Optional[Backend] = None) -> str:
    """Check a chooser's complaint against its dealer: pure, from the messages it carries
    (which a table takes from its signed transcript). Returns what the dealer did wrong;
    raises :class:`InvalidComplaint` if the complaint does not show it (the reveal does
    not open the chooser's own request, or the accused opening is right) and
    :class:`MalformedInput` if it is malformed."""
    be = backend or get_backend()
    if not isinstance(complaint, dict) or not isinstance(complaint.get("session"), str) \
            or isinstance(complaint.get("round"), bool) or not isinstance(complaint.get("round"), int):
        raise MalformedInput("complaint: expected an object with session and round")
    session, round_no = complaint["session"], complaint["round"]
    msg = _message(complaint, "complaint", session, round_no, ("commit", "choose", "transfer", "reveal"))
    commit = _message(msg["commit"], "commit", session, round_no, ("shape", "commitments", "ot"))
    choose = _message(msg["choose"], "choose", session, round_no, ("dealer_positions", "board_positions", "ot"))
    transfer = _message(msg["transfer"], "transfer", session, round_no, ("board_openings", "ot"))
    shape = DealShape.from_json(commit["shape"])
    commitments = _field_list(commit["commitments"], shape.deck, "commitments")
    dealer, board = _check_choose(choose, shape)
    reveal = msg["reveal"]
    if reveal is None:  # a complaint about the public board openings
        bad = _bad_board_opening(_board_openings(transfer["board_openings"], board, shape), commitments)
        if bad is None:
            raise InvalidComplaint("complaint: every board opening matches its commitment")
        return bad
    try:
        payload = open_revealed(ot_session(session, round_no), shape.deck, OPENING_BYTES, commit["ot"],
                                choose["ot"], transfer["ot"], reveal, be)
    except DealerFault as exc:
        return str(exc)
    pos = reveal["choice"]
    opening = decode_opening(payload, shape.deck)
    if opening is None:
        return f"OT transfer {reveal['transfer']}: the payload at position {pos} is not an opening"
    if native_commit(*opening) != commitments[pos]:
        return f"OT transfer {reveal['transfer']}: the opening of position {pos} does not match its commitment"
    raise InvalidComplaint(f"complaint: the opening of position {pos} in transfer {reveal['transfer']} is correct")


def run_deal(dealer: ObliviousDealer, chooser: ObliviousChooser,
             wire: Callable[[dict], dict] = lambda m: json.loads(json.dumps(m))) -> dict:
    """Run a whole deal between two local parties, each message through ``wire`` (by
    default a JSON round trip, as over a network). Returns the deal record."""
    choose = chooser.choose(wire(dealer.commit()))
    hand = chooser.finish(wire(dealer.transfer(wire(choose))))
    dealer.accept(wire(hand))
    return deal_record(dealer)
