"""The BN254 scalar field Fr and radix-2 evaluation domains.

Elements are plain Python ints in ``[0, r)``. Whole vectors go through a *field
kernel* (:func:`get_kernel`), which holds them in its own representation between
operations:

* ``"native"``: the C extension ``zkbluff._fr_native`` (``src/zkbluff/_native/fr.c``);
  a vector is a ``bytes`` of 32-byte little-endian Montgomery-form elements, which is
  also MCL's scalar layout. The default when the extension loads.
* ``"python"``: the reference, always there; a vector is a numpy object array of ints,
  and each butterfly stage of an NTT is one vectorised operation.

``ZKBLUFF_FIELD=python|native`` forces one; asking by name for one that cannot load
raises :class:`BackendUnavailable` (never a silent fallback). Both kernels give equal
results on every input (tests/field/test_field_native.py).
"""
from __future__ import annotations

import functools
import importlib
import operator
import os
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol, Sequence

from zkbluff.errors import BackendUnavailable, MalformedInput

if TYPE_CHECKING:
    import numpy as np
else:
    class _LazyNumpy:
        """numpy, imported on first use (a verifier never needs it: ~80 ms of start-up)."""

        def __getattr__(self, name: str) -> Any:
            import numpy

            globals()["np"] = numpy
            return getattr(numpy, name)

    np = _LazyNumpy()

#: order of the BN254 groups G1, G2 and modulus of the scalar field
r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
#: modulus of the BN254 base field Fq (coordinates of curve points)
p = 21888242871839275222246405745257275088696311157297823662689037894645226208583
#: multiplicative generator of Fr* used for roots of unity and the coset shift
GENERATOR = 5
#: two-adicity: 2^S divides r - 1
S = 28
#: a primitive 2^S-th root of unity, GENERATOR^((r-1)/2^S)
ROOT_OF_UNITY = pow(GENERATOR, (r - 1) >> S, r)


def _is_probable_prime(n: int) -> bool:
    """Miller–Rabin with the first 20 primes as bases (deterministic far beyond 2^64,
    and a typo in a 77-digit constant cannot survive it)."""
    small = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71]
    if n < 2:
        return False
    for q in small:
        if n % q == 0:
            return n == q
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


# The constants are checked by tests/field/test_field.py (r and p prime, the two-adicity,
# the root of unity's order), not at every import: the checks cost ~3 ms of every start-up.


def canonical(x: int, what: str = "field element") -> int:
    """Return ``x`` if it is an int in ``[0, r)``, else raise :class:`MalformedInput`."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise MalformedInput(f"{what}: expected an integer, got {type(x).__name__}")
    if not 0 <= x < r:
        raise MalformedInput(f"{what}: expected 0 <= x < r, got {x}")
    return x


def inv(x: int) -> int:
    """Multiplicative inverse in Fr; raises ZeroDivisionError for 0."""
    x %= r
    if x == 0:
        raise ZeroDivisionError("inverse of 0 in Fr")
    return pow(x, -1, r)


def batch_inv(xs: Sequence[int]) -> list[int]:
    """Inverses of all ``xs`` with one field inversion (Montgomery's trick), through
    the selected field kernel. Raises ZeroDivisionError if any element is 0."""
    k = get_kernel()
    return k.to_ints(k.batch_inv(k.from_ints(xs, len(xs))))


def _batch_inv_reference(xs: Sequence[int]) -> list[int]:
    """The pure-Python :func:`batch_inv` (the reference kernel's)."""
    n = len(xs)
    if n == 0:
        return []
    prefix = [0] * n
    acc = 1
    for i, x in enumerate(xs):
        prefix[i] = acc
        acc = acc * x % r
    acc_inv = inv(acc)
    out = [0] * n
    for i in range(n - 1, -1, -1):
        out[i] = acc_inv * prefix[i] % r
        acc_inv = acc_inv * xs[i] % r
    return out


def root_of_unity(log_size: int) -> int:
    """A primitive 2^log_size-th root of unity (the same one snarkjs's ffjavascript uses)."""
    if not 0 <= log_size <= S:
        raise MalformedInput(f"domain log-size: expected 0..{S}, got {log_size}")
    return pow(ROOT_OF_UNITY, 1 << (S - log_size), r)


def _as_objects(values: Iterable[int], n: int) -> np.ndarray:
    vals = [operator.index(v) % r for v in values]
    if len(vals) > n:
        raise MalformedInput(f"vector length: expected at most {n}, got {len(vals)}")
    a = np.empty(n, dtype=object)
    a[: len(vals)] = vals
    a[len(vals):] = 0
    return a


@lru_cache(maxsize=None)
def _bit_reverse(log_n: int) -> np.ndarray:
    n = 1 << log_n
    idx = np.arange(n, dtype=np.int64)
    rev = np.zeros(n, dtype=np.int64)
    for b in range(log_n):
        rev |= ((idx >> b) & 1) << (log_n - 1 - b)
    return rev


@lru_cache(maxsize=64)
def _stage_twiddles(log_n: int, omega: int) -> tuple[np.ndarray, ...]:
    """For each stage s of a 2^log_n NTT, the powers ``w_s^j`` (j < 2^(s-1)) of
    ``w_s = omega^(n / 2^s)``."""
    n = 1 << log_n
    stages = []
    for s in range(1, log_n + 1):
        m = 1 << (s - 1)
        wm = pow(omega, n >> s, r)
        tw = np.empty(m, dtype=object)
        acc = 1
        for j in range(m):
            tw[j] = acc
            acc = acc * wm % r
        stages.append(tw)
    return tuple(stages)


def _powers(c: int, g: int, n: int) -> np.ndarray:
    pw = np.empty(n, dtype=object)
    acc = c % r
    for i in range(n):
        pw[i] = acc
        acc = acc * g % r
    return pw


def _check_log_n(v: Any, log_n: int, what: str) -> None:
    if not 0 <= log_n <= S or len(v) != 1 << log_n:
        raise MalformedInput(f"{what}: expected 2^log_n elements with 0 <= log_n <= {S}, "
                             f"got {len(v)} elements and log_n {log_n}")


def _same_length(a: Any, b: Any, what: str) -> None:
    if len(a) != len(b):
        raise MalformedInput(f"{what}: vectors of {len(a)} and {len(b)} elements")


class FieldKernel(Protocol):
    """Batch operations on vectors of Fr, each vector in the kernel's own representation
    (``vec`` below). Every method returns a new vector; none changes its arguments."""

    name: str

    def from_ints(self, values: Iterable[int], n: int) -> Any:
        """A vector of ``n`` elements: ``values`` (each reduced mod r), then zeros."""
    def to_ints(self, vec: Any) -> list[int]:
        """The elements as ints in ``[0, r)``."""
    def mont_bytes(self, vec: Any) -> bytes:
        """32 bytes an element: ``x * 2^256 mod r`` in little-endian (MCL's scalar layout)."""
    def ntt(self, vec: Any, log_n: int, omega: int) -> Any:
        """``out[i] = sum_j vec[j] omega^(i j)`` for a vector of ``2^log_n`` elements."""
    def scale_powers(self, vec: Any, c: int, g: int) -> Any:
        """``out[i] = vec[i] * c * g^i``."""
    def add(self, a: Any, b: Any) -> Any: ...
    def sub(self, a: Any, b: Any) -> Any: ...
    def mul(self, a: Any, b: Any) -> Any: ...
    def equal(self, a: Any, b: Any) -> bool:
        """Whether two vectors hold the same elements."""
    def batch_inv(self, vec: Any) -> Any:
        """Element-wise inverses; ZeroDivisionError if any element is 0."""
    def sparse_matvec(self, rows: np.ndarray, cols: np.ndarray, vals: Any, w: Any, n: int) -> Any:
        """``out[rows[k]] += vals[k] * w[cols[k]]``: a sparse matrix (int64 ``rows``,
        ``cols``) times a vector, ``n`` output elements."""
    def h_step(self, a: Any, b: Any, log_n: int, omega: int, shift: int) -> Any:
        """With ``c = a * b`` and A, B, C interpolating a, b, c on the domain of
        ``2^log_n`` points with generator omega: ``A(x)B(x) - C(x)`` at ``x = shift omega^i``."""


class PythonKernel:
    """The reference kernel: numpy object arrays of ints in ``[0, r)``."""

    name = "python"

    def from_ints(self, values: Iterable[int], n: int) -> np.ndarray:
        return _as_objects(values, n)

    def to_ints(self, vec: np.ndarray) -> list[int]:
        return list(vec.tolist())

    def mont_bytes(self, vec: np.ndarray) -> bytes:
        factor = (1 << 256) % r
        return b"".join((x * factor % r).to_bytes(32, "little") for x in vec.tolist())

    def ntt(self, vec: np.ndarray, log_n: int, omega: int) -> np.ndarray:
        """Iterative radix-2 DIT. Reduction is lazy: only the twiddle products are
        reduced mod r inside the loop; sums and differences grow by at most one bit a stage
        (Python ints absorb that) and are reduced once at the end (measured ~30% faster)."""
        _check_log_n(vec, log_n, "ntt")
        n = 1 << log_n
        a = vec[_bit_reverse(log_n)]
        for s, tw in enumerate(_stage_twiddles(log_n, omega % r), start=1):
            blocks = a.reshape(n >> s, 2, 1 << (s - 1))
            even = blocks[:, 0, :]
            odd = blocks[:, 1, :] * tw % r
            a = np.concatenate((even + odd, even - odd), axis=1).reshape(n)
        return a % r

    def scale_powers(self, vec: np.ndarray, c: int, g: int) -> np.ndarray:
        return vec * _powers(c, g, len(vec)) % r

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _same_length(a, b, "add")
        return (a + b) % r

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _same_length(a, b, "sub")
        return (a - b) % r

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _same_length(a, b, "mul")
        return a * b % r

    def equal(self, a: np.ndarray, b: np.ndarray) -> bool:
        return len(a) == len(b) and bool((a == b).all())

    def batch_inv(self, vec: np.ndarray) -> np.ndarray:
        out = np.empty(len(vec), dtype=object)
        out[:] = _batch_inv_reference(vec.tolist())
        return out

    def sparse_matvec(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, w: np.ndarray,
                      n: int) -> np.ndarray:
        if len(rows) != len(vals) or len(cols) != len(vals):
            raise MalformedInput(f"sparse_matvec: {len(vals)} values, {len(rows)} rows, {len(cols)} columns")
        if len(vals) and (rows.min() < 0 or rows.max() >= n or cols.min() < 0 or cols.max() >= len(w)):
            raise MalformedInput(f"sparse_matvec: an entry points outside a {n} x {len(w)} matrix")
        acc = np.zeros(n, dtype=object)
        np.add.at(acc, rows, vals * w[cols])
        return acc % r

    def h_step(self, a: np.ndarray, b: np.ndarray, log_n: int, omega: int, shift: int) -> np.ndarray:
        _check_log_n(a, log_n, "h_step")
        _check_log_n(b, log_n, "h_step")
        c = a * b % r
        n_inv, omega_inv = inv(1 << log_n), inv(omega)
        odd = [self.ntt(self.scale_powers(self.ntt(v, log_n, omega_inv), n_inv, shift), log_n, omega)
               for v in (a, b, c)]
        return (odd[0] * odd[1] - odd[2]) % r


class NativeKernel:
    """The C kernels of ``zkbluff._fr_native``: vectors are ``bytes`` of Montgomery-form
    elements. Its errors are translated to the reference kernel's (MalformedInput)."""

    name = "native"

    def __init__(self, module: Any):
        self._m = module
        #: False for an extension built before it had Poseidon (then the Python one runs)
        self.has_poseidon = hasattr(module, "poseidon")
        #: the sparse-round permutation (zkbluff.gadgets.poseidon_sparse); older builds lack it
        self.has_poseidon_sparse = hasattr(module, "poseidon_sparse")

    def poseidon(self, inputs: Sequence[int], constants: bytes, mds: bytes, partial_rounds: int) -> int:
        """circomlib's Poseidon permutation's first output in C (constants and matrix packed
        by :meth:`from_ints`; see :func:`zkbluff.gadgets.native.poseidon`)."""
        return self._m.poseidon(inputs, constants, mds, partial_rounds)

    def poseidon_sparse(self, packed: bytes, partial_rounds: int, *, portable: bool = False
                        ) -> Callable[[Sequence[int]], int]:
        """Poseidon of one width by its sparse rounds in C: a callable ``inputs -> int`` bound
        to the constants (``SparseParams.packed_ints()`` packed by :meth:`from_ints`), one C call
        a hash; the MULX/ADX product where the CPU has it unless ``portable``."""
        fn = self._m.poseidon_sparse
        if portable:
            return lambda inputs: fn(packed, partial_rounds, inputs, True)
        return functools.partial(fn, packed, partial_rounds)

    def _call(self, fn: str, *args: Any) -> Any:
        try:
            return getattr(self._m, fn)(*args)
        except ValueError as exc:
            raise MalformedInput(str(exc)) from None

    def from_ints(self, values: Iterable[int], n: int) -> bytes:
        if not isinstance(values, (list, tuple)):
            values = list(values)
        return self._call("from_ints", values, n)

    def to_ints(self, vec: bytes) -> list[int]:
        return self._m.to_ints(vec)

    def mont_bytes(self, vec: bytes) -> bytes:
        return bytes(vec)

    def ntt(self, vec: bytes, log_n: int, omega: int) -> bytes:
        return self._call("ntt", vec, log_n, omega)

    def scale_powers(self, vec: bytes, c: int, g: int) -> bytes:
        return self._call("scale_powers", vec, c, g)

    def add(self, a: bytes, b: bytes) -> bytes:
        return self._call("add", a, b)

    def sub(self, a: bytes, b: bytes) -> bytes:
        return self._call("sub", a, b)

    def mul(self, a: bytes, b: bytes) -> bytes:
        return self._call("mul", a, b)

    def equal(self, a: bytes, b: bytes) -> bool:
        return a == b  # elements are reduced, so equal elements have equal bytes

    def batch_inv(self, vec: bytes) -> bytes:
        return self._m.batch_inv(vec)

    def sparse_matvec(self, rows: np.ndarray, cols: np.ndarray, vals: bytes, w: bytes, n: int) -> bytes:
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        cols = np.ascontiguousarray(cols, dtype=np.int64)
        return self._call("sparse_matvec", rows, cols, vals, w, n)

    def h_step(self, a: bytes, b: bytes, log_n: int, omega: int, shift: int) -> bytes:
        return self._call("h_step", a, b, log_n, omega, inv(omega), inv(1 << log_n), shift)


def _native_self_check(m: Any) -> None:
    """The extension's constants and Montgomery layout against this module's: a build
    from a changed or corrupted source must not compute silently wrong proofs."""
    problems = []
    if m.MODULUS != r:
        problems.append(f"modulus {m.MODULUS} != r")
    if m.MONTGOMERY_R != (1 << 256) % r or m.MONTGOMERY_R2 != (1 << 512) % r:
        problems.append("Montgomery constants are not 2^256, 2^512 mod r")
    if (m.MONTGOMERY_INV * r) % (1 << 64) != (1 << 64) - 1:
        problems.append("Montgomery reduction constant is not -r^-1 mod 2^64")
    xs = [0, 1, 2, r - 1, ROOT_OF_UNITY]
    v = m.from_ints(xs, len(xs))
    if v != b"".join(((x << 256) % r).to_bytes(32, "little") for x in xs):
        problems.append("packed vectors are not little-endian Montgomery form")
    if m.to_ints(m.mul(v, v)) != [x * x % r for x in xs]:
        problems.append("multiplication is wrong")
    if problems:
        raise BackendUnavailable("field kernel 'native' fails its self-check: " + "; ".join(problems))


_KERNELS: dict[str, FieldKernel] = {}
KERNEL_NAMES = ("native", "python")


def _load_kernel(name: str) -> FieldKernel:
    if name in _KERNELS:
        return _KERNELS[name]
    if name == "python":
        kernel: FieldKernel = PythonKernel()
    elif name == "native":
        try:
            _fr_native = importlib.import_module("zkbluff._fr_native")
        except ImportError as exc:
            raise BackendUnavailable(
                f"field kernel 'native' cannot be loaded ({exc}); build it with `pip install -e .` "
                "(needs a C compiler and the Python headers)") from exc
        _native_self_check(_fr_native)
        kernel = NativeKernel(_fr_native)
    else:
        raise BackendUnavailable(f"unknown field kernel {name!r}: expected 'python' or 'native'")
    _KERNELS[name] = kernel
    return kernel


def available_kernels() -> list[str]:
    """Names of the field kernels that load here."""
    out = []
    for name in KERNEL_NAMES:
        try:
            _load_kernel(name)
            out.append(name)
        except BackendUnavailable:
            pass
    return out


def get_kernel(name: str | None = None) -> FieldKernel:
    """The field kernel called ``name``; by default ``$ZKBLUFF_FIELD``, else native when
    the extension is built, else python. Asking by name for one that cannot load raises
    :class:`BackendUnavailable`; so does a built extension that fails its self-check."""
    name = name or os.environ.get("ZKBLUFF_FIELD") or None
    if name is not None:
        return _load_kernel(name)
    try:
        return _load_kernel("native")
    except BackendUnavailable as exc:
        if isinstance(exc.__cause__, ImportError):  # not built here: the reference it is
            return _load_kernel("python")
        raise


class EvaluationDomain:
    """The multiplicative subgroup of size ``2^log_size`` of Fr with its NTTs.

    ``ntt(coeffs)`` evaluates a polynomial at ``omega^0..omega^{n-1}``; ``intt``
    interpolates; the coset variants use the points ``shift * omega^i``. The list
    methods take and return ints; the ``*_vec`` methods work on a kernel's vectors.
    """

    def __init__(self, log_size: int):
        if not 0 <= log_size <= S:
            raise MalformedInput(f"domain log-size: expected 0..{S}, got {log_size}")
        self.log_size = log_size
        self.size = 1 << log_size
        self.omega = root_of_unity(log_size)
        self.omega_inv = inv(self.omega)
        self.size_inv = inv(self.size)

    @classmethod
    def for_size(cls, min_size: int) -> "EvaluationDomain":
        """The smallest domain with at least ``min_size`` points."""
        log = max(0, (min_size - 1).bit_length())
        return cls(log)

    def elements(self) -> list[int]:
        out = [1] * self.size
        for i in range(1, self.size):
            out[i] = out[i - 1] * self.omega % r
        return out

    def elements_vec(self, k: FieldKernel) -> Any:
        """``omega^i`` for i < n, as a kernel vector."""
        return k.scale_powers(k.from_ints([1] * self.size, self.size), 1, self.omega)

    # ---- on kernel vectors
    def ntt_vec(self, k: FieldKernel, coeffs: Any) -> Any:
        return k.ntt(coeffs, self.log_size, self.omega)

    def intt_vec(self, k: FieldKernel, evals: Any) -> Any:
        return k.scale_powers(k.ntt(evals, self.log_size, self.omega_inv), self.size_inv, 1)

    def coset_ntt_vec(self, k: FieldKernel, coeffs: Any, shift: int = GENERATOR) -> Any:
        return k.ntt(k.scale_powers(coeffs, 1, shift), self.log_size, self.omega)

    def coset_intt_vec(self, k: FieldKernel, evals: Any, shift: int = GENERATOR) -> Any:
        return k.scale_powers(k.ntt(evals, self.log_size, self.omega_inv), self.size_inv, inv(shift))

    # ---- on lists of ints (through the selected kernel)
    def ntt(self, coeffs: Iterable[int]) -> list[int]:
        """Evaluations at ``omega^i`` of the polynomial with these coefficients."""
        k = get_kernel()
        return k.to_ints(self.ntt_vec(k, k.from_ints(coeffs, self.size)))

    def intt(self, evals: Iterable[int]) -> list[int]:
        """Coefficients of the polynomial with these evaluations at ``omega^i``."""
        k = get_kernel()
        return k.to_ints(self.intt_vec(k, k.from_ints(evals, self.size)))

    def coset_ntt(self, coeffs: Iterable[int], shift: int = GENERATOR) -> list[int]:
        """Evaluations at ``shift * omega^i``."""
        k = get_kernel()
        return k.to_ints(self.coset_ntt_vec(k, k.from_ints(coeffs, self.size), shift))

    def coset_intt(self, evals: Iterable[int], shift: int = GENERATOR) -> list[int]:
        """Coefficients of the polynomial with these evaluations at ``shift * omega^i``."""
        k = get_kernel()
        return k.to_ints(self.coset_intt_vec(k, k.from_ints(evals, self.size), shift))

    def lagrange_at(self, x: int) -> list[int]:
        """``[L_0(x), ..., L_{n-1}(x)]`` for the Lagrange basis of this domain;
        ``L_j(x) = omega^j (x^n - 1) / (n (x - omega^j))``."""
        n = self.size
        x %= r
        zx = (pow(x, n, r) - 1) % r
        if zx == 0:  # x is in the domain: the basis is a unit vector
            return [1 if w == x else 0 for w in self.elements()]
        k = get_kernel()
        pts = self.elements_vec(k)
        dens = k.batch_inv(k.sub(k.from_ints([x] * n, n), pts))
        return k.to_ints(k.scale_powers(k.mul(pts, dens), zx * self.size_inv, 1))

    def vanishing_at(self, x: int) -> int:
        """``Z(x) = x^n - 1``."""
        return (pow(x, self.size, r) - 1) % r
