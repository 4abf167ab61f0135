"""BN254 (alt_bn128, the curve of Ethereum's precompiles and of snarkjs).

Points cross this layer's boundary as *affine tuples of ints*:

* G1: ``(x, y)`` with ``0 <= x, y < p``
* G2: ``((x0, x1), (y0, y1))`` for ``x = x0 + x1*u`` in ``Fq2 = Fq[u]/(u^2 + 1)``
* the point at infinity: ``None``

A :class:`Backend` does the arithmetic; two implement it: ``"pyecc"`` (py_ecc's
``optimized_bn128``, the reference, always there) and ``"mcl"`` (mclbn256, native,
the default when it loads). ``ZKBLUFF_BACKEND=pyecc|mcl`` forces one. Nothing above
this layer imports py_ecc or mclbn256.
"""
from __future__ import annotations

import os
from typing import Any, Optional, Protocol, Sequence, Tuple

from zkbluff.errors import BackendUnavailable, MalformedInput
from zkbluff.field import p

Fq2 = Tuple[int, int]
G1Affine = Optional[Tuple[int, int]]
G2Affine = Optional[Tuple[Fq2, Fq2]]

#: curve equation y^2 = x^3 + B1 over Fq
B1 = 3


def fq2_mul(a: Fq2, b: Fq2) -> Fq2:
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def fq2_add(a: Fq2, b: Fq2) -> Fq2:
    return ((a[0] + b[0]) % p, (a[1] + b[1]) % p)


def fq2_inv(a: Fq2) -> Fq2:
    d = pow((a[0] * a[0] + a[1] * a[1]) % p, -1, p)
    return (a[0] * d % p, -a[1] * d % p)


def fq2_pow(a: Fq2, e: int) -> Fq2:
    out: Fq2 = (1, 0)
    while e:
        if e & 1:
            out = fq2_mul(out, a)
        a = fq2_mul(a, a)
        e >>= 1
    return out


def fq2_sqrt(a: Fq2) -> Optional[Fq2]:
    """A square root in Fq2 (p = 3 mod 4; Adj & Rodriguez-Henriquez, alg. 9), or None."""
    a1 = fq2_pow(a, (p - 3) // 4)
    alpha = fq2_mul(fq2_mul(a1, a1), a)
    a0 = fq2_mul(fq2_pow(alpha, p), alpha)
    if a0 == (p - 1, 0):
        return None
    x0 = fq2_mul(a1, a)
    if alpha == (p - 1, 0):
        x = fq2_mul((0, 1), x0)
    else:
        b = fq2_pow(fq2_add((1, 0), alpha), (p - 1) // 2)
        x = fq2_mul(b, x0)
    return x if fq2_mul(x, x) == (a[0] % p, a[1] % p) else None


#: twist equation y^2 = x^3 + B2 over Fq2, B2 = 3 / (9 + u)
B2: Fq2 = fq2_mul((3, 0), fq2_inv((9, 1)))

G1_GENERATOR: Tuple[int, int] = (1, 2)
G2_GENERATOR: Tuple[Fq2, Fq2] = (
    (
        10857046999023057135944570762232829481370756359578518086990519993285655852781,
        11559732032986387107991004021392285783925812861821192530917403151452391805634,
    ),
    (
        8495653923123431417604973247489272438418190587263600148770280649306958101930,
        4082367875863433681332203403145435568316851327593401208105741076214120093531,
    ),
)


def g1_is_on_curve(P: G1Affine) -> bool:
    if P is None:
        return True
    x, y = P
    return (y * y - x * x * x - B1) % p == 0


def g2_is_on_curve(Q: G2Affine) -> bool:
    if Q is None:
        return True
    x, y = Q
    lhs = fq2_mul(y, y)
    rhs = fq2_add(fq2_mul(fq2_mul(x, x), x), B2)
    return lhs == rhs


# Checked at import: the generators lie on their curves.
assert g1_is_on_curve(G1_GENERATOR), "G1 generator is not on the curve"
assert g2_is_on_curve(G2_GENERATOR), "G2 generator is not on the twist"


class Prepared:
    """A vector of points converted once into a backend's own layout, for repeated MSMs."""

    __slots__ = ("data", "n", "finite")

    def __init__(self, data: Any, n: int | None = None, finite: Any = None):
        self.data = data
        self.n = len(data) if n is None else n
        #: (a backend's own) which points are not the point at infinity, if it keeps that
        self.finite = finite

    def __len__(self) -> int:
        return self.n


def _check_lengths(points: Prepared, scalars: Sequence[int]) -> None:
    if len(points) != len(scalars):
        raise MalformedInput(f"MSM: got {len(points)} points and {len(scalars)} scalars")


def _check_batch(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise MalformedInput(f"batch operation: got {len(a)} and {len(b)} operands")


def _check_pow2(points: Sequence) -> None:
    n = len(points)
    if n == 0 or n & (n - 1):
        raise MalformedInput(f"group FFT: expected a power-of-two number of points, got {n}")


def ifft_twiddles(n: int) -> list[list[int]]:
    """Per radix-2 level (half = 1, 2, 4, ...), the twiddles ``omega_inv^(k n / 2 half)``."""
    from zkbluff.field import r, root_of_unity

    log = n.bit_length() - 1
    omega_inv = pow(root_of_unity(log), -1, r)
    out, half = [], 1
    while half < n:
        w = pow(omega_inv, n // (2 * half), r)
        tw = [1] * half
        for k in range(1, half):
            tw[k] = tw[k - 1] * w % r
        out.append(tw)
        half *= 2
    return out


def ifft_by_batches(batch_mul, batch_add, neg, points: Sequence) -> list:
    """The group inverse DFT with one batched call per operation and level (the
    reference for a backend's native one)."""
    _check_pow2(points)
    from zkbluff.field import r

    n = len(points)
    log = n.bit_length() - 1
    a = [points[int(format(i, f"0{log}b")[::-1], 2)] for i in range(n)] if log else list(points)
    half = 1
    for tw in ifft_twiddles(n):
        us, vs, scal = [], [], []
        for start in range(0, n, 2 * half):
            for k in range(half):
                us.append(start + k)
                vs.append(start + k + half)
                scal.append(tw[k])
        t = batch_mul([a[j] for j in vs], scal)
        u = [a[j] for j in us]
        plus = batch_add(u, t)
        minus = batch_add(u, [neg(x) for x in t])
        for j, P in zip(us, plus):
            a[j] = P
        for j, P in zip(vs, minus):
            a[j] = P
        half *= 2
    return batch_mul(a, [pow(n, -1, r)] * n)


class Backend(Protocol):
    """Group arithmetic on affine tuples; MSMs and pairings are batched.

    ``g1_batch_mul(points, scalars)`` is ``[k_i P_i]`` (each point by its own scalar,
    as a ceremony contribution needs: ``tau^i``, ``alpha tau^i``...), and
    ``g1_scale(points, k)`` is ``[k P_i]`` (one scalar for every point: a phase-2
    contribution), ``g1_batch_add(a, b)`` is ``[a_i + b_i]``; ``g1_ifft(points)`` is the group inverse
    DFT ``out_j = (1/n) sum_i omega^(-ij) P_i`` (the Lagrange basis from the monomial
    one); ``g1_msm_many(groups)`` is one MSM per ``(points, scalars)`` group;
    likewise in G2. The native backend
    runs them in C, a thread per core, without a Python-level object per point.
    """

    name: str

    def g1_add(self, a: G1Affine, b: G1Affine) -> G1Affine: ...
    def g1_neg(self, a: G1Affine) -> G1Affine: ...
    def g1_mul(self, a: G1Affine, k: int) -> G1Affine: ...
    def g1_msm(self, points: Any, scalars: Sequence[int]) -> G1Affine: ...
    def g1_prepare(self, points: Sequence[G1Affine]) -> Any: ...
    def g1_mul_many(self, base: G1Affine, scalars: Sequence[int]) -> list[G1Affine]: ...
    def g2_add(self, a: G2Affine, b: G2Affine) -> G2Affine: ...
    def g2_neg(self, a: G2Affine) -> G2Affine: ...
    def g2_mul(self, a: G2Affine, k: int) -> G2Affine: ...
    def g2_mul_unreduced(self, a: G2Affine, k: int) -> G2Affine: ...
    def g2_msm(self, points: Any, scalars: Sequence[int]) -> G2Affine: ...
    def g2_prepare(self, points: Sequence[G2Affine]) -> Any: ...
    def g2_mul_many(self, base: G2Affine, scalars: Sequence[int]) -> list[G2Affine]: ...
    def g1_batch_mul(self, points: Sequence[G1Affine], scalars: Sequence[int]) -> list[G1Affine]: ...
    def g1_batch_add(self, a: Sequence[G1Affine], b: Sequence[G1Affine]) -> list[G1Affine]: ...
    def g1_scale(self, points: Sequence[G1Affine], k: int) -> list[G1Affine]: ...
    def g1_ifft(self, points: Sequence[G1Affine]) -> list[G1Affine]: ...
    def g1_msm_many(self, groups: Sequence[tuple[Sequence[G1Affine], Sequence[int]]]) -> list[G1Affine]: ...
    def g2_msm_many(self, groups: Sequence[tuple[Sequence[G2Affine], Sequence[int]]]) -> list[G2Affine]: ...
    def g2_batch_mul(self, points: Sequence[G2Affine], scalars: Sequence[int]) -> list[G2Affine]: ...
    def g2_ifft(self, points: Sequence[G2Affine]) -> list[G2Affine]: ...
    def g2_batch_add(self, a: Sequence[G2Affine], b: Sequence[G2Affine]) -> list[G2Affine]: ...
    def g2_in_subgroup(self, a: G2Affine) -> bool: ...
    def g2_first_outside_subgroup(self, points: Sequence[G2Affine]) -> int: ...
    def pairing_product_is_one(self, pairs: Sequence[Tuple[G1Affine, G2Affine]]) -> bool: ...


_BACKENDS: dict[str, Backend] = {}


def _load(name: str) -> Backend:
    if name in _BACKENDS:
        return _BACKENDS[name]
    if name == "pyecc":
        from zkbluff.curve.pyecc_backend import PyEccBackend

        be: Backend = PyEccBackend()
    elif name == "mcl":
        try:
            from zkbluff.curve.mcl_backend import MclBackend

            be = MclBackend()
        except BackendUnavailable:
            raise
        except Exception as exc:  # the native library failed to load
            raise BackendUnavailable(f"backend 'mcl' cannot be loaded: {exc}") from exc
    else:
        raise BackendUnavailable(f"unknown backend {name!r}: expected 'pyecc' or 'mcl'")
    _BACKENDS[name] = be
    return be


def available_backends() -> list[str]:
    """Names of the backends that load on this machine."""
    out = []
    for name in ("mcl", "pyecc"):
        try:
            _load(name)
            out.append(name)
        except BackendUnavailable:
            pass
    return out


def preload_backend() -> None:
    """Start loading the default native backend (MCL) in a daemon thread and return at
    once. MCL's initialisation is ~25 ms of C that releases the GIL, so a command that will
    verify (``zkbluff transcript verify``, ``zkbluff verify``) overlaps it with its Python
    imports on a second core. Nothing is decided here: :func:`get_backend` still chooses,
    and raises if MCL cannot load (a failure in the thread is dropped and met again there).
    Does nothing when ``$ZKBLUFF_BACKEND`` names another backend."""
    if (os.environ.get("ZKBLUFF_BACKEND") or "mcl") != "mcl" or "mcl" in _BACKENDS:
        return
    import threading

    def load() -> None:
        try:
            import zkbluff.curve.mcl_backend  # noqa: F401
        except Exception:  # noqa: BLE001  (get_backend raises it in the caller's thread)
            pass

    threading.Thread(target=load, name="zkbluff-preload-mcl", daemon=True).start()


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name``; by default ``$ZKBLUFF_BACKEND``, else mcl when it
    loads, else pyecc. Asking for one by name that cannot load raises
    :class:`BackendUnavailable` (never a silent fallback)."""
    name = name or os.environ.get("ZKBLUFF_BACKEND") or None
    if name is not None:
        return _load(name)
    try:
        return _load("mcl")
    except BackendUnavailable:
        return _load("pyecc")

