"""Default trust through the match engine and the CLI, and the forged-key attack end to
end: a house that ran its own setup for the claim statement and kept the trapdoor plays
a bluff, is challenged, and writes a forged claim proof with verdict TRUE into a
transcript signed by its own keys.

- default ``transcript verify``: exit 1, "untrusted key", naming line 1 and the key;
- ``--keys DIR`` with the house's keys: accepted, and said loudly;
- a per-match ceremony in which the house contributed last: the forgery fails;
- a transcript verifies on a fresh install (another key cache) with the pinned keys;
- a header with an unknown key, a ceremony record missing a seat, a tampered record:
  each rejected.
"""
from __future__ import annotations

import time

import json
import secrets
import shutil

import pytest
from click.testing import CliRunner

from zkbluff.ceremony import match as mm
from zkbluff.ceremony.project import file_stem
from zkbluff.cli import main
from zkbluff.curve import get_backend
from zkbluff.errors import InvalidProof, TranscriptError, UntrustedKey
from zkbluff.field import r
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.table import ceremony_record_path, open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff.moves import PlayCards
from zkbluff.games.proof_or_bluff.rules import Accept, Challenge, ProveVerdict
from zkbluff.games.proof_or_bluff.spec import CLAIM_ID
from zkbluff.groth16.setup import _setup, _Toxic
from zkbluff.groth16.zkey import proving_key_to_bytes
from zkbluff.protocol.context import context_value
from zkbluff.protocol.envelope import make_envelope
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys

from sample_circuits import simulate

CLASSIC = "proof-or-bluff"


def _house_keys(folder):
    """The house's key set: the pinned keys for every statement but the claim, and for the
    claim its own setup with the trapdoor kept."""
    spec_statements = spec_for(CLASSIC, {"mode": "casual", "deal": "dealer"}).statements()
    folder.mkdir(parents=True, exist_ok=True)
    trapdoor = (secrets.randbelow(r - 2) + 2, *(secrets.randbelow(r - 1) + 1 for _ in range(4)))
    for k in spec_statements:
        system = get_statement(k).build()[0]
        pk = _setup(system, _Toxic(*trapdoor), get_backend(), None) if k == CLAIM_ID else load_keys(k)
        (folder / f"{file_stem(k)}.{system.fingerprint()[:16]}.pk").write_bytes(proving_key_to_bytes(pk))
        (folder / f"{file_stem(k)}.vk.json").write_text(json.dumps(pk.vk.to_json()))
    return trapdoor


def _bluff_and_forge(tab, trapdoor):
    """The seat to move (the house) plays a card that is not the required rank, the other
    challenges, and the house writes ProveVerdict(TRUE) with a simulated proof under the
    table's claim key. Returns the forged line (not yet published)."""
    house = tab.to_move
    st = tab.seats[house]
    mine = [c for c in range(52) if st.private["hand"] >> c & 1]
    bluff = next(c for c in mine if c % 13 != tab.state.required_rank)
    tab.move(house, PlayCards((bluff,)))
    tab.move(1 - house, Challenge())
    view = st.view
    mask = sum(1 << (tab.state.claim[2] + 13 * s) for s in range(4))
    assert st.private["play"] & ~mask != 0  # it is a bluff: the true verdict is BLUFF
    stmt = get_statement(CLAIM_ID)
    publics = {"play_commitment": view.ledger.play, "rank_mask": mask, "verdict": 1,
               "context": context_value(tab.match_id, view.next_line, view.head)}
    public = [publics[n] for n in stmt.public]
    system = stmt.build()[0]
    forged = simulate(system, *trapdoor, public)
    env = make_envelope(CLAIM_ID, view.vks[CLAIM_ID], public, forged, house)
    line = {"n": view.next_line, "prev": view.head, "seat": house, "action": "prove",
            "data": ProveVerdict(True).to_data(), "proofs": [env], "at": time.time()}
    st._pending = (line["n"], {})  # the house's own seat accepts the line it made
    return sign_line(st.key, line)


@pytest.fixture(scope="module")
def house_match(tmp_path_factory):
    """A match at the house's table, run under the house's keys, with the forged line in it."""
    root = tmp_path_factory.mktemp("house")
    keys = root / "house-keys"
    trapdoor = _house_keys(keys)
    path = root / "forged.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=path, key_folder=keys)
    line = _bluff_and_forge(tab, trapdoor)
    written = tab.publish(line)  # the house's own referee trusts its keys: the forgery is accepted
    assert written["data"] == ProveVerdict(True).to_data()
    return path, keys, tab.view.vks[CLAIM_ID].fingerprint()


def test_default_verify_rejects_the_house_key(house_match):
    path, _, claim_fp = house_match
    with pytest.raises(TranscriptError, match=rf"line 1: untrusted key for {CLAIM_ID}: {claim_fp[:16]}"):
        verify_transcript(path)
    res = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert res.exit_code == 1, res.output
    assert "line 1" in res.output and "untrusted key" in res.output and claim_fp[:16] in res.output
    assert "OK" not in res.output


def test_keys_dir_accepts_the_house_keys_loudly(house_match):
    path, keys, claim_fp = house_match
    report = verify_transcript(path, keys_dir=keys)
    assert report["key_sources"][CLAIM_ID] == "private" and report["loud"]
    res = CliRunner().invoke(main, ["transcript", "verify", str(path), "--keys", str(keys)])
    assert res.exit_code == 0, res.output
    assert "PRIVATE" in res.output and str(keys) in res.output and "WARNING" in res.output
    # the twin: another folder that lacks the house's claim key does not vouch for it
    other = keys.parent / "other-keys"
    other.mkdir()
    shutil.copy(next(keys.glob("card.play*.vk.json")), other)
    bad = CliRunner().invoke(main, ["transcript", "verify", str(path), "--keys", str(other)])
    assert bad.exit_code == 1 and "untrusted key" in bad.output


def test_live_table_refuses_to_start_under_an_untrusted_key(tmp_path):
    """A dealer proving with the house's keys at a table whose referee trusts only the
    pinned keys: the header is refused and nothing is written; the twin, a referee given
    the folder deliberately, starts."""
    from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
    from zkbluff.games.engine.registry import spec_for
    from zkbluff.games.engine.table import Table
    from zkbluff.protocol.transcript import TranscriptWriter

    keys = tmp_path / "house-keys"
    _house_keys(keys)
    spec = spec_for(CLASSIC, {"mode": "casual", "deal": "dealer"})

    def table(referee_prover):
        seats = [Seat(spec, i, n, Prover(keys)) for i, n in enumerate(["ann", "house"])]
        return Table(RefereeParty(spec, prover=referee_prover), Dealer(spec, Prover(keys)), seats,
                     TranscriptWriter(None))

    tab = table(Prover())
    with pytest.raises(UntrustedKey, match=f"untrusted key for {CLAIM_ID}"):
        tab.start()
    assert tab.writer.events == [] and tab.referee.view is None
    ok = table(Prover(keys))
    ok.start()
    assert ok.view.trust[CLAIM_ID].source == "private" and ok.view.trust[CLAIM_ID].loud


def test_pinned_transcript_verifies_on_a_fresh_install(tmp_path, monkeypatch):
    path = tmp_path / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "bo"], transcript=path)
    seat = tab.to_move
    mine = [c for c in range(52) if tab.seats[seat].private["hand"] >> c & 1]
    tab.move(seat, PlayCards((mine[0],)))
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(tmp_path / "other-machine"))
    monkeypatch.setenv("HOME", str(tmp_path / "other-home"))
    res = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert res.exit_code == 0, res.output
    assert "keys trusted: project (3)" in res.output
    assert not (tmp_path / "other-machine").exists() or not any((tmp_path / "other-machine").iterdir())


def test_header_with_an_unknown_key_is_rejected(tmp_path):
    """The twin of the fresh-install test: one header key swapped for another valid key."""
    path = tmp_path / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "bo"], transcript=path)
    header = json.loads(path.read_text().splitlines()[0])
    system = get_statement(CLAIM_ID).build()[0]
    other = _setup(system, _Toxic(2, 3, 5, 7, 11), get_backend(), None)
    header["data"]["keys"][CLAIM_ID] = other.vk.to_json()
    header = sign_line(tab.referee.key, header)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(canonical(header) + "\n")
    res = CliRunner().invoke(main, ["transcript", "verify", str(bad)])
    assert res.exit_code == 1 and "untrusted key" in res.output and other.vk.fingerprint()[:16] in res.output


# ------------------------------------------------------------------ per-match ceremony (--keys match)
@pytest.fixture(scope="module")
def ceremony_match(tmp_path_factory):
    """A classic match with a per-match ceremony; the house is seat 1 and contributed last."""
    root = tmp_path_factory.mktemp("ceremony")
    path = root / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=path, match_ceremony=True)
    return tab, path


def test_ceremony_match_verifies_with_every_seat_and_the_house_cannot_forge(ceremony_match):
    tab, path = ceremony_match
    assert tab.header["ceremony"]["record"] == ceremony_record_path(path).name
    assert {t.source for t in tab.view.trust.values()} == {"match"}
    if tab.to_move == 0:  # let the house (seat 1, the last contributor) be the one to bluff
        mine = [c for c in range(52) if tab.seats[0].private["hand"] >> c & 1]
        tab.move(0, PlayCards((mine[0],)))
        tab.move(1, Accept())
    assert tab.to_move == 1
    # the house's best try: the simulator with the secrets it knows (its own, not the others')
    line = _bluff_and_forge(tab, tuple(secrets.randbelow(r - 1) + 1 for _ in range(5)))
    n = len(tab.writer.events)
    with pytest.raises(InvalidProof):
        tab.publish(line)
    assert len(tab.writer.events) == n
    res = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert res.exit_code == 0, res.output
    assert "keys trusted: match (3)" in res.output


def _copy_match(tab, path, dest):
    """The transcript and its ceremony record copied to ``dest``."""
    dest.mkdir()
    shutil.copy(path, dest / path.name)
    shutil.copytree(ceremony_record_path(path), dest / ceremony_record_path(path).name)
    return dest / path.name, dest / ceremony_record_path(path).name


def test_tampered_ceremony_records_are_rejected(ceremony_match, tmp_path):
    tab, path = ceremony_match
    # a key file changed by one byte: not the file the record names
    t1, rec1 = _copy_match(tab, path, tmp_path / "a")
    f = next(rec1.glob("card.claim*.phase2"))
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 1
    f.write_bytes(bytes(data))
    with pytest.raises(TranscriptError, match="line 1: .*is not the file the record names"):
        verify_transcript(t1)
    # the record itself edited (a seat's signature dropped): not the record the header names
    t2, rec2 = _copy_match(tab, path, tmp_path / "b")
    rec = json.loads((rec2 / "ceremony.json").read_text())
    rec["signatures"]["phase1"] = rec["signatures"]["phase1"][:1]
    (rec2 / "ceremony.json").write_text(json.dumps(rec))
    with pytest.raises(TranscriptError, match="line 1: .*not the record the transcript names"):
        verify_transcript(t2)
    # the record missing: malformed (exit 2), nothing accepted
    t3, rec3 = _copy_match(tab, path, tmp_path / "c")
    shutil.rmtree(rec3)
    res = CliRunner().invoke(main, ["transcript", "verify", str(t3)])
    assert res.exit_code == 2 and "ceremony.json" in res.output


@pytest.mark.slow
def test_a_record_missing_one_seats_contribution_is_rejected(ceremony_match, tmp_path):
    """The referee re-signs the header for a ceremony only seat 0 contributed to (the
    house skipped its turns, or dropped seat 0's): the record is consistent, but not a
    key every seat had a share in."""
    from zkbluff.games.engine.table import _CeremonySigner

    tab, path = ceremony_match
    circuits = {k: get_statement(k).build()[0] for k in tab.spec.statements()}
    mc = mm.start_match_ceremony(tab.match_id, [bytes.fromhex(s.public_key) for s in tab.seats], circuits)
    mc = mm.contribute_phase1(mc, 1, _CeremonySigner(tab.seats[1].key))
    mc = mm.close_phase1(mc)
    mc = mm.contribute_phase2(mc, 1, _CeremonySigner(tab.seats[1].key))
    dest = tmp_path / "m"
    dest.mkdir()
    record = ceremony_record_path(dest / path.name)
    header = json.loads(path.read_text().splitlines()[0])
    header["data"]["ceremony"] = {"digest": mm.save(mc, record), "record": record.name}
    header["data"]["keys"] = {k: zk.vk.to_json() for k, zk in mc.zkeys.items()}
    (dest / path.name).write_text(canonical(sign_line(tab.referee.key, header)) + "\n")
    res = CliRunner().invoke(main, ["transcript", "verify", str(dest / path.name)])
    assert res.exit_code == 1 and "line 1" in res.output and "no contribution from seat(s) 0" in res.output


def test_play_with_a_private_key_folder_says_so_and_needs_it_to_verify(house_match, tmp_path):
    _, keys, _ = house_match
    out = tmp_path / "p.jsonl"
    res = CliRunner().invoke(main, ["play", "--mode", "casual", "--deal", "dealer", "--seed", "1", "--out", str(out), "--keys",
                                    str(keys)],
                             input="")
    assert res.exit_code == 2, res.output  # stdin ended: stopped, the transcript intact
    assert "WARNING" in res.output and "PRIVATE" in res.output
    ok = CliRunner().invoke(main, ["transcript", "verify", str(out), "--keys", str(keys)])
    assert ok.exit_code == 0 and "private" in ok.output, ok.output
    bad = CliRunner().invoke(main, ["transcript", "verify", str(out)])
    assert bad.exit_code == 1 and "untrusted key" in bad.output


def _plant_house_registry(cwd, keys):
    """What the house ships beside match.jsonl: a ``circuits/`` whose manifest pins its own
    claim key (the real registry copied, the claim pin and vk.json replaced)."""
    from zkbluff.ceremony.project import registry_dir

    planted = cwd / "circuits"
    shutil.copytree(registry_dir(), planted, ignore=shutil.ignore_patterns("*.r1cs", "*.ptau"))
    house_vk = json.loads((keys / f"{file_stem(CLAIM_ID)}.vk.json").read_text())
    (planted / "keys" / f"{file_stem(CLAIM_ID)}.vk.json").write_text(json.dumps(house_vk))
    manifest = json.loads((planted / "manifest.json").read_text())
    from zkbluff.groth16.keys import VerifyingKey

    manifest["keys"][CLAIM_ID]["vk_fingerprint"] = VerifyingKey.from_json(house_vk).fingerprint()
    (planted / "manifest.json").write_text(json.dumps(manifest))
    return planted


def test_attack_manifest_in_the_current_folder_does_not_vouch_for_the_house_key(house_match, tmp_path, monkeypatch):
    """Issue 26.1: a house ships match.jsonl beside a circuits/ pinning its trapdoored claim
    key; `transcript verify` run there must still refuse the forged proof."""
    path, keys, claim_fp = house_match
    shutil.copy(path, tmp_path / "match.jsonl")
    _plant_house_registry(tmp_path, keys)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TranscriptError, match=rf"line 1: untrusted key for {CLAIM_ID}: {claim_fp[:16]}"):
        verify_transcript(tmp_path / "match.jsonl")
    res = CliRunner().invoke(main, ["transcript", "verify", "match.jsonl"])
    assert res.exit_code == 1 and "untrusted key" in res.output and "OK" not in res.output, res.output
    # the twin: the same folder given deliberately is trusted, and said loudly
    ok = CliRunner().invoke(main, ["transcript", "verify", "match.jsonl", "--keys", str(keys)])
    assert ok.exit_code == 0 and "WARNING" in ok.output and "PRIVATE" in ok.output, ok.output


def test_attack_manifest_in_the_current_folder_is_not_the_provers_trust_root(house_match, tmp_path, monkeypatch):
    """Issue 26.1: a player's prover (play/join) in the house's folder trusts and proves
    with the package's pinned keys, not the planted manifest's."""
    from zkbluff.ceremony.project import pinned_keys, registry_dir
    from zkbluff.ceremony.trust import TrustContext
    from zkbluff.games.engine.parties import Prover
    from zkbluff.statements import keys as statement_keys

    _, keys, claim_fp = house_match
    real = pinned_keys()[CLAIM_ID]["vk_fingerprint"]
    assert real != claim_fp
    planted = _plant_house_registry(tmp_path, keys)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(statement_keys, "_LOADED", {})  # a fresh process in that folder
    assert registry_dir().resolve() != planted.resolve()
    assert TrustContext.default().pinned[CLAIM_ID] == real
    assert Prover().trust().pinned[CLAIM_ID] == real
    assert Prover().key(CLAIM_ID).vk.fingerprint() == real
    # the twin: the planted folder, passed explicitly, is what it says
    assert TrustContext.default(planted).pinned[CLAIM_ID] == claim_fp


def test_attack_play_in_the_house_folder_writes_the_pinned_keys(house_match, tmp_path, monkeypatch):
    """`play` run in the house's folder: its header carries the package's pinned claim key
    and verifies with no --keys (away from that folder too)."""
    from zkbluff.ceremony.project import pinned_keys
    from zkbluff.statements import keys as statement_keys

    _, keys, claim_fp = house_match
    _plant_house_registry(tmp_path, keys)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(statement_keys, "_LOADED", {})
    res = CliRunner().invoke(main, ["play", "--mode", "casual", "--deal", "dealer", "--seed", "1", "--out", "p.jsonl"],
                             input="")
    assert res.exit_code == 2, res.output
    header = json.loads((tmp_path / "p.jsonl").read_text().splitlines()[0])
    from zkbluff.groth16.keys import VerifyingKey

    fp = VerifyingKey.from_json(header["data"]["keys"][CLAIM_ID]).fingerprint()
    assert fp == pinned_keys()[CLAIM_ID]["vk_fingerprint"] != claim_fp
    monkeypatch.chdir(keys.parent)
    assert CliRunner().invoke(main, ["transcript", "verify", str(tmp_path / "p.jsonl")]).exit_code == 0
