"""Small circuits and curve points that tests in several folders share (not tests themselves)."""
from __future__ import annotations

import random
import secrets

from zkbluff.curve import B2, G1_GENERATOR, G2_GENERATOR, fq2_add, fq2_mul, fq2_sqrt, get_backend
from zkbluff.field import p, r
from zkbluff.gadgets import poseidon
from zkbluff.groth16 import Proof
from zkbluff.groth16.qap import domain_for, polynomials_at


def cube(cs, inputs):
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    x2 = cs.mul(x, x, "x2")
    x3 = cs.mul(x2, x, "x3")
    cs.enforce_equal(x3 + x + 5, out, "result")


def hash_preimage(cs, inputs):
    h = cs.public("h", inputs and inputs["h"])
    k = cs.public("k", inputs and inputs["k"])
    a = cs.private_unchecked("a", inputs and inputs["a"])
    b = cs.private_unchecked("b", inputs and inputs["b"])
    cs.enforce_equal(poseidon(cs, [a, b]), h, "hash")
    cs.mul(a, k, "bind_k")  # k enters a constraint


CIRCOM_SOURCE = """
pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
template T() {
    signal input a;
    signal input b;
    signal output h;
    signal output m;
    component p = Poseidon(2);
    p.inputs[0] <== a;
    p.inputs[1] <== b;
    h <== p.out;
    m <== a * b;
}
component main {public [a]} = T();
"""


def non_subgroup_g2(seed=1):
    """A point on the twist that is not in G2 (the twist has cofactor 2p - r)."""
    rng = random.Random(seed)
    while True:
        x = (rng.randrange(p), rng.randrange(p))
        y = fq2_sqrt(fq2_add(fq2_mul(fq2_mul(x, x), x), B2))
        if y is not None:
            return (x, y)


def simulate(system, tau: int, alpha: int, beta: int, gamma: int, delta: int, public: list[int]) -> Proof:
    """A valid-looking proof for any public inputs, made from the trapdoor alone:
    A = [a], B = [b], C = [(a b - alpha beta - sum x_i (beta A_i + alpha B_i + C_i)(tau)) / delta]."""
    be = get_backend()
    A, B, C = polynomials_at(system, domain_for(system).lagrange_at(tau))
    x = [1] + list(public)
    acc = sum(xi * (beta * A[i] + alpha * B[i] + C[i]) for i, xi in enumerate(x)) % r
    a, b = secrets.randbelow(r - 1) + 1, secrets.randbelow(r - 1) + 1
    c = (a * b - alpha * beta - acc) * pow(delta, -1, r) % r
    del gamma  # cancels: IC_i carries 1/gamma, the pairing with [gamma]_2 removes it
    return Proof(be.g1_mul(G1_GENERATOR, a), be.g2_mul(G2_GENERATOR, b), be.g1_mul(G1_GENERATOR, c))
