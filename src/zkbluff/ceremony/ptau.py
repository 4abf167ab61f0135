"""Powers of Tau (phase 1) in snarkjs's ``.ptau`` format (version 1).

Sections: 1 header (n8 = 32, q, power, ceremony power); 2 ``[tau^i]_1`` for
i < 2^(power+1) - 1; 3 ``[tau^i]_2``, 4 ``[alpha tau^i]_1``, 5 ``[beta tau^i]_1`` for
i < 2^power; 6 ``[beta]_2``; 7 the contributions; after ``prepare phase2`` also 12..15,
the same four vectors in the Lagrange basis of every domain 2^0 .. 2^power (and
2^(power+1) for section 12), one after the other.

A contribution (section 7) records ``[tau]_1, [tau]_2, [alpha]_1, [beta]_1, [beta]_2``
after it, its public key (for each of tau, alpha, beta: ``s``, ``s x`` in G1 and
``s' x`` in G2, where ``s' = hash_to_g2(BLAKE2b(personalisation || challenge || s ||
s x))``), the partial BLAKE2b state of its *response* (the previous challenge hash,
then every point after it, compressed, then - not in the state - the public key),
the next *challenge* hash (BLAKE2b of the response hash and every point,
uncompressed), and its parameters (name; for a beacon the value and the iteration
exponent). The first challenge is BLAKE2b of BLAKE2b("") and the generator-only
accumulator of the ceremony's power.

Verification follows snarkjs: each contribution's key is a proof of knowledge
bound to the previous challenge and moves ``[tau]``, ``[alpha]``, ``[beta]`` by the
same secrets (pairings); a beacon's key is recomputed from its value; the last
contribution's points are the file's points, whose powers are checked with one
random linear combination per section (two MSMs and a pairing product, never a
pairing per power), and the file's hash is its challenge hash.
"""
from __future__ import annotations

import secrets
import struct
import weakref
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

from zkbluff.ceremony.binfile import BinReader, ContributionParams, read_binfile, write_binfile
from zkbluff.ceremony.blake2b import PARTIAL_HASH_SIZE, Blake2b, blake2b512
from zkbluff.ceremony.encoding import (
    check_g2_subgroup, g1_c, g1_from_lem, g1_list_from_lem, g1_to_lem, g1_u, g2_c, g2_from_lem,
    g2_list_from_lem, g2_to_lem, g2_u,
)
from zkbluff.ceremony.rng import ChaCha, beacon_rng, check_beacon, hash_to_g2
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, Backend, G1Affine, G2Affine, get_backend
from zkbluff.errors import InvalidCeremony, MalformedInput
from zkbluff.field import EvaluationDomain, p, r

MAX_POWER = 27
Say = Optional[Callable[[str], None]]


@dataclass(frozen=True)
class KeyPart:
    """One secret's proof of knowledge: ``s``, ``s x`` in G1, ``s' x`` in G2."""

    g1_s: G1Affine
    g1_sx: G1Affine
    g2_spx: G2Affine


@dataclass(frozen=True)
class PtauKey:
    tau: KeyPart
    alpha: KeyPart
    beta: KeyPart

    def parts(self) -> tuple[KeyPart, KeyPart, KeyPart]:
        return (self.tau, self.alpha, self.beta)

    def to_u(self) -> bytes:
        """The uncompressed encoding that ends a response hash."""
        g1 = b"".join(g1_u(P) for k in self.parts() for P in (k.g1_s, k.g1_sx))
        return g1 + b"".join(g2_u(k.g2_spx) for k in self.parts())

    def to_lem(self) -> bytes:
        g1 = b"".join(g1_to_lem(P) for k in self.parts() for P in (k.g1_s, k.g1_sx))
        return g1 + b"".join(g2_to_lem(k.g2_spx) for k in self.parts())


@dataclass(frozen=True)
class PtauContribution:
    tau_g1: G1Affine
    tau_g2: G2Affine
    alpha_g1: G1Affine
    beta_g1: G1Affine
    beta_g2: G2Affine
    key: PtauKey
    partial_hash: bytes
    next_challenge: bytes
    params: ContributionParams = ContributionParams()

    @property
    def response_hash(self) -> bytes:
        """BLAKE2b of (previous challenge, the points after it compressed, the key)."""
        return Blake2b.resume(self.partial_hash).update(self.key.to_u()).digest()

    @property
    def name(self) -> Optional[str]:
        return self.params.name


@dataclass(frozen=True, eq=False)
class Ptau:
    power: int
    ceremony_power: int
    tau_g1: tuple
    tau_g2: tuple
    alpha_tau_g1: tuple
    beta_tau_g1: tuple
    beta_g2: G2Affine
    contributions: tuple = ()
    #: sections 12..15 (``prepare phase2``), or None
    lagrange: Optional[dict[int, tuple]] = field(default=None)

    @property
    def prepared(self) -> bool:
        return self.lagrange is not None

    def challenge_hash(self) -> bytes:
        """The hash the next contributor signs: the last contribution's next challenge,
        or the first challenge of an empty accumulator."""
        if self.contributions:
            return self.contributions[-1].next_challenge
        return first_challenge_hash(self.ceremony_power)

    def points_hash(self, response_hash: bytes) -> bytes:
        """BLAKE2b(response || every point uncompressed): the next challenge."""
        return blake2b512(response_hash, _points_u(self))


# ------------------------------------------------------------------ hashing helpers
def _points_u(pt: Ptau) -> bytes:
    return (b"".join(map(g1_u, pt.tau_g1)) + b"".join(map(g2_u, pt.tau_g2))
            + b"".join(map(g1_u, pt.alpha_tau_g1)) + b"".join(map(g1_u, pt.beta_tau_g1)) + g2_u(pt.beta_g2))


def _points_c(pt: Ptau) -> bytes:
    return (b"".join(map(g1_c, pt.tau_g1)) + b"".join(map(g2_c, pt.tau_g2))
            + b"".join(map(g1_c, pt.alpha_tau_g1)) + b"".join(map(g1_c, pt.beta_tau_g1)) + g2_c(pt.beta_g2))


def first_challenge_hash(power: int) -> bytes:
    g1, g2 = g1_u(G1_GENERATOR), g2_u(G2_GENERATOR)
    n = 1 << power
    return blake2b512(blake2b512(), g1 * (2 * n - 1), g2 * n, g1 * n, g1 * n, g2)


def _g2_sp(personalisation: int, challenge: bytes, g1_s: G1Affine, g1_sx: G1Affine) -> G2Affine:
    return hash_to_g2(blake2b512(bytes([personalisation]), challenge, g1_u(g1_s), g1_u(g1_sx)))


# ------------------------------------------------------------------ new / contribute / beacon
def ptau_new(power: int) -> Ptau:
    """An accumulator of generators only (no contribution yet)."""
    if not 1 <= power <= MAX_POWER:
        raise MalformedInput(f"power: expected 1..{MAX_POWER}, got {power}")
    n = 1 << power
    g1, g2 = G1_GENERATOR, G2_GENERATOR
    return Ptau(power, power, (g1,) * (2 * n - 1), (g2,) * n, (g1,) * n, (g1,) * n, g2, ())


def _random_nonzero() -> int:
    while True:
        x = secrets.randbelow(r)
        if x:
            return x


def _apply(pt: Ptau, tau: int, alpha: int, beta: int, key: PtauKey, params: ContributionParams,
           backend: Backend, say: Say) -> Ptau:
    if pt.power != pt.ceremony_power:
        raise MalformedInput(f"this .ptau was reduced to 2^{pt.power} from 2^{pt.ceremony_power}: "
                             "contribute to the full file")
    say = say or (lambda _m: None)
    challenge = pt.challenge_hash()
    n = 1 << pt.power
    powers = [1] * (2 * n - 1)
    for i in range(1, 2 * n - 1):
        powers[i] = powers[i - 1] * tau % r
    say(f"ptau: contributing to 2^{pt.power} ({4 * n - 1} G1 and {n + 1} G2 points)")
    tau_g1 = backend.g1_batch_mul(pt.tau_g1, powers)
    tau_g2 = backend.g2_batch_mul(pt.tau_g2 + (pt.beta_g2,), powers[:n] + [beta])
    beta_g2 = tau_g2.pop()
    alpha_tau = backend.g1_batch_mul(pt.alpha_tau_g1, [alpha * x % r for x in powers[:n]])
    beta_tau = backend.g1_batch_mul(pt.beta_tau_g1, [beta * x % r for x in powers[:n]])
    new = Ptau(pt.power, pt.ceremony_power, tuple(tau_g1), tuple(tau_g2), tuple(alpha_tau), tuple(beta_tau),
               beta_g2, pt.contributions, None)
    say("ptau: hashing the response")
    hasher = Blake2b().update(challenge).update(_points_c(new))
    partial = hasher.partial()
    response = hasher.update(key.to_u()).digest()
    contribution = PtauContribution(tau_g1[1], tau_g2[1], alpha_tau[0], beta_tau[0], beta_g2, key, partial,
                                    new.points_hash(response), params)
    return replace(new, contributions=pt.contributions + (contribution,))


def _key_from(challenge: bytes, secrets3: Sequence[int], bases: Sequence[G1Affine], backend: Backend) -> PtauKey:
    parts = []
    for pers, (k, s) in enumerate(zip(secrets3, bases)):
        sx = backend.g1_mul(s, k)
        sp = _g2_sp(pers, challenge, s, sx)
        parts.append(KeyPart(s, sx, backend.g2_mul(sp, k)))
    return PtauKey(*parts)


def ptau_contribute(pt: Ptau, name: Optional[str] = None, backend: Optional[Backend] = None, say: Say = None) -> Ptau:
    """Add a contribution whose secrets (tau, alpha, beta) come from the OS and are
    dropped when this returns. The result is not prepared for phase 2."""
    be = backend or get_backend()
    tau, alpha, beta = _random_nonzero(), _random_nonzero(), _random_nonzero()
    bases = be.g1_mul_many(G1_GENERATOR, [_random_nonzero() for _ in range(3)])
    key = _key_from(pt.challenge_hash(), (tau, alpha, beta), bases, be)
    return _apply(pt, tau, alpha, beta, key, ContributionParams(0, name), be, say)


def beacon_secrets(beacon: bytes, iterations_exp: int) -> tuple[tuple[int, int, int], list]:
    """snarkjs's ``keyFromBeacon``: the three scalars, then the three G1 bases."""
    rng: ChaCha = beacon_rng(beacon, iterations_exp)
    ks = (rng.fr(), rng.fr(), rng.fr())
    return ks, [rng.g1() for _ in range(3)]


def ptau_beacon(pt: Ptau, beacon: bytes, iterations_exp: int, name: Optional[str] = None,
                backend: Optional[Backend] = None, say: Say = None) -> Ptau:
    """A public, reproducible contribution: its secrets are drawn from SHA-256 iterated
    2^iterations_exp times on ``beacon`` (a value nobody could know in advance)."""
    check_beacon(beacon, iterations_exp)
    be = backend or get_backend()
    ks, bases = beacon_secrets(beacon, iterations_exp)
    key = _key_from(pt.challenge_hash(), ks, bases, be)
    return _apply(pt, *ks, key, ContributionParams(1, name, iterations_exp, bytes(beacon)), be, say)


# ------------------------------------------------------------------ verification
def _rand_scalars(n: int) -> list[int]:
    return [secrets.randbits(128) for _ in range(n)]


def same_ratio(backend: Backend, a1: G1Affine, b1: G1Affine, a2: G2Affine, b2: G2Affine) -> bool:
    """``e(a1, b2) == e(b1, a2)``, i.e. b1/a1 = b2/a2 as discrete logs; no zero point."""
    if a1 is None or b1 is None or a2 is None or b2 is None:
        return False
    return backend.pairing_product_is_one([(a1, b2), (backend.g1_neg(b1), a2)])


def _powers_rlc_g1(backend: Backend, pts: Sequence[G1Affine]) -> tuple[G1Affine, G1Affine]:
    """(sum c_i P_i, sum c_i P_(i+1)) for random c: P_(i+1) = x P_i for all i iff the two
    have ratio x (except with probability about n / 2^128)."""
    c = _rand_scalars(len(pts) - 1)
    return backend.g1_msm(list(pts[:-1]), c), backend.g1_msm(list(pts[1:]), c)


def _powers_rlc_g2(backend: Backend, pts: Sequence[G2Affine]) -> tuple[G2Affine, G2Affine]:
    c = _rand_scalars(len(pts) - 1)
    return backend.g2_msm(list(pts[:-1]), c), backend.g2_msm(list(pts[1:]), c)


@dataclass(frozen=True)
class ContributionReport:
    index: int
    name: Optional[str]
    beacon: bool
    response_hash: str
    next_challenge: str


def _verify_contribution(cur: PtauContribution, prev: PtauContribution | None, prev_challenge: bytes,
                         index: int, backend: Backend) -> None:
    label = f"contribution #{index}" + (f" ({cur.name})" if cur.name else "")
    g1, g2 = G1_GENERATOR, G2_GENERATOR
    if cur.params.type == 1:
        ks, bases = beacon_secrets(cur.params.beacon, cur.params.iterations_exp)
        expected = _key_from(prev_challenge, ks, bases, backend)
        if expected != cur.key:
            raise InvalidCeremony(f"{label}: the beacon's key is not the one its value and iterations give")
    prev_pts = (prev.tau_g1, prev.tau_g2, prev.alpha_g1, prev.beta_g1, prev.beta_g2) if prev else (g1, g2, g1, g1, g2)
    sps = []
    for pers, (what, part) in enumerate(zip(("tau", "alpha", "beta"), cur.key.parts())):
        sp = _g2_sp(pers, prev_challenge, part.g1_s, part.g1_sx)
        if not same_ratio(backend, part.g1_s, part.g1_sx, sp, part.g2_spx):
            raise InvalidCeremony(f"{label}: the proof of knowledge of {what} is invalid "
                                  "(or it answers another challenge: a skipped or reordered link)")
        sps.append(sp)
    (tsp, asp, bsp), key = sps, cur.key
    checks = (
        (prev_pts[0], cur.tau_g1, tsp, key.tau.g2_spx, "[tau]_1 does not follow the previous contribution"),
        (key.tau.g1_s, key.tau.g1_sx, prev_pts[1], cur.tau_g2, "[tau]_2 does not follow the previous contribution"),
        (prev_pts[2], cur.alpha_g1, asp, key.alpha.g2_spx, "[alpha]_1 does not follow the previous contribution"),
        (prev_pts[3], cur.beta_g1, bsp, key.beta.g2_spx, "[beta]_1 does not follow the previous contribution"),
        (key.beta.g1_s, key.beta.g1_sx, prev_pts[4], cur.beta_g2, "[beta]_2 does not follow the previous contribution"),
    )
    for a1, b1, a2, b2, msg in checks:
        if not same_ratio(backend, a1, b1, a2, b2):
            raise InvalidCeremony(f"{label}: {msg}")


def ptau_verify(pt: Ptau, backend: Optional[Backend] = None, say: Say = None) -> list[ContributionReport]:
    """Check the whole chain and the points; raise :class:`InvalidCeremony` naming the
    first failure. Returns one report per contribution (hashes in hex)."""
    be = backend or get_backend()
    say = say or (lambda _m: None)
    if not pt.contributions:
        raise InvalidCeremony("the .ptau has no contribution: its secrets are known (all 1)")
    first = first_challenge_hash(pt.ceremony_power)
    reports = []
    prev, challenge = None, first
    for i, c in enumerate(pt.contributions, 1):
        _verify_contribution(c, prev, challenge, i, be)
        reports.append(ContributionReport(i, c.name, c.params.type == 1, c.response_hash.hex(), c.next_challenge.hex()))
        prev, challenge = c, c.next_challenge
    last = pt.contributions[-1]
    say(f"ptau: {len(pt.contributions)} contribution(s) link up; checking the points")
    g1, g2 = G1_GENERATOR, G2_GENERATOR
    if pt.tau_g1[0] != g1 or pt.tau_g2[0] != g2:
        raise InvalidCeremony("the first power of tau is not the generator")
    if pt.tau_g1[1] != last.tau_g1 or pt.tau_g2[1] != last.tau_g2:
        raise InvalidCeremony("[tau] in the points differs from the last contribution's")
    if pt.alpha_tau_g1[0] != last.alpha_g1 or pt.beta_tau_g1[0] != last.beta_g1 or pt.beta_g2 != last.beta_g2:
        raise InvalidCeremony("[alpha], [beta] in the points differ from the last contribution's")
    tau_g2 = last.tau_g2
    for label, pts in (("tauG1", pt.tau_g1), ("alphaTauG1", pt.alpha_tau_g1), ("betaTauG1", pt.beta_tau_g1)):
        if any(P is None for P in pts):
            raise InvalidCeremony(f"{label}: a point at infinity")
        lo, hi = _powers_rlc_g1(be, pts)
        if not same_ratio(be, lo, hi, g2, tau_g2):
            raise InvalidCeremony(f"{label}: the points are not successive powers of tau")
    if any(Q is None for Q in pt.tau_g2):
        raise InvalidCeremony("tauG2: a point at infinity")
    lo2, hi2 = _powers_rlc_g2(be, pt.tau_g2)
    if not same_ratio(be, g1, last.tau_g1, lo2, hi2):
        raise InvalidCeremony("tauG2: the points are not successive powers of tau")
    if pt.power == pt.ceremony_power and pt.points_hash(last.response_hash) != last.next_challenge:
        raise InvalidCeremony("the points' hash is not the last contribution's next challenge "
                              "(a tampered hash or point)")
    if pt.lagrange is not None:
        say("ptau: checking the phase-2 (Lagrange) sections")
        _verify_lagrange(pt, be)
    return reports


# ------------------------------------------------------------------ phase 2 preparation
def _group_ifft(backend: Backend, pts: list, g2: bool) -> list:
    """The Lagrange-basis points of a domain of size len(pts) from the monomial ones:
    ``out_j = (1/n) sum_i omega^(-ij) pts_i`` (the backend's batched group FFT)."""
    return (backend.g2_ifft if g2 else backend.g1_ifft)(list(pts))


def _lagrange_section(backend: Backend, pts: Sequence, power: int, extra: bool, g2: bool) -> tuple:
    out: list = []
    for q in range(power + 1):
        out.extend(_group_ifft(backend, list(pts[: 1 << q]), g2))
    if extra:
        n = 1 << (power + 1)
        out.extend(_group_ifft(backend, list(pts[: n - 1]) + [None], g2))
    return tuple(out)


def ptau_prepare(pt: Ptau, backend: Optional[Backend] = None, say: Say = None) -> Ptau:
    """snarkjs's ``powersoftau prepare phase2``: add the Lagrange-basis sections."""
    be = backend or get_backend()
    say = say or (lambda _m: None)
    say(f"ptau: Lagrange bases for every domain up to 2^{pt.power}")
    lag = {
        12: _lagrange_section(be, pt.tau_g1, pt.power, True, False),
        13: _lagrange_section(be, pt.tau_g2, pt.power, False, True),
        14: _lagrange_section(be, pt.alpha_tau_g1, pt.power, False, False),
        15: _lagrange_section(be, pt.beta_tau_g1, pt.power, False, False),
    }
    return replace(pt, lagrange=lag)


def lagrange_points(pt: Ptau, section: int, log_size: int, backend: Optional[Backend] = None) -> list:
    """The Lagrange basis of the domain 2^log_size for section 12..15 (tauG1, tauG2,
    alphaTauG1, betaTauG1): read from a prepared file, else computed."""
    limit = pt.power + 1 if section == 12 else pt.power
    if log_size > limit:
        raise MalformedInput(f"the .ptau (2^{pt.power}) is too small for a domain of 2^{log_size}")
    n = 1 << log_size
    if pt.lagrange is not None:
        return list(pt.lagrange[section][n - 1: 2 * n - 1])
    cache = _LAGRANGE_CACHE.setdefault(pt, {})
    if (section, log_size) not in cache:
        src = {12: pt.tau_g1, 13: pt.tau_g2, 14: pt.alpha_tau_g1, 15: pt.beta_tau_g1}[section]
        base = list(src[:n]) if len(src) >= n else list(src[: n - 1]) + [None]
        cache[(section, log_size)] = _group_ifft(backend or get_backend(), base, section == 13)
    return list(cache[(section, log_size)])


def h_points(pt: Ptau, log_size: int, backend: Optional[Backend] = None) -> list:
    """The odd half of the Lagrange basis of the domain 2^(log_size + 1) over tauG1 (a
    Groth16 key's H query before delta): from a prepared file, a slice; else, with
    N = 2n, ``out_(2k+1) = (1/2) IFFT_n(z)_k`` for ``z_i = omega_N^(-i) (P_i - P_(i+n))``,
    half the work of the full size-N transform."""
    if pt.lagrange is not None or log_size + 1 > pt.power + 1:
        return lagrange_points(pt, 12, log_size + 1, backend)[1::2]
    be = backend or get_backend()
    cache = _LAGRANGE_CACHE.setdefault(pt, {})
    if ("h", log_size) not in cache:
        n = 1 << log_size
        src = list(pt.tau_g1[: 2 * n]) + [None] * max(0, 2 * n - len(pt.tau_g1))
        diff = be.g1_batch_add(src[:n], [be.g1_neg(P) for P in src[n: 2 * n]])
        w_inv = pow(EvaluationDomain(log_size + 1).omega, -1, r)
        half = pow(2, -1, r)
        tw, acc = [], half
        for _ in range(n):
            tw.append(acc)
            acc = acc * w_inv % r
        cache[("h", log_size)] = be.g1_ifft(be.g1_batch_mul(diff, tw))
    return list(cache[("h", log_size)])


#: Lagrange bases computed from an unprepared (immutable) Ptau object, while it lives
_LAGRANGE_CACHE: "weakref.WeakKeyDictionary[Ptau, dict]" = weakref.WeakKeyDictionary()


def _verify_lagrange(pt: Ptau, backend: Backend) -> None:
    """Each Lagrange block against the powers it came from, by a random linear
    combination (two MSMs per block)."""
    assert pt.lagrange is not None
    srcs = {12: pt.tau_g1, 13: pt.tau_g2, 14: pt.alpha_tau_g1, 15: pt.beta_tau_g1}
    for section, src in srcs.items():
        g2 = section == 13
        msm = backend.g2_msm if g2 else backend.g1_msm
        lag = pt.lagrange[section]
        top = pt.power + 1 if section == 12 else pt.power
        expected_len = sum(1 << q for q in range(top + 1))
        if len(lag) != expected_len:
            raise InvalidCeremony(f"section {section}: {len(lag)} Lagrange points, expected {expected_len}")
        for q in range(top + 1):
            n = 1 << q
            block = list(lag[n - 1: 2 * n - 1])
            base = list(src[:n]) if len(src) >= n else list(src[: n - 1]) + [None]
            c = _rand_scalars(n)
            # sum_j c_j L_j = sum_i P_i * (1/n) sum_j c_j omega^(-ij) = sum_i P_i intt(c)_i
            d = EvaluationDomain(q).intt(c)
            if msm(block, c) != msm(base, d):
                raise InvalidCeremony(f"section {section}: the Lagrange basis of 2^{q} does not match the powers")


# ------------------------------------------------------------------ file format
def _header(pt: Ptau) -> bytes:
    return struct.pack("<I", 32) + p.to_bytes(32, "little") + struct.pack("<II", pt.power, pt.ceremony_power)


def _contribution_bytes(c: PtauContribution) -> bytes:
    return (g1_to_lem(c.tau_g1) + g2_to_lem(c.tau_g2) + g1_to_lem(c.alpha_g1) + g1_to_lem(c.beta_g1)
            + g2_to_lem(c.beta_g2) + c.key.to_lem() + c.partial_hash + c.next_challenge + c.params.to_bytes())


def ptau_to_bytes(pt: Ptau) -> bytes:
    sections = [
        (1, _header(pt)),
        (2, b"".join(map(g1_to_lem, pt.tau_g1))),
        (3, b"".join(map(g2_to_lem, pt.tau_g2))),
        (4, b"".join(map(g1_to_lem, pt.alpha_tau_g1))),
        (5, b"".join(map(g1_to_lem, pt.beta_tau_g1))),
        (6, g2_to_lem(pt.beta_g2)),
        (7, struct.pack("<I", len(pt.contributions)) + b"".join(map(_contribution_bytes, pt.contributions))),
    ]
    if pt.lagrange is not None:
        for k in (12, 13, 14, 15):
            enc = g2_to_lem if k == 13 else g1_to_lem
            sections.append((k, b"".join(map(enc, pt.lagrange[k]))))
    return write_binfile(b"ptau", 1, sections)


def _read_contribution(rd: BinReader, what: str) -> PtauContribution:
    tau_g1 = g1_from_lem(rd.take(64), what + " [tau]_1")
    tau_g2 = g2_from_lem(rd.take(128), what + " [tau]_2")
    alpha_g1 = g1_from_lem(rd.take(64), what + " [alpha]_1")
    beta_g1 = g1_from_lem(rd.take(64), what + " [beta]_1")
    beta_g2 = g2_from_lem(rd.take(128), what + " [beta]_2")
    g1s = [g1_from_lem(rd.take(64), f"{what} key point {i}") for i in range(6)]
    g2s = [g2_from_lem(rd.take(128), f"{what} key point {6 + i}") for i in range(3)]
    check_g2_subgroup([tau_g2, beta_g2] + g2s, what + " G2 points")
    key = PtauKey(KeyPart(g1s[0], g1s[1], g2s[0]), KeyPart(g1s[2], g1s[3], g2s[1]), KeyPart(g1s[4], g1s[5], g2s[2]))
    partial = rd.take(PARTIAL_HASH_SIZE)
    Blake2b.resume(partial)  # validates the layout
    nxt = rd.take(64)
    params = ContributionParams.read(rd, what)
    return PtauContribution(tau_g1, tau_g2, alpha_g1, beta_g1, beta_g2, key, partial, nxt, params)


def ptau_from_bytes(data: bytes, what: str = ".ptau") -> Ptau:
    """Parse and validate (every point on its curve, G2 points in the subgroup, sizes
    as the header says); :class:`MalformedInput` otherwise."""
    sections = read_binfile(data, b"ptau", (1,), what)
    for k in range(1, 8):
        if k not in sections:
            raise MalformedInput(f"{what}: section {k} is missing")
    h = BinReader(sections[1], what + " header")
    n8 = h.u32()
    q = int.from_bytes(h.take(n8), "little")
    if n8 != 32 or q != p:
        raise MalformedInput(f"{what}: not a BN254 file (n8 = {n8}, q = {q})")
    power, ceremony_power = h.u32(), h.u32()
    if h.pos != len(h.data):
        raise MalformedInput(f"{what}: header has {len(h.data) - h.pos} extra bytes")
    if not 1 <= power <= MAX_POWER or not power <= ceremony_power <= MAX_POWER:
        raise MalformedInput(f"{what}: power {power} (ceremony {ceremony_power}) out of range 1..{MAX_POWER}")
    n = 1 << power
    tau_g1 = g1_list_from_lem(sections[2], 2 * n - 1, what + " tauG1")
    tau_g2 = g2_list_from_lem(sections[3], n, what + " tauG2")
    alpha = g1_list_from_lem(sections[4], n, what + " alphaTauG1")
    beta = g1_list_from_lem(sections[5], n, what + " betaTauG1")
    beta_g2 = g2_list_from_lem(sections[6], 1, what + " betaG2")[0]
    check_g2_subgroup(tau_g2 + [beta_g2], what + " G2 points")
    rd = BinReader(sections[7], what + " contributions")
    contributions = tuple(_read_contribution(rd, f"{what} contribution #{i + 1}") for i in range(rd.u32()))
    if rd.pos != len(rd.data):
        raise MalformedInput(f"{what}: contributions section has {len(rd.data) - rd.pos} extra bytes")
    lagrange = None
    present = [k for k in (12, 13, 14, 15) if k in sections]
    if present:
        if len(present) != 4:
            raise MalformedInput(f"{what}: phase-2 sections {present}, expected all of 12..15")
        lagrange = {}
        for k in (12, 13, 14, 15):
            top = power + 1 if k == 12 else power
            count = sum(1 << qq for qq in range(top + 1))
            if k == 13:
                pts = g2_list_from_lem(sections[k], count, f"{what} section {k}")
                check_g2_subgroup(pts, f"{what} section {k}")
            else:
                pts = g1_list_from_lem(sections[k], count, f"{what} section {k}")
            lagrange[k] = tuple(pts)
    return Ptau(power, ceremony_power, tuple(tau_g1), tuple(tau_g2), tuple(alpha), tuple(beta), beta_g2,
                contributions, lagrange)


def read_ptau(path) -> Ptau:
    from pathlib import Path

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise MalformedInput(f"{path}: cannot read ({exc.strerror})") from None
    return ptau_from_bytes(data, str(path))


def write_ptau(path, pt: Ptau) -> None:
    from pathlib import Path

    data = ptau_to_bytes(pt)
    tmp = Path(str(path) + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
