"""Every check of the ceremony's verification (ceremony/match.py's verify functions and
ceremony/trust.py's check_key), each with a test that fails without it.

Found by mutation testing (issue 21, ``make mutate``). The cheap checks (signatures, seats,
trust lookups) come first; the few tests that re-verify a whole record (about 2 s each:
phase 1's pairings) last.
"""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from zkbluff.ceremony import match as mm
from zkbluff.ceremony.project import file_stem
from zkbluff.ceremony.trust import MATCH, PRIVATE, PROJECT, Trust, TrustContext, check_key
from zkbluff.circuit import build
from zkbluff.errors import InvalidCeremony, MalformedInput, UntrustedKey
from zkbluff.groth16 import setup_insecure_seeded_for_tests
from backend_spies import PairingSpy


def cube(cs, inputs):
    """``out = x^3 + x + 5``: one public input, 3 constraints (this file's own tiny circuit)."""
    out = cs.public("out", inputs and inputs["out"])
    x = cs.private_unchecked("x", inputs and inputs["x"])
    x3 = cs.mul(cs.mul(x, x, "x2"), x, "x3")
    cs.enforce_equal(x3 + x + 5, out, "result")


STMT = "t.cube.v1@n=1,k=2"


def cube_system():
    return build(cube, {"x": 3, "out": 35})[0]


@pytest.fixture(scope="module")
def keys():
    return [mm.SeatKey.generate() for _ in range(3)]


@pytest.fixture(scope="module")
def record(keys):
    """A finished three-seat ceremony over one tiny statement (nothing verified on the way:
    the tests verify it)."""
    mc = mm.start_match_ceremony("match-g", [k.public for k in keys], {STMT: cube_system()})
    for seat, k in enumerate(keys):
        mc = mm.contribute_phase1(mc, seat, k, verify_first=False)
    mc = mm.close_phase1(mc)
    for seat, k in enumerate(keys):
        mc = mm.contribute_phase2(mc, seat, k, verify_first=False)
    return mc


def resign(mc, keys, phase, contributions):
    """Signatures for ``contributions`` = [(seat, signer seat, hash), ...] in ``phase``."""
    sigs = dict(mc.signatures)
    sigs[phase] = tuple((seat, keys[signer].sign(mm.contribution_message(mc.match_id, phase, seat, h)))
                        for seat, signer, h in contributions)
    return replace(mc, signatures=sigs)


def hashes(mc, phase):
    if phase == mm.PHASE1:
        return [c.response_hash for c in mc.ptau.contributions]
    return [c.contribution_hash for c in mc.zkeys[phase].contributions]


# ---- signatures ---------------------------------------------------------------------------------

def test_verify_signature_true_only_for_the_signer_and_message(keys):
    msg = mm.contribution_message("m", mm.PHASE1, 0, b"\1" * 64)
    sig = keys[0].sign(msg)
    assert mm.verify_signature(keys[0].public, msg, sig) is True
    assert mm.verify_signature(keys[1].public, msg, sig) is False
    assert mm.verify_signature(keys[0].public, msg + b"x", sig) is False
    assert mm.verify_signature(keys[0].public, msg, sig[:-1] + bytes([sig[-1] ^ 1])) is False
    assert mm.verify_signature(keys[0].public[:31], msg, sig) is False  # not a key: False, not an exception
    assert mm.verify_signature(keys[0].public, msg, "not bytes") is False


def test_contribution_message_binds_every_field():
    base = mm.contribution_message("m", "phase1", 0, b"\1" * 64)
    assert base == b"zkbluff match ceremony v1|m|phase1|0|" + (b"01" * 64)
    others = [mm.contribution_message("n", "phase1", 0, b"\1" * 64), mm.contribution_message("m", "s", 0, b"\1" * 64),
              mm.contribution_message("m", "phase1", 1, b"\1" * 64), mm.contribution_message("m", "phase1", 0, b"\2" * 64)]
    assert len({base, *others}) == 5


@pytest.mark.parametrize("phase", [mm.PHASE1, STMT])
def test_check_signatures_counts(record, keys, phase):
    hs = hashes(record, phase)
    mm._check_signatures(record, phase, hs)  # the positive twin
    short = resign(record, keys, phase, [(s, s, h) for s, h in enumerate(hs[:-1])])
    with pytest.raises(InvalidCeremony, match=f"{phase}: 3 contributions but 2 signatures"):
        mm._check_signatures(short, phase, hs)
    with pytest.raises(InvalidCeremony, match=f"{phase}: 2 contributions but 3 signatures"):
        mm._check_signatures(record, phase, hs[:2])


@pytest.mark.parametrize("seat, shown", [(-1, "-1"), (3, "3"), ("0", "'0'"), (None, "None")])
def test_check_signatures_refuses_a_seat_not_of_the_match(record, keys, seat, shown):
    hs = hashes(record, mm.PHASE1)
    sigs = dict(record.signatures)
    sigs[mm.PHASE1] = sigs[mm.PHASE1][:1] + ((seat, sigs[mm.PHASE1][1][1]),) + sigs[mm.PHASE1][2:]
    with pytest.raises(InvalidCeremony, match=f"phase1: contribution #2 names seat {shown}, not a seat of the match"):
        mm._check_signatures(replace(record, signatures=sigs), mm.PHASE1, hs)


def test_check_signatures_last_seat_is_a_seat(record, keys):
    """The boundary of ``seat < len(seat_keys)``: seat 2 of 3 signing every contribution passes."""
    hs = hashes(record, mm.PHASE1)
    mm._check_signatures(resign(record, keys, mm.PHASE1, [(2, 2, h) for h in hs]), mm.PHASE1, hs)
    mm._check_signatures(resign(record, keys, mm.PHASE1, [(0, 0, h) for h in hs]), mm.PHASE1, hs)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_check_signatures_refuses_a_signature_by_another_seat(record, keys, which):
    hs = hashes(record, STMT)
    forged = resign(record, keys, STMT, [(s, (s + 1) % 3 if s == which else s, h) for s, h in enumerate(hs)])
    with pytest.raises(InvalidCeremony, match=f"{STMT}: contribution #{which + 1}'s signature is not seat {which}'s"):
        mm._check_signatures(forged, STMT, hs)


def test_check_signatures_binds_phase_and_hash(record, keys):
    hs = hashes(record, STMT)
    # phase 1's signatures shown for the statement: same seats, other messages
    moved = dict(record.signatures)
    moved[STMT] = record.signatures[mm.PHASE1]
    with pytest.raises(InvalidCeremony, match="signature is not seat 0's"):
        mm._check_signatures(replace(record, signatures=moved), STMT, hs)
    with pytest.raises(InvalidCeremony, match="signature is not seat 1's"):
        mm._check_signatures(record, STMT, [hs[0], hs[2], hs[1]])


def test_missing_phase_means_no_signatures(record):
    with pytest.raises(InvalidCeremony, match="other: 1 contributions but 0 signatures"):
        mm._check_signatures(record, "other", [b"\0" * 64])
    mm._check_signatures(record, "other", [])


# ---- seats ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", [-1, 3])
def test_contribute_refuses_a_seat_out_of_range(record, keys, seat):
    start = mm.start_match_ceremony("m", [k.public for k in keys], record.circuits)
    with pytest.raises(MalformedInput, match=f"seat {seat}: the signing key is not the seat's registered key"):
        mm.contribute_phase1(start, seat, keys[0], verify_first=False)


def test_contribute_refuses_seat_minus_one_even_with_the_last_seats_key(record, keys):
    """seat_keys[-1] is the last seat's key: -1 must be refused as a seat, not read from the end."""
    start = mm.start_match_ceremony("m", [k.public for k in keys], record.circuits)
    with pytest.raises(MalformedInput, match="seat -1: the signing key is not the seat's registered key"):
        mm.contribute_phase1(start, -1, keys[-1], verify_first=False)


def test_contribute_refuses_another_seats_key_and_accepts_the_last_seat(record, keys):
    start = mm.start_match_ceremony("m", [k.public for k in keys], record.circuits)
    with pytest.raises(MalformedInput, match="seat 1: the signing key is not the seat's registered key"):
        mm.contribute_phase1(start, 1, keys[2], verify_first=False)
    after = mm.contribute_phase1(start, 2, keys[2], verify_first=False)  # the boundary seat
    assert [s for s, _ in after.signatures[mm.PHASE1]] == [2]
    with pytest.raises(MalformedInput, match="seat 0: the signing key"):
        mm.contribute_phase2(record, 0, keys[1], verify_first=False)


# ---- trust: check_key and the context ----------------------------------------------------------

@pytest.fixture(scope="module")
def vks():
    system = cube_system()
    return [setup_insecure_seeded_for_tests(system, f"trust-{i}").vk for i in range(3)]


def test_check_key_sources_and_precedence(vks):
    a, b, c = vks
    fa, fb, fc = (v.fingerprint() for v in vks)
    ctx = TrustContext(pinned={STMT: fa}, match={STMT: fb}, private={file_stem(STMT): fc}, private_source="DIR")
    assert check_key(STMT, a, ctx) == Trust(STMT, fa, PROJECT)
    assert check_key(STMT, b, ctx) == Trust(STMT, fb, MATCH)
    t = check_key(STMT, c, ctx)
    assert (t.statement, t.fingerprint, t.source) == (STMT, fc, PRIVATE)
    assert t.loud == (f"WARNING: {STMT} verified under a PRIVATE key {fc[:16]} from DIR, not the project's pinned "
                      "key: the proofs are only as good as that key's setup")
    # a key pinned and also given privately is the project's (no warning)
    both = TrustContext(pinned={STMT: fa}, private={file_stem(STMT): fa, STMT: fa}, private_source="DIR")
    assert check_key(STMT, a, both).source == PROJECT and check_key(STMT, a, both).loud is None
    both = TrustContext(match={STMT: fa}, private={STMT: fa}, private_source="DIR")
    assert check_key(STMT, a, both).source == MATCH


def test_check_key_private_by_stem_or_by_id(vks):
    a = vks[0]
    fa = a.fingerprint()
    assert file_stem(STMT) != STMT
    for private in ({file_stem(STMT): fa}, {STMT: fa}):
        assert check_key(STMT, a, TrustContext(private=private, private_source="D")).source == PRIVATE
    with pytest.raises(UntrustedKey):
        check_key(STMT, a, TrustContext(private={"other": fa}, private_source="D"))


def test_check_key_refuses_others_and_says_why(vks):
    a, b, _ = vks
    fa, fb = a.fingerprint(), b.fingerprint()
    # each key trusted for another statement, or another key trusted for this one
    for ctx in (TrustContext(pinned={"other": fb}, match={"other": fb}, private={"other": fb}),
                TrustContext(pinned={STMT: fa}, match={STMT: fa}, private={STMT: fa, file_stem(STMT): fa})):
        with pytest.raises(UntrustedKey) as exc:
            check_key(STMT, b, ctx)
        assert exc.value.statement == STMT and exc.value.fingerprint == fb
        msg = str(exc.value)
        assert msg.startswith(f"untrusted key for {STMT}: {fb[:16]} is neither the pinned project key")
        assert msg.endswith("nor a key of a verified per-match ceremony nor one of the keys given with --keys")
        assert (f"({fa[:16]})" in msg) == (STMT in ctx.pinned)


def test_trust_context_is_frozen(vks):
    import dataclasses
    ctx = TrustContext()
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.pinned = {STMT: vks[0].fingerprint()}
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.private_source = "elsewhere"


def test_trust_context_merges_and_is_read_only(vks, tmp_path):
    fa, fb, fc = (v.fingerprint() for v in vks)
    ctx = TrustContext().with_match_keys({"s1": fa}).with_match_keys({"s2": fb})
    assert dict(ctx.match) == {"s1": fa, "s2": fb} and dict(ctx.pinned) == {} and dict(ctx.private) == {}
    with pytest.raises(TypeError):
        ctx.match["s3"] = fc  # a verifier's trust cannot be widened behind its back
    src = {"s4": fc}
    ctx2 = ctx.with_match_keys(src)
    src["s5"] = fa
    assert "s5" not in ctx2.match and "s4" not in ctx.match
    for i, v in enumerate(vks[:2]):
        (tmp_path / f"k{i}.vk.json").write_text(json.dumps(v.to_json()))
    (tmp_path / "notes.txt").write_text("not a key")
    priv = ctx2.with_private_keys(tmp_path)
    assert dict(priv.private) == {"k0": fa, "k1": fb} and priv.private_source == str(tmp_path)
    assert dict(priv.match) == dict(ctx2.match)
    more = tmp_path / "more"
    more.mkdir()
    (more / "k2.vk.json").write_text(json.dumps(vks[2].to_json()))
    assert dict(priv.with_private_keys(more).private) == {"k0": fa, "k1": fb, "k2": fc}


def test_private_keys_folder_that_cannot_be_listed(tmp_path):
    bad = tmp_path / ("x" * 300)  # a name longer than the file system allows
    with pytest.raises(MalformedInput, match=f"--keys {bad}: cannot list"):
        TrustContext().with_private_keys(bad)


def test_private_keys_folder_errors(tmp_path, vks):
    with pytest.raises(MalformedInput, match="no \\*.vk.json verifying keys there"):
        TrustContext().with_private_keys(tmp_path)
    (tmp_path / "bad.vk.json").write_text("{not json")
    with pytest.raises(MalformedInput, match="bad.vk.json"):
        TrustContext().with_private_keys(tmp_path)
    (tmp_path / "bad.vk.json").write_text(json.dumps({"protocol": "plonk"}))  # every field is checked first
    with pytest.raises(MalformedInput, match="bad.vk.json: verification key: fields \\['protocol'\\]"):
        TrustContext().with_private_keys(tmp_path)
    (tmp_path / "bad.vk.json").write_text(json.dumps({**vks[0].to_json(), "protocol": "plonk"}))
    with pytest.raises(MalformedInput, match="bad.vk.json: verification key: expected protocol 'groth16'"):
        TrustContext().with_private_keys(tmp_path)


def test_default_trust_reads_the_folder_given(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"keys": {STMT: {"vk_fingerprint": "ab" * 32}}}))
    assert dict(TrustContext.default(tmp_path).pinned) == {STMT: "ab" * 32}


def test_default_trust_is_the_pinned_manifest():
    from zkbluff.ceremony.project import pinned_keys, registry_dir
    pins = pinned_keys(registry_dir())
    ctx = TrustContext.default()
    assert pins and dict(ctx.pinned) == {k: v["vk_fingerprint"] for k, v in pins.items()}
    assert dict(ctx.match) == {} and dict(ctx.private) == {} and ctx.private_source is None


# ---- a whole record (slower: each re-verifies phase 1) ------------------------------------------

def test_verify_match_ceremony_returns_every_key(record):
    assert mm.verify_match_ceremony(record) == {STMT: record.zkeys[STMT].vk.fingerprint()}


def test_verify_refuses_an_open_or_mismatched_record(record, keys):
    start = mm.start_match_ceremony("m", [k.public for k in keys], record.circuits)
    with pytest.raises(InvalidCeremony, match="never closed phase 1"):
        mm.verify_match_ceremony(start)
    extra = replace(record, circuits={**record.circuits, "t.other.v1": cube_system()})
    with pytest.raises(InvalidCeremony, match=r"the record has keys for \['t.cube.v1@n=1,k=2'\], the match uses"):
        mm.verify_match_ceremony(extra)
    fewer = replace(record, zkeys={**record.zkeys, "t.other.v1": record.zkeys[STMT]})
    with pytest.raises(InvalidCeremony, match="the record has keys for"):
        mm.verify_match_ceremony(fewer)


@pytest.mark.parametrize("phase", [mm.PHASE1, STMT])
def test_verify_needs_a_contribution_from_every_seat(record, keys, phase):
    """Seat 1's contribution re-signed by seat 2 as seat 2's: a valid chain, but seat 1 had no share."""
    hs = hashes(record, phase)
    forged = resign(record, keys, phase, [(0, 0, hs[0]), (2, 2, hs[1]), (2, 2, hs[2])])
    with pytest.raises(InvalidCeremony, match=f"{phase}: no contribution from seat\\(s\\) 1: "):
        mm.verify_match_ceremony(forged)


@pytest.mark.parametrize("phase", [mm.PHASE1, STMT])
def test_check_so_far_checks_every_phases_signatures(record, keys, mcl, phase):
    """check_so_far (what a seat runs before contributing) checks phase 1's and every
    statement's signatures, with the backend it is given."""
    hs = hashes(record, phase)
    forged = resign(record, keys, phase, [(0, 0, hs[0]), (1, 0, hs[1]), (2, 2, hs[2])])
    spy = PairingSpy(mcl)
    with pytest.raises(InvalidCeremony, match=f"{phase}: contribution #2's signature is not seat 1's"):
        mm.check_so_far(forged, spy)
    assert spy.pairings > 0


def test_check_so_far_checks_every_key_against_phase1(record, mcl):
    """A statement's key changed after the ceremony (its record and signatures intact)."""
    zk = record.zkeys[STMT]
    bad_ic = (mcl.g1_mul(zk.vk.ic[0], 2),) + tuple(zk.vk.ic[1:])
    bad = replace(zk, pk=replace(zk.pk, vk=replace(zk.pk.vk, ic=bad_ic)))
    with pytest.raises(InvalidCeremony, match="the IC section is not the one the circuit and phase 1 give"):
        mm.verify_match_ceremony(replace(record, zkeys={STMT: bad}), mcl)
