"""The offline verifier's own checks (games/engine/verifier.py), each alone (issue 21): an
empty file, the summary it returns, the seats' known keys, how each refusal is reported
(its line and its code), a bad proof on an earlier line named before a later fault, a
deliberate private key set, and the binding of a per-match ceremony to its header.

Most run on the toy game of tests/engine_toy_game.py (no proofs); the proof and ceremony
cases use one real match each."""
from __future__ import annotations

import json
import random
import shutil

import pytest

from engine_toy_game import CountSpec, Go, count_match, rechain, write
from zkbluff.errors import DealerAtFault, InvalidProof, MalformedInput, TranscriptError, UntrustedKey
from zkbluff.games.engine import registry
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import _at_line, verify_transcript
from zkbluff.games.registry import spec_class
from zkbluff.groth16 import VerifyingKey
from zkbluff.protocol.signing import SigningKey, sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical, line_hash


@pytest.fixture
def count_game(monkeypatch, tmp_path):
    return count_match(monkeypatch, tmp_path)


def refused(path, **kw):
    with pytest.raises((TranscriptError, MalformedInput)) as exc:
        verify_transcript(path, **kw)
    return exc.value


# ---------------------------------------------------------------- the file and the summary

def test_an_empty_transcript_is_malformed(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    err = refused(path)
    assert isinstance(err, MalformedInput) and err.code == "transcript.empty"
    assert str(err) == f"transcript {path}: empty"


def test_the_summary_of_a_finished_and_of_an_unfinished_match(count_game, tmp_path):
    tab, events, path = count_game
    report = verify_transcript(path)
    assert report == {
        "game": "count-to-three", "options": {}, "lines": 6, "proofs": 0, "complete": True, "over": True,
        "result": report["result"], "scores": [3, 0], "winner": 0, "draw": False,
        "summary": "a won (three steps); scores 3–0", "keys": {}, "key_sources": {}, "loud": []}
    assert report["result"].placements == (1, 2)
    unfinished = verify_transcript(write(tmp_path, rechain(tab, events[:2])))
    assert unfinished["result"] is None and unfinished["scores"] is None and unfinished["winner"] is None
    assert unfinished["draw"] is False and unfinished["summary"] == "not over" and unfinished["lines"] == 2


def test_a_tie_is_a_draw_with_no_winner(count_game, monkeypatch, tmp_path):
    """Both seats placed first: ``draw`` and no ``winner`` (the twin of the win above)."""
    from zkbluff.games.engine.rules import Result
    from engine_toy_game import CountRules

    monkeypatch.setattr(CountRules, "result",
                        lambda self: Result((1, 1), (self.s.total, 0), "a tie") if self.over else None)
    path = tmp_path / "tie.jsonl"
    tab = open_match(CountSpec.game, None, ["a", "b"], transcript=path)
    while not tab.over:
        tab.move(tab.to_move, Go(tab.view.rules.s.total + 1))
    report = verify_transcript(path)
    assert report["draw"] is True and report["winner"] is None and report["summary"].startswith("draw (a tie)")


# ---------------------------------------------------------------- the seats' known keys

def test_the_header_must_list_each_known_seat_key(count_game):
    tab, _, path = count_game
    k0, k1 = tab.seats[0].public_key, tab.seats[1].public_key
    assert verify_transcript(path, seat_keys={0: k0.upper(), 1: k1})["complete"]  # hex in any case
    for seat, key in ((1, k0), (0, k1), (2, k0), (-1, k1), (0, SigningKey.generate().public_hex)):
        err = refused(path, seat_keys={seat: key})
        assert isinstance(err, TranscriptError) and err.line == 1 and err.code == "header.seat-key"
        assert f"the header does not list {key[:16]}… as seat {seat}'s key" in str(err)


# ---------------------------------------------------------------- how a refusal is reported

def test_each_refusal_names_its_line_and_code(count_game, tmp_path):
    tab, events, _ = count_game
    # a line signed by the wrong party: the referee's InvalidSignature gets its line number
    lines = rechain(tab, events)
    bad = json.loads(lines[2])
    lines[2] = canonical(sign_line(tab.seats[0].key, {k: v for k, v in bad.items() if k != "sig"}))
    err = refused(write(tmp_path, lines))
    assert type(err) is TranscriptError and err.line == 3 and err.code == "line.signature"
    assert str(err).startswith("line 3: the line is not signed by seat 1")
    # an illegal move becomes a TranscriptError on its line with the referee's code
    err = refused(write(tmp_path, rechain(tab, events[:2] + [{**events[2], "seat": 0}])))
    assert type(err) is TranscriptError and err.line == 3 and "out of turn" in str(err)
    # a commitment that does not open: a TranscriptError on the closing line
    err = refused(write(tmp_path, rechain(tab, events[:5] + [{**events[5], "data": {"secret": "cd" * 32}}])))
    assert type(err) is TranscriptError and err.line == 6 and "does not open" in str(err)
    # malformed data with the default code: the line's (line.malformed), its number in the message
    err = refused(write(tmp_path, rechain(tab, events[:1] + [{**events[1], "data": {"step": "1"}}])))
    assert type(err) is MalformedInput and err.line == 2 and err.code == "line.malformed"
    assert str(err).startswith("transcript line 2: go: step must be an integer")
    # ... and on the header, the header's (header.malformed)
    header = {k: v for k, v in events[0].items() if k != "sig"}
    header["data"] = {**header["data"], "deal": {}}
    err = refused(write(tmp_path, rechain(tab, [header] + events[1:])))
    assert type(err) is MalformedInput and err.line == 1 and err.code == "header.malformed"
    # a refusal with its own code keeps it (the chain's: a line that does not follow)
    lines = rechain(tab, events)
    lines[3] = lines[3].replace('"n":4', '"n":9')
    err = refused(write(tmp_path, lines))
    assert err.line == 4 and err.code == "line.number"


def test_at_line_keeps_a_line_and_code_already_given():
    """``_at_line`` on errors that already name their line (parse_chain's) or carry a finer code."""
    given = TranscriptError("x", line=7, code="line.chain")
    assert _at_line(given, 3) is given and given.line == 7
    fault = DealerAtFault("the hand does not open", code="deal.fault")
    out = _at_line(fault, 4)  # a line-less TranscriptError: the same type, now on its line
    assert type(out) is DealerAtFault and out.line == 4 and out.code == "deal.fault"
    assert str(out) == "line 4: the hand does not open"
    m = MalformedInput("bad", line=5)
    out = _at_line(m, 5)
    assert out is m and out.code == "line.malformed"
    m1 = MalformedInput("bad header", line=1)
    assert _at_line(m1, 1).code == "header.malformed"
    coded = MalformedInput("leak", code="secret.leaked")
    out = _at_line(coded, 4)
    assert out.code == "secret.leaked" and out.line == 4 and str(out) == "transcript line 4: leak"
    proof = InvalidProof("no pairing")
    out = _at_line(proof, 6)
    assert type(out) is TranscriptError and out.line == 6 and out.code == proof.code
    other = UntrustedKey("k")
    assert _at_line(other, 2) is other  # not a line's fault: passed on as it is


# ---------------------------------------------------------------- an earlier bad proof is named first

class SeededSecrets:
    """Stands in for the ``secrets`` module in the entropy code (as in Cheat's whole-table
    test): every party's entropy from one seeded generator, so the deal and, with seeded
    bots, the whole match is the same on every run."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self.rng.randrange(n)

    def token_bytes(self, k: int) -> bytes:
        return self.rng.randbytes(k)


@pytest.fixture(scope="module")
def proved_match(match_keys, tmp_path_factory):
    import zkbluff.protocol.entropy as entropy

    path = tmp_path_factory.mktemp("v") / "m.jsonl"
    mp = pytest.MonkeyPatch()
    mp.setattr(entropy, "secrets", SeededSecrets(2100))
    try:
        tab = open_match("proof-or-bluff", {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=path,
                         key_folder=match_keys)
        cls = spec_class("proof-or-bluff")
        bots = [cls.house_bot(11), cls.house_bot(12)]
        while not tab.over:
            s = tab.to_move
            tab.move(s, bots[s].act(tab.observation(s)))
    finally:
        mp.undo()
    events = [json.loads(x) for x in path.read_text().splitlines()]
    # the seeded match ends on a proven line (a challenged claim settled to the target)
    assert [e["action"] for e in events[-3:]] == ["challenge", "prove", "end"] and events[-2]["proofs"]
    return tab, events


def _key_of(tab):
    def key_of(e):
        if e["seat"] is not None:
            return tab.seats[e["seat"]].key
        return tab.dealer.key if e["action"] in ("deal", "entropy.dealer", "complaint") else tab.referee.key
    return key_of


def _resign(events, key_of, start):
    out = [canonical(e) for e in events[:start]]
    prev = line_hash(out[-1])
    referee = key_of({"seat": None, "action": "end"})
    for e in events[start:]:
        e = sign_line(key_of(e), {**{k: v for k, v in e.items() if k != "sig"}, "prev": prev})
        if "received" in e:  # the referee's receipt, signed again over the line as re-signed
            e = sign_receipt(referee, e, e["received"]["at"])
        out.append(canonical(e))
        prev = line_hash(out[-1])
    return out


def test_a_bad_proof_on_an_earlier_line_is_named_before_a_later_fault(proved_match, tmp_path):
    """Proofs are batched to the end: a later refusal must not hide an earlier proof that does
    not verify (pi_c replaced by another curve point: well-formed, fails only the pairing)."""
    tab, events = proved_match
    i = next(k for k, e in enumerate(events) if e.get("proofs"))
    forged = json.loads(json.dumps(events))
    forged[i]["proofs"][0]["proof"]["pi_c"] = forged[i]["proofs"][0]["proof"]["pi_a"]
    lines = _resign(forged, _key_of(tab), i)
    err = refused(write(tmp_path, lines, "a.jsonl"))
    assert isinstance(err, TranscriptError) and err.line == i + 1 and err.code == "proof.invalid"
    # a later line refused as well (signed by the wrong party): still the bad proof is named
    j = len(forged) - 2
    later = _resign(forged[:j] + [{**forged[j], "sig": None}], _key_of(tab), i)
    bad_sig = json.loads(later[j])
    later[j] = canonical(sign_line(SigningKey.generate(), {k: v for k, v in bad_sig.items() if k != "sig"}))
    err = refused(write(tmp_path, later + [], "b.jsonl"))
    assert err.line == i + 1 and err.code == "proof.invalid"
    # the twin: the same later fault with every proof honest is named on its own line
    honest = _resign(events[:j] + [events[j]], _key_of(tab), i)
    h = json.loads(honest[j])
    honest[j] = canonical(sign_line(SigningKey.generate(), {k: v for k, v in h.items() if k != "sig"}))
    err = refused(write(tmp_path, honest, "c.jsonl"))
    assert err.line == j + 1 and err.code == "line.signature"
    # a whole transcript cut before its end: the missing end is reported after the bad proof
    err = refused(write(tmp_path, lines[:-1], "d.jsonl"))
    assert err.line == i + 1 and err.code == "proof.invalid"
    err = refused(write(tmp_path, [canonical(e) for e in events[:-1]], "e.jsonl"))
    assert err.line == len(events) and err.code == "end.missing"


def test_a_bad_proof_on_the_line_that_ends_the_match_is_named_before_the_missing_end(proved_match, tmp_path):
    """The last line of a transcript cut before its end carries a bad proof: that line is
    named (proof.invalid), not the missing end line after it."""
    tab, events = proved_match
    k = len(events) - 2  # the prove line that ended the match
    forged = json.loads(json.dumps(events[:-1]))
    forged[k]["proofs"][0]["proof"]["pi_c"] = forged[k]["proofs"][0]["proof"]["pi_a"]
    forged[k].pop("received", None)  # the line as changed was never the referee's to receive
    err = refused(write(tmp_path, _resign(forged, _key_of(tab), k), "f.jsonl"))
    assert isinstance(err, TranscriptError) and err.line == k + 1 and err.code == "proof.invalid"


# ---------------------------------------------------------------- a private key set, a per-match ceremony

class CeremonySpec(CountSpec):
    """The toy game with one (small) statement in its header, so it can have keys of its own."""

    game = "count-with-keys"

    def statements(self):
        return ["value.choice.v1"]


@pytest.fixture
def keyed_game(monkeypatch):
    monkeypatch.setitem(registry._GAMES, CeremonySpec.game, CeremonySpec)


def play(path, **kw):
    tab = open_match(CeremonySpec.game, None, ["a", "b"], transcript=path, **kw)
    while not tab.over:
        tab.move(tab.to_move, Go(tab.view.rules.s.total + 1))
    return tab, [json.loads(x) for x in path.read_text().splitlines()]


def test_a_private_key_set_verifies_only_when_given_and_loudly(keyed_game, tmp_path):
    folder = tmp_path / "keys"
    path = tmp_path / "private.jsonl"
    play(path, key_folder=folder)
    err = refused(path)
    assert type(err) is TranscriptError and err.line == 1 and err.code == "header.key"
    report = verify_transcript(path, keys_dir=folder)
    assert report["key_sources"] == {"value.choice.v1": "private"} and len(report["loud"]) == 1
    header = json.loads(path.read_text().splitlines()[0])["data"]
    fingerprint = VerifyingKey.from_json(header["keys"]["value.choice.v1"]).fingerprint()
    assert report["keys"] == {"value.choice.v1": fingerprint[:16]} and len(fingerprint) > 16


@pytest.fixture(scope="module")
def ceremony_match(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setitem(registry._GAMES, CeremonySpec.game, CeremonySpec)
    path = tmp_path_factory.mktemp("c") / "m.jsonl"
    tab, events = play(path, match_ceremony=True)
    yield tab, events, path
    mp.undo()


def _header_changed(tab, events, change):
    header = json.loads(json.dumps({k: v for k, v in events[0].items() if k != "sig"}))
    change(header["data"])
    return rechain(tab, [header] + events[1:])


def test_a_per_match_ceremony_binds_its_record_to_the_header(ceremony_match, tmp_path):
    tab, events, path = ceremony_match
    assert verify_transcript(path)["key_sources"] == {"value.choice.v1": "match"}
    record = events[0]["data"]["ceremony"]["record"]
    shutil.copytree(path.parent / record, tmp_path / record)

    def verdict(change):
        return refused(write(tmp_path, _header_changed(tab, events, change), "h.jsonl"))

    for digest in ("ab" * 31, "ab" * 33, None, 64):
        err = verdict(lambda d: d["ceremony"].update(digest=digest))
        assert type(err) is MalformedInput and err.line == 1 and err.code == "header.malformed"
        assert "ceremony.digest must be 64 hex digits" in str(err)
    err = verdict(lambda d: d.update(ceremony="x"))
    assert type(err) is MalformedInput and "ceremony.digest must be 64 hex digits" in str(err)
    for name in ("", "a/b", "a\\b", ".hidden", 5, None):
        err = verdict(lambda d: d["ceremony"].update(record=name))
        assert type(err) is MalformedInput and "ceremony.record must be a folder name beside the transcript" in str(err)
    err = verdict(lambda d: d.update(keys=[]))
    assert type(err) is MalformedInput and "header: keys must be an object" in str(err)
    err = verdict(lambda d: d.update(matchId="another"))
    assert type(err) is TranscriptError and err.line == 1 and "the ceremony record is for match" in str(err)
    stranger = SigningKey.generate().public_hex
    for seats in ([tab.seats[1].public_key, tab.seats[0].public_key], [tab.seats[0].public_key, stranger], "x"):
        err = verdict(lambda d: d["parties"].update(seats=seats))
        assert type(err) is TranscriptError and err.line == 1, err
        assert "the ceremony record's seat keys are not the seats the header lists" in str(err)
    err = verdict(lambda d: d.update(parties=[]))
    assert "the ceremony record's seat keys are not the seats the header lists" in str(err)
    # the twin: the header unchanged, re-signed the same way, verifies from the copied record
    assert verify_transcript(write(tmp_path, _header_changed(tab, events, lambda d: None), "h.jsonl"))["complete"]


@pytest.mark.parametrize("stray", [KeyError("commitment"), IndexError("0"), TypeError("unhashable"),
                                   ValueError("bad"), AttributeError("no get")])
def test_a_stray_error_of_a_games_header_check_is_a_malformed_header(count_game, monkeypatch, stray):
    """A game's own header check that fails with a lookup, type, value or attribute error (a
    shape it did not expect) is reported as a malformed header on line 1, never a stack trace."""
    from engine_toy_game import RevealDeal

    _, _, path = count_game

    def check_header(self, deal, n_seats):
        raise stray

    monkeypatch.setattr(RevealDeal, "check_header", check_header)
    err = refused(path)
    assert type(err) is MalformedInput and err.line == 1 and err.code == "header.malformed"
    assert str(err).startswith("transcript line 1: malformed data (")


def test_a_bad_last_proof_of_a_whole_transcript_is_caught_by_the_final_batch(proved_match, tmp_path):
    """The last proof, followed only by the end line: no later line's context can notice, so
    only the batch verified at the end does (and names its line)."""
    tab, events = proved_match
    k = len(events) - 2
    forged = json.loads(json.dumps(events))
    forged[k]["proofs"][0]["proof"]["pi_c"] = forged[k]["proofs"][0]["proof"]["pi_a"]
    forged[k].pop("received", None)  # the line as changed was never the referee's to receive
    err = refused(write(tmp_path, _resign(forged, _key_of(tab), k), "g.jsonl"))
    assert isinstance(err, TranscriptError) and err.line == k + 1 and err.code == "proof.invalid"
    assert verify_transcript(write(tmp_path, [canonical(e) for e in events], "h.jsonl"))["complete"]  # the twin


def test_a_line_too_big_to_read_is_named(count_game, tmp_path):
    tab, events, _ = count_game
    lines = rechain(tab, events)
    lines[2] = lines[2].replace('"data":{"step":2}', '"data":{"step":' + "2" * 5000 + "}")
    err = refused(write(tmp_path, lines))
    assert type(err) is MalformedInput and err.line == 3 and err.code == "line.json"
    lines = rechain(tab, events)
    lines[0] = lines[0][:-1] + ',"x":' + "1" * 5000 + "}"
    err = refused(write(tmp_path, lines))
    assert type(err) is MalformedInput and err.line == 1 and err.code == "line.json"


# ---------------------------------------------------------------- header keys: size and fields before decoding

def _resign_header(tab, events):
    """The header re-signed by the referee, the chain re-linked after it."""
    events = [sign_line(tab.referee.key, {k: v for k, v in events[0].items() if k != "sig"}), *events[1:]]
    return _resign(events, _key_of(tab), 1)


@pytest.mark.parametrize("bloat", ["ic", "npublic"])
def test_attack_a_header_key_with_300000_ic_points_is_refused_before_decoding(proved_match, match_keys, tmp_path,
                                                                              monkeypatch, bloat):
    """Issue 26.6: a header verification key with 300,000 IC points was decoded (~8 s)
    before nPublic refused it. Now its counts (and the statement's public count) are
    checked first: header.malformed on line 1, no point decoded."""
    from zkbluff.groth16 import keys as keys_module

    tab, events = proved_match
    forged = json.loads(json.dumps(events))
    key_id = sorted(forged[0]["data"]["keys"])[0]
    vk = forged[0]["data"]["keys"][key_id]
    vk["IC"] = vk["IC"][:1] * 300_000
    if bloat == "npublic":
        vk["nPublic"] = 299_999
    path = write(tmp_path, _resign_header(tab, forged), "bloated.jsonl")
    decoded = []
    real = keys_module.g1_from_json
    monkeypatch.setattr(keys_module, "g1_from_json", lambda *a, **k: decoded.append(1) or real(*a, **k))
    err = refused(path, keys_dir=match_keys)
    assert isinstance(err, MalformedInput) and err.code == "header.malformed", err
    assert decoded == []


def test_a_header_key_of_another_public_count_is_refused_and_the_honest_header_reads(proved_match, match_keys,
                                                                                     tmp_path):
    """A well-formed key with one public input more than its statement's: refused as the
    header's fault before decoding; the negative twin, the honest transcript, verifies."""
    tab, events = proved_match
    forged = json.loads(json.dumps(events))
    key_id = sorted(forged[0]["data"]["keys"])[0]
    vk = forged[0]["data"]["keys"][key_id]
    vk["IC"], vk["nPublic"] = vk["IC"] + vk["IC"][:1], vk["nPublic"] + 1
    err = refused(write(tmp_path, _resign_header(tab, forged), "wide.jsonl"), keys_dir=match_keys)
    assert err.code == "header.key" and "public inputs" in str(err)
    honest = write(tmp_path, [canonical(e) for e in events], "honest.jsonl")
    assert verify_transcript(honest, keys_dir=match_keys)
