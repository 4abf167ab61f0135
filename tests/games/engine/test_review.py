"""The review and replay of every game (games/engine/review.py, `zkbluff review`): the
narration from the viewer's seat, its own hand replayed from its secrets file after every
line that changed it, and what each proof disclosed; a transcript that does not verify,
or another seat's or match's secrets, is refused before anything is shown."""
from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from repo_root import REPO_ROOT
from zkbluff.cli import main
from zkbluff.errors import MalformedInput, TranscriptError
from zkbluff.games.engine.narration import narration
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.review import build_review, disclosed, load_secrets
from zkbluff.games.engine.table import open_match, secrets_path

VECTORS = sorted((REPO_ROOT / "vectors" / "transcripts").glob("*.jsonl"))


def _play(path, game, options, moves, seed=3):
    """``moves`` lines of a bots' match (every party in this process, real proofs)."""
    from zkbluff.cli.common import seeded_randomness

    now = [0.0]
    with seeded_randomness(seed):
        tab = open_match(game, options, ["you", "house"], transcript=path, clock=lambda: now[0])
        bots = [tab.spec.house_bot(seed + i) for i in range(tab.spec.n_seats)]
        rng = random.Random(seed)
        while not tab.over and len(tab.writer.events) < moves:
            seat = tab.to_move
            if seat is None:
                seats = [s for s in range(tab.spec.n_seats)]
                rng.shuffle(seats)
                for s in seats:
                    intent = bots[s].act(tab.observation(s)) if tab.rules.legal_actions(s) else None
                    if intent is not None:
                        tab.move(s, intent)
                        break
                else:
                    now[0] = max(now[0], tab.referee.deadline + 1.0)
                    tab.poll()
            else:
                now[0] = max(now[0], tab.view.paused_until)
                tab.move(seat, bots[seat].act(tab.observation(seat)))
    return tab


@pytest.fixture(scope="module")
def pob(tmp_path_factory):
    path = tmp_path_factory.mktemp("review") / "pob.jsonl"
    tab = _play(path, "proof-or-bluff", {"mode": "casual", "deal": "dealer"}, 12)
    return path, tab


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_the_review_is_the_narration_with_the_seats_own_hand_and_each_proofs_disclosure(pob):
    path, tab = pob
    review = build_review(path, 0, load_secrets(secrets_path(path, "seat0")))
    lines = _lines(path)
    spec = spec_for(lines[0]["data"]["game"], lines[0]["data"]["options"])
    assert [s.said for s in review.steps] == narration(spec, lines, viewer=0)  # the words every screen printed
    hands = [s for s in review.steps if s.hand]
    assert hands and hands[0].hand.startswith("your hand: ")
    own_plays = [s for s in review.steps if s.action == "play" and s.seat == 0]
    assert own_plays and all(s.hand for s in own_plays)  # the hand after each own play: one card fewer or more
    for step in own_plays:
        before = [s.hand for s in review.steps if s.hand and s.n < step.n][-1]
        assert len(step.hand.split()) < len(before.split()), (before, step.hand)
    # the replayed seat ends where the seat's own file says it is
    assert tab.seats[0].private["hand"] == _replayed_private(path)["hand"]
    for step, line in zip(review.steps, lines):
        assert len(step.disclosed) == len(line.get("proofs") or [])
        assert all(":" in d and "public " not in d for d in step.disclosed), step.disclosed
    text = review.text()
    assert "your hand: " in text and "proof: card.play.v1 by you: " in text
    assert "verified: " in text.splitlines()[1]


def _replayed_private(path):
    from zkbluff.games.engine.parties import Seat

    lines = _lines(path)
    spec = spec_for(lines[0]["data"]["game"], lines[0]["data"]["options"])
    seat = Seat.replay(spec, load_secrets(secrets_path(path, "seat0")))
    for line in lines:
        seat.follow_again(line)
    return seat.private


def test_a_spectators_review_shows_no_hand(pob):
    path, _ = pob
    review = build_review(path)
    assert review.viewer is None and not any(s.hand for s in review.steps)
    assert "as a spectator" in review.text()


def test_another_seats_or_matchs_secrets_are_refused(pob, tmp_path):
    path, _ = pob
    with pytest.raises(MalformedInput, match="seat 1's, not seat 0's"):
        build_review(path, 0, load_secrets(secrets_path(path, "seat1")))
    other = json.loads(secrets_path(path, "seat0").read_text())
    other["key"] = json.loads(secrets_path(path, "seat1").read_text())["key"]  # seat 0's file, another key
    with pytest.raises(MalformedInput, match="another match"):
        build_review(path, 0, other)
    (tmp_path / "x.json").write_text("[1]")
    with pytest.raises(MalformedInput, match="not a seat's secrets file"):
        load_secrets(tmp_path / "x.json")


def test_a_transcript_that_does_not_verify_is_not_reviewed(pob, tmp_path):
    path, _ = pob
    lines = path.read_text().splitlines()
    bad = json.loads(lines[8])
    bad["data"] = {**bad["data"], "forged": 1}
    (tmp_path / "bad.jsonl").write_text("\n".join(lines[:8] + [json.dumps(bad)] + lines[9:]) + "\n")
    with pytest.raises(TranscriptError):
        build_review(tmp_path / "bad.jsonl")


def test_a_secrets_file_without_its_own_moves_says_so(pob):
    path, _ = pob
    old = load_secrets(secrets_path(path, "seat0"))
    old.pop("ownUpdates")
    review = build_review(path, 0, old)
    assert any("shown as dealt" in n for n in review.notes)


def test_zkbluff_review_reads_the_seat_file_beside_the_transcript(pob):
    path, _ = pob
    res = CliRunner().invoke(main, ["review", str(path), "--plain"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("Review of Proof or Bluff") and "as you (seat 0)" in res.output
    assert "your hand: " in res.output and "proof: " in res.output
    quiet = CliRunner().invoke(main, ["review", str(path), "--plain", "--no-proofs"])
    assert quiet.exit_code == 0 and "proof: " not in quiet.output
    res = CliRunner().invoke(main, ["review", str(path), "--seat", "5"])
    assert res.exit_code == 2 and "seats 0..1" in res.output


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_every_proof_in_every_vector_is_said_in_words(path):
    lines = _lines(path)
    names = lines[0]["data"]["seats"]
    for line in lines:
        for proof in line.get("proofs") or []:
            words = disclosed(proof, names)
            assert ": " in words and "public " not in words, (line["n"], words)  # not the generic fallback


@pytest.mark.parametrize("game,options,moves", [("bluffers", {"players": "2"}, 14),
                                                ("mind-bluff", None, 14)])
def test_the_replayed_seat_ends_where_its_own_file_says(tmp_path, game, options, moves):
    """The replay starts from the seat's first private state (Bluffers' revolver seed is
    drawn before the match) and applies its own moves' updates: every seat ends in the state
    its secrets file saved."""
    from zkbluff.games.engine.parties import Seat

    path = tmp_path / "m.jsonl"
    tab = _play(path, game, options, moves)
    lines = _lines(path)
    for s in range(tab.spec.n_seats):
        data = load_secrets(secrets_path(path, f"seat{s}"))
        seat = Seat.replay(tab.spec, data)
        for line in lines:
            seat.follow_again(line)
        assert json.loads(json.dumps(seat.private)) == data["private"], (game, s)
        plain = Seat.replay(tab.spec, {k: v for k, v in data.items() if k != "firstPrivate"})
        if game == "bluffers":  # without the first state: a fresh seed, not the one it committed
            assert plain.private["seed"] != data["private"]["seed"]


def test_a_networked_clients_seat_file_is_read_as_its_secrets(pob, tmp_path):
    """`zkbluff join` keeps its seat under tables/<CODE>/seat.json, the seat's export in it."""
    path, _ = pob
    seat = json.loads(secrets_path(path, "seat0").read_text())
    (tmp_path / "seat.json").write_text(json.dumps({"matchId": "x", "line": 3, "seat": seat}))
    review = build_review(path, None, load_secrets(tmp_path / "seat.json"))
    assert review.viewer == 0 and any(s.hand for s in review.steps)
