"""Proof or Bluff tables with real proofs on the engine: whole matches, signed transcripts,
cheaters, time, resume."""
import json
import time

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import (
    CommitmentMismatch, IllegalMove, InvalidProof, MalformedInput, TranscriptError, ZkbluffError,
)
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.table import open_match, resume_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff.moves import PlayCards, ProveClaim
from zkbluff.games.proof_or_bluff.rules import (
    Accept, Challenge, Claim, ClassicRules, Play, ProveVerdict, next_rank,
)
from zkbluff.games.proof_or_bluff.spec import CLAIM_ID, PLAY_ID
from zkbluff.games.registry import spec_class
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical, line_hash

CLASSIC, FIVE_UP = "proof-or-bluff", "five-up-two-down"


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def hands(tab):
    return [s.private["hand"] for s in tab.seats]


def check_invariants(tab, before: dict, event: dict) -> None:
    s = tab.state
    h = hands(tab)
    assert h[0] & h[1] == 0, "a card in two hands"
    assert all(x < (1 << 52) for x in h)
    assert all(x >= 0 for x in s.scores)
    if isinstance(tab.rules, ClassicRules) and not tab.over:
        assert [bin(x).count("1") for x in h] == s.hand_sizes
        if event["action"] in ("accept", "prove", "timeout") and s.phase != "deal" and before["phase"] != "deal":
            if event["action"] != "timeout" or event["data"]["limit"] == "proof":
                assert s.required_rank == next_rank(before["rank"]), "rank rotation"
        if event["action"] == "prove":
            assert s.pile == 0, "the pile is discarded after a challenge"


def run_match(tab, agents) -> None:
    while not tab.over:
        seat = tab.to_move
        before = {"rank": getattr(tab.state, "required_rank", None), "phase": tab.state.phase}
        event = tab.move(seat, agents[seat].act(tab.observation(seat)))
        check_invariants(tab, before, event)


def bots(game, a, b, random_second=False):
    cls = spec_class(game)
    return [cls.house_bot(a), (cls.random_bot if random_second else cls.house_bot)(b)]


@pytest.mark.parametrize("game, mode, seed", [(CLASSIC, "casual", 1), (CLASSIC, "standard", 2), (FIVE_UP, "casual", 3)])
def test_whole_match_with_real_proofs(match_keys, tmp_path, game, mode, seed):
    path = tmp_path / "m.jsonl"
    tab = open_match(game, {"mode": mode, "deal": "dealer"}, transcript=path, key_folder=match_keys)
    run_match(tab, bots(game, seed, seed, random_second=True))
    report = verify_transcript(path)
    assert report["complete"] and report["over"] and report["proofs"] == len(tab.timings)
    assert report["scores"] == tab.state.scores and report["game"] == game
    assert path.read_text().count("\n") == report["lines"]
    header = json.loads(path.read_text().split("\n")[0])
    assert "could see every hand" in header["data"]["trust"]
    assert all("sig" in json.loads(line) for line in path.read_text().splitlines())


@pytest.fixture(scope="module")
def finished(match_keys, tmp_path_factory):
    path = tmp_path_factory.mktemp("t") / "m.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    run_match(tab, bots(CLASSIC, 5, 6))
    return path, path.read_text().rstrip("\n").split("\n"), tab


def write(tmp_path, lines, name="x.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def party_key(tab, event):
    """The key of the party entitled to an event (a forger who holds every key)."""
    if event["seat"] is not None:
        return tab.seats[event["seat"]].key
    if event["action"] in ("deal", "entropy.dealer"):
        return tab.dealer.key
    return tab.referee.key


def rechain(events: list[dict], tab=None, key_of=None) -> list[str]:
    """Recompute numbers and hash links, as a forger who edits a line would; re-sign each
    line with ``key_of(event)`` (by default: the entitled party's key, when ``tab`` is given)."""
    if key_of is None and tab is not None:
        key_of = lambda e: party_key(tab, e)  # noqa: E731
    out, prev = [], "0" * 64
    for i, e in enumerate(events, start=1):
        e = {**e, "n": i, "prev": prev}
        if key_of is not None:
            e = sign_line(key_of(e), e)
            if "received" in e and tab is not None:  # the referee's receipt, signed again over the line
                e = sign_receipt(tab.referee.key, e, e["received"]["at"])
        line = canonical(e)
        out.append(line)
        prev = line_hash(line)
    return out


def test_tampered_lines_are_rejected(finished, tmp_path):
    path, lines, _ = finished
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
    path, lines, tab = finished
    events = [json.loads(l) for l in lines]
    forged = json.loads(json.dumps(events))
    first_deal = next(i for i, e in enumerate(events) if e["action"] == "deal")
    forged[first_deal]["data"]["sealed_hands"] = 7
    with pytest.raises(MalformedInput, match="deal"):
        verify_transcript(write(tmp_path, rechain(forged, tab)))
    res = CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, rechain(forged, tab), "m.jsonl"))])
    assert res.exit_code == 2
    forged = json.loads(json.dumps(events))
    forged[0]["data"]["game"] = "snap"
    res = CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, rechain(forged, tab), "g.jsonl"))])
    assert res.exit_code == 2 and "unknown game 'snap'" in res.output


def test_a_bad_proof_in_a_batch_names_its_line(finished, tmp_path):
    """Give the last proof-carrying line another proof's B point (re-chained and re-signed,
    so only the batch verification can object) and the verifier names it."""
    path, lines, tab = finished
    events = [json.loads(l) for l in lines]
    with_proof = [i for i, e in enumerate(events) if "proofs" in e]
    last = with_proof[-1]
    donor = next(i for i in reversed(with_proof[:-1]) if events[i]["proofs"][0]["statement"] ==
                 events[last]["proofs"][0]["statement"])
    forged = json.loads(json.dumps(events))
    forged[last]["proofs"][0]["proof"]["pi_b"] = events[donor]["proofs"][0]["proof"]["pi_b"]
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, rechain(forged, tab)))
    assert exc.value.line == last + 1 and "does not verify" in str(exc.value)


def test_naive_edit_names_the_line(finished, tmp_path):
    path, lines, _ = finished
    changed = list(lines)
    changed[4] = changed[4].replace('"seat":0', '"seat":1', 1).replace('"seat":1', '"seat":0', 1) + " "
    with pytest.raises((TranscriptError, MalformedInput)):
        verify_transcript(write(tmp_path, changed))
    res = CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, lines[:3] + lines[4:]))])
    assert res.exit_code == 1 and "line 4" in res.output
    ok = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert ok.exit_code == 0 and "proof-or-bluff" in ok.output
    assert CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, ["{nope"]))]).exit_code == 2


def test_rechained_forgeries_are_caught_by_proofs_and_rules(finished, tmp_path):
    """A forger who holds every party's key and recomputes the hash chain still cannot
    change what the proofs, the rules or the reveal pin."""
    path, lines, tab = finished
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
            f[i]["data"]["verdict"] = not f[i]["data"]["verdict"]
            forgeries.append(("verdict", i, f))
        if a == "end":
            f = json.loads(json.dumps(events))
            f[i]["data"]["scores"] = [f[i]["data"]["scores"][1], f[i]["data"]["scores"][0] + 1]
            forgeries.append(("scores", i, f))
        if a == "entropy.seat" and e["data"]["commitment"] is not None:
            f = json.loads(json.dumps(events))
            f[i]["data"]["commitment"] = "1" * 70
            forgeries.append(("entropy", i, f))
    plays = [i for i, e in enumerate(events) if e["action"] == "play"]
    f = json.loads(json.dumps(events))
    del f[plays[0]]
    forgeries.append(("removed play", plays[0], f))
    f = json.loads(json.dumps(events))
    f[plays[1]]["proofs"] = events[plays[0]]["proofs"]  # a proof from another turn
    forgeries.append(("replayed proof", plays[1], f))
    assert len(forgeries) > 10
    for what, i, forged in forgeries:
        with pytest.raises(ZkbluffError) as exc:
            verify_transcript(write(tmp_path, rechain(forged, tab)))
        assert not isinstance(exc.value, MalformedInput) or what == "removed play", what


def forge_line(tab, seat, action, proof=None):
    """A line in ``seat``'s name, signed with its own key (a cheating client)."""
    view = tab.seats[seat].view
    line = {"n": view.next_line, "prev": view.head, "seat": seat, "action": action.kind, "data": action.to_data(),
            "at": time.time()}
    if proof is not None:
        line["proofs"] = [proof]
    return sign_line(tab.seats[seat].key, line)


def test_cheating_seat_rejected_by_the_table(match_keys):
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys)
    seat = tab.to_move
    st, other = tab.seats[seat], tab.seats[1 - seat]
    theirs = [c for c in range(52) if other.private["hand"] >> c & 1]
    # 1. cards it does not hold
    with pytest.raises(IllegalMove, match="your own hand"):
        tab.move(seat, PlayCards((theirs[0],)))
    # 1b. a forged proof for a hand it does not hold (another old hand commitment)
    view = st.view
    forged = st.prover.prove(PLAY_ID, {"old_hand": other.private["hand"], "old_salt": other.private["salt"],
                                       "play": 1 << theirs[0], "play_salt": 1, "new_salt": 2},
                             tab.match_id, view.next_line, view.head, seat)
    n_before = len(tab.writer.events)
    with pytest.raises(IllegalMove, match="old_hand_commitment"):
        tab.publish(forge_line(tab, seat, Play(1, tab.state.required_rank), forged))
    assert len(tab.writer.events) == n_before and tab.state.phase == "play"
    # a legal play, then the claim proof with a lying verdict
    mine = [c for c in range(52) if st.private["hand"] >> c & 1]
    tab.move(seat, PlayCards((mine[0],)))
    tab.move(1 - seat, Challenge())
    mask = sum(1 << (tab.state.claim[2] + 13 * s) for s in range(4))
    truth = st.private["play"] & ~mask == 0
    honest = st.prover.prove(CLAIM_ID, {"play": st.private["play"], "play_salt": st.private["playSalt"],
                                        "rank_mask": mask}, tab.match_id, view.next_line, view.head, seat)
    with pytest.raises(IllegalMove, match="verdict"):
        tab.publish(forge_line(tab, seat, ProveVerdict(not truth), honest))
    lying = dict(honest)
    lying["public"] = list(honest["public"])
    lying["public"][2] = str(int(not truth))
    with pytest.raises(InvalidProof):
        tab.publish(forge_line(tab, seat, ProveVerdict(not truth), lying))
    # a replayed proof from another turn: its context is for another line
    tab.move(seat, ProveClaim())
    replay = tab.writer.events[-1]["proofs"][0]
    assert tab.state.phase == "play"
    mover = tab.to_move
    fake = {**replay, "statement": PLAY_ID, "vk": tab.view.vks[PLAY_ID].fingerprint(), "signer": mover,
            "public": [str(tab.view.ledger.hands[mover]), "1", "1", "1", replay["public"][3]]}
    with pytest.raises(IllegalMove, match="another turn"):
        tab.publish(forge_line(tab, mover, Play(1, tab.state.required_rank), fake))


def test_sealed_hands_reach_only_their_seat(match_keys):
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys)
    deal = next(e for e in tab.writer.events if e["action"] == "deal")
    seat0, seat1 = tab.seats
    publics = dict(zip(tab.spec.deal.statement.public, map(int, deal["proofs"][0]["public"])))
    sealed = deal["data"]["sealed_hands"]
    got = tab.spec.deal.seat_open(seat0.deal_secrets, 0, tab.match_id, deal["n"], sealed[0], publics)
    assert got == (seat0.private["hand"], seat0.private["salt"])
    assert str(seat0.private["hand"]) not in json.dumps(deal)  # the hand is not in the clear
    with pytest.raises(CommitmentMismatch):  # seat 1's box sent to seat 0
        tab.spec.deal.seat_open(seat0.deal_secrets, 0, tab.match_id, deal["n"], sealed[1], publics)
    with pytest.raises((CommitmentMismatch, IllegalMove)):  # seat 1 cannot open seat 0's box
        tab.spec.deal.seat_open(seat1.deal_secrets, 0, tab.match_id, deal["n"], sealed[0], publics)


def test_timeouts_with_an_injected_clock(match_keys):
    clock = Clock()
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys, clock=clock,
                     limits=TimeLimits(proof=30, idle=120))
    seat = tab.to_move
    assert tab.poll() is None
    mine = [c for c in range(52) if tab.seats[seat].private["hand"] >> c & 1]
    tab.move(seat, PlayCards((mine[0],)))
    tab.move(1 - seat, Challenge())
    clock.t += 29
    assert tab.poll() is None
    clock.t += 2
    ev = tab.poll()
    assert ev["action"] == "timeout" and ev["data"] == {"seat": seat, "limit": "proof"} and ev["seat"] is None
    assert ev["clock"]["deadline"] == tab.writer.events[-2]["at"] + 30 and ev["at"] > ev["clock"]["deadline"]
    assert ev["clock"]["lastSigned"][0] == tab.writer.events[-3]["n"]  # its play, before the challenge
    assert tab.state.scores[1 - seat] == 3  # treated as caught
    clock.t += 121
    ev = tab.poll()
    assert ev["data"]["limit"] == "idle" and tab.over and tab.state.winner == seat
    assert tab.writer.events[-1]["action"] == "end"  # nothing is revealed after the match


def test_resume_from_transcript(match_keys, tmp_path):
    path = tmp_path / "r.jsonl"
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    agents = bots(CLASSIC, 1, 2)
    for _ in range(6):
        seat = tab.to_move
        tab.move(seat, agents[seat].act(tab.observation(seat)))
    snapshot = path.read_text()
    again = resume_match(path, key_folder=match_keys)
    assert path.read_text() == snapshot
    assert again.state.scores == tab.state.scores and again.to_move == tab.to_move
    assert hands(again) == hands(tab)
    assert [s.public_key for s in again.seats] == [s.public_key for s in tab.seats]
    run_match(again, agents)
    assert verify_transcript(path)["complete"]
    p2 = tmp_path / "copy.jsonl"
    p2.write_text(snapshot)
    with pytest.raises(MalformedInput, match="secrets"):
        resume_match(p2, key_folder=match_keys)


def test_an_existing_transcript_is_never_overwritten(match_keys, tmp_path):
    path = tmp_path / "keep.jsonl"
    open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    before = path.read_text()
    with pytest.raises(MalformedInput, match="already holds a match"):
        open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, transcript=path, key_folder=match_keys)
    assert path.read_text() == before
    res = CliRunner().invoke(main, ["play", "--out", str(path)], input="1\n")
    assert res.exit_code == 2 and path.read_text() == before


def test_out_of_turn_and_bad_moves_lose_nothing(match_keys):
    tab = open_match(FIVE_UP, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys)
    n = len(tab.writer.events)
    with pytest.raises(IllegalMove):
        tab.move(1 - tab.to_move, Claim(()))
    with pytest.raises(IllegalMove):
        tab.move(tab.to_move, Accept())
    with pytest.raises(MalformedInput, match="not a move"):
        tab.move(tab.to_move, ("dance",))
    assert len(tab.writer.events) == n


@pytest.mark.parametrize("args, game", [([], CLASSIC), (["five-up-two-down", "--deal", "dealer"], FIVE_UP)])
def test_demo_command(match_keys, tmp_path, monkeypatch, args, game):
    res = CliRunner().invoke(main, ["demo", *args, "--out", str(tmp_path / "d.jsonl"), "--mode", "casual"])
    assert res.exit_code == 0, res.output
    assert "transcript verified offline" in res.output and "prove" in res.output
    report = verify_transcript(tmp_path / "d.jsonl")
    assert report["complete"] and report["game"] == game
    bad = CliRunner().invoke(main, ["demo", *args, "--out", str(tmp_path / "e.jsonl"), "--mode", "turbo"])
    assert bad.exit_code == 2 and "turbo" in bad.output


def test_play_command_five_up_scripted(match_keys, tmp_path, monkeypatch):
    out = tmp_path / "f.jsonl"
    script = "Z\n" + "none\na\nc\n" * 80
    res = CliRunner().invoke(main, ["play", "--table", "five-up", "--mode", "casual", "--deal", "dealer", "--seed", "4",
                                    "--out", str(out)],
                             input=script)
    assert res.exit_code in (0, 2), res.output
    assert "Board:" in res.output and "not allowed" in res.output
    assert verify_transcript(out)["game"] == FIVE_UP


def test_play_command_scripted(match_keys, tmp_path, monkeypatch):
    out = tmp_path / "p.jsonl"
    script = "x\n1 1\n9 9\n" + "1\na\n" * 60
    res = CliRunner().invoke(main, ["play", "--mode", "casual", "--seed", "3", "--out", str(out)], input=script)
    assert res.exit_code in (0, 2), res.output
    assert "not allowed" in res.output and "picked twice" in res.output  # re-prompted with a reason
    verify_transcript(out)
    if res.exit_code == 2:  # the scripted input ran out (EOF): stopped, resumable
        resumed = CliRunner().invoke(main, ["play", "--resume", str(out)], input="1\na\n" * 60)
        assert resumed.exit_code in (0, 2)
        verify_transcript(out)
