"""Proof or Bluff tables with real proofs: whole matches, transcripts, cheaters, time."""
import json

import pytest
from click.testing import CliRunner

from zkbluff.bots.proof_or_bluff import HouseBot, RandomBot
from zkbluff.cli import main
from zkbluff.errors import IllegalMove, InvalidProof, MalformedInput, TranscriptError, ZkbluffError
from zkbluff.games.proof_or_bluff.referee import PLAY_ID
from zkbluff.games.proof_or_bluff.rules import next_rank
from zkbluff.games.proof_or_bluff.table import Table
from zkbluff.games.proof_or_bluff.verify import verify_transcript
from zkbluff.gadgets.native import commit
from zkbluff.protocol.transcript import canonical, line_hash


@pytest.fixture(scope="session")
def keys(tmp_path_factory):
    return tmp_path_factory.mktemp("keys")


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def check_invariants(tab: Table, before: dict, event: dict) -> None:
    s = tab.state
    hands = [st.hand for st in tab.seats]
    assert hands[0] & hands[1] == 0, "a card in two hands"
    assert all(h < (1 << 52) for h in hands)
    assert all(x >= 0 for x in s.scores)
    if tab.kind == "classic" and not tab.over:
        assert [bin(h).count("1") for h in hands] == s.hand_sizes
        if event["action"] in ("accept", "prove", "timeout") and s.phase != "deal" and before["phase"] != "deal":
            if event["action"] != "timeout" or event["data"]["kind"] == "proof":
                assert s.required_rank == next_rank(before["rank"]), "rank rotation"
        if event["action"] == "prove":
            assert s.pile == 0, "the pile is discarded after a challenge"


def run_match(tab: Table, agents) -> None:
    while not tab.over:
        seat = tab.to_move
        before = {"rank": tab.state.required_rank if tab.kind == "classic" else None, "phase": tab.state.phase}
        event = tab.apply(seat, agents[seat].act(tab.observation(seat)))
        check_invariants(tab, before, event)


@pytest.mark.parametrize("table, mode, seed", [("classic", "casual", 1), ("classic", "standard", 2),
                                                ("five-up", "casual", 3)])
def test_whole_match_with_real_proofs(keys, tmp_path, table, mode, seed):
    path = tmp_path / "m.jsonl"
    tab = Table(table, mode, transcript=path, key_folder=keys)
    run_match(tab, [HouseBot(seed), RandomBot(seed)])
    report = verify_transcript(path)
    assert report["complete"] and report["over"] and report["proofs"] == len(tab.timings)
    assert report["scores"] == tab.state.scores
    assert path.read_text().count("\n") == report["lines"]
    header = json.loads(path.read_text().split("\n")[0])
    assert "could see both hands" in header["data"]["trust"]


@pytest.fixture(scope="module")
def finished(keys, tmp_path_factory):
    path = tmp_path_factory.mktemp("t") / "m.jsonl"
    tab = Table("classic", "casual", transcript=path, key_folder=keys)
    run_match(tab, [HouseBot(5), HouseBot(6)])
    return path, path.read_text().rstrip("\n").split("\n")


def write(tmp_path, lines, name="x.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def rechain(events: list[dict]) -> list[str]:
    """Recompute numbers and hash links, as a forger who edits a line would."""
    out, prev = [], "0" * 64
    for i, e in enumerate(events, start=1):
        e = {**e, "n": i, "prev": prev}
        line = canonical(e)
        out.append(line)
        prev = line_hash(line)
    return out


def test_tampered_lines_are_rejected(finished, tmp_path):
    path, lines = finished
    verify_transcript(path)
    for i in range(len(lines)):
        changed = list(lines)
        ev = json.loads(changed[i])
        ev["data"]["_edit"] = 1
        changed[i] = canonical(ev)
        with pytest.raises(ZkbluffError):
            verify_transcript(write(tmp_path, changed))
        removed = lines[:i] + lines[i + 1:]
        with pytest.raises(ZkbluffError):
            verify_transcript(write(tmp_path, removed))
        if i + 1 < len(lines):
            swapped = list(lines)
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            with pytest.raises(ZkbluffError):
                verify_transcript(write(tmp_path, swapped))


def test_malformed_rechained_lines_are_malformed_input(finished, tmp_path):
    path, lines = finished
    events = [json.loads(l) for l in lines]
    forged = json.loads(json.dumps(events))
    forged[1]["data"]["handCommitments"] = forged[1]["data"]["handCommitments"][:1]
    with pytest.raises(MalformedInput, match="deal"):
        verify_transcript(write(tmp_path, rechain(forged)))
    res = CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, rechain(forged), "m.jsonl"))])
    assert res.exit_code == 2


def test_a_bad_proof_in_a_batch_names_its_line(finished, tmp_path):
    """Give the last proof-carrying line another proof's B point (re-chained, so only the
    batch verification can object; its context is still its own) and the verifier names it."""
    path, lines = finished
    events = [json.loads(l) for l in lines]
    with_proof = [i for i, e in enumerate(events) if "proof" in e]
    last = with_proof[-1]
    donor = next(i for i in reversed(with_proof[:-1]) if events[i]["proof"]["statement"] ==
                 events[last]["proof"]["statement"])
    forged = json.loads(json.dumps(events))
    forged[last]["proof"]["proof"]["pi_b"] = events[donor]["proof"]["proof"]["pi_b"]
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, rechain(forged)))
    assert exc.value.line == last + 1 and "does not verify" in str(exc.value)


def test_naive_edit_names_the_line(finished, tmp_path):
    path, lines = finished
    changed = list(lines)
    changed[4] = changed[4].replace('"seat":0', '"seat":1', 1).replace('"seat":1', '"seat":0', 1) + " "
    with pytest.raises((TranscriptError, MalformedInput)):
        verify_transcript(write(tmp_path, changed))
    res = CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, lines[:3] + lines[4:]))])
    assert res.exit_code == 1 and "line 4" in res.output
    assert CliRunner().invoke(main, ["transcript", "verify", str(path)]).exit_code == 0
    assert CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, ["{nope"]))]).exit_code == 2


def test_rechained_forgeries_are_caught_by_proofs_and_rules(finished, tmp_path):
    """A forger who recomputes the hash chain still cannot change what the proofs,
    the rules or the reveal pin."""
    path, lines = finished
    events = [json.loads(l) for l in lines]
    forgeries = []
    for i, e in enumerate(events):
        a = e["action"]
        if a == "play":
            f = json.loads(json.dumps(events))
            f[i]["data"]["count"] = f[i]["data"]["count"] % 4 + 1
            forgeries.append(("count", i, f))
        if a == "prove":
            f = json.loads(json.dumps(events))
            f[i]["data"]["verdict"] = 1 - f[i]["data"]["verdict"]
            forgeries.append(("verdict", i, f))
        if a == "end":
            f = json.loads(json.dumps(events))
            f[i]["data"]["scores"] = [f[i]["data"]["scores"][1], f[i]["data"]["scores"][0] + 1]
            forgeries.append(("scores", i, f))
        if a == "reveal":
            f = json.loads(json.dumps(events))
            f[i]["data"]["seats"][0]["entropy"] = "0" * 64
            forgeries.append(("entropy", i, f))
    plays = [i for i, e in enumerate(events) if e["action"] == "play"]
    f = json.loads(json.dumps(events))
    del f[plays[0]]
    forgeries.append(("removed play", plays[0], f))
    f = json.loads(json.dumps(events))
    f[plays[1]]["proof"] = events[plays[0]]["proof"]  # a proof from another turn
    forgeries.append(("replayed proof", plays[1], f))
    assert len(forgeries) > 10
    for what, i, forged in forgeries:
        with pytest.raises(ZkbluffError) as exc:
            verify_transcript(write(tmp_path, rechain(forged)))
        assert not isinstance(exc.value, MalformedInput) or what == "removed play", what


def test_cheating_seat_rejected_by_the_table(keys):
    tab = Table("classic", "casual", key_folder=keys)
    seat = tab.to_move
    st = tab.seats[seat]
    other = tab.seats[1 - seat]
    # 1. cards it does not hold
    with pytest.raises(IllegalMove, match="your own hand"):
        tab.play(seat, [other.cards()[0]])
    # 1b. a forged proof for a hand it does not hold (another old hand commitment)
    from zkbluff.games.proof_or_bluff.table import MoveTiming
    card = other.cards()[0]
    forged = tab._prove(PLAY_ID, {"old_hand": other.hand, "old_salt": other.salt, "play": 1 << card,
                                  "play_salt": 1, "new_salt": 2}, MoveTiming(0, "play", seat))
    data = {"count": 1, "rank": tab.state.required_rank, "newHandCommitment": forged["public"][1],
            "playCommitment": forged["public"][2]}
    n_before = len(tab.writer.events)
    with pytest.raises(IllegalMove, match="old_hand_commitment"):
        tab.submit(seat, "play", data, forged)
    assert len(tab.writer.events) == n_before and tab.state.phase == "play"
    # a legal play, then the claim proof with a lying verdict
    tab.play(seat, st.cards()[:1])
    tab.challenge(1 - seat)
    truth = int(st.play & ~sum(1 << (tab.state.claim[2] + 13 * s) for s in range(4)) == 0)
    honest = tab._prove("card.claim.v1@deck=52", {"play": st.play, "play_salt": st.play_salt,
                                                   "rank_mask": sum(1 << (tab.state.claim[2] + 13 * s)
                                                                    for s in range(4))},
                        MoveTiming(0, "prove", seat))
    with pytest.raises(IllegalMove, match="verdict"):
        tab.submit(seat, "prove", {"verdict": 1 - truth}, honest)
    lying = dict(honest)
    lying["public"] = list(honest["public"])
    lying["public"][2] = str(1 - truth)
    with pytest.raises(InvalidProof):
        tab.submit(seat, "prove", {"verdict": 1 - truth}, lying)
    # a replayed proof from another turn: its context is for another line
    tab.prove_claim(seat)
    replay = tab.writer.events[-1]["proof"]
    assert tab.state.phase == "play"
    with pytest.raises(IllegalMove, match="another turn"):
        tab.submit(tab.to_move, "play", {"count": 1, "rank": tab.state.required_rank,
                                         "newHandCommitment": "1", "playCommitment": "1"},
                   {**replay, "statement": PLAY_ID, "vk": tab.keys[PLAY_ID].vk.fingerprint(),
                    "public": [str(commit(tab.seats[tab.to_move].hand, tab.seats[tab.to_move].salt)), "1", "1", "1",
                               replay["public"][3]]})


def test_sealed_hands_reach_only_their_seat(keys):
    tab = Table("classic", "casual", key_folder=keys)
    deal = tab.writer.events[1]
    assert tab.receive_hand(0, deal["data"], deal["n"]) == tab.seats[0].hand
    assert str(tab.seats[0].hand) not in json.dumps(deal)  # the hand is not in the clear
    from zkbluff.errors import CommitmentMismatch
    forged = json.loads(json.dumps(deal["data"]))
    forged["sealedHands"][0] = forged["sealedHands"][1]  # seat 1's box sent to seat 0
    with pytest.raises(CommitmentMismatch):
        tab.receive_hand(0, forged, deal["n"])


def test_timeouts_with_an_injected_clock(keys):
    clock = Clock()
    tab = Table("classic", "casual", key_folder=keys, clock=clock, proof_timeout=30, idle_timeout=120)
    seat = tab.to_move
    assert tab.poll() is None
    tab.play(seat, tab.seats[seat].cards()[:1])
    tab.challenge(1 - seat)
    clock.t += 29
    assert tab.poll() is None
    clock.t += 2
    ev = tab.poll()
    assert ev["action"] == "timeout" and ev["data"]["kind"] == "proof"
    assert tab.state.scores[1 - seat] == 3  # treated as caught
    clock.t += 121
    ev = tab.poll()
    assert ev["data"]["kind"] == "idle" and tab.over and tab.state.winner == seat
    assert tab.writer.events[-1]["action"] == "reveal"


def test_resume_from_transcript(keys, tmp_path):
    path = tmp_path / "r.jsonl"
    tab = Table("classic", "casual", transcript=path, key_folder=keys)
    bots = [HouseBot(1), HouseBot(2)]
    for _ in range(6):
        seat = tab.to_move
        tab.apply(seat, bots[seat].act(tab.observation(seat)))
    snapshot = path.read_text()
    again = Table.resume(path, key_folder=keys)
    assert path.read_text() == snapshot
    assert again.state.scores == tab.state.scores and again.to_move == tab.to_move
    assert [s.hand for s in again.seats] == [s.hand for s in tab.seats]
    run_match(again, bots)
    assert verify_transcript(path)["complete"]
    with pytest.raises(MalformedInput, match="secrets"):
        p2 = tmp_path / "copy.jsonl"
        p2.write_text(snapshot)
        Table.resume(p2, key_folder=keys)


def test_an_existing_transcript_is_never_overwritten(keys, tmp_path):
    path = tmp_path / "keep.jsonl"
    Table("classic", "casual", transcript=path, key_folder=keys)
    before = path.read_text()
    with pytest.raises(MalformedInput, match="already holds a match"):
        Table("classic", "casual", transcript=path, key_folder=keys)
    assert path.read_text() == before
    res = CliRunner().invoke(main, ["play", "--out", str(path)], input="1\n")
    assert res.exit_code == 2 and path.read_text() == before


def test_out_of_turn_and_bad_moves_lose_nothing(keys):
    tab = Table("five-up", "casual", key_folder=keys)
    n = len(tab.writer.events)
    with pytest.raises(IllegalMove):
        tab.claim(1 - tab.to_move, ())
    with pytest.raises(IllegalMove):
        tab.accept(tab.to_move)
    with pytest.raises(IllegalMove):
        tab.apply(tab.to_move, ("dance",))
    assert len(tab.writer.events) == n


def test_demo_command(keys, tmp_path, monkeypatch):
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(keys))
    res = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "d.jsonl"), "--mode", "casual"])
    assert res.exit_code == 0, res.output
    assert "transcript verified offline" in res.output and "prove" in res.output
    assert verify_transcript(tmp_path / "d.jsonl")["complete"]


def test_play_command_five_up_scripted(keys, tmp_path, monkeypatch):
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(keys))
    out = tmp_path / "f.jsonl"
    script = "Z\n" + "none\na\nc\n" * 80
    res = CliRunner().invoke(main, ["play", "--table", "five-up", "--mode", "casual", "--seed", "4", "--out", str(out)],
                             input=script)
    assert res.exit_code in (0, 130), res.output
    assert "Board:" in res.output and "not allowed" in res.output
    verify_transcript(out)


def test_play_command_scripted(keys, tmp_path, monkeypatch):
    monkeypatch.setenv("ZKBLUFF_KEY_DIR", str(keys))
    out = tmp_path / "p.jsonl"
    script = "x\n9 9\n" + "1\na\n" * 60
    res = CliRunner().invoke(main, ["play", "--mode", "casual", "--seed", "3", "--out", str(out)], input=script)
    assert res.exit_code in (0, 130), res.output
    assert "not allowed" in res.output  # the bad inputs were re-prompted with a reason
    verify_transcript(out)
    if res.exit_code == 130:
        resumed = CliRunner().invoke(main, ["play", "--resume", str(out)], input="1\na\n" * 60)
        assert resumed.exit_code in (0, 130)
        verify_transcript(out)
