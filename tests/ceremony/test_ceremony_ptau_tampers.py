"""Every check of ptau_verify (phase 1), each with a record tampered in one named place.

Found by mutation testing (issue 21, ``make mutate``): the interop tests tamper files for
snarkjs too, but only a few places and slowly; here each check of ``ptau_verify`` and
``_verify_contribution`` gets its own tamper on a tiny accumulator (2^2), with the
untampered twin verifying.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from zkbluff.ceremony.ptau import _verify_lagrange, ptau_beacon, ptau_contribute, ptau_new, ptau_prepare, ptau_verify
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, get_backend
from zkbluff.errors import InvalidCeremony
from backend_spies import PairingSpy

BEACON = bytes.fromhex("0123456789abcdef")


@pytest.fixture(scope="module")
def be(mcl):
    return mcl


@pytest.fixture(scope="module")
def chain(be):
    """Two contributions to a 2^2 accumulator, a named one and an anonymous one, then
    prepared for phase 2."""
    pt = ptau_contribute(ptau_new(2), "alice", be)
    pt = ptau_contribute(pt, None, be)
    return ptau_prepare(pt, be)


@pytest.fixture(scope="module")
def beacon_chain(be):
    """One beacon contribution to a 2^1 accumulator."""
    return ptau_beacon(ptau_new(1), BEACON, 10, "final beacon", be)


def other_g1(be, k=7):
    return be.g1_mul(G1_GENERATOR, k)


def other_g2(be, k=7):
    return be.g2_mul(G2_GENERATOR, k)


def with_contribution(pt, i, **changes):
    cs = list(pt.contributions)
    cs[i] = replace(cs[i], **changes)
    return replace(pt, contributions=tuple(cs))


def test_untampered_chain_verifies_with_its_reports(chain, beacon_chain, be):
    said = []
    reports = ptau_verify(chain, be, said.append)
    assert [(x.index, x.name, x.beacon) for x in reports] == [(1, "alice", False), (2, None, False)]
    for rep, c in zip(reports, chain.contributions):
        assert rep.response_hash == c.response_hash.hex() and rep.next_challenge == c.next_challenge.hex()
    assert said == ["ptau: 2 contribution(s) link up; checking the points", "ptau: checking the phase-2 (Lagrange) sections"]
    reports = ptau_verify(beacon_chain, be)
    assert [(x.index, x.name, x.beacon) for x in reports] == [(1, "final beacon", True)]


def test_the_backend_given_is_the_one_used(beacon_chain, be):
    spy = PairingSpy(be)
    ptau_verify(beacon_chain, spy)
    assert spy.pairings > 0


def test_no_contribution_is_refused(be):
    with pytest.raises(InvalidCeremony, match="has no contribution: its secrets are known"):
        ptau_verify(ptau_new(2), be)


def test_contributions_out_of_order_are_refused(chain, be):
    c = chain.contributions
    for reordered in ((c[1], c[0]), (c[1],)):  # swapped, or the first link skipped
        with pytest.raises(InvalidCeremony, match=r"contribution #1: the proof of knowledge of tau is invalid \(or it"):
            ptau_verify(replace(chain, contributions=reordered), be)


@pytest.mark.parametrize("part", ["tau", "alpha", "beta"])
def test_each_proof_of_knowledge_is_checked(chain, be, part):
    key = chain.contributions[1].key
    bad = replace(key, **{part: replace(getattr(key, part), g2_spx=other_g2(be))})
    with pytest.raises(InvalidCeremony, match=f"contribution #2: the proof of knowledge of {part} is invalid"):
        ptau_verify(with_contribution(chain, 1, key=bad), be)


@pytest.mark.parametrize("field, g2, what", [
    ("tau_g1", False, r"\[tau\]_1"), ("tau_g2", True, r"\[tau\]_2"), ("alpha_g1", False, r"\[alpha\]_1"),
    ("beta_g1", False, r"\[beta\]_1"), ("beta_g2", True, r"\[beta\]_2"),
])
@pytest.mark.parametrize("index", [0, 1])
def test_each_point_must_follow_the_previous_contribution(chain, be, field, g2, what, index):
    """Contribution #1 follows the generators, #2 contribution #1."""
    bad = with_contribution(chain, index, **{field: other_g2(be) if g2 else other_g1(be)})
    label = r"contribution #1 \(alice\)" if index == 0 else "contribution #2"
    with pytest.raises(InvalidCeremony, match=f"{label}: {what} does not follow the previous contribution"):
        ptau_verify(bad, be)


def test_beacon_key_must_come_from_its_value(beacon_chain, be):
    c = beacon_chain.contributions[0]
    for params in (replace(c.params, beacon=b"another beacon"), replace(c.params, iterations_exp=11)):
        with pytest.raises(InvalidCeremony, match=r"contribution #1 \(final beacon\): the beacon's key is not the one"):
            ptau_verify(with_contribution(beacon_chain, 0, params=params), be)


def test_first_power_must_be_the_generator(chain, be):
    g1s = (other_g1(be),) + chain.tau_g1[1:]
    with pytest.raises(InvalidCeremony, match="the first power of tau is not the generator"):
        ptau_verify(replace(chain, tau_g1=g1s), be)
    g2s = (other_g2(be),) + chain.tau_g2[1:]
    with pytest.raises(InvalidCeremony, match="the first power of tau is not the generator"):
        ptau_verify(replace(chain, tau_g2=g2s), be)


def test_points_must_match_the_last_contribution(chain, be):
    last = chain.contributions[-1]
    # the last contribution's own points moved off the accumulator's (its proofs still hold for
    # the contribution, so the check that fails is the one comparing the two)
    cases = [
        (dict(tau_g1=chain.tau_g1[:1] + (other_g1(be),) + chain.tau_g1[2:]), r"\[tau\] in the points differs"),
        (dict(tau_g2=chain.tau_g2[:1] + (other_g2(be),) + chain.tau_g2[2:]), r"\[tau\] in the points differs"),
        (dict(alpha_tau_g1=(other_g1(be),) + chain.alpha_tau_g1[1:]), r"\[alpha\], \[beta\] in the points differ"),
        (dict(beta_tau_g1=(other_g1(be),) + chain.beta_tau_g1[1:]), r"\[alpha\], \[beta\] in the points differ"),
        (dict(beta_g2=other_g2(be)), r"\[alpha\], \[beta\] in the points differ"),
    ]
    for changes, msg in cases:
        with pytest.raises(InvalidCeremony, match=msg):
            ptau_verify(replace(chain, **changes), be)
    assert last.tau_g1 == chain.tau_g1[1]


@pytest.mark.parametrize("section", ["tau_g1", "alpha_tau_g1", "beta_tau_g1", "tau_g2"])
def test_points_must_be_successive_powers(chain, be, section):
    label = {"tau_g1": "tauG1", "alpha_tau_g1": "alphaTauG1", "beta_tau_g1": "betaTauG1", "tau_g2": "tauG2"}[section]
    pts = list(getattr(chain, section))
    pts[-1] = other_g2(be) if section == "tau_g2" else other_g1(be)
    with pytest.raises(InvalidCeremony, match=f"{label}: the points are not successive powers of tau"):
        ptau_verify(replace(chain, **{section: tuple(pts)}), be)
    pts[-1] = None
    with pytest.raises(InvalidCeremony, match=f"{label}: a point at infinity"):
        ptau_verify(replace(chain, **{section: tuple(pts)}), be)


def test_points_hash_must_be_the_last_next_challenge(chain, be):
    bad = with_contribution(chain, 1, next_challenge=bytes(64))
    with pytest.raises(InvalidCeremony, match="the points' hash is not the last contribution's next challenge"):
        ptau_verify(bad, be)
    # a truncated accumulator (power below the ceremony's) has no whole-file hash to compare
    assert chain.power == chain.ceremony_power


@pytest.mark.parametrize("section", [12, 13, 14, 15])
def test_lagrange_sections_are_checked(chain, be, section):
    """Every block of every section: the largest (2^3 in section 12, else 2^2) and 2^0."""
    top = 3 if section == 12 else 2
    for index, q in ((-1, top), (0, 0)):
        lag = dict(chain.lagrange)
        pts = list(lag[section])
        pts[index] = other_g2(be) if section == 13 else other_g1(be)
        lag[section] = tuple(pts)
        with pytest.raises(InvalidCeremony, match=f"section {section}: the Lagrange basis of 2\\^{q} does not match"):
            _verify_lagrange(replace(chain, lagrange=lag), be)
    lag = dict(chain.lagrange)
    lag[section] = chain.lagrange[section][:-1]
    n = len(chain.lagrange[section])
    with pytest.raises(InvalidCeremony, match=f"section {section}: {n - 1} Lagrange points, expected {n}"):
        _verify_lagrange(replace(chain, lagrange=lag), be)


def test_lagrange_section_sizes_and_ptau_verify_checks_them(chain, be):
    """Section 12 holds the domains 2^0..2^(power+1), the others 2^0..2^power."""
    assert len(chain.lagrange[12]) == 1 + 2 + 4 + 8
    assert [len(chain.lagrange[s]) for s in (13, 14, 15)] == [7, 7, 7]
    _verify_lagrange(chain, be)
    lag = dict(chain.lagrange)
    lag[14] = (other_g1(be),) + lag[14][1:]
    with pytest.raises(InvalidCeremony, match="section 14: the Lagrange basis of 2\\^0"):
        ptau_verify(replace(chain, lagrange=lag), be)
    said = []
    assert len(ptau_verify(replace(chain, lagrange=None), be, said.append)) == 2
    assert said == ["ptau: 2 contribution(s) link up; checking the points"]
