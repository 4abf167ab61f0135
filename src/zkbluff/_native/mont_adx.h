/*
 * The 4-limb Montgomery product in MULX/ADX assembly, over any modulus m below 2^254 (top
 * limb below 2^62, the "no carry" CIOS form of mont_mul_core in bn254_fp.h): one copy for
 * Fp (bn254_fp.h's mont_mul_p_adx*, msm.c and points.c) and Fr (fr.c's fe_mul_adx, the
 * Poseidon kernel). MULX products summed on two independent carry chains (ADCX on CF,
 * ADOX on OF). Defined where the compiler targets x86-64 with GNU asm and ZKBLUFF_PORTABLE
 * is not set (ZKBLUFF_HAVE_MONT_ADX is then 1, else 0); only to be run where the CPU has
 * BMI2 and ADX, which each includer checks at import.
 */
#ifndef ZKBLUFF_MONT_ADX_H
#define ZKBLUFF_MONT_ADX_H

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZKBLUFF_PORTABLE)
#define ZKBLUFF_HAVE_MONT_ADX 1
/* out = a b 2^-256 mod m, not reduced: out < 2m for a, b < 2m (the caller subtracts m
 * once for a result below m). m and *minv = -m^-1 mod 2^64 are read from memory, as the
 * includers' static constants; always inlined, so each call site addresses them directly.
 * out may alias a or b. */
static inline __attribute__((always_inline)) void mont_mul_adx_unreduced(uint64_t out[4], const uint64_t a[4],
                                                                         const uint64_t b[4], const uint64_t m[4],
                                                                         const uint64_t *minv) {
    uint64_t t0, t1, t2, t3, t4, lo, hi;
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
        : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t (*)[4])a), "m"(*(const uint64_t (*)[4])b),
          [p0] "m"(m[0]), [p1] "m"(m[1]), [p2] "m"(m[2]), [p3] "m"(m[3]), [pinv] "m"(*minv)
        : "rdx", "cc");
    out[0] = t4; out[1] = t0; out[2] = t1; out[3] = t2;
}
#else
#define ZKBLUFF_HAVE_MONT_ADX 0
#endif

#endif  /* ZKBLUFF_MONT_ADX_H */
