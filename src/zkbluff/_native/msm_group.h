/*
 * The Pippenger MSM of a group y^2 = x^3 + b over a field F, included by msm_field.h
 * (G1 over Fp and G2 over Fp2, once per Fp multiplication).
 *
 * The includer defines:
 *   F                    the coordinate field's element type
 *   F_add F_sub F_dbl F_neg F_mul F_sqr F_inv F_eq F_is_zero    its arithmetic
 *   F_mul_lazy F_sqr_lazy F_reduce    products with inputs and output below 2p, and
 *                        the reduction below p (for G2: the reduced ones, and nothing)
 *   F_ONE                a pointer to its Montgomery one
 *   F_SPLIT F_ENDO       the endomorphism split (k = k0 + k1 lambda, both below 2^128)
 *                        and the endomorphism (x, y) -> lambda (x, y); without them, none
 *   PFX(name)            the group's prefix for every name defined here
 *
 * Points on y^2 = x^3 + b (a = 0). Jacobian coordinates (X, Y, Z) stand for
 * (X / Z^2, Y / Z^3); Z = 0 is the point at infinity, as in MCL.
 */

#include "bn254_jac.h"   /* PFX(aff), PFX(jac), jac_is_inf / set_inf / dbl / add_aff */

/* r = p + q (add-2007-bl); r may alias p or q */
static void PFX(jac_add)(PFX(jac) *r, const PFX(jac) *p, const PFX(jac) *q) {
    if (PFX(jac_is_inf)(p)) { *r = *q; return; }
    if (PFX(jac_is_inf)(q)) { *r = *p; return; }
    F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    F_sqr(&z1z1, &p->z);
    F_sqr(&z2z2, &q->z);
    F_mul(&u1, &p->x, &z2z2);
    F_mul(&u2, &q->x, &z1z1);
    F_mul(&s1, &p->y, &q->z);
    F_mul(&s1, &s1, &z2z2);
    F_mul(&s2, &q->y, &p->z);
    F_mul(&s2, &s2, &z1z1);
    F_sub(&h, &u2, &u1);
    F_sub(&rr, &s2, &s1);
    if (F_is_zero(&h)) {
        if (F_is_zero(&rr)) { PFX(jac_dbl)(r, p); return; }
        PFX(jac_set_inf)(r);
        return;
    }
    F_dbl(&rr, &rr);            /* r = 2 (S2 - S1) */
    F_dbl(&i, &h);
    F_sqr(&i, &i);              /* I = (2H)^2 */
    F_mul(&j, &h, &i);          /* J = H I */
    F_mul(&v, &u1, &i);         /* V = U1 I */
    F x3, y3, z3;
    F_sqr(&x3, &rr);
    F_sub(&x3, &x3, &j);
    F_sub(&x3, &x3, &v);
    F_sub(&x3, &x3, &v);        /* X3 = r^2 - J - 2V */
    F_sub(&t, &v, &x3);
    F_mul(&y3, &rr, &t);
    F_mul(&t, &s1, &j);
    F_dbl(&t, &t);
    F_sub(&y3, &y3, &t);        /* Y3 = r (V - X3) - 2 S1 J */
    F_add(&z3, &p->z, &q->z);
    F_sqr(&z3, &z3);
    F_sub(&z3, &z3, &z1z1);
    F_sub(&z3, &z3, &z2z2);
    F_mul(&z3, &z3, &h);        /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H */
    r->x = x3; r->y = y3; r->z = z3;
}

/* The backward step of a batched affine addition a += b (Montgomery's trick): inv holds
 * the inverse of acc[q] (the product of the first q + 1 denominators, lazy); on return
 * a = a + b and inv the inverse of acc[q - 1]. kind: 1 for a doubling (b = a). Lazy
 * products (below 2p) where only products read them: the prefix products, the inverses,
 * lambda; x3 and y3 are reduced once at the end. */
static inline __attribute__((always_inline)) void PFX(aff_finish)(PFX(aff) *a, const PFX(aff) *bb, uint8_t kind,
                                                                   F *inv, const F *acc, size_t q) {
    F den, li, lam, t, x3;
    if (kind) F_dbl(&den, &a->y); else F_sub(&den, &bb->x, &a->x);
    if (q) {
        F_mul_lazy(&li, inv, &acc[q - 1]);   /* 1 / den */
        F_mul_lazy(inv, inv, &den);
    } else {
        li = *inv;
    }
    if (kind) {
        F_sqr(&t, &a->x);
        F_dbl(&lam, &t);
        F_add(&t, &lam, &t);             /* 3 x^2 */
        F_mul(&lam, &t, &li);
        F_sqr(&x3, &lam);
        F_sub(&x3, &x3, &a->x);
        F_sub(&x3, &x3, &a->x);
    } else {
        F_sub(&t, &bb->y, &a->y);
        F_mul_lazy(&lam, &t, &li);
        F_sqr_lazy(&x3, &lam);
        F_sub(&x3, &x3, &a->x);              /* below 2p - p and 2p: still below 2p */
        F_sub(&x3, &x3, &bb->x);
        F_reduce(&x3);
    }
    F_sub(&t, &a->x, &x3);
    F_mul_lazy(&t, &lam, &t);
    F_sub(&a->y, &t, &a->y);
    F_reduce(&a->y);
    a->x = x3;
}

/* dst_i += *src_i for every i < n with src_i not NULL (src_i never the point at
 * infinity; dinf_i: dst_i is), all in affine coordinates with one field inversion:
 * dst_i at infinity takes src_i, equal x gives a doubling or the point at infinity.
 * acc, pos, kind: scratch of n entries. */
static void PFX(batch_add)(PFX(aff) *dst, uint8_t *dinf, const PFX(aff) *const *src, size_t n,
                           F *acc, int32_t *pos, uint8_t *kind) {
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        const PFX(aff) *b = src[i];
        if (!b) continue;
        if (dinf[i]) { dst[i] = *b; dinf[i] = 0; continue; }
        const PFX(aff) *a = &dst[i];
        F den;
        uint8_t kd;
        if (F_eq(&a->x, &b->x)) {
            if (!F_eq(&a->y, &b->y) || F_is_zero(&a->y)) { dinf[i] = 1; continue; }
            F_dbl(&den, &a->y);
            kd = 1;
        } else {
            F_sub(&den, &b->x, &a->x);
            kd = 0;
        }
        if (np) F_mul_lazy(&acc[np], &acc[np - 1], &den); else acc[0] = den;
        pos[np] = (int32_t)i;
        kind[np] = kd;
        np++;
    }
    if (!np) return;
    F inv;
    F_inv(&inv, &acc[np - 1]);
    for (size_t q = np; q-- > 0;) PFX(aff_finish)(&dst[pos[q]], src[pos[q]], kind[q], &inv, acc, q);
}

/*
 * out = sum k_i P_i by the bucket method with signed digits of c bits, bucket sums
 * formed by batched affine additions, after the endomorphism split (GLV in G1, GLS in
 * G2).
 *
 * pts: n points in MCL's layout (x, y, z in Montgomery form); each must be affine
 * (z = 1) or the point at infinity (z = 0, left out). ks: n plain scalars (4 limbs,
 * < r). Returns 0, MSM_ENOMEM or MSM_EPOINT (a z that is neither 0 nor 1).
 *
 * The split: k P = k0 P + k1 endo(P) with endo(P) = lambda P and |k0|, |k1| < 2^128
 * (G1: phi(x, y) = (beta x, y), glv_split; G2: psi, gls_split), so the MSM runs over 2m
 * points with 128-bit scalars, the signs folded into the points: half the windows for
 * twice the points, which halves the bucket combining.
 *
 * Per window: the points are counting-sorted by bucket into a scratch array (negated
 * for a negative digit), then each bucket's run is summed as a tree: in every round,
 * neighbouring pairs of every bucket are added at once, all the round's denominators
 * inverted with one field inversion (Montgomery's trick). A pair with equal x is a
 * doubling (its denominator 2y goes in the same batch) or P + (-P) (the slot becomes
 * the point at infinity, which later pairs pass through). The buckets of all windows
 * are then combined by running sums over segments of buckets, all windows' segments
 * side by side in batched affine additions (see the reduction below), the windows by
 * c doublings each.
 */
static int PFX(msm_bits)(PFX(jac) *out, const unsigned char *pts, const u64 (*ks)[4], size_t n, int c,
                         int nbits_in) {
    const size_t psz = 3 * sizeof(F);
    PFX(jac_set_inf)(out);
    /* live terms: a nonzero scalar and a finite point */
    size_t live_n = 0;
    uint32_t *live = (uint32_t *)malloc((n ? n : 1) * sizeof(uint32_t));
    if (!live) return MSM_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const F *z = (const F *)(pts + i * psz + 2 * sizeof(F));
        if (F_is_zero(z)) continue;
        if (!F_eq(z, F_ONE)) { free(live); return MSM_EPOINT; }
        if ((ks[i][0] | ks[i][1] | ks[i][2] | ks[i][3]) == 0) continue;
        live[live_n++] = (uint32_t)i;
    }
    if (live_n == 0) { free(live); return 0; }
#ifdef F_SPLIT
    /* the GLV / GLS split: terms 2t and 2t + 1 are (+-P, |k0|) and (+-endo(P), |k1|) */
    const size_t m = 2 * live_n;
    const int nbits = GLV_BITS;
#else
    const size_t m = live_n;
    /* without the split: the caller may say its scalars are below 2^nbits_in (fewer windows) */
    const int nbits = nbits_in > 0 ? nbits_in : 254;
#endif
    (void)nbits_in;
    PFX(aff) *src = (PFX(aff) *)big_alloc(m * sizeof(PFX(aff)));
    u64 (*half_k)[4] = (u64 (*)[4])malloc(m * sizeof *half_k);
    if (!src || !half_k) { free(live); free(src); free(half_k); return MSM_ENOMEM; }
    for (size_t t = 0; t < live_n; t++) {
        const F *p = (const F *)(pts + (size_t)live[t] * psz);
#ifdef F_SPLIT
        int neg1, neg2;
        F_SPLIT(ks[live[t]], half_k[2 * t], &neg1, half_k[2 * t + 1], &neg2);
        src[2 * t].x = p[0];
        if (neg1) F_neg(&src[2 * t].y, &p[1]); else src[2 * t].y = p[1];
        F_ENDO(&src[2 * t + 1].x, &src[2 * t + 1].y, &p[0], &p[1]);
        if (neg2) F_neg(&src[2 * t + 1].y, &src[2 * t + 1].y);
#else
        memcpy(half_k[t], ks[live[t]], 32);
        src[t].x = p[0];
        src[t].y = p[1];
#endif
    }
    free(live);
    if (c <= 0) c = window_bits(m, nbits);
    const int windows = (nbits + 1 + c - 1) / c;
    const int32_t nb = (int32_t)1 << (c - 1);     /* buckets 1..nb: digits in [-nb, nb] */
    size_t half = m / 2 + 1;
    uint8_t *carry = (uint8_t *)calloc(m, 1);
    int32_t *digit = (int32_t *)malloc(m * sizeof(int32_t));
    int32_t *start = (int32_t *)malloc(((size_t)nb + 1) * sizeof(int32_t));
    int32_t *cnt = (int32_t *)malloc((size_t)nb * sizeof(int32_t));
    PFX(aff) *buf = (PFX(aff) *)big_alloc(m * sizeof(PFX(aff)));
    uint8_t *inf = (uint8_t *)malloc(m);
    F *acc = (F *)malloc(half * sizeof(F));
    int32_t *pos = (int32_t *)malloc(half * sizeof(int32_t));
    uint8_t *kind = (uint8_t *)malloc(half);
    PFX(jac) *wsum = (PFX(jac) *)calloc((size_t)windows, sizeof(PFX(jac)));
    /* the reduction's segments (REDUCE_SEGS per window, fewer for small windows) */
    const int32_t segs = nb < REDUCE_SEGS ? nb : REDUCE_SEGS, seg_len = nb / segs;
    const size_t chains = (size_t)windows * (size_t)segs;
    PFX(aff) *bk = (PFX(aff) *)big_alloc((size_t)windows * (size_t)nb * sizeof(PFX(aff)));
    uint8_t *bkinf = (uint8_t *)malloc((size_t)windows * (size_t)nb);
    PFX(aff) *run = (PFX(aff) *)malloc(chains * sizeof(PFX(aff)));
    PFX(aff) *tot = (PFX(aff) *)malloc(chains * sizeof(PFX(aff)));
    uint8_t *rinf = (uint8_t *)malloc(chains), *tinf = (uint8_t *)malloc(chains), *rkind = (uint8_t *)malloc(chains);
    const PFX(aff) **srcp = (const PFX(aff) **)malloc(chains * sizeof *srcp);
    F *racc = (F *)malloc(chains * sizeof(F));
    int32_t *rpos = (int32_t *)malloc(chains * sizeof(int32_t));
    int rc = 0;
    if (!carry || !digit || !start || !cnt || !buf || !inf || !acc || !pos || !kind || !wsum || !bk || !bkinf ||
        !run || !tot || !rinf || !tinf || !rkind || !srcp || !racc || !rpos) {
        rc = MSM_ENOMEM;
        goto done;
    }
    for (int w = 0; w < windows; w++) {
        /* this window's signed digits */
        const int bit = w * c;
        memset(start, 0, ((size_t)nb + 1) * sizeof(int32_t));
        for (size_t t = 0; t < m; t++) {
            const u64 *k = half_k[t];
            u64 v = 0;
            if (bit < 256) {
                int limb = bit >> 6, off = bit & 63;
                v = k[limb] >> off;
                if (off + c > 64 && limb < 3) v |= k[limb + 1] << (64 - off);
                v &= ((u64)1 << c) - 1;
            }
            int32_t d = (int32_t)v + carry[t];
            if (d > nb) { d -= 2 * nb; carry[t] = 1; } else carry[t] = 0;
            digit[t] = d;
            if (d) start[(d < 0 ? -d : d) - 1 + 1]++;
        }
        for (int32_t b = 0; b < nb; b++) {
            cnt[b] = start[b + 1];
            start[b + 1] += start[b];
        }
        /* counting sort into buckets (each run filled from its end), negating for
         * negative digits */
        for (size_t t = 0; t < m; t++) {
            int32_t d = digit[t];
            if (!d) continue;
            int32_t b = (d < 0 ? -d : d) - 1;
            int32_t at = start[b] + --cnt[b];
            buf[at].x = src[t].x;
            if (d < 0) F_neg(&buf[at].y, &src[t].y); else buf[at].y = src[t].y;
            inf[at] = 0;
        }
        for (int32_t b = 0; b < nb; b++) cnt[b] = start[b + 1] - start[b];
        /* tree rounds over runs of buckets of about TREE_CHUNK points (they stay in
         * cache through their rounds): pairs (j, j + stride) of every bucket of the
         * run, one inversion a round */
        for (int32_t b0 = 0, b1 = 0; b0 < nb; b0 = b1) {
            size_t run_len = 0;
            while (b1 < nb && (run_len == 0 || run_len + (size_t)cnt[b1] <= TREE_CHUNK)) run_len += (size_t)cnt[b1++];
            for (int32_t stride = 1;; stride *= 2) {
                size_t np = 0;
                int more = 0;
                for (int32_t b = b0; b < b1; b++) {
                    int32_t len = cnt[b];
                    if (len < 2) continue;
                    more = 1;
                    int32_t base = start[b];
                    for (int32_t j = 0; j + 1 < len; j += 2) {
                        int32_t ia = base + j * stride, ib = ia + stride;
                        if (inf[ia]) { buf[ia] = buf[ib]; inf[ia] = inf[ib]; continue; }
                        if (inf[ib]) continue;
                        F den;
                        uint8_t kd;
                        if (F_eq(&buf[ia].x, &buf[ib].x)) {
                            if (!F_eq(&buf[ia].y, &buf[ib].y) || F_is_zero(&buf[ia].y)) {
                                inf[ia] = 1;  /* P + (-P), or 2P with y = 0 */
                                continue;
                            }
                            F_dbl(&den, &buf[ia].y);
                            kd = 1;
                        } else {
                            F_sub(&den, &buf[ib].x, &buf[ia].x);
                            kd = 0;
                        }
                        if (np) F_mul_lazy(&acc[np], &acc[np - 1], &den); else acc[0] = den;
                        pos[np] = ia;
                        kind[np] = kd;
                        np++;
                    }
                    cnt[b] = (len + 1) / 2;
                }
                if (!more) break;
                if (!np) continue;
                F inv;
                F_inv(&inv, &acc[np - 1]);
                for (size_t q = np; q-- > 0;)
                    PFX(aff_finish)(&buf[pos[q]], &buf[pos[q] + stride], kind[q], &inv, acc, q);
            }
        }
        /* the window's bucket sums, kept for the reduction */
        for (int32_t b = 0; b < nb; b++) {
            int32_t at = start[b];
            size_t o = (size_t)w * (size_t)nb + (size_t)b;
            if (start[b + 1] > at && !inf[at]) { bk[o] = buf[at]; bkinf[o] = 0; } else bkinf[o] = 1;
        }
    }
    /* sum_b (b + 1) bucket_b in every window: each window's buckets cut into segs segments
     * of seg_len; in every segment (of every window at once, one inversion a step, affine)
     * running sums from its top bucket down: run_s = sum of its buckets, tot_s = sum of
     * (b + 1 - s seg_len) bucket_b. Then per window (Jacobian) sum_s tot_s + seg_len sum_s
     * s run_s, the last by running sums over the segments and log2(seg_len) doublings. */
    for (size_t ch = 0; ch < chains; ch++) { rinf[ch] = 1; tinf[ch] = 1; }
    for (int32_t j = seg_len - 1; j >= 0; j--) {
        for (size_t ch = 0; ch < chains; ch++) {
            size_t o = (ch / (size_t)segs) * (size_t)nb + (ch % (size_t)segs) * (size_t)seg_len + (size_t)j;
            srcp[ch] = bkinf[o] ? NULL : &bk[o];
        }
        PFX(batch_add)(run, rinf, (const PFX(aff) *const *)srcp, chains, racc, rpos, rkind);
        for (size_t ch = 0; ch < chains; ch++) srcp[ch] = rinf[ch] ? NULL : &run[ch];
        PFX(batch_add)(tot, tinf, (const PFX(aff) *const *)srcp, chains, racc, rpos, rkind);
    }
    for (int w = 0; w < windows; w++) {
        const size_t ch0 = (size_t)w * (size_t)segs;
        PFX(jac) rs, ts;
        PFX(jac_set_inf)(&rs);
        PFX(jac_set_inf)(&ts);
        for (int32_t sg = segs - 1; sg >= 1; sg--) {
            if (!rinf[ch0 + sg]) PFX(jac_add_aff)(&rs, &rs, &run[ch0 + sg]);
            if (!PFX(jac_is_inf)(&rs)) PFX(jac_add)(&ts, &ts, &rs);
        }
        for (int32_t l = 1; l < seg_len; l *= 2) PFX(jac_dbl)(&ts, &ts);
        for (int32_t sg = 0; sg < segs; sg++)
            if (!tinf[ch0 + sg]) PFX(jac_add_aff)(&ts, &ts, &tot[ch0 + sg]);
        wsum[w] = ts;
    }
    /* the windows, top first: c doublings between them */
    *out = wsum[windows - 1];
    for (int w = windows - 2; w >= 0; w--) {
        for (int s = 0; s < c; s++) PFX(jac_dbl)(out, out);
        PFX(jac_add)(out, out, &wsum[w]);
    }
done:
    free(src); free(half_k); free(carry); free(digit); free(start); free(cnt); free(buf); free(inf);
    free(acc); free(pos); free(kind); free(wsum);
    free(bk); free(bkinf); free(run); free(tot); free(rinf); free(tinf); free(rkind); free(srcp); free(racc); free(rpos);
    return rc;
}

/* the MSM of scalars below r (msm_bits with every bit) */
static __attribute__((unused)) int PFX(msm)(PFX(jac) *out, const unsigned char *pts, const u64 (*ks)[4], size_t n,
                                            int c) {
    return PFX(msm_bits)(out, pts, ks, n, c, 0);
}
