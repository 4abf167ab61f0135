"""The proven revolver (``revolver.share.v1``): every wire pinned, every public input bound,
tampered witnesses refused by the constraints, forged clicks refused by the verifier, the
native twin, the pinned count, a Groth16 round trip on mcl."""
import random

import pytest
from hypothesis import given, strategies as st

from zkbluff.circuit import check
from zkbluff.circuit.audit import unconstrained_public_inputs, under_constrained_wires, unsatisfied_after
from zkbluff.errors import InvalidProof, MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.games.bluffers.rules import CHAMBERS, pull_fires
from zkbluff.groth16 import prove, setup_insecure_seeded_for_tests, verify
from zkbluff.statements import all_statements, get_statement
from zkbluff.statements.revolver import RevolverSeed, share_native, share_publics

SHARE = get_statement("revolver.share.v1@chambers=6")


def seat_seed(rng: random.Random) -> RevolverSeed:
    return RevolverSeed(rng.randrange(r), rng.getrandbits(250))


def valid(rng: random.Random, revolver=None, pull=None) -> dict:
    s = seat_seed(rng)
    return s.inputs(rng.randrange(4) if revolver is None else revolver,
                    rng.randrange(CHAMBERS) if pull is None else pull, rng.randrange(r))


def wire(system, name: str) -> int:
    return system.wire_names.index(name)


def test_registered_with_a_pinned_count():
    assert "revolver.share.v1@chambers=6" in all_statements()
    system, _ = SHARE.build()
    assert system.n_constraints == 518
    assert system.n_public == 5
    assert SHARE.public == ("seed_commitment", "revolver", "pull", "share", "context")
    assert SHARE.private == ("seed", "salt")


def test_every_private_wire_is_pinned_and_no_public_input_is_free():
    rng = random.Random(1)
    for _ in range(3):
        system, witness = SHARE.build(valid(rng))
        check(system, witness)
        assert under_constrained_wires(system, witness) == []
    assert unconstrained_public_inputs(SHARE.build()[0]) == []


@given(st.integers(0, r - 1), st.integers(0, 2 ** 250), st.integers(0, 3), st.integers(0, 5), st.integers(0, r - 1))
def test_agrees_with_its_native_twin(seed, salt, revolver, pull, context):
    inp = {"seed": seed, "salt": salt, "revolver": revolver, "pull": pull, "context": context}
    system, witness = SHARE.build(inp)
    publics = witness[1:1 + system.n_public]
    assert publics == share_publics(RevolverSeed(seed, salt).commitment, revolver, pull,
                                    share_native(seed, revolver, pull), context)
    assert publics == SHARE.public_values(inp)


# ---------------------------------------------------------------- tampered in one named place

@pytest.mark.parametrize("name", ["seed", "salt"])
def test_a_tampered_private_wire_breaks_a_named_constraint(name):
    system, witness = SHARE.build(valid(random.Random(2)))
    for delta in (1, r - 1, 12345):
        broken = unsatisfied_after(system, witness, wire(system, name), witness[wire(system, name)] + delta)
        assert broken is not None and broken.startswith(("seed_commit", "share_hash")), broken


def test_a_tampered_share_wire_breaks_share_is_derived():
    system, witness = SHARE.build(valid(random.Random(3)))
    assert unsatisfied_after(system, witness, wire(system, "share"), witness[wire(system, "share")] + 1) \
        == "share_is_derived"


def test_a_tampered_commitment_wire_breaks_seed_opens():
    system, witness = SHARE.build(valid(random.Random(4)))
    i = wire(system, "seed_commitment")
    assert unsatisfied_after(system, witness, i, witness[i] + 1) == "seed_opens"


def test_a_tampered_pull_wire_breaks_a_constraint():
    system, witness = SHARE.build(valid(random.Random(5), pull=2))
    i = wire(system, "pull")
    assert unsatisfied_after(system, witness, i, 3) is not None  # another chamber's share is another value


def test_a_chamber_index_outside_the_revolver_is_refused_by_the_constraints():
    rng = random.Random(6)
    s = seat_seed(rng)
    for pull, where in ((6, "pull_max"), (7, "pull_max"), (8, "pull_range")):
        with pytest.raises(UnsatisfiedConstraint) as e:
            SHARE.build({"seed": s.seed, "salt": s.salt, "revolver": 0, "pull": pull, "context": 0,
                         "share": share_native(s.seed, 0, pull)})
        assert where in str(e.value.constraint), e.value.constraint
    with pytest.raises(UnsatisfiedConstraint) as e:
        SHARE.build({"seed": s.seed, "salt": s.salt, "revolver": 4, "pull": 0, "context": 0,
                     "share": share_native(s.seed, 4, 0)})
    assert "revolver_range" in e.value.constraint
    # the twin: in range, the same inputs build
    SHARE.build({"seed": s.seed, "salt": s.salt, "revolver": 3, "pull": 5, "context": 0,
                 "share": share_native(s.seed, 3, 5)})


def test_a_wrong_share_is_refused_by_the_constraints_and_the_right_one_builds():
    s = seat_seed(random.Random(7))
    inp = s.inputs(1, 2, 99)
    SHARE.build({**inp, "share": s.share(1, 2)})
    with pytest.raises(UnsatisfiedConstraint, match="share_is_derived"):
        SHARE.build({**inp, "share": s.share(1, 2) + 1})
    with pytest.raises(UnsatisfiedConstraint, match="seed_opens"):
        SHARE.build({**inp, "seed_commitment": RevolverSeed(s.seed + 1, s.salt).commitment})
    with pytest.raises(MalformedInput):
        SHARE.build({**inp, "seed": r})


# ---------------------------------------------------------------- Groth16 on mcl: forged clicks

@pytest.fixture(scope="module")
def pk(mcl):
    return setup_insecure_seeded_for_tests(SHARE.build()[0], "revolver.share.v1", backend=mcl)


def find_bang(rng: random.Random, pull: int, n: int = 2) -> tuple[list[RevolverSeed], list[int]]:
    """Seeds for ``n`` seats whose shares make pull ``pull`` of revolver 0 fire."""
    while True:
        seeds = [seat_seed(rng) for _ in range(n)]
        shares = [s.share(0, pull) for s in seeds]
        if pull_fires(shares, pull):
            return seeds, shares


def test_round_trip_and_every_public_input_bound(mcl, pk):
    inp = valid(random.Random(8))
    system, witness = SHARE.build(inp)
    public = witness[1:1 + system.n_public]
    proof = prove(pk, witness, backend=mcl)
    verify(pk.vk, public, proof, backend=mcl)
    for i in range(len(public)):
        changed = list(public)
        changed[i] = (changed[i] + 1) % r
        with pytest.raises(InvalidProof):
            verify(pk.vk, changed, proof, backend=mcl)


def test_a_forged_click_is_rejected(mcl, pk):
    """A bang: the puller (seat 0) would like a click. Its proven share gives a bang; any
    other share value that would give a click has no proof: the prover refuses it and its
    real proof does not verify against the forged value."""
    rng = random.Random(9)
    pull, ctx = 0, 424242
    seeds, shares = find_bang(rng, pull)
    assert pull_fires(shares, pull)
    forged = shares[0] + 1
    assert not pull_fires([forged, shares[1]], pull)  # the forgery would be a click
    system, witness = SHARE.build(seeds[0].inputs(0, pull, ctx))
    proof = prove(pk, witness, backend=mcl)
    c0 = seeds[0].commitment
    verify(pk.vk, share_publics(c0, 0, pull, shares[0], ctx), proof, backend=mcl)  # the honest bang
    with pytest.raises(InvalidProof):
        verify(pk.vk, share_publics(c0, 0, pull, forged, ctx), proof, backend=mcl)
    # a proof for another chamber (where this seat's share happens to differ) does not serve either
    with pytest.raises(InvalidProof):
        verify(pk.vk, share_publics(c0, 0, pull + 1, shares[0], ctx), proof, backend=mcl)
    # nor in another turn (context) or for another seat's commitment
    with pytest.raises(InvalidProof):
        verify(pk.vk, share_publics(c0, 0, pull, shares[0], ctx + 1), proof, backend=mcl)
    with pytest.raises(InvalidProof):
        verify(pk.vk, share_publics(seeds[1].commitment, 0, pull, shares[0], ctx), proof, backend=mcl)
    # the prover refuses to prove the forged share
    bad_witness = list(witness)
    bad_witness[wire(system, "share")] = forged
    with pytest.raises(UnsatisfiedConstraint, match="share_is_derived"):
        prove(pk, bad_witness, backend=mcl)


def test_shares_depend_on_every_input():
    s = seat_seed(random.Random(10))
    base = s.share(1, 1)
    assert len({base, s.share(2, 1), s.share(1, 2), RevolverSeed(s.seed + 1, s.salt).share(1, 1)}) == 4
    assert RevolverSeed(s.seed, s.salt + 1).share(1, 1) == base  # the salt only hides the commitment
    assert RevolverSeed(s.seed, s.salt + 1).commitment != s.commitment
