"""Native twins of the gadgets: the same names, computed on plain ints.

Each gadget in :mod:`zkbluff.gadgets` is tested against its twin here.
"""
from __future__ import annotations

import functools
from typing import Callable, Optional, Sequence

from zkbluff.errors import BackendUnavailable
from zkbluff.field import get_kernel, r
from zkbluff.gadgets.poseidon_params import N_ROUNDS_F, params
from zkbluff.gadgets.poseidon_sparse import sparse_params


def bool_and(a: int, b: int) -> int:
    return a & b


def bool_or(a: int, b: int) -> int:
    return a | b


def bool_xor(a: int, b: int) -> int:
    return a ^ b


def bool_not(a: int) -> int:
    return 1 - a


def to_bits(x: int, n: int) -> list[int]:
    """Little-endian bits of ``x``; ValueError if it does not fit in ``n`` bits."""
    if not 0 <= x < (1 << n):
        raise ValueError(f"{x} does not fit in {n} bits")
    return [(x >> i) & 1 for i in range(n)]


def from_bits(bits: Sequence[int]) -> int:
    return sum(b << i for i, b in enumerate(bits)) % r


def is_zero(x: int) -> int:
    return int(x % r == 0)


def is_equal(a: int, b: int) -> int:
    return int((a - b) % r == 0)


def less_than(a: int, b: int, n: int) -> int:
    return int(a < b)


def less_or_equal(a: int, b: int, n: int) -> int:
    return int(a <= b)


def select(cond: int, if_true: int, if_false: int) -> int:
    return if_true if cond else if_false


def mux(index: int, options: Sequence[int]) -> int:
    return options[index]


def popcount(bits: Sequence[int]) -> int:
    return sum(bits)


def mask_is_subset(a: int, b: int) -> bool:
    return a & ~b == 0


def mask_is_disjoint(a: int, b: int) -> bool:
    return a & b == 0


def mask_union(a: int, b: int) -> int:
    return a | b


def mask_difference(a: int, b: int) -> int:
    return a & ~b


def mask_intersection(a: int, b: int) -> int:
    return a & b


_POSEIDON_PACKED: dict[int, Callable[[Sequence[int]], int]] = {}


def _native_poseidon(t: int) -> Optional[Callable[[Sequence[int]], int]]:
    """Poseidon of width ``t`` in the native field kernel, by its sparse rounds
    (:mod:`zkbluff.gadgets.poseidon_sparse`; by the plain rounds in an extension built before
    them), its constants packed once per width and checked against :func:`poseidon_reference`
    on one input at first use; or None where the field kernel is the Python one (or an
    extension without Poseidon)."""
    fn = _POSEIDON_PACKED.get(t)
    if fn is None:
        kernel = get_kernel()
        if not getattr(kernel, "has_poseidon", False):
            return None
        if getattr(kernel, "has_poseidon_sparse", False):
            sp = sparse_params(t)
            ints = sp.packed_ints()
            fn = getattr(kernel, "poseidon_sparse")(kernel.from_ints(ints, len(ints)), sp.r_p)
        else:
            C, M, r_p = params(t)
            constants, mds = kernel.from_ints(C, len(C)), kernel.from_ints([m for row in M for m in row], t * t)
            permute = getattr(kernel, "poseidon")  # (NativeKernel's; has_poseidon said it is there)
            fn = functools.partial(_call_packed, permute, constants, mds, r_p)
        probe = [(r - 1 - 7 * i) for i in range(t - 1)]
        if fn(probe) != poseidon_reference(probe):
            raise BackendUnavailable(f"the native field kernel's Poseidon (width {t}) differs from the reference; "
                                     "rebuild it, or run with ZKBLUFF_FIELD=python")
        _POSEIDON_PACKED[t] = fn
    return fn


def _call_packed(permute: Callable[..., int], constants: bytes, mds: bytes, r_p: int, inputs: Sequence[int]) -> int:
    return permute(inputs, constants, mds, r_p)


def poseidon(inputs: Sequence[int]) -> int:
    """circomlib's Poseidon hash of 1..16 field elements (equals circomlibjs ``poseidon``):
    in the native field kernel when it is built (~100x faster), else :func:`poseidon_reference`."""
    t = len(inputs) + 1
    if not 2 <= t <= 17:
        raise ValueError(f"Poseidon takes 1..16 inputs, got {len(inputs)}")
    for x in inputs:
        if not 0 <= x < r:
            raise ValueError(f"Poseidon input {x} is not a field element below r")
    fast = _POSEIDON_PACKED.get(t) or _native_poseidon(t)
    return fast(inputs) if fast is not None else poseidon_reference(inputs)


def poseidon_reference(inputs: Sequence[int]) -> int:
    """:func:`poseidon` in Python (the reference the C permutation is tested against;
    inputs as :func:`poseidon` checks them)."""
    t = len(inputs) + 1
    C, M, r_p = params(t)
    state = [0, *inputs]
    half = N_ROUNDS_F // 2
    for rnd in range(N_ROUNDS_F + r_p):
        state = [(s + C[rnd * t + i]) % r for i, s in enumerate(state)]
        if rnd < half or rnd >= half + r_p:
            state = [pow(s, 5, r) for s in state]
        else:
            state[0] = pow(state[0], 5, r)
        state = [sum(M[i][j] * state[j] for j in range(t)) % r for i in range(t)]
    return state[0]


def commit(value: int, salt: int) -> int:
    """The salted commitment ``Poseidon(value, salt)``."""
    return poseidon([value, salt])


def mixed_radix_digits(h: int, radices: Sequence[int]) -> list[int]:
    """The little-endian mixed-radix digits of ``h mod N`` (``N = prod(radices)``), as
    :func:`zkbluff.gadgets.order.mixed_radix_digits` proves them. ValueError for the
    ``h >= floor((r - 1) / N) * N`` that the gadget refuses (a fraction below N / r)."""
    n_total = 1
    for m in radices:
        n_total *= m
    q, rem = divmod(h % r, n_total)
    if q >= (r - 1) // n_total:
        raise ValueError(f"h lies in the refused top {r - ((r - 1) // n_total) * n_total} values of the field")
    digits = []
    for m in radices:
        rem, j = divmod(rem, m)
        digits.append(j)
    return digits


def pick_remaining(remaining: int, j: int) -> int:
    """The ``j``-th (0-based) card id, in increasing order, of the set bits of the mask
    ``remaining``; ValueError if fewer than ``j + 1`` remain."""
    if j < 0:
        raise ValueError(f"pick_remaining: j must be >= 0, got {j}")
    seen = 0
    c = 0
    while remaining >> c:
        if remaining >> c & 1:
            if seen == j:
                return c
            seen += 1
        c += 1
    raise ValueError(f"pick_remaining: {seen} cards remain, asked for index {j}")


# ---- permutation arguments (twins of zkbluff.gadgets.permutation)

def grand_product(values: Sequence[int], challenge: int) -> int:
    """``prod_i (challenge - values[i]) mod r``."""
    acc = 1
    for v in values:
        acc = acc * (challenge - v) % r
    return acc


def permutation_challenge(values: Sequence[int], bits: int) -> int:
    """Poseidon of ``values`` packed ``252 // bits`` to a field element, little-endian;
    ValueError if a value does not fit in ``bits`` bits."""
    per = 252 // bits
    packs = []
    for k in range(0, len(values), per):
        acc = 0
        for i, v in enumerate(values[k: k + per]):
            if not 0 <= v < (1 << bits):
                raise ValueError(f"{v} does not fit in {bits} bits")
            acc |= v << (bits * i)
        packs.append(acc)
    return poseidon(packs)


def is_permutation_of_range(values: Sequence[int]) -> bool:
    """Whether ``values`` is a permutation of ``0..len(values)-1``."""
    return sorted(values) == list(range(len(values)))
