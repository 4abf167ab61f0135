"""Default trust and the per-match ceremony, and the forged-key attack done for real:
a house that keeps its setup's trapdoor proves a false claim without a witness (the
Groth16 simulator); the default trust rejects its key; a per-match ceremony in which
the house contributed last leaves it unable to forge."""
from __future__ import annotations

import secrets
from dataclasses import replace

import pytest

from zkbluff.ceremony import match as mm
from zkbluff.ceremony.binfile import ContributionParams
from zkbluff.ceremony.phase2 import _apply as zkey_apply
from zkbluff.ceremony.ptau import _apply as ptau_apply, _key_from
from zkbluff.ceremony.trust import MATCH, PRIVATE, PROJECT, TrustContext, check_key
from zkbluff.circuit import build
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, get_backend
from zkbluff.errors import InvalidCeremony, InvalidProof, MalformedInput, UnsatisfiedConstraint, UntrustedKey
from zkbluff.field import r
from zkbluff.gadgets.native import commit
from zkbluff.groth16 import Proof, prove, verify
from zkbluff.groth16.qap import domain_for, polynomials_at
from zkbluff.groth16.setup import _setup, _Toxic
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys, pinned_vk

from sample_circuits import cube, simulate

CLAIM = "card.claim.v1@deck=52"
SIX_OF_DIAMONDS = 4 + 13 * 1  # rank index 4 is "6", suit 1 is diamonds
RANK_TWO = sum(1 << (0 + 13 * s) for s in range(4))


# ------------------------------------------------------------------ the Groth16 simulator
@pytest.fixture(scope="module")
def false_claim():
    """The public inputs of a false claim: 6 of diamonds played, claimed as a "2", verdict TRUE."""
    salt = 123456789
    return [commit(1 << SIX_OF_DIAMONDS, salt), RANK_TWO, 1, 42], salt


@pytest.fixture(scope="module")
def house_key():
    """The house's own setup, trapdoor kept."""
    system = get_statement(CLAIM).build()[0]
    trapdoor = (secrets.randbelow(r - 2) + 2, *(secrets.randbelow(r - 1) + 1 for _ in range(4)))
    pk = _setup(system, _Toxic(*trapdoor), get_backend(), None)
    return system, pk, trapdoor


def test_house_with_trapdoor_forges_a_false_claim_and_default_trust_rejects_its_key(house_key, false_claim):
    system, pk, (tau, alpha, beta, gamma, delta) = house_key
    public, salt = false_claim
    stmt = get_statement(CLAIM)
    # no witness exists: the honest prover refuses
    with pytest.raises(UnsatisfiedConstraint):
        stmt.build({"play": 1 << SIX_OF_DIAMONDS, "play_salt": salt, "rank_mask": RANK_TWO, "verdict": 1,
                    "context": 42})
    forged = simulate(system, tau, alpha, beta, gamma, delta, public)
    verify(pk.vk, public, forged)  # the attack is real: the house's key accepts it
    with pytest.raises(InvalidProof):
        verify(pk.vk, [public[0], public[1], 0, public[3]], forged)
    # default trust: only the pinned project key is accepted
    with pytest.raises(UntrustedKey, match="untrusted key for card.claim.v1") as err:
        check_key(CLAIM, pk.vk, TrustContext.default())
    assert err.value.exit_code == 1 and err.value.fingerprint == pk.vk.fingerprint()
    pinned = pinned_vk(CLAIM)
    assert check_key(CLAIM, pinned, TrustContext.default()).source == PROJECT
    with pytest.raises(InvalidProof):  # and under the pinned key the forgery fails
        verify(pinned, public, forged)


def test_private_keys_are_accepted_only_when_given_and_loudly(tmp_path, house_key):
    folder = tmp_path / "mykeys"
    pk = load_keys("value.choice.v1", folder, create=True)
    with pytest.raises(UntrustedKey):
        check_key("value.choice.v1", pk.vk, TrustContext.default())
    trust = check_key("value.choice.v1", pk.vk, TrustContext.default().with_private_keys(folder))
    assert trust.source == PRIVATE and "PRIVATE" in trust.loud and str(folder) in trust.loud
    with pytest.raises(UntrustedKey):  # a private set does not vouch for other statements
        check_key(CLAIM, house_key[1].vk, TrustContext.default().with_private_keys(folder))
    with pytest.raises(MalformedInput):
        TrustContext.default().with_private_keys(tmp_path / "empty")


# ------------------------------------------------------------------ the per-match ceremony
@pytest.fixture(scope="module")
def small_match():
    """Two seats, two tiny statements: every step of the ceremony."""
    cube_sys, cube_w = build(cube, {"x": 3, "out": 35})
    circuits = {"t.cube.v1": cube_sys}
    keys = [mm.SeatKey.generate(), mm.SeatKey.generate()]
    mc = mm.start_match_ceremony("match-1", [k.public for k in keys], circuits)
    mc = mm.contribute_phase1(mc, 0, keys[0])
    mc = mm.contribute_phase1(mc, 1, keys[1])
    mc = mm.close_phase1(mc)
    mc = mm.contribute_phase2(mc, 0, keys[0])
    mc = mm.contribute_phase2(mc, 1, keys[1])
    return mc, keys, cube_w


def test_match_ceremony_verifies_and_its_keys_are_trusted(small_match, tmp_path):
    mc, keys, w = small_match
    fps = mm.verify_match_ceremony(mc)
    zk = mc.zkeys["t.cube.v1"]
    verify(zk.vk, [35], prove(zk.pk, w))
    ctx = TrustContext().with_match_keys(fps)
    assert check_key("t.cube.v1", zk.vk, ctx).source == MATCH
    with pytest.raises(UntrustedKey):
        check_key("t.cube.v1", zk.vk, TrustContext())
    digest = mm.save(mc, tmp_path / "rec")
    again = mm.load(tmp_path / "rec", mc.circuits, digest)
    assert mm.verify_match_ceremony(again) == fps
    (tmp_path / "rec" / "phase1.ptau").write_bytes((tmp_path / "rec" / "phase1.ptau").read_bytes()[:-1] + b"\1")
    with pytest.raises(InvalidCeremony, match="not the file"):
        mm.load(tmp_path / "rec", mc.circuits, digest)
    with pytest.raises(InvalidCeremony, match="not the record"):
        mm.load(tmp_path / "rec", mc.circuits, "00" * 32)


def test_match_ceremony_needs_every_seat(small_match):
    mc, keys, _ = small_match
    only_one = replace(mc, zkeys={k: replace(z, contributions=z.contributions[:1], pk=z.pk) for k, z in
                                  mc.zkeys.items()})
    with pytest.raises(InvalidCeremony):
        mm.verify_match_ceremony(only_one)
    # seat 1's phase-2 contribution re-signed as seat 0's: now seat 1 is missing
    sigs = dict(mc.signatures)
    k = "t.cube.v1"
    h = mc.zkeys[k].contributions[1].contribution_hash
    sigs[k] = (sigs[k][0], (0, keys[0].sign(mm.contribution_message(mc.match_id, k, 0, h))))
    with pytest.raises(InvalidCeremony, match="no contribution from seat"):
        mm.verify_match_ceremony(replace(mc, signatures=sigs))
    # a signature by the wrong seat key
    sigs[k] = (sigs[k][0], (1, keys[0].sign(mm.contribution_message(mc.match_id, k, 1, h))))
    with pytest.raises(InvalidCeremony, match="signature"):
        mm.verify_match_ceremony(replace(mc, signatures=sigs))
    with pytest.raises(MalformedInput):
        mm.contribute_phase2(mc, 1, keys[0])
    # the untampered twin verifies
    mm.verify_match_ceremony(mc)


def test_seat_checks_the_chain_before_contributing(small_match):
    mc, keys, _ = small_match
    start = mm.start_match_ceremony("m2", [k.public for k in keys], mc.circuits)
    one = mm.contribute_phase1(start, 0, keys[0])
    broken = replace(one, ptau=replace(one.ptau, tau_g1=(one.ptau.tau_g1[0], one.ptau.tau_g1[2])
                                       + one.ptau.tau_g1[2:]))
    with pytest.raises(InvalidCeremony):
        mm.contribute_phase1(broken, 1, keys[1])


# ------------------------------------------------------------------ the house contributes last, keeping its secrets
@pytest.mark.slow
def test_house_contributing_last_to_a_match_ceremony_cannot_forge(house_key, false_claim):
    """Seat 0 (the player) contributes honestly; seat 1 (the house) contributes last in
    both phases with secrets it keeps. Its known secrets are not the key's trapdoor: a
    proof simulated with them fails; and its own setup's key is not the match's key."""
    be = get_backend()
    system, house_pk, house_trapdoor = house_key
    public, _ = false_claim
    player, house = mm.SeatKey.generate(), mm.SeatKey.generate()
    mc = mm.start_match_ceremony("m-forge", [player.public, house.public], {CLAIM: system})
    mc = mm.contribute_phase1(mc, 0, player)
    mm.check_so_far(mc)
    t_h, a_h, b_h, d_h = (secrets.randbelow(r - 2) + 2 for _ in range(4))
    bases = be.g1_mul_many(G1_GENERATOR, [5, 6, 7])
    pkey = _key_from(mc.ptau.challenge_hash(), (t_h, a_h, b_h), bases, be)
    pt = ptau_apply(mc.ptau, t_h, a_h, b_h, pkey, ContributionParams(0, "seat 1"), be, None)
    sig = house.sign(mm.contribution_message(mc.match_id, mm.PHASE1, 1, pt.contributions[-1].response_hash))
    mc = replace(mc, ptau=pt, signatures={mm.PHASE1: mc.signatures[mm.PHASE1] + ((1, sig),)})
    mc = mm.close_phase1(mc)
    mc = mm.contribute_phase2(mc, 0, player)
    zk = zkey_apply(mc.zkeys[CLAIM], d_h, be.g1_mul(G1_GENERATOR, 9), ContributionParams(0, "seat 1"), be, None)
    sig = house.sign(mm.contribution_message(mc.match_id, CLAIM, 1, zk.contributions[-1].contribution_hash))
    mc = replace(mc, zkeys={CLAIM: zk}, signatures={**mc.signatures, CLAIM: mc.signatures[CLAIM] + ((1, sig),)})
    fps = mm.verify_match_ceremony(mc)  # a valid ceremony with every seat in it
    ctx = TrustContext.default().with_match_keys(fps)
    assert check_key(CLAIM, zk.vk, ctx).source == MATCH
    # the house forges with everything it knows: its own contribution's secrets...
    forged = simulate(system, t_h, a_h, b_h, 1, d_h, public)
    with pytest.raises(InvalidProof):
        verify(zk.vk, public, forged)
    # ...or its private setup's trapdoor, under which its forgery does verify
    forged2 = simulate(system, *house_trapdoor, public)
    verify(house_pk.vk, public, forged2)
    with pytest.raises(InvalidProof):
        verify(zk.vk, public, forged2)
    with pytest.raises(UntrustedKey):
        check_key(CLAIM, house_pk.vk, ctx)


# ------------------------------------------------------------------ why phase 1 matters
def forge_with_tau(pk, system, tau: int, public: list[int]) -> Proof:
    """Forge from tau alone (no alpha, beta or delta): with any wire values w (no witness),
    A = [alpha + A(tau)], B = [beta + B(tau)], and C = sum_private w_i L_i + [T / delta]
    for T = A(tau) B(tau) - C(tau), a number once tau is known; [T / delta] is a known
    multiple of the first H point [h_0 / delta], h_0 = sum_(i < 2n-1) omega^(-i) tau^i / 2n
    (the Lagrange polynomial L_1 of the doubled domain without its top power, which a
    phase 1 of the circuit's own size does not hold)."""
    from zkbluff.field import EvaluationDomain

    be = get_backend()
    w = [1] + list(public) + [0] * (system.n_wires - 1 - len(public))
    dom = domain_for(system)
    A, B, C = polynomials_at(system, dom.lagrange_at(tau))
    a = sum(x * y for x, y in zip(w, A)) % r
    b = sum(x * y for x, y in zip(w, B)) % r
    c = sum(x * y for x, y in zip(w, C)) % r
    target = (a * b - c) % r
    big = EvaluationDomain(dom.log_size + 1)
    l1 = sum(pow(big.omega_inv, i, r) * pow(tau, i, r) for i in range(big.size - 1)) * big.size_inv % r
    proof_a = be.g1_add(pk.vk.alpha_g1, be.g1_mul(G1_GENERATOR, a))
    proof_b = be.g2_add(pk.vk.beta_g2, be.g2_mul(G2_GENERATOR, b))
    priv = w[system.n_public + 1:]
    proof_c = be.g1_add(be.g1_msm(list(pk.l_query), priv), be.g1_mul(pk.h_query[0], target * pow(l1, -1, r) % r))
    return Proof(proof_a, proof_b, proof_c)


@pytest.mark.slow
def test_a_known_tau_alone_forges_even_after_honest_phase2(false_claim):
    """A phase 1 whose tau the house knows, then an honest phase 2 (the player's delta):
    the house still forges the false claim. With the player in phase 1 too, it cannot."""
    from zkbluff.ceremony.phase2 import zkey_contribute, zkey_new
    from zkbluff.ceremony.ptau import ptau_new

    be = get_backend()
    system = get_statement(CLAIM).build()[0]
    public, _ = false_claim
    pt0 = ptau_new(domain_for(system).log_size)
    t_h, a_h, b_h = (secrets.randbelow(r - 2) + 2 for _ in range(3))
    bases = be.g1_mul_many(G1_GENERATOR, [5, 6, 7])

    def house(pt):
        key = _key_from(pt.challenge_hash(), (t_h, a_h, b_h), bases, be)
        return ptau_apply(pt, t_h, a_h, b_h, key, ContributionParams(0, "house"), be, None)

    alone = house(pt0)  # tau = t_h
    zk = zkey_contribute(zkey_new(system, alone), "player")  # delta unknown to the house
    verify(zk.vk, public, forge_with_tau(zk.pk, system, t_h, public))
    from zkbluff.ceremony.ptau import ptau_contribute
    shared = house(ptau_contribute(pt0, "player"))  # tau = t_player * t_h
    zk2 = zkey_contribute(zkey_new(system, shared), "player")
    with pytest.raises(InvalidProof):
        verify(zk2.vk, public, forge_with_tau(zk2.pk, system, t_h, public))
