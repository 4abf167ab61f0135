"""The offline verifier checks every proof of a transcript in one batch: the oblivious
deal's own proofs (the permutation and both hands) join the game's proofs instead of being
paired one by one as their lines come, and the batch still names the line of a bad one.
The lines' signatures are batched too, and the first bad line is still the one named,
whatever fails there (a signature before the proofs and data of its own line). A live view
(``verify_now``) still verifies each deal proof and each signature at once."""
from __future__ import annotations

import json

import pytest

from repo_root import REPO_ROOT
from zkbluff.errors import InvalidProof, TranscriptError
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey, sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical, line_hash

BASE = REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.jsonl"
PARTIES = json.loads((REPO_ROOT / "vectors" / "transcripts" / "proof-or-bluff-casual.parties.json").read_text())
#: the exchange lines of the deal and where each carries its proof
DEAL_PROOFS = {2: ("oblivious.commit", ("proof",)), 4: ("oblivious.transfer", ("dealer_hand", "proof")),
               5: ("oblivious.hand", ("proof",))}


def _events() -> list[dict]:
    return [json.loads(line) for line in BASE.read_text().splitlines()]


def _signer(header: dict, event: dict) -> SigningKey:
    ref = Referee(header, verify_now=False)
    public, _ = ref.key_of(ref.role_of(event["action"]), event["seat"])
    seeds = [PARTIES["referee"], PARTIES["dealer"], *(s["key"] for s in PARTIES["seats"])]
    keys = [SigningKey.from_secret_hex(s) for s in seeds]
    return next(k for k in keys if k.public_hex == public)


def _sign(header: dict, event: dict) -> dict:
    """``event`` re-signed by its own party; a line with the referee's receipt (a seat's or the
    dealer's) received again at the same time (the house holds the referee's key)."""
    signed = sign_line(_signer(header, event), event)
    if "received" in signed:
        signed = sign_receipt(SigningKey.from_secret_hex(PARTIES["referee"]), signed, signed["received"]["at"])
    return signed


def _bad_proof(event: dict, path: tuple[str, ...]) -> dict:
    """The line with its proof's A and C swapped (both still points on the curve: only the
    pairing can tell), re-signed by its own party (so only the proof is wrong)."""
    event = json.loads(json.dumps(event))
    holder = event["data"]
    for k in path[:-1]:
        holder = holder[k]
    proof = holder[path[-1]]
    proof["pi_a"], proof["pi_c"] = proof["pi_c"], proof["pi_a"]
    return event


def _resign(events: list[dict], from_line: int) -> list[dict]:
    """Re-sign line ``from_line`` and re-chain and re-sign every line after it (every
    party's key is known: only a proof can still tell)."""
    out = [dict(e) for e in events]
    for i in range(from_line - 1, len(out)):
        if i > from_line - 1:
            out[i]["prev"] = line_hash(canonical(out[i - 1]))
        out[i] = _sign(out[0], out[i])
    return out


def _apply(events: list[dict], verify_now: bool, upto: int) -> Referee:
    ref = Referee(events[0], verify_now=verify_now)
    for e in events[1:upto]:
        ref.apply(e)
    return ref


def test_the_deal_proofs_wait_in_the_offline_batch_and_pass_there():
    events = _events()
    offline = _apply(events, verify_now=False, upto=5)
    assert len(offline.batch) == 3 and offline.n_proofs == 3  # permutation, dealer's hand, chooser's hand
    offline.batch.verify()
    live = _apply(events, verify_now=True, upto=5)  # the live view pairs each at once
    assert len(live.batch) == 0 and live.n_proofs == 3


@pytest.mark.parametrize("line", sorted(DEAL_PROOFS))
def test_a_bad_deal_proof_fails_the_offline_batch_on_its_line_and_the_live_view_at_once(line):
    kind, path = DEAL_PROOFS[line]
    events = _events()
    assert events[line - 1]["action"] == kind
    bad = list(events)
    bad[line - 1] = _sign(events[0], _bad_proof(events[line - 1], path))
    offline = _apply(bad, verify_now=False, upto=line)  # the line itself is accepted: its proof waits
    with pytest.raises(TranscriptError) as exc:
        offline.batch.verify()
    assert (exc.value.line, exc.value.code) == (line, "proof.invalid")
    with pytest.raises(InvalidProof):
        _apply(bad, verify_now=True, upto=line)


def test_a_whole_transcript_with_a_bad_permutation_proof_fails_on_that_line(tmp_path):
    """Line 2's proof bad, every later line re-chained and re-signed: line 7's proof then
    names a context the table no longer holds, and the verifier still names line 2 (the
    first bad line), found in the batch before line 7's refusal is reported."""
    events = _events()
    deal_proofs = sum(e["action"] in ("oblivious.commit", "oblivious.transfer", "oblivious.hand") for e in events)
    assert verify_transcript(BASE)["proofs"] == deal_proofs + sum(len(e.get("proofs", [])) for e in events)
    events[1] = _bad_proof(events[1], DEAL_PROOFS[2][1])
    path = tmp_path / "bad-permutation.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in _resign(events, 2)))
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(path)
    assert (exc.value.line, exc.value.code) == (2, "proof.invalid")


def _other_seat_signs(events: list[dict], line: int) -> None:
    """Line ``line`` (a seat's) signed by the other seat: well formed, not its party's."""
    e = events[line - 1]
    assert e["seat"] in (0, 1)
    wrong = SigningKey.from_secret_hex(PARTIES["seats"][1 - e["seat"]]["key"])
    events[line - 1] = sign_line(wrong, e)


def _verdict(tmp_path, events: list[dict]) -> tuple[int, str]:
    path = tmp_path / "mutated.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in events))
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(path)
    return exc.value.line, exc.value.code


def test_signatures_wait_in_the_offline_batch_and_live_views_check_them_at_once():
    events = _events()
    _other_seat_signs(events, 8)
    offline = _apply(events, verify_now=False, upto=8)  # line 8 accepted: its signature waits
    receipts = sum("received" in e for e in events[1:8])  # each seat's and the dealer's line: the receipt's too
    assert receipts == 7 and len(offline.signatures) == 7 + receipts  # lines 2..8 (the header's own: at once)
    with pytest.raises(TranscriptError) as exc:
        offline.signatures.verify()
    assert (exc.value.line, exc.value.code) == (8, "line.signature")
    with pytest.raises(InvalidProof) as live:  # InvalidSignature, at once
        _apply(events, verify_now=True, upto=8)
    assert live.value.code == "line.signature"
    assert len(_apply(_events(), verify_now=True, upto=8).signatures) == 0


def test_a_bad_signature_is_named_before_a_later_failure(tmp_path):
    events = _events()
    _other_seat_signs(events, 8)
    events[11]["data"] = {**events[11]["data"], "count": 4}  # line 12: another count than its proof's
    events[11] = _sign(events[0], events[11])
    assert _verdict(tmp_path, events) == (8, "line.signature")
    clean = _events()
    clean[11]["data"] = {**clean[11]["data"], "count": 4}
    clean[11] = _sign(clean[0], clean[11])
    assert _verdict(tmp_path, clean)[0] == 12  # the positive twin: line 8 alone passes


def test_a_bad_signature_comes_before_a_bad_proof_of_its_own_line_and_after_an_earlier_one(tmp_path):
    events = _events()
    prove = next(i for i, e in enumerate(events) if e["action"] == "prove")
    assert events[6]["action"] == "play" and events[6].get("proofs") and events[prove].get("proofs")
    proof = events[prove]["proofs"][0]["proof"]
    proof["pi_a"], proof["pi_c"] = proof["pi_c"], proof["pi_a"]
    _other_seat_signs(events, prove + 1)  # the prove line: a bad proof and a bad signature
    assert _verdict(tmp_path, events) == (prove + 1, "line.signature")
    events = _events()
    proof = events[6]["proofs"][0]["proof"]
    proof["pi_a"], proof["pi_c"] = proof["pi_c"], proof["pi_a"]
    events[6] = _sign(events[0], events[6])
    events[7:] = _resign(events, 7)[7:]  # every later line re-chained: their proofs name old contexts
    _other_seat_signs(events, 8)
    assert _verdict(tmp_path, events) == (7, "proof.invalid")  # line 7's proof, before line 8's signature


def test_a_bad_signature_on_the_last_line_fails_the_whole(tmp_path):
    events = _events()
    last = events[-1]
    assert last["seat"] is None
    other = SigningKey.from_secret_hex(PARTIES["dealer"] if _signer(events[0], last).public_hex != \
        SigningKey.from_secret_hex(PARTIES["dealer"]).public_hex else PARTIES["referee"])
    events[-1] = sign_line(other, last)
    assert _verdict(tmp_path, events) == (len(events), "line.signature")


def test_a_bad_signature_comes_before_its_own_lines_bad_data(tmp_path):
    """Line 8's data refused (a stray field) and its signature bad: the signature is named,
    as when each line's signature was checked before its data; with the right key, the data."""
    events = _events()
    events[7]["data"] = {**events[7]["data"], "note": 1}
    right = _sign(events[0], events[7])
    _other_seat_signs(events, 8)
    assert _verdict(tmp_path, events) == (8, "line.signature")
    events[7] = right
    path = tmp_path / "right-key.jsonl"
    path.write_text("".join(canonical(e) + "\n" for e in events))
    from zkbluff.errors import MalformedInput

    with pytest.raises(MalformedInput) as exc:  # the positive twin: its own key, the data refused
        verify_transcript(path)
    assert exc.value.line == 8
