"""A verifiable re-encryption shuffle of an ElGamal deck: the Terelius–Wikström proof of a
shuffle (Terelius & Wikström, AFRICACRYPT 2010; Wikström's Verificatum), in the form of
Haenni, Locher, Koenig & Dubuis, "Pseudo-code algorithms for verifiable re-encryption
mix-nets" (FC 2017 workshops), written additively over BN254's G1. docs/house-blind-deal.md
gives the protocol, its soundness and what it assumes.

The shuffler maps deck ``e`` to ``e'_i = e_{pi(i)} + t_i (G, H)`` and proves, without
revealing ``pi`` or ``t``, that ``e'`` is such a re-encryption and permutation:

1. a commitment to the permutation matrix, one Pedersen vector commitment per input
   ``j``: ``c_j = r_j G + h_{pi^-1(j)}`` (bases ``h_i`` hashed to the curve);
2. challenges ``u_j`` = hash(context, e, e', c); ``u'_i = u_{pi(i)}``;
3. a commitment chain ``ĉ_0 = U``, ``ĉ_i = R_i G + u'_i ĉ_{i-1}`` (so ``ĉ_N`` commits to
   ``prod u'_i``);
4. one sigma protocol (Fiat–Shamir challenge ``c``) for five statements, each a named check:

   * ``shuffle.permutation-sum``: ``sum c_j - sum h_i`` is a multiple of ``G`` (each row
     of the matrix sums to 1);
   * ``shuffle.permutation-product``: ``ĉ_N - (prod u_j) U`` is a multiple of ``G``
     (``prod u'_i = prod u_j``: with the row sums, the matrix is a permutation matrix
     except with probability N/r, by Schwartz–Zippel);
   * ``shuffle.permutation-opening``: the prover knows the opening ``u'`` of
     ``sum u_j c_j`` and the same ``u'`` links every step of the chain;
   * ``shuffle.reencryption``: ``sum u'_i e'_i - rho (G, H) = sum u_j e_j`` for a ``rho``
     the prover knows (the outputs are re-encryptions of the inputs in that order).

The prover computes the chain in closed form (``ĉ_i = x_i U + y_i G``), so all of its group
work is fixed-base batches and three MSMs. The verifier folds every equation of a shuffle
(and of a whole deal: :func:`add_shuffle_terms`) into one MSM with random 128-bit weights;
only when that fails does it check each equation alone, to name the first that fails.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from zkbluff.curve import Backend, get_backend
from zkbluff.errors import InvalidShuffle, MalformedInput
from zkbluff.field import r
from zkbluff.protocol.elgamal import (
    DOMAIN,
    G,
    Deck,
    Point,
    ProofContext,
    Randomness,
    Terms,
    challenge,
    challenge_vector,
    finite,
    hash_to_g1,
    hex_list,
    point_bytes,
    point_from_hex,
    point_hex,
    random_scalars,
    reencrypt,
    scalar_from_hex,
    scalar_hex,
)

#: the named checks, in the order a failing shuffle is diagnosed
CHECKS = ("shuffle.permutation-sum", "shuffle.permutation-product", "shuffle.permutation-opening",
          "shuffle.reencryption")


def bases(n: int) -> tuple[list[Point], Point]:
    """The commitment bases ``h_1..h_n`` and the chain's start ``U`` (nobody knows a discrete
    log among them and ``G``)."""
    return [hash_to_g1("shuffle.h", i) for i in range(n)], hash_to_g1("shuffle.U", 0)


@dataclass(frozen=True)
class ShuffleProof:
    """The argument's messages: permutation commitments ``c``, the chain ``chain`` (``ĉ_1..ĉ_N``),
    the sigma protocol's commitments ``t1..t4B``, ``t_hat`` and responses ``s1..s4``,
    ``s_hat``, ``s_prime``."""

    c: tuple[Point, ...]
    chain: tuple[Point, ...]
    t1: Point
    t2: Point
    t3: Point
    t4A: Point
    t4B: Point
    t_hat: tuple[Point, ...]
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    _POINTS = ("t1", "t2", "t3", "t4A", "t4B")
    _SCALARS = ("s1", "s2", "s3", "s4")
    _POINT_VECTORS = ("c", "chain", "t_hat")
    _SCALAR_VECTORS = ("s_hat", "s_prime")

    def __len__(self) -> int:
        return len(self.c)

    def to_json(self) -> dict:
        out: dict = {name: point_hex(getattr(self, name)) for name in self._POINTS}
        out.update({name: scalar_hex(getattr(self, name)) for name in self._SCALARS})
        out.update({name: [point_hex(P) for P in getattr(self, name)] for name in self._POINT_VECTORS})
        out.update({name: [scalar_hex(k) for k in getattr(self, name)] for name in self._SCALAR_VECTORS})
        return out

    @classmethod
    def from_json(cls, obj: object, n: int, what: str = "shuffle proof") -> "ShuffleProof":
        names = set(cls._POINTS + cls._SCALARS + cls._POINT_VECTORS + cls._SCALAR_VECTORS)
        if not isinstance(obj, dict) or set(obj) != names:
            raise MalformedInput(f"{what}: expected an object with fields {sorted(names)}")
        fields: dict = {name: point_from_hex(obj[name], f"{what}.{name}") for name in cls._POINTS}
        fields.update({name: scalar_from_hex(obj[name], f"{what}.{name}") for name in cls._SCALARS})
        for name in cls._POINT_VECTORS:
            fields[name] = tuple(point_from_hex(s, f"{what}.{name}[{i}]")
                                 for i, s in enumerate(hex_list(obj[name], n, f"{what}.{name}")))
        for name in cls._SCALAR_VECTORS:
            fields[name] = tuple(scalar_from_hex(s, f"{what}.{name}[{i}]")
                                 for i, s in enumerate(hex_list(obj[name], n, f"{what}.{name}")))
        return cls(**fields)


@dataclass(frozen=True)
class ShuffleSecret:
    """What the shuffler keeps (never sent): its permutation and re-encryption scalars."""

    order: tuple[int, ...]
    rand: tuple[int, ...]


# ---------------------------------------------------------------------------- challenges


def _u_seed(ctx: ProofContext, H: Point, deck_in: Deck, deck_out: Deck, c: Sequence[Point]) -> bytes:
    h = hashlib.sha512(DOMAIN + b"shuffle.u\x00")
    h.update(hashlib.sha256(ctx.encode()).digest())
    h.update(point_bytes(H))
    h.update(deck_in.encode())
    h.update(deck_out.encode())
    h.update(b"".join(map(point_bytes, c)))
    return h.digest()


def _sigma_challenge(ctx: ProofContext, u_seed: bytes, chain: Sequence[Point], ts: Sequence[Point],
                     t_hat: Sequence[Point]) -> int:
    """The sigma protocol's challenge over every commitment it answers: the chain, ``t1..t4B``
    *and* the ``t̂_i`` (a prover that picks ``t̂_i`` after the challenge satisfies every chain
    equation for any chain, and the product check then proves nothing)."""
    return challenge(b"shuffle.c", ctx, (u_seed, b"".join(map(point_bytes, chain)), b"".join(map(point_bytes, ts)),
                                         b"".join(map(point_bytes, t_hat))))


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for x in xs:
        out = out * x % r
    return out


# ---------------------------------------------------------------------------- prover


def random_permutation(n: int, rng: Randomness) -> list[int]:
    """A uniform permutation of ``0..n-1`` (Fisher–Yates)."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def shuffle_deck(deck: Deck, H: Point, ctx: ProofContext, rng: Optional[Randomness] = None,
                 backend: Optional[Backend] = None) -> tuple[Deck, ShuffleProof, ShuffleSecret]:
    """Seat ``ctx.seat``'s turn: a fresh uniform permutation and re-encryption of ``deck`` under
    the joint key ``H``, and the proof of it."""
    from zkbluff.protocol.elgamal import SYSTEM

    rng = rng or SYSTEM
    order = random_permutation(len(deck), rng)
    return shuffle_with(deck, H, ctx, order, rng, backend)


def shuffle_with(deck: Deck, H: Point, ctx: ProofContext, order: Sequence[int], rng: Optional[Randomness] = None,
                 backend: Optional[Backend] = None) -> tuple[Deck, ShuffleProof, ShuffleSecret]:
    """As :func:`shuffle_deck` with the permutation given (``order[i]`` = the input position
    that goes to output ``i``). Raises ``ValueError`` unless it is a permutation of the deck."""
    if sorted(order) != list(range(len(deck))):
        raise ValueError(f"shuffle: order must be a permutation of 0..{len(deck) - 1}")
    be = backend or get_backend()
    t = random_scalars(len(deck), rng)
    out = reencrypt(deck, order, t, H, be)
    secret = ShuffleSecret(tuple(order), tuple(t))
    return out, prove_shuffle(deck, out, secret, H, ctx, rng, be), secret


def prove_shuffle(deck: Deck, out: Deck, secret: ShuffleSecret, H: Point, ctx: ProofContext,
                  rng: Optional[Randomness] = None, backend: Optional[Backend] = None) -> ShuffleProof:
    """The argument that ``out`` is ``deck`` re-encrypted and permuted by ``secret``. It
    checks nothing: the honest caller passes what it used; a false witness (a map that is no
    permutation, an ``out`` other than the re-encryption) gives a proof the verifier refuses."""
    be = backend or get_backend()
    n = len(deck)
    order, t = list(secret.order), list(secret.rand)
    hs, U = bases(n)
    rows: list[list[int]] = [[] for _ in range(n)]  # the outputs each input goes to (one each, for a permutation)
    for i, j in enumerate(order):
        rows[j].append(i)
    rc = random_scalars(n, rng)
    c = _commit_matrix(be, hs, rc, rows)
    u_seed = _u_seed(ctx, H, deck, out, c)
    u = challenge_vector(u_seed, n)
    u_out = [u[j] for j in order]
    R = random_scalars(n, rng)
    xs, ys = _chain_scalars(u_out, R)
    w = random_scalars(4 + 2 * n, rng)
    w1, w2, w3, w4, w_hat, w_prime = w[0], w[1], w[2], w[3], w[4:4 + n], w[4 + n:]
    chain, t_hat = _chain_points(be, U, xs, ys, w_hat, w_prime)
    t1, t2 = finite(be.g1_mul_many(G, [w1, w2]))
    t3, t4A, t4B = finite(be.g1_msm_many([
        ([G] + hs, [w3] + w_prime),
        ([G] + list(out.A), [r - w4] + w_prime),
        ([H] + list(out.B), [r - w4] + w_prime),
    ]))
    ts = [t1, t2, t3, t4A, t4B]
    e = _sigma_challenge(ctx, u_seed, chain, ts, t_hat)
    r_bar = sum(rc) % r
    r_tilde = sum(rj * uj for rj, uj in zip(rc, u)) % r
    rho = sum(ti * ui for ti, ui in zip(t, u_out)) % r
    proof = ShuffleProof(
        c=tuple(c), chain=tuple(chain), t1=t1, t2=t2, t3=t3, t4A=t4A, t4B=t4B, t_hat=tuple(t_hat),
        s1=(w1 + e * r_bar) % r, s2=(w2 + e * ys[n]) % r, s3=(w3 + e * r_tilde) % r, s4=(w4 + e * rho) % r,
        s_hat=tuple((wh + e * Ri) % r for wh, Ri in zip(w_hat, R)),
        s_prime=tuple((wp + e * ui) % r for wp, ui in zip(w_prime, u_out)),
    )
    return proof


def _commit_matrix(be: Backend, hs: Sequence[Point], rc: list[int],
                   rows: Sequence[Sequence[int]]) -> list[Point]:
    """The column commitments ``c_j = r_j G + sum_{i in rows[j]} h_i`` of the matrix that
    sends input ``j`` to the outputs ``rows[j]`` (exactly one each for a permutation: then
    one batched addition)."""
    rG = be.g1_mul_many(G, rc)
    if all(len(rw) == 1 for rw in rows):
        return finite(be.g1_batch_add(rG, [hs[rw[0]] for rw in rows]))
    return finite([be.g1_msm([P] + [hs[i] for i in rw], [1] * (1 + len(rw))) for P, rw in zip(rG, rows)])


def _chain_scalars(u_out: Sequence[int], R: Sequence[int]) -> tuple[list[int], list[int]]:
    """``ĉ_i = x_i U + y_i G`` with ``x_i = prod_{k<=i} u'_k``, ``y_i = u'_i y_{i-1} + R_i``."""
    xs, ys = [1], [0]
    for ui, Ri in zip(u_out, R):
        xs.append(xs[-1] * ui % r)
        ys.append((ys[-1] * ui + Ri) % r)
    return xs, ys


def _chain_points(be: Backend, U: Point, xs: Sequence[int], ys: Sequence[int], w_hat: Sequence[int],
                  w_prime: Sequence[int]) -> tuple[list[Point], list[Point]]:
    """The chain ``ĉ_1..ĉ_N`` and ``t̂_i = ŵ_i G + w'_i ĉ_{i-1}``, each ``aU + bG``: two
    fixed-base batches and one batched addition for both."""
    n = len(w_hat)
    a = list(xs[1:]) + [wp * xs[i] % r for i, wp in enumerate(w_prime)]
    b = list(ys[1:]) + [(wh + wp * ys[i]) % r for i, (wh, wp) in enumerate(zip(w_hat, w_prime))]
    pts = finite(be.g1_batch_add(be.g1_mul_many(U, a), be.g1_mul_many(G, b)))
    return pts[:n], pts[n:]


# ---------------------------------------------------------------------------- verifier


Sink = Callable[[str], Terms]


def add_shuffle_terms(sink: Sink, deck_in: Deck, deck_out: Deck, proof: ShuffleProof, H: Point,
                      ctx: ProofContext) -> None:
    """Add the shuffle's weighted equations to ``sink(check)`` (one :class:`Terms` for all, to
    batch; one per check, to diagnose). Raises :class:`InvalidShuffle` (``shuffle.shape``) for
    decks or a proof of different sizes."""
    n = len(deck_in)
    if len(deck_out) != n or len(proof) != n or len(proof.chain) != n or len(proof.t_hat) != n \
            or len(proof.s_hat) != n or len(proof.s_prime) != n:
        raise InvalidShuffle(f"seat {ctx.seat}'s shuffle: a deck of {len(deck_out)} cards and a proof of "
                             f"{len(proof)} for a deck of {n}", seat=ctx.seat, check="shuffle.shape")
    hs, U = bases(n)
    u_seed = _u_seed(ctx, H, deck_in, deck_out, proof.c)
    u = challenge_vector(u_seed, n)
    e = _sigma_challenge(ctx, u_seed, proof.chain, [proof.t1, proof.t2, proof.t3, proof.t4A, proof.t4B], proof.t_hat)
    _sum_terms(sink("shuffle.permutation-sum"), proof, hs, e)
    _product_terms(sink("shuffle.permutation-product"), proof, U, _prod(u), e)
    _opening_terms(sink("shuffle.permutation-opening"), proof, hs, U, u, e)
    _reencryption_terms(sink("shuffle.reencryption"), deck_in, deck_out, proof, H, u, e)


def _sum_terms(t: Terms, pf: ShuffleProof, hs: Sequence[Point], e: int) -> None:
    """``s1 G = t1 + e (sum c_j - sum h_i)``."""
    w = Terms.weight()
    t.add(G, w * pf.s1)
    t.add(pf.t1, -w)
    t.add_many(pf.c, [-w * e] * len(pf.c))
    t.add_many(hs, [w * e] * len(hs))


def _product_terms(t: Terms, pf: ShuffleProof, U: Point, prod_u: int, e: int) -> None:
    """``s2 G = t2 + e (ĉ_N - (prod u) U)``."""
    w = Terms.weight()
    t.add(G, w * pf.s2)
    t.add(pf.t2, -w)
    t.add(pf.chain[-1], -w * e)
    t.add(U, w * e * prod_u)


def _opening_terms(t: Terms, pf: ShuffleProof, hs: Sequence[Point], U: Point, u: Sequence[int], e: int) -> None:
    """``s3 G + sum s'_i h_i = t3 + e sum u_j c_j`` and, for each ``i``,
    ``ŝ_i G + s'_i ĉ_{i-1} = t̂_i + e ĉ_i`` (``ĉ_0 = U``)."""
    w = Terms.weight()
    t.add(G, w * pf.s3)
    t.add_many(hs, [w * s for s in pf.s_prime])
    t.add(pf.t3, -w)
    t.add_many(pf.c, [-w * e * uj for uj in u])
    prev = [U] + list(pf.chain[:-1])
    v = Terms.weights(len(pf.chain))
    t.add(G, sum(vi * sh for vi, sh in zip(v, pf.s_hat)))
    t.add_many(prev, [vi * sp for vi, sp in zip(v, pf.s_prime)])
    t.add_many(pf.t_hat, [-vi for vi in v])
    t.add_many(pf.chain, [-vi * e for vi in v])


def _reencryption_terms(t: Terms, deck_in: Deck, deck_out: Deck, pf: ShuffleProof, H: Point,
                        u: Sequence[int], e: int) -> None:
    """``sum s'_i A'_i - s4 G = t4A + e sum u_j A_j`` and the same for the ``B`` parts with ``H``."""
    for part_in, part_out, base, t4 in ((deck_in.A, deck_out.A, G, pf.t4A), (deck_in.B, deck_out.B, H, pf.t4B)):
        w = Terms.weight()
        t.add_many(part_out, [w * s for s in pf.s_prime])
        t.add(base, -w * pf.s4)
        t.add(t4, -w)
        t.add_many(part_in, [-w * e * uj for uj in u])


def verify_shuffle(deck_in: Deck, deck_out: Deck, proof: ShuffleProof, H: Point, ctx: ProofContext,
                   backend: Optional[Backend] = None) -> None:
    """Raise :class:`InvalidShuffle` naming the first failing check (:data:`CHECKS`) unless
    ``proof`` shows ``deck_out`` is a re-encryption and permutation of ``deck_in`` under ``H``,
    made for ``ctx``. One MSM when it holds."""
    terms = Terms()
    add_shuffle_terms(lambda _check: terms, deck_in, deck_out, proof, H, ctx)
    if not terms.holds(backend):
        diagnose_shuffle(deck_in, deck_out, proof, H, ctx, backend)


def diagnose_shuffle(deck_in: Deck, deck_out: Deck, proof: ShuffleProof, H: Point, ctx: ProofContext,
                     backend: Optional[Backend] = None) -> None:
    """Check each of the shuffle's equations alone and raise :class:`InvalidShuffle` for the
    first that fails (the slow path, after a batch failed)."""
    by_check = {name: Terms() for name in CHECKS}
    add_shuffle_terms(by_check.__getitem__, deck_in, deck_out, proof, H, ctx)
    for name in CHECKS:
        if not by_check[name].holds(backend):
            raise InvalidShuffle(f"seat {ctx.seat}'s shuffle fails its {name} check", seat=ctx.seat, check=name)
