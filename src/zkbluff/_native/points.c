/*
 * zkbluff._points_native: many BN254 G1 points times one scalar (a phase-2 ceremony
 * contribution moves every L and H point, 2^17 of them at 2^16 constraints, by the
 * contributor's secret).
 *
 * The scalar's GLV split and width-5 NAF recoding are done once, in Python
 * (zkbluff.curve.glv, the twin of bn254_fp.h's glv_split, which glv_split below exposes for
 * the test that they agree), and arrive here as one digit string shared by every point:
 * k P = sum_i 2^i (d1_i P + d2_i phi(P)), phi(x, y) = (beta x, y) = lambda P. Per point:
 * a table of the odd multiples P, 3P, ..., 15P in affine coordinates (built for a block
 * of points at once, one field inversion a step by Montgomery's trick), then about 127
 * Jacobian doublings and about 42 mixed additions, then one inversion a block to return
 * to affine.
 *
 * Because the digits are shared, eight points run the same instructions: where the CPU
 * has AVX-512 IFMA (checked at import: VECTOR), each goes in one 64-bit lane, field
 * elements as five 52-bit limbs (Montgomery form for 2^260). Elsewhere the scalar code
 * runs (4 x 64-bit Montgomery limbs, bn254_fp.h's Fp arithmetic, the layout of MCL's Fp, which
 * zkbluff.curve.mcl_backend checks at load); it is slower than MCL's own multiplication,
 * so the backend then uses MCL's. Input points are checked (canonical coordinates, on
 * the curve, affine); the GIL is released; callers split the points across threads.
 *
 * The same vectors serve setup's fixed-base multiplications (one base, many scalars:
 * g1_fixed_base, g2_fixed_base): from the 32 x 255 table of d 256^j B that
 * zkbluff._fr_native.fixed_base_table builds, each lane adds the entries its scalar's bytes
 * pick (gathered), at most 32 mixed additions a scalar, in G2 over Fp2 = Fp[u]/(u^2 + 1).
 *
 * The reference is MCL's own multiplication (MclBackend.g1_batch_mul, fixed_base_mul over
 * MCL's additions) and py_ecc: every code path is tested equal to it on random and edge
 * inputs, exceptional additions included (tests/curve/test_g1_scale_kernel.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zkbluff._points_native assumes a little-endian machine (limbs are stored as they lie in memory)"
#endif

#include "bn254_fp.h"  /* fp, p, the Montgomery one, Fp arithmetic, inversion, glv_split */

/* 3 * 2^256 mod p: the curve's b in Montgomery form */
static const fp B_MONT = {{0x7a17caa950ad28d7ULL, 0x1f6ac17ae15521b9ULL,
                           0x334bea4e696bd284ULL, 0x2a1f6744ce179d8eULL}};

/* ------------------------------------------------------------------ G1 (y^2 = x^3 + 3) */
/* aff (x, y) and jac (X, Y, Z; Z = 0 the point at infinity), Jacobian doubling
 * (g1_jac_dbl, dbl-2009-l) and mixed addition (g1_jac_add_aff, madd-2007-bl, every case
 * handled): bn254_jac.h, the MSM's own, over bn254_fp.h's canonical Fp */
#define F fp
#define F_add fp_add
#define F_sub fp_sub
#define F_dbl fp_dbl
#define F_mul fp_mul
#define F_sqr fp_sqr
#define F_is_zero fp_is_zero
#define F_ONE (&FP_ONE)
#define PFX(name) g1_##name
#include "bn254_jac.h"
#undef F
#undef F_add
#undef F_sub
#undef F_dbl
#undef F_mul
#undef F_sqr
#undef F_is_zero
#undef F_ONE
#undef PFX
typedef g1_aff aff;
typedef g1_jac jac;

static inline int aff_on_curve(const aff *P) {
    fp l, r;
    fp_sqr(&l, &P->y);
    fp_sqr(&r, &P->x);
    fp_mul(&r, &r, &P->x);
    fp_add(&r, &r, &B_MONT);
    return fp_eq(&l, &r);
}


#define TAB 8      /* odd multiples 1, 3, ..., 15 of P: width-5 NAF digits */
#define BLOCK 1024 /* points whose tables share one inversion a step */

/* For the finite points pts[0..n): tab[i*TAB + j] = (2j+1) pts[i], affine. Every point is in
 * the prime-order group, so no denominator vanishes (2y != 0; (2j-1)P != +-2P for j < 8). */
static __attribute__((noinline)) void build_tables(aff *tab, const aff *pts, size_t n, fp *den, fp *inv, fp *scratch, aff *two) {
    for (size_t i = 0; i < n; i++) fp_dbl(&den[i], &pts[i].y);
    fp_batch_inv(inv, den, n, scratch);
    for (size_t i = 0; i < n; i++) {  /* 2P: lambda = 3x^2 / 2y */
        fp l, t, x3;
        fp_sqr(&t, &pts[i].x);
        fp_dbl(&l, &t);
        fp_add(&l, &l, &t);
        fp_mul(&l, &l, &inv[i]);
        fp_sqr(&x3, &l);
        fp_dbl(&t, &pts[i].x);
        fp_sub(&x3, &x3, &t);
        fp_sub(&t, &pts[i].x, &x3);
        fp_mul(&t, &l, &t);
        fp_sub(&two[i].y, &t, &pts[i].y);
        two[i].x = x3;
        tab[i * TAB] = pts[i];
    }
    for (int j = 1; j < TAB; j++) {  /* (2j+1)P = (2j-1)P + 2P */
        for (size_t i = 0; i < n; i++) fp_sub(&den[i], &two[i].x, &tab[i * TAB + j - 1].x);
        fp_batch_inv(inv, den, n, scratch);
        for (size_t i = 0; i < n; i++) {
            const aff *a = &tab[i * TAB + j - 1];
            fp l, t, x3;
            fp_sub(&l, &two[i].y, &a->y);
            fp_mul(&l, &l, &inv[i]);
            fp_sqr(&x3, &l);
            fp_sub(&x3, &x3, &a->x);
            fp_sub(&x3, &x3, &two[i].x);
            fp_sub(&t, &a->x, &x3);
            fp_mul(&t, &l, &t);
            fp_sub(&tab[i * TAB + j].y, &t, &a->y);
            tab[i * TAB + j].x = x3;
        }
    }
}

static inline void add_digit(jac *acc, const aff *tab, const fp *bx, int d) {
    if (!d) return;
    int j = (d > 0 ? d : -d) >> 1;
    aff q = tab[j];
    if (bx) q.x = bx[j];
    if (d < 0) fp_neg(&q.y, &q.y);
    g1_jac_add_aff(acc, acc, &q);
}

/* One point times the digits' scalar, from its table (scalar code; every case handled) */
static void mul_one(jac *out, const aff *T, const signed char *dig, size_t len, const fp *beta) {
    fp bx[TAB];
    for (int j = 0; j < TAB; j++) fp_mul(&bx[j], &T[j].x, beta);
    jac acc;
    memset(&acc, 0, sizeof acc);
    for (size_t s = 0; s < len; s++) {
        g1_jac_dbl(&acc, &acc);
        add_digit(&acc, T, NULL, dig[2 * s]);
        add_digit(&acc, T, bx, dig[2 * s + 1]);
    }
    *out = acc;
}

/* ------------------------------------------------------------------ 8 points at once (AVX-512 IFMA)
 * The main loop is the same for every point (the digits are shared), so eight points go
 * through it side by side, one per 64-bit lane. A field element is then five vectors of
 * 52-bit limbs, in Montgomery form for R' = 2^260, multiplied with the 52-bit
 * multiply-accumulate instructions; every result is canonical (fully reduced), so a
 * zero test is a test of the limbs. Chosen at run time when the CPU has the
 * instructions; otherwise the scalar code above runs the main loop too. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8 && !defined(ZKBLUFF_PORTABLE)
#define HAVE_IFMA_CODE 1
#include <immintrin.h>
#define VT __attribute__((target("avx512f,avx512ifma")))
/* the field and point steps always inlined: left to its heuristics, GCC stops inlining
 * them once the file has many callers, and every call then passes vectors through memory */
#define VTI __attribute__((target("avx512f,avx512ifma"), always_inline))

static const u64 M52 = (1ULL << 52) - 1;
static const u64 P52[5] = {0x08c16d87cfd47ULL, 0x916871ca8d3c2ULL, 0x181585d97816aULL, 0xa029b85045b68ULL,
                           0x030644e72e131ULL};
static const u64 PINV52 = 0x20782e4866389ULL;  /* -p^-1 mod 2^52 */
/* 2^256 mod p as a plain integer: a Montgomery (R') product with it takes x R' to x R */
static const u64 R256_52[5] = {0xd438dc58f0d9dULL, 0x28f5c70b3dd35ULL, 0x879462c0a78ebULL, 0xdf2f666ea36f7ULL,
                               0x00e0a77c19a07ULL};
/* 2^260 mod p: one in Montgomery form for R' */
static const u64 ONE260[5] = {0x20880f6fce4b4ULL, 0x49baa989a8455ULL, 0x18f014a498908ULL, 0x724f85a9201d8ULL,
                              0x01f16424e1bb7ULL};

typedef struct { __m512i l[5]; } fv;
typedef struct { fv X, Y, Z; } jv;

VTI static inline fv fv_const(const u64 c[5]) {
    fv o;
    for (int j = 0; j < 5; j++) o.l[j] = _mm512_set1_epi64((long long)c[j]);
    return o;
}

/* t (limbs of any size below 2^63, value below 2p) to canonical limbs of the value mod p */
VTI static inline fv fv_reduce(__m512i t0, __m512i t1, __m512i t2, __m512i t3, __m512i t4) {
    const __m512i m = _mm512_set1_epi64((long long)M52);
    t1 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52)); t0 = _mm512_and_si512(t0, m);
    t2 = _mm512_add_epi64(t2, _mm512_srli_epi64(t1, 52)); t1 = _mm512_and_si512(t1, m);
    t3 = _mm512_add_epi64(t3, _mm512_srli_epi64(t2, 52)); t2 = _mm512_and_si512(t2, m);
    t4 = _mm512_add_epi64(t4, _mm512_srli_epi64(t3, 52)); t3 = _mm512_and_si512(t3, m);
    __m512i d0 = _mm512_sub_epi64(t0, _mm512_set1_epi64((long long)P52[0]));
    __m512i d1 = _mm512_sub_epi64(_mm512_sub_epi64(t1, _mm512_set1_epi64((long long)P52[1])), _mm512_srli_epi64(d0, 63));
    __m512i d2 = _mm512_sub_epi64(_mm512_sub_epi64(t2, _mm512_set1_epi64((long long)P52[2])), _mm512_srli_epi64(d1, 63));
    __m512i d3 = _mm512_sub_epi64(_mm512_sub_epi64(t3, _mm512_set1_epi64((long long)P52[3])), _mm512_srli_epi64(d2, 63));
    __m512i d4 = _mm512_sub_epi64(_mm512_sub_epi64(t4, _mm512_set1_epi64((long long)P52[4])), _mm512_srli_epi64(d3, 63));
    __mmask8 below = _mm512_cmplt_epi64_mask(d4, _mm512_setzero_si512());  /* t < p: keep t */
    fv o;
    o.l[0] = _mm512_mask_blend_epi64(below, _mm512_and_si512(d0, m), t0);
    o.l[1] = _mm512_mask_blend_epi64(below, _mm512_and_si512(d1, m), t1);
    o.l[2] = _mm512_mask_blend_epi64(below, _mm512_and_si512(d2, m), t2);
    o.l[3] = _mm512_mask_blend_epi64(below, _mm512_and_si512(d3, m), t3);
    o.l[4] = _mm512_mask_blend_epi64(below, d4, t4);
    return o;
}

VTI static inline fv fv_add(fv a, fv b) {
    return fv_reduce(_mm512_add_epi64(a.l[0], b.l[0]), _mm512_add_epi64(a.l[1], b.l[1]),
                     _mm512_add_epi64(a.l[2], b.l[2]), _mm512_add_epi64(a.l[3], b.l[3]),
                     _mm512_add_epi64(a.l[4], b.l[4]));
}

VTI static inline fv fv_sub(fv a, fv b) {
    const __m512i m = _mm512_set1_epi64((long long)M52);
    __m512i d[5];
    __m512i borrow = _mm512_setzero_si512();
    for (int j = 0; j < 5; j++) {
        __m512i x = _mm512_sub_epi64(_mm512_sub_epi64(a.l[j], b.l[j]), borrow);
        borrow = _mm512_srli_epi64(x, 63);
        d[j] = j < 4 ? _mm512_and_si512(x, m) : x;  /* digits; the top limb keeps the sign */
    }
    /* below zero: add p (the top limb is then negative; the sum's carries fix it) */
    __mmask8 neg = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
    fv o;
    __m512i carry = _mm512_setzero_si512();
    for (int j = 0; j < 5; j++) {
        __m512i x = _mm512_add_epi64(_mm512_mask_add_epi64(d[j], neg, d[j], _mm512_set1_epi64((long long)P52[j])), carry);
        if (j < 4) {
            carry = _mm512_srai_epi64(x, 52);
            x = _mm512_and_si512(x, m);
        }
        o.l[j] = x;
    }
    return o;
}

/* a b / R' mod p (a, b canonical) */
VTI static inline fv fv_mul(fv a, fv b) {
    const __m512i z = _mm512_setzero_si512();
    const __m512i pinv = _mm512_set1_epi64((long long)PINV52);
    __m512i p0 = _mm512_set1_epi64((long long)P52[0]), p1 = _mm512_set1_epi64((long long)P52[1]),
            p2 = _mm512_set1_epi64((long long)P52[2]), p3 = _mm512_set1_epi64((long long)P52[3]),
            p4 = _mm512_set1_epi64((long long)P52[4]);
    __m512i t0 = z, t1 = z, t2 = z, t3 = z, t4 = z, t5 = z;
    for (int i = 0; i < 5; i++) {
        __m512i bi = b.l[i];
        t0 = _mm512_madd52lo_epu64(t0, a.l[0], bi);
        t1 = _mm512_madd52lo_epu64(t1, a.l[1], bi);
        t2 = _mm512_madd52lo_epu64(t2, a.l[2], bi);
        t3 = _mm512_madd52lo_epu64(t3, a.l[3], bi);
        t4 = _mm512_madd52lo_epu64(t4, a.l[4], bi);
        t1 = _mm512_madd52hi_epu64(t1, a.l[0], bi);
        t2 = _mm512_madd52hi_epu64(t2, a.l[1], bi);
        t3 = _mm512_madd52hi_epu64(t3, a.l[2], bi);
        t4 = _mm512_madd52hi_epu64(t4, a.l[3], bi);
        t5 = _mm512_madd52hi_epu64(t5, a.l[4], bi);
        __m512i mq = _mm512_madd52lo_epu64(z, t0, pinv);
        t0 = _mm512_madd52lo_epu64(t0, mq, p0);
        t1 = _mm512_madd52lo_epu64(t1, mq, p1);
        t2 = _mm512_madd52lo_epu64(t2, mq, p2);
        t3 = _mm512_madd52lo_epu64(t3, mq, p3);
        t4 = _mm512_madd52lo_epu64(t4, mq, p4);
        t1 = _mm512_madd52hi_epu64(t1, mq, p0);
        t2 = _mm512_madd52hi_epu64(t2, mq, p1);
        t3 = _mm512_madd52hi_epu64(t3, mq, p2);
        t4 = _mm512_madd52hi_epu64(t4, mq, p3);
        t5 = _mm512_madd52hi_epu64(t5, mq, p4);
        t0 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));  /* t0 = 0 mod 2^52: divide by 2^52 */
        t1 = t2; t2 = t3; t3 = t4; t4 = t5; t5 = z;
    }
    return fv_reduce(t0, t1, t2, t3, t4);
}

/* a^2 / R' mod p: the cross products once and doubled, then five reduction rounds */
VTI static inline fv fv_sqr(fv a) {
    const __m512i z = _mm512_setzero_si512();
    const __m512i pinv = _mm512_set1_epi64((long long)PINV52);
    __m512i t[10];
    for (int k = 0; k < 10; k++) t[k] = z;
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[i], a.l[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[i], a.l[j]);
        }
    for (int k = 1; k < 9; k++) t[k] = _mm512_add_epi64(t[k], t[k]);
    for (int i = 0; i < 5; i++) {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.l[i], a.l[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.l[i], a.l[i]);
    }
    for (int i = 0; i < 5; i++) {
        __m512i mq = _mm512_madd52lo_epu64(z, t[i], pinv);
        for (int j = 0; j < 5; j++) {
            __m512i pj = _mm512_set1_epi64((long long)P52[j]);
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], mq, pj);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], mq, pj);
        }
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
    }
    return fv_reduce(t[5], t[6], t[7], t[8], t[9]);
}

VTI static inline __mmask8 fv_is_zero(fv a) {
    __m512i o = _mm512_or_si512(_mm512_or_si512(a.l[0], a.l[1]), _mm512_or_si512(_mm512_or_si512(a.l[2], a.l[3]), a.l[4]));
    return _mm512_testn_epi64_mask(o, o);
}

VTI static inline void jv_dbl(jv *R) {
    fv A = fv_sqr(R->X), B = fv_sqr(R->Y), C = fv_sqr(B);
    fv t = fv_add(R->X, B);
    t = fv_sub(fv_sub(fv_sqr(t), A), C);
    fv D = fv_add(t, t);
    fv E = fv_add(fv_add(A, A), A);
    fv F = fv_sqr(E);
    fv Z3 = fv_mul(R->Y, R->Z);
    R->Z = fv_add(Z3, Z3);
    R->X = fv_sub(F, fv_add(D, D));
    C = fv_add(C, C); C = fv_add(C, C); C = fv_add(C, C);
    R->Y = fv_sub(fv_mul(E, fv_sub(D, R->X)), C);
}

/* R += (x, y) (affine, finite); the lanes where R = +-(x, y) are returned (their result is
 * not the sum: the caller redoes those points) */
VTI static inline __mmask8 jv_add_aff(jv *R, fv x, fv y) {
    fv Z1Z1 = fv_sqr(R->Z);
    fv U2 = fv_mul(x, Z1Z1);
    fv S2 = fv_mul(y, fv_mul(R->Z, Z1Z1));
    fv H = fv_sub(U2, R->X);
    __mmask8 exc = fv_is_zero(H);
    fv rr = fv_sub(S2, R->Y);
    rr = fv_add(rr, rr);
    fv HH = fv_sqr(H);
    fv I = fv_add(HH, HH);
    I = fv_add(I, I);
    fv J = fv_mul(H, I);
    fv V = fv_mul(R->X, I);
    fv X3 = fv_sub(fv_sub(fv_sqr(rr), J), fv_add(V, V));
    fv t = fv_mul(R->Y, J);
    fv Y3 = fv_sub(fv_mul(rr, fv_sub(V, X3)), fv_add(t, t));
    fv Z3 = fv_add(R->Z, H);
    Z3 = fv_sub(fv_sub(fv_sqr(Z3), Z1Z1), HH);
    R->X = X3; R->Y = Y3; R->Z = Z3;
    return exc;
}

static inline void from52(fp *out, const u64 l[5]) {
    out->v[0] = l[0] | (l[1] << 52);
    out->v[1] = (l[1] >> 12) | (l[2] << 40);
    out->v[2] = (l[2] >> 24) | (l[3] << 28);
    out->v[3] = (l[3] >> 36) | (l[4] << 16);
}

VTI static inline fv load_fv(const u64 l[5][8]) {
    fv o;
    for (int j = 0; j < 5; j++) o.l[j] = _mm512_loadu_si512((const void *)l[j]);
    return o;
}

/* 2^264 mod p, plain: a Montgomery (R') product with it takes x R to x R' */
static const u64 C264[5] = {0xb0f2afaec667aULL, 0xed9626b0fffbdULL, 0x9e2a0fcad825aULL, 0xe357276f48b70ULL,
                            0x00d791464ef86ULL};

/* 8 elements (4 x 64-bit limbs each, canonical) side by side as raw 52-bit limbs */
VT static inline fv fv_gather(const fp *const e[8]) {
    u64 l[5][8];
    for (int lane = 0; lane < 8; lane++) {
        const u64 *v = e[lane]->v;
        l[0][lane] = v[0] & M52;
        l[1][lane] = ((v[0] >> 52) | (v[1] << 12)) & M52;
        l[2][lane] = ((v[1] >> 40) | (v[2] << 24)) & M52;
        l[3][lane] = ((v[2] >> 28) | (v[3] << 36)) & M52;
        l[4][lane] = v[3] >> 16;
    }
    return load_fv((const u64(*)[8])l);
}

VT static inline void fv_scatter(fp *const e[8], fv a) {
    u64 l[5][8];
    for (int j = 0; j < 5; j++) _mm512_storeu_si512((void *)l[j], a.l[j]);
    for (int lane = 0; lane < 8; lane++) {
        u64 c[5] = {l[0][lane], l[1][lane], l[2][lane], l[3][lane], l[4][lane]};
        from52(e[lane], c);
    }
}

/* a^(p-2) = 1 / a (lanes where a = 0 give 0) */
VT static fv fv_inv(fv a) {
    static const u64 e[4] = {0x3c208c16d87cfd45ULL, 0x97816a916871ca8dULL,
                             0xb85045b68181585dULL, 0x30644e72e131a029ULL};
    fv acc = fv_const(ONE260);
    for (int i = 253; i >= 0; i--) {
        acc = fv_sqr(acc);
        if ((e[i / 64] >> (i % 64)) & 1) acc = fv_mul(acc, a);
    }
    return acc;
}

/* out_g = 1 / a_g for n vectors of nonzero elements (Montgomery's trick, one inversion) */
VT static void fv_batch_inv(fv *out, const fv *a, size_t n, fv *scratch) {
    fv acc = fv_const(ONE260);
    for (size_t g = 0; g < n; g++) {
        scratch[g] = acc;
        acc = fv_mul(acc, a[g]);
    }
    acc = fv_inv(acc);
    for (size_t g = n; g-- > 0;) {
        fv t = fv_mul(acc, scratch[g]);
        acc = fv_mul(acc, a[g]);
        out[g] = t;
    }
}

/* per group of 8 points: the table (x, y, beta x of P, 3P, ..., 15P) and the accumulator */
typedef struct { fv x[TAB], y[TAB], bx[TAB]; jv acc; fv den, inv, scratch, tx, ty; } group8;

/* out[i] = k pts[i] for n finite points (affine, Montgomery R = 2^256, Z = one), the whole
 * pipeline eight points a vector: conversion, tables (one inversion a step for the
 * block), the main loop, the return to affine (one inversion). Lanes that met an
 * exceptional addition are redone by the scalar code. */
VT static int mul_block_vec(jac *out, const aff *pts, size_t n, const signed char *dig, size_t len,
                            const fp *beta) {
    size_t G = (n + 7) / 8;
    group8 *gr = aligned_alloc(64, ((G * sizeof(group8) + 63) / 64) * 64);
    __mmask8 *exc = calloc(G, sizeof(__mmask8));
    fv *tmp = aligned_alloc(64, ((3 * G * sizeof(fv) + 63) / 64) * 64);
    if (!gr || !exc || !tmp) { free(gr); free(exc); free(tmp); return -1; }
    fv *den = tmp, *inv = tmp + G, *scr = tmp + 2 * G;
    const fv c264 = fv_const(C264);
    fv bt;
    {
        const fp *b8[8] = {beta, beta, beta, beta, beta, beta, beta, beta};
        bt = fv_mul(fv_gather(b8), c264);
    }
    for (size_t g = 0; g < G; g++) {  /* inputs (a last partial group padded with its first point) */
        const fp *xs[8], *ys[8];
        for (int lane = 0; lane < 8; lane++) {
            size_t i = 8 * g + (size_t)lane < n ? 8 * g + (size_t)lane : 8 * g;
            xs[lane] = &pts[i].x;
            ys[lane] = &pts[i].y;
        }
        gr[g].x[0] = fv_mul(fv_gather(xs), c264);
        gr[g].y[0] = fv_mul(fv_gather(ys), c264);
        den[g] = fv_add(gr[g].y[0], gr[g].y[0]);
    }
    fv_batch_inv(inv, den, G, scr);
    for (size_t g = 0; g < G; g++) {  /* 2P: lambda = 3 x^2 / 2y */
        fv x = gr[g].x[0], y = gr[g].y[0];
        fv t = fv_sqr(x);
        fv l = fv_mul(fv_add(fv_add(t, t), t), inv[g]);
        fv x2 = fv_sub(fv_sqr(l), fv_add(x, x));
        gr[g].ty = fv_sub(fv_mul(l, fv_sub(x, x2)), y);
        gr[g].tx = x2;
    }
    for (int j = 1; j < TAB; j++) {  /* (2j+1)P = (2j-1)P + 2P */
        for (size_t g = 0; g < G; g++) den[g] = fv_sub(gr[g].tx, gr[g].x[j - 1]);
        fv_batch_inv(inv, den, G, scr);
        for (size_t g = 0; g < G; g++) {
            fv ax = gr[g].x[j - 1], ay = gr[g].y[j - 1];
            fv l = fv_mul(fv_sub(gr[g].ty, ay), inv[g]);
            fv x3 = fv_sub(fv_sub(fv_sqr(l), ax), gr[g].tx);
            gr[g].y[j] = fv_sub(fv_mul(l, fv_sub(ax, x3)), ay);
            gr[g].x[j] = x3;
        }
    }
    const fv zero = {{_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                      _mm512_setzero_si512(), _mm512_setzero_si512()}};
    int started_any = 0;
    for (size_t g = 0; g < G; g++) {  /* the main loop */
        group8 *q = &gr[g];
        for (int j = 0; j < TAB; j++) q->bx[j] = fv_mul(q->x[j], bt);
        jv acc;
        int started = 0;
        __mmask8 e = 0;
        for (size_t s = 0; s < len; s++) {
            if (started) jv_dbl(&acc);
            for (int h = 0; h < 2; h++) {
                int d = dig[2 * s + h];
                if (!d) continue;
                int j = (d > 0 ? d : -d) >> 1;
                fv x = h ? q->bx[j] : q->x[j], y = q->y[j];
                if (d < 0) y = fv_sub(zero, y);
                if (!started) {
                    acc.X = x; acc.Y = y; acc.Z = fv_const(ONE260);
                    started = 1;
                } else e |= jv_add_aff(&acc, x, y);
            }
        }
        started_any = started;
        if (!started) break;  /* k = 0: the same for every group */
        q->acc = acc;
        exc[g] = e;
        /* an exceptional lane's Z may be 0: give the inversion a one there (redone below) */
        fv one = fv_const(ONE260);
        for (int j = 0; j < 5; j++) den[g].l[j] = _mm512_mask_blend_epi64(e, acc.Z.l[j], one.l[j]);
    }
    if (!started_any) {
        memset(out, 0, n * sizeof(jac));
    } else {
        fv_batch_inv(inv, den, G, scr);
        const fv r256 = fv_const(R256_52);
        for (size_t g = 0; g < G; g++) {  /* back to affine, and to Montgomery form for R */
            fv z2 = fv_sqr(inv[g]);
            fv z3 = fv_mul(z2, inv[g]);
            fv x = fv_mul(fv_mul(gr[g].acc.X, z2), r256);
            fv y = fv_mul(fv_mul(gr[g].acc.Y, z3), r256);
            fp sink[8][2];
            fp *xs[8], *ys[8];
            for (int lane = 0; lane < 8; lane++) {
                size_t i = 8 * g + (size_t)lane;
                xs[lane] = i < n ? &out[i].x : &sink[lane][0];
                ys[lane] = i < n ? &out[i].y : &sink[lane][1];
                if (i < n) out[i].z = FP_ONE;
            }
            fv_scatter(xs, x);
            fv_scatter(ys, y);
        }
    }
    free(gr);
    free(tmp);
    /* exceptional lanes: the scalar code, from a table of their own */
    for (size_t g = 0; g < G; g++) {
        for (int lane = 0; lane < 8; lane++) {
            size_t i = 8 * g + (size_t)lane;
            if (i >= n || !(exc[g] & (1u << lane))) continue;
            aff tab1[TAB], two1;
            fp d1, i1, s1;
            build_tables(tab1, &pts[i], 1, &d1, &i1, &s1, &two1);
            mul_one(&out[i], tab1, dig, len, beta);
            if (!fp_is_zero(&out[i].z)) {
                fp zi, z2, z3;
                fp_inv(&zi, &out[i].z);
                fp_sqr(&z2, &zi);
                fp_mul(&z3, &z2, &zi);
                fp_mul(&out[i].x, &out[i].x, &z2);
                fp_mul(&out[i].y, &out[i].y, &z3);
                out[i].z = FP_ONE;
            }
        }
    }
    free(exc);
    return 0;
}

/* ---- fixed base: k_i B for many scalars, from the 32 x 255 table of d 256^j B */
#define FB_WIN 32
#define FB_DIG 255

/* a packed Fr scalar (Montgomery form, MCL's layout) to its plain value: a 2^-256 mod r,
 * one Montgomery reduction (the product by 1, unreduced: below r for a < r) */
static inline void fr_from_mont(u64 out[4], const u64 a[4]) {
    static const u64 ONE[4] = {1, 0, 0, 0};
    mont_mul_core(out, a, ONE, R_MOD, R_INV_NEG, 0);
}

/* res: n points in fixed_base_mul's format (x, y plain, z the Montgomery one; zeros for
 * infinity) for the packed scalars ks, from the table tab (MCL's Jacobian layout, affine).
 * Returns 0, or -1 without memory. */
VT static int fixed_base_vec(unsigned char *res, const unsigned char *tab, const unsigned char *ks, size_t n) {
    const size_t NT = (size_t)FB_WIN * FB_DIG, GB = 128;  /* GB groups of 8 scalars share an inversion */
    u64 *tx = aligned_alloc(64, ((NT + 8) * 5 * 8 + 63) / 64 * 64);
    u64 *ty = aligned_alloc(64, ((NT + 8) * 5 * 8 + 63) / 64 * 64);
    jv *acc = aligned_alloc(64, GB * sizeof(jv));
    fv *tmp = aligned_alloc(64, 3 * GB * sizeof(fv));
    __mmask8 *live = malloc(GB), *exc = malloc(GB);
    u64 (*plain)[4] = malloc(8 * GB * sizeof(u64[4]));
    if (!tx || !ty || !acc || !tmp || !live || !exc || !plain) {
        free(tx); free(ty); free(acc); free(tmp); free(live); free(exc); free(plain);
        return -1;
    }
    const fv c264 = fv_const(C264), one = fv_const(ONE260);
    for (size_t e = 0; e < NT; e += 8) {  /* the table into 52-bit limbs, Montgomery for R' */
        const fp *xs[8], *ys[8];
        for (int lane = 0; lane < 8; lane++) {
            size_t i = e + (size_t)lane < NT ? e + (size_t)lane : e;
            xs[lane] = (const fp *)(tab + 96 * i);
            ys[lane] = (const fp *)(tab + 96 * i + 32);
        }
        fv x = fv_mul(fv_gather(xs), c264), y = fv_mul(fv_gather(ys), c264);
        u64 lx[5][8], ly[5][8];
        for (int l = 0; l < 5; l++) {
            _mm512_storeu_si512((void *)lx[l], x.l[l]);
            _mm512_storeu_si512((void *)ly[l], y.l[l]);
        }
        for (int lane = 0; lane < 8 && e + (size_t)lane < NT; lane++)
            for (int l = 0; l < 5; l++) {
                tx[(e + lane) * 5 + l] = lx[l][lane];
                ty[(e + lane) * 5 + l] = ly[l][lane];
            }
    }
    fv *den = tmp, *inv = tmp + GB, *scr = tmp + 2 * GB;
    const fv plain1 = {{_mm512_set1_epi64(1), _mm512_setzero_si512(), _mm512_setzero_si512(),
                        _mm512_setzero_si512(), _mm512_setzero_si512()}};
    memset(res, 0, n * 96);
    for (size_t lo = 0; lo < n; lo += 8 * GB) {
        size_t hi = lo + 8 * GB < n ? lo + 8 * GB : n, G = (hi - lo + 7) / 8;
        for (size_t i = lo; i < lo + 8 * G; i++) {
            if (i < hi) fr_from_mont(plain[i - lo], (const u64 *)(ks + 32 * i));
            else memset(plain[i - lo], 0, 32);  /* padding: k = 0 */
        }
        for (size_t g = 0; g < G; g++) {
            const unsigned char *k8[8];
            for (int lane = 0; lane < 8; lane++) k8[lane] = (const unsigned char *)plain[8 * g + lane];
            jv a;
            a.X = a.Y = a.Z = one;
            __mmask8 started = 0, ex = 0;
            for (int j = 0; j < FB_WIN; j++) {
                long long d[8];
                for (int lane = 0; lane < 8; lane++) d[lane] = k8[lane][j];
                __m512i dv = _mm512_loadu_si512((const void *)d);
                __mmask8 nz = _mm512_test_epi64_mask(dv, dv);
                if (!nz) continue;
                /* entry (j, d - 1): limbs at 5 (j 255 + d - 1); lanes with d = 0 read entry 0 */
                __m512i ent = _mm512_add_epi64(dv, _mm512_set1_epi64((long long)j * FB_DIG - 1));
                __m512i idx = _mm512_maskz_mov_epi64(nz, _mm512_add_epi64(_mm512_slli_epi64(ent, 2), ent));
                fv x, y;
                for (int l = 0; l < 5; l++) {
                    __m512i il = _mm512_add_epi64(idx, _mm512_set1_epi64(l));
                    x.l[l] = _mm512_i64gather_epi64(il, (const void *)tx, 8);
                    y.l[l] = _mm512_i64gather_epi64(il, (const void *)ty, 8);
                }
                __mmask8 add = nz & started, start = nz & (__mmask8)~started;
                if (add) {
                    jv t = a;
                    __mmask8 e = jv_add_aff(&t, x, y);
                    ex |= e & add;
                    for (int l = 0; l < 5; l++) {
                        a.X.l[l] = _mm512_mask_blend_epi64(add, a.X.l[l], t.X.l[l]);
                        a.Y.l[l] = _mm512_mask_blend_epi64(add, a.Y.l[l], t.Y.l[l]);
                        a.Z.l[l] = _mm512_mask_blend_epi64(add, a.Z.l[l], t.Z.l[l]);
                    }
                }
                if (start) {
                    for (int l = 0; l < 5; l++) {
                        a.X.l[l] = _mm512_mask_blend_epi64(start, a.X.l[l], x.l[l]);
                        a.Y.l[l] = _mm512_mask_blend_epi64(start, a.Y.l[l], y.l[l]);
                        a.Z.l[l] = _mm512_mask_blend_epi64(start, a.Z.l[l], one.l[l]);
                    }
                }
                started |= nz;
            }
            acc[g] = a;
            live[g] = started & (__mmask8)~ex;
            exc[g] = ex;
            for (int l = 0; l < 5; l++) den[g].l[l] = _mm512_mask_blend_epi64(live[g], one.l[l], a.Z.l[l]);
        }
        fv_batch_inv(inv, den, G, scr);
        for (size_t g = 0; g < G; g++) {  /* affine, plain: x = X / Z^2, y = Y / Z^3 */
            if (!live[g]) continue;
            fv z2 = fv_sqr(inv[g]);
            fv z3 = fv_mul(z2, inv[g]);
            fv x = fv_mul(fv_mul(acc[g].X, z2), plain1);
            fv y = fv_mul(fv_mul(acc[g].Y, z3), plain1);
            fp sink[8][2];
            fp *xs[8], *ys[8];
            for (int lane = 0; lane < 8; lane++) {
                size_t i = lo + 8 * g + (size_t)lane;
                int mine = i < hi && ((live[g] >> lane) & 1);
                xs[lane] = mine ? (fp *)(res + 96 * i) : &sink[lane][0];
                ys[lane] = mine ? (fp *)(res + 96 * i + 32) : &sink[lane][1];
                if (mine) memcpy(res + 96 * i + 64, FP_ONE.v, 32);
            }
            fv_scatter(xs, x);
            fv_scatter(ys, y);
        }
        for (size_t g = 0; g < G; g++) {  /* exceptional lanes: the scalar code, every case handled */
            for (int lane = 0; lane < 8; lane++) {
                size_t i = lo + 8 * g + (size_t)lane;
                if (i >= hi || !((exc[g] >> lane) & 1)) continue;
                const unsigned char *k = (const unsigned char *)plain[8 * g + lane];
                jac r1;
                memset(&r1, 0, sizeof r1);
                for (int j = 0; j < FB_WIN; j++) {
                    if (!k[j]) continue;
                    const unsigned char *e = tab + 96 * ((size_t)j * FB_DIG + k[j] - 1);
                    g1_jac_add_aff(&r1, &r1, (const aff *)e);
                }
                if (fp_is_zero(&r1.z)) continue;  /* infinity: stays zero */
                static const fp plain_one = {{1, 0, 0, 0}};
                fp zi, z2, z3;
                fp_inv(&zi, &r1.z);
                fp_sqr(&z2, &zi);
                fp_mul(&z3, &z2, &zi);
                fp_mul(&r1.x, &r1.x, &z2);
                fp_mul(&r1.y, &r1.y, &z3);
                fp_mul(&r1.x, &r1.x, &plain_one);
                fp_mul(&r1.y, &r1.y, &plain_one);
                memcpy(res + 96 * i, r1.x.v, 32);
                memcpy(res + 96 * i + 32, r1.y.v, 32);
                memcpy(res + 96 * i + 64, FP_ONE.v, 32);
            }
        }
    }
    free(tx); free(ty); free(acc); free(tmp); free(live); free(exc); free(plain);
    return 0;
}

/* ---- the same in G2: Fp2 = Fp[u] / (u^2 + 1), eight elements a pair of vectors */
typedef struct { fv c0, c1; } fv2;
typedef struct { fv2 X, Y, Z; } jv2;

VTI static inline fv2 f2_add(fv2 a, fv2 b) { fv2 o = {fv_add(a.c0, b.c0), fv_add(a.c1, b.c1)}; return o; }
VTI static inline fv2 f2_sub(fv2 a, fv2 b) { fv2 o = {fv_sub(a.c0, b.c0), fv_sub(a.c1, b.c1)}; return o; }

VTI static inline fv2 f2_mul(fv2 a, fv2 b) {  /* Karatsuba: 3 multiplications */
    fv t0 = fv_mul(a.c0, b.c0), t1 = fv_mul(a.c1, b.c1);
    fv t2 = fv_mul(fv_add(a.c0, a.c1), fv_add(b.c0, b.c1));
    fv2 o = {fv_sub(t0, t1), fv_sub(fv_sub(t2, t0), t1)};
    return o;
}

VTI static inline fv2 f2_sqr(fv2 a) {  /* (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    fv t = fv_mul(fv_add(a.c0, a.c1), fv_sub(a.c0, a.c1));
    fv m = fv_mul(a.c0, a.c1);
    fv2 o = {t, fv_add(m, m)};
    return o;
}

/* R += (x, y) (affine, finite), madd-2007-bl over Fp2; the lanes where R = +-(x, y) are
 * returned (their result is not the sum: the caller redoes them) */
VTI static inline __mmask8 jv2_add_aff(jv2 *R, fv2 x, fv2 y) {
    fv2 Z1Z1 = f2_sqr(R->Z);
    fv2 U2 = f2_mul(x, Z1Z1);
    fv2 S2 = f2_mul(y, f2_mul(R->Z, Z1Z1));
    fv2 H = f2_sub(U2, R->X);
    __mmask8 exc = fv_is_zero(H.c0) & fv_is_zero(H.c1);
    fv2 rr = f2_sub(S2, R->Y);
    rr = f2_add(rr, rr);
    fv2 HH = f2_sqr(H);
    fv2 I = f2_add(HH, HH);
    I = f2_add(I, I);
    fv2 J = f2_mul(H, I);
    fv2 V = f2_mul(R->X, I);
    fv2 X3 = f2_sub(f2_sub(f2_sqr(rr), J), f2_add(V, V));
    fv2 t = f2_mul(R->Y, J);
    fv2 Y3 = f2_sub(f2_mul(rr, f2_sub(V, X3)), f2_add(t, t));
    fv2 Z3 = f2_add(R->Z, H);
    Z3 = f2_sub(f2_sub(f2_sqr(Z3), Z1Z1), HH);
    R->X = X3; R->Y = Y3; R->Z = Z3;
    return exc;
}

VTI static inline fv blend5(__mmask8 m, fv a, fv b) {
    for (int l = 0; l < 5; l++) a.l[l] = _mm512_mask_blend_epi64(m, a.l[l], b.l[l]);
    return a;
}

VTI static inline fv2 blend2(__mmask8 m, fv2 a, fv2 b) {
    fv2 o = {blend5(m, a.c0, b.c0), blend5(m, a.c1, b.c1)};
    return o;
}

/* g2_fixed_base's work: res in fixed_base_mul's G2 format; the scalars whose lanes met an
 * exceptional addition get their index in *exc_out (the caller redoes them). */
VT static int fixed_base_vec_g2(unsigned char *res, const unsigned char *tab, const unsigned char *ks, size_t n,
                                size_t *exc_out, size_t *n_exc) {
    const size_t NT = (size_t)FB_WIN * FB_DIG, GB = 128, PS = 192;
    u64 *tc[4];
    for (int c = 0; c < 4; c++) tc[c] = aligned_alloc(64, ((NT + 8) * 5 * 8 + 63) / 64 * 64);
    jv2 *acc = aligned_alloc(64, GB * sizeof(jv2));
    fv *tmp = aligned_alloc(64, 3 * GB * sizeof(fv));
    __mmask8 *live = malloc(GB), *exc = malloc(GB);
    u64 (*plain)[4] = malloc(8 * GB * sizeof(u64[4]));
    int ok = tc[0] && tc[1] && tc[2] && tc[3] && acc && tmp && live && exc && plain;
    if (ok) {
        const fv c264 = fv_const(C264), one = fv_const(ONE260);
        const fv zero = {{_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                          _mm512_setzero_si512(), _mm512_setzero_si512()}};
        for (size_t e = 0; e < NT; e += 8) {  /* x0, x1, y0, y1 of the table into 52-bit limbs (R') */
            for (int c = 0; c < 4; c++) {
                const fp *cs[8];
                for (int lane = 0; lane < 8; lane++) {
                    size_t i = e + (size_t)lane < NT ? e + (size_t)lane : e;
                    cs[lane] = (const fp *)(tab + PS * i + 32 * c);
                }
                fv v = fv_mul(fv_gather(cs), c264);
                u64 lv[5][8];
                for (int l = 0; l < 5; l++) _mm512_storeu_si512((void *)lv[l], v.l[l]);
                for (int lane = 0; lane < 8 && e + (size_t)lane < NT; lane++)
                    for (int l = 0; l < 5; l++) tc[c][(e + lane) * 5 + l] = lv[l][lane];
            }
        }
        fv *den = tmp, *inv = tmp + GB, *scr = tmp + 2 * GB;
        const fv plain1 = {{_mm512_set1_epi64(1), _mm512_setzero_si512(), _mm512_setzero_si512(),
                            _mm512_setzero_si512(), _mm512_setzero_si512()}};
        const fv2 one2 = {one, zero};
        memset(res, 0, n * PS);
        *n_exc = 0;
        for (size_t lo = 0; lo < n; lo += 8 * GB) {
            size_t hi = lo + 8 * GB < n ? lo + 8 * GB : n, G = (hi - lo + 7) / 8;
            for (size_t i = lo; i < lo + 8 * G; i++) {
                if (i < hi) fr_from_mont(plain[i - lo], (const u64 *)(ks + 32 * i));
                else memset(plain[i - lo], 0, 32);
            }
            for (size_t g = 0; g < G; g++) {
                jv2 a = {one2, one2, one2};
                __mmask8 started = 0, ex = 0;
                for (int j = 0; j < FB_WIN; j++) {
                    long long d[8];
                    for (int lane = 0; lane < 8; lane++) d[lane] = ((const unsigned char *)plain[8 * g + lane])[j];
                    __m512i dv = _mm512_loadu_si512((const void *)d);
                    __mmask8 nz = _mm512_test_epi64_mask(dv, dv);
                    if (!nz) continue;
                    __m512i ent = _mm512_add_epi64(dv, _mm512_set1_epi64((long long)j * FB_DIG - 1));
                    __m512i idx = _mm512_maskz_mov_epi64(nz, _mm512_add_epi64(_mm512_slli_epi64(ent, 2), ent));
                    fv2 x, y;
                    for (int l = 0; l < 5; l++) {
                        __m512i il = _mm512_add_epi64(idx, _mm512_set1_epi64(l));
                        x.c0.l[l] = _mm512_i64gather_epi64(il, (const void *)tc[0], 8);
                        x.c1.l[l] = _mm512_i64gather_epi64(il, (const void *)tc[1], 8);
                        y.c0.l[l] = _mm512_i64gather_epi64(il, (const void *)tc[2], 8);
                        y.c1.l[l] = _mm512_i64gather_epi64(il, (const void *)tc[3], 8);
                    }
                    __mmask8 add = nz & started, start = nz & (__mmask8)~started;
                    if (add) {
                        jv2 t = a;
                        ex |= jv2_add_aff(&t, x, y) & add;
                        a.X = blend2(add, a.X, t.X);
                        a.Y = blend2(add, a.Y, t.Y);
                        a.Z = blend2(add, a.Z, t.Z);
                    }
                    if (start) {
                        a.X = blend2(start, a.X, x);
                        a.Y = blend2(start, a.Y, y);
                        a.Z = blend2(start, a.Z, one2);
                    }
                    started |= nz;
                }
                acc[g] = a;
                live[g] = started & (__mmask8)~ex;
                exc[g] = ex;
                /* the inversion takes the norm z0^2 + z1^2 (in Fp); one where the lane is not live */
                fv nrm = fv_add(fv_sqr(a.Z.c0), fv_sqr(a.Z.c1));
                den[g] = blend5(live[g], one, nrm);
            }
            fv_batch_inv(inv, den, G, scr);
            for (size_t g = 0; g < G; g++) {
                if (!live[g]) continue;
                fv2 zi = {fv_mul(acc[g].Z.c0, inv[g]), fv_sub(zero, fv_mul(acc[g].Z.c1, inv[g]))};  /* 1 / Z */
                fv2 z2 = f2_sqr(zi);
                fv2 z3 = f2_mul(z2, zi);
                fv2 x = f2_mul(acc[g].X, z2), y = f2_mul(acc[g].Y, z3);
                fv out[4] = {fv_mul(x.c0, plain1), fv_mul(x.c1, plain1), fv_mul(y.c0, plain1), fv_mul(y.c1, plain1)};
                fp sink[8];
                for (int c = 0; c < 4; c++) {
                    fp *cs[8];
                    for (int lane = 0; lane < 8; lane++) {
                        size_t i = lo + 8 * g + (size_t)lane;
                        int mine = i < hi && ((live[g] >> lane) & 1);
                        cs[lane] = mine ? (fp *)(res + PS * i + 32 * c) : &sink[lane];
                    }
                    fv_scatter(cs, out[c]);
                }
                for (int lane = 0; lane < 8; lane++) {
                    size_t i = lo + 8 * g + (size_t)lane;
                    if (i < hi && ((live[g] >> lane) & 1)) memcpy(res + PS * i + 128, FP_ONE.v, 32);  /* z = (one, 0) */
                }
            }
            for (size_t g = 0; g < G; g++)
                for (int lane = 0; lane < 8; lane++) {
                    size_t i = lo + 8 * g + (size_t)lane;
                    if (i < hi && ((exc[g] >> lane) & 1)) exc_out[(*n_exc)++] = i;
                }
        }
    }
    for (int c = 0; c < 4; c++) free(tc[c]);
    free(acc); free(tmp); free(live); free(exc); free(plain);
    return ok ? 0 : -1;
}

static int cpu_has_ifma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
}
#else
#define HAVE_IFMA_CODE 0
static int cpu_has_ifma(void) { return 0; }
#endif

/* Multiply a block of finite points; out receives affine Montgomery results (Z = one) or
 * all zeros (infinity). vec: eight points a vector (the CPU has IFMA). */
static void mul_block(jac *out, const aff *pts, size_t n, const signed char *dig, size_t len, const fp *beta,
                      aff *tab, fp *den, fp *inv, fp *scratch, aff *two, int vec) {
#if HAVE_IFMA_CODE
    if (vec && mul_block_vec(out, pts, n, dig, len, beta) == 0) return;
#else
    (void)vec;
#endif
    build_tables(tab, pts, n, den, inv, scratch, two);
    for (size_t i = 0; i < n; i++) mul_one(&out[i], &tab[i * TAB], dig, len, beta);
    /* to affine: one inversion for the block's nonzero Z */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!fp_is_zero(&out[i].z)) den[m++] = out[i].z;
    fp_batch_inv(inv, den, m, scratch);
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (fp_is_zero(&out[i].z)) continue;
        fp z2, z3;
        fp_sqr(&z2, &inv[m]);
        fp_mul(&z3, &z2, &inv[m]);
        m++;
        fp_mul(&out[i].x, &out[i].x, &z2);
        fp_mul(&out[i].y, &out[i].y, &z3);
        out[i].z = FP_ONE;
    }
}

static int HAS_IFMA = 0;  /* set at import: the CPU runs the 8-lane code */

PyDoc_STRVAR(g1_mul_digits_doc,
"g1_mul_digits(points, digits, beta, vector=True) -> bytes: k P for each G1 point, k given\n"
"by its GLV width-5 NAF digits (vector=False: the scalar main loop even where the CPU has\n"
"IFMA; VECTOR says whether it has).\n\n"
"points: MCL's Jacobian layout (x | y | z, 32-byte little-endian Montgomery-form Fp each);\n"
"z is the Montgomery one (affine) or zero (the point at infinity). digits: pairs (d1, d2)\n"
"of signed bytes, most significant first, each odd in [-15, 15] or 0, for\n"
"k = sum 2^i (d1_i + d2_i lambda). beta: phi's cube root of unity, Montgomery form.\n"
"The result: one 96-byte point each, x and y plain little-endian integers and z the\n"
"Montgomery one, all zero for infinity (zkbluff._fr_native.affine_points reads it).\n"
"ValueError naming the first point that is not canonical, not affine or not on the curve.");

static PyObject *py_g1_mul_digits(PyObject *self, PyObject *args) {
    Py_buffer pts, dig, beta;
    PyObject *out = NULL;
    int vec = 1;
    if (!PyArg_ParseTuple(args, "y*y*y*|p", &pts, &dig, &beta, &vec)) return NULL;
    vec = vec && HAS_IFMA;
    if (pts.len % 96 || dig.len % 2 || beta.len != 32) {
        PyErr_SetString(PyExc_ValueError, "g1_mul_digits: 96-byte points, digit pairs and a 32-byte beta");
        goto done;
    }
    const signed char *d = dig.buf;
    for (Py_ssize_t i = 0; i < dig.len; i++) {
        int v = d[i];
        if (v < -15 || v > 15 || (v && !(v & 1))) {
            PyErr_Format(PyExc_ValueError, "g1_mul_digits: digit %zd is %d, expected 0 or odd in [-15, 15]", i, v);
            goto done;
        }
    }
    size_t n = (size_t)pts.len / 96, len = (size_t)dig.len / 2;
    fp bt;
    memcpy(bt.v, beta.buf, 32);
    if (geq4(bt.v, P_MOD)) {
        PyErr_SetString(PyExc_ValueError, "g1_mul_digits: beta is not below p");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 96));
    if (!out) goto done;
    unsigned char *res = (unsigned char *)PyBytes_AS_STRING(out);
    Py_ssize_t bad = -1;
    const char *why = NULL;
    int nomem = 0;
    Py_BEGIN_ALLOW_THREADS
    aff *in = malloc(BLOCK * sizeof(aff) + BLOCK * TAB * sizeof(aff) + BLOCK * sizeof(aff));
    fp *buf = malloc(3 * BLOCK * sizeof(fp));
    jac *acc = malloc(BLOCK * sizeof(jac));
    size_t *idx = malloc(BLOCK * sizeof(size_t));
    if (!in || !buf || !acc || !idx) nomem = 1;
    else {
        aff *tab = in + BLOCK, *two = tab + BLOCK * TAB;
        const unsigned char *src = pts.buf;
        memset(res, 0, n * 96);
        for (size_t lo = 0; lo < n && bad < 0; lo += BLOCK) {
            size_t hi = lo + BLOCK < n ? lo + BLOCK : n, m = 0;
            for (size_t i = lo; i < hi; i++) {
                const unsigned char *p = src + 96 * i;
                fp z;
                memcpy(z.v, p + 64, 32);
                if (fp_is_zero(&z)) continue;  /* infinity stays all zero */
                aff a;
                memcpy(a.x.v, p, 32);
                memcpy(a.y.v, p + 32, 32);
                if (!fp_eq(&z, &FP_ONE)) { bad = (Py_ssize_t)i; why = "not affine (z is not one)"; break; }
                if (geq4(a.x.v, P_MOD) || geq4(a.y.v, P_MOD)) { bad = (Py_ssize_t)i; why = "a coordinate not below p"; break; }
                if (!aff_on_curve(&a)) { bad = (Py_ssize_t)i; why = "not on the curve"; break; }
                idx[m] = i;
                in[m++] = a;
            }
            if (bad >= 0 || !m) continue;
            mul_block(acc, in, m, d, len, &bt, tab, buf, buf + BLOCK, buf + 2 * BLOCK, two, vec);
            static const fp plain_one = {{1, 0, 0, 0}};
            for (size_t k = 0; k < m; k++) {
                if (fp_is_zero(&acc[k].z)) continue;
                unsigned char *q = res + 96 * idx[k];
                fp x, y;
                fp_mul(&x, &acc[k].x, &plain_one);  /* out of Montgomery form */
                fp_mul(&y, &acc[k].y, &plain_one);
                memcpy(q, x.v, 32);
                memcpy(q + 32, y.v, 32);
                memcpy(q + 64, FP_ONE.v, 32);
            }
        }
    }
    free(in); free(buf); free(acc); free(idx);
    Py_END_ALLOW_THREADS
    if (nomem) { Py_CLEAR(out); PyErr_NoMemory(); }
    else if (bad >= 0) {
        Py_CLEAR(out);
        PyErr_Format(PyExc_ValueError, "g1_mul_digits: point %zd is %s", bad, why);
    }
done:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&dig);
    PyBuffer_Release(&beta);
    return out;
}

PyDoc_STRVAR(g1_fixed_base_doc,
"g1_fixed_base(table, scalars) -> bytes: k_i B for a packed Fr vector (Montgomery form, as\n"
"zkbluff._fr_native.from_ints makes it) from zkbluff._fr_native.fixed_base_table's table\n"
"of B (32 x 255 affine points, MCL's layout), eight scalars a vector; the result in\n"
"fixed_base_mul's format. Needs the CPU's IFMA (VECTOR); ValueError otherwise or for\n"
"buffers of the wrong size.");

static PyObject *py_g1_fixed_base(PyObject *self, PyObject *args) {
    Py_buffer tab, ks;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*", &tab, &ks)) return NULL;
    if (!HAS_IFMA) {
        PyErr_SetString(PyExc_ValueError, "g1_fixed_base: this CPU has no AVX-512 IFMA");
        goto done;
    }
    if ((size_t)tab.len != (size_t)32 * 255 * 96 || ks.len % 32) {
        PyErr_SetString(PyExc_ValueError, "g1_fixed_base: a G1 table of 32 x 255 points and 32-byte scalars");
        goto done;
    }
    size_t n = (size_t)ks.len / 32;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 96));
    if (!out) goto done;
    int rc = 0;
#if HAVE_IFMA_CODE
    unsigned char *res = (unsigned char *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    rc = fixed_base_vec(res, tab.buf, ks.buf, n);
    Py_END_ALLOW_THREADS
#endif
    if (rc < 0) { Py_CLEAR(out); PyErr_NoMemory(); }
done:
    PyBuffer_Release(&tab);
    PyBuffer_Release(&ks);
    return out;
}

PyDoc_STRVAR(g2_fixed_base_doc,
"g2_fixed_base(table, scalars) -> (bytes, list): g1_fixed_base in G2 (a table of 32 x 255\n"
"G2 points); the list holds the indices of the scalars whose result is left at zero because\n"
"an addition met its own operand or its opposite (never for canonical scalars): the caller\n"
"computes those another way.");

static PyObject *py_g2_fixed_base(PyObject *self, PyObject *args) {
    Py_buffer tab, ks;
    PyObject *out = NULL, *ret = NULL;
    size_t *exc = NULL;
    if (!PyArg_ParseTuple(args, "y*y*", &tab, &ks)) return NULL;
    if (!HAS_IFMA) {
        PyErr_SetString(PyExc_ValueError, "g2_fixed_base: this CPU has no AVX-512 IFMA");
        goto done;
    }
    if ((size_t)tab.len != (size_t)32 * 255 * 192 || ks.len % 32) {
        PyErr_SetString(PyExc_ValueError, "g2_fixed_base: a G2 table of 32 x 255 points and 32-byte scalars");
        goto done;
    }
    size_t n = (size_t)ks.len / 32, n_exc = 0;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 192));
    exc = malloc((n + 1) * sizeof(size_t));
    if (!out || !exc) { PyErr_NoMemory(); goto done; }
    int rc = 0;
#if HAVE_IFMA_CODE
    unsigned char *res = (unsigned char *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    rc = fixed_base_vec_g2(res, tab.buf, ks.buf, n, exc, &n_exc);
    Py_END_ALLOW_THREADS
#endif
    if (rc < 0) { PyErr_NoMemory(); goto done; }
    PyObject *idx = PyList_New((Py_ssize_t)n_exc);
    if (!idx) goto done;
    for (size_t i = 0; i < n_exc; i++) {
        PyObject *v = PyLong_FromSize_t(exc[i]);
        if (!v) { Py_DECREF(idx); goto done; }
        PyList_SET_ITEM(idx, (Py_ssize_t)i, v);
    }
    ret = PyTuple_Pack(2, out, idx);
    Py_DECREF(idx);
done:
    Py_XDECREF(out);
    free(exc);
    PyBuffer_Release(&tab);
    PyBuffer_Release(&ks);
    return ret;
}

static PyObject *limbs_to_pyobj(const u64 v[4]) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(v, 32, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray((const unsigned char *)v, 32, 1, 0);
#endif
}

PyDoc_STRVAR(glv_split_doc,
"glv_split(k) -> (k1, k2): bn254_fp.h's glv_split (the MSM's) of a 32-byte little-endian\n"
"k < r: k = k1 + k2 lambda mod r, |k1|, |k2| < 2^128, as signed ints. The C twin of\n"
"zkbluff.curve.glv.split (tests/curve/test_glv_split_twins.py checks they agree).");

static PyObject *py_glv_split(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer kb;
    if (PyObject_GetBuffer(arg, &kb, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *ret = NULL;
    u64 k[4], h[2][4];
    int neg[2];
    if (kb.len != 32) {
        PyErr_Format(PyExc_ValueError, "glv_split: a 32-byte scalar, got %zd bytes", kb.len);
        goto done;
    }
    memcpy(k, kb.buf, 32);
    if (geq4(k, R_MOD)) {
        PyErr_SetString(PyExc_ValueError, "glv_split: the scalar is not below r");
        goto done;
    }
    glv_split(k, h[0], &neg[0], h[1], &neg[1]);
    PyObject *v[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        v[i] = limbs_to_pyobj(h[i]);
        if (v[i] && neg[i]) Py_SETREF(v[i], PyNumber_Negative(v[i]));
    }
    if (v[0] && v[1]) ret = PyTuple_Pack(2, v[0], v[1]);
    Py_XDECREF(v[0]);
    Py_XDECREF(v[1]);
done:
    PyBuffer_Release(&kb);
    return ret;
}

static PyMethodDef methods[] = {
    {"glv_split", py_glv_split, METH_O, glv_split_doc},
    {"g1_mul_digits", py_g1_mul_digits, METH_VARARGS, g1_mul_digits_doc},
    {"g1_fixed_base", py_g1_fixed_base, METH_VARARGS, g1_fixed_base_doc},
    {"g2_fixed_base", py_g2_fixed_base, METH_VARARGS, g2_fixed_base_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "zkbluff._points_native",
    "Many BN254 G1 points times one scalar (see zkbluff.curve.glv).", -1, methods,
};


PyMODINIT_FUNC PyInit__points_native(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    HAS_IFMA = cpu_has_ifma();
    /* the constants, for zkbluff.curve.glv to check against its own at import */
    if (PyModule_AddObject(m, "MODULUS", limbs_to_pyobj(P_MOD)) < 0 ||
        PyModule_AddObject(m, "MONTGOMERY_R", limbs_to_pyobj(FP_ONE.v)) < 0 ||
        PyModule_AddObject(m, "CURVE_B", limbs_to_pyobj(B_MONT.v)) < 0 ||
        PyModule_AddObject(m, "MONTGOMERY_INV", PyLong_FromUnsignedLongLong(P_INV_NEG)) < 0 ||
        PyModule_AddIntConstant(m, "WINDOW", 5) < 0 ||
        PyModule_AddIntConstant(m, "VECTOR", HAS_IFMA) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
