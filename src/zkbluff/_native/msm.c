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

/* ------------------------------------------------------------------ G2 subgroup membership */

/* A point Q of the twist is in G2 iff [x + 1]Q + psi([x]Q) + psi^2([x]Q) = psi^3([2x]Q),
 * x the BN parameter (63 bits), psi the untwist-Frobenius-twist endomorphism
 * psi(x, y) = (conj(x) gx, conj(y) gy): Dai, Lin, Zhao and Zhou, "Fast subgroup
 * membership testings for G1, G2 and GT on pairing-friendly curves", eprint 2022/348,
 * for BN curves whose x is neither 4 mod 13 nor 92 mod 97 (BN254's is neither; checked
 * in zkbluff.curve.g2_subgroup), as Sanso and Liang, "Fast G2 subgroup check in BN254",
 * ethresear.ch/t/13974, apply it. One 63-bit multiplication instead of MCL's by the
 * 254-bit r. [x]Q is a signed-digit (NAF) double-and-add on the whole twist: the
 * Jacobian formulas hold for every point of y^2 = x^3 + b', and never the GLS split,
 * which holds in G2 only. psi on Jacobian (X, Y, Z) is (conj(X) gx, conj(Y) gy, conj(Z)).
 * The caller derives gx, gy and x's digits from the curve parameters
 * (zkbluff.curve.g2_subgroup). Returns 1 for a point of G2, else 0; q finite, affine. */
#define DEFINE_G2_PSI_CHECK(S) \
static void g2_psi_##S(g2_jac_##S *o, const g2_jac_##S *a, const fp2 *gx, const fp2 *gy) { \
    fp2 c; \
    c.c0 = a->x.c0; fp_neg(&c.c1, &a->x.c1); fp2_mul_##S(&o->x, &c, gx); \
    c.c0 = a->y.c0; fp_neg(&c.c1, &a->y.c1); fp2_mul_##S(&o->y, &c, gy); \
    o->z.c0 = a->z.c0; fp_neg(&o->z.c1, &a->z.c1); \
} \
static int g2_jac_equal_##S(const g2_jac_##S *a, const g2_jac_##S *b) { \
    int ia = g2_jac_is_inf_##S(a), ib = g2_jac_is_inf_##S(b); \
    if (ia || ib) return ia && ib; \
    fp2 za2, zb2, za3, zb3, l, r; \
    fp2_sqr_##S(&za2, &a->z); fp2_sqr_##S(&zb2, &b->z); \
    fp2_mul_##S(&l, &a->x, &zb2); fp2_mul_##S(&r, &b->x, &za2); \
    if (!fp2_eq(&l, &r)) return 0; \
    fp2_mul_##S(&za3, &za2, &a->z); fp2_mul_##S(&zb3, &zb2, &b->z); \
    fp2_mul_##S(&l, &a->y, &zb3); fp2_mul_##S(&r, &b->y, &za3); \
    return fp2_eq(&l, &r); \
} \
static int g2_psi_check_##S(const g2_aff_##S *q, const fp2 *gx, const fp2 *gy, const signed char *naf, int len) { \
    g2_aff_##S nq = *q; \
    fp2_neg(&nq.y, &q->y); \
    g2_jac_##S xq, lhs, t, rhs; \
    g2_jac_set_inf_##S(&xq); \
    for (int i = len - 1; i >= 0; i--) { \
        g2_jac_dbl_##S(&xq, &xq); \
        if (naf[i] == 1) g2_jac_add_aff_##S(&xq, &xq, q); \
        else if (naf[i] == -1) g2_jac_add_aff_##S(&xq, &xq, &nq); \
    } \
    g2_jac_add_aff_##S(&lhs, &xq, q);       /* [x + 1]Q */ \
    g2_psi_##S(&t, &xq, gx, gy); \
    g2_jac_add_##S(&lhs, &lhs, &t);          /* + psi([x]Q) */ \
    g2_psi_##S(&t, &t, gx, gy); \
    g2_jac_add_##S(&lhs, &lhs, &t);          /* + psi^2([x]Q) */ \
    g2_jac_dbl_##S(&rhs, &xq); \
    g2_psi_##S(&rhs, &rhs, gx, gy); \
    g2_psi_##S(&rhs, &rhs, gx, gy); \
    g2_psi_##S(&rhs, &rhs, gx, gy);          /* psi^3([2x]Q) */ \
    return g2_jac_equal_##S(&lhs, &rhs); \
}
DEFINE_G2_PSI_CHECK(c)
#if HAVE_ADX_ASM
DEFINE_G2_PSI_CHECK(adx)
#endif

/* the index of the first of n points (MCL's layout: x, y, z over Fp2, z = 1 or 0) that is
 * not in G2, n when all are (the point at infinity is); -2 for a z that is neither */
static Py_ssize_t g2_first_outside(const unsigned char *pts, Py_ssize_t n, const fp2 *gx, const fp2 *gy,
                                   const signed char *naf, int len, int adx) {
    for (Py_ssize_t i = 0; i < n; i++) {
        const fp2 *p = (const fp2 *)(pts + (size_t)i * 3 * sizeof(fp2));
        if (fp2_is_zero(&p[2])) continue;
        if (!fp2_eq(&p[2], &FP2_ONE)) return -2;
        int ok;
#if HAVE_ADX_ASM
        if (adx) { g2_aff_adx q = {p[0], p[1]}; ok = g2_psi_check_adx(&q, gx, gy, naf, len); }
        else
#endif
        { g2_aff_c q = {p[0], p[1]}; ok = g2_psi_check_c(&q, gx, gy, naf, len); }
        (void)adx;
        if (!ok) return i;
    }
    return n;
}

/* One random combination of twist points, checked: *in = 1 when sum k_i Q_i is in G2 (the psi
 * criterion on the sum), else 0. The sum is the MSM on the whole twist (the g2w instance,
 * without the GLS split, which holds in G2 only), its scalars below 2^nbits. Why a few such
 * sums with secret random scalars stand for checking every point: zkbluff.curve.g2_subgroup,
 * batch_rounds. Returns 0, MSM_ENOMEM or MSM_EPOINT. */
#define DEFINE_G2_COMBINATION_CHECK(S) \
static int g2_combination_check_##S(int *in, const unsigned char *pts, const u64 (*ks)[4], size_t n, int nbits, \
                                    const fp2 *gx, const fp2 *gy, const signed char *naf, int len) { \
    g2w_jac_##S sum; \
    int rc = g2w_msm_bits_##S(&sum, pts, ks, n, 0, nbits); \
    if (rc) return rc; \
    if (g2w_jac_is_inf_##S(&sum)) { *in = 1; return 0; } \
    fp2 zi, zi2, zi3; \
    fp2_inv_##S(&zi, &sum.z); \
    fp2_sqr_##S(&zi2, &zi); \
    fp2_mul_##S(&zi3, &zi2, &zi); \
    g2_aff_##S q; \
    fp2_mul_##S(&q.x, &sum.x, &zi2); \
    fp2_mul_##S(&q.y, &sum.y, &zi3); \
    *in = g2_psi_check_##S(&q, gx, gy, naf, len); \
    return 0; \
}
DEFINE_G2_COMBINATION_CHECK(c)
#if HAVE_ADX_ASM
DEFINE_G2_COMBINATION_CHECK(adx)
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

static PyObject *py_g2_first_outside_subgroup(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pts, consts, naf;
    Py_ssize_t n;
    int portable = 0;
    if (!PyArg_ParseTuple(args, "y*ny*y*|p", &pts, &n, &consts, &naf, &portable)) return NULL;
    PyObject *res = NULL;
    if (n < 0 || (size_t)pts.len < (size_t)n * 3 * sizeof(fp2) || consts.len != 2 * (Py_ssize_t)sizeof(fp2)
        || naf.len < 1 || naf.len > 256) {
        PyErr_Format(PyExc_ValueError, "g2_first_outside_subgroup: %zd points need %zd bytes (got %zd), the "
                     "constants %zd (got %zd), the digits 1 to 256 (got %zd)", n, n * 3 * (Py_ssize_t)sizeof(fp2),
                     pts.len, 2 * (Py_ssize_t)sizeof(fp2), consts.len, naf.len);
        goto out;
    }
    fp2 g[2];
    memcpy(g, consts.buf, sizeof g);
    Py_ssize_t first;
    const int adx = cpu_has_adx && !portable;
    Py_BEGIN_ALLOW_THREADS
    first = g2_first_outside((const unsigned char *)pts.buf, n, &g[0], &g[1], (const signed char *)naf.buf,
                             (int)naf.len, adx);
    Py_END_ALLOW_THREADS
    if (first == -2) PyErr_SetString(PyExc_ValueError, "g2_first_outside_subgroup: a point is neither affine (z = 1) "
                                                       "nor infinity (z = 0)");
    else res = PyLong_FromSsize_t(first);
out:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&consts);
    PyBuffer_Release(&naf);
    return res;
}

static PyObject *py_g2_combination_in_subgroup(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pts, ws, consts, naf;
    Py_ssize_t n;
    int nbits, portable = 0;
    if (!PyArg_ParseTuple(args, "y*ny*iy*y*|p", &pts, &n, &ws, &nbits, &consts, &naf, &portable)) return NULL;
    PyObject *res = NULL;
    if (n < 0 || (size_t)pts.len < (size_t)n * 3 * sizeof(fp2) || (size_t)ws.len != (size_t)n * 8
        || nbits < 1 || nbits > 64 || consts.len != 2 * (Py_ssize_t)sizeof(fp2) || naf.len < 1 || naf.len > 256) {
        PyErr_Format(PyExc_ValueError, "g2_combination_in_subgroup: %zd points need %zd bytes (got %zd) and %zd "
                     "bytes of weights (got %zd), weights of 1 to 64 bits (got %d), the constants %zd bytes "
                     "(got %zd), the digits 1 to 256 (got %zd)", n, n * 3 * (Py_ssize_t)sizeof(fp2), pts.len,
                     n * 8, ws.len, nbits, 2 * (Py_ssize_t)sizeof(fp2), consts.len, naf.len);
        goto out;
    }
    u64 (*ks)[4] = (u64 (*)[4])calloc((size_t)n ? (size_t)n : 1, 32);
    if (!ks) { PyErr_NoMemory(); goto out; }
    const unsigned char *wb = (const unsigned char *)ws.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        memcpy(&ks[i][0], wb + 8 * i, 8);
        if (nbits < 64 && (ks[i][0] >> nbits)) {
            free(ks);
            PyErr_Format(PyExc_ValueError, "g2_combination_in_subgroup: weight %zd is not below 2^%d", i, nbits);
            goto out;
        }
    }
    fp2 g[2];
    memcpy(g, consts.buf, sizeof g);
    int in = 0, rc;
    const int adx = cpu_has_adx && !portable;
    const unsigned char *pb = (const unsigned char *)pts.buf;
    const u64 (*kk)[4] = (const u64 (*)[4])ks;
    Py_BEGIN_ALLOW_THREADS
#if HAVE_ADX_ASM
    if (adx) rc = g2_combination_check_adx(&in, pb, kk, (size_t)n, nbits, &g[0], &g[1], (const signed char *)naf.buf,
                                           (int)naf.len);
    else
#endif
    rc = g2_combination_check_c(&in, pb, kk, (size_t)n, nbits, &g[0], &g[1], (const signed char *)naf.buf,
                                (int)naf.len);
    Py_END_ALLOW_THREADS
    (void)adx;
    free(ks);
    if (rc == MSM_ENOMEM) PyErr_NoMemory();
    else if (rc == MSM_EPOINT) PyErr_SetString(PyExc_ValueError, "g2_combination_in_subgroup: a point is neither "
                                                                 "affine (z = 1) nor infinity (z = 0)");
    else res = PyBool_FromLong(in);
out:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&ws);
    PyBuffer_Release(&consts);
    PyBuffer_Release(&naf);
    return res;
}

/* ------------------------------------------------------------------ point sections */

/* a < p, 4 limbs (a canonical Montgomery coordinate) */
static inline int fp_below_p(const u64 a[4]) { return !geq4(a, P_MOD); }

static PyObject *fp_plain_pylong(const fp *a) {
    static const u64 ONE[4] = {1, 0, 0, 0};
    u64 plain[4];
    mont_mul(plain, a->v, ONE, P_MOD, P_INV_NEG);
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(plain, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)plain, 32, 1, 0);
#endif
}

/* (a0 + a1 u)(b0 + b1 u) with u^2 = -1, Montgomery, portable products (a decoder, not a hot loop) */
static void fp2_mul_plainc(fp *o0, fp *o1, const fp *a0, const fp *a1, const fp *b0, const fp *b1) {
    fp t0, t1, t2, t3;
    mont_mul(t0.v, a0->v, b0->v, P_MOD, P_INV_NEG);
    mont_mul(t1.v, a1->v, b1->v, P_MOD, P_INV_NEG);
    mont_mul(t2.v, a0->v, b1->v, P_MOD, P_INV_NEG);
    mont_mul(t3.v, a1->v, b0->v, P_MOD, P_INV_NEG);
    fp_sub(o0, &t0, &t1);
    fp_add(o1, &t2, &t3);
}

/* the points of a .zkey section: count points of 2 (G1) or 4 (G2) coordinates, each 32
 * little-endian bytes in Montgomery form (snarkjs's layout), all zero for the point at
 * infinity. A list of (x, y) (G1) or ((x0, x1), (y0, y1)) (G2) plain ints, None for
 * infinity; or None (not a list) when the data is short, a coordinate is not below p or,
 * with checked, a point is off y^2 = x^3 + b (b in Montgomery form, 1 or 2 coordinates):
 * the caller then reads the section in Python, whose error names the point. */
static PyObject *py_decode_points(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer data, bb;
    Py_ssize_t count;
    int g2, checked;
    if (!PyArg_ParseTuple(args, "y*npy*p", &data, &count, &g2, &bb, &checked)) return NULL;
    const Py_ssize_t coords = g2 ? 4 : 2, size = 32 * coords;
    PyObject *out = NULL;
    if (count < 0 || bb.len != 16 * coords) {
        PyErr_Format(PyExc_ValueError, "decode_points: count %zd, b of %zd bytes (expected %zd)", count, bb.len,
                     16 * coords);
        goto done;
    }
    if (data.len < count * size) { out = Py_None; Py_INCREF(out); goto done; }
    fp b[2];
    memcpy(b, bb.buf, (size_t)bb.len);
    out = PyList_New(count);
    if (!out) goto done;
    const unsigned char *base = (const unsigned char *)data.buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        fp c[4];
        memcpy(c, base + i * size, (size_t)size);
        int zero = 1, ok = 1;
        for (Py_ssize_t k = 0; k < coords; k++) {
            zero &= fp_is_zero(&c[k]);
            ok &= fp_below_p(c[k].v);
        }
        if (zero) { Py_INCREF(Py_None); PyList_SET_ITEM(out, i, Py_None); continue; }
        if (ok && checked) {
            if (!g2) {  /* y^2 = x^3 + b */
                fp l, x2, r;
                mont_mul(l.v, c[1].v, c[1].v, P_MOD, P_INV_NEG);
                mont_mul(x2.v, c[0].v, c[0].v, P_MOD, P_INV_NEG);
                mont_mul(r.v, x2.v, c[0].v, P_MOD, P_INV_NEG);
                fp_add(&r, &r, &b[0]);
                ok = fp_eq(&l, &r);
            } else {   /* over Fp2: x = c0 + c1 u, y = c2 + c3 u */
                fp l0, l1, s0, s1, r0, r1;
                fp2_mul_plainc(&l0, &l1, &c[2], &c[3], &c[2], &c[3]);
                fp2_mul_plainc(&s0, &s1, &c[0], &c[1], &c[0], &c[1]);
                fp2_mul_plainc(&r0, &r1, &s0, &s1, &c[0], &c[1]);
                fp_add(&r0, &r0, &b[0]);
                fp_add(&r1, &r1, &b[1]);
                ok = fp_eq(&l0, &r0) && fp_eq(&l1, &r1);
            }
        }
        if (!ok) { Py_DECREF(out); out = Py_None; Py_INCREF(out); goto done; }
        PyObject *v[4] = {NULL, NULL, NULL, NULL}, *pt = NULL;
        int bad = 0;
        for (Py_ssize_t k = 0; k < coords; k++) if (!(v[k] = fp_plain_pylong(&c[k]))) bad = 1;
        if (!bad) {
            if (!g2) pt = PyTuple_Pack(2, v[0], v[1]);
            else {
                PyObject *x = PyTuple_Pack(2, v[0], v[1]), *y = PyTuple_Pack(2, v[2], v[3]);
                if (x && y) pt = PyTuple_Pack(2, x, y);
                Py_XDECREF(x);
                Py_XDECREF(y);
            }
        }
        for (Py_ssize_t k = 0; k < coords; k++) Py_XDECREF(v[k]);
        if (!pt) { Py_DECREF(out); out = NULL; goto done; }
        PyList_SET_ITEM(out, i, pt);
    }
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&bb);
    return out;
}

PyDoc_STRVAR(decode_points_doc,
"decode_points(data, count, g2, b, checked) -> list | None\n\n"
"count points of a .zkey section (Montgomery-form little-endian coordinates, all zero the\n"
"point at infinity) as plain-int tuples (None for infinity), checked below p and, with\n"
"checked, on y^2 = x^3 + b (b: its coordinates in Montgomery form); None when any is not,\n"
"or the data is short (the caller's Python reader then names the point).");

PyDoc_STRVAR(g2_combination_in_subgroup_doc,
"g2_combination_in_subgroup(points, n, weights, nbits, constants, digits, portable=False) -> bool\n\n"
"Whether sum w_i Q_i is in G2 (the psi criterion on the sum): points as for\n"
"g2_first_outside_subgroup, weights n little-endian 64-bit integers each below 2^nbits, the sum\n"
"taken on the whole twist (no GLS split). The caller draws the weights (secret, random) and\n"
"decides how many sums (zkbluff.curve.g2_subgroup.batch_rounds).");

PyDoc_STRVAR(g2_first_outside_subgroup_doc,
"g2_first_outside_subgroup(points, n, constants, digits, portable=False) -> int\n\n"
"The index of the first of n G2 points (MCL's layout, 192 bytes each, affine z = 1 or\n"
"infinity z = 0) outside G2 (the psi criterion), or n when there is none. constants: gx\n"
"then gy of psi (Fp2, Montgomery form, 128 bytes); digits: the BN parameter x in signed\n"
"binary, least significant\n"
"first, one int8 (-1, 0, 1) each. The caller derives both (zkbluff.curve.g2_subgroup).");

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
    {"g2_first_outside_subgroup", py_g2_first_outside_subgroup, METH_VARARGS, g2_first_outside_subgroup_doc},
    {"g2_combination_in_subgroup", py_g2_combination_in_subgroup, METH_VARARGS, g2_combination_in_subgroup_doc},
    {"decode_points", py_decode_points, METH_VARARGS, decode_points_doc},
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
