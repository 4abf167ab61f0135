"""Phase 2 (circuit-specific) of the Groth16 ceremony in snarkjs's ``.zkey`` format.

``zkey_new(system, ptau)`` is deterministic: from the Lagrange bases of a phase-1
file it builds the key with delta = gamma = 1 (``A_i = sum_j A_ji [L_j(tau)]_1``,
``IC_i`` / ``C_i = sum [beta A_ji + alpha B_ji + C_ji] L_j(tau)``, ``H_i =
[L^(2n)_(2i+1)(tau)]_1``), and the *circuit hash* - BLAKE2b over alpha, beta, gamma,
delta, then each section as a big-endian u32 count and its points uncompressed (for H,
the monomial points ``[tau^(i+n) - tau^i]_1``, i < n-1), in snarkjs's order IC, H, C,
A, B1, B2.

A contribution multiplies delta by a secret d and divides the C (L) and H sections by
it. Its record (section 10, after the circuit hash): ``delta`` after it, ``s``, ``s d``
in G1, ``s' d`` in G2 and the *transcript* ``BLAKE2b(circuit hash, every earlier
contribution's record, s, s d)``, with ``s' = hash_to_g2(transcript)``, then its
parameters (name; a beacon's value and iteration exponent).

Verification (snarkjs's ``zkey verify``): rebuild the initial key from the ``.r1cs``
and the ``.ptau``; every section but C and H and the header but delta must equal it;
each contribution's transcript, proof of knowledge and delta step must hold (a beacon's
points are recomputed); C and H must be the initial ones divided by the final delta
(one random linear combination per section: two MSMs and a pairing product).
"""
from __future__ import annotations

import secrets
import struct
from dataclasses import dataclass, replace
from typing import Callable, Optional

from zkbluff.circuit.builder import R1CS
from zkbluff.ceremony.binfile import BinReader, ContributionParams, read_binfile
from zkbluff.ceremony.blake2b import blake2b512
from zkbluff.ceremony.encoding import g1_from_lem, g1_to_lem, g1_u, g2_from_lem, g2_to_lem, g2_u, check_g2_subgroup
from zkbluff.ceremony.ptau import Ptau, h_points, lagrange_points, same_ratio
from zkbluff.ceremony.rng import beacon_rng, check_beacon, hash_to_g2
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, Backend, G1Affine, G2Affine, get_backend
from zkbluff.errors import InvalidCeremony, MalformedInput
from zkbluff.field import r
from zkbluff.groth16.keys import ProvingKey, VerifyingKey
from zkbluff.groth16.qap import coefficient_list, domain_for
from zkbluff.groth16.zkey import zkey_sections_to_key, zkey_to_bytes

Say = Optional[Callable[[str], None]]


@dataclass(frozen=True)
class Phase2Contribution:
    delta_after: G1Affine
    g1_s: G1Affine
    g1_sx: G1Affine
    g2_spx: G2Affine
    transcript: bytes
    params: ContributionParams = ContributionParams()

    def record_u(self) -> bytes:
        """What later transcripts hash of this contribution (snarkjs's ``hashPubKey``)."""
        return g1_u(self.delta_after) + g1_u(self.g1_s) + g1_u(self.g1_sx) + g2_u(self.g2_spx) + self.transcript

    @property
    def contribution_hash(self) -> bytes:
        return blake2b512(self.record_u())

    @property
    def name(self) -> Optional[str]:
        return self.params.name

    def to_bytes(self) -> bytes:
        return (g1_to_lem(self.delta_after) + g1_to_lem(self.g1_s) + g1_to_lem(self.g1_sx) + g2_to_lem(self.g2_spx)
                + self.transcript + self.params.to_bytes())


@dataclass(frozen=True, eq=False)
class Zkey:
    """A Groth16 proving key with its ceremony record."""

    pk: ProvingKey
    cs_hash: bytes
    contributions: tuple = ()
    #: True for a compact key (:func:`compact_from_bytes`): A, B1, B2 are placeholders
    #: and the coefficients are empty until :func:`expand_compact` rebuilds them
    compact: bool = False

    def mpc_bytes(self) -> bytes:
        return self.cs_hash + struct.pack("<I", len(self.contributions)) + b"".join(
            c.to_bytes() for c in self.contributions)

    def to_bytes(self) -> bytes:
        return zkey_to_bytes(self.pk, self.mpc_bytes())

    @property
    def vk(self) -> VerifyingKey:
        return self.pk.vk


# ------------------------------------------------------------------ new
def circuit_power(system: R1CS) -> int:
    """log2 of the domain snarkjs uses for this circuit (m + public inputs + 1 points)."""
    return domain_for(system).log_size


def _combine(backend: Backend, terms: list[list[tuple[object, int]]], g2: bool) -> list:
    """``sum k P`` per output: outputs with several terms are one MSM each, all in one
    batched call (MSM costs less per term than a multiplication, from two terms up);
    single terms share one batched multiplication (a scalar 1 costs nothing)."""
    out: list = [None] * len(terms)
    multi_idx, groups = [], []
    single_idx, single_pts, single_k = [], [], []
    for i, t in enumerate(terms):
        if len(t) >= 2:
            multi_idx.append(i)
            groups.append(([P for P, _ in t], [k for _, k in t]))
        elif t:
            P, k = t[0]
            if k == 1:
                out[i] = P
            else:
                single_idx.append(i)
                single_pts.append(P)
                single_k.append(k)
    if groups:
        for i, P in zip(multi_idx, (backend.g2_msm_many if g2 else backend.g1_msm_many)(groups)):
            out[i] = P
    if single_idx:
        for i, P in zip(single_idx, (backend.g2_batch_mul if g2 else backend.g1_batch_mul)(single_pts, single_k)):
            out[i] = P
    return out


def zkey_new(system: R1CS, pt: Ptau, backend: Optional[Backend] = None, say: Say = None) -> Zkey:
    """The initial key (delta = 1, no contribution) for ``system`` from phase 1."""
    be = backend or get_backend()
    say = say or (lambda _m: None)
    power = circuit_power(system)
    if power > pt.power:
        raise MalformedInput(f"the circuit needs a domain of 2^{power} ({system.n_constraints} constraints), "
                             f"the .ptau has 2^{pt.power}")
    n = 1 << power
    m, n_pub, n_vars = system.n_constraints, system.n_public, system.n_wires
    say(f"zkey: new, {m} constraints, {n_vars} wires, domain 2^{power}")
    lt = lagrange_points(pt, 12, power, be)
    lt2 = lagrange_points(pt, 13, power, be)
    la = lagrange_points(pt, 14, power, be)
    lb = lagrange_points(pt, 15, power, be)
    A: list[list] = [[] for _ in range(n_vars)]
    B1: list[list] = [[] for _ in range(n_vars)]
    B2: list[list] = [[] for _ in range(n_vars)]
    K: list[list] = [[] for _ in range(n_vars)]  # IC for public wires, C for the others
    for j, (a, b, c) in enumerate(system.constraints):
        for s, v in a.items():
            A[s].append((lt[j], v))
            K[s].append((lb[j], v))
        for s, v in b.items():
            B1[s].append((lt[j], v))
            B2[s].append((lt2[j], v))
            K[s].append((la[j], v))
        for s, v in c.items():
            K[s].append((lt[j], v))
    for s in range(n_pub + 1):
        A[s].append((lt[m + s], 1))
        K[s].append((lb[m + s], 1))
    a_q = _combine(be, A, False)
    b1_q = _combine(be, B1, False)
    b2_q = _combine(be, B2, True)
    k_q = _combine(be, K, False)
    ic, l_q = k_q[: n_pub + 1], k_q[n_pub + 1:]
    h_q = h_points(pt, power, be)
    alpha1, beta1, beta2 = pt.alpha_tau_g1[0], pt.beta_tau_g1[0], pt.beta_g2
    g1, g2 = G1_GENERATOR, G2_GENERATOR
    # the circuit hash
    tau = pt.tau_g1
    h_mono = be.g1_batch_add(list(tau[n: 2 * n - 1]), [be.g1_neg(P) for P in tau[: n - 1]])

    def count(k: int) -> bytes:
        return struct.pack(">I", k)

    cs_hash = blake2b512(
        g1_u(alpha1), g1_u(beta1), g2_u(beta2), g2_u(g2), g1_u(g1), g2_u(g2),
        count(len(ic)), b"".join(map(g1_u, ic)),
        count(n - 1), b"".join(map(g1_u, h_mono)),
        count(len(l_q)), b"".join(map(g1_u, l_q)),
        count(n_vars), b"".join(map(g1_u, a_q)),
        count(n_vars), b"".join(map(g1_u, b1_q)),
        count(n_vars), b"".join(map(g2_u, b2_q)),
    )
    vk = VerifyingKey(alpha1, beta2, g2, g2, tuple(ic))
    pk = ProvingKey(vk, beta1, g1, tuple(a_q), tuple(b1_q), tuple(b2_q), tuple(l_q), tuple(h_q), n,
                    tuple(coefficient_list(system)), system)
    return Zkey(pk, cs_hash, ())


# ------------------------------------------------------------------ contribute / beacon
def _transcript(zk: Zkey, g1_s: G1Affine, g1_sx: G1Affine) -> bytes:
    return blake2b512(zk.cs_hash, *(c.record_u() for c in zk.contributions), g1_u(g1_s), g1_u(g1_sx))


def _apply(zk: Zkey, d: int, g1_s: G1Affine, params: ContributionParams, be: Backend, say: Say) -> Zkey:
    say = say or (lambda _m: None)
    g1_sx = be.g1_mul(g1_s, d)
    transcript = _transcript(zk, g1_s, g1_sx)
    g2_spx = be.g2_mul(hash_to_g2(transcript), d)
    pk = zk.pk
    delta1 = be.g1_mul(pk.delta_g1, d)
    delta2 = be.g2_mul(pk.vk.delta_g2, d)
    d_inv = pow(d, -1, r)
    say(f"zkey: contributing ({len(pk.l_query) + len(pk.h_query)} G1 points)")
    moved = be.g1_scale(list(pk.l_query) + list(pk.h_query), d_inv)
    l_q, h_q = moved[: len(pk.l_query)], moved[len(pk.l_query):]
    vk = replace(pk.vk, delta_g2=delta2)
    new_pk = replace(pk, vk=vk, delta_g1=delta1, l_query=tuple(l_q), h_query=tuple(h_q))
    c = Phase2Contribution(delta1, g1_s, g1_sx, g2_spx, transcript, params)
    return replace(zk, pk=new_pk, contributions=zk.contributions + (c,))


def zkey_contribute(zk: Zkey, name: Optional[str] = None, backend: Optional[Backend] = None, say: Say = None) -> Zkey:
    """Add a contribution whose secret delta comes from the OS and is dropped."""
    be = backend or get_backend()
    while True:
        d = secrets.randbelow(r)
        if d:
            break
    g1_s = be.g1_mul(G1_GENERATOR, 1 + secrets.randbelow(r - 1))
    return _apply(zk, d, g1_s, ContributionParams(0, name), be, say)


def zkey_beacon(zk: Zkey, beacon: bytes, iterations_exp: int, name: Optional[str] = None,
                backend: Optional[Backend] = None, say: Say = None) -> Zkey:
    check_beacon(beacon, iterations_exp)
    rng = beacon_rng(beacon, iterations_exp)
    d = rng.fr()
    g1_s = rng.g1()
    return _apply(zk, d, g1_s, ContributionParams(1, name, iterations_exp, bytes(beacon)), backend or get_backend(),
                  say)


# ------------------------------------------------------------------ verify
@dataclass(frozen=True)
class Phase2Report:
    index: int
    name: Optional[str]
    beacon: bool
    contribution_hash: str


def _rlc_ratio(be: Backend, before: tuple, after: tuple, delta2: G2Affine, what: str) -> None:
    if len(before) != len(after):
        raise InvalidCeremony(f"{what}: {len(after)} points, expected {len(before)}")
    if not before:
        return
    c = [secrets.randbits(128) for _ in before]
    r1, r2 = be.g1_msm(list(before), c), be.g1_msm(list(after), c)
    if r1 is None and r2 is None:
        return
    if not same_ratio(be, r1, r2, delta2, G2_GENERATOR):
        raise InvalidCeremony(f"{what}: the points are not the initial ones divided by delta")


def _check_contributions(zk: Zkey, be: Backend) -> list[Phase2Report]:
    reports = []
    cur = G1_GENERATOR
    prefix = [zk.cs_hash]
    for i, c in enumerate(zk.contributions, 1):
        label = f"phase-2 contribution #{i}" + (f" ({c.name})" if c.name else "")
        if blake2b512(*prefix, g1_u(c.g1_s), g1_u(c.g1_sx)) != c.transcript:
            raise InvalidCeremony(f"{label}: its transcript hash does not follow the earlier contributions")
        sp = hash_to_g2(c.transcript)
        if not same_ratio(be, c.g1_s, c.g1_sx, sp, c.g2_spx):
            raise InvalidCeremony(f"{label}: the proof of knowledge of delta is invalid")
        if not same_ratio(be, cur, c.delta_after, sp, c.g2_spx):
            raise InvalidCeremony(f"{label}: delta after it does not follow from the previous delta")
        if c.params.type == 1:
            rng = beacon_rng(c.params.beacon, c.params.iterations_exp)
            d = rng.fr()
            s = rng.g1()
            if s != c.g1_s or be.g1_mul(s, d) != c.g1_sx:
                raise InvalidCeremony(f"{label}: the beacon's key is not the one its value and iterations give")
        reports.append(Phase2Report(i, c.name, c.params.type == 1, c.contribution_hash.hex()))
        prefix.append(c.record_u())
        cur = c.delta_after
    pk = zk.pk
    if pk.delta_g1 != cur:
        raise InvalidCeremony("vk delta_1 is not the last contribution's delta")
    if not same_ratio(be, G1_GENERATOR, cur, G2_GENERATOR, pk.vk.delta_g2):
        raise InvalidCeremony("vk delta_2 does not match delta_1")
    return reports


def _sparse_combination(system: R1CS, rho: dict[int, int], n: int) -> tuple[list[int], list[int], list[int]]:
    """``u_X[j] = sum_s rho_s X[j][s]`` for X = A, B, C (with snarkjs's public-input rows)."""
    uA, uB, uC = [0] * n, [0] * n, [0] * n
    for j, (a, b, c) in enumerate(system.constraints):
        uA[j] = sum(rho[s] * v for s, v in a.items() if s in rho) % r
        uB[j] = sum(rho[s] * v for s, v in b.items() if s in rho) % r
        uC[j] = sum(rho[s] * v for s, v in c.items() if s in rho) % r
    m = system.n_constraints
    for s in range(system.n_public + 1):
        if s in rho:
            uA[m + s] = (uA[m + s] + rho[s]) % r
    return uA, uB, uC


def zkey_verify_fast(zk: Zkey, system: R1CS, pt: Ptau, backend: Optional[Backend] = None) -> list[Phase2Report]:
    """The same checks as :func:`zkey_verify` except the circuit hash, by random linear
    combinations instead of rebuilding the key: with random rho over the wires,
    ``sum rho_s A_s = sum_j (sum_s rho_s A_js) [L_j]`` (two MSMs), likewise B1, B2,
    IC, and C and H times delta (pairings). About ten MSMs per key. A *compact* key
    (see :func:`compact_bytes`: no A, B1, B2 or coefficients, which anyone rebuilds from
    the circuit and phase 1) is checked in everything it holds."""
    be = backend or get_backend()
    pk = zk.pk
    compact = zk.compact
    power = circuit_power(system)
    if power > pt.power:
        raise MalformedInput(f"the circuit needs a domain of 2^{power}, the .ptau has 2^{pt.power}")
    n = 1 << power
    n_vars, n_pub = system.n_wires, system.n_public
    if (pk.n_wires, pk.n_public, pk.domain_size) != (n_vars, n_pub, n) or len(pk.l_query) != n_vars - n_pub - 1:
        raise InvalidCeremony(f"the key's sizes (wires {pk.n_wires}, public {pk.n_public}, domain {pk.domain_size}) "
                              f"are not the circuit's ({n_vars}, {n_pub}, {n})")
    for label, got, want in (("alpha_1", pk.vk.alpha_g1, pt.alpha_tau_g1[0]), ("beta_1", pk.beta_g1, pt.beta_tau_g1[0]),
                             ("beta_2", pk.vk.beta_g2, pt.beta_g2), ("gamma_2", pk.vk.gamma_g2, G2_GENERATOR)):
        if got != want:
            raise InvalidCeremony(f"vk {label} is not phase 1's")
    if not compact and tuple(pk.coefficients) != tuple(coefficient_list(system)):
        raise InvalidCeremony("the coefficients section is not the circuit's")
    reports = _check_contributions(zk, be)
    lt, lt2 = lagrange_points(pt, 12, power, be), lagrange_points(pt, 13, power, be)
    la, lb = lagrange_points(pt, 14, power, be), lagrange_points(pt, 15, power, be)
    h_odd = h_points(pt, power, be)

    def rand(k: int) -> list[int]:
        return [secrets.randbits(128) for _ in range(k)]

    rho = rand(n_vars)
    uA, uB, _ = _sparse_combination(system, dict(enumerate(rho)), n) if not compact else ([], [], [])
    if not compact:
        if be.g1_msm(list(pk.a_query), rho) != be.g1_msm(lt, uA):
            raise InvalidCeremony("the A section is not the one the circuit and phase 1 give")
        if be.g1_msm(list(pk.b_g1_query), rho) != be.g1_msm(lt, uB):
            raise InvalidCeremony("the B1 section is not the one the circuit and phase 1 give")
        if be.g2_msm(list(pk.b_g2_query), rho) != be.g2_msm(lt2, uB):
            raise InvalidCeremony("the B2 section is not the one the circuit and phase 1 give")
    rho_pub = dict(enumerate(rand(n_pub + 1)))
    uA, uB, uC = _sparse_combination(system, rho_pub, n)
    if be.g1_msm(list(pk.vk.ic), list(rho_pub.values())) != be.g1_msm(lb + la + lt, uA + uB + uC):
        raise InvalidCeremony("the IC section is not the one the circuit and phase 1 give")
    rho_prv = rand(n_vars - n_pub - 1)
    uA, uB, uC = _sparse_combination(system, {n_pub + 1 + i: x for i, x in enumerate(rho_prv)}, n)
    lhs = be.g1_msm(list(pk.l_query), rho_prv)
    rhs = be.g1_msm(lb + la + lt, uA + uB + uC)
    if (lhs is None) != (rhs is None) or (lhs is not None and not same_ratio(be, rhs, lhs, pk.vk.delta_g2,
                                                                             G2_GENERATOR)):
        raise InvalidCeremony("the C (L) section is not the circuit's divided by delta")
    sigma = rand(n)
    lhs, rhs = be.g1_msm(list(pk.h_query), sigma), be.g1_msm(h_odd, sigma)
    if not same_ratio(be, rhs, lhs, pk.vk.delta_g2, G2_GENERATOR):
        raise InvalidCeremony("the H section is not phase 1's divided by delta")
    return reports


def zkey_verify(zk: Zkey, system: R1CS, pt: Ptau, backend: Optional[Backend] = None, say: Say = None,
                init: Optional[Zkey] = None) -> list[Phase2Report]:
    """Check the key against the circuit and phase 1 and its contribution chain as
    snarkjs's ``zkey verify`` does (rebuilding the initial key and its circuit hash);
    raise :class:`InvalidCeremony` naming the first failure. ``init`` (the result of
    :func:`zkey_new` for the same inputs) saves rebuilding it."""
    be = backend or get_backend()
    init = init or zkey_new(system, pt, be, say)
    pk, ipk = zk.pk, init.pk
    if (pk.n_wires, pk.n_public, pk.domain_size) != (ipk.n_wires, ipk.n_public, ipk.domain_size):
        raise InvalidCeremony(f"the key's sizes (wires {pk.n_wires}, public {pk.n_public}, domain {pk.domain_size}) "
                              f"are not the circuit's ({ipk.n_wires}, {ipk.n_public}, {ipk.domain_size})")
    if zk.cs_hash != init.cs_hash:
        raise InvalidCeremony("the key's circuit hash is not this circuit's with this phase 1")
    for label, got, want in (("alpha_1", pk.vk.alpha_g1, ipk.vk.alpha_g1), ("beta_1", pk.beta_g1, ipk.beta_g1),
                             ("beta_2", pk.vk.beta_g2, ipk.vk.beta_g2), ("gamma_2", pk.vk.gamma_g2, ipk.vk.gamma_g2)):
        if got != want:
            raise InvalidCeremony(f"vk {label} is not phase 1's")
    for label, got, want in (("IC", pk.vk.ic, ipk.vk.ic), ("coefficients", pk.coefficients, ipk.coefficients),
                             ("A", pk.a_query, ipk.a_query), ("B1", pk.b_g1_query, ipk.b_g1_query),
                             ("B2", pk.b_g2_query, ipk.b_g2_query)):
        if tuple(got) != tuple(want):
            raise InvalidCeremony(f"the {label} section is not the one the circuit and phase 1 give")
    reports = _check_contributions(zk, be)
    _rlc_ratio(be, ipk.l_query, pk.l_query, pk.vk.delta_g2, "the C (L) section")
    _rlc_ratio(be, ipk.h_query, pk.h_query, pk.vk.delta_g2, "the H section")
    return reports


# ------------------------------------------------------------------ file format
def _read_mpc(data: bytes, what: str) -> tuple[bytes, tuple]:
    rd = BinReader(data, what + " contributions")
    cs_hash = rd.take(64)
    out = []
    for i in range(rd.u32()):
        w = f"{what} phase-2 contribution #{i + 1}"
        delta_after = g1_from_lem(rd.take(64), w + " delta")
        g1_s = g1_from_lem(rd.take(64), w + " s")
        g1_sx = g1_from_lem(rd.take(64), w + " s delta")
        g2_spx = g2_from_lem(rd.take(128), w + " s' delta")
        check_g2_subgroup([g2_spx], w)
        transcript = rd.take(64)
        out.append(Phase2Contribution(delta_after, g1_s, g1_sx, g2_spx, transcript, ContributionParams.read(rd, w)))
    if rd.pos != len(rd.data):
        raise MalformedInput(f"{what}: contributions section has {len(rd.data) - rd.pos} extra bytes")
    return cs_hash, tuple(out)


def zkey_from_file_bytes(data: bytes, what: str = ".zkey", system: Optional[R1CS] = None) -> Zkey:
    sections = read_binfile(data, b"zkey", (1,), what)
    if 10 not in sections:
        raise MalformedInput(f"{what}: section 10 (contributions) is missing")
    pk = zkey_sections_to_key(sections, what, system)
    check_g2_subgroup(pk.b_g2_query, f"{what} B2")
    cs_hash, contributions = _read_mpc(sections[10], what)
    return Zkey(pk, cs_hash, contributions)


def read_zkey(path, system: Optional[R1CS] = None) -> Zkey:
    from pathlib import Path

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise MalformedInput(f"{path}: cannot read ({exc.strerror})") from None
    return zkey_from_file_bytes(data, str(path), system)


def write_zkey_file(path, zk: Zkey) -> None:
    from pathlib import Path

    tmp = Path(str(path) + ".tmp")
    tmp.write_bytes(zk.to_bytes())
    tmp.replace(path)


# ------------------------------------------------------------------ the compact form
COMPACT_SECTIONS = (1, 2, 3, 8, 9, 10)


def compact_bytes(zk: Zkey) -> bytes:
    """What a ceremony adds to a key and nobody can recompute: a ``.zkey`` with only
    sections 1, 2 (header: alpha, beta, gamma, delta), 3 (IC), 8 (C), 9 (H) and 10 (the
    record), about a tenth of the full file. :func:`expand_compact` rebuilds the rest
    (A, B1, B2, coefficients) from the circuit and phase 1, which are public."""
    full = read_binfile(zk.to_bytes(), b"zkey", (1,), "zkey")
    from zkbluff.ceremony.binfile import write_binfile

    return write_binfile(b"zkey", 1, [(k, full[k]) for k in COMPACT_SECTIONS])


def compact_from_bytes(data: bytes, what: str, system: R1CS) -> Zkey:
    """A compact key as a :class:`Zkey` whose A, B1, B2 and coefficients are empty."""
    sections = read_binfile(data, b"zkey", (1,), what)
    for k in COMPACT_SECTIONS:
        if k not in sections:
            raise MalformedInput(f"{what}: section {k} is missing from the compact key")
    n_vars = system.n_wires
    filled = dict(sections)
    h = BinReader(sections[2], what + " header")
    h.take(4 + 32 + 4 + 32)
    n_vars_hdr, n_pub, domain = h.u32(), h.u32(), h.u32()
    if n_vars_hdr != n_vars or n_pub != system.n_public:
        raise InvalidCeremony(f"{what}: made for {n_vars_hdr} wires and {n_pub} public inputs, the circuit has "
                              f"{n_vars} and {system.n_public}")
    filled[4] = struct.pack("<I", 0)
    filled[5] = filled[6] = bytes(64 * n_vars)
    filled[7] = bytes(128 * n_vars)
    pk = zkey_sections_to_key(filled, what, system)
    cs_hash, contributions = _read_mpc(sections[10], what)
    return Zkey(pk, cs_hash, contributions, compact=True)


def expand_compact(zk: Zkey, system: R1CS, pt: Ptau, backend: Optional[Backend] = None,
                   init: Optional[Zkey] = None) -> Zkey:
    """The full key: the compact one's delta, IC, C, H and record over the rebuilt rest."""
    init = init or zkey_new(system, pt, backend)
    pk = replace(init.pk, vk=replace(init.pk.vk, delta_g2=zk.pk.vk.delta_g2, ic=zk.pk.vk.ic),
                 delta_g1=zk.pk.delta_g1, l_query=zk.pk.l_query, h_query=zk.pk.h_query)
    return Zkey(pk, zk.cs_hash, zk.contributions)


def expand_with_queries(zk: Zkey, system: R1CS, queries: tuple[tuple, tuple, tuple]) -> Zkey:
    """:func:`expand_compact` without phase 1: the A, B1 and B2 queries given (a pinned
    key's ``.query`` file, :mod:`zkbluff.ceremony.queries`), the coefficients from the
    circuit, everything else (header, IC, C, H, record) from the compact key."""
    a_q, b1_q, b2_q = queries
    if not len(a_q) == len(b1_q) == len(b2_q) == system.n_wires:
        raise MalformedInput(f"queries of {len(a_q)}, {len(b1_q)}, {len(b2_q)} wires for a circuit of {system.n_wires}")
    pk = replace(zk.pk, a_query=tuple(a_q), b_g1_query=tuple(b1_q), b_g2_query=tuple(b2_q),
                 coefficients=tuple(coefficient_list(system)), system=system)
    return Zkey(pk, zk.cs_hash, zk.contributions)
