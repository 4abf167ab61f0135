/*
 * The Fp and Fp2 arithmetic that depends on the multiplication, and the G1 and G2
 * MSMs, included by msm.c once per multiplication (portable C, and MULX/ADX assembly
 * where the CPU has it). The includer defines FP_MUL and FP_MUL_LAZY (Montgomery
 * products mod p on limb arrays, reduced below p / below 2p), FP_MUL_WIDE (the 512-bit
 * product), FP_REDC (Montgomery reduction of one below p 2^256) and SFX(name), the
 * suffix of every name defined here. (The Fp2 products are compiled as calls: inlined,
 * a G2 MSM ran ~10% slower.)
 */

static inline __attribute__((always_inline)) void SFX(fp_mul)(fp *o, const fp *a, const fp *b) { FP_MUL(o->v, a->v, b->v); }
static inline __attribute__((always_inline)) void SFX(fp_sqr)(fp *o, const fp *a) { FP_MUL(o->v, a->v, a->v); }
/* lazy: inputs and output below 2p */
static inline __attribute__((always_inline)) void SFX(fp_mul_lazy)(fp *o, const fp *a, const fp *b) {
    FP_MUL_LAZY(o->v, a->v, b->v);
}
static inline __attribute__((always_inline)) void SFX(fp_sqr_lazy)(fp *o, const fp *a) {
    FP_MUL_LAZY(o->v, a->v, a->v);
}

/* o = a^-1 (bn254_fp.h's fp_inv_by, with this instance's product; 0 maps to 0) */
static void SFX(fp_inv)(fp *o, const fp *a) { fp_inv_by(o, a, FP_MUL); }

/* Karatsuba on double-width products: a0 b0, a1 b1 and (a0 + a1)(b0 + b1) unreduced,
 * c1 = the third - the first two (= a0 b1 + a1 b0 < 2p^2), c0 = a0 b0 - a1 b1 (+ p^2 if
 * negative, < 2p^2), each reduced once; a, b canonical */
static __attribute__((noinline)) void SFX(fp2_mul)(fp2 *o, const fp2 *a, const fp2 *b) {
    u64 t0[8], t1[8], m[8], s[4], u[4];
    unsigned char c = 0;
    for (int i = 0; i < 4; i++) c = ADDC(c, a->c0.v[i], a->c1.v[i], &s[i]);   /* < 2p: no carry out */
    c = 0;
    for (int i = 0; i < 4; i++) c = ADDC(c, b->c0.v[i], b->c1.v[i], &u[i]);
    FP_MUL_WIDE(t0, a->c0.v, b->c0.v);
    FP_MUL_WIDE(t1, a->c1.v, b->c1.v);
    FP_MUL_WIDE(m, s, u);
    (void)sub8(m, t0);
    (void)sub8(m, t1);
    u64 mask = (u64)0 - sub8(t0, t1);
    c = 0;
    for (int i = 0; i < 8; i++) c = ADDC(c, t0[i], P_SQUARED[i] & mask, &t0[i]);
    FP_REDC(o->c0.v, t0);
    FP_REDC(o->c1.v, m);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
static __attribute__((noinline)) void SFX(fp2_sqr)(fp2 *o, const fp2 *a) {
    fp s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    SFX(fp_mul)(&m, &a->c0, &a->c1);
    SFX(fp_mul)(&o->c0, &s, &d);
    fp_dbl(&o->c1, &m);
}

/* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2) */
static void SFX(fp2_inv)(fp2 *o, const fp2 *a) {
    fp t0, t1;
    SFX(fp_sqr)(&t0, &a->c0);
    SFX(fp_sqr)(&t1, &a->c1);
    fp_add(&t0, &t0, &t1);
    SFX(fp_inv)(&t0, &t0);
    SFX(fp_mul)(&o->c0, &a->c0, &t0);
    SFX(fp_mul)(&t1, &a->c1, &t0);
    fp_neg(&o->c1, &t1);
}

/* ------------------------------------------------------------------ G1 */

#define F fp
#define F_add fp_add
#define F_sub fp_sub
#define F_dbl fp_dbl
#define F_neg fp_neg
#define F_mul SFX(fp_mul)
#define F_sqr SFX(fp_sqr)
#define F_mul_lazy SFX(fp_mul_lazy)
#define F_sqr_lazy SFX(fp_sqr_lazy)
#define F_reduce fp_reduce
#define F_inv SFX(fp_inv)
#define F_eq fp_eq
#define F_is_zero fp_is_zero
#define F_ONE (&FP_ONE)
#define F_SPLIT glv_split
#define F_ENDO(ox, oy, ix, iy) do { F_mul((ox), (ix), &GLV_BETA); *(oy) = *(iy); } while (0)
#define PFX(name) SFX(g1_##name)
#include "msm_group.h"
#undef F
#undef F_add
#undef F_sub
#undef F_dbl
#undef F_neg
#undef F_mul
#undef F_sqr
#undef F_mul_lazy
#undef F_sqr_lazy
#undef F_reduce
#undef F_inv
#undef F_eq
#undef F_is_zero
#undef F_ONE
#undef F_SPLIT
#undef F_ENDO
#undef PFX

/* ------------------------------------------------------------------ G2 (the GLS split; the lazy
 * products are the reduced ones: a sum of two lazy Fp values is too large for them) */

#define F fp2
#define F_add fp2_add
#define F_sub fp2_sub
#define F_dbl fp2_dbl
#define F_neg fp2_neg
#define F_mul SFX(fp2_mul)
#define F_sqr SFX(fp2_sqr)
#define F_mul_lazy SFX(fp2_mul)
#define F_sqr_lazy SFX(fp2_sqr)
#define F_reduce fp2_reduce
#define F_inv SFX(fp2_inv)
#define F_eq fp2_eq
#define F_is_zero fp2_is_zero
#define F_ONE (&FP2_ONE)
#define F_SPLIT gls_split
#define F_ENDO(ox, oy, ix, iy) do { fp2 conj_; conj_.c0 = (ix)->c0; fp_neg(&conj_.c1, &(ix)->c1); \
    F_mul((ox), &conj_, &GLS_GX); conj_.c0 = (iy)->c0; fp_neg(&conj_.c1, &(iy)->c1); F_mul((oy), &conj_, &GLS_GY); } while (0)
#define PFX(name) SFX(g2_##name)
#include "msm_group.h"
#undef F
#undef F_add
#undef F_sub
#undef F_dbl
#undef F_neg
#undef F_mul
#undef F_sqr
#undef F_mul_lazy
#undef F_sqr_lazy
#undef F_reduce
#undef F_inv
#undef F_eq
#undef F_is_zero
#undef F_ONE
#undef F_SPLIT
#undef F_ENDO
#undef PFX

/* ------------------------------------------------------------------ the whole twist (no split:
 * the GLS split holds in G2 only; this instance sums points that may lie outside it, for the
 * batched subgroup check in msm.c) */

#define F fp2
#define F_add fp2_add
#define F_sub fp2_sub
#define F_dbl fp2_dbl
#define F_neg fp2_neg
#define F_mul SFX(fp2_mul)
#define F_sqr SFX(fp2_sqr)
#define F_mul_lazy SFX(fp2_mul)
#define F_sqr_lazy SFX(fp2_sqr)
#define F_reduce fp2_reduce
#define F_inv SFX(fp2_inv)
#define F_eq fp2_eq
#define F_is_zero fp2_is_zero
#define F_ONE (&FP2_ONE)
#define PFX(name) SFX(g2w_##name)
#include "msm_group.h"
#undef F
#undef F_add
#undef F_sub
#undef F_dbl
#undef F_neg
#undef F_mul
#undef F_sqr
#undef F_mul_lazy
#undef F_sqr_lazy
#undef F_reduce
#undef F_inv
#undef F_eq
#undef F_is_zero
#undef F_ONE
#undef F_SPLIT
#undef F_ENDO
#undef PFX
