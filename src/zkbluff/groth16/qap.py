"""R1CS to QAP, the reduction snarkjs uses (so keys and proofs interchange).

* The domain has the smallest power-of-two size above ``m + n_public`` (m constraints).
* For each public wire s (and the constant wire 0) a row ``w_s * 0 = 0`` is appended at
  index ``m + s`` of A, which makes the public inputs' polynomials independent.
* ``A_i(X) = sum_j A[j][i] L_j(X)`` over the domain's Lagrange basis, likewise B and C.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from zkbluff.circuit.builder import R1CS
from zkbluff.field import EvaluationDomain, FieldKernel, get_kernel, r, root_of_unity

if TYPE_CHECKING:
    import numpy as np


def domain_for(system: R1CS) -> EvaluationDomain:
    return EvaluationDomain.for_size(system.n_constraints + system.n_public + 1)


def coefficient_list(system: R1CS) -> list[tuple[int, int, int, int]]:
    """The A (matrix 0) and B (matrix 1) entries, then the public-input rows."""
    out: list[tuple[int, int, int, int]] = []
    extend = out.extend
    for j, (a, b, _c) in enumerate(system.constraints):
        extend([(0, j, s, v) for s, v in a.items()])
        extend([(1, j, s, v) for s, v in b.items()])
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


def c_coefficient_list(system: R1CS) -> list[tuple[int, int, int, int]]:
    """The C entries (matrix 2), which a ``.zkey`` does not carry."""
    return [(2, j, s, v) for j, (_a, _b, c) in enumerate(system.constraints) for s, v in c.items()]


class CoefficientMatrix:
    """Sparse matrices (A and B by default) as index/value arrays, for evaluating ``A w``,
    ``B w`` on the domain with one kernel call each (values converted once per kernel)."""

    def __init__(self, coefficients: Sequence[tuple[int, int, int, int]], domain_size: int,
                 matrices: tuple[int, ...] = (0, 1)):
        import numpy as np

        arr = np.array([(m, c, s) for m, c, s, _ in coefficients], dtype=np.int64).reshape(-1, 3)
        vals = [v for *_, v in coefficients]
        self.domain_size = domain_size
        self.parts = []
        for matrix in matrices:
            sel = arr[:, 0] == matrix
            self.parts.append((np.ascontiguousarray(arr[sel, 1]), np.ascontiguousarray(arr[sel, 2]),
                               [v for v, keep in zip(vals, sel) if keep]))
        max_row = int(arr[:, 1].max()) if len(arr) else -1
        if max_row >= domain_size:
            raise ValueError(f"coefficient row {max_row} outside a domain of {domain_size}")
        self._values: dict[str, list] = {}

    def _kernel_values(self, k: FieldKernel) -> list:
        if k.name not in self._values:
            self._values[k.name] = [k.from_ints(vals, len(vals)) for _, _, vals in self.parts]
        return self._values[k.name]

    def evaluate(self, k: FieldKernel, witness: object) -> tuple[object, ...]:
        """``(A w, B w)`` (each matrix times the witness, a kernel vector) on the domain."""
        vals = self._kernel_values(k)
        return tuple(k.sparse_matvec(rows, wires, v, witness, self.domain_size)
                     for (rows, wires, _), v in zip(self.parts, vals))


def h_vector(k: FieldKernel, domain: EvaluationDomain, a: object, b: object) -> object:
    """``A(x) B(x) - C(x)`` at the odd points ``omega_{2n}^{2i+1}`` of the doubled domain,
    where A, B, C interpolate ``a``, ``b`` and ``c = a * b`` on the domain (kernel vectors).

    No division by ``Z(x) = x^n - 1``: the key's h query is ``[L_{2i+1}(tau) / delta]_1``
    over the doubled domain, where ``A B - C`` (degree < 2n, zero on the even points) is
    interpolated exactly, so the MSM yields ``(A B - C)(tau) / delta = h(tau) Z(tau) / delta``
    (snarkjs's layout)."""
    return k.h_step(a, b, domain.log_size, domain.omega, root_of_unity(domain.log_size + 1))


def h_evaluations(domain: EvaluationDomain, a: Sequence[int], b: Sequence[int]) -> list[int]:
    """:func:`h_vector` on lists of ints, through the selected field kernel."""
    k = get_kernel()
    return k.to_ints(h_vector(k, domain, k.from_ints(a, domain.size), k.from_ints(b, domain.size)))
