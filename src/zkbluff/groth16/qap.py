"""R1CS to QAP, the reduction snarkjs uses (so keys and proofs interchange).

* The domain has the smallest power-of-two size above ``m + n_public`` (m constraints).
* For each public wire s (and the constant wire 0) a row ``w_s * 0 = 0`` is appended at
  index ``m + s`` of A, which makes the public inputs' polynomials independent.
* ``A_i(X) = sum_j A[j][i] L_j(X)`` over the domain's Lagrange basis, likewise B and C.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from zkbluff.circuit.builder import R1CS
from zkbluff.field import EvaluationDomain, r, root_of_unity


def domain_for(system: R1CS) -> EvaluationDomain:
    return EvaluationDomain.for_size(system.n_constraints + system.n_public + 1)


def coefficient_list(system: R1CS) -> list[tuple[int, int, int, int]]:
    """The A (matrix 0) and B (matrix 1) entries, then the public-input rows."""
    out = []
    for j, (a, b, _c) in enumerate(system.constraints):
        out.extend((0, j, s, v) for s, v in a.items())
        out.extend((1, j, s, v) for s, v in b.items())
    m = system.n_constraints
    out.extend((0, m + s, s, 1) for s in range(system.n_public + 1))
    return out


def polynomials_at(system: R1CS, lagrange: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """``(A_i(tau), B_i(tau), C_i(tau))`` for every wire, given the Lagrange basis at tau."""
    n = system.n_wires
    A, B, C = [0] * n, [0] * n, [0] * n
    for j, (a, b, c) in enumerate(system.constraints):
        lj = lagrange[j]
        for s, v in a.items():
            A[s] += v * lj
        for s, v in b.items():
            B[s] += v * lj
        for s, v in c.items():
            C[s] += v * lj
    m = system.n_constraints
    for s in range(system.n_public + 1):
        A[s] += lagrange[m + s]
    return [x % r for x in A], [x % r for x in B], [x % r for x in C]


class CoefficientMatrix:
    """A and B as numpy index/value arrays, for evaluating ``A w`` and ``B w`` on the
    domain in a few vectorised operations."""

    def __init__(self, coefficients: Sequence[tuple[int, int, int, int]], domain_size: int):
        arr = np.array([(m, c, s) for m, c, s, _ in coefficients], dtype=np.int64).reshape(-1, 3)
        vals = np.empty(len(coefficients), dtype=object)
        vals[:] = [v for *_, v in coefficients]
        self.domain_size = domain_size
        self.parts = []
        for matrix in (0, 1):
            sel = arr[:, 0] == matrix
            self.parts.append((arr[sel, 1], arr[sel, 2], vals[sel]))
        max_row = int(arr[:, 1].max()) if len(arr) else -1
        if max_row >= domain_size:
            raise ValueError(f"coefficient row {max_row} outside a domain of {domain_size}")

    def evaluate(self, witness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for rows, wires, vals in self.parts:
            acc = np.zeros(self.domain_size, dtype=object)
            np.add.at(acc, rows, vals * witness[wires])
            out.append(acc % r)
        return out[0], out[1]


def h_evaluations(domain: EvaluationDomain, a: np.ndarray, b: np.ndarray) -> list[int]:
    """``A(x) B(x) - C(x)`` at the odd points ``omega_{2n}^{2i+1}`` of the doubled domain,
    where A, B, C interpolate ``a``, ``b`` and ``c = a * b`` on the domain."""
    c = a * b % r
    shift = root_of_unity(domain.log_size + 1)
    odd = []
    for evals in (a, b, c):
        coeffs = domain.intt(evals)
        odd.append(np.array(domain.coset_ntt(coeffs, shift), dtype=object))
    return ((odd[0] * odd[1] - odd[2]) % r).tolist()
