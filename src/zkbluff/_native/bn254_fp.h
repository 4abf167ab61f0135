/*
 * BN254 (alt_bn128) base field Fp, shared by the C extensions zkbluff._msm_native (msm.c)
 * and zkbluff._points_native (points.c). One copy of:
 *   - the limb types (u64, u128, fp: four little-endian 64-bit limbs, the layout of MCL's
 *     Fp, in Montgomery form x 2^256 mod p) and the constants p, -p^-1 mod 2^64, the
 *     Montgomery one, r and -r^-1 mod 2^64;
 *   - the 4-limb Montgomery product mont_mul_core over any such modulus (portable C),
 *     its Fp instances mont_mul_p / mont_mul_p_lazy, and the MULX/ADX assembly ones
 *     (mont_mul_p_adx* on mont_adx.h's product, which fr.c shares for Fr; mul_wide_adx,
 *     mont_reduce_adx) where the compiler targets
 *     x86-64 (HAVE_ADX_ASM; whether the CPU runs them is the includer's check at import;
 *     -DZKBLUFF_PORTABLE builds without them and without the carry intrinsics, as on
 *     another architecture, and points.c then without its AVX-512 IFMA code);
 *   - Fp add / sub / dbl / neg / eq / is_zero / reduce, the double-width product and
 *     reduction, fp_mul / fp_sqr (portable, canonical), inversion (fp_inv_by over any of
 *     the products, fp_inv) and batch inversion (Montgomery's trick);
 *   - the GLV split of G1 scalars (glv_split; zkbluff.curve.glv.split is its Python twin,
 *     tested equal in tests/curve/test_glv_split_twins.py).
 * (The Jacobian doubling and mixed addition, generic over the field, are bn254_jac.h.)
 * fr.c keeps its own Fr product (branching final subtraction): on the shared one here its
 * 2^16 NTT ran ~4% and its batch inversion ~10% slower (measured).
 * Everything is static: each extension compiles its own copy. Each module's results are
 * checked against MCL at load or first use (mcl_backend._msm_self_check,
 * _points_self_check); the constants against zkbluff.field in
 * tests/curve/test_glv_split_twins.py.
 */
#ifndef ZKBLUFF_BN254_FP_H
#define ZKBLUFF_BN254_FP_H

#include <stdint.h>
#include <string.h>

#include "mont_adx.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bn254_fp.h assumes a little-endian machine (limbs are stored as they lie in memory)"
#endif

typedef uint64_t u64;
typedef unsigned __int128 u128;

typedef struct { u64 v[4]; } fp;

/* p, the BN254 base field modulus */
static const u64 P_MOD[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                             0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const u64 P_INV_NEG = 0x87d20782e4866389ULL;   /* -p^-1 mod 2^64 */
static const fp FP_ONE = {{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL,
                           0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}};  /* 2^256 mod p */
/* r, the group order (the scalars' field) */
static const u64 R_MOD[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                             0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const u64 R_INV_NEG = 0xc2e1f593efffffffULL;   /* -r^-1 mod 2^64 */

/* ------------------------------------------------------------------ 4-limb Montgomery */

static inline int geq4(const u64 a[4], const u64 m[4]) {
    for (int i = 3; i >= 0; i--)
        if (a[i] != m[i]) return a[i] > m[i];
    return 1;
}

static inline void sub4(u64 a[4], const u64 m[4]) {
    u64 borrow = 0;
    for (int i = 0; i < 4; i++) {
        u128 d = (u128)a[i] - m[i] - borrow;
        a[i] = (u64)d;
        borrow = (u64)(d >> 64) & 1;
    }
}

/* add / subtract with carry: the compiler's carry intrinsics where it has them (they
 * become ADC / SBB chains), else 128-bit arithmetic */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZKBLUFF_PORTABLE)
#include <x86intrin.h>
#define ADDC(c, a, b, out) _addcarry_u64((unsigned char)(c), (a), (b), (unsigned long long *)(out))
#define SUBB(c, a, b, out) _subborrow_u64((unsigned char)(c), (a), (b), (unsigned long long *)(out))
#else
static inline unsigned char ADDC(unsigned char c, u64 a, u64 b, u64 *out) {
    u128 s = (u128)a + b + c; *out = (u64)s; return (unsigned char)(s >> 64);
}
static inline unsigned char SUBB(unsigned char c, u64 a, u64 b, u64 *out) {
    u128 d = (u128)a - b - c; *out = (u64)d; return (unsigned char)((d >> 64) & 1);
}
#endif

/* a = a - m if a >= m, without a branch (a < 2m < 2^256) */
static inline void reduce_once(u64 a[4], const u64 m[4]) {
    u64 d[4];
    unsigned char b = 0;
    b = SUBB(b, a[0], m[0], &d[0]);
    b = SUBB(b, a[1], m[1], &d[1]);
    b = SUBB(b, a[2], m[2], &d[2]);
    b = SUBB(b, a[3], m[3], &d[3]);
    u64 keep = (u64)0 - b;  /* all ones: a < m, keep a */
    for (int i = 0; i < 4; i++) a[i] = (a[i] & keep) | (d[i] & ~keep);
}

/* out = a b 2^-256 mod m (CIOS in the "no carry" form: m's top limb is below 2^62, so
 * the running total needs no fifth limb); out may alias a or b. With reduce, a, b < m
 * and out < m. Without (lazy), a, b < 2m and out < 2m, as (a b + q m) / 2^256 <
 * m (4m / 2^256) + m < 2m for m < 2^254; every partial total stays below 3m < 2^256. */
static inline __attribute__((always_inline)) void mont_mul_core(u64 out[4], const u64 a[4], const u64 b[4],
                                                                const u64 m[4], u64 minv, int reduce) {
    u64 t[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        u64 bi = b[i];
        u128 s = (u128)a[0] * bi + t[0];
        u64 ca = (u64)(s >> 64), lo = (u64)s, q = lo * minv;
        u128 r = (u128)q * m[0] + lo;
        u64 cm = (u64)(r >> 64);
        for (int j = 1; j < 4; j++) {
            s = (u128)a[j] * bi + t[j] + ca;
            ca = (u64)(s >> 64);
            r = (u128)q * m[j] + (u64)s + cm;
            cm = (u64)(r >> 64);
            t[j - 1] = (u64)r;
        }
        t[3] = ca + cm;
    }
    if (reduce) reduce_once(t, m);
    memcpy(out, t, 32);
}

static inline void mont_mul(u64 out[4], const u64 a[4], const u64 b[4], const u64 m[4], u64 minv) {
    mont_mul_core(out, a, b, m, minv, 1);
}

/* ------------------------------------------------------------------ Fp */

static inline void fp_add(fp *o, const fp *a, const fp *b) {
    u64 t[4];
    unsigned char c = 0;
    c = ADDC(c, a->v[0], b->v[0], &t[0]);
    c = ADDC(c, a->v[1], b->v[1], &t[1]);
    c = ADDC(c, a->v[2], b->v[2], &t[2]);
    (void)ADDC(c, a->v[3], b->v[3], &t[3]);   /* a + b < 2p < 2^255: no carry out */
    reduce_once(t, P_MOD);
    memcpy(o->v, t, 32);
}

static inline void fp_sub(fp *o, const fp *a, const fp *b) {
    u64 t[4];
    unsigned char c = 0;
    c = SUBB(c, a->v[0], b->v[0], &t[0]);
    c = SUBB(c, a->v[1], b->v[1], &t[1]);
    c = SUBB(c, a->v[2], b->v[2], &t[2]);
    c = SUBB(c, a->v[3], b->v[3], &t[3]);
    u64 mask = (u64)0 - c;   /* went below zero: add p back */
    c = 0;
    c = ADDC(c, t[0], P_MOD[0] & mask, &o->v[0]);
    c = ADDC(c, t[1], P_MOD[1] & mask, &o->v[1]);
    c = ADDC(c, t[2], P_MOD[2] & mask, &o->v[2]);
    (void)ADDC(c, t[3], P_MOD[3] & mask, &o->v[3]);
}

static inline void fp_dbl(fp *o, const fp *a) { fp_add(o, a, a); }

static inline int fp_is_zero(const fp *a) { return (a->v[0] | a->v[1] | a->v[2] | a->v[3]) == 0; }

static inline int fp_eq(const fp *a, const fp *b) {
    return ((a->v[0] ^ b->v[0]) | (a->v[1] ^ b->v[1]) | (a->v[2] ^ b->v[2]) | (a->v[3] ^ b->v[3])) == 0;
}

static inline void fp_neg(fp *o, const fp *a) {
    if (fp_is_zero(a)) { *o = *a; return; }
    fp z = {{0, 0, 0, 0}};
    fp_sub(o, &z, a);
}


/* ------------------------------------------------------------------ Fp multiplication with MULX/ADX */

#if ZKBLUFF_HAVE_MONT_ADX
#define HAVE_ADX_ASM 1
/* mont_mul modulo p in x86-64 assembly: mont_adx.h's product (the same CIOS steps as
 * mont_mul), then reduce_once. Only run where the CPU has BMI2 and ADX (checked at import). */
static inline __attribute__((always_inline)) void mont_mul_p_adx_core(u64 out[4], const u64 a[4], const u64 b[4],
                                                                      int reduce) {
    u64 t[4];
    mont_mul_adx_unreduced(t, a, b, P_MOD, &P_INV_NEG);
    if (reduce) reduce_once(t, P_MOD);
    memcpy(out, t, 32);
}
/* t = a b (512 bits), MULX/ADX */
static inline __attribute__((always_inline)) void mul_wide_adx(u64 out[8], const u64 a[4], const u64 b[4]) {
    u64 t0, t1, t2, t3, t4, lo, hi;
    __asm__ volatile(
        "movq 0(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[t0], %[t1]\n\t"
        "mulxq 8(%[a]), %[lo], %[t2]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "mulxq 16(%[a]), %[lo], %[t3]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "mulxq 24(%[a]), %[lo], %[t4]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "movl $0, %k[lo]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "movq %[t0], 0(%[out])\n\t"
        "movq 8(%[b]), %%rdx\n\t"
        "xorl %k[t0], %k[t0]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "movl $0, %k[lo]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "movq %[t1], 8(%[out])\n\t"
        "movq 16(%[b]), %%rdx\n\t"
        "xorl %k[t1], %k[t1]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "movl $0, %k[lo]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "movq %[t2], 16(%[out])\n\t"
        "movq 24(%[b]), %%rdx\n\t"
        "xorl %k[t2], %k[t2]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "movl $0, %k[lo]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "movq %[t3], 24(%[out])\n\t"
        "movq %[t4], 32(%[out])\n\t"
        "movq %[t0], 40(%[out])\n\t"
        "movq %[t1], 48(%[out])\n\t"
        "movq %[t2], 56(%[out])\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo),
          [hi] "=&r"(hi)
        : [a] "r"(a), [b] "r"(b), [out] "r"(out), "m"(*(const u64 (*)[4])a), "m"(*(const u64 (*)[4])b)
        : "rdx", "cc", "memory");
}

/* out = t 2^-256 mod p for t < p 2^256, MULX/ADX: the low half reduced, the high half
 * added, one subtraction */
static inline __attribute__((always_inline)) void mont_reduce_adx(u64 out[4], const u64 t[8]) {
    u64 t0, t1, t2, t3, t4, lo, hi;
    __asm__(
        "movq 0(%[t]), %[t0]\n\t"
        "movq 8(%[t]), %[t1]\n\t"
        "movq 16(%[t]), %[t2]\n\t"
        "movq 24(%[t]), %[t3]\n\t"
        "xorl %k[t4], %k[t4]\n\t"
        "movq %[t0], %%rdx\n\t"
        "imulq %[pinv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "adoxq %[t0], %[t4]\n\t"
        "movq %[t1], %%rdx\n\t"
        "imulq %[pinv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "adoxq %[t1], %[t0]\n\t"
        "movq %[t2], %%rdx\n\t"
        "imulq %[pinv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "adoxq %[t2], %[t1]\n\t"
        "movq %[t3], %%rdx\n\t"
        "imulq %[pinv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "adoxq %[t3], %[t2]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [lo] "=&r"(lo),
          [hi] "=&r"(hi)
        : [t] "r"(t), "m"(*(const u64 (*)[8])t),
          [p0] "m"(P_MOD[0]), [p1] "m"(P_MOD[1]), [p2] "m"(P_MOD[2]), [p3] "m"(P_MOD[3]), [pinv] "m"(P_INV_NEG)
        : "rdx", "cc");
    u64 r[4];
    unsigned char c = 0;
    c = ADDC(c, t4, t[4], &r[0]);
    c = ADDC(c, t0, t[5], &r[1]);
    c = ADDC(c, t1, t[6], &r[2]);
    (void)ADDC(c, t2, t[7], &r[3]);   /* below 3p / 2 + 1 */
    reduce_once(r, P_MOD);
    memcpy(out, r, 32);
}

static inline __attribute__((always_inline)) void mont_mul_p_adx(u64 out[4], const u64 a[4], const u64 b[4]) { mont_mul_p_adx_core(out, a, b, 1); }
static inline __attribute__((always_inline)) void mont_mul_p_adx_lazy(u64 out[4], const u64 a[4], const u64 b[4]) { mont_mul_p_adx_core(out, a, b, 0); }
#else
#define HAVE_ADX_ASM 0
#endif

static inline void mont_mul_p(u64 out[4], const u64 a[4], const u64 b[4]) { mont_mul_core(out, a, b, P_MOD, P_INV_NEG, 1); }
static inline void mont_mul_p_lazy(u64 out[4], const u64 a[4], const u64 b[4]) {
    mont_mul_core(out, a, b, P_MOD, P_INV_NEG, 0);
}

/* ---- double-width products for Fp2 (Karatsuba with two reductions instead of three) */

static const u64 P_SQUARED[8] = {0x3b5458a2275d69b1ULL, 0xa602072d09eac101ULL, 0x4a50189c6d96cadcULL,
                                 0x04689e957a1242c8ULL, 0x26edfa5c34c6b38dULL, 0xb00b855116375606ULL,
                                 0x599a6f7c0348d21cULL, 0x0925c4b8763cbf9cULL};

/* t = a b (512 bits) */
static inline void mul_wide(u64 t[8], const u64 a[4], const u64 b[4]) {
    for (int i = 0; i < 8; i++) t[i] = 0;
    for (int i = 0; i < 4; i++) {
        u64 c = 0;
        for (int j = 0; j < 4; j++) {
            u128 x = (u128)a[i] * b[j] + t[i + j] + c;
            t[i + j] = (u64)x;
            c = (u64)(x >> 64);
        }
        t[i + 4] = c;
    }
}

/* out = t 2^-256 mod p for t < p 2^256 (Montgomery reduction, then one subtraction) */
static inline void mont_reduce(u64 out[4], u64 t[8]) {
    u64 c2 = 0;
    for (int i = 0; i < 4; i++) {
        u64 q = t[i] * P_INV_NEG, c = 0;
        for (int j = 0; j < 4; j++) {
            u128 x = (u128)q * P_MOD[j] + t[i + j] + c;
            t[i + j] = (u64)x;
            c = (u64)(x >> 64);
        }
        u128 x = (u128)t[i + 4] + c + c2;
        t[i + 4] = (u64)x;
        c2 = (u64)(x >> 64);
    }
    u64 r[4] = {t[4], t[5], t[6], t[7]};
    reduce_once(r, P_MOD);
    memcpy(out, r, 32);
}

static inline unsigned char sub8(u64 a[8], const u64 b[8]) {
    unsigned char c = 0;
    for (int i = 0; i < 8; i++) c = SUBB(c, a[i], b[i], &a[i]);
    return c;
}

/* a < 2p to a < p */
static inline void fp_reduce(fp *a) { reduce_once(a->v, P_MOD); }


/* ------------------------------------------------------------------ products, inversion */

/* canonical products (inputs and output below p), portable C */
static inline void fp_mul(fp *o, const fp *a, const fp *b) { mont_mul_p(o->v, a->v, b->v); }
static inline void fp_sqr(fp *o, const fp *a) { mont_mul_p(o->v, a->v, a->v); }

/* o = a^-1 = a^(p-2) (Fermat, 4-bit fixed window; 0 maps to 0: callers never invert 0)
 * with the product mul (one of the canonical ones above: inlined, so the call is direct) */
static inline __attribute__((always_inline)) void fp_inv_by(fp *o, const fp *a,
                                                            void (*mul)(u64 *, const u64 *, const u64 *)) {
    static const u64 E[4] = {0x3c208c16d87cfd45ULL, 0x97816a916871ca8dULL,
                             0xb85045b68181585dULL, 0x30644e72e131a029ULL};
    fp tab[16];
    tab[0] = FP_ONE;
    tab[1] = *a;
    for (int i = 2; i < 16; i++) mul(tab[i].v, tab[i - 1].v, a->v);
    fp acc = FP_ONE;
    for (int i = 63; i >= 0; i--) {
        int nib = (int)((E[i / 16] >> (4 * (i % 16))) & 15);
        if (i != 63) for (int s = 0; s < 4; s++) mul(acc.v, acc.v, acc.v);
        if (nib) mul(acc.v, acc.v, tab[nib].v);
    }
    *o = acc;
}

static inline void fp_inv(fp *o, const fp *a) { fp_inv_by(o, a, mont_mul_p); }

/* out_i = 1 / a_i for n nonzero a_i (Montgomery's trick: one inversion; scratch holds n
 * elements; out may alias a) */
static inline void fp_batch_inv(fp *out, const fp *a, size_t n, fp *scratch) {
    fp acc = FP_ONE;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        fp_mul(&acc, &acc, &a[i]);
    }
    fp_inv(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        fp t;
        fp_mul(&t, &acc, &scratch[i]);
        fp_mul(&acc, &acc, &a[i]);
        out[i] = t;
    }
}

/* ------------------------------------------------------------------ GLV */

/* beta, a cube root of unity in Fp (Montgomery form), and lambda, the matching one in Fr:
 * (beta x, y) = lambda (x, y) on G1 (checked in tests and, through the MSM, at load) */
static const fp GLV_BETA = {{0x3350c88e13e80b9cULL, 0x7dce557cdb5e56b9ULL,
                            0x6001b4b8b615564aULL, 0x2682e617020217e0ULL}};
/* a reduced basis of the lattice {(a, b): a + b lambda = 0 mod r}: (A1, -B1N), (A2, B2) */
static const u64 GLV_A1[2] = {0x8211bbeb7d4f1128ULL, 0x6f4d8248eeb859fcULL};
static const u64 GLV_A2[1] = {0x89d3256894d213e3ULL};
static const u64 GLV_B1N[1] = {0x89d3256894d213e3ULL};
static const u64 GLV_B2[2] = {0x0be4e1541221250bULL, 0x6f4d8248eeb859fdULL};
/* floor(2^256 B2 / r) and floor(2^256 B1N / r) */
static const u64 GLV_G1[3] = {0x5398fd0300ff6565ULL, 0x4ccef014a773d2d2ULL, 0x0000000000000002ULL};
static const u64 GLV_G2[2] = {0xd91d232ec7e0b3d7ULL, 0x0000000000000002ULL};
/* the halves are below 2^GLV_BITS (below 2^127 for every scalar < r) */
#define GLV_BITS 128

/* out = x y, all nx + ny limbs */
static __attribute__((unused)) void mul_limbs(u64 *out, const u64 *x, int nx, const u64 *y, int ny) {
    memset(out, 0, (size_t)(nx + ny) * sizeof(u64));
    for (int i = 0; i < nx; i++) {
        u64 carry = 0;
        for (int j = 0; j < ny; j++) {
            u128 t = (u128)x[i] * y[j] + out[i + j] + carry;
            out[i + j] = (u64)t;
            carry = (u64)(t >> 64);
        }
        out[i + ny] = carry;
    }
}

/* a -= b (4 limbs, mod 2^256; b given by nb limbs) */
static __attribute__((unused)) void sub_limbs(u64 a[4], const u64 *b, int nb) {
    unsigned char c = 0;
    for (int i = 0; i < 4; i++) c = SUBB(c, a[i], i < nb ? b[i] : 0, &a[i]);
}

/* k = (-1)^neg1 k1 + (-1)^neg2 k2 lambda mod r with k1, k2 < 2^128 (k < r, plain):
 * c1 = floor(k B2 / r), c2 = floor(k B1N / r) (each at most 1 below the rounded
 * quotient), k1 = k - c1 A1 - c2 A2, k2 = c1 B1N - c2 B2, computed mod 2^256 (their
 * true values are small, so the two's complement gives sign and size). */
static __attribute__((unused)) void glv_split(const u64 k[4], u64 k1[4], int *neg1, u64 k2[4], int *neg2) {
    u64 w[7], c1[2], c2[2], t[4], a[4], b[4];
    mul_limbs(w, k, 4, GLV_G1, 3);
    c1[0] = w[4]; c1[1] = w[5];
    mul_limbs(w, k, 4, GLV_G2, 2);
    c2[0] = w[4]; c2[1] = w[5];
    memcpy(a, k, 32);
    mul_limbs(t, c1, 2, GLV_A1, 2);
    sub_limbs(a, t, 4);
    mul_limbs(t, c2, 2, GLV_A2, 1);
    sub_limbs(a, t, 3);
    mul_limbs(b, c1, 2, GLV_B1N, 1);
    b[3] = 0;
    mul_limbs(t, c2, 2, GLV_B2, 2);
    sub_limbs(b, t, 4);
    u64 *v[2] = {a, b};
    int *neg[2] = {neg1, neg2};
    u64 *o[2] = {k1, k2};
    for (int h = 0; h < 2; h++) {
        u64 *x = v[h];
        *neg[h] = (int)(x[3] >> 63);
        if (*neg[h]) {  /* two's complement negation */
            unsigned char c = 0;
            for (int i = 0; i < 4; i++) c = SUBB(c, 0, x[i], &x[i]);
        }
        o[h][0] = x[0];
        o[h][1] = x[1];
        o[h][2] = o[h][3] = 0;
    }
}


#endif  /* ZKBLUFF_BN254_FP_H */
