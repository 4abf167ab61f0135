"""Native backend: MCL through mclbn256's ctypes library, set to BN_SNARK1.

mclbn256 initialises MCL for curve id 0 (Fp254BNb), which is *not* alt_bn128; we
re-initialise it with MCL_BN_SNARK1 (curve id 4) and use py_ecc's generators, so
results encode identically to the py_ecc backend (checked in tests).

Whole vectors cross the ctypes boundary at once: points are written straight into
MCL's memory layout (Jacobian, Montgomery form, little-endian 64-bit limbs) from one
``bytes`` join, and MSMs and multi-pairings are single calls (``mulVec``,
``millerLoopVec``).

Large MSMs run in the C extension ``zkbluff._msm_native`` (src/zkbluff/_native/msm.c:
Pippenger with batched affine additions, on MCL's own point layout) when it is built and
passes its self-check against MCL (at the first MSM large enough to use it, so a process
that only verifies never pays for it); else, with a warning, in MCL's ``mulVec``.
``ZKBLUFF_MSM=mcl`` forces MCL's (the reference), ``ZKBLUFF_MSM=native`` makes the
extension's absence or failed self-check an error.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import sys
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from zkbluff.curve import G2_GENERATOR, G1Affine, G2Affine, Prepared, _check_batch, _check_lengths, _check_pow2
from zkbluff.curve.g2_subgroup import (
    BATCH_WEIGHT_BITS, batch_rounds, batch_weights, first_outside, kernel_constants, kernel_digits,
)
from zkbluff.errors import BackendUnavailable, MalformedInput
from zkbluff.field import p, r

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

MCL_BN_SNARK1 = 4
#: mclbn256's MCLBN_COMPILED_TIME_VAR (4-limb Fp and Fr: 4 + 4 * 10)
MCLBN_COMPILED_TIME_VAR = 44
_LIB_EXT = ".dll" if sys.platform == "win32" else ".dylib" if sys.platform == "darwin" else ".so"


def library_cache_dir() -> Optional[Path]:
    """Where MCL's shared libraries are kept once written: ``$ZKBLUFF_CACHE_DIR/mcl/<key>``
    (else ``~/.cache/zkbluff``), the key naming the installed mclbn256 module's path, size
    and modification time (an upgrade gets a new folder). None when mclbn256 is not
    installed."""
    spec = importlib.util.find_spec("mclbn256")
    if spec is None or spec.origin is None:
        return None
    module = Path(spec.origin).with_name("mclbn256.py")
    try:
        st = module.stat()
    except OSError:
        return None
    key = hashlib.sha256(f"{module}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:20]
    root = Path(os.environ.get("ZKBLUFF_CACHE_DIR") or Path.home() / ".cache" / "zkbluff")
    return root / "mcl" / key


def _load_library():
    """MCL's library, loaded without rewriting it.

    mclbn256 carries MCL's two shared libraries as hex inside its module and, on every
    import, decodes them and writes them to a fresh temporary folder before loading them
    (tens of ms and 10 MB written per process). The first load here does exactly that, then
    keeps the two files (same layout: ``libmclbn256`` beside ``lib/libmcl``, which its
    RUNPATH ``$ORIGIN/lib`` finds) in :func:`library_cache_dir`; later processes load
    those files directly. A cache that cannot be read or written falls back to the
    module's own loading."""
    folder = library_cache_dir()
    if folder is not None:
        main, dep = folder / f"libmclbn256{_LIB_EXT}", folder / "lib" / f"libmcl{_LIB_EXT}"
        if main.exists() and dep.exists():
            try:
                ctypes.CDLL(str(dep), mode=ctypes.RTLD_GLOBAL)
                return ctypes.CDLL(str(main))
            except OSError:
                pass  # unreadable or foreign: the module's way below
    from mclbn256 import mclbn256 as mcl_module

    if folder is not None:
        try:
            (folder / "lib").mkdir(parents=True, exist_ok=True, mode=0o700)
            for path, data in ((dep, getattr(mcl_module, "mcl_bs", b"")),
                               (main, getattr(mcl_module, "mclbn256_bs", b""))):
                if data and not path.exists():
                    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                    tmp.write_bytes(data)
                    tmp.replace(path)
        except OSError:
            pass
    return mcl_module.lib


try:
    _lib = _load_library()
except Exception as exc:  # pragma: no cover - depends on the machine
    raise BackendUnavailable(f"backend 'mcl' cannot be loaded: {exc}") from exc

if _lib.mclBn_init(MCL_BN_SNARK1, MCLBN_COMPILED_TIME_VAR) != 0:  # pragma: no cover
    raise BackendUnavailable("backend 'mcl': mclBn_init(MCL_BN_SNARK1) failed")

_FP_BYTES = 32
_RP = (1 << 256) % p  # Montgomery factor of Fq
_RP_INV = pow(_RP, -1, p)
_RR = (1 << 256) % r  # Montgomery factor of Fr
_ONE_MONT = _RP.to_bytes(32, "little")
_ZERO32 = bytes(32)
_G1_SIZE = 3 * _FP_BYTES
_G2_SIZE = 6 * _FP_BYTES
_GT_SIZE = 12 * _FP_BYTES


def _fr_layout_self_check() -> None:
    """MCL keeps Fr in Montgomery form, 4 little-endian 64-bit limbs (``x 2^256 mod r``):
    the layout the scalars here and the field kernel's packed vectors are written in.
    Checked once at load, so a changed MCL cannot silently take wrong scalars."""
    for x in (1, 2, 12345):
        fr = (ctypes.c_uint64 * 4)()
        _lib.mclBnFr_setInt32(fr, x)
        if bytes(fr) != (x * _RR % r).to_bytes(32, "little"):
            raise BackendUnavailable("backend 'mcl': its Fr layout is not 4-limb Montgomery form (x 2^256 mod r)")


_fr_layout_self_check()


def _fp_layout_self_check(lib=None) -> None:
    """MCL keeps Fp in Montgomery form too (``x 2^256 mod p``, 4 little-endian limbs):
    the layout points are written in here and the point kernel of
    ``zkbluff._points_native`` reads. Checked once at load, like Fr's (``lib``: another
    library to check, for the test of the check)."""
    for x in (1, 2, 12345):
        fp = (ctypes.c_uint64 * 4)()
        (lib or _lib).mclBnFp_setInt32(fp, x)
        if bytes(fp) != (x * _RP % p).to_bytes(32, "little"):
            raise BackendUnavailable("backend 'mcl': its Fp layout is not 4-limb Montgomery form (x 2^256 mod p)")


_fp_layout_self_check()

G1Struct = ctypes.c_uint64 * 12
G2Struct = ctypes.c_uint64 * 24
GTStruct = ctypes.c_uint64 * 48


def _fp(x: int) -> bytes:
    return (x * _RP % p).to_bytes(32, "little")


def _g1_bytes(P: G1Affine) -> bytes:
    if P is None:
        return bytes(_G1_SIZE)
    return _fp(P[0]) + _fp(P[1]) + _ONE_MONT


def _g2_bytes(Q: G2Affine) -> bytes:
    if Q is None:
        return bytes(_G2_SIZE)
    (x0, x1), (y0, y1) = Q
    return _fp(x0) + _fp(x1) + _fp(y0) + _fp(y1) + _ONE_MONT + _ZERO32


def _fr_blob(scalars: Sequence[int]) -> bytes:
    return b"".join((k * _RR % r).to_bytes(32, "little") for k in scalars)


def _read_fp(raw: bytes, i: int) -> int:
    return int.from_bytes(raw[32 * i: 32 * i + 32], "little") * _RP_INV % p


def _g1_from_struct(s) -> G1Affine:
    _lib.mclBnG1_normalize(s, s)
    if _lib.mclBnG1_isZero(s):
        return None
    raw = bytes(s)
    return (_read_fp(raw, 0), _read_fp(raw, 1))


def _g2_from_struct(s) -> G2Affine:
    _lib.mclBnG2_normalize(s, s)
    if _lib.mclBnG2_isZero(s):
        return None
    raw = bytes(s)
    return ((_read_fp(raw, 0), _read_fp(raw, 1)), (_read_fp(raw, 2), _read_fp(raw, 3)))


def _proto(name: str, n_args: int):
    """A private prototype of ``name`` taking raw addresses (so a loop can pass
    ``base + i * size`` without building a ctypes object per point). ctypes releases
    the GIL during the call, so threads run MCL in parallel."""
    addr = ctypes.cast(getattr(_lib, name), ctypes.c_void_p).value
    return ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * n_args))(addr)


_G1_MUL = _proto("mclBnG1_mul", 3)
_G2_MUL = _proto("mclBnG2_mul", 3)
_G1_ADD = _proto("mclBnG1_add", 3)
_G2_ADD = _proto("mclBnG2_add", 3)
_G2_DBL = _proto("mclBnG2_dbl", 2)
_G1_SUB = _proto("mclBnG1_sub", 3)
_G2_SUB = _proto("mclBnG2_sub", 3)
_G1_NORM = _proto("mclBnG1_normalize", 2)
_G2_NORM = _proto("mclBnG2_normalize", 2)
_G1_MULVEC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(
    ctypes.cast(_lib.mclBnG1_mulVec, ctypes.c_void_p).value)
_G2_MULVEC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(
    ctypes.cast(_lib.mclBnG2_mulVec, ctypes.c_void_p).value)
#: the C MSM (zkbluff._msm_native) from this many live terms (a nonzero scalar and a
#: finite point) on; MCL's mulVec below. Measured (CPU ms, ours vs MCL, random scalars,
#: this project's 2-core machine, best of 5+): 2^7 2.2 vs 1.3, 2^8 2.9 vs 2.3, 2^9 3.6 vs
#: 4.2, 2^10 5.1 vs 7.0, 2^12 14.5 vs 23.4, 2^14 48.8 vs 79.4, 2^16 180 vs 273.
NATIVE_MSM_MIN = 1 << 9
#: the same for G2: 2^8 6.2 vs 4.8, 2^9 8.5 vs 8.3, 2^10 13.3 vs 15.3, 2^12 43.7 vs 50.7,
#: 2^14 141 vs 196, 2^16 505 vs 768.
NATIVE_G2_MSM_MIN = 1 << 10
MSM_ENGINES = ("native", "mcl")


def _fp_layout_ok() -> bool:
    """MCL keeps Fp in Montgomery form (``x 2^256 mod p``, 4 little-endian limbs), the
    layout the C MSM reads and writes."""
    for x in (1, 2, 12345):
        fp = (ctypes.c_uint64 * 4)()
        _lib.mclBnFp_setInt32(fp, x)
        if bytes(fp) != (x * _RP % p).to_bytes(32, "little"):
            return False
    return True


def _msm_self_check(native) -> list[str]:
    """The C MSMs against MCL's mulVec on a few points and scalars that take their edge
    paths (a point twice, a point and its negative, the point at infinity, scalars 0, 1
    and r - 1, windows of 2 and 3 bits) with both of their multiplications, in G1 and
    G2. Returns what failed (empty: passed)."""
    problems = [] if _fp_layout_ok() else ["MCL's Fp layout is not 4-limb Montgomery form (x 2^256 mod p)"]
    if native.FP_MODULUS != p:
        problems.append("the extension's base field modulus is not p")
    if problems:
        return problems
    # the points as multiples of the generator: 2G twice and -2G with one scalar meet in
    # one bucket (a doubling or P + (-P)); point 3 is left at infinity; point 5 has scalar 0
    coeffs = [1, 2, 2, 0, r - 2, 9, 4]
    ks = [3, 5, 5, 1, 5, 0, r - 1]
    frs = (ctypes.c_uint64 * 28).from_buffer_copy(_fr_blob(ks))
    for name, gen, size, struct_t, mul, norm, mulvec, from_struct, ours in (
            ("G1", _G1_GEN_BYTES, _G1_SIZE, G1Struct, _G1_MUL, _G1_NORM, _G1_MULVEC, _g1_from_struct,
             native.g1_msm),
            ("G2", _G2_GEN_BYTES, _G2_SIZE, G2Struct, _G2_MUL, _G2_NORM, _G2_MULVEC, _g2_from_struct,
             native.g2_msm)):
        base = (struct_t * 7).from_buffer_copy(gen * 7)
        src = (struct_t * 7)()
        for i, c in enumerate(coeffs):
            if c:
                at = ctypes.addressof(src) + i * size
                mul(at, ctypes.addressof(base) + i * size, ctypes.addressof(_fr_struct(c)))
                norm(at, at)
        want = struct_t()
        mulvec(ctypes.addressof(want), ctypes.addressof(src), ctypes.addressof(frs), 7)
        expect = from_struct(want)
        for window in (0, 2, 3):
            for portable in (False, True):
                if from_struct(struct_t.from_buffer_copy(ours(src, frs, 7, window, portable))) != expect:
                    problems.append(f"{name} MSM (window {window or 'auto'}, {'portable' if portable else 'default'} "
                                    "multiplication) differs from MCL's mulVec")
    return problems


def _load_native_msm():
    """The C MSM module if it loads and passes its self-check, else None, with a warning
    (``ZKBLUFF_MSM=native``: an error; ``ZKBLUFF_MSM=mcl``: None, quietly)."""
    want = os.environ.get("ZKBLUFF_MSM") or None
    if want not in (None, *MSM_ENGINES):
        raise BackendUnavailable(f"ZKBLUFF_MSM={want!r}: expected one of {', '.join(MSM_ENGINES)}")
    if want == "mcl":
        return None
    try:
        native = importlib.import_module("zkbluff._msm_native")
    except ImportError as exc:
        message = (f"the native MSM cannot be loaded ({exc}): large MSMs run in MCL's mulVec (G1 ~1.4x slower); "
                   "build it with `pip install -e .` (needs a C compiler and the Python headers)")
        if want == "native":
            raise BackendUnavailable(message) from exc
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return None
    problems = _msm_self_check(native)
    if problems:
        message = "the native MSM fails its self-check against MCL: " + "; ".join(problems)
        if want == "native":
            raise BackendUnavailable(message)
        warnings.warn(message + "; MSMs run in MCL's mulVec", RuntimeWarning, stacklevel=2)
        return None
    return native


_THREADS = max(1, min(8, os.cpu_count() or 1))
_POOL: "ThreadPoolExecutor | None" = None
_POOL_PID = 0  # a forked child gets a pool of its own (the parent's threads are not in it)
_MIN_PER_THREAD = 64


def _run_chunks(n: int, work: Callable[[int, int], None], min_per_thread: int = 0) -> None:
    """``work(lo, hi)`` over [0, n) in one chunk per core (inline when fewer than
    ``min_per_thread`` items a core, by default _MIN_PER_THREAD)."""
    global _POOL, _POOL_PID
    k = min(_THREADS, max(1, n // (min_per_thread or _MIN_PER_THREAD)))
    if k == 1:
        work(0, n)
        return
    if _POOL is None or _POOL_PID != os.getpid():
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=_THREADS, thread_name_prefix="zkbluff-mcl")
        _POOL_PID = os.getpid()
    step = (n + k - 1) // k
    futures = [_POOL.submit(work, lo, min(n, lo + step)) for lo in range(0, n, step)]
    for f in futures:
        f.result()


def _decode_g1(raw: bytes, n: int) -> list[G1Affine]:
    out: list[G1Affine] = []
    rinv, zero = _RP_INV, _ZERO32
    for i in range(n):
        off = _G1_SIZE * i
        if raw[off + 64: off + 96] == zero:
            out.append(None)
        else:
            out.append((int.from_bytes(raw[off: off + 32], "little") * rinv % p,
                        int.from_bytes(raw[off + 32: off + 64], "little") * rinv % p))
    return out


def _decode_g2(raw: bytes, n: int) -> list[G2Affine]:
    out: list[G2Affine] = []
    rinv = _RP_INV
    zero = bytes(64)
    for i in range(n):
        off = _G2_SIZE * i
        if raw[off + 128: off + 192] == zero:
            out.append(None)
        else:
            c = [int.from_bytes(raw[off + 32 * j: off + 32 * j + 32], "little") * rinv % p for j in range(4)]
            out.append(((c[0], c[1]), (c[2], c[3])))
    return out


def _batch(points, others, scalars, encode, size, struct_t, op, norm, decode):
    """Point i of the result is ``op(points[i], others[i] or scalars[i])``, normalised."""
    n = len(points)
    if n == 0:
        return []
    src = (struct_t * n).from_buffer_copy(b"".join(map(encode, points)))
    if scalars is not None:
        arg = (ctypes.c_uint64 * (4 * n)).from_buffer_copy(_fr_blob(scalars))
        arg_size = 32
    else:
        arg = (struct_t * n).from_buffer_copy(b"".join(map(encode, others)))
        arg_size = size
    dst = (struct_t * n)()
    a_src, a_arg, a_dst = ctypes.addressof(src), ctypes.addressof(arg), ctypes.addressof(dst)

    def work(lo: int, hi: int) -> None:
        for i in range(lo, hi):
            d = a_dst + i * size
            op(d, a_src + i * size, a_arg + i * arg_size)
            norm(d, d)

    _run_chunks(n, work)
    return decode(bytes(dst), n)


def _ifft(points, encode, size, struct_t, mul, add, sub, norm, decode):
    """The group inverse DFT in MCL's memory: bit-reversed copy, radix-2 butterflies
    (a thread per core within a level), then the 1/n scaling; one conversion in and out."""
    from zkbluff.curve import ifft_twiddles

    n = len(points)
    log = n.bit_length() - 1
    rev = [int(format(i, f"0{log}b")[::-1], 2) for i in range(n)] if log else [0]
    buf = (struct_t * n).from_buffer_copy(b"".join(encode(points[j]) for j in rev))
    base = ctypes.addressof(buf)
    memmove = ctypes.memmove
    half = 1
    for tw in ifft_twiddles(n):
        frs = (ctypes.c_uint64 * (4 * half)).from_buffer_copy(_fr_blob(tw))
        a_fr = ctypes.addressof(frs)

        def work(lo: int, hi: int, half: int = half, a_fr: int = a_fr) -> None:
            t = struct_t()
            at = ctypes.addressof(t)
            for b in range(lo, hi):
                g, k = divmod(b, half)
                u = base + (2 * g * half + k) * size
                v = u + half * size
                if k == 0:
                    add(at, u, v)
                    sub(v, u, v)
                    memmove(u, at, size)
                else:
                    mul(at, v, a_fr + 32 * k)
                    sub(v, u, at)
                    add(u, u, at)

        _run_chunks(n // 2, work)
        half *= 2
    from zkbluff.field import r as _r

    n_inv = (ctypes.c_uint64 * 4).from_buffer_copy(_fr_blob([pow(n, -1, _r)]))
    a_inv = ctypes.addressof(n_inv)

    def scale(lo: int, hi: int) -> None:
        for i in range(lo, hi):
            d = base + i * size
            mul(d, d, a_inv)
            norm(d, d)

    _run_chunks(n, scale)
    return decode(bytes(buf), n)


def _native_msm():
    """The C MSM module (loaded and self-checked on the first call), or None."""
    global _NATIVE_MSM
    native = _NATIVE_MSM
    if native is _UNCHECKED:
        with _NATIVE_LOCK:
            if _NATIVE_MSM is _UNCHECKED:
                _NATIVE_MSM = _load_native_msm()
            native = _NATIVE_MSM
    return native


def _g1_mulvec(out: int, points: int, frs: int, n: int) -> None:
    """MCL's ``mclBnG1_mulVec`` signature (addresses of the result, n points in MCL's
    layout, affine or infinity, and n Montgomery Fr scalars): the C MSM from
    :data:`NATIVE_MSM_MIN` terms on, when it loads; MCL's below."""
    native = None if n < NATIVE_MSM_MIN else _native_msm()
    if native is None:
        _G1_MULVEC(out, points, frs, n)
        return
    raw = native.g1_msm((ctypes.c_char * (_G1_SIZE * n)).from_address(points),
                             (ctypes.c_char * (32 * n)).from_address(frs), n)
    ctypes.memmove(out, raw, _G1_SIZE)


def _g2_mulvec(out: int, points: int, frs: int, n: int) -> None:
    """:func:`_g1_mulvec` in G2, from :data:`NATIVE_G2_MSM_MIN` terms on."""
    native = None if n < NATIVE_G2_MSM_MIN else _native_msm()
    if native is None:
        _G2_MULVEC(out, points, frs, n)
        return
    raw = native.g2_msm((ctypes.c_char * (_G2_SIZE * n)).from_address(points),
                             (ctypes.c_char * (32 * n)).from_address(frs), n)
    ctypes.memmove(out, raw, _G2_SIZE)


def _msm_many(groups, encode, size, struct_t, mulvec, norm, decode):
    """One MSM per group: every point and scalar converted in one go, the MSMs run in a
    thread per core (one ``mulVec`` call each)."""
    n_groups = len(groups)
    if n_groups == 0:
        return []
    offsets, pts, ks = [], [], []
    for points, scalars in groups:
        _check_batch(points, scalars)
        offsets.append((len(pts), len(points)))
        pts.extend(points)
        ks.extend(scalars)
    total = max(1, len(pts))
    src = (struct_t * total).from_buffer_copy(b"".join(map(encode, pts)) or bytes(size))
    frs = (ctypes.c_uint64 * (4 * total)).from_buffer_copy(_fr_blob(ks) or bytes(32))
    dst = (struct_t * n_groups)()
    a_src, a_fr, a_dst = ctypes.addressof(src), ctypes.addressof(frs), ctypes.addressof(dst)

    def work(lo: int, hi: int) -> None:
        for g in range(lo, hi):
            off, n = offsets[g]
            d = a_dst + g * size
            if n:
                mulvec(d, a_src + off * size, a_fr + off * 32, n)
                norm(d, d)

    _run_chunks(n_groups, work)
    return decode(bytes(dst), n_groups)




def _g2_subgroup_kernel():
    """``(g2_first_outside_subgroup, constants, digits)`` of the C MSM module, once it has
    agreed with MCL's ``isValidOrder`` on a point of G2 and on one of the twist outside it
    (else None: MCL's check runs)."""
    global _G2_SUBGROUP
    if _G2_SUBGROUP is _UNCHECKED:
        native = _native_msm()
        fn = getattr(native, "g2_first_outside_subgroup", None)
        kernel = None
        if fn is not None:
            kernel = (fn, kernel_constants(_fp), kernel_digits())
            inside = _g2_from_struct(G2Struct.from_buffer_copy(_G2_GEN_BYTES))
            outside = _twist_point_outside_g2()
            raw = b"".join(map(_g2_bytes, [inside, outside]))
            if not (bool(_lib.mclBnG2_isValidOrder(G2Struct.from_buffer_copy(raw[_G2_SIZE:]))) is False
                    and fn(raw, 2, kernel[1], kernel[2]) == 1 and fn(raw, 1, kernel[1], kernel[2]) == 1):
                warnings.warn("zkbluff: the C G2 subgroup check disagrees with MCL's; using MCL's", RuntimeWarning)
                kernel = None
        _G2_SUBGROUP = kernel
    return _G2_SUBGROUP


def _g2_combination_kernel():
    """``g2_combination_in_subgroup`` of the C MSM module (the batched check), once it has
    found a combination of G2 points in G2 and refused one that holds a point outside G2,
    and the per-point kernel is in use; else None (every point is checked on its own)."""
    global _G2_COMBINATION
    if _G2_COMBINATION is _UNCHECKED:
        fn = getattr(_native_msm(), "g2_combination_in_subgroup", None)
        kernel = _g2_subgroup_kernel()
        if fn is None or kernel is None:
            _G2_COMBINATION = None
        else:
            _, consts, digits = kernel
            inside = _g2_from_struct(G2Struct.from_buffer_copy(_G2_GEN_BYTES))
            raw = b"".join(map(_g2_bytes, [inside, _twist_point_outside_g2(), inside]))
            w = (3).to_bytes(8, "little") + (5).to_bytes(8, "little") + (7).to_bytes(8, "little")
            if fn(raw[:_G2_SIZE], 1, w[:8], 16, consts, digits) is True \
                    and fn(raw, 3, w, 16, consts, digits) is False:
                _G2_COMBINATION = fn
            else:
                warnings.warn("zkbluff: the C batched G2 subgroup check fails its self-check; checking each point",
                              RuntimeWarning)
                _G2_COMBINATION = None
    return _G2_COMBINATION


def _twist_point_outside_g2() -> G2Affine:
    """A fixed point of the twist outside G2: the first x = (k, 1) with a square right-hand
    side (the twist's group has order r (2p - r), so such a point is in G2 with chance 1/(2p - r))."""
    from zkbluff.curve import B2, fq2_add, fq2_mul, fq2_sqrt

    for k in range(1, 1000):
        x = (k, 1)
        y = fq2_sqrt(fq2_add(fq2_mul(fq2_mul(x, x), x), B2))
        if y is not None:
            return (x, y)
    raise BackendUnavailable("no twist point found for the G2 subgroup self-check")


def _addr(name: str) -> int:
    return ctypes.cast(getattr(_lib, name), ctypes.c_void_p).value  # type: ignore[return-value]


def _native_kernel():
    """The C extension's fixed-base kernels, or None (then the per-scalar loop runs)."""
    try:
        return importlib.import_module("zkbluff._fr_native")
    except ImportError:
        return None


# per group: (coordinate bytes, Montgomery one of its field, table fns, mul fns)
_FIXED_BASE = {
    "g1": (32, _ONE_MONT, ("mclBnG1_add", "mclBnG1_dbl", "mclBnFp_mul", "mclBnFp_inv"),
           ("mclBnG1_add", "mclBnFp_mul", "mclBnFp_inv", "mclBnFp_mul")),
    "g2": (64, _ONE_MONT + _ZERO32, ("mclBnG2_add", "mclBnG2_dbl", "mclBnFp2_mul", "mclBnFp2_inv"),
           ("mclBnG2_add", "mclBnFp2_mul", "mclBnFp2_inv", "mclBnFp_mul")),
}
_TABLES: dict = {}
#: the per-scalar loop costs ~37 us (G1) / ~55 us (G2) a scalar, the kernel ~11 / ~15 us
#: once its table exists, and a table ~4 / ~8 ms to build: so a kept table from 8
#: scalars on, a new one from 192 (measured on this project's 2-core machine)
FIXED_BASE_MIN_KEPT = 8
FIXED_BASE_MIN_NEW = 192


def _use_fixed_base(group: str, base_bytes: bytes, n: int) -> bool:
    return n >= FIXED_BASE_MIN_NEW or (n >= FIXED_BASE_MIN_KEPT and (group, base_bytes) in _TABLES)


def _fixed_base_many(group: str, base_bytes: bytes, scalars: Sequence[int]) -> Optional[list]:
    """``[k_i B]`` by the C fixed-base kernel (a table of 32 x 255 multiples of B, then at
    most 32 mixed additions a scalar, one batched inversion to affine), a thread per core;
    None when the extension is not built. Tables are kept per base (the generators). The
    additions run eight scalars a vector where the CPU has IFMA
    (``zkbluff._points_native.g1_fixed_base`` / ``g2_fixed_base``)."""
    native = _native_kernel()
    if native is None:
        return None
    fsz, one, table_fns, mul_fns = _FIXED_BASE[group]
    key = (group, base_bytes)
    table = _TABLES.get(key)
    if table is None:
        table = native.fixed_base_table(base_bytes, fsz, one, tuple(_addr(f) for f in table_fns))
        if len(_TABLES) > 8:
            _TABLES.clear()
        _TABLES[key] = table
    fns = tuple(_addr(f) for f in mul_fns)
    ints = scalars if isinstance(scalars, (list, tuple)) else list(scalars)
    n = len(ints)
    blob = native.from_ints(ints, n)
    parts: dict[int, list] = {}
    vector = _points_kernel()  # eight scalars a vector where the CPU can

    def work(lo: int, hi: int) -> None:
        ks = blob[32 * lo: 32 * hi]
        if vector is not None:
            parts[lo] = _fixed_base_vector(vector, native, group, base_bytes, table, ks, ints[lo:hi])
        else:
            parts[lo] = native.affine_points(native.fixed_base_mul(table, ks, fsz, one, fns), fsz)

    _run_chunks(n, work)
    return [P for lo in sorted(parts) for P in parts[lo]]


#: 2^512 mod p: a Montgomery product with it puts a plain coordinate into Montgomery form
_R2_P = ((1 << 512) % p).to_bytes(32, "little")
#: per group: (point mul, field mul, field inv, Fp mul) for the C extension's mul_points
_MUL_FNS = {"g1": ("mclBnG1_mul", "mclBnFp_mul", "mclBnFp_inv", "mclBnFp_mul"),
            "g2": ("mclBnG2_mul", "mclBnFp2_mul", "mclBnFp2_inv", "mclBnFp_mul")}


def _batch_mul_native(group: str, points: Sequence, scalars: Sequence[int]) -> Optional[list]:
    """``[k_i P_i]`` through the C extension: the points converted into MCL's layout in C,
    one MCL multiplication each (a thread per core, the GIL released), the results
    normalised with one field inversion a chunk and converted back in C. None when the
    extension is not built or a coordinate is not a canonical int (the Python path then
    runs)."""
    native = _native_kernel()
    if native is None:
        return None
    fsz, one = _FIXED_BASE[group][0], _FIXED_BASE[group][1]
    try:
        raw = native.encode_points(points if isinstance(points, (list, tuple)) else list(points), fsz, _R2_P, one,
                                   _addr("mclBnFp_mul"))
    except ValueError:
        return None
    n = len(points)
    ks = native.from_ints(scalars if isinstance(scalars, (list, tuple)) else list(scalars), n)
    fns = tuple(_addr(f) for f in _MUL_FNS[group])
    psz = 3 * fsz
    parts: dict[int, list] = {}

    def work(lo: int, hi: int) -> None:
        parts[lo] = native.affine_points(native.mul_points(raw[psz * lo: psz * hi], ks[32 * lo: 32 * hi], fsz, one,
                                                           fns), fsz)

    _run_chunks(n, work)
    return [P for lo in sorted(parts) for P in parts[lo]]


def _points_kernel():
    """The C kernel for many G1 points times one scalar (and for one base times many
    scalars), when it is built and this CPU runs its 8-lane code (its scalar code is
    slower than MCL's own multiplication); checked once against MCL on the first use (a
    wrong result raises, never falls back silently)."""
    global _POINTS_KERNEL
    if _POINTS_KERNEL is None:
        try:
            native = importlib.import_module("zkbluff._points_native")
        except ImportError:
            native = False
        if native and not native.VECTOR:
            native = False
        if native:
            _points_self_check(native)
        _POINTS_KERNEL = native
    return _POINTS_KERNEL or None


_POINTS_KERNEL = None
#: below this many points g1_scale multiplies through MCL (the kernel's recoding and its
#: tables cost more than they save for a few points)
SCALE_MIN = 8
#: phi's cube root of unity in Fp, Montgomery form (the kernel's beta)
_BETA_MONT = b""


def _points_self_check(native) -> None:
    """The kernel's three entry points against MCL on fixed inputs (edge scalars 0, 1,
    r - 1, a top byte): BackendUnavailable on any difference."""
    from zkbluff.curve import G1_GENERATOR
    from zkbluff.curve.glv import BETA

    global _BETA_MONT
    _BETA_MONT = _fp(BETA)
    G = MclBackend()._g1(G1_GENERATOR)
    pts = [G1_GENERATOR]
    for k in (2, 3, 1 << 200):
        out = G1Struct()
        _lib.mclBnG1_mul(out, G, _fr_struct(k))
        pts.append(_g1_from_struct(out))
    for k in (1, 7, r - 1, 0x1234567890ABCDEF << 120):
        out = G1Struct()
        want = []
        for P in pts:
            _lib.mclBnG1_mul(out, MclBackend()._g1(P), _fr_struct(k))
            want.append(_g1_from_struct(out))
        if _scale_native(native, pts, k) != want:
            raise BackendUnavailable("backend 'mcl': the point kernel zkbluff._points_native disagrees with MCL")
    fr = _native_kernel()
    if fr is None:
        return
    from zkbluff.curve import G2_GENERATOR

    be = MclBackend()
    ks = [0, 1, 255, r - 1, 0x1234567890ABCDEF << 120, 5 << 248]
    blob = fr.from_ints(ks, len(ks))
    for group, base, mul in (("g1", _g1_bytes(G1_GENERATOR), lambda k: be.g1_mul(G1_GENERATOR, k)),
                             ("g2", _g2_bytes(G2_GENERATOR), lambda k: be.g2_mul(G2_GENERATOR, k))):
        # its fixed-base code, on the generator's table (kept: setup uses it)
        fsz, one, table_fns, _ = _FIXED_BASE[group]
        table = _TABLES.get((group, base)) or fr.fixed_base_table(base, fsz, one, tuple(_addr(f) for f in table_fns))
        _TABLES[(group, base)] = table
        got = _fixed_base_vector(native, fr, group, base, table, blob, ks)
        if got != [mul(k) for k in ks]:
            raise BackendUnavailable(f"backend 'mcl': the fixed-base code of zkbluff._points_native disagrees with "
                                     f"MCL in {group.upper()}")


def _fixed_base_vector(native, fr, group: str, base: bytes, table: bytes, blob: bytes, scalars) -> list:
    """``[k_i B]`` by the kernel's fixed-base code (eight scalars a vector) for the packed
    scalars ``blob`` (``scalars``: the same as ints, for the rare results it leaves to MCL)."""
    if group == "g1":
        return fr.affine_points(native.g1_fixed_base(table, blob), 32)
    raw, exceptional = native.g2_fixed_base(table, blob)
    out = fr.affine_points(raw, 64)
    for i in exceptional:  # an addition met its own operand: never for canonical scalars
        res = G2Struct()
        _lib.mclBnG2_mul(res, G2Struct.from_buffer_copy(base), _fr_struct(scalars[i]))
        out[i] = _g2_from_struct(res)
    return out


def _scale_native(native, points: Sequence[G1Affine], k: int) -> Optional[list[G1Affine]]:
    """``[k P]`` by the kernel (GLV digits shared by every point), a thread per core; None
    when a point is not a canonical affine point on the curve (the caller's generic path
    then gives what it gives for such input)."""
    from zkbluff.curve.glv import digit_pairs

    fr = _native_kernel()
    if fr is None:
        return None
    pts = points if isinstance(points, (list, tuple)) else list(points)
    try:
        raw = fr.encode_points(pts, 32, _R2_P, _ONE_MONT, _addr("mclBnFp_mul"))
    except ValueError:
        return None
    digits = digit_pairs(k)
    parts: dict[int, list] = {}
    failed: list[bool] = []

    def work(lo: int, hi: int) -> None:
        try:
            parts[lo] = fr.affine_points(native.g1_mul_digits(raw[_G1_SIZE * lo: _G1_SIZE * hi], digits, _BETA_MONT),
                                         32)
        except ValueError:
            failed.append(True)

    _run_chunks(len(pts), work)
    if failed:
        return None
    return [P for lo in sorted(parts) for P in parts[lo]]


def _finite(points: Sequence) -> Optional[list[bool]]:
    """Which points are finite (None when all are: nothing to leave out)."""
    mask = [P is not None for P in points]
    return None if all(mask) else mask


def _msm_packed(points: Prepared, scalars: bytes, limbs: int, mulvec, out) -> None:
    """``out = sum k_i P_i`` over the terms with a nonzero scalar and a finite point (the
    others add nothing), in one mulVec call."""
    n = points.n
    if len(scalars) != 32 * n:
        raise MalformedInput(f"MSM: got {n} points and {len(scalars) / 32:g} scalars")
    if n == 0:
        return
    import numpy as np

    ks = np.frombuffer(scalars, dtype=np.uint64).reshape(n, 4)
    keep = ks.any(axis=1)
    if points.finite is not None:
        if not isinstance(points.finite, np.ndarray):
            points.finite = np.array(points.finite, dtype=bool)
        keep &= points.finite
    m = int(np.count_nonzero(keep))
    if m == n:
        frs = (ctypes.c_uint64 * (4 * n)).from_buffer_copy(scalars)
        mulvec(ctypes.addressof(out), ctypes.addressof(points.data), ctypes.addressof(frs), n)
        return
    if m == 0:
        return  # out stays the point at infinity
    pts = np.ascontiguousarray(np.frombuffer(points.data, dtype=np.uint64, count=limbs * n).reshape(n, limbs)[keep])
    sel = np.ascontiguousarray(ks[keep])
    mulvec(ctypes.addressof(out), pts.ctypes.data, sel.ctypes.data, m)


def _fr_struct(k: int):
    return (ctypes.c_uint64 * 4).from_buffer_copy((k % r * _RR % r).to_bytes(32, "little"))


_G1_GEN_BYTES = _g1_bytes((1, 2))  # py_ecc's (and BN_SNARK1's) G1 generator
_G2_GEN_BYTES = _g2_bytes(G2_GENERATOR)
_UNCHECKED = object()
#: the C MSM module, None (MCL's mulVec), or _UNCHECKED until the first large MSM
_NATIVE_MSM: object = _UNCHECKED
_NATIVE_LOCK = threading.Lock()
_G2_SUBGROUP = _UNCHECKED
#: the batched G2 subgroup check's kernel, None (each point on its own), or _UNCHECKED
_G2_COMBINATION = _UNCHECKED
#: from this many points the G2 subgroup check first tries batch_rounds() combinations
#: (measured: ten combinations cost about as much as ten single checks plus ~1 µs a point)
G2_BATCH_MIN = 64


class MclBackend:
    name = "mcl"

    # ---- G1
    def _g1(self, P: G1Affine):
        return G1Struct.from_buffer_copy(_g1_bytes(P))

    def g1_add(self, a: G1Affine, b: G1Affine) -> G1Affine:
        out = G1Struct()
        _lib.mclBnG1_add(out, self._g1(a), self._g1(b))
        return _g1_from_struct(out)

    def g1_neg(self, a: G1Affine) -> G1Affine:
        return None if a is None else (a[0], (-a[1]) % p)

    def g1_mul(self, a: G1Affine, k: int) -> G1Affine:
        out = G1Struct()
        _lib.mclBnG1_mul(out, self._g1(a), _fr_struct(k))
        return _g1_from_struct(out)

    def g1_prepare(self, points: Sequence[G1Affine]) -> Prepared:
        n = len(points)
        buf = (G1Struct * max(n, 1)).from_buffer_copy(b"".join(map(_g1_bytes, points)) or bytes(_G1_SIZE))
        return Prepared(buf, n, _finite(points))

    def g1_msm_packed(self, points: Prepared, scalars: bytes) -> G1Affine:
        """The MSM with scalars in the field kernel's packed Montgomery bytes (MCL's own Fr
        layout, checked at load): no per-scalar conversion; zero scalars and points at
        infinity are left out before MCL's mulVec."""
        out = G1Struct()
        _msm_packed(points, scalars, 12, _g1_mulvec, out)
        return _g1_from_struct(out)

    def g1_msm(self, points, scalars: Sequence[int]) -> G1Affine:
        pts = points if isinstance(points, Prepared) else self.g1_prepare(points)
        _check_lengths(pts, scalars)
        out = G1Struct()
        if pts.n:
            frs = (ctypes.c_uint64 * (4 * pts.n)).from_buffer_copy(_fr_blob(scalars))
            _g1_mulvec(ctypes.addressof(out), ctypes.addressof(pts.data), ctypes.addressof(frs), pts.n)
        return _g1_from_struct(out)

    def g1_mul_many(self, base: G1Affine, scalars: Sequence[int]) -> list[G1Affine]:
        """``[k_i base]``: by the C fixed-base kernel for many scalars, else one MCL call each."""
        if base is not None and _use_fixed_base("g1", _g1_bytes(base), len(scalars)):
            done = _fixed_base_many("g1", _g1_bytes(base), scalars)
            if done is not None:
                return done
        B = self._g1(base)
        out = G1Struct()
        res = []
        for k in scalars:
            _lib.mclBnG1_mul(out, B, _fr_struct(k))
            res.append(_g1_from_struct(out))
        return res

    def g1_batch_mul(self, points: Sequence[G1Affine], scalars: Sequence[int]) -> list[G1Affine]:
        """``[k_i P_i]``: one MCL call per point, in a thread per core (the GIL is released);
        conversions and normalisation in the C extension when it is built."""
        _check_batch(points, scalars)
        done = _batch_mul_native("g1", points, scalars)
        if done is not None:
            return done
        return _batch(points, None, scalars, _g1_bytes, _G1_SIZE, G1Struct, _G1_MUL, _G1_NORM, _decode_g1)

    def g1_batch_add(self, a: Sequence[G1Affine], b: Sequence[G1Affine]) -> list[G1Affine]:
        _check_batch(a, b)
        return _batch(a, b, None, _g1_bytes, _G1_SIZE, G1Struct, _G1_ADD, _G1_NORM, _decode_g1)

    def g1_scale(self, points: Sequence[G1Affine], k: int) -> list[G1Affine]:
        """``[k P_i]``, one scalar for every point (a ceremony contribution): by the C point
        kernel when this CPU runs it, else :meth:`g1_batch_mul`."""
        if len(points) >= SCALE_MIN:
            native = _points_kernel()
            if native is not None:
                done = _scale_native(native, points, k % r)
                if done is not None:
                    return done
        return self.g1_batch_mul(points, [k] * len(points))

    def g1_msm_many(self, groups) -> list[G1Affine]:
        """``[sum_j k_ij P_ij for each group i]``: many MSMs in one call."""
        return _msm_many(groups, _g1_bytes, _G1_SIZE, G1Struct, _g1_mulvec, _G1_NORM, _decode_g1)

    def g1_ifft(self, points: Sequence[G1Affine]) -> list[G1Affine]:
        _check_pow2(points)
        return _ifft(points, _g1_bytes, _G1_SIZE, G1Struct, _G1_MUL, _G1_ADD, _G1_SUB, _G1_NORM, _decode_g1)

    # ---- G2
    def _g2(self, Q: G2Affine):
        return G2Struct.from_buffer_copy(_g2_bytes(Q))

    def g2_add(self, a: G2Affine, b: G2Affine) -> G2Affine:
        out = G2Struct()
        _lib.mclBnG2_add(out, self._g2(a), self._g2(b))
        return _g2_from_struct(out)

    def g2_neg(self, a: G2Affine) -> G2Affine:
        return None if a is None else (a[0], ((-a[1][0]) % p, (-a[1][1]) % p))

    def g2_mul(self, a: G2Affine, k: int) -> G2Affine:
        out = G2Struct()
        _lib.mclBnG2_mul(out, self._g2(a), _fr_struct(k))
        return _g2_from_struct(out)

    def g2_mul_unreduced(self, a: G2Affine, k: int) -> G2Affine:
        """``k a`` with k not reduced mod r, for a point of the twist outside G2 (clearing
        its cofactor): double and add through MCL's G2 arithmetic, which holds on the whole
        twist (its mul assumes G2: it reduces k and uses the endomorphism)."""
        if k < 0:
            raise ValueError(f"g2_mul_unreduced: expected k >= 0, got {k}")
        if a is None or k == 0:
            return None
        base = self._g2(a)
        acc = G2Struct.from_buffer_copy(base)  # the leading bit
        a_acc, a_base = ctypes.addressof(acc), ctypes.addressof(base)
        for bit in bin(k)[3:]:
            _G2_DBL(a_acc, a_acc)
            if bit == "1":
                _G2_ADD(a_acc, a_acc, a_base)
        return _g2_from_struct(acc)

    def g2_prepare(self, points: Sequence[G2Affine]) -> Prepared:
        n = len(points)
        buf = (G2Struct * max(n, 1)).from_buffer_copy(b"".join(map(_g2_bytes, points)) or bytes(_G2_SIZE))
        return Prepared(buf, n, _finite(points))

    def g2_msm_packed(self, points: Prepared, scalars: bytes) -> G2Affine:
        """:meth:`g1_msm_packed` in G2."""
        out = G2Struct()
        _msm_packed(points, scalars, 24, _g2_mulvec, out)
        return _g2_from_struct(out)

    def g2_msm(self, points, scalars: Sequence[int]) -> G2Affine:
        pts = points if isinstance(points, Prepared) else self.g2_prepare(points)
        _check_lengths(pts, scalars)
        out = G2Struct()
        if pts.n:
            frs = (ctypes.c_uint64 * (4 * pts.n)).from_buffer_copy(_fr_blob(scalars))
            _g2_mulvec(ctypes.addressof(out), ctypes.addressof(pts.data), ctypes.addressof(frs), pts.n)
        return _g2_from_struct(out)

    def g2_mul_many(self, base: G2Affine, scalars: Sequence[int]) -> list[G2Affine]:
        """``[k_i base]``: by the C fixed-base kernel for many scalars, else one MCL call each."""
        if base is not None and _use_fixed_base("g2", _g2_bytes(base), len(scalars)):
            done = _fixed_base_many("g2", _g2_bytes(base), scalars)
            if done is not None:
                return done
        B = self._g2(base)
        out = G2Struct()
        res = []
        for k in scalars:
            _lib.mclBnG2_mul(out, B, _fr_struct(k))
            res.append(_g2_from_struct(out))
        return res

    def g2_batch_mul(self, points: Sequence[G2Affine], scalars: Sequence[int]) -> list[G2Affine]:
        """:meth:`g1_batch_mul` in G2."""
        _check_batch(points, scalars)
        done = _batch_mul_native("g2", points, scalars)
        if done is not None:
            return done
        return _batch(points, None, scalars, _g2_bytes, _G2_SIZE, G2Struct, _G2_MUL, _G2_NORM, _decode_g2)

    def g2_batch_add(self, a: Sequence[G2Affine], b: Sequence[G2Affine]) -> list[G2Affine]:
        _check_batch(a, b)
        return _batch(a, b, None, _g2_bytes, _G2_SIZE, G2Struct, _G2_ADD, _G2_NORM, _decode_g2)

    def g2_msm_many(self, groups) -> list[G2Affine]:
        return _msm_many(groups, _g2_bytes, _G2_SIZE, G2Struct, _g2_mulvec, _G2_NORM, _decode_g2)

    def g2_ifft(self, points: Sequence[G2Affine]) -> list[G2Affine]:
        _check_pow2(points)
        return _ifft(points, _g2_bytes, _G2_SIZE, G2Struct, _G2_MUL, _G2_ADD, _G2_SUB, _G2_NORM, _decode_g2)

    def g2_in_subgroup(self, a: G2Affine) -> bool:
        if a is None:
            return True
        return self.g2_first_outside_subgroup([a]) == 1

    def g2_first_outside_subgroup(self, points: Sequence[G2Affine]) -> int:
        """The index of the first point not in G2, or ``len(points)``: the psi criterion
        in the C kernel (:mod:`zkbluff.curve.g2_subgroup`), all points in one call; MCL's
        ``isValidOrder`` (a multiplication by r) where the kernel is absent. From
        ``G2_BATCH_MIN`` points, first ``batch_rounds()`` random combinations of them, each
        checked once (:func:`zkbluff.curve.g2_subgroup.batch_rounds`: a set with a point
        outside G2 passes them all with probability at most 2^-128): all in G2, the answer
        is ``len(points)``; else the points are checked one by one, to name the first."""
        kernel = _g2_subgroup_kernel()
        n = len(points)
        if kernel is None or n == 0:
            return first_outside(points, lambda Q: bool(_lib.mclBnG2_isValidOrder(self._g2(Q))))
        fn, consts, digits = kernel
        raw = b"".join(map(_g2_bytes, points))
        combine = _g2_combination_kernel() if n >= G2_BATCH_MIN else None
        if combine is not None:
            rounds = batch_rounds()
            passed = [True] * rounds

            def check(lo: int, hi: int) -> None:  # (releases the GIL: rounds side by side)
                for i in range(lo, hi):
                    passed[i] = combine(raw, n, batch_weights(n), BATCH_WEIGHT_BITS, consts, digits)

            _run_chunks(rounds, check, min_per_thread=1)
            if all(passed):
                return n
        firsts = [n]

        def work(lo: int, hi: int) -> None:  # (the kernel releases the GIL: a chunk per core)
            i = fn(raw[lo * _G2_SIZE: hi * _G2_SIZE], hi - lo, consts, digits)
            if i < hi - lo:
                firsts.append(lo + i)

        _run_chunks(n, work)
        return min(firsts)

    # ---- pairing
    def pairing_product_is_one(self, pairs) -> bool:
        live = [(P, Q) for P, Q in pairs if P is not None and Q is not None]
        if not live:
            return True
        n = len(live)
        g1s = (G1Struct * n).from_buffer_copy(b"".join(_g1_bytes(P) for P, _ in live))
        g2s = (G2Struct * n).from_buffer_copy(b"".join(_g2_bytes(Q) for _, Q in live))
        gt = GTStruct()
        _lib.mclBn_millerLoopVec(gt, g1s, g2s, ctypes.c_size_t(n))
        _lib.mclBn_finalExp(gt, gt)
        return bool(_lib.mclBnGT_isOne(gt))
