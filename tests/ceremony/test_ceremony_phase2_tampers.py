"""Every check of the phase-2 verification (zkey_verify, zkey_verify_fast and the
contribution chain they share), each with a key tampered in one named place.

Found by mutation testing (issue 21, ``make mutate``); the untampered twin verifies under
both verifiers, and a compact key under the fast one.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from zkbluff.ceremony.phase2 import (
    circuit_power, compact_bytes, compact_from_bytes, zkey_beacon, zkey_contribute, zkey_new, zkey_verify,
    zkey_verify_fast,
)
from zkbluff.ceremony.ptau import ptau_contribute, ptau_new, ptau_prepare
from zkbluff.circuit import build
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR
from zkbluff.errors import InvalidCeremony, MalformedInput
from backend_spies import PairingSpy


def cube(cs, inputs):
    """``out = x^3 + x + 5``: one public input, 3 constraints (this file's own tiny circuit)."""
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    x3 = cs.mul(cs.mul(x, x, "x2"), x, "x3")
    cs.enforce_equal(x3 + x + 5, out, "result")


BEACON = bytes.fromhex("fedcba9876543210")


@pytest.fixture(scope="module")
def setting(mcl):
    """A 2^3 phase 1 (one contribution, prepared), the cube circuit, its initial key and a
    key with three contributions: named, anonymous, a named beacon."""
    system = build(cube, {"x": 3, "out": 35})[0]
    pt = ptau_prepare(ptau_contribute(ptau_new(3), "p1", mcl), mcl)
    init = zkey_new(system, pt, mcl)
    zk = zkey_contribute(init, "alice", mcl)
    zk = zkey_contribute(zk, None, mcl)
    zk = zkey_beacon(zk, BEACON, 10, "final beacon", mcl)
    return system, pt, init, zk


def g1(be, k=5):
    return be.g1_mul(G1_GENERATOR, k)


def g2(be, k=5):
    return be.g2_mul(G2_GENERATOR, k)


def with_pk(zk, **changes):
    return replace(zk, pk=replace(zk.pk, **changes))


def with_vk(zk, **changes):
    return with_pk(zk, vk=replace(zk.pk.vk, **changes))


def with_contribution(zk, i, **changes):
    cs = list(zk.contributions)
    cs[i] = replace(cs[i], **changes)
    return replace(zk, contributions=tuple(cs))


def with_point(points, i, P):
    pts = list(points)
    pts[i] = P
    return tuple(pts)


@pytest.fixture(params=["fast", "full"])
def verify(request, setting, mcl):
    system, pt, init, _ = setting
    def run(zk):
        if request.param == "fast":
            return zkey_verify_fast(zk, system, pt, mcl)
        return zkey_verify(zk, system, pt, mcl, init=init)
    run.kind = request.param
    return run


def test_untampered_key_verifies_with_its_reports(setting, verify):
    zk = setting[3]
    reports = verify(zk)
    assert [(x.index, x.name, x.beacon) for x in reports] == [(1, "alice", False), (2, None, False),
                                                               (3, "final beacon", True)]
    assert [x.contribution_hash for x in reports] == [c.contribution_hash.hex() for c in zk.contributions]


def test_compact_key_verifies_fast_and_its_tampers_do_not(setting, mcl):
    system, pt, _, zk = setting
    compact = compact_from_bytes(compact_bytes(zk), "compact", system)
    assert compact.compact and len(zkey_verify_fast(compact, system, pt, mcl)) == 3
    bad = with_vk(compact, ic=with_point(compact.pk.vk.ic, 0, g1(mcl)))
    with pytest.raises(InvalidCeremony, match="the IC section is not the one the circuit and phase 1 give"):
        zkey_verify_fast(bad, system, pt, mcl)


# ---- the contribution chain (both verifiers) ------------------------------------------------------

def test_transcript_must_follow_the_earlier_contributions(setting, verify):
    zk = setting[3]
    c = zk.contributions
    for order, label in (((c[1], c[0], c[2]), "#1"), ((c[0], c[2], c[1]), "#2"), ((c[0], c[2]), "#2")):
        with pytest.raises(InvalidCeremony, match=f"phase-2 contribution {label}.*: its transcript hash does not follow"):
            verify(replace(zk, contributions=order))
    with pytest.raises(InvalidCeremony, match=r"phase-2 contribution #1 \(alice\): its transcript hash"):
        verify(with_contribution(zk, 0, transcript=bytes(64)))


def test_proof_of_knowledge_of_delta(setting, verify, mcl):
    with pytest.raises(InvalidCeremony, match="phase-2 contribution #2: the proof of knowledge of delta is invalid"):
        verify(with_contribution(setting[3], 1, g2_spx=g2(mcl)))


def test_delta_must_follow_the_previous_delta(setting, verify, mcl):
    zk = setting[3]
    with pytest.raises(InvalidCeremony, match="phase-2 contribution #2: delta after it does not follow"):
        verify(with_contribution(zk, 1, delta_after=g1(mcl)))
    with pytest.raises(InvalidCeremony, match=r"phase-2 contribution #1 \(alice\): delta after it does not follow"):
        verify(with_contribution(zk, 0, delta_after=zk.contributions[1].delta_after))


def test_beacon_key_must_come_from_its_value(setting, verify):
    zk = setting[3]
    c = zk.contributions[2]
    for params in (replace(c.params, beacon=b"another"), replace(c.params, iterations_exp=11)):
        with pytest.raises(InvalidCeremony, match=r"#3 \(final beacon\): the beacon's key is not the one its value"):
            verify(with_contribution(zk, 2, params=params))


def test_vk_delta_must_be_the_last_contributions(setting, verify, mcl):
    zk = setting[3]
    with pytest.raises(InvalidCeremony, match="vk delta_1 is not the last contribution's delta"):
        verify(with_pk(zk, delta_g1=zk.contributions[1].delta_after))
    with pytest.raises(InvalidCeremony, match="vk delta_2 does not match delta_1"):
        verify(with_vk(zk, delta_g2=g2(mcl)))


# ---- the key against the circuit and phase 1 -----------------------------------------------------

@pytest.mark.parametrize("label, field, point", [("alpha_1", "alpha_g1", 1), ("beta_2", "beta_g2", 2),
                                                  ("gamma_2", "gamma_g2", 2)])
def test_vk_points_must_be_phase1s(setting, verify, mcl, label, field, point):
    bad = with_vk(setting[3], **{field: g1(mcl) if point == 1 else g2(mcl)})
    with pytest.raises(InvalidCeremony, match=f"vk {label} is not phase 1's"):
        verify(bad)


def test_beta_1_must_be_phase1s(setting, verify, mcl):
    with pytest.raises(InvalidCeremony, match="vk beta_1 is not phase 1's"):
        verify(with_pk(setting[3], beta_g1=g1(mcl)))


@pytest.mark.parametrize("change", ["domain", "l_short", "wires"])
def test_key_sizes_must_be_the_circuits(setting, verify, mcl, change):
    zk = setting[3]
    bad = {"domain": lambda: with_pk(zk, domain_size=zk.pk.domain_size * 2),
           "l_short": lambda: with_pk(zk, l_query=zk.pk.l_query[:-1]),
           "wires": lambda: with_pk(zk, a_query=zk.pk.a_query + (g1(mcl),))}[change]()
    n = len(zk.pk.l_query)
    msg = (f"the C \\(L\\) section: {n - 1} points, expected {n}" if (verify.kind, change) == ("full", "l_short")
           else "the key's sizes .* are not the circuit's")
    with pytest.raises(InvalidCeremony, match=msg):
        verify(bad)


@pytest.mark.parametrize("section", ["A", "B1", "B2", "IC", "coefficients"])
def test_sections_must_be_the_ones_the_circuit_and_phase1_give(setting, verify, mcl, section):
    zk = setting[3]
    pk = zk.pk
    bad = {"A": lambda: with_pk(zk, a_query=with_point(pk.a_query, 1, g1(mcl))),
           "B1": lambda: with_pk(zk, b_g1_query=with_point(pk.b_g1_query, 1, g1(mcl))),
           "B2": lambda: with_pk(zk, b_g2_query=with_point(pk.b_g2_query, 1, g2(mcl))),
           "IC": lambda: with_vk(zk, ic=with_point(pk.vk.ic, 1, g1(mcl))),
           "coefficients": lambda: with_pk(zk, coefficients=pk.coefficients[:-1] + ((0, 0, 0, 7),))}[section]()
    # the fast verifier says "the circuit's" for the coefficients, the full one names phase 1 too
    msg = ("the coefficients section is not the circuit's" if (verify.kind, section) == ("fast", "coefficients")
           else f"the {section} section is not the one the circuit and phase 1 give")
    with pytest.raises(InvalidCeremony, match=msg):
        verify(bad)


@pytest.mark.parametrize("section, field", [("C \\(L\\)", "l_query"), ("H", "h_query")])
def test_l_and_h_must_be_divided_by_delta(setting, verify, mcl, section, field):
    zk = setting[3]
    pts = getattr(zk.pk, field)
    with pytest.raises(InvalidCeremony, match=f"the {section} section"):
        verify(with_pk(zk, **{field: with_point(pts, 0, g1(mcl))}))
    # the initial (undivided) points under the final delta
    with pytest.raises(InvalidCeremony, match=f"the {section} section"):
        verify(with_pk(zk, **{field: getattr(setting[2].pk, field)}))


def test_fast_verify_refuses_a_phase1_too_small(setting, mcl):
    system, pt, _, zk = setting
    power = circuit_power(system)
    with pytest.raises(MalformedInput, match=f"the circuit needs a domain of 2\\^{power}, the .ptau has 2\\^{power - 1}"):
        zkey_verify_fast(zk, system, replace(pt, power=power - 1), mcl)


def test_full_verify_checks_the_circuit_hash_and_h_count(setting, mcl):
    system, pt, init, zk = setting
    with pytest.raises(InvalidCeremony, match="the key's circuit hash is not this circuit's with this phase 1"):
        zkey_verify(replace(zk, cs_hash=bytes(64)), system, pt, mcl, init=init)
    with pytest.raises(InvalidCeremony, match=f"the H section: {len(zk.pk.h_query) - 1} points, expected "
                                              f"{len(zk.pk.h_query)}"):
        zkey_verify(with_pk(zk, h_query=zk.pk.h_query[:-1]), system, pt, mcl, init=init)


@pytest.mark.parametrize("field, section", [("l_query", "C \\(L\\)"), ("h_query", "H")])
def test_points_at_infinity_in_place_of_l_or_h(setting, verify, field, section):
    """Every point of the section at infinity: the combination is infinity, which must not pass."""
    zk = setting[3]
    bad = with_pk(zk, **{field: (None,) * len(getattr(zk.pk, field))})
    with pytest.raises(InvalidCeremony, match=f"the {section} section"):
        verify(bad)


def test_the_backend_given_is_used_and_coefficients_have_128_bits(setting, mcl, monkeypatch):
    """Both verifiers run on the backend they are given, and their random linear
    combinations draw at least 128 bits per coefficient (the soundness error per check)."""
    import importlib
    phase2 = importlib.import_module("zkbluff.ceremony.phase2")
    system, pt, init, zk = setting
    asked = []
    real = phase2.secrets.randbits
    monkeypatch.setattr(phase2.secrets, "randbits", lambda n: asked.append(n) or real(n))
    for run in (lambda be: zkey_verify_fast(zk, system, pt, be), lambda be: zkey_verify(zk, system, pt, be, init=init)):
        spy = PairingSpy(mcl)
        asked.clear()
        run(spy)
        assert spy.pairings > 0
        assert asked and min(asked) >= 128


def test_a_beacon_claimed_with_a_chosen_secret_is_refused(setting, mcl):
    """The beacon's s (public) with the contributor's own delta: transcript, proof of knowledge
    and delta chain all hold; only the beacon check (s * d from the beacon) refuses it."""
    import importlib
    from zkbluff.ceremony.binfile import ContributionParams
    from zkbluff.ceremony.rng import beacon_rng
    phase2 = importlib.import_module("zkbluff.ceremony.phase2")
    system, pt, init, zk = setting
    rng = beacon_rng(BEACON, 10)
    d, s = rng.fr(), rng.g1()
    params = ContributionParams(1, "a beacon", 10, BEACON)
    honest = phase2._apply(zk, d, s, params, mcl, None)
    assert len(zkey_verify_fast(honest, system, pt, mcl)) == 4  # the honest twin
    forged = phase2._apply(zk, 12345, s, params, mcl, None)
    with pytest.raises(InvalidCeremony, match=r"#4 \(a beacon\): the beacon's key is not the one its value"):
        zkey_verify_fast(forged, system, pt, mcl)
    with pytest.raises(InvalidCeremony, match=r"#4 \(a beacon\): the beacon's key is not the one its value"):
        zkey_verify(forged, system, pt, mcl, init=init)
