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
 * The field arithmetic here is our own: the mcl backend checks at load, against
 * MCL itself, that the layouts agree and that this module's MSMs equal MCL's mulVec
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

typedef uint64_t u64;
typedef unsigned __int128 u128;

#define MSM_ENOMEM (-1)
#define MSM_EPOINT (-2)

typedef struct { u64 v[4]; } fp;
typedef struct { fp c0, c1; } fp2;

/* p, the BN254 base field modulus */
static const u64 P_MOD[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                             0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const u64 P_INV_NEG = 0x87d20782e4866389ULL;   /* -p^-1 mod 2^64 */
static const fp FP_ONE = {{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL,
                           0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}};  /* 2^256 mod p */
static const fp2 FP2_ONE = {{{0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL,
                              0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}}, {{0, 0, 0, 0}}};
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
#if defined(__x86_64__) && defined(__GNUC__)
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

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_ADX_ASM 1
/* mont_mul modulo p in x86-64 assembly: MULX products summed on two independent carry
 * chains (ADCX on CF, ADOX on OF), the same CIOS steps as mont_mul. Only run where
 * the CPU has BMI2 and ADX (checked at import). */
static inline __attribute__((always_inline)) void mont_mul_p_adx_core(u64 out[4], const u64 a[4], const u64 b[4],
                                                                      int reduce) {
    u64 t0, t1, t2, t3, t4, lo, hi;
    __asm__(
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
        "movq 8(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
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
        "movq 16(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
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
        "movq 24(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
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
        : [a] "r"(a), [b] "r"(b), "m"(*(const u64 (*)[4])a), "m"(*(const u64 (*)[4])b),
          [p0] "m"(P_MOD[0]), [p1] "m"(P_MOD[1]), [p2] "m"(P_MOD[2]), [p3] "m"(P_MOD[3]), [pinv] "m"(P_INV_NEG)
        : "rdx", "cc");
    u64 t[4] = {t4, t0, t1, t2};
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

static inline void fp2_add(fp2 *o, const fp2 *a, const fp2 *b) { fp_add(&o->c0, &a->c0, &b->c0); fp_add(&o->c1, &a->c1, &b->c1); }
static inline void fp2_sub(fp2 *o, const fp2 *a, const fp2 *b) { fp_sub(&o->c0, &a->c0, &b->c0); fp_sub(&o->c1, &a->c1, &b->c1); }
static inline void fp2_dbl(fp2 *o, const fp2 *a) { fp_dbl(&o->c0, &a->c0); fp_dbl(&o->c1, &a->c1); }
static inline void fp2_neg(fp2 *o, const fp2 *a) { fp_neg(&o->c0, &a->c0); fp_neg(&o->c1, &a->c1); }
static inline int fp2_is_zero(const fp2 *a) { return fp_is_zero(&a->c0) && fp_is_zero(&a->c1); }
static inline int fp2_eq(const fp2 *a, const fp2 *b) { return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1); }
/* Fp2 values in the MSM are always reduced (its lazy products are the reduced ones) */
static inline void fp2_reduce(fp2 *a) { (void)a; }

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
static void mul_limbs(u64 *out, const u64 *x, int nx, const u64 *y, int ny) {
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
static void sub_limbs(u64 a[4], const u64 *b, int nb) {
    unsigned char c = 0;
    for (int i = 0; i < 4; i++) c = SUBB(c, a[i], i < nb ? b[i] : 0, &a[i]);
}

/* k = (-1)^neg1 k1 + (-1)^neg2 k2 lambda mod r with k1, k2 < 2^128 (k < r, plain):
 * c1 = floor(k B2 / r), c2 = floor(k B1N / r) (each at most 1 below the rounded
 * quotient), k1 = k - c1 A1 - c2 A2, k2 = c1 B1N - c2 B2, computed mod 2^256 (their
 * true values are small, so the two's complement gives sign and size). */
static void glv_split(const u64 k[4], u64 k1[4], int *neg1, u64 k2[4], int *neg2) {
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

static PyObject *py_g1_msm(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pts, sc;
    Py_ssize_t n;
    int c = 0, portable = 0;
    if (!PyArg_ParseTuple(args, "y*y*n|ip", &pts, &sc, &n, &c, &portable)) return NULL;
    const size_t psz = 3 * sizeof(fp);
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
    g1_jac_c r;
    const unsigned char *pb = (const unsigned char *)pts.buf;
    const u64 (*kk)[4] = (const u64 (*)[4])ks;
    const int adx = cpu_has_adx && !portable;
    Py_BEGIN_ALLOW_THREADS
    scalars_from_mont(ks, (const unsigned char *)sc.buf, (size_t)n);
#if HAVE_ADX_ASM
    if (adx) rc = g1_msm_adx((g1_jac_adx *)&r, pb, kk, (size_t)n, c);
    else
#endif
    rc = g1_msm_c(&r, pb, kk, (size_t)n, c);
    Py_END_ALLOW_THREADS
    (void)adx;
    free(ks);
    if (rc == MSM_ENOMEM) PyErr_NoMemory();
    else if (rc == MSM_EPOINT) PyErr_SetString(PyExc_ValueError, "MSM: a point is neither affine (z = 1) nor infinity (z = 0)");
    else res = PyBytes_FromStringAndSize((const char *)&r, sizeof r);
out:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&sc);
    return res;
}


static PyObject *py_g2_msm(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pts, sc;
    Py_ssize_t n;
    int c = 0, portable = 0;
    if (!PyArg_ParseTuple(args, "y*y*n|ip", &pts, &sc, &n, &c, &portable)) return NULL;
    const size_t psz = 3 * sizeof(fp2);
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
    g2_jac_c r;
    const unsigned char *pb = (const unsigned char *)pts.buf;
    const u64 (*kk)[4] = (const u64 (*)[4])ks;
    const int adx = cpu_has_adx && !portable;
    Py_BEGIN_ALLOW_THREADS
    scalars_from_mont(ks, (const unsigned char *)sc.buf, (size_t)n);
#if HAVE_ADX_ASM
    if (adx) rc = g2_msm_adx((g2_jac_adx *)&r, pb, kk, (size_t)n, c);
    else
#endif
    rc = g2_msm_c(&r, pb, kk, (size_t)n, c);
    Py_END_ALLOW_THREADS
    (void)adx;
    free(ks);
    if (rc == MSM_ENOMEM) PyErr_NoMemory();
    else if (rc == MSM_EPOINT) PyErr_SetString(PyExc_ValueError, "MSM: a point is neither affine (z = 1) nor infinity (z = 0)");
    else res = PyBytes_FromStringAndSize((const char *)&r, sizeof r);
out:
    PyBuffer_Release(&pts);
    PyBuffer_Release(&sc);
    return res;
}


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
