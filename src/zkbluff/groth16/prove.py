"""The Groth16 prover.

It checks the witness first and refuses an unsatisfied one, naming the constraint
(when the key carries its constraint system; a bare snarkjs ``.zkey`` has no C
matrix, so then the prover verifies its own proof and refuses if that fails). All
group work is five MSMs through the backend; the polynomial work is six NTTs.
"""
from __future__ import annotations

import secrets
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Sequence

import numpy as np

from zkbluff.circuit.builder import check
from zkbluff.curve import Backend, get_backend
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import EvaluationDomain, r
from zkbluff.groth16.keys import Proof, ProvingKey
from zkbluff.groth16.qap import CoefficientMatrix, h_evaluations

_PREPARED: "weakref.WeakKeyDictionary[ProvingKey, dict]" = weakref.WeakKeyDictionary()
_PREPARED_LOCK = threading.Lock()


def _prepared(pk: ProvingKey, backend: Backend) -> dict:
    with _PREPARED_LOCK:
        return _prepared_locked(pk, backend)


def _prepared_locked(pk: ProvingKey, backend: Backend) -> dict:
    per_key = _PREPARED.setdefault(pk, {})
    if backend.name not in per_key:
        per_key[backend.name] = {
            "a": backend.g1_prepare([*pk.a_query, pk.vk.alpha_g1, pk.delta_g1]),
            "b1": backend.g1_prepare([*pk.b_g1_query, pk.beta_g1, pk.delta_g1]),
            "b2": backend.g2_prepare([*pk.b_g2_query, pk.vk.beta_g2, pk.vk.delta_g2]),
            "c": backend.g1_prepare([*pk.l_query, *pk.h_query, pk.delta_g1]),
        }
    if "matrix" not in per_key:
        per_key["matrix"] = CoefficientMatrix(pk.coefficients, pk.domain_size)
        per_key["domain"] = EvaluationDomain.for_size(pk.domain_size)
        per_key["lock"] = threading.Lock()  # one prove at a time uses a key's prepared points
    return {**per_key[backend.name], "matrix": per_key["matrix"], "domain": per_key["domain"],
            "lock": per_key["lock"]}


def _random_nonzero() -> int:
    while True:
        x = secrets.randbelow(r)
        if x:
            return x


def prove(pk: ProvingKey, witness: Sequence[int], backend: Optional[Backend] = None,
          timings: Optional[dict] = None) -> Proof:
    """A proof that ``witness`` satisfies the key's circuit, with fresh random r, s.

    Raises :class:`MalformedInput` for a witness of the wrong length or with values
    outside Fr, :class:`UnsatisfiedConstraint` for one that does not satisfy the circuit.
    ``timings``, if given, receives the seconds spent in each phase.
    """
    import time

    be = backend or get_backend()
    clock = time.perf_counter
    t0 = clock()
    if len(witness) != pk.n_wires:
        raise MalformedInput(f"invalid witness size, got {len(witness)}, expected {pk.n_wires}")
    if witness[0] != 1:
        raise MalformedInput(f"witness[0] must be 1, got {witness[0]}")
    if pk.system is not None:
        check(pk.system, witness)
    else:
        for i, v in enumerate(witness):
            if not isinstance(v, int) or not 0 <= v < r:
                raise MalformedInput(f"witness[{i}]: expected 0 <= w < r, got {v!r}")
    t1 = clock()
    prep = _prepared(pk, be)
    rr, ss = _random_nonzero(), _random_nonzero()
    wl = list(witness)

    def msm_abb() -> tuple:
        return (be.g1_msm(prep["a"], wl + [1, rr]), be.g2_msm(prep["b2"], wl + [1, ss]),
                be.g1_msm(prep["b1"], wl + [1, ss]))

    # The A, B MSMs do not need H: a worker thread runs them in the backend (native code
    # releases the GIL) while this thread does the NTTs. Every backend call stays on that
    # one worker, so the backend is never entered from two threads at once.
    with prep["lock"], ThreadPoolExecutor(max_workers=1) as worker:
        abb = worker.submit(msm_abb)
        w = np.empty(len(witness), dtype=object)
        w[:] = wl
        a, b = prep["matrix"].evaluate(w)
        h = h_evaluations(prep["domain"], a, b)
        t2 = clock()
        A, B2, B1 = abb.result()
        c_scalars = wl[pk.n_public + 1:] + h + [(-rr * ss) % r]
        C = worker.submit(lambda: be.g1_msm([be.g1_msm(prep["c"], c_scalars), A, B1], [1, ss, rr])).result()
    t3 = clock()
    proof = Proof(A, B2, C)
    if pk.system is None:
        from zkbluff.groth16.verify import verify

        try:
            verify(pk.vk, wl[1: pk.n_public + 1], proof, be)
        except InvalidProof:
            raise UnsatisfiedConstraint(
                "the witness does not satisfy the circuit (the proof fails its own check; "
                "give the .r1cs to name the constraint)") from None
    if timings is not None:
        # polynomials: the NTT work (overlapping the A and B MSMs); msm: what remains after it
        timings.update(check=t1 - t0, polynomials=t2 - t1, msm=t3 - t2, total=clock() - t0)
    return proof
