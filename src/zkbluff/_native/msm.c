/*
 * zkbluff._msm_native: multi-scalar multiplication on BN254 (alt_bn128) G1 and G2.
 *
 * Points come in MCL's own memory layout (what the mcl backend's prepared vectors
 * hold): Jacobian (x, y, z), every coordinate in Montgomery form x * 2^256 mod p on
 * four little-endian 64-bit limbs, G2 coordinates as c0 + c1 u with u^2 = -1. Scalars
 * come as the field kernel's packed vectors: Fr in Montgomery form (x * 2^256 mod r),
 * MCL's Fr layout. The result goes back in MCL's layout (not normalised).
 *
 * The method (msm_group.h): Pippenger's bucket method with signed c-bit digits, bucket
 * sums by batched affine additions (one field inversion per round for all of a
 * window's independent additions), buckets combined by segmented running sums (batched
 * affine additions across all windows, the segments joined in Jacobian coordinates), after
 * the endomorphism split (GLV in G1, GLS in G2). The Fp multiplication is MULX/ADX assembly where the CPU has
 * both, else portable C; Fp2 products are Karatsuba on double-width Fp products with
 * two Montgomery reductions.
 *
 * The Fp arithmetic, the G1 GLV split and the Jacobian doubling / mixed addition are
 * shared with zkbluff._points_native (bn254_fp.h, bn254_jac.h); the Fp2 arithmetic
 * (msm_field.h) and the buckets (msm_group.h) are this module's. The field arithmetic
 * is our own: the mcl backend checks at load, against MCL itself, that the layouts
 * agree and that this module's MSMs equal MCL's mulVec
 * (zkbluff.curve.mcl_backend._msm_self_check), and falls back to mulVec, with a
 * warning, if they do not. Every call runs with the GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zkbluff._msm_native assumes a little-endian machine (limbs are stored as they lie in memory)"
#endif

#include "bn254_fp.h"

#define MSM_ENOMEM (-1)
#define MSM_EPOINT (-2)

typedef struct { fp c0, c1; } fp2;

static const fp2 FP2_ONE = {{{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL,
                              0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}}, {{0, 0, 0, 0}}};

static inline void fp2_add(fp2 *o, const fp2 *a, const fp2 *b) { fp_add(&o->c0, &a->c0, &b->c0); fp_add(&o->c1, &a->c1, &b->c1); }
static inline void fp2_sub(fp2 *o, const fp2 *a, const fp2 *b) { fp_sub(&o->c0, &a->c0, &b->c0); fp_sub(&o->c1, &a->c1, &b->c1); }
static inline void fp2_dbl(fp2 *o, const fp2 *a) { fp_dbl(&o->c0, &a->c0); fp_dbl(&o->c1, &a->c1); }
static inline void fp2_neg(fp2 *o, const fp2 *a) { fp_neg(&o->c0, &a->c0); fp_neg(&o->c1, &a->c1); }
static inline int fp2_is_zero(const fp2 *a) { return fp_is_zero(&a->c0) && fp_is_zero(&a->c1); }
static inline int fp2_eq(const fp2 *a, const fp2 *b) { return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1); }
/* Fp2 values in the MSM are always reduced (its lazy products are the reduced ones) */
static inline void fp2_reduce(fp2 *a) { (void)a; }

/* the bucket trees are summed over runs of buckets of about this many points, which
 * stay in cache through their rounds (8192 points, 512 KB: ~8% faster than whole
 * windows at 2^16 points, measured; 2048 was slower, 32768 the same) */
#define TREE_CHUNK 8192

/* the bucket reduction runs REDUCE_SEGS running sums per window side by side (all
 * windows' at once, affine, one inversion a step): 64 (640 chains at 2^16 points) */
#define REDUCE_SEGS 64

/* a large scratch array, on transparent huge pages where the kernel offers them on
 * request (Linux, THP in madvise mode): the bucket sort writes to thousands of places at
 * once, and with 4 KB pages most of those writes miss the TLB. Freed by free(). */
#define HUGE_ALIGN ((size_t)2 << 20)
static void *big_alloc(size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (size >= HUGE_ALIGN) {
        void *p = NULL;
        size_t rounded = (size + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
        if (posix_memalign(&p, HUGE_ALIGN, rounded) != 0) return NULL;
        (void)madvise(p, rounded, MADV_HUGEPAGE);   /* a hint: without it, 4 KB pages */
        return p;
    }
#endif
    return malloc(size ? size : 1);
}

/* GLS on G2: psi(x, y) = (conj(x) GX, conj(y) GY) = mu (x, y) with mu = 6 x^2 = p mod r
 * (x the BN parameter), GX = xi^((p-1)/3), GY = xi^((p-1)/2), xi = 9 + u (Montgomery
 * form); k = k0 + k1 mu with k0 = k mod mu, k1 = k div mu, both below 2^127 */
static const fp2 GLS_GX = {{{0xb5773b104563ab30ULL, 0x347f91c8a9aa6454ULL, 0x7a007127242e0991ULL, 0x1956bcd8118214ecULL}},
                           {{0x6e849f1ea0aa4757ULL, 0xaa1c7b6d89f89141ULL, 0xb6e713cdfae0ca3aULL, 0x26694fbb4e82ebc3ULL}}};
static const fp2 GLS_GY = {{{0xe4bbdd0c2936b629ULL, 0xbb30f162e133bacbULL, 0x31a9d1b6f9645366ULL, 0x253570bea500f8ddULL}},
                           {{0xa1d77ce45ffe77c7ULL, 0x07affd117826d1dbULL, 0x6d16bd27bb7edc6bULL, 0x2c87200285defeccULL}}};
static const u64 GLS_MU[4] = {0xf83e9682e87cfd46ULL, 0x6f4d8248eeb859fbULL, 0, 0};
static const u64 GLS_G[3] = {0x2cb62031c8e01941ULL, 0x4ccef014a773d2d5ULL, 0x0000000000000002ULL};  /* floor(2^256 / mu) */

/* k = k0 + k1 mu (k < r, plain; k0, k1 < 2^128, non-negative: neg0 = neg1 = 0) */
static void gls_split(const u64 k[4], u64 k0[4], int *neg0, u64 k1[4], int *neg1) {
    u64 w[7], t[4], q[2];
    mul_limbs(w, k, 4, GLS_G, 3);
    q[0] = w[4]; q[1] = w[5];   /* at most 2 below k div mu */
    mul_limbs(t, q, 2, GLS_MU, 2);
    memcpy(k0, k, 32);
    sub_limbs(k0, t, 4);
    while (geq4(k0, GLS_MU)) {
        sub4(k0, GLS_MU);
        if (++q[0] == 0) q[1]++;
    }
    k1[0] = q[0]; k1[1] = q[1]; k1[2] = k1[3] = 0;
    *neg0 = *neg1 = 0;
}

/* ------------------------------------------------------------------ window size */

/* The window c (bits per digit) minimising windows(c) * (m * A + 2^(c-1) * R): A, the
 * cost of one batched affine addition, and R, of one bucket in the reduction (two
 * batched affine additions) less the tree addition a bucket saves, both in field
 * multiplications. (Measured, CPU ms, the c it picks marked: G1 2^9 c=7..10 4.3, 3.8*,
 * 3.7, 3.6; 2^10 7.0, 6.0, 5.8, 5.4*; 2^12 c=9..12 17.8, 16.7, 15.9*, 16.4; 2^16 c=12..15
 * 231, 216*, 220, 213; G2 the same c within 3% of the best of them.) */
static int window_bits(size_t m, int nbits) {
    const double A = 7.0, R = 10.0;
    int best = 2;
    double best_cost = 0;
    for (int c = 2; c <= 16; c++) {
        int windows = (nbits + 1 + c - 1) / c;
        double cost = windows * ((double)m * A + (double)((size_t)1 << (c - 1)) * R);
        if (c == 2 || cost < best_cost) { best = c; best_cost = cost; }
    }
    return best;
}

/* ------------------------------------------------------------------ instances */

#define FP_MUL mont_mul_p
#define FP_MUL_LAZY mont_mul_p_lazy
#define FP_MUL_WIDE mul_wide
#define FP_REDC mont_reduce
#define SFX(name) name##_c
#include "msm_field.h"
#undef FP_MUL
#undef FP_MUL_LAZY
#undef FP_MUL_WIDE
#undef FP_REDC
#undef SFX
#if HAVE_ADX_ASM
#define FP_MUL mont_mul_p_adx
#define FP_MUL_LAZY mont_mul_p_adx_lazy
#define FP_MUL_WIDE mul_wide_adx
#define FP_REDC mont_reduce_adx
#define SFX(name) name##_adx
#include "msm_field.h"
#undef FP_MUL
#undef FP_MUL_LAZY
#undef FP_MUL_WIDE
#undef FP_REDC
#undef SFX
#endif

/* ------------------------------------------------------------------ Python */

/* Montgomery-form Fr scalars to plain 4-limb integers < r */
static void scalars_from_mont(u64 (*out)[4], const unsigned char *in, size_t n) {
    static const u64 ONE[4] = {1, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        u64 k[4];
        memcpy(k, in + 32 * i, 32);
        while (geq4(k, R_MOD)) sub4(k, R_MOD);
        mont_mul(out[i], k, ONE, R_MOD, R_INV_NEG);
    }
}

/* the MULX/ADX instance runs only where the CPU has both (set at import) */
static int cpu_has_adx = 0;

/* One MSM entry point for both groups (g2: 0 or 1): the arguments checked, the scalars out
 * of Montgomery form, the MSM run without the GIL on the MULX/ADX or the portable instance. */
static PyObject *run_msm(PyObject *args, int g2) {
    Py_buffer pts, sc;
    Py_ssize_t n;
    int c = 0, portable = 0;
    if (!PyArg_ParseTuple(args, "y*y*n|ip", &pts, &sc, &n, &c, &portable)) return NULL;
    const size_t psz = g2 ? 3 * sizeof(fp2) : 3 * sizeof(fp);
    PyObject *res = NULL;
    if (n < 0 || (size_t)pts.len < (size_t)n * psz || (size_t)sc.len < (size_t)n * 32) {
        PyErr_Format(PyExc_ValueError, "MSM: %zd terms need %zd bytes of points and %zd of scalars, got %zd and %zd",
                     n, n * (Py_ssize_t)psz, n * 32, pts.len, sc.len);
        goto out;
    }
    if (c < 0 || c > 16) {
        PyErr_Format(PyExc_ValueError, "MSM: window of %d bits, expected 0 (automatic) to 16", c);
        goto out;
    }
    u64 (*ks)[4] = (u64 (*)[4])malloc(((size_t)n ? (size_t)n : 1) * 32);
    if (!ks) { PyErr_NoMemory(); goto out; }
    int rc;
    g1_jac_c r1;
    g2_jac_c r2;
    const unsigned char *pb = (const unsigned char *)pts.buf;
    const u64 (*kk)[4] = (const u64 (*)[4])ks;
    const int adx = cpu_has_adx && !portable;
    Py_BEGIN_ALLOW_THREADS
    scalars_from_mont(ks, (const unsigned char *)sc.buf, (size_t)n);
#if HAVE_ADX_ASM
    if (adx) rc = g2 ? g2_msm_adx((g2_jac_adx *)&r2, pb, kk, (size_t)n, c)
                     : g1_msm_adx((g1_jac_adx *)&r1, pb, kk, (size_t)n, c);
    else
#endif
    rc = g2 ? g2_msm_c(&r2, pb, kk, (size_t)n, c) : g1_msm_c(&r1, pb, kk, (size_t)n, c);
    Py_END_ALLOW_THREADS
    (void)adx;
    free(ks);
    if (rc == MSM_ENOMEM) PyErr_NoMemory();
    else if (rc == MSM_EPOINT) PyErr_SetString(PyExc_ValueError, "MSM: a point is neither affine (z = 1) nor infinity (z = 0)");
    else if (g2) res = PyBytes_FromStringAndSize((const char *)&r2, sizeof r2);
    else res = PyBytes_FromStringAndSize((const char *)&r1, sizeof r1);
out:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&sc);
    return res;
}

static PyObject *py_g1_msm(PyObject *self, PyObject *args) { (void)self; return run_msm(args, 0); }

static PyObject *py_g2_msm(PyObject *self, PyObject *args) { (void)self; return run_msm(args, 1); }


static PyObject *py_window_bits(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t m = PyLong_AsSsize_t(arg);
    if (m < 0 && PyErr_Occurred()) return NULL;
    return PyLong_FromLong(window_bits(2 * (size_t)(m < 1 ? 1 : m), GLV_BITS));
}

PyDoc_STRVAR(g1_msm_doc,
"g1_msm(points, scalars, n, window=0, portable=False) -> bytes\n\n"
"sum k_i P_i over n G1 points in MCL's layout (96 bytes each, affine z = 1 or infinity\n"
"z = 0) and n Montgomery-form Fr scalars (32 bytes each): 96 bytes, MCL's Jacobian\n"
"layout, not normalised. window: bits per digit, 0 picks it by n; portable: the C\n"
"multiplication even where the MULX/ADX one runs (ADX says whether it does).\n"
"ValueError for a point with another z.");
PyDoc_STRVAR(g2_msm_doc, "g2_msm(points, scalars, n, window=0, portable=False) -> bytes\n\n"
"g1_msm in G2: 192-byte points (x, y, z over Fp2), 192 bytes out.");
PyDoc_STRVAR(window_bits_doc, "window_bits(n) -> int\n\nThe window a G1 MSM picks for n live terms (2n after the split).");

static PyMethodDef methods[] = {
    {"g1_msm", py_g1_msm, METH_VARARGS, g1_msm_doc},
    {"g2_msm", py_g2_msm, METH_VARARGS, g2_msm_doc},
    {"window_bits", py_window_bits, METH_O, window_bits_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "zkbluff._msm_native",
    "BN254 G1 and G2 multi-scalar multiplication on MCL's point layout (see zkbluff.curve.mcl_backend).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__msm_native(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *mod = PyLong_FromUnsignedNativeBytes(P_MOD, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    PyObject *mod = _PyLong_FromByteArray((const unsigned char *)P_MOD, 32, 1, 0);
#endif
    if (!mod || PyModule_AddObject(m, "FP_MODULUS", mod) < 0) { Py_XDECREF(mod); Py_DECREF(m); return NULL; }
#if HAVE_ADX_ASM
    __builtin_cpu_init();
    cpu_has_adx = __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
#endif
    if (PyModule_AddIntConstant(m, "ADX", cpu_has_adx) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
