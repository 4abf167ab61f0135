"""Circuit-specific Groth16 setup.

:func:`setup` draws its secrets (tau, alpha, beta, gamma, delta) from the operating
system's randomness and drops them when it returns. :func:`setup_insecure_seeded_for_tests`
derives them from a seed, so its keys are reproducible and *not secret*: tests only.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Callable, Optional

from zkbluff.circuit.builder import R1CS
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, Backend, get_backend
from zkbluff.field import EvaluationDomain, get_kernel, inv, r
from zkbluff.groth16.keys import ProvingKey, VerifyingKey
from zkbluff.groth16.qap import coefficient_list, domain_for, polynomials_at


@dataclass
class _Toxic:
    tau: int
    alpha: int
    beta: int
    gamma: int
    delta: int


def _draw(randbelow: Callable[[int], int], domain: EvaluationDomain) -> _Toxic:
    def nonzero() -> int:
        while True:
            x = randbelow(r)
            if x:
                return x

    while True:
        tau = nonzero()
        if pow(tau, 2 * domain.size, r) != 1:  # tau must lie outside the (doubled) domain
            break
    return _Toxic(tau, nonzero(), nonzero(), nonzero(), nonzero())


def _odd_lagrange_doubled(domain: EvaluationDomain, tau: int) -> list[int]:
    """``L_{2i+1}(tau)`` for i < n, in the Lagrange basis of the domain of size 2n:
    ``L_j(tau) = w^j Z_2n(tau) / (2n (tau - w^j))`` at the odd powers ``w^(2i+1)``."""
    big = EvaluationDomain(domain.log_size + 1)
    w = big.omega
    n = domain.size
    k = get_kernel()
    pts = k.scale_powers(k.from_ints([1] * n, n), w, w * w % r)  # w^(2i+1)
    dens = k.batch_inv(k.sub(k.from_ints([tau] * n, n), pts))
    return k.to_ints(k.scale_powers(k.mul(pts, dens), big.vanishing_at(tau) * big.size_inv, 1))


def _setup(system: R1CS, toxic: _Toxic, backend: Backend, progress: Optional[Callable[[str], None]]) -> ProvingKey:
    say = progress or (lambda _msg: None)
    domain = domain_for(system)
    t = toxic
    say(f"setup: {system.n_constraints} constraints, domain 2^{domain.log_size}")
    A, B, C = polynomials_at(system, domain.lagrange_at(t.tau))
    gamma_inv, delta_inv = inv(t.gamma), inv(t.delta)
    k = [(t.beta * a + t.alpha * b + c) % r for a, b, c in zip(A, B, C)]
    n_pub = system.n_public
    ic_scalars = [x * gamma_inv % r for x in k[: n_pub + 1]]
    l_scalars = [x * delta_inv % r for x in k[n_pub + 1:]]
    h_scalars = [x * delta_inv % r for x in _odd_lagrange_doubled(domain, t.tau)]
    g1, g2 = G1_GENERATOR, G2_GENERATOR
    say("setup: G1 queries")
    a_query = backend.g1_mul_many(g1, A)
    b_g1 = backend.g1_mul_many(g1, B)
    ic = backend.g1_mul_many(g1, ic_scalars)
    l_query = backend.g1_mul_many(g1, l_scalars)
    h_query = backend.g1_mul_many(g1, h_scalars)
    say("setup: G2 queries")
    b_g2 = backend.g2_mul_many(g2, B)
    alpha_g1, beta_g1, delta_g1 = backend.g1_mul_many(g1, [t.alpha, t.beta, t.delta])
    beta_g2, gamma_g2, delta_g2 = backend.g2_mul_many(g2, [t.beta, t.gamma, t.delta])
    vk = VerifyingKey(alpha_g1, beta_g2, gamma_g2, delta_g2, tuple(ic))
    return ProvingKey(vk, beta_g1, delta_g1, tuple(a_query), tuple(b_g1), tuple(b_g2), tuple(l_query),
                      tuple(h_query), domain.size, tuple(coefficient_list(system)), system)


def setup(system: R1CS, backend: Optional[Backend] = None,
          progress: Optional[Callable[[str], None]] = None) -> ProvingKey:
    """Keys for ``system``; the secrets come from the OS and are discarded."""
    domain = domain_for(system)
    return _setup(system, _draw(secrets.randbelow, domain), backend or get_backend(), progress)


def setup_insecure_seeded_for_tests(system: R1CS, seed: bytes | str, backend: Optional[Backend] = None) -> ProvingKey:
    """Reproducible keys whose secrets anyone with ``seed`` can recompute. Tests only."""
    seed_b = seed.encode() if isinstance(seed, str) else seed
    counter = [0]

    def randbelow(n: int) -> int:
        counter[0] += 1
        h = hashlib.sha512(seed_b + counter[0].to_bytes(8, "little")).digest()
        return int.from_bytes(h, "little") % n

    return _setup(system, _draw(randbelow, domain_for(system)), backend or get_backend(), None)
