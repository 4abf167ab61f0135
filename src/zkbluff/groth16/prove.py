"""The Groth16 prover.

It refuses a witness with a value outside Fr, and one that does not satisfy the
constraints, naming the constraint (when the key carries its constraint system: it
checks ``(A w)(B w) = C w`` on every row as vectors; a bare snarkjs ``.zkey`` has no C
matrix, so then the prover verifies its own proof and refuses if that fails). No proof
leaves it before the check has passed. All group work is MSMs through the backend,
on two threads; the polynomial work is six NTTs (the h step). Three MSMs, not four: B's
G1 points go into C's MSM with the scalars r w_i (C needs r B1 and nothing else does; see
``_prepared_locked``), so a proof is the same group elements with one MSM's overhead less.

The witness is converted once into a field-kernel vector; ``A w``, ``B w``, ``C w`` and
the h step stay in the kernel (:mod:`zkbluff.field`: C when built). A backend that offers
``g1_msm_packed`` / ``g2_msm_packed`` (scalars as the kernel's Montgomery bytes, MCL's
layout) gets the scalars with no per-element conversion; any other gets ints.
"""
from __future__ import annotations

import os
import secrets
import threading
import weakref
from typing import Any, Callable, Optional, Sequence

from zkbluff.circuit.builder import check
from zkbluff.curve import Backend, get_backend
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import EvaluationDomain, FieldKernel, get_kernel, r
from zkbluff.groth16.keys import Proof, ProvingKey
from zkbluff.groth16.qap import CoefficientMatrix, c_coefficient_list, h_vector

_PREPARED: "weakref.WeakKeyDictionary[ProvingKey, dict]" = weakref.WeakKeyDictionary()
_PREPARED_LOCK = threading.Lock()


def _prepared(pk: ProvingKey, backend: Backend) -> dict:
    with _PREPARED_LOCK:
        return _prepared_locked(pk, backend)


#: from this many points on, C's MSM runs in two parts on the two threads: the B and L part
#: (its scalars known at once, so it starts beside A's and B's MSMs) and the H part (after
#: the h step); below, one MSM after the h step (a thread start costs more than it saves)
SPLIT_MSM_AT = 1 << 10


def _prepared_locked(pk: ProvingKey, backend: Backend) -> dict:
    per_key = _PREPARED.setdefault(pk, {})
    if backend.name not in per_key:
        # C = sum_priv w_i L_i + sum_j h_j H_j + s A + r B1 - r s delta, and B1 (in G1) is
        # needed for nothing else: with B1 = beta + sum_i w_i B1_i + s delta, the r s delta
        # terms cancel and C = [sum_i (r w_i) B1_i + r beta + sum_priv w_i L_i] + sum_j h_j H_j
        # + s A: B's G1 points join C's MSM and no G1 MSM of B is made on its own
        bl_points = [*pk.b_g1_query, pk.beta_g1, *pk.l_query]
        split = len(bl_points) + len(pk.h_query) >= SPLIT_MSM_AT
        per_key[backend.name] = {
            "a": backend.g1_prepare([*pk.a_query, pk.vk.alpha_g1, pk.delta_g1]),
            "b2": backend.g2_prepare([*pk.b_g2_query, pk.vk.beta_g2, pk.vk.delta_g2]),
            "c": [backend.g1_prepare(bl_points), backend.g1_prepare(list(pk.h_query))] if split
            else [backend.g1_prepare([*bl_points, *pk.h_query])],
        }
    if "matrix" not in per_key:
        per_key["matrix"] = CoefficientMatrix(pk.coefficients, pk.domain_size)
        per_key["c_matrix"] = None if pk.system is None else \
            CoefficientMatrix(c_coefficient_list(pk.system), pk.domain_size, matrices=(2,))
        per_key["domain"] = EvaluationDomain.for_size(pk.domain_size)
        per_key["lock"] = threading.Lock()  # one prove at a time uses a key's prepared points
    return {**per_key[backend.name], **{n: per_key[n] for n in ("matrix", "c_matrix", "domain", "lock")}}


_POOL: Any = None
_POOL_PID = 0
_POOL_LOCK = threading.Lock()


def _pool() -> Any:
    """The prover's two MSM threads, started once per process (a forked child starts its
    own): a thread start costs more than a small circuit's MSM gains from it."""
    global _POOL, _POOL_PID
    with _POOL_LOCK:
        if _POOL is None or _POOL_PID != os.getpid():
            from concurrent.futures import ThreadPoolExecutor  # (here: a verifier never pays for it)

            _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="zkbluff-prove")
            _POOL_PID = os.getpid()
        return _POOL


def _random_nonzero() -> int:
    while True:
        x = secrets.randbelow(r)
        if x:
            return x


class _Scalars:
    """MSM scalar vectors in the form the backend takes: the kernel's Montgomery bytes
    for a backend with packed MSMs, else lists of ints."""

    def __init__(self, k: FieldKernel, be: Backend, witness: Any, witness_ints: Sequence[int]):
        self.k = k
        g1p: Optional[Callable] = getattr(be, "g1_msm_packed", None)
        g2p: Optional[Callable] = getattr(be, "g2_msm_packed", None)
        self.g1_msm: Callable[..., Any]
        self.g2_msm: Callable[..., Any]
        self.packed = g1p is not None and g2p is not None
        if g1p is not None and g2p is not None:
            self.g1_msm, self.g2_msm = g1p, g2p
            self.w: Any = k.mont_bytes(witness)
        else:
            self.g1_msm, self.g2_msm = be.g1_msm, be.g2_msm
            self.w = list(witness_ints)

    def ints(self, *xs: int) -> Any:
        return self.k.mont_bytes(self.k.from_ints(xs, len(xs))) if self.packed else list(xs)

    def vec(self, v: Any) -> Any:
        return self.k.mont_bytes(v) if self.packed else self.k.to_ints(v)

    def witness_from(self, i: int) -> Any:
        return self.slice(self.w, i, None)

    def slice(self, v: Any, start: int, stop: Optional[int]) -> Any:
        if self.packed:
            return v[32 * start: None if stop is None else 32 * stop]
        return v[start:stop]


def prove(pk: ProvingKey, witness: Sequence[int], backend: Optional[Backend] = None,
          timings: Optional[dict] = None) -> Proof:
    """A proof that ``witness`` satisfies the key's circuit, with fresh random r, s.

    Raises :class:`MalformedInput` for a witness of the wrong length or with values
    outside Fr, :class:`UnsatisfiedConstraint` for one that does not satisfy the circuit.
    ``timings``, if given, receives the seconds spent in each phase.
    """
    import time
    from concurrent.futures import wait

    be = backend or get_backend()
    clock = time.perf_counter
    t0 = clock()
    if len(witness) != pk.n_wires:
        raise MalformedInput(f"invalid witness size, got {len(witness)}, expected {pk.n_wires}")
    if witness[0] != 1:
        raise MalformedInput(f"witness[0] must be 1, got {witness[0]}")
    for i, v in enumerate(witness):
        if not isinstance(v, int) or not 0 <= v < r:
            raise MalformedInput(f"witness[{i}]: expected 0 <= w < r, got {v!r}")
    k = get_kernel()
    w = k.from_ints(witness, pk.n_wires)  # the witness, converted once
    prep = _prepared(pk, be)
    rr, ss = _random_nonzero(), _random_nonzero()
    sc = _Scalars(k, be, w, witness)
    wr, ws = sc.w + sc.ints(1, rr), sc.w + sc.ints(1, ss)  # A's and B's, with alpha / beta and delta

    t1 = clock()

    # Two threads run the MSMs in the backend (native code releases the GIL) while this
    # thread checks the constraints and does the polynomial work; C's MSM, the largest,
    # is split across both. No two threads ever touch the same prepared points, and the
    # key's lock keeps concurrent proves with one key apart. The A and B MSMs start
    # before the check and are thrown away if it fails: nothing leaves this function
    # for an unsatisfied witness.
    pool = _pool()
    futures: list = []
    # C's scalars for B's G1 points and L's: r w_i for every wire, r for beta, w_i for the
    # private wires (no h: this part starts at once when C's MSM is in two parts)
    bl_scalars = sc.vec(k.scale_powers(w, rr, 1)) + sc.ints(rr) + sc.witness_from(pk.n_public + 1)
    with prep["lock"]:
        try:
            for fn, points, scalars in ((sc.g2_msm, prep["b2"], ws), (sc.g1_msm, prep["a"], wr)):
                futures.append(pool.submit(fn, points, scalars))
            if len(prep["c"]) == 2:
                futures.append(pool.submit(sc.g1_msm, prep["c"][0], bl_scalars))
            b2, a1 = futures[:2]
            a, b = prep["matrix"].evaluate(k, w)
            if prep["c_matrix"] is not None:
                # the constraint check as vectors: (A w) * (B w) = C w on every row
                (c,) = prep["c_matrix"].evaluate(k, w)
                if not k.equal(k.mul(a, b), c):
                    if pk.system is not None:
                        check(pk.system, witness)  # names the first failing constraint
                    raise UnsatisfiedConstraint("the witness does not satisfy the key's A and B matrices "
                                                "(the key's coefficients and its constraint system disagree)")
            h = sc.vec(h_vector(k, prep["domain"], a, b))
            t2 = clock()
            futures.append(pool.submit(sc.g1_msm, prep["c"][-1], h if len(prep["c"]) == 2 else bl_scalars + h))
            A, B2 = a1.result(), b2.result()
            Cs = [f.result() for f in futures[2:]]
        finally:
            # on any failure: no MSM still reads the key's prepared points once its lock is let go
            for f in futures:
                f.cancel()
            wait(futures)
    C = be.g1_msm([*Cs, A], [1] * len(Cs) + [ss])
    t3 = clock()
    proof = Proof(A, B2, C)
    if pk.system is None:
        from zkbluff.groth16.verify import verify

        try:
            verify(pk.vk, list(witness[1: pk.n_public + 1]), proof, be)
        except InvalidProof:
            raise UnsatisfiedConstraint(
                "the witness does not satisfy the circuit (the proof fails its own check; "
                "give the .r1cs to name the constraint)") from None
    if timings is not None:
        # check: the witness's range check and conversion; polynomials: A w, B w, the
        # constraint check and the h step (overlapping the A and B MSMs); msm: the rest
        timings.update(check=t1 - t0, polynomials=t2 - t1, msm=t3 - t2, total=clock() - t0)
    return proof
