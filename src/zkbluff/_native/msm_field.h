/*
 * The Fp arithmetic that depends on the multiplication, and the G1 MSM, included by
 * msm.c once per multiplication (portable C, and MULX/ADX assembly where the CPU has
 * it). The includer defines FP_MUL(out, a, b) (Montgomery product mod p on limb arrays)
 * and SFX(name), the suffix of every name defined here.
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

/* o = a^-1 = a^(p-2) (Fermat; 0 maps to 0: callers never invert 0) */
static void SFX(fp_inv)(fp *o, const fp *a) {
    static const u64 E[4] = {0x3c208c16d87cfd45ULL, 0x97816a916871ca8dULL,
                             0xb85045b68181585dULL, 0x30644e72e131a029ULL};
    /* 4-bit fixed window */
    fp tab[16];
    tab[0] = FP_ONE;
    tab[1] = *a;
    for (int i = 2; i < 16; i++) SFX(fp_mul)(&tab[i], &tab[i - 1], a);
    fp acc = FP_ONE;
    for (int i = 63; i >= 0; i--) {
        int nib = (int)((E[i / 16] >> (4 * (i % 16))) & 15);
        if (i != 63) for (int s = 0; s < 4; s++) SFX(fp_sqr)(&acc, &acc);
        if (nib) SFX(fp_mul)(&acc, &acc, &tab[nib]);
    }
    *o = acc;
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
#define F_BETA (&GLV_BETA)
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
#undef F_BETA
#undef PFX
