/*
 * Jacobian doubling and mixed addition on y^2 = x^3 + b (a = 0) over a field F, shared by
 * the MSM (msm_group.h, G1 and G2) and the contribution kernel's scalar code (points.c,
 * G1). No include guard: included once per field and prefix. The includer defines F,
 * F_add F_sub F_dbl F_mul F_sqr F_is_zero, F_ONE (a pointer to the Montgomery one) and
 * PFX(name), as msm_group.h describes. (X, Y, Z) stands for (X / Z^2, Y / Z^3); Z = 0 is
 * the point at infinity, as in MCL.
 */

typedef struct { F x, y; } PFX(aff);
typedef struct { F x, y, z; } PFX(jac);

static inline int PFX(jac_is_inf)(const PFX(jac) *p) { return F_is_zero(&p->z); }

static inline void PFX(jac_set_inf)(PFX(jac) *p) { memset(p, 0, sizeof *p); }

/* r = 2p (dbl-2009-l); r may alias p */
static void PFX(jac_dbl)(PFX(jac) *r, const PFX(jac) *p) {
    if (PFX(jac_is_inf)(p)) { *r = *p; return; }
    F a, b, c, d, e, f, t;
    F_sqr(&a, &p->x);
    F_sqr(&b, &p->y);
    F_sqr(&c, &b);
    F_add(&t, &p->x, &b);
    F_sqr(&t, &t);
    F_sub(&t, &t, &a);
    F_sub(&t, &t, &c);
    F_dbl(&d, &t);              /* D = 2((X + B)^2 - A - C) */
    F_dbl(&e, &a);
    F_add(&e, &e, &a);          /* E = 3A */
    F_sqr(&f, &e);              /* F = E^2 */
    F z3;
    F_mul(&z3, &p->y, &p->z);
    F_dbl(&z3, &z3);            /* Z3 = 2 Y Z */
    F x3;
    F_dbl(&t, &d);
    F_sub(&x3, &f, &t);         /* X3 = F - 2D */
    F_sub(&t, &d, &x3);
    F_mul(&t, &e, &t);
    F_dbl(&c, &c);
    F_dbl(&c, &c);
    F_dbl(&c, &c);              /* 8C */
    F_sub(&r->y, &t, &c);       /* Y3 = E (D - X3) - 8C */
    r->x = x3;
    r->z = z3;
}

/* r = p + q with q affine (madd-2007-bl); r may alias p */
static void PFX(jac_add_aff)(PFX(jac) *r, const PFX(jac) *p, const PFX(aff) *q) {
    if (PFX(jac_is_inf)(p)) { r->x = q->x; r->y = q->y; r->z = *F_ONE; return; }
    F z1z1, u2, s2, h, hh, i, j, rr, v, t;
    F_sqr(&z1z1, &p->z);
    F_mul(&u2, &q->x, &z1z1);
    F_mul(&s2, &q->y, &p->z);
    F_mul(&s2, &s2, &z1z1);
    F_sub(&h, &u2, &p->x);
    F_sub(&rr, &s2, &p->y);
    if (F_is_zero(&h)) {
        if (F_is_zero(&rr)) { PFX(jac_dbl)(r, p); return; }
        PFX(jac_set_inf)(r);
        return;
    }
    F_dbl(&rr, &rr);            /* r = 2 (S2 - Y1) */
    F_sqr(&hh, &h);
    F_dbl(&i, &hh);
    F_dbl(&i, &i);              /* I = 4 HH */
    F_mul(&j, &h, &i);          /* J = H I */
    F_mul(&v, &p->x, &i);       /* V = X1 I */
    F x3, y3, z3;
    F_sqr(&x3, &rr);
    F_sub(&x3, &x3, &j);
    F_sub(&x3, &x3, &v);
    F_sub(&x3, &x3, &v);        /* X3 = r^2 - J - 2V */
    F_sub(&t, &v, &x3);
    F_mul(&y3, &rr, &t);
    F_mul(&t, &p->y, &j);
    F_dbl(&t, &t);
    F_sub(&y3, &y3, &t);        /* Y3 = r (V - X3) - 2 Y1 J */
    F_add(&z3, &p->z, &h);
    F_sqr(&z3, &z3);
    F_sub(&z3, &z3, &z1z1);
    F_sub(&z3, &z3, &hh);       /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    r->x = x3; r->y = y3; r->z = z3;
}
