"""Mind Bluff on the match engine, with real Groth16 proofs: the referee party holds the
count and proves every verdict; each seat's own client and the offline verifier refuse a
false "survived", a false All-done result, a false TRUE/BLUFF, a claim that breaks a
debt and a rewritten line; game 3's start stays out of the transcript until game 3 ends."""
from __future__ import annotations

import json

import pytest

from zkbluff.errors import (
    CommitmentMismatch, IllegalMove, InvalidProof, MalformedInput, TranscriptError, UnsatisfiedConstraint,
)
from zkbluff.games.engine.parties import Seat
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff.bot import Move
from zkbluff.games.mind_bluff.referee import CHOICE, DRAW, RefereeSecrets, open_choice
from zkbluff.games.mind_bluff.rules import (
    AllDone, Believe, Claim, Doubt, Eat, EndReason, Phase, RevealEntropy,
)
from zkbluff.games.mind_bluff.spec import MindBluffSpec
from zkbluff.protocol.commit_reveal import commit_entropy
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical
from zkbluff.statements.values import start_draw_native
from pause_clock import SkipClock, play

NAMES = ["Aiko", "Ben"]


def table(tmp_path, keys, name="mb", humans="none"):
    """A table on a clock that each move (:func:`play`) moves past the rules' pauses."""
    return open_match("mind-bluff", {"humans": humans}, NAMES, transcript=tmp_path / f"{name}.jsonl",
                      key_folder=keys, clock=SkipClock())


def eat(tab, seat, choice, claim=None, respond=None):
    play(tab, seat, Move(Eat(), choice))
    if tab.rules.phase == Phase.CLAIM:
        play(tab, seat, Move(Claim(choice if claim is None else claim, False)))
        if respond is not None:
            play(tab, 1 - seat, Move(respond))


def lines(tab):
    return [json.loads(json.dumps(e)) for e in tab.writer.events]


def last(events, action):
    return max(i for i, e in enumerate(events) if e["action"] == action)


def forge(events, i, change, key):
    """Line ``i`` changed and re-signed with ``key`` (the prefix before it unchanged)."""
    e = json.loads(json.dumps(events[i]))
    change(e)
    e.pop("received", None)  # the line as changed was never the referee's to receive
    return events[:i] + [sign_line(key, e)]


def write(tmp_path, events, name="forged.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(canonical(e) for e in events) + "\n")
    return p


def seat_client(tab, seat):
    """A seat's own client (its secrets restored), following the lines it is sent."""
    return Seat.restore(tab.spec, json.loads(json.dumps(tab.seats[seat].export())))


def refused_everywhere(tmp_path, tab, forged, error, match):
    """The forged last line: refused by a seat's own client and by the offline verifier;
    the honest prefix verifies (the twin)."""
    verify_transcript(write(tmp_path, forged[:-1], "prefix.jsonl"))
    client = seat_client(tab, 1)
    for e in forged[:-1]:
        client.receive(e, restoring=True)
    with pytest.raises(error, match=match):
        client.receive(forged[-1], restoring=True)
    with pytest.raises(TranscriptError, match=match):
        verify_transcript(write(tmp_path, forged))


# ---------------------------------------------------------------- scripted games

@pytest.fixture(scope="module")
def ate_last(tmp_path_factory, match_keys):
    """Game 1: both eat 3 each turn (claims believed, one doubted BLUFF) until P2 eats the last."""
    tab = table(tmp_path_factory.mktemp("ate"), match_keys)
    eat(tab, 0, 3, respond=Believe())
    eat(tab, 1, 3, claim=1, respond=Doubt())          # BLUFF: P2 owes an honest claim
    seat = 0
    while tab.rules.phase != Phase.REVEAL and not tab.rules.games:
        eat(tab, seat, 3, respond=Believe())
        seat = 1 - seat
    return tab


@pytest.fixture(scope="module")
def all_done(tmp_path_factory, match_keys):
    """Game 1: P1 calls All done at once (30 left: P1 loses)."""
    tab = table(tmp_path_factory.mktemp("alldone"), match_keys)
    play(tab, 0, Move(AllDone()))
    return tab


def test_a_game_to_its_end_verifies_and_its_reveal_follows_the_end(ate_last, tmp_path):
    events = lines(ate_last)
    kinds = [e["action"] for e in events]
    record = ate_last.rules.games[0]
    assert record.reason == EndReason.ATE_LAST and record.winner == 0
    # the reveal comes right after the verdict that ended the game, never before it
    assert kinds.index("reveal") == kinds.index("eat_verdict", last(events, "eat")) + 1
    assert [e["data"]["ate_last"] for e in events if e["action"] == "eat_verdict"][-1] is True
    report = verify_transcript(ate_last.writer.path)
    assert report["proofs"] == sum(len(e.get("proofs", [])) for e in events) and not report["over"]
    review = json.loads(events[kinds.index("reveal")]["data"]["review"])
    assert review["start"] == 30 and review["turns"][-1]["ate_last"] is True
    assert review["turns"][1]["verdict"] == "BLUFF" and review["turns"][1]["choice"] == 3
    # every eat carries the seat's range proof, every verdict the referee's proof
    for e in events:
        if e["action"] in ("eat", "eat_verdict", "start_game"):
            assert len(e["proofs"]) == 1
        if e["action"] in ("believe", "doubt", "reveal"):
            assert "proofs" not in e


def test_a_false_survived_is_refused_by_the_seat_and_the_verifier(ate_last, tmp_path):
    events = lines(ate_last)
    i = last(events, "eat_verdict")  # the eat that took the last dango
    key = ate_last.referee.key
    # the referee says "survived" with its honest proof: the proof's ate_last is not the line's
    forged = forge(events, i, lambda e: e["data"].update(ate_last=False), key)
    refused_everywhere(tmp_path, ate_last, forged, IllegalMove, "ate_last")

    # ... and with the proof's public input edited to match: the proof does not verify
    def both(e):
        e["data"]["ate_last"] = False
        e["proofs"][0]["public"][3] = "0"
    forged = forge(events, i, both, key)
    client = seat_client(ate_last, 0)
    for e in forged[:-1]:
        client.receive(e, restoring=True)
    with pytest.raises(InvalidProof):
        client.receive(forged[-1], restoring=True)
    with pytest.raises(TranscriptError, match="does not verify"):
        verify_transcript(write(tmp_path, forged))


def test_a_false_ate_the_last_is_refused(ate_last, tmp_path):
    events = lines(ate_last)
    i = next(k for k, e in enumerate(events) if e["action"] == "eat_verdict")
    forged = forge(events, i, lambda e: e["data"].update(ate_last=True), ate_last.referee.key)
    refused_everywhere(tmp_path, ate_last, forged, IllegalMove, "ate_last")


def test_a_false_verdict_is_refused(ate_last, tmp_path):
    events = lines(ate_last)
    i = last(events, "doubt_verdict")
    assert events[i]["data"] == {"truthful": False}
    forged = forge(events, i, lambda e: e["data"].update(truthful=True), ate_last.referee.key)
    refused_everywhere(tmp_path, ate_last, forged, IllegalMove, "verdict")


def test_a_false_all_done_result_is_refused(all_done, tmp_path):
    events = lines(all_done)
    i = last(events, "all_done_verdict")
    assert events[i]["data"] == {"exactly_one": False} and all_done.rules.games[0].winner == 1
    forged = forge(events, i, lambda e: e["data"].update(exactly_one=True), all_done.referee.key)
    refused_everywhere(tmp_path, all_done, forged, IllegalMove, "equal")


def test_a_lying_referee_is_refused_by_the_table_before_anything_is_written(tmp_path, match_keys):
    """A referee whose own move is a false verdict: its prover proves the truth, so the
    line's verdict and its proof disagree and the table refuses it; nothing is written."""

    class LyingSpec(MindBluffSpec):
        def referee_move(self, referee, rules, ledger, match_id, line):
            move = super().referee_move(referee, rules, ledger, match_id, line)
            if move is not None and move.action.kind == "all_done_verdict":
                return type(move)(type(move.action)(not move.action.exactly_one), move.proofs)
            return move

    tab = table(tmp_path, match_keys)
    tab.referee.spec = LyingSpec({"humans": "none"})
    n = len(tab.writer.events)
    with pytest.raises(IllegalMove, match="equal"):
        play(tab, 0, Move(AllDone()))
    assert len(tab.writer.events) == n + 1 and tab.writer.events[-1]["action"] == "all_done"


def test_a_claim_that_breaks_a_debt_is_refused(tmp_path, match_keys):
    tab = table(tmp_path, match_keys)
    eat(tab, 0, 2, claim=3, respond=Doubt())                 # BLUFF: P1 owes one honest claim
    eat(tab, 1, 1, respond=Believe())
    play(tab, 0, Move(Eat(), 2))
    n, state = len(tab.writer.events), tab.rules.public_state()
    assert state.debts == (1, 0)
    with pytest.raises(IllegalMove, match="claim what you ate"):
        play(tab, 0, Move(Claim(3, True)))                     # the seat's client refuses to try
    unproven = sign_line(tab.seats[0].key, {"n": tab.view.next_line, "prev": tab.view.head, "seat": 0,
                                            "action": "claim", "data": {"amount": 3, "proven_equal": False},
                                            "at": tab.referee.clock()})
    with pytest.raises(IllegalMove, match="owes 1 honest"):    # an unproven claim in debt: the table refuses
        tab.publish(unproven)
    assert len(tab.writer.events) == n and tab.rules.public_state() == state
    # the prover cannot prove the lie (the constraints refuse it, not a check before them)
    opening = tab.seats[0].private["opening"]
    with pytest.raises(UnsatisfiedConstraint, match="verdict"):
        tab.seats[0].prover.prove(CHOICE, {"choice": opening["choice"], "choice_salt": int(opening["salt"]),
                                           "claim": 3, "verdict": 1}, tab.match_id, 99, "00" * 32, 0)
    play(tab, 0, Move(Claim(2, True)))                         # the honest claim, proven: pays the debt
    events = lines(tab)
    assert events[-1]["data"] == {"amount": 2, "proven_equal": True} and tab.rules.debts == [0, 0]
    # the same line rewritten to claim 3 and re-signed by the seat itself: refused
    forged = forge(events, len(events) - 1, lambda e: e["data"].update(amount=3), tab.seats[0].key)
    refused_everywhere(tmp_path, tab, forged, IllegalMove, "claim")


def test_a_rewritten_line_is_refused(ate_last, tmp_path):
    events = lines(ate_last)
    i = next(k for k, e in enumerate(events) if e["action"] == "claim")
    changed = json.loads(json.dumps(events))
    changed[i]["data"]["amount"] = 1 + changed[i]["data"]["amount"] % 3      # not re-signed
    with pytest.raises(TranscriptError):
        verify_transcript(write(tmp_path, changed))
    dropped = events[:i] + events[i + 1:]                                    # a line removed
    with pytest.raises(TranscriptError):
        verify_transcript(write(tmp_path, dropped))
    with pytest.raises(TranscriptError, match="seat"):                        # the referee signing for a seat
        verify_transcript(write(tmp_path, forge(events, i, lambda e: None, ate_last.referee.key)))


def test_the_choice_reaches_the_referee_sealed(ate_last, tmp_path):
    events = lines(ate_last)
    first = next(e for e in events if e["action"] == "eat")
    secrets = RefereeSecrets.from_json(ate_last.referee.private)
    opening = open_choice(secrets.channel_key, ate_last.match_id, 0, 1, 1, first["data"]["sealed"])
    assert opening.choice == 3
    assert str(opening.salt) not in canonical(first)                  # only the referee can open it
    with pytest.raises(CommitmentMismatch):                           # bound to its seat, game and turn
        open_choice(secrets.channel_key, ate_last.match_id, 1, 1, 1, first["data"]["sealed"])
    with pytest.raises(CommitmentMismatch):
        open_choice(secrets.channel_key, ate_last.match_id, 0, 1, 2, first["data"]["sealed"])
    with pytest.raises(CommitmentMismatch):                           # another key (a seat's guess)
        open_choice(RefereeSecrets.fresh().channel_key, ate_last.match_id, 0, 1, 1, first["data"]["sealed"])
    # an eat without its sealed choice is refused
    i = next(k for k, e in enumerate(events) if e["action"] == "eat")
    forged = forge(events, i, lambda e: e["data"].update(sealed=""), ate_last.seats[0].key)
    with pytest.raises(MalformedInput, match="sealed"):
        verify_transcript(write(tmp_path, forged))
    # game 1's line must publish a channel key seats can seal to (not a small-order point)
    forged = forge(events, 1, lambda e: e["data"].update(channel="00" * 32), ate_last.referee.key)
    with pytest.raises(MalformedInput, match="X25519"):
        verify_transcript(write(tmp_path, forged))
    forged = forge(events, 1, lambda e: e["data"].update(draw_commitment="x"), ate_last.referee.key)
    with pytest.raises(MalformedInput, match="draw commitment"):
        verify_transcript(write(tmp_path, forged))


# ---------------------------------------------------------------- a short series to game 3

@pytest.fixture(scope="module")
def to_game_three(tmp_path_factory, match_keys):
    """P1 calls All done at once in game 1 (loses), P2 in game 2 (loses): 1-1; game 3 is drawn."""
    tab = table(tmp_path_factory.mktemp("g3"), match_keys)
    play(tab, 0, Move(AllDone()))
    play(tab, 1, Move(AllDone()))
    assert tab.rules.phase == Phase.DRAW
    for _ in range(2):
        play(tab, tab.to_move, Move(RevealEntropy("")))
    before = lines(tab)
    first = tab.to_move
    eat(tab, first, 1, respond=Believe())
    play(tab, 1 - first, Move(AllDone()))
    return tab, before


def test_game_three_start_is_the_fair_draw_and_invisible_until_it_ends(to_game_three, tmp_path):
    tab, before = to_game_three
    events = lines(tab)
    assert tab.over and len(tab.rules.games) == 3 and events[-1]["action"] == "end"
    report = verify_transcript(tab.writer.path)
    assert report["complete"] and report["winner"] == tab.rules.series_winner
    secrets = RefereeSecrets.from_json(tab.referee.private)
    revealed = [e for e in events if e["action"] == "reveal_entropy"]
    assert [e["seat"] for e in revealed] == [0, 1]
    header = events[0]["data"]["deal"]["entropyCommitments"]
    assert [commit_entropy(e["data"]["entropy"]) for e in revealed] == header
    fields = tab.view.ledger.seat_entropy_fields()
    start, coin = start_draw_native(secrets.entropy, fields)
    start_line = next(e for e in events if e["action"] == "start_game" and e["data"]["game"] == 3)
    assert start_line["data"]["first"] == coin and start_line["proofs"][0]["statement"] == DRAW
    assert set(start_line["data"]) == {"game", "first", "draw_commitment", "channel"}
    # nothing before game 3's end carries the start's salt or the referee's entropy
    start_salt, g3 = str(secrets.count_salt(3, 0)), tab.rules.games[2]
    text_before = "\n".join(canonical(e) for e in before)
    reveal3 = next(e for e in events if e["action"] == "reveal" and e["data"]["game"] == 3)
    upto_end = "\n".join(canonical(e) for e in events[:events.index(reveal3)])
    for secret in (start_salt, str(secrets.entropy), str(secrets.entropy_salt)):
        assert secret not in text_before and secret not in upto_end
        assert secret in canonical(reveal3)                     # the reveal after the end opens them
    assert reveal3["data"]["start"] == start and g3.game == 3
    assert all(e.start is None for e in g3.events[:-1])        # the public events never showed it
    # the twin: the reveal's start is checked against the proof's commitment
    i = events.index(reveal3)
    other_start = next(s for s in (29, 30, 31) if s != start)
    forged = forge(events, i, lambda e: e["data"].update(start=other_start), tab.referee.key)
    with pytest.raises(TranscriptError, match="start"):
        verify_transcript(write(tmp_path, forged))


def test_a_seat_entropy_that_does_not_open_its_commitment_is_refused(to_game_three, tmp_path):
    tab, _ = to_game_three
    events = lines(tab)
    i = next(k for k, e in enumerate(events) if e["action"] == "reveal_entropy")
    forged = forge(events, i, lambda e: e["data"].update(entropy="00" * 32), tab.seats[0].key)
    refused_everywhere(tmp_path, tab, forged, CommitmentMismatch, "commitment")


def test_a_draw_the_referee_chose_is_refused(to_game_three, tmp_path):
    """The coin on game 3's line must be the draw's: another coin is refused."""
    tab, _ = to_game_three
    events = lines(tab)
    i = next(k for k, e in enumerate(events) if e["action"] == "start_game" and e["data"]["game"] == 3)
    forged = forge(events, i, lambda e: e["data"].update(first=1 - e["data"]["first"]), tab.referee.key)
    refused_everywhere(tmp_path, tab, forged, IllegalMove, "coin")


def test_a_reveal_that_contradicts_a_verdict_is_refused(to_game_three, tmp_path):
    tab, _ = to_game_three
    events = lines(tab)
    i = next(k for k, e in enumerate(events) if e["action"] == "reveal" and e["data"]["game"] == 3)
    forged = forge(events, i, lambda e: e["data"].update(choices=[2]), tab.referee.key)
    with pytest.raises(TranscriptError, match="commitment"):
        verify_transcript(write(tmp_path, forged))

    def review(e):
        r = json.loads(e["data"]["review"])
        r["turns"][0]["choice"] = 3
        e["data"]["review"] = json.dumps(r)
    with pytest.raises(TranscriptError, match="review"):
        verify_transcript(write(tmp_path, forge(events, i, review, tab.referee.key)))


# ---------------------------------------------------------------- consent and whole series

def test_the_next_game_waits_for_the_human_seat_only(tmp_path, match_keys):
    tab = table(tmp_path, match_keys, humans="P2")
    play(tab, 0, Move(AllDone()))
    assert tab.rules.phase == Phase.NEXT_GAME and tab.to_move == 1
    events = lines(tab)
    assert events[-1]["action"] == "reveal"                    # the review came first
    with pytest.raises(IllegalMove, match="bot"):
        tab.seats[0].move(Move(tab.rules.legal_actions(1)[0]))
    play(tab, 1, tab.spec.house_bot(1).act(tab.observation(1)))   # consent
    assert tab.rules.game == 2 and lines(tab)[-2]["action"] == "consent"


@pytest.mark.slow
def test_a_whole_series_of_house_bots_with_real_proofs(tmp_path, match_keys):
    from zkbluff.games.mind_bluff.arena import play_series
    from zkbluff.games.mind_bluff.bot import HouseBot

    # bots decide from public events and their own choices only: the pure-rules arena finds seeds reaching 1-1
    seed = next(i for i in range(50) if len(play_series([HouseBot(i), HouseBot(i + 10)], seed=i).rules.games) == 3)
    tab = table(tmp_path, match_keys, humans="both")
    bots = [HouseBot(seed), HouseBot(seed + 10)]
    while not tab.over:
        s = tab.to_move
        play(tab, s, bots[s].act(tab.observation(s)))
    report = verify_transcript(tab.writer.path)
    assert report["complete"] and len(tab.rules.games) == 3
    reviews = [json.loads(e["data"]["review"]) for e in lines(tab) if e["action"] == "reveal"]
    assert [r["start"] for r in reviews][:2] == [30, 30] and reviews[2]["start"] in (29, 30, 31)
    assert [r["winner"] for r in reviews] == [g.winner for g in tab.rules.games]
    assert sum(e["action"] == "consent" for e in lines(tab)) == 4
    for seat in tab.seats:                                     # each seat's own view agrees with the table
        assert seat.view.head == tab.view.head


def test_the_series_review_json_comes_from_the_verified_transcript(to_game_three, tmp_path):
    from zkbluff.games.mind_bluff.spec import series_review

    tab, _ = to_game_three
    doc = series_review(tab.writer.path)
    assert doc["players"] == NAMES and doc["complete"] and len(doc["games"]) == 3
    assert [g["review"]["winner"] for g in doc["games"]] == [g.winner for g in tab.rules.games]
    assert doc["games"][2]["reveal"]["refereeEntropy"] == str(RefereeSecrets.from_json(tab.referee.private).entropy)
    json.dumps(doc)
    events = lines(tab)
    i = next(k for k, e in enumerate(events) if e["action"] == "reveal")   # the twin: a forged reveal
    with pytest.raises(TranscriptError):
        series_review(write(tmp_path, forge(events, i, lambda e: e["data"].update(start=31), tab.referee.key)))


def test_the_ledger_starts_from_each_matchs_own_header():
    """One spec object, two headers: each ledger holds its own header's draw commitments (the
    engine hands the checked header to ``new_ledger``; nothing is left on the spec)."""
    spec = MindBluffSpec()
    first, second = [commit_entropy(f"{i:064x}") for i in (1, 2)], [commit_entropy(f"{i:064x}") for i in (3, 4)]
    a = spec.new_ledger({"deal": spec.deal.header({}, [{"entropy": c} for c in first])})
    b = spec.new_ledger({"deal": spec.deal.header({}, [{"entropy": c} for c in second])})
    assert a.seat_entropies == tuple(first) and b.seat_entropies == tuple(second)
    scheme = spec.deal.header({}, [])["scheme"]
    for bad in ({"scheme": "other", "entropyCommitments": first}, {"scheme": scheme, "entropyCommitments": first[:1]},
                {"scheme": scheme, "entropyCommitments": ["AB" * 32, first[1]]}):
        with pytest.raises(MalformedInput):
            spec.new_ledger({"deal": bad})
