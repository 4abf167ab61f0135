"""ElGamal over BN254's G1 (cards as points) for the house-blind deal (docs/house-blind-deal.md):
seat keys with proofs of knowledge, a deck of ciphertexts, and decryption shares with
Chaum–Pedersen proofs. The shuffle argument is :mod:`zkbluff.protocol.shuffle`; the deal's
steps over both are :mod:`zkbluff.protocol.house_blind`.

Notation (additive, as the papers' multiplicative ``g^x`` becomes ``xG``): ``G`` generates G1
(prime order ``r``, cofactor 1); seat ``k`` holds ``x_k`` and publishes ``h_k = x_k G``; the
joint key is ``H = sum_k h_k``. Card ``c`` is the point ``M_c = (c + 1) G``. A ciphertext is
``(A, B) = (sG, M + sH)``; re-encrypting adds ``(tG, tH)``. Seat ``k``'s decryption share of
``(A, B)`` is ``D_k = x_k A``; ``M = B - sum_k D_k``.

Every Fiat–Shamir challenge hashes a :class:`ProofContext` (match, seat, step, previous
transcript hash) first, so no proof serves in another match, seat, step or position.

Heavy group work goes through the backend in batches: ``g1_mul_many`` (one base, many
scalars), ``g1_batch_mul``/``g1_scale``/``g1_batch_add`` (vectors), ``g1_msm`` (one multi-scalar
multiplication for a whole batch of checks, :class:`Terms`).
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Optional, Protocol, Sequence

from zkbluff.curve import G1_GENERATOR, Backend, G1Affine, g1_is_on_curve, get_backend
from zkbluff.errors import InvalidShare, MalformedInput
from zkbluff.field import p, r

G = G1_GENERATOR
Point = tuple[int, int]
DOMAIN = b"zkbluff:house-blind:v1:"
#: bits of each random weight of a batched check: a false equation passes with probability 2^-128
BATCH_WEIGHT_BITS = 128


class Randomness(Protocol):
    """Where a party's scalars and permutations come from (``secrets`` by default)."""

    def randbelow(self, n: int) -> int: ...


class _Secrets:
    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)  # looked up at call time: the test fixture seeds it


SYSTEM = _Secrets()


def random_scalars(n: int, rng: Optional[Randomness] = None) -> list[int]:
    """``n`` uniform nonzero scalars of Fr."""
    rng = rng or SYSTEM
    return [1 + rng.randbelow(r - 1) for _ in range(n)]


# ---------------------------------------------------------------------------- encoding


def finite(points: Sequence[G1Affine]) -> list[Point]:
    """``points`` with the type of finite points; :class:`MalformedInput` if one is the point
    at infinity (no deck, key or proof point may be: a computation that gives one was fed
    points chosen to cancel)."""
    out = []
    for P in points:
        if P is None:
            raise MalformedInput("house-blind deal: a computed point is the point at infinity")
        out.append(P)
    return out


def point_bytes(P: G1Affine) -> bytes:
    """64 bytes ``x || y`` big-endian (the Ethereum layout), infinity refused."""
    if P is None:
        raise MalformedInput("house-blind deal: got the point at infinity, expected a finite point")
    return P[0].to_bytes(32, "big") + P[1].to_bytes(32, "big")


def point_hex(P: G1Affine) -> str:
    return point_bytes(P).hex()


def point_from_hex(s: object, what: str) -> Point:
    """A finite G1 point from 128 hex digits; :class:`MalformedInput` for anything else
    (wrong length, a coordinate >= p, off the curve, the point at infinity)."""
    if not isinstance(s, str) or len(s) != 128:
        raise MalformedInput(f"{what}: expected 128 hex digits, got {str(s)[:40]!r}")
    try:
        raw = bytes.fromhex(s)
    except ValueError:
        raise MalformedInput(f"{what}: expected 128 hex digits, got {s[:40]!r}") from None
    x, y = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    if x >= p or y >= p:
        raise MalformedInput(f"{what}: a coordinate is not below p")
    if (x, y) == (0, 0) or not g1_is_on_curve((x, y)):
        raise MalformedInput(f"{what}: ({x}, {y}) is not a finite point of y^2 = x^3 + 3")
    return (x, y)


def scalar_hex(k: int) -> str:
    return k.to_bytes(32, "big").hex()


def scalar_from_hex(s: object, what: str) -> int:
    if not isinstance(s, str) or len(s) != 64:
        raise MalformedInput(f"{what}: expected 64 hex digits, got {str(s)[:40]!r}")
    try:
        k = int(s, 16)
    except ValueError:
        raise MalformedInput(f"{what}: expected 64 hex digits, got {s[:40]!r}") from None
    if k >= r:
        raise MalformedInput(f"{what}: expected a scalar below r, got {k}")
    return k


def hex_list(obj: object, n: int, what: str) -> list:
    if not isinstance(obj, list) or len(obj) != n:
        got = len(obj) if isinstance(obj, list) else type(obj).__name__
        raise MalformedInput(f"{what}: expected a list of {n}, got {got}")
    return obj


# ---------------------------------------------------------------------------- Fiat–Shamir


@dataclass(frozen=True)
class ProofContext:
    """What every challenge of one message is bound to: the match, the seat that makes the
    message, the deal step (``"key"``, ``"shuffle"``, ``"share"``, with the round), and the
    hash of the transcript line before it."""

    match_id: str
    seat: int
    step: str
    prev_hash: str

    def encode(self) -> bytes:
        body = json.dumps([self.match_id, self.seat, self.step, self.prev_hash], separators=(",", ":"))
        return DOMAIN + body.encode()


def challenge(tag: bytes, ctx: ProofContext, parts: Iterable[bytes]) -> int:
    """A scalar ``SHA-512(domain, tag, context, parts) mod r`` (512 bits: bias below 2^-250)."""
    h = hashlib.sha512(DOMAIN + tag + b"\x00")
    h.update(hashlib.sha256(ctx.encode()).digest())
    for part in parts:
        h.update(part)
    return int.from_bytes(h.digest(), "big") % r


def challenge_vector(seed: bytes, n: int) -> list[int]:
    """``n`` scalars expanded from a 64-byte seed by counter."""
    return [int.from_bytes(hashlib.sha512(seed + i.to_bytes(4, "big")).digest(), "big") % r for i in range(n)]


# ---------------------------------------------------------------------------- generators


def _sqrt_p(a: int) -> Optional[int]:
    y = pow(a, (p + 1) // 4, p)  # p = 3 mod 4
    return y if y * y % p == a % p else None


@lru_cache(maxsize=64)
def hash_to_g1(label: str, index: int) -> Point:
    """A point of G1 nobody knows the discrete log of (try-and-increment on SHA-256; G1 has
    cofactor 1, so every curve point is in the group). The shuffle argument's commitment
    bases ``h_1..h_N`` and ``U`` are these."""
    for ctr in range(256):
        digest = hashlib.sha256(DOMAIN + f"generator:{label}:{index}:{ctr}".encode()).digest()
        x = int.from_bytes(digest, "big") % p
        y = _sqrt_p((x * x * x + 3) % p)
        if y is not None:
            return (x, min(y, p - y))
    raise AssertionError("hash_to_g1: no point in 256 tries")  # pragma: no cover - probability 2^-256


@lru_cache(maxsize=8)
def card_points(n: int) -> tuple[Point, ...]:
    """``M_c = (c + 1) G`` for the cards ``0..n-1`` of a deck."""
    return tuple(finite(get_backend().g1_mul_many(G, list(range(1, n + 1)))))


@lru_cache(maxsize=8)
def card_lookup(n: int) -> dict[Point, int]:
    return {M: c for c, M in enumerate(card_points(n))}


# ---------------------------------------------------------------------------- batched checks


class Terms:
    """A sum ``sum_i k_i P_i`` of weighted check equations, each weighted by its own random
    128-bit factor, collected for one MSM: the sum is the point at infinity when every
    equation holds, and otherwise with probability at most 2^-128 per batch. Equal points
    are merged (a key or a generator that occurs in many equations costs one term)."""

    def __init__(self) -> None:
        self._coeffs: dict[Point, int] = {}

    @staticmethod
    def weight() -> int:
        return 1 + secrets.randbits(BATCH_WEIGHT_BITS)

    @staticmethod
    def weights(k: int) -> list[int]:
        """``k`` random weights from one draw of the OS generator."""
        size = BATCH_WEIGHT_BITS // 8
        raw = secrets.token_bytes(size * k)
        return [1 + int.from_bytes(raw[i:i + size], "big") for i in range(0, size * k, size)]

    def add(self, point: Point, k: int) -> None:
        """Add ``k point`` (coefficients are reduced mod r once, in :meth:`holds`)."""
        coeffs = self._coeffs
        coeffs[point] = coeffs.get(point, 0) + k

    def add_many(self, points: Sequence[Point], ks: Sequence[int]) -> None:
        coeffs = self._coeffs
        get = coeffs.get
        for P, k in zip(points, ks):
            coeffs[P] = get(P, 0) + k

    def __len__(self) -> int:
        return len(self._coeffs)

    def holds(self, backend: Optional[Backend] = None) -> bool:
        """Whether the weighted sum is the point at infinity (one MSM)."""
        if not self._coeffs:
            return True
        be = backend or get_backend()
        return be.g1_msm(list(self._coeffs), [k % r for k in self._coeffs.values()]) is None


# ---------------------------------------------------------------------------- ciphertexts


@dataclass(frozen=True)
class Deck:
    """A vector of ciphertexts ``(A_i, B_i)``."""

    A: tuple[Point, ...]
    B: tuple[Point, ...]

    def __post_init__(self) -> None:
        if len(self.A) != len(self.B) or not self.A:
            raise MalformedInput(f"deck: got {len(self.A)} A parts and {len(self.B)} B parts, expected a "
                                 f"nonempty deck with one of each per card")

    def __len__(self) -> int:
        return len(self.A)

    def encode(self) -> bytes:
        return b"".join(map(point_bytes, self.A)) + b"".join(map(point_bytes, self.B))

    def to_json(self) -> dict:
        return {"A": [point_hex(P) for P in self.A], "B": [point_hex(P) for P in self.B]}

    @classmethod
    def from_json(cls, obj: object, n: int, what: str = "deck") -> "Deck":
        if not isinstance(obj, dict) or set(obj) != {"A", "B"}:
            raise MalformedInput(f"{what}: expected an object with fields A and B")
        A = tuple(point_from_hex(s, f"{what}.A[{i}]") for i, s in enumerate(hex_list(obj["A"], n, f"{what}.A")))
        B = tuple(point_from_hex(s, f"{what}.B[{i}]") for i, s in enumerate(hex_list(obj["B"], n, f"{what}.B")))
        return cls(A, B)


def initial_deck(n: int, joint_key: Point, backend: Optional[Backend] = None) -> Deck:
    """The public starting deck: card ``c`` at position ``c``, encrypted with randomness 1
    (``(G, M_c + H)``), so that no point of any deck is the point at infinity."""
    be = backend or get_backend()
    M = card_points(n)
    return Deck(tuple([G] * n), tuple(finite(be.g1_batch_add(list(M), [joint_key] * n))))


def reencrypt(deck: Deck, order: Sequence[int], rand: Sequence[int], joint_key: Point,
              backend: Optional[Backend] = None) -> Deck:
    """``(A_{order[i]} + t_i G, B_{order[i]} + t_i H)`` for each output position ``i``."""
    be = backend or get_backend()
    tG = be.g1_mul_many(G, rand)
    tH = be.g1_mul_many(joint_key, rand)
    A = be.g1_batch_add([deck.A[j] for j in order], tG)
    B = be.g1_batch_add([deck.B[j] for j in order], tH)
    return Deck(tuple(finite(A)), tuple(finite(B)))


# ---------------------------------------------------------------------------- seat keys


@dataclass(frozen=True)
class KeyAnnouncement:
    """A seat's public key ``h = xG`` and a Schnorr proof of knowledge of ``x`` (``T = wG``,
    ``z = w + e x``), bound to its context: without it a seat could announce
    ``h' - sum(others)`` and decrypt alone (a rogue key)."""

    h: Point
    T: Point
    z: int

    def to_json(self) -> dict:
        return {"h": point_hex(self.h), "T": point_hex(self.T), "z": scalar_hex(self.z)}

    @classmethod
    def from_json(cls, obj: object, what: str = "key") -> "KeyAnnouncement":
        if not isinstance(obj, dict) or set(obj) != {"h", "T", "z"}:
            raise MalformedInput(f"{what}: expected an object with fields h, T, z")
        return cls(point_from_hex(obj["h"], f"{what}.h"), point_from_hex(obj["T"], f"{what}.T"),
                   scalar_from_hex(obj["z"], f"{what}.z"))


def _key_challenge(ctx: ProofContext, h: Point, T: Point) -> int:
    return challenge(b"key", ctx, (point_bytes(G), point_bytes(h), point_bytes(T)))


@dataclass(frozen=True)
class SeatKey:
    """A seat's secret decryption key (never sent)."""

    x: int

    @classmethod
    def generate(cls, rng: Optional[Randomness] = None) -> "SeatKey":
        return cls(random_scalars(1, rng)[0])

    def announce(self, ctx: ProofContext, rng: Optional[Randomness] = None,
                 backend: Optional[Backend] = None) -> KeyAnnouncement:
        be = backend or get_backend()
        w = random_scalars(1, rng)[0]
        h, T = be.g1_mul_many(G, [self.x, w])
        assert h is not None and T is not None
        e = _key_challenge(ctx, h, T)
        return KeyAnnouncement(h, T, (w + e * self.x) % r)


def add_key_terms(terms: Terms, ann: KeyAnnouncement, ctx: ProofContext) -> None:
    """The key proof's equation ``zG = T + e h``, weighted."""
    e = _key_challenge(ctx, ann.h, ann.T)
    w = Terms.weight()
    terms.add(G, w * ann.z)
    terms.add(ann.h, -w * e)
    terms.add(ann.T, -w)


def verify_key(ann: KeyAnnouncement, ctx: ProofContext, backend: Optional[Backend] = None) -> None:
    """Raise :class:`InvalidShare` (code ``key.proof``) unless ``ann`` proves knowledge of its key."""
    terms = Terms()
    add_key_terms(terms, ann, ctx)
    if not terms.holds(backend):
        raise InvalidShare(f"seat {ctx.seat}'s key announcement: the proof of knowledge does not verify",
                           seat=ctx.seat, check="key.proof")


def joint_key(keys: Sequence[Point], backend: Optional[Backend] = None) -> Point:
    be = backend or get_backend()
    H = be.g1_msm(list(keys), [1] * len(keys))
    if H is None:
        raise MalformedInput("house-blind deal: the seats' keys sum to the point at infinity")
    return H


# ---------------------------------------------------------------------------- decryption shares


@dataclass(frozen=True)
class Share:
    """Seat ``seat``'s decryption share ``D = xA`` of the card at position ``card`` and a
    Chaum–Pedersen proof that ``log_G h = log_A D``: ``T1 = wG``, ``T2 = wA``, ``z = w + e x``."""

    seat: int
    card: int
    D: Point
    T1: Point
    T2: Point
    z: int

    def to_json(self) -> dict:
        return {"seat": self.seat, "card": self.card, "D": point_hex(self.D), "T1": point_hex(self.T1),
                "T2": point_hex(self.T2), "z": scalar_hex(self.z)}

    @classmethod
    def from_json(cls, obj: object, what: str = "share") -> "Share":
        if not isinstance(obj, dict) or set(obj) != {"seat", "card", "D", "T1", "T2", "z"}:
            raise MalformedInput(f"{what}: expected an object with fields seat, card, D, T1, T2, z")
        seat, card = obj["seat"], obj["card"]
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1024 for v in (seat, card)):
            raise MalformedInput(f"{what}: seat and card must be small non-negative integers")
        return cls(seat, card, point_from_hex(obj["D"], f"{what}.D"), point_from_hex(obj["T1"], f"{what}.T1"),
                   point_from_hex(obj["T2"], f"{what}.T2"), scalar_from_hex(obj["z"], f"{what}.z"))


def _share_challenge(ctx: ProofContext, card: int, h: Point, A: Point, D: Point, T1: Point, T2: Point) -> int:
    parts = [card.to_bytes(4, "big")] + [point_bytes(P) for P in (G, h, A, D, T1, T2)]
    return challenge(b"share", ctx, parts)


def make_shares(key: SeatKey, seat: int, h: Point, deck: Deck, cards: Sequence[int], ctx: ProofContext,
                rng: Optional[Randomness] = None, backend: Optional[Backend] = None) -> list[Share]:
    """Seat ``seat``'s shares of the cards at positions ``cards`` of ``deck`` (three batched calls)."""
    be = backend or get_backend()
    if not cards:
        return []
    A = [deck.A[i] for i in cards]
    w = random_scalars(len(cards), rng)
    D = be.g1_scale(A, key.x)
    T1 = be.g1_mul_many(G, w)
    T2 = be.g1_batch_mul(A, w)
    out = []
    for i, card in enumerate(cards):
        Di, T1i, T2i = D[i], T1[i], T2[i]
        assert Di is not None and T1i is not None and T2i is not None
        e = _share_challenge(ctx, card, h, A[i], Di, T1i, T2i)
        out.append(Share(seat, card, Di, T1i, T2i, (w[i] + e * key.x) % r))
    return out


def add_share_terms(terms: Terms, share: Share, h: Point, A: Point, ctx: ProofContext,
                    weights: Optional[Sequence[int]] = None) -> None:
    """The share's two Chaum–Pedersen equations ``zG = T1 + e h`` and ``zA = T2 + e D``,
    weighted (by ``weights``, two fresh random ones when not given)."""
    e = _share_challenge(ctx, share.card, h, A, share.D, share.T1, share.T2)
    w1, w2 = weights or Terms.weights(2)
    terms.add_many((G, h, share.T1, A, share.D, share.T2),
                   (w1 * share.z, -w1 * e, -w1, w2 * share.z, -w2 * e, -w2))


def check_share_labels(shares: Sequence[Share], expected: Sequence[tuple[int, int]]) -> None:
    """Raise :class:`InvalidShare` (``share.missing``, ``share.card``) unless ``shares`` are
    the ``(seat, position)`` shares owed, in order."""
    for i, (seat, card) in enumerate(expected):
        if i >= len(shares):
            raise InvalidShare(f"seat {seat} sent no share of position {card}", seat=seat, card=card,
                               check="share.missing")
        if (shares[i].seat, shares[i].card) != (seat, card):
            raise InvalidShare(f"a share of position {shares[i].card} by seat {shares[i].seat} where seat {seat}'s "
                               f"share of position {card} was owed", seat=seat, card=card, check="share.card")
    if len(shares) > len(expected):
        raise MalformedInput(f"shares: got {len(shares)}, expected {len(expected)}")


def verify_shares(shares: Sequence[Share], keys: Sequence[Point], deck: Deck,
                  expected: Sequence[tuple[int, int]], ctx_of: "ShareContexts",
                  backend: Optional[Backend] = None) -> None:
    """Check ``shares`` against what was owed: ``expected[i] = (seat, card)``. Raises
    :class:`InvalidShare` naming the seat and the check: ``share.card`` (a share of another
    card or by another seat than the one owed in that place), ``share.proof`` (its
    Chaum–Pedersen proof fails: a wrong ``D``). All proofs are checked in one MSM; only when
    it fails is each checked alone, to name the first bad one."""
    check_share_labels(shares, expected)
    terms = Terms()
    for share in shares:
        add_share_terms(terms, share, keys[share.seat], deck.A[share.card], ctx_of(share.seat))
    if terms.holds(backend):
        return
    for share in shares:
        one = Terms()
        add_share_terms(one, share, keys[share.seat], deck.A[share.card], ctx_of(share.seat))
        if not one.holds(backend):
            raise InvalidShare(f"seat {share.seat}'s share of card {share.card}: the Chaum–Pedersen proof does "
                               f"not verify", seat=share.seat, card=share.card, check="share.proof")
    raise AssertionError("verify_shares: the batch failed but no share does")  # pragma: no cover - 2^-128


class ShareContexts(Protocol):
    def __call__(self, seat: int) -> ProofContext: ...


def open_cards(key: SeatKey, deck: Deck, shares_at: Mapping[int, Sequence[Share]],
               backend: Optional[Backend] = None) -> dict[int, int]:
    """The cards at the positions of ``shares_at`` (position → the other seats' verified shares
    of it), with this seat's own key: ``B - xA - sum D`` for each, in one batched MSM call,
    looked up among the deck's card points. Raises :class:`InvalidShare` (``share.opening``)
    for a position that opens to no card (cannot happen once every shuffle and share verified)."""
    be = backend or get_backend()
    positions = list(shares_at)
    groups = [([deck.B[i], deck.A[i]] + [s.D for s in shares_at[i]], [1, r - key.x] + [r - 1] * len(shares_at[i]))
              for i in positions]
    lookup = card_lookup(len(deck))
    out = {}
    for i, M in zip(positions, be.g1_msm_many(groups) if groups else []):
        if M not in lookup:
            raise InvalidShare(f"position {i} does not open to a card", card=i, check="share.opening")
        out[i] = lookup[M]
    return out
