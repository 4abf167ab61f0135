"""circomlib's Poseidon permutation rewritten with the same output and fewer multiplications:
the partial rounds' constants moved to the first partial round and their matrices made
sparse (the Poseidon paper, eprint 2019/458, appendix B; what circomlibjs's
``poseidon_opt`` does with its own constant files). Derived here from :func:`params`, so
nothing new is shipped; the C kernel (``_fr_native.poseidon_sparse``) runs exactly
:func:`permute_sparse`, and both are tested equal to ``gadgets.native.poseidon_reference``.

A round k is ``s <- M * N_k(s + c_k)``; in a partial round N_k is the S-box x^5 on s[0] only.

- **Constants.** With ``d = M^-1 c_k``, ``M N_{k-1}(x) + c_k = M (N_{k-1}(x + (0, d[1:])) + (d[0], 0..))``
  because N_{k-1} leaves s[1:] alone. So from the last partial round down, each round's
  constants move into the previous round's (their s[1:] part) and a scalar ``e_{k-1} = d[0]``
  added to s[0] after that round's S-box. Only the first partial round keeps a full vector.
- **Matrices.** A matrix ``A = [[a, w], [v, Â]]`` (blocks 1 and t-1) is ``S D`` with
  ``D = diag(1, Â)`` and the sparse ``S = [[a, w Â^-1], [v, I]]``. D touches neither s[0] nor
  mixes it, so it commutes with a partial round's N and moves into the previous round's
  matrix, ``D M``, which is split again. The first partial round keeps the dense ``D M``.
  A sparse product costs 2t - 1 multiplications instead of t^2.

Needs M̂ (M without its first row and column) invertible: every Â is a power of it
(:func:`sparse_params` says why); it raises ``ArithmeticError`` otherwise (M̂ of a Cauchy
matrix is a Cauchy matrix, so it never does).
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Sequence

from zkbluff.field import r
from zkbluff.gadgets.poseidon_params import N_ROUNDS_F, params

Matrix = list[list[int]]


class SparseParams(NamedTuple):
    t: int
    r_p: int
    #: the constants of the first N_ROUNDS_F/2 (full) rounds, round by round
    first_constants: tuple[int, ...]
    #: the first partial round's constant vector (every partial round's moved into it)
    partial_constants: tuple[int, ...]
    #: e_k, added to s[0] after each partial round's S-box (the last one's is 0)
    partial_scalars: tuple[int, ...]
    #: the constants of the last N_ROUNDS_F/2 (full) rounds
    last_constants: tuple[int, ...]
    #: the MDS matrix, row by row (the full rounds)
    mds: tuple[int, ...]
    #: the first partial round's dense matrix D M, row by row
    first_partial_mds: tuple[int, ...]
    #: for each later partial round: a, then w Â^-1 (t-1), then v (t-1)
    sparse: tuple[int, ...]

    def packed_ints(self) -> list[int]:
        """Everything in the order the C kernel reads it."""
        return [*self.first_constants, *self.partial_constants, *self.partial_scalars, *self.last_constants,
                *self.mds, *self.first_partial_mds, *self.sparse]


def _inverse(a: Matrix) -> Matrix:
    n = len(a)
    m = [[x % r for x in row] + [int(i == j) for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        piv = next((i for i in range(col, n) if m[i][col]), None)
        if piv is None:
            raise ArithmeticError("singular matrix")
        m[col], m[piv] = m[piv], m[col]
        inv = pow(m[col][col], -1, r)
        m[col] = [x * inv % r for x in m[col]]
        for i in range(n):
            if i != col and m[i][col]:
                f = m[i][col]
                m[i] = [(x - f * y) % r for x, y in zip(m[i], m[col])]
    return [row[n:] for row in m]


def _matmul(a: Matrix, b: Matrix) -> Matrix:
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) % r for j in range(len(b[0]))] for i in range(len(a))]


def _matvec(a: Matrix, v: Sequence[int]) -> list[int]:
    return [sum(x * y for x, y in zip(row, v)) % r for row in a]


def _vecmat(v: Sequence[int], a: Matrix) -> list[int]:
    return [sum(v[i] * a[i][j] for i in range(len(v))) % r for j in range(len(a[0]))]


def _matpow(a: Matrix, e: int) -> Matrix:
    out = [[int(i == j) for j in range(len(a))] for i in range(len(a))]
    while e:
        if e & 1:
            out = _matmul(out, a)
        a = _matmul(a, a)
        e >>= 1
    return out


@lru_cache(maxsize=None)
def sparse_params(t: int) -> SparseParams:
    C, M_rows, r_p = params(t)
    M = [list(row) for row in M_rows]
    h = N_ROUNDS_F // 2
    c = [list(C[k * t:(k + 1) * t]) for k in range(N_ROUNDS_F + r_p)]
    m_inv = _inverse(M)
    scalars = [0] * r_p
    for k in range(h + r_p - 1, h, -1):
        d = _matvec(m_inv, c[k])
        c[k - 1] = [c[k - 1][0]] + [(x + y) % r for x, y in zip(c[k - 1][1:], d[1:])]
        scalars[k - 1 - h] = d[0]
        c[k] = [0] * t
    # Split from the last partial round down. The last one's A is M; before it, A = diag(1, Â') M,
    # so by induction round h + r_p - 1 - j has a = M[0][0], w = M[0][1:], v = M̂^j v_0 and
    # Â = M̂^(j+1) (M̂, v_0: M's lower-right block and first column): w Â^-1 = w M̂^-(j+1).
    m_hat = [row[1:] for row in M[1:]]
    m_hat_inv = _inverse(m_hat)
    v = [M[i][0] for i in range(1, t)]
    u = _vecmat(M[0][1:], m_hat_inv)
    sparse: list[list[int]] = [[] for _ in range(r_p)]
    for k in range(h + r_p - 1, h, -1):
        sparse[k - h] = [M[0][0], *u, *v]
        u = _vecmat(u, m_hat_inv)
        v = _matvec(m_hat, v)
    # the first partial round keeps the dense diag(1, M̂^(r_p - 1)) M
    power = _matpow(m_hat, r_p - 1)
    A = [list(M[0])] + _matmul(power, [row for row in M[1:]])
    return SparseParams(
        t, r_p,
        tuple(x for k in range(h) for x in c[k]),
        tuple(c[h]),
        tuple(scalars),
        tuple(x for k in range(h + r_p, N_ROUNDS_F + r_p) for x in c[k]),
        tuple(x for row in M for x in row),
        tuple(x for row in A for x in row),
        tuple(x for k in range(1, r_p) for x in sparse[k]),
    )


def permute_sparse(inputs: Sequence[int]) -> int:
    """Poseidon of ``inputs`` (1..16 field elements, unchecked) by the sparse rounds in
    Python: what the C kernel computes, step for step."""
    t = len(inputs) + 1
    p = sparse_params(t)
    h = N_ROUNDS_F // 2
    s = [0, *inputs]

    def full(s: list[int], consts: Sequence[int], mds: Sequence[int]) -> list[int]:
        s = [pow((x + k) % r, 5, r) for x, k in zip(s, consts)]
        return [sum(mds[i * t + j] * s[j] for j in range(t)) % r for i in range(t)]

    for k in range(h):
        s = full(s, p.first_constants[k * t:(k + 1) * t], p.mds)
    s = [(x + k) % r for x, k in zip(s, p.partial_constants)]
    s[0] = (pow(s[0], 5, r) + p.partial_scalars[0]) % r
    s = [sum(p.first_partial_mds[i * t + j] * s[j] for j in range(t)) % r for i in range(t)]
    w = 2 * t - 1
    for k in range(1, p.r_p):
        row = p.sparse[(k - 1) * w:k * w]
        s0 = (pow(s[0], 5, r) + p.partial_scalars[k]) % r
        new0 = (row[0] * s0 + sum(row[j] * s[j] for j in range(1, t))) % r
        s = [new0] + [(row[t - 1 + i] * s0 + s[i]) % r for i in range(1, t)]
    for k in range(h):
        s = full(s, p.last_constants[k * t:(k + 1) * t], p.mds)
    return s[0]
