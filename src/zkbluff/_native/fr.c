/*
 * zkbluff._fr_native: the hot kernels of the BN254 scalar field Fr.
 *
 * A vector of Fr elements is a packed buffer of 32-byte elements, each four
 * little-endian 64-bit limbs holding x * 2^256 mod r (Montgomery form). That is
 * exactly MCL's mclBnFr layout, so a vector can go to MCL's mulVec as it is.
 *
 * Every kernel takes bytes-like vectors, returns a new `bytes` vector, and does
 * its arithmetic with the GIL released. The pure-Python code in zkbluff/field.py
 * is the reference: the two are tested equal on every kernel.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mont_adx.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zkbluff._fr_native assumes a little-endian machine (limbs are stored as they lie in memory)"
#endif

typedef uint64_t u64;
typedef unsigned __int128 u128;

/* One field element: 4 limbs, least significant first. */
typedef struct { u64 v[4]; } fe;

/* r, the BN254 group order (checked against zkbluff.field.r at import). */
static const fe R_MOD = {{0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                          0xb85045b68181585dULL, 0x30644e72e131a029ULL}};
/* -r^-1 mod 2^64, for Montgomery reduction. */
static const u64 R_INV_NEG = 0xc2e1f593efffffffULL;
/* 2^512 mod r: multiplying by it (Montgomery) converts into Montgomery form. */
static const fe R_SQUARED = {{0x1bb8e645ae216da7ULL, 0x53fe3ab1e35c59e3ULL,
                              0x8c49833d53bb8085ULL, 0x0216d0b17f4e44a5ULL}};
/* 2^256 mod r: the Montgomery form of 1. */
static const fe R_ONE = {{0xac96341c4ffffffbULL, 0x36fc76959f60cd29ULL,
                          0x666ea36f7879462eULL, 0x0e0a77c19a07df2fULL}};
static const fe FE_ZERO = {{0, 0, 0, 0}};

/* ------------------------------------------------------------------ arithmetic */

/* a >= r ? (on 4 limbs) */
static inline int geq_mod(const u64 a[4]) {
    for (int i = 3; i >= 0; i--) {
        if (a[i] != R_MOD.v[i]) return a[i] > R_MOD.v[i];
    }
    return 1;
}

/* a -= r (the caller knows a >= r) */
static inline void sub_mod_once(u64 a[4]) {
    u64 borrow = 0;
    for (int i = 0; i < 4; i++) {
        u128 d = (u128)a[i] - R_MOD.v[i] - borrow;
        a[i] = (u64)d;
        borrow = (u64)(d >> 64) & 1;
    }
}

/* out = a + b mod r (a, b < r < 2^254, so a + b fits in 256 bits). Branch-free: the
 * NTT's butterflies take either side of a data-dependent branch half the time. */
static inline void fe_add(fe *out, const fe *a, const fe *b) {
    u64 s[4], t[4], carry = 0, borrow = 0;
    for (int i = 0; i < 4; i++) {
        u128 x = (u128)a->v[i] + b->v[i] + carry;
        s[i] = (u64)x;
        carry = (u64)(x >> 64);
    }
    for (int i = 0; i < 4; i++) {
        u128 d = (u128)s[i] - R_MOD.v[i] - borrow;
        t[i] = (u64)d;
        borrow = (u64)(d >> 64) & 1;
    }
    /* s < r exactly when s - r borrowed: keep s then, else s - r */
    const u64 keep = (u64)0 - borrow;
    for (int i = 0; i < 4; i++) out->v[i] = (s[i] & keep) | (t[i] & ~keep);
}

/* out = a - b mod r (branch-free, as fe_add) */
static inline void fe_sub(fe *out, const fe *a, const fe *b) {
    u64 d[4], borrow = 0, carry = 0;
    for (int i = 0; i < 4; i++) {
        u128 x = (u128)a->v[i] - b->v[i] - borrow;
        d[i] = (u64)x;
        borrow = (u64)(x >> 64) & 1;
    }
    /* went below zero: add r back (r masked to 0 otherwise) */
    const u64 mask = (u64)0 - borrow;
    for (int i = 0; i < 4; i++) {
        u128 x = (u128)d[i] + (R_MOD.v[i] & mask) + carry;
        out->v[i] = (u64)x;
        carry = (u64)(x >> 64);
    }
}

/* out = a * b * 2^-256 mod r: Montgomery multiplication (CIOS, coarsely integrated
 * operand scanning, in the "no carry" form: r's top limb is below 2^62, so the
 * running total t never needs a fifth limb). For a, b in Montgomery form this is
 * their product in Montgomery form. out may alias a or b. */
static inline void fe_mul(fe *out, const fe *a, const fe *b) {
    u64 t[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        u64 bi = b->v[i];
        /* t + a * b[i], limb 0, and m chosen so that adding m r clears limb 0 */
        u128 s = (u128)a->v[0] * bi + t[0];
        u64 ca = (u64)(s >> 64);
        u64 lo = (u64)s;
        u64 m = lo * R_INV_NEG;
        u128 q = (u128)m * R_MOD.v[0] + lo;
        u64 cm = (u64)(q >> 64);
        /* limbs 1..3: (t + a b[i] + m r) / 2^64 */
        for (int j = 1; j < 4; j++) {
            s = (u128)a->v[j] * bi + t[j] + ca;
            ca = (u64)(s >> 64);
            q = (u128)m * R_MOD.v[j] + (u64)s + cm;
            cm = (u64)(q >> 64);
            t[j - 1] = (u64)q;
        }
        t[3] = ca + cm;
    }
    /* t < 2r: one conditional subtraction */
    if (geq_mod(t)) sub_mod_once(t);
    memcpy(out->v, t, 32);
}

/* fe_mul in MULX/ADX assembly (x86-64 with BMI2 and ADX, checked at import into
 * cpu_has_adx): mont_adx.h's product, the one bn254_fp.h uses for p, here with r (the
 * same CIOS steps, r's top limb below 2^62 as p's), then fe_mul's final subtraction. The
 * Poseidon kernel, the NTTs, the h step, the element-wise products and the sparse matrix
 * product use it (about a third of the portable product's instructions); each takes the
 * portable one where the CPU lacks BMI2/ADX, and the NTT and h step on request
 * (portable=True, for the tests that compare the two). */
static int cpu_has_adx = 0;
#if ZKBLUFF_HAVE_MONT_ADX
#define FR_HAVE_ADX_ASM 1
static inline __attribute__((always_inline)) void fe_mul_adx(fe *out, const fe *fa, const fe *fb) {
    u64 t[4];
    mont_mul_adx_unreduced(t, fa->v, fb->v, R_MOD.v, &R_INV_NEG);
    if (geq_mod(t)) sub_mod_once(t);
    memcpy(out->v, t, 32);
}
#else
#define FR_HAVE_ADX_ASM 0
#define fe_mul_adx fe_mul
#endif

/* the product a vector kernel's loop uses (the branch is the same every time) */
static inline __attribute__((always_inline)) void fe_mul_fast(fe *out, const fe *a, const fe *b) {
    if (cpu_has_adx) fe_mul_adx(out, a, b); else fe_mul(out, a, b);
}

/* out = a^e (Montgomery form in and out), e given as 4 plain limbs */
static void fe_pow(fe *out, const fe *a, const u64 e[4]) {
    fe acc = R_ONE, base = *a;
    for (int i = 0; i < 4; i++) {
        u64 w = e[i];
        for (int k = 0; k < 64; k++) {
            if (w & 1) fe_mul(&acc, &acc, &base);
            fe_mul(&base, &base, &base);
            w >>= 1;
        }
    }
    *out = acc;
}

/* out = a^-1 = a^(r-2) (Fermat); the caller has checked a != 0 */
static void fe_inv(fe *out, const fe *a) {
    u64 e[4];
    memcpy(e, R_MOD.v, 32);
    e[0] -= 2;  /* r's low limb ends in ...01, no borrow */
    fe_pow(out, a, e);
}

static inline int fe_is_zero(const fe *a) {
    return (a->v[0] | a->v[1] | a->v[2] | a->v[3]) == 0;
}

/* ------------------------------------------------------------------ vector kernels
 * These run without the GIL: plain C on arrays of fe. */

/* a[i] *= c * g^i for i < n */
static void scale_powers(fe *a, size_t n, const fe *c, const fe *g) {
    fe acc = *c;
    for (size_t i = 0; i < n; i++) {
        fe_mul_fast(&a[i], &a[i], &acc);
        fe_mul_fast(&acc, &acc, g);
    }
}

/* The twiddle factors of every NTT stage for omega of order n = 2^log_n, in one
 * array of n elements: the stage whose butterflies span m = 1, 2, 4, ..., n/2 uses
 * tw[m + j] = w_m^j (j < m) with w_m = omega^(n / 2m). Only the top stage costs
 * multiplications; each lower one takes every other factor of the stage above
 * (w_m = w_2m^2). Returns NULL if out of memory. */
static fe *twiddles(int log_n, const fe *omega) {
    size_t n = (size_t)1 << log_n;
    fe *tw = (fe *)malloc((n < 2 ? 2 : n) * sizeof(fe));
    if (!tw || n < 2) return tw;
    size_t half = n >> 1;
    tw[half] = R_ONE;
    for (size_t j = 1; j < half; j++) fe_mul(&tw[half + j], &tw[half + j - 1], omega);
    for (size_t m = half >> 1; m >= 1; m >>= 1)
        for (size_t j = 0; j < m; j++) tw[m + j] = tw[2 * m + 2 * j];
    return tw;
}

/* The butterflies, once per product (S: c portable, adx MULX/ADX), on tw = twiddles(log_n,
 * omega), n = 2^log_n:
 *   ntt_dit_S: decimation in time, input in bit-reversed order, output in natural order:
 *              stages m = 1, 2, ..., n/2 of (lo, hi) -> (lo + w hi, lo - w hi);
 *   ntt_dif_S: decimation in frequency, input in natural order, output bit-reversed:
 *              stages m = n/2, ..., 1 of (lo, hi) -> (lo + hi, (lo - hi) w).
 * Either computes a'[i] = sum_j a[j] omega^(i j), in its own order. The h step runs the
 * inverse transforms as DIF and the forward ones as DIT, so no permutation is ever done. */
#define DEFINE_NTT(S, MUL) \
static void ntt_dit_##S(fe *a, int log_n, const fe *tw) { \
    size_t n = (size_t)1 << log_n; \
    for (size_t m = 1; m < n; m <<= 1) { \
        const fe *w = tw + m; \
        for (size_t k = 0; k < n; k += 2 * m) { \
            fe *lo = a + k, *hi = a + k + m; \
            for (size_t j = 0; j < m; j++) { \
                fe t; \
                if (j == 0) t = hi[0]; else MUL(&t, &hi[j], &w[j]); \
                fe_sub(&hi[j], &lo[j], &t); \
                fe_add(&lo[j], &lo[j], &t); \
            } \
        } \
    } \
} \
static void ntt_dif_##S(fe *a, int log_n, const fe *tw) { \
    size_t n = (size_t)1 << log_n; \
    for (size_t m = n >> 1; m >= 1; m >>= 1) { \
        const fe *w = tw + m; \
        for (size_t k = 0; k < n; k += 2 * m) { \
            fe *lo = a + k, *hi = a + k + m; \
            for (size_t j = 0; j < m; j++) { \
                fe t; \
                fe_sub(&t, &lo[j], &hi[j]); \
                fe_add(&lo[j], &lo[j], &hi[j]); \
                if (j == 0) hi[0] = t; else MUL(&hi[j], &t, &w[j]); \
            } \
        } \
    } \
} \
static void scale_by_##S(fe *a, size_t n, const fe *s) { \
    for (size_t i = 0; i < n; i++) MUL(&a[i], &a[i], &s[i]); \
} \
static void pointwise_mul_##S(fe *o, const fe *a, const fe *b, size_t n) { \
    for (size_t i = 0; i < n; i++) MUL(&o[i], &a[i], &b[i]); \
}
DEFINE_NTT(c, fe_mul)
#if FR_HAVE_ADX_ASM
DEFINE_NTT(adx, fe_mul_adx)
#endif

/* a[i] <-> a[rev(i)], rev reversing log_n bits */
static void bit_reverse(fe *a, size_t n) {
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) { fe t = a[i]; a[i] = a[j]; a[j] = t; }
    }
}

/* In place: a becomes its discrete Fourier transform over the powers of omega,
 * a'[i] = sum_j a[j] omega^(i j), for n = 2^log_n and tw = twiddles(log_n, omega):
 * the bit-reversal permutation, then the DIT butterflies. */
static void ntt_inplace(fe *a, int log_n, const fe *tw, int adx) {
    bit_reverse(a, (size_t)1 << log_n);
#if FR_HAVE_ADX_ASM
    if (adx) { ntt_dit_adx(a, log_n, tw); return; }
#endif
    (void)adx;
    ntt_dit_c(a, log_n, tw);
}

/* The h step's arithmetic on A, B (evaluations on the domain; overwritten) into C: with
 * C = A B pointwise, each of the three interpolated (DIF with omega^-1, coefficients in
 * bit-reversed order), coefficient i times n^-1 shift^i (scale, in the same bit-reversed
 * order), evaluated (DIT with omega, natural order); then C = A B - C. */
#define DEFINE_H_CORE(S) \
static void h_core_##S(fe *A, fe *B, fe *C, int log_n, const fe *tw, const fe *tw_inv, const fe *scale) { \
    size_t n = (size_t)1 << log_n; \
    pointwise_mul_##S(C, A, B, n); \
    fe *polys[3] = {A, B, C}; \
    for (int k = 0; k < 3; k++) { \
        ntt_dif_##S(polys[k], log_n, tw_inv); \
        scale_by_##S(polys[k], n, scale); \
        ntt_dit_##S(polys[k], log_n, tw); \
    } \
    for (size_t i = 0; i < n; i++) { \
        fe t; \
        fe_mul_##S##_any(&t, &A[i], &B[i]); \
        fe_sub(&C[i], &t, &C[i]); \
    } \
}
#define fe_mul_c_any fe_mul
#define fe_mul_adx_any fe_mul_adx
DEFINE_H_CORE(c)
#if FR_HAVE_ADX_ASM
DEFINE_H_CORE(adx)
#endif

/* ------------------------------------------------------------------ Python glue */

static PyObject *MODULUS_OBJ;  /* r as a Python int */

/* Store Python int x (any int, reduced mod r like Python's %) in Montgomery form.
 * Returns -1 with an exception set for a non-integer. */
static int fe_from_pyobj(fe *out, PyObject *x) {
    u64 limbs[4];
    int fast = 0;
    if (PyLong_CheckExact(x)) {
#if PY_VERSION_HEX >= 0x030D0000
        Py_ssize_t need = PyLong_AsNativeBytes(x, limbs, 32,
            Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
            Py_ASNATIVEBYTES_REJECT_NEGATIVE);
        if (need < 0) PyErr_Clear();
        else fast = need <= 32;
#else
        if (_PyLong_AsByteArray((PyLongObject *)x, (unsigned char *)limbs, 32, 1, 0) < 0) PyErr_Clear();
        else fast = 1;
#endif
        if (fast && geq_mod(limbs)) fast = 0;
    }
    if (!fast) {  /* rare: negative, >= r, or an int-like object: reduce with Python's % */
        PyObject *idx = PyNumber_Index(x);
        if (!idx) return -1;
        PyObject *red = PyNumber_Remainder(idx, MODULUS_OBJ);
        Py_DECREF(idx);
        if (!red) return -1;
        int rc = fe_from_pyobj(out, red);  /* now in [0, r): takes the fast path */
        Py_DECREF(red);
        return rc;
    }
    fe plain;
    memcpy(plain.v, limbs, 32);
    fe_mul(out, &plain, &R_SQUARED);
    return 0;
}

/* The canonical value of Montgomery-form a as a Python int. */
static PyObject *fe_to_pyobj(const fe *a) {
    fe one = {{1, 0, 0, 0}}, plain;
    fe_mul(&plain, a, &one);
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(plain.v, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)plain.v, 32, 1, 0);
#endif
}

/* A read-only vector argument: its buffer and element count. */
typedef struct { Py_buffer view; size_t n; } vec_arg;

static int vec_get(PyObject *obj, vec_arg *out, const char *what) {
    if (PyObject_GetBuffer(obj, &out->view, PyBUF_SIMPLE) < 0) return -1;
    if (out->view.len % 32) {
        PyErr_Format(PyExc_ValueError, "%s: packed Fr vector length must be a multiple of 32 bytes, got %zd",
                     what, out->view.len);
        PyBuffer_Release(&out->view);
        return -1;
    }
    out->n = (size_t)out->view.len / 32;
    return 0;
}

/* A new bytes object of n elements and a pointer to its (writable, 8-aligned) data. */
static PyObject *vec_new(size_t n, fe **data) {
    if (n > (size_t)PY_SSIZE_T_MAX / 32) {
        PyErr_Format(PyExc_OverflowError, "a vector of %zu elements is too large", n);
        return NULL;
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 32));
    if (b) *data = (fe *)PyBytes_AS_STRING(b);
    return b;
}

/* A new vector holding a copy of obj's elements. */
static PyObject *vec_copy(PyObject *obj, const char *what, fe **data, size_t *n) {
    vec_arg v;
    if (vec_get(obj, &v, what) < 0) return NULL;
    PyObject *out = vec_new(v.n, data);
    if (out) memcpy(*data, v.view.buf, v.n * 32);
    *n = v.n;
    PyBuffer_Release(&v.view);
    return out;
}

static int check_log_n(int log_n, size_t n, const char *what) {
    if (log_n < 0 || log_n > 28 || n != ((size_t)1 << log_n)) {
        PyErr_Format(PyExc_ValueError, "%s: expected 2^log_n elements with 0 <= log_n <= 28, got %zu elements and log_n %d",
                     what, n, log_n);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(from_ints_doc, "from_ints(values, n) -> bytes\n\n"
    "Pack the integers (each reduced mod r) in Montgomery form, padded with zeros to n elements.");
static PyObject *py_from_ints(PyObject *self, PyObject *args) {
    PyObject *seq;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "On", &seq, &n)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "from_ints: expected a sequence of integers");
    if (!fast) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    if (k > n || n < 0) {
        PyErr_Format(PyExc_ValueError, "vector length: expected at most %zd, got %zd", n, k);
        Py_DECREF(fast);
        return NULL;
    }
    fe *data;
    PyObject *out = vec_new((size_t)n, &data);
    if (!out) { Py_DECREF(fast); return NULL; }
    for (Py_ssize_t i = 0; i < k; i++) {
        /* an int-like's __index__ may run Python code that resizes the list: re-check */
        if (i >= PySequence_Fast_GET_SIZE(fast)) {
            PyErr_SetString(PyExc_RuntimeError, "from_ints: the sequence changed size during conversion");
            Py_DECREF(fast); Py_DECREF(out); return NULL;
        }
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        Py_INCREF(item);
        int rc = fe_from_pyobj(&data[i], item);
        Py_DECREF(item);
        if (rc < 0) { Py_DECREF(fast); Py_DECREF(out); return NULL; }
    }
    for (Py_ssize_t i = k; i < n; i++) data[i] = FE_ZERO;
    Py_DECREF(fast);
    return out;
}

PyDoc_STRVAR(to_ints_doc, "to_ints(vec) -> list[int]\n\nThe canonical values (in [0, r)) of a packed vector.");
static PyObject *py_to_ints(PyObject *self, PyObject *arg) {
    vec_arg v;
    if (vec_get(arg, &v, "to_ints") < 0) return NULL;
    PyObject *list = PyList_New((Py_ssize_t)v.n);
    if (list) {
        for (size_t i = 0; i < v.n; i++) {
            fe a;
            memcpy(&a, (const char *)v.view.buf + 32 * i, 32);
            PyObject *x = fe_to_pyobj(&a);
            if (!x) { Py_CLEAR(list); break; }
            PyList_SET_ITEM(list, (Py_ssize_t)i, x);
        }
    }
    PyBuffer_Release(&v.view);
    return list;
}

/* Parse a Python int argument into Montgomery form. */
static int fe_arg(PyObject *x, fe *out) { return fe_from_pyobj(out, x) < 0 ? -1 : 0; }

PyDoc_STRVAR(ntt_doc, "ntt(vec, log_n, omega, portable=False) -> bytes\n\n"
    "out[i] = sum_j vec[j] * omega^(i*j) for a vector of 2^log_n elements (omega of order 2^log_n).\n"
    "portable: the C product even where the MULX/ADX one runs (ADX says whether it does).");
static PyObject *py_ntt(PyObject *self, PyObject *args) {
    PyObject *obj, *omega_obj;
    int log_n, portable = 0;
    if (!PyArg_ParseTuple(args, "OiO|p", &obj, &log_n, &omega_obj, &portable)) return NULL;
    fe omega, *data;
    size_t n;
    if (fe_arg(omega_obj, &omega) < 0) return NULL;
    PyObject *out = vec_copy(obj, "ntt", &data, &n);
    if (!out) return NULL;
    if (check_log_n(log_n, n, "ntt") < 0) { Py_DECREF(out); return NULL; }
    fe *tw;
    Py_BEGIN_ALLOW_THREADS
    tw = twiddles(log_n, &omega);
    if (tw) ntt_inplace(data, log_n, tw, cpu_has_adx && !portable);
    Py_END_ALLOW_THREADS
    if (!tw) { Py_DECREF(out); return PyErr_NoMemory(); }
    free(tw);
    return out;
}

PyDoc_STRVAR(scale_powers_doc, "scale_powers(vec, c, g) -> bytes\n\nout[i] = vec[i] * c * g^i.");
static PyObject *py_scale_powers(PyObject *self, PyObject *args) {
    PyObject *obj, *c_obj, *g_obj;
    if (!PyArg_ParseTuple(args, "OOO", &obj, &c_obj, &g_obj)) return NULL;
    fe c, g, *data;
    size_t n;
    if (fe_arg(c_obj, &c) < 0 || fe_arg(g_obj, &g) < 0) return NULL;
    PyObject *out = vec_copy(obj, "scale_powers", &data, &n);
    if (!out) return NULL;
    Py_BEGIN_ALLOW_THREADS
    scale_powers(data, n, &c, &g);
    Py_END_ALLOW_THREADS
    return out;
}

/* Element-wise binary operations: 0 add, 1 sub, 2 mul. */
static PyObject *elementwise(PyObject *args, int op, const char *what) {
    PyObject *a_obj, *b_obj;
    if (!PyArg_ParseTuple(args, "OO", &a_obj, &b_obj)) return NULL;
    vec_arg a, b;
    if (vec_get(a_obj, &a, what) < 0) return NULL;
    if (vec_get(b_obj, &b, what) < 0) { PyBuffer_Release(&a.view); return NULL; }
    PyObject *out = NULL;
    fe *data;
    if (a.n != b.n) {
        PyErr_Format(PyExc_ValueError, "%s: vectors of %zu and %zu elements", what, a.n, b.n);
    } else if ((out = vec_new(a.n, &data)) != NULL) {
        const char *pa = a.view.buf, *pb = b.view.buf;
        Py_BEGIN_ALLOW_THREADS
        for (size_t i = 0; i < a.n; i++) {
            fe x, y;
            memcpy(&x, pa + 32 * i, 32);
            memcpy(&y, pb + 32 * i, 32);
            if (op == 0) fe_add(&data[i], &x, &y);
            else if (op == 1) fe_sub(&data[i], &x, &y);
            else fe_mul_fast(&data[i], &x, &y);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&a.view);
    PyBuffer_Release(&b.view);
    return out;
}

PyDoc_STRVAR(add_doc, "add(a, b) -> bytes\n\nout[i] = a[i] + b[i] mod r.");
static PyObject *py_add(PyObject *self, PyObject *args) { return elementwise(args, 0, "add"); }
PyDoc_STRVAR(sub_doc, "sub(a, b) -> bytes\n\nout[i] = a[i] - b[i] mod r.");
static PyObject *py_sub(PyObject *self, PyObject *args) { return elementwise(args, 1, "sub"); }
PyDoc_STRVAR(mul_doc, "mul(a, b) -> bytes\n\nout[i] = a[i] * b[i] mod r.");
static PyObject *py_mul(PyObject *self, PyObject *args) { return elementwise(args, 2, "mul"); }

PyDoc_STRVAR(batch_inv_doc, "batch_inv(vec) -> bytes\n\n"
    "out[i] = vec[i]^-1, with one field inversion (Montgomery's trick); ZeroDivisionError if any is 0.");
static PyObject *py_batch_inv(PyObject *self, PyObject *arg) {
    fe *data;
    size_t n;
    PyObject *out = vec_copy(arg, "batch_inv", &data, &n);
    if (!out || n == 0) return out;
    fe *prefix = (fe *)malloc(n * sizeof(fe));
    if (!prefix) { Py_DECREF(out); return PyErr_NoMemory(); }
    int zero = 0;
    Py_BEGIN_ALLOW_THREADS
    /* prefix[i] = data[0] * ... * data[i-1]; one inversion of the whole product */
    fe acc = R_ONE;
    for (size_t i = 0; i < n; i++) {
        if (fe_is_zero(&data[i])) { zero = 1; break; }
        prefix[i] = acc;
        fe_mul(&acc, &acc, &data[i]);
    }
    if (!zero) {
        fe_inv(&acc, &acc);  /* acc = (data[0] ... data[n-1])^-1 */
        for (size_t i = n; i-- > 0;) {
            fe x = data[i];
            fe_mul(&data[i], &acc, &prefix[i]);
            fe_mul(&acc, &acc, &x);
        }
    }
    Py_END_ALLOW_THREADS
    free(prefix);
    if (zero) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_ZeroDivisionError, "inverse of 0 in Fr");
        return NULL;
    }
    return out;
}

PyDoc_STRVAR(sparse_matvec_doc, "sparse_matvec(rows, cols, vals, w, n) -> bytes\n\n"
    "out[rows[k]] += vals[k] * w[cols[k]] for every k, out of n elements (a sparse matrix times a vector).\n"
    "rows and cols are buffers of native int64 (numpy int64 arrays).");
static PyObject *py_sparse_matvec(PyObject *self, PyObject *args) {
    PyObject *rows_obj, *cols_obj, *vals_obj, *w_obj;
    Py_ssize_t n_out;
    if (!PyArg_ParseTuple(args, "OOOOn", &rows_obj, &cols_obj, &vals_obj, &w_obj, &n_out)) return NULL;
    if (n_out < 0) { PyErr_SetString(PyExc_ValueError, "sparse_matvec: negative size"); return NULL; }
    Py_buffer rows, cols;
    vec_arg vals, w;
    if (PyObject_GetBuffer(rows_obj, &rows, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(cols_obj, &cols, PyBUF_SIMPLE) < 0) { PyBuffer_Release(&rows); return NULL; }
    if (vec_get(vals_obj, &vals, "sparse_matvec") < 0) { PyBuffer_Release(&rows); PyBuffer_Release(&cols); return NULL; }
    if (vec_get(w_obj, &w, "sparse_matvec") < 0) {
        PyBuffer_Release(&rows); PyBuffer_Release(&cols); PyBuffer_Release(&vals.view); return NULL;
    }
    PyObject *out = NULL;
    fe *data;
    size_t nnz = vals.n;
    if ((size_t)rows.len != 8 * nnz || (size_t)cols.len != 8 * nnz) {
        PyErr_Format(PyExc_ValueError, "sparse_matvec: %zu values but %zd row and %zd column bytes (int64 each)",
                     nnz, rows.len, cols.len);
    } else if ((out = vec_new((size_t)n_out, &data)) != NULL) {
        const char *pr = rows.buf, *pc = cols.buf, *pv = vals.view.buf, *pw = w.view.buf;
        size_t bad = (size_t)-1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n_out; i++) data[i] = FE_ZERO;
        for (size_t k = 0; k < nnz; k++) {
            int64_t row, col;
            memcpy(&row, pr + 8 * k, 8);
            memcpy(&col, pc + 8 * k, 8);
            if (row < 0 || row >= n_out || col < 0 || (size_t)col >= w.n) { bad = k; break; }
            fe v, x, t;
            memcpy(&v, pv + 32 * k, 32);
            memcpy(&x, pw + 32 * (size_t)col, 32);
            fe_mul_fast(&t, &v, &x);
            fe_add(&data[row], &data[row], &t);
        }
        Py_END_ALLOW_THREADS
        if (bad != (size_t)-1) {
            PyErr_Format(PyExc_ValueError, "sparse_matvec: entry %zu points outside a %zd x %zu matrix", bad, n_out, w.n);
            Py_CLEAR(out);
        }
    }
    PyBuffer_Release(&rows);
    PyBuffer_Release(&cols);
    PyBuffer_Release(&vals.view);
    PyBuffer_Release(&w.view);
    return out;
}

PyDoc_STRVAR(h_step_doc, "h_step(a, b, log_n, omega, omega_inv, n_inv, shift) -> bytes\n\n"
    "The prover's h step. a and b are evaluations on the domain of 2^log_n points; with c = a*b,\n"
    "A, B, C the polynomials interpolating them, returns A(x)B(x) - C(x) at x = shift * omega^i.\n"
    "No division by Z(x) = x^n - 1: with shift a primitive 2n-th root of unity these are the odd\n"
    "points of the doubled domain, and the key's h query holds L_{2i+1}(tau)/delta there, so the MSM\n"
    "gives (AB - C)(tau)/delta = h(tau) Z(tau)/delta directly (snarkjs's layout).\n"
    "portable: the C product even where the MULX/ADX one runs.");
static PyObject *py_h_step(PyObject *self, PyObject *args) {
    PyObject *a_obj, *b_obj, *omega_obj, *omega_inv_obj, *n_inv_obj, *shift_obj;
    int log_n, portable = 0;
    if (!PyArg_ParseTuple(args, "OOiOOOO|p", &a_obj, &b_obj, &log_n, &omega_obj, &omega_inv_obj,
                          &n_inv_obj, &shift_obj, &portable)) return NULL;
    fe omega, omega_inv, n_inv, shift;
    if (fe_arg(omega_obj, &omega) < 0 || fe_arg(omega_inv_obj, &omega_inv) < 0 ||
        fe_arg(n_inv_obj, &n_inv) < 0 || fe_arg(shift_obj, &shift) < 0) return NULL;
    vec_arg a, b;
    if (vec_get(a_obj, &a, "h_step") < 0) return NULL;
    if (vec_get(b_obj, &b, "h_step") < 0) { PyBuffer_Release(&a.view); return NULL; }
    PyObject *out = NULL;
    fe *data;
    const int adx = cpu_has_adx && !portable;
    if (check_log_n(log_n, a.n, "h_step") == 0 && check_log_n(log_n, b.n, "h_step") == 0 &&
        (out = vec_new(a.n, &data)) != NULL) {
        size_t n = a.n;
        fe *buf = (fe *)malloc(3 * n * sizeof(fe));
        fe *tw = NULL, *tw_inv = NULL;
        if (buf) {
            fe *A = buf, *B = buf + n, *scale = buf + 2 * n, *C = data;
            memcpy(A, a.view.buf, n * 32);
            memcpy(B, b.view.buf, n * 32);
            Py_BEGIN_ALLOW_THREADS
            tw = twiddles(log_n, &omega);
            tw_inv = twiddles(log_n, &omega_inv);
            if (tw && tw_inv) {
                /* scale[rev(i)] = n^-1 shift^i: the coefficients come out of the DIF
                 * transform in bit-reversed order */
                fe p = n_inv;
                for (size_t i = 0; i < n; i++) {
                    size_t rev = 0;
                    for (int bit = 0; bit < log_n; bit++) rev |= ((i >> bit) & 1) << (log_n - 1 - bit);
                    scale[rev] = p;
                    fe_mul_fast(&p, &p, &shift);
                }
#if FR_HAVE_ADX_ASM
                if (adx) h_core_adx(A, B, C, log_n, tw, tw_inv, scale);
                else
#endif
                h_core_c(A, B, C, log_n, tw, tw_inv, scale);
            }
            Py_END_ALLOW_THREADS
        }
        if (!buf || !tw || !tw_inv) { Py_CLEAR(out); PyErr_NoMemory(); }
        free(buf);
        free(tw);
        free(tw_inv);
    }
    (void)adx;
    PyBuffer_Release(&a.view);
    PyBuffer_Release(&b.view);
    return out;
}


/* ------------------------------------------------------------------------------------
 * Fixed-base scalar multiplication for the setup and the ceremony, on MCL's own point
 * routines. MCL exports no fixed-base or batch-normalise call; these kernels take the
 * addresses of its exported functions (mclBnG1_add, mclBnFp_mul, ...: the caller,
 * zkbluff.curve.mcl_backend, passes them) and treat points as opaque Jacobian triples
 * [X | Y | Z] of `fsz`-byte coordinates (Fp: 32, Fp2: 64) in MCL's layout.
 *
 * table: for window j < 32, T[j][d] = d * 256^j * G (d = 1..255), normalised (z = 1) so
 *        the additions below take MCL's mixed-addition path;
 * mul:   k * G = sum_j T[j][byte j of k] (at most 32 additions a scalar, no doubling),
 *        then every result normalised with one field inversion for the whole batch
 *        (Montgomery's trick on the z coordinates) and its x, y turned into plain
 *        little-endian integers (a Montgomery multiplication by 1).
 * ------------------------------------------------------------------------------------ */
typedef void (*pt_op3)(void *, const void *, const void *);
typedef void (*pt_op2)(void *, const void *);

#define FB_WINDOWS 32
#define FB_DIGITS 256

static int fb_is_zero(const unsigned char *a, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (a[i]) return 0;
    return 1;
}

/* Normalise n Jacobian points in place (z = one); points at infinity (z = 0) are left. */
static int fb_normalize(unsigned char *pts, size_t n, Py_ssize_t fsz, pt_op3 fmul, pt_op2 finv,
                        const unsigned char *one) {
    size_t psz = 3 * (size_t)fsz;
    unsigned char *prefix = malloc(n * fsz + 3 * fsz);
    if (!prefix) return -1;
    unsigned char *acc = prefix + n * fsz, *t = acc + fsz, *u = t + fsz;
    memcpy(acc, one, fsz);
    for (size_t i = 0; i < n; i++) {
        memcpy(prefix + i * fsz, acc, fsz);  /* product of the z's before i */
        const unsigned char *z = pts + i * psz + 2 * fsz;
        if (!fb_is_zero(z, fsz)) fmul(acc, acc, z);
    }
    finv(acc, acc);  /* 1 / (product of every nonzero z) */
    for (size_t i = n; i-- > 0;) {
        unsigned char *p = pts + i * psz, *z = p + 2 * fsz;
        if (fb_is_zero(z, fsz)) continue;
        fmul(t, acc, prefix + i * fsz);  /* 1 / z_i */
        fmul(acc, acc, z);
        fmul(u, t, t);                   /* 1 / z^2 */
        fmul(p, p, u);                   /* x = X / z^2 */
        fmul(u, u, t);                   /* 1 / z^3 */
        fmul(p + fsz, p + fsz, u);       /* y = Y / z^3 */
        memcpy(z, one, fsz);
    }
    free(prefix);
    return 0;
}

/* Normalise n Jacobian points in place, then take x, y out of Montgomery form (a
 * Montgomery product with the plain integer 1): fixed_base_mul's output format. */
static int fb_to_plain_affine(unsigned char *res, size_t n, Py_ssize_t fsz, void *fmul, void *finv, void *fp_mul,
                              const unsigned char *one) {
    size_t psz = 3 * (size_t)fsz;
    if (fb_normalize(res, n, fsz, (pt_op3)fmul, (pt_op2)finv, one) < 0) return -1;
    unsigned char plain_one[32];
    memset(plain_one, 0, sizeof plain_one);
    plain_one[0] = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = res + i * psz;
        if (fb_is_zero(p + 2 * fsz, fsz)) continue;
        for (Py_ssize_t c = 0; c < 2 * fsz; c += 32)  /* each Fp inside x and y */
            ((pt_op3)fp_mul)(p + c, p + c, plain_one);
    }
    return 0;
}

static int fb_parse_fns(PyObject *fns, void **out, int n) {
    if (!PyTuple_Check(fns) || PyTuple_GET_SIZE(fns) != n) {
        PyErr_Format(PyExc_ValueError, "expected a tuple of %d function addresses", n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        out[i] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(fns, i));
        if (!out[i]) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a null function address");
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(fixed_base_table_doc,
"fixed_base_table(base, fsz, one, fns) -> bytes: the 32 x 255 normalised multiples\n"
"d * 256^j * base (MCL Jacobian layout, coordinates of fsz bytes); fns = (add, dbl,\n"
"field mul, field inv) as addresses; one = the field's Montgomery one.");

static PyObject *py_fixed_base_table(PyObject *self, PyObject *args) {
    Py_buffer base, one;
    Py_ssize_t fsz;
    PyObject *fns, *out = NULL;
    void *f[4];
    if (!PyArg_ParseTuple(args, "y*ny*O", &base, &fsz, &one, &fns)) return NULL;
    if ((fsz != 32 && fsz != 64) || base.len != 3 * fsz || one.len != fsz) {
        PyErr_SetString(PyExc_ValueError, "fixed_base_table: a point of 3 coordinates of 32 or 64 bytes");
        goto done;
    }
    if (fb_parse_fns(fns, f, 4) < 0) goto done;
    size_t psz = 3 * (size_t)fsz, n = (size_t)FB_WINDOWS * (FB_DIGITS - 1);
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * psz));
    if (!out) goto done;
    unsigned char *tab = (unsigned char *)PyBytes_AS_STRING(out);
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    unsigned char *b = malloc(psz);
    if (!b) failed = 1;
    else {
        memcpy(b, base.buf, psz);
        for (int j = 0; j < FB_WINDOWS; j++) {
            unsigned char *row = tab + (size_t)j * (FB_DIGITS - 1) * psz;
            memcpy(row, b, psz);
            for (int d = 1; d < FB_DIGITS - 1; d++)
                ((pt_op3)f[0])(row + d * psz, row + (d - 1) * psz, b);
            for (int k = 0; k < 8; k++) ((pt_op2)f[1])(b, b);  /* next window's base: 256 b */
        }
        free(b);
        if (fb_normalize(tab, n, fsz, (pt_op3)f[2], (pt_op2)f[3], one.buf) < 0) failed = 1;
    }
    Py_END_ALLOW_THREADS
    if (failed) { Py_CLEAR(out); PyErr_NoMemory(); }
done:
    PyBuffer_Release(&base);
    PyBuffer_Release(&one);
    return out;
}

PyDoc_STRVAR(fixed_base_mul_doc,
"fixed_base_mul(table, scalars, fsz, one, fns) -> bytes: k_i * base for each scalar of a\n"
"packed Fr vector (Montgomery form, as from_ints makes it), from a fixed_base_table; each result\n"
"is [x | y | z] with x, y plain little-endian integers and z the Montgomery one (all zero\n"
"for the point at infinity). fns = (add, field mul, field inv, Fp mul) as addresses.");

static PyObject *py_fixed_base_mul(PyObject *self, PyObject *args) {
    Py_buffer tab, ks, one;
    Py_ssize_t fsz;
    PyObject *fns, *out = NULL;
    void *f[4];
    if (!PyArg_ParseTuple(args, "y*y*ny*O", &tab, &ks, &fsz, &one, &fns)) return NULL;
    size_t psz = 3 * (size_t)fsz;
    if ((fsz != 32 && fsz != 64) || one.len != fsz
            || (size_t)tab.len != (size_t)FB_WINDOWS * (FB_DIGITS - 1) * psz || ks.len % 32) {
        PyErr_SetString(PyExc_ValueError, "fixed_base_mul: a table of this point size and 32-byte scalars");
        goto done;
    }
    if (fb_parse_fns(fns, f, 4) < 0) goto done;
    size_t n = (size_t)ks.len / 32;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * psz));
    if (!out) goto done;
    unsigned char *res = (unsigned char *)PyBytes_AS_STRING(out);
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *T = tab.buf;
    const fe *kv = ks.buf;
    fe plain_fe_one = {{1, 0, 0, 0}};
    memset(res, 0, n * psz);  /* MCL's point at infinity: z = 0 */
    for (size_t i = 0; i < n; i++) {
        unsigned char *acc = res + i * psz;
        int started = 0;
        fe plain;
        fe_mul(&plain, &kv[i], &plain_fe_one);  /* the scalar's canonical value */
        const unsigned char *k = (const unsigned char *)plain.v;  /* little-endian limbs */
        for (int j = 0; j < FB_WINDOWS; j++) {
            unsigned d = k[j];
            if (!d) continue;
            const unsigned char *e = T + ((size_t)j * (FB_DIGITS - 1) + (d - 1)) * psz;
            if (!started) { memcpy(acc, e, psz); started = 1; }
            else ((pt_op3)f[0])(acc, acc, e);
        }
    }
    if (fb_to_plain_affine(res, n, fsz, f[1], f[2], f[3], one.buf) < 0) failed = 1;
    Py_END_ALLOW_THREADS
    if (failed) { Py_CLEAR(out); PyErr_NoMemory(); }
done:
    PyBuffer_Release(&tab);
    PyBuffer_Release(&ks);
    PyBuffer_Release(&one);
    return out;
}

/* p, the BN254 base field modulus, little-endian bytes (for encode_points' range check). */
static const unsigned char P_MOD_LE[32] = {
    0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71, 0x68, 0x91, 0x6a, 0x81, 0x97,
    0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45, 0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

/* A canonical coordinate (a Python int in [0, p)) as 32 little-endian bytes; -1 with
 * ValueError for anything else (the caller falls back to its own conversion). */
static int coord_from_pyobj(unsigned char out[32], PyObject *x) {
    if (!PyLong_CheckExact(x)) goto bad;
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(x, out, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN |
        Py_ASNATIVEBYTES_UNSIGNED_BUFFER | Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (need < 0) { PyErr_Clear(); goto bad; }
    if (need > 32) goto bad;
#else
    if (_PyLong_AsByteArray((PyLongObject *)x, out, 32, 1, 0) < 0) { PyErr_Clear(); goto bad; }
#endif
    for (int i = 31; i >= 0; i--) {
        if (out[i] != P_MOD_LE[i]) {
            if (out[i] > P_MOD_LE[i]) goto bad;
            return 0;
        }
    }
bad:  /* equal to p, or not a canonical int */
    PyErr_SetString(PyExc_ValueError, "encode_points: a coordinate that is not an int in [0, p)");
    return -1;
}

PyDoc_STRVAR(encode_points_doc,
"encode_points(points, fsz, r2, fp_mul) -> bytes: affine points (None, (x, y) for fsz 32,\n"
"((x0, x1), (y0, y1)) for fsz 64; coordinates ints in [0, p)) in MCL's Jacobian layout:\n"
"[x | y | one] in Montgomery form, all zero for None. r2 = 2^512 mod p (32 bytes); fp_mul =\n"
"the address of mclBnFp_mul (x * r2 / R = x R). ValueError for any other coordinate.");

static PyObject *py_encode_points(PyObject *self, PyObject *args) {
    PyObject *seq, *out = NULL, *fast = NULL;
    Py_ssize_t fsz;
    Py_buffer r2, one;
    PyObject *fn;
    if (!PyArg_ParseTuple(args, "Ony*y*O", &seq, &fsz, &r2, &one, &fn)) return NULL;
    void *fp_mul = PyLong_AsVoidPtr(fn);
    if (!fp_mul || (fsz != 32 && fsz != 64) || r2.len != 32 || one.len != fsz) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "encode_points: fsz 32 or 64, a 32-byte r2, an fsz-byte one, an address");
        goto done;
    }
    fast = PySequence_Fast(seq, "encode_points: expected a sequence of points");
    if (!fast) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    size_t psz = 3 * (size_t)fsz;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * psz));
    if (!out) goto done;
    unsigned char *res = (unsigned char *)PyBytes_AS_STRING(out);
    memset(res, 0, n * psz);
    int per = (int)(fsz / 16);  /* Fp coordinates per point: 2 (G1) or 4 (G2) */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pt = PySequence_Fast_GET_ITEM(fast, i);
        unsigned char *p = res + i * psz;
        if (pt == Py_None) continue;
        PyObject *c[4] = {NULL, NULL, NULL, NULL};
        if (!PyTuple_CheckExact(pt) || PyTuple_GET_SIZE(pt) != 2) goto bad_point;
        if (per == 2) {
            c[0] = PyTuple_GET_ITEM(pt, 0);
            c[1] = PyTuple_GET_ITEM(pt, 1);
        } else {
            for (int j = 0; j < 2; j++) {
                PyObject *t = PyTuple_GET_ITEM(pt, j);
                if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != 2) goto bad_point;
                c[2 * j] = PyTuple_GET_ITEM(t, 0);
                c[2 * j + 1] = PyTuple_GET_ITEM(t, 1);
            }
        }
        for (int j = 0; j < per; j++)
            if (coord_from_pyobj(p + 32 * j, c[j]) < 0) { Py_CLEAR(out); goto done; }
        memcpy(p + 2 * fsz, one.buf, fsz);
        continue;
    bad_point:
        PyErr_SetString(PyExc_ValueError, "encode_points: a point that is not None or a pair of coordinates");
        Py_CLEAR(out);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char *p = res + i * psz;
        if (fb_is_zero(p + 2 * fsz, fsz)) continue;
        for (int j = 0; j < per; j++)
            ((pt_op3)fp_mul)(p + 32 * j, p + 32 * j, r2.buf);  /* into Montgomery form */
    }
    Py_END_ALLOW_THREADS
done:
    Py_XDECREF(fast);
    PyBuffer_Release(&r2);
    PyBuffer_Release(&one);
    return out;
}

PyDoc_STRVAR(mul_points_doc,
"mul_points(points, scalars, fsz, one, fns) -> bytes: k_i * P_i for points in MCL's Jacobian\n"
"layout (as encode_points makes them) and a packed Fr vector (Montgomery form, from_ints):\n"
"one scalar per point, or a single scalar for every point. The results in fixed_base_mul's\n"
"format (normalised with one field inversion for the batch). fns = (point mul, field mul,\n"
"field inv, Fp mul) as addresses.");

static PyObject *py_mul_points(PyObject *self, PyObject *args) {
    Py_buffer pts, ks, one;
    Py_ssize_t fsz;
    PyObject *fns, *out = NULL;
    void *f[4];
    if (!PyArg_ParseTuple(args, "y*y*ny*O", &pts, &ks, &fsz, &one, &fns)) return NULL;
    size_t psz = 3 * (size_t)fsz;
    size_t n = (fsz == 32 || fsz == 64) ? (size_t)pts.len / psz : 0;
    if ((fsz != 32 && fsz != 64) || one.len != fsz || (size_t)pts.len % psz
            || !((size_t)ks.len == 32 * n || ks.len == 32)) {
        PyErr_SetString(PyExc_ValueError, "mul_points: points of this size and one 32-byte scalar each, or one for all");
        goto done;
    }
    if (fb_parse_fns(fns, f, 4) < 0) goto done;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * psz));
    if (!out) goto done;
    unsigned char *res = (unsigned char *)PyBytes_AS_STRING(out);
    int failed = 0;
    size_t step = (size_t)ks.len == 32 ? 0 : 32;
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *P = pts.buf, *K = ks.buf;
    for (size_t i = 0; i < n; i++)
        ((pt_op3)f[0])(res + i * psz, P + i * psz, K + i * step);
    if (fb_to_plain_affine(res, n, fsz, f[1], f[2], f[3], one.buf) < 0) failed = 1;
    Py_END_ALLOW_THREADS
    if (failed) { Py_CLEAR(out); PyErr_NoMemory(); }
done:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&ks);
    PyBuffer_Release(&one);
    return out;
}

static PyObject *le32_to_pyobj(const unsigned char *a) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(a, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(a, 32, 1, 0);
#endif
}

PyDoc_STRVAR(affine_points_doc,
"affine_points(raw, fsz) -> list: fixed_base_mul's results as affine tuples of ints, (x, y)\n"
"for fsz 32 (G1), ((x0, x1), (y0, y1)) for fsz 64 (G2), None for the point at infinity.");

static PyObject *py_affine_points(PyObject *self, PyObject *args) {
    Py_buffer raw;
    Py_ssize_t fsz;
    if (!PyArg_ParseTuple(args, "y*n", &raw, &fsz)) return NULL;
    PyObject *out = NULL;
    size_t psz = 3 * (size_t)fsz;
    if ((fsz != 32 && fsz != 64) || raw.len % psz) {
        PyErr_SetString(PyExc_ValueError, "affine_points: points of 3 coordinates of 32 or 64 bytes");
        goto done;
    }
    size_t n = (size_t)raw.len / psz;
    out = PyList_New((Py_ssize_t)n);
    if (!out) goto done;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)raw.buf + i * psz;
        PyObject *item;
        if (fb_is_zero(p + 2 * fsz, fsz)) {
            item = Py_None;
            Py_INCREF(item);
        } else if (fsz == 32) {
            PyObject *x = le32_to_pyobj(p), *y = le32_to_pyobj(p + 32);
            item = (x && y) ? PyTuple_Pack(2, x, y) : NULL;
            Py_XDECREF(x); Py_XDECREF(y);
        } else {
            PyObject *c[4], *xx = NULL, *yy = NULL;
            int ok = 1;
            for (int j = 0; j < 4; j++) { c[j] = le32_to_pyobj(p + 32 * j); if (!c[j]) ok = 0; }
            if (ok) { xx = PyTuple_Pack(2, c[0], c[1]); yy = PyTuple_Pack(2, c[2], c[3]); }
            item = (xx && yy) ? PyTuple_Pack(2, xx, yy) : NULL;
            for (int j = 0; j < 4; j++) Py_XDECREF(c[j]);
            Py_XDECREF(xx); Py_XDECREF(yy);
        }
        if (!item) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, (Py_ssize_t)i, item);
    }
done:
    PyBuffer_Release(&raw);
    return out;
}

/* ------------------------------------------------------------------------------------
 * BLAKE2b's compression function (RFC 7693) over whole blocks, for the ceremony's
 * resumable hasher (zkbluff.ceremony.blake2b keeps the state; its pure-Python _compress is
 * the reference and the fallback, tested equal).
 * ------------------------------------------------------------------------------------ */
static const u64 B2B_IV[8] = {
    0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL, 0xA54FF53A5F1D36F1ULL,
    0x510E527FADE682D1ULL, 0x9B05688C2B3E6C1FULL, 0x1F83D9ABFB41BD6BULL, 0x5BE0CD19137E2179ULL};
static const unsigned char B2B_SIGMA[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};

static inline u64 rotr64(u64 x, int n) { return (x >> n) | (x << (64 - n)); }

#define B2B_G(a, b, c, d, x, y) do {            \
    v[a] = v[a] + v[b] + (x); v[d] = rotr64(v[d] ^ v[a], 32); \
    v[c] = v[c] + v[d];       v[b] = rotr64(v[b] ^ v[c], 24); \
    v[a] = v[a] + v[b] + (y); v[d] = rotr64(v[d] ^ v[a], 16); \
    v[c] = v[c] + v[d];       v[b] = rotr64(v[b] ^ v[c], 63); \
} while (0)

/* Mix one 128-byte block into h; t = bytes compressed so far (this block included). */
static void b2b_compress(u64 h[8], const unsigned char *block, u64 t, int last) {
    u64 m[16], v[16];
    memcpy(m, block, 128);  /* little-endian words (the machine is little-endian) */
    for (int i = 0; i < 8; i++) { v[i] = h[i]; v[i + 8] = B2B_IV[i]; }
    v[12] ^= t;
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const unsigned char *s = B2B_SIGMA[r % 10];
        B2B_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2B_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2B_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2B_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2B_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2B_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2B_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2B_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* ------------------------------------------------------------------ Poseidon */

#define POSEIDON_MAX_T 17
#define POSEIDON_ROUNDS_F 8

static inline void fe_pow5(fe *x) {
    fe x2, x4;
    fe_mul(&x2, x, x);
    fe_mul(&x4, &x2, &x2);
    fe_mul(x, &x4, x);
}


/* circomlib's Poseidon permutation on state[0..t): per round the round constants, the
 * S-box x^5 (on every element in the first and last RF/2 rounds, on the first only in
 * the r_p partial ones), then the MDS product; constants and state in Montgomery form */
static void poseidon_permute(fe *state, int t, const fe *c, const fe *m, int r_p) {
    const int half = POSEIDON_ROUNDS_F / 2;
    fe next[POSEIDON_MAX_T];
    for (int rnd = 0; rnd < POSEIDON_ROUNDS_F + r_p; rnd++) {
        for (int i = 0; i < t; i++) fe_add(&state[i], &state[i], &c[rnd * t + i]);
        if (rnd < half || rnd >= half + r_p) {
            for (int i = 0; i < t; i++) fe_pow5(&state[i]);
        } else {
            fe_pow5(&state[0]);
        }
        for (int i = 0; i < t; i++) {
            fe acc = FE_ZERO, p;
            for (int j = 0; j < t; j++) {
                fe_mul(&p, &m[i * t + j], &state[j]);
                fe_add(&acc, &acc, &p);
            }
            next[i] = acc;
        }
        memcpy(state, next, (size_t)t * sizeof(fe));
    }
}

PyDoc_STRVAR(poseidon_doc, "poseidon(inputs, constants, mds, partial_rounds) -> int\n\n"
    "circomlib's Poseidon of 1..16 integers (each below r; the caller checks) with t = len(inputs) + 1:\n"
    "constants the (8 + partial_rounds) t round constants and mds the t x t matrix, row by row,\n"
    "both packed by from_ints (zkbluff.gadgets.native keeps them per width).");
static PyObject *py_poseidon(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq;
    Py_buffer cb, mb;
    int r_p;
    if (!PyArg_ParseTuple(args, "Oy*y*i", &seq, &cb, &mb, &r_p)) return NULL;
    PyObject *res = NULL;
    PyObject *fast = PySequence_Fast(seq, "poseidon: expected a sequence of integers");
    if (!fast) goto out;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    int t = (int)k + 1;
    if (k < 1 || t > POSEIDON_MAX_T || r_p < 0 || r_p > 128
        || cb.len != (Py_ssize_t)(POSEIDON_ROUNDS_F + r_p) * t * 32 || mb.len != (Py_ssize_t)t * t * 32) {
        PyErr_Format(PyExc_ValueError, "poseidon: %zd inputs (1..16), %zd bytes of constants and %zd of the "
                     "matrix do not fit %d partial rounds", k, cb.len, mb.len, r_p);
        goto out;
    }
    fe state[POSEIDON_MAX_T];
    state[0] = FE_ZERO;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        Py_INCREF(item);
        int rc = fe_from_pyobj(&state[i + 1], item);
        Py_DECREF(item);
        if (rc < 0) goto out;
    }
    poseidon_permute(state, t, (const fe *)cb.buf, (const fe *)mb.buf, r_p);
    res = fe_to_pyobj(&state[0]);
out:
    Py_XDECREF(fast);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&mb);
    return res;
}

/* The same permutation with the partial rounds' constants moved into the first partial
 * round and their matrices made sparse (zkbluff.gadgets.poseidon_sparse derives the
 * constants and says why the output is the same; permute_sparse there is this, in Python).
 * p, in Montgomery form: 4t first-round constants, t for the first partial round, r_p
 * scalars added to s[0] after each partial round's S-box, 4t last-round constants, the
 * t x t MDS matrix, the first partial round's dense t x t matrix, then for each later
 * partial round 2t - 1 entries: a, w (t - 1), v (t - 1), the matrix [[a, w], [v, I]]. */
static size_t poseidon_sparse_len(int t, int r_p) {
    return (size_t)(8 * t + t + r_p + 2 * t * t + (r_p - 1) * (2 * t - 1));
}

#define FE_MUL(o, a, b) do { if (adx) fe_mul_adx((o), (a), (b)); else fe_mul((o), (a), (b)); } while (0)

static inline __attribute__((always_inline)) void poseidon_pow5(fe *x, int adx) {
    fe x2, x4;
    FE_MUL(&x2, x, x);
    FE_MUL(&x4, &x2, &x2);
    FE_MUL(x, &x4, x);
}

static inline __attribute__((always_inline)) void poseidon_dense(fe *s, int t, const fe *m, int adx) {
    fe next[POSEIDON_MAX_T];
    for (int i = 0; i < t; i++) {
        fe acc, p;
        FE_MUL(&acc, &m[i * t], &s[0]);
        for (int j = 1; j < t; j++) {
            FE_MUL(&p, &m[i * t + j], &s[j]);
            fe_add(&acc, &acc, &p);
        }
        next[i] = acc;
    }
    memcpy(s, next, (size_t)t * sizeof(fe));
}

static inline __attribute__((always_inline)) void poseidon_full_round(fe *s, int t, const fe *c, const fe *m,
                                                                      int adx) {
    for (int i = 0; i < t; i++) {
        fe_add(&s[i], &s[i], &c[i]);
        poseidon_pow5(&s[i], adx);
    }
    poseidon_dense(s, t, m, adx);
}

/* adx a constant at each call site below: the compiler makes one copy per product */
static inline __attribute__((always_inline)) void poseidon_permute_sparse_with(fe *s, int t, int r_p, const fe *p,
                                                                               int adx) {
    const int half = POSEIDON_ROUNDS_F / 2;
    const fe *first = p, *partial = first + half * t, *scalars = partial + t, *last = scalars + r_p;
    const fe *mds = last + half * t, *pre = mds + t * t, *sparse = pre + t * t;
    for (int rnd = 0; rnd < half; rnd++) poseidon_full_round(s, t, &first[rnd * t], mds, adx);
    for (int i = 0; i < t; i++) fe_add(&s[i], &s[i], &partial[i]);
    poseidon_pow5(&s[0], adx);
    fe_add(&s[0], &s[0], &scalars[0]);
    poseidon_dense(s, t, pre, adx);
    for (int k = 1; k < r_p; k++) {
        const fe *row = &sparse[(size_t)(k - 1) * (2 * t - 1)];
        poseidon_pow5(&s[0], adx);
        fe_add(&s[0], &s[0], &scalars[k]);
        fe s0 = s[0], acc, q;
        FE_MUL(&acc, &row[0], &s0);
        for (int j = 1; j < t; j++) {
            FE_MUL(&q, &row[j], &s[j]);
            fe_add(&acc, &acc, &q);
        }
        for (int i = 1; i < t; i++) {
            FE_MUL(&q, &row[t - 1 + i], &s0);
            fe_add(&s[i], &s[i], &q);
        }
        s[0] = acc;
    }
    for (int rnd = 0; rnd < half; rnd++) poseidon_full_round(s, t, &last[rnd * t], mds, adx);
}
#undef FE_MUL

static void poseidon_permute_sparse(fe *s, int t, int r_p, const fe *p, int adx) {
    if (adx) poseidon_permute_sparse_with(s, t, r_p, p, 1);
    else poseidon_permute_sparse_with(s, t, r_p, p, 0);
}

PyDoc_STRVAR(poseidon_sparse_doc, "poseidon_sparse(packed, partial_rounds, inputs[, portable]) -> int\n\n"
    "poseidon() by the sparse partial rounds: packed is zkbluff.gadgets.poseidon_sparse's\n"
    "SparseParams.packed_ints() for t = len(inputs) + 1, packed by from_ints; inputs 1..16\n"
    "integers (each below r; the caller checks). The product is the MULX/ADX one where the\n"
    "CPU has it (the module's POSEIDON_ADX), the portable one with portable true.");
static PyObject *py_poseidon_sparse(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "poseidon_sparse(packed, partial_rounds, inputs[, portable])");
        return NULL;
    }
    int adx = cpu_has_adx;
    if (nargs == 4) {
        int portable = PyObject_IsTrue(args[3]);
        if (portable < 0) return NULL;
        if (portable) adx = 0;
    }
    Py_buffer pb;
    if (PyObject_GetBuffer(args[0], &pb, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *res = NULL, *fast = NULL;
    long r_p = PyLong_AsLong(args[1]);
    if (r_p == -1 && PyErr_Occurred()) goto out;
    fast = PySequence_Fast(args[2], "poseidon_sparse: expected a sequence of integers");
    if (!fast) goto out;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    int t = (int)k + 1;
    if (k < 1 || t > POSEIDON_MAX_T || r_p < 1 || r_p > 128
        || (size_t)pb.len != poseidon_sparse_len(t, (int)r_p) * 32) {
        PyErr_Format(PyExc_ValueError, "poseidon_sparse: %zd inputs (1..16) and %zd bytes of constants do not "
                     "fit %ld partial rounds", k, pb.len, r_p);
        goto out;
    }
    fe state[POSEIDON_MAX_T];
    state[0] = FE_ZERO;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        Py_INCREF(item);  /* an int-like item's __index__ may change the list under us */
        int rc = fe_from_pyobj(&state[i + 1], item);
        Py_DECREF(item);
        if (rc < 0) goto out;
    }
    poseidon_permute_sparse(state, t, (int)r_p, (const fe *)pb.buf, adx);
    res = fe_to_pyobj(&state[0]);
out:
    Py_XDECREF(fast);
    PyBuffer_Release(&pb);
    return res;
}

PyDoc_STRVAR(blake2b_blocks_doc,
"blake2b_blocks(h, data, compressed) -> bytes: BLAKE2b's chaining value h (64 bytes, 8\n"
"little-endian words) after compressing every 128-byte block of data (none the last\n"
"block), compressed = the bytes already compressed before data (below 2^64).");

static PyObject *py_blake2b_blocks(PyObject *self, PyObject *args) {
    Py_buffer hb, data;
    unsigned long long t;
    if (!PyArg_ParseTuple(args, "y*y*K", &hb, &data, &t)) return NULL;
    PyObject *out = NULL;
    if (hb.len != 64 || data.len % 128) {
        PyErr_SetString(PyExc_ValueError, "blake2b_blocks: a 64-byte state and whole 128-byte blocks");
        goto done;
    }
    u64 h[8];
    memcpy(h, hb.buf, 64);
    Py_BEGIN_ALLOW_THREADS
    const unsigned char *d = data.buf;
    for (Py_ssize_t off = 0; off < data.len; off += 128) {
        t += 128;
        b2b_compress(h, d + off, (u64)t, 0);
    }
    Py_END_ALLOW_THREADS
    out = PyBytes_FromStringAndSize((const char *)h, 64);
done:
    PyBuffer_Release(&hb);
    PyBuffer_Release(&data);
    return out;
}

static PyMethodDef methods[] = {
    {"from_ints", py_from_ints, METH_VARARGS, from_ints_doc},
    {"to_ints", py_to_ints, METH_O, to_ints_doc},
    {"ntt", py_ntt, METH_VARARGS, ntt_doc},
    {"scale_powers", py_scale_powers, METH_VARARGS, scale_powers_doc},
    {"add", py_add, METH_VARARGS, add_doc},
    {"sub", py_sub, METH_VARARGS, sub_doc},
    {"mul", py_mul, METH_VARARGS, mul_doc},
    {"batch_inv", py_batch_inv, METH_O, batch_inv_doc},
    {"sparse_matvec", py_sparse_matvec, METH_VARARGS, sparse_matvec_doc},
    {"h_step", py_h_step, METH_VARARGS, h_step_doc},
    {"fixed_base_table", py_fixed_base_table, METH_VARARGS, fixed_base_table_doc},
    {"fixed_base_mul", py_fixed_base_mul, METH_VARARGS, fixed_base_mul_doc},
    {"affine_points", py_affine_points, METH_VARARGS, affine_points_doc},
    {"encode_points", py_encode_points, METH_VARARGS, encode_points_doc},
    {"mul_points", py_mul_points, METH_VARARGS, mul_points_doc},
    {"blake2b_blocks", py_blake2b_blocks, METH_VARARGS, blake2b_blocks_doc},
    {"poseidon", py_poseidon, METH_VARARGS, poseidon_doc},
    {"poseidon_sparse", (PyCFunction)(void (*)(void))py_poseidon_sparse, METH_FASTCALL, poseidon_sparse_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "zkbluff._fr_native",
    "BN254 Fr kernels on packed Montgomery-form vectors (see zkbluff.field).", -1, methods,
};

/* A plain 4-limb value as a Python int. */
static PyObject *limbs_to_pyobj(const fe *a) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(a->v, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)a->v, 32, 1, 0);
#endif
}

PyMODINIT_FUNC PyInit__fr_native(void) {
    PyObject *m = PyModule_Create(&moduledef);
#if FR_HAVE_ADX_ASM
    __builtin_cpu_init();
    cpu_has_adx = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
#endif
    if (!m) return NULL;
    MODULUS_OBJ = limbs_to_pyobj(&R_MOD);
    if (!MODULUS_OBJ) { Py_DECREF(m); return NULL; }
    Py_INCREF(MODULUS_OBJ);
    /* the constants, for zkbluff.field to check against its own at import */
    if (PyModule_AddObject(m, "MODULUS", MODULUS_OBJ) < 0 ||
        PyModule_AddObject(m, "MONTGOMERY_R", limbs_to_pyobj(&R_ONE)) < 0 ||
        PyModule_AddObject(m, "MONTGOMERY_R2", limbs_to_pyobj(&R_SQUARED)) < 0 ||
        PyModule_AddObject(m, "MONTGOMERY_INV", PyLong_FromUnsignedLongLong(R_INV_NEG)) < 0 ||
        PyModule_AddIntConstant(m, "POSEIDON_ADX", cpu_has_adx) < 0 ||
        PyModule_AddIntConstant(m, "ADX", cpu_has_adx) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
