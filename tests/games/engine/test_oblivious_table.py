"""Issue 16 on the match engine: the oblivious deal at both Proof or Bluff tables
(``--deal oblivious``), its lines signed and checked by the referee, offline by
``transcript verify``, with real proofs under the pinned keys. The house cheating first:
each test is named after the attack it defeats."""
import json

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import (
    CommitmentMismatch, DealerAtFault, EarlyTimeout, IllegalMove, InvalidProof, MalformedInput, OutOfOrder,
    TranscriptError, UnfoundedComplaint,
)
from zkbluff.gadgets.native import commit
from zkbluff.games.engine import oblivious_deal as eng
from zkbluff.games.engine.oblivious_deal import COMMIT, CHOOSE, COMPLAINT, HAND, TIMEOUT, TRANSFER
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat, TimeLimits
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.table import Table, _saver, open_match, resume_match, secrets_path
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.registry import spec_class, spec_for
from zkbluff.protocol import oblivious_deal as od
from zkbluff.protocol import ot
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import TranscriptWriter, canonical, line_hash

CLASSIC, FIVE_UP = "proof-or-bluff", "five-up-two-down"
EXCHANGE = [COMMIT, CHOOSE, TRANSFER, HAND, "deal"]


def oblivious(game=CLASSIC, mode="casual"):
    return {"mode": mode, "deal": "oblivious"}


def table(tmp_path, game=CLASSIC, mode="casual", name="m.jsonl", **kw):
    return open_match(game, oblivious(game, mode), transcript=tmp_path / name, **kw)


def kinds(tab):
    return [e["action"] for e in tab.writer.events]


def run(tab, seed=1, moves=None):
    cls = spec_class(tab.spec.game)
    agents = [cls.house_bot(seed), cls.random_bot(seed + 1)]
    n = 0
    while not tab.over and (moves is None or n < moves):
        seat = tab.to_move
        tab.move(seat, agents[seat].act(tab.observation(seat)))
        n += 1


def events_of(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def extend(events, key, seat, action, data, at=None):
    """``events`` plus one line signed by ``key`` (a party forging or replaying a line)."""
    prev = line_hash(canonical(events[-1]))
    line = sign_line(key, {"n": len(events) + 1, "prev": prev, "seat": seat, "action": action, "data": data,
                           "at": events[-1]["at"] if at is None else at})
    return events + [line]


def write(tmp_path, events, name="forged.jsonl"):
    p = tmp_path / name
    p.write_text("".join(canonical(e) + "\n" for e in events))
    return p


def referee_after(events):
    """A live referee that has accepted ``events``."""
    ref = Referee(events[0])
    for e in events[1:]:
        ref.apply(e)
    return ref


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """A classic casual (5+5) table right after its first oblivious deal."""
    path = tmp_path_factory.mktemp("dealt") / "m.jsonl"
    tab = open_match(CLASSIC, oblivious(), transcript=path)
    return tab, path


# ---------------------------------------------------------------- honest runs at both tables

def test_an_honest_classic_match_is_dealt_by_the_seats_and_verifies_offline(tmp_path):
    tab = table(tmp_path, mode="standard")
    path = tmp_path / "m.jsonl"
    assert kinds(tab)[1:6] == EXCHANGE
    assert [e["seat"] for e in tab.writer.events[1:6]] == [1, 0, 1, 0, None]  # the house deals nothing
    assert tab.header["deal"]["scheme"] == "oblivious-deal.v1" and tab.header["trust"].startswith("oblivious deal")
    assert tab.header["options"] == {"mode": "standard", "deal": "oblivious"}
    assert "proofs" not in tab.writer.events[5]  # the deal line proves nothing: the exchange did
    hands = [s.private["hand"] for s in tab.seats]
    assert [bin(h).count("1") for h in hands] == [7, 7] and hands[0] & hands[1] == 0
    for s in tab.seats:  # each seat holds the hand the table committed for it
        assert commit(s.private["hand"], s.private["salt"]) == tab.view.ledger.hands[s.seat]
    assert tab.state.required_rank == tab.spec.deal.starting_draw(tab.view.ledger, 13)
    run(tab)
    report = verify_transcript(path)
    assert report["complete"] and report["scores"] == list(tab.state.scores)
    exchanges = kinds(tab).count(HAND)
    assert report["proofs"] == 3 * exchanges + sum(len(e.get("proofs", [])) for e in tab.writer.events)
    # negative twin: the same transcript with the chooser's hand commitment changed fails
    events = events_of(path)
    bad = json.loads(json.dumps(events))
    bad[4]["data"]["commitment"] = str(int(bad[4]["data"]["commitment"]) + 1)
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, bad))
    assert exc.value.line == 5


def test_an_honest_five_up_two_down_deal_has_its_board_from_public_openings(tmp_path):
    tab = table(tmp_path, FIVE_UP)
    path = tmp_path / "m.jsonl"
    assert kinds(tab)[1:6] == EXCHANGE
    transfer = tab.writer.events[3]["data"]
    board = sum(1 << o["card"] for o in transfer["board_openings"])
    assert tab.state.board == board == tab.writer.events[5]["data"]["board"] and bin(board).count("1") == 5
    hands = [s.private["hand"] for s in tab.seats]
    assert [bin(h).count("1") for h in hands] == [2, 2] and not (hands[0] & hands[1]) and not (hands[0] | hands[1]) & board
    run(tab, moves=4)
    assert verify_transcript(path)["lines"] == len(tab.writer.events)
    # negative twin: a board opening that does not open its commitment (the deck seat lying about the
    # board) is refused by the referee live and by the verifier offline
    events = events_of(path)
    ref = referee_after(events[:3])
    bad = json.loads(json.dumps(events[3]))
    o = bad["data"]["board_openings"][0]
    o["card"] = (o["card"] + 1) % 52
    bad.pop("received", None)  # a line the referee never received
    bad = sign_line(tab.seats[1].key, bad)
    with pytest.raises(CommitmentMismatch, match="board opening"):
        ref.apply(bad)
    assert ref.next_line == 4 and ref.ledger.deal.current.transfer is None  # nothing recorded
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, events[:3] + [bad]))
    assert exc.value.line == 4


@pytest.mark.slow
def test_a_whole_five_up_two_down_match_deals_every_round_obliviously(tmp_path):
    tab = table(tmp_path, FIVE_UP)
    run(tab, seed=5)
    ks = kinds(tab)
    assert ks.count("deal") == tab.state.round and ks.count(COMMIT) == ks.count(HAND) == tab.state.round
    assert verify_transcript(tmp_path / "m.jsonl")["complete"]


# ---------------------------------------------------------------- the house cheating

@pytest.mark.parametrize("cheat", ["wrong card", "not an opening", "does not decrypt"])
def test_a_deck_seat_that_sends_a_wrong_card_is_caught_by_a_complaint_any_verifier_upholds(tmp_path, monkeypatch,
                                                                                             cheat):
    encode, encrypt = od.encode_opening, ot._encrypt
    if cheat == "wrong card":  # a well-formed opening of another card, under a valid tag
        monkeypatch.setattr(od, "encode_opening", lambda c, s: encode((c + 1) % 52, s))
    elif cheat == "not an opening":
        monkeypatch.setattr(od, "encode_opening", lambda c, s: encode(c, s)[:1] + b"\xff" * 32)
    else:  # ciphertexts whose tag fails
        monkeypatch.setattr(ot, "_encrypt", lambda k, p, x: bytes([encrypt(k, p, x)[0] ^ 1]) + encrypt(k, p, x)[1:])
    tab = table(tmp_path)
    path = tmp_path / "m.jsonl"
    assert kinds(tab)[1:] == [COMMIT, CHOOSE, TRANSFER, COMPLAINT, "end"]  # nothing dealt
    assert tab.over and tab.view.result().placements == (1, 2)  # the deck seat (the house's) places last
    reveal = tab.writer.events[4]["data"]["reveal"]
    assert reveal["transfer"] == 0  # the first failing transfer, and only it, is revealed
    with pytest.raises(DealerAtFault) as exc:
        verify_transcript(path)
    assert exc.value.line == 5
    out = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert out.exit_code == 1 and "line 5" in out.output


def test_a_complaint_that_lies_about_an_honest_deck_seat_is_refused(dealt, tmp_path):
    tab, path = dealt
    events = events_of(path)[:4]  # header, commit, choose, transfer: the chooser's answer is due
    seat0 = tab.seats[0]
    chooser = tab.spec.deal.chooser_party(seat0.deal_secrets, tab.match_id, 1, seat0.prover)
    assert chooser.choose(events[1]["data"]) == events[2]["data"]  # the seat's own party, rebuilt from its seed
    honest_reveal = chooser._ot.reveal(0)
    forged_b = {**honest_reveal, "b": str(int(honest_reveal["b"]) + 1)}
    for reveal, why in [(honest_reveal, "is correct"), (forged_b, "does not open"),
                        (None, "every board opening matches")]:
        ref = referee_after(events)
        lie = extend(events, seat0.key, 0, COMPLAINT, {"round": 1, "reveal": reveal})[-1]
        with pytest.raises(UnfoundedComplaint, match=why):
            ref.apply(lie)
        assert ref.next_line == 5 and ref.ledger.deal.fault is None and not ref.over
        with pytest.raises(TranscriptError) as exc:
            verify_transcript(write(tmp_path, events + [lie]))
        assert exc.value.line == 5
    # twin: the honest answer at the same place is accepted
    referee_after(events_of(path)[:5])


def test_a_replayed_ot_message_is_refused(dealt, tmp_path):
    tab_a, path_a = dealt
    tab_b = table(tmp_path, name="b.jsonl")
    a, b = events_of(path_a), events_of(tmp_path / "b.jsonl")
    deck_b, chooser_b = tab_b.seats[1].key, tab_b.seats[0].key
    # match A's commit replayed into match B (signed anew by B's deck seat)
    ref = referee_after(b[:1])
    with pytest.raises(IllegalMove, match="replayed"):
        ref.apply(extend(b[:1], deck_b, 1, COMMIT, a[1]["data"])[-1])
    # ... with its session rewritten to B's: the permutation proof is bound to A's match
    moved = {**a[1]["data"], "session": tab_b.match_id}
    with pytest.raises(InvalidProof, match="permutation"):
        ref.apply(extend(b[:1], deck_b, 1, COMMIT, moved)[-1])
    # ... as round 2 of B: refused (round 1 is due), whatever its proof
    with pytest.raises(IllegalMove, match="replayed"):
        ref.apply(extend(b[:1], deck_b, 1, COMMIT, {**b[1]["data"], "round": 2})[-1])
    assert ref.next_line == 2 and ref.ledger.deal.current is None  # nothing recorded
    # B's own commit sent again after it was recorded: out of order (the choice is due)
    ref = referee_after(b[:2])
    with pytest.raises(OutOfOrder, match="waits for oblivious.choose"):
        ref.apply(extend(b[:2], deck_b, 1, COMMIT, b[1]["data"])[-1])
    # match A's choice replayed in B (signed anew by B's chooser)
    with pytest.raises(IllegalMove, match="replayed"):
        ref.apply(extend(b[:2], chooser_b, 0, CHOOSE, a[2]["data"])[-1])
    # A's transfer replayed in B: refused; offline too
    ref = referee_after(b[:3])
    replay = extend(b[:3], deck_b, 1, TRANSFER, a[3]["data"])
    with pytest.raises(IllegalMove, match="replayed"):
        ref.apply(replay[-1])
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, replay))
    assert exc.value.line == 4
    referee_after(b[:4])  # twin: B's own lines are accepted


def test_the_house_sees_no_hand_opening_and_no_choice(dealt, tmp_path):
    tab, path = dealt
    text = path.read_text()
    leaves = set()
    for line in text.splitlines():
        stack = [json.loads(line)]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, str) and v.isdigit():
                leaves.add(int(v))
            elif isinstance(v, int) and not isinstance(v, bool):
                leaves.add(v)
    seat0, seat1 = tab.seats
    chooser = tab.spec.deal.chooser_party(seat0.deal_secrets, tab.match_id, 1, seat0.prover)
    commit_msg, choose_msg = tab.writer.events[1]["data"], tab.writer.events[2]["data"]
    chooser.choose(commit_msg)
    chooser.open_transfer(tab.writer.events[3]["data"])
    secret_numbers = {s.private["salt"] for s in tab.seats} | {int(s.deal_secrets["hands"]["1"][1]) for s in tab.seats}
    secret_numbers |= {salt for _, _, salt in chooser.openings} | set(chooser._ot._b)
    assert all(n >= 1 << 20 for n in secret_numbers)
    assert not secret_numbers & leaves, "a hand opening or an OT secret is in the transcript"
    for s in tab.seats:
        assert s.deal_secrets["seed"] not in text
    # the chooser's positions appear nowhere the house could read them: only the deck seat's
    # and the board's positions are named
    named = set(choose_msg["dealer_positions"]) | set(choose_msg["board_positions"])
    assert not set(chooser.secret_positions) & named
    # the house's own parties hold nothing: the dealer only the match id, the referee nothing
    assert tab.dealer.state == {"matchId": tab.match_id} and tab.referee.private == {}
    assert json.loads(secrets_path(path, "dealer").read_text())["state"] == {"matchId": tab.match_id}
    # negative twin of the scan: the chooser's own secrets file does hold its hand's salt
    own = json.loads(secrets_path(path, "seat0").read_text())
    assert str(seat0.private["salt"]) in json.dumps(own)


# ---------------------------------------------------------------- the seats out of line

def test_malformed_exchange_lines_are_refused_and_nothing_is_dealt(dealt):
    tab, path = dealt
    events = events_of(path)
    seat0, seat1 = tab.seats
    ref = referee_after(events[:2])
    choose = events[2]["data"]
    off_curve = {**choose, "ot": {"B": ["00" * 63 + "05"] + choose["ot"]["B"][1:]}}
    short = {**choose, "ot": {"B": choose["ot"]["B"][:-1]}}
    extra = {**choose, "hint": 1}
    overlap = {**choose, "board_positions": choose["dealer_positions"][:0]}  # well-formed (no board at classic)
    for data, why in [(off_curve, "B\\[0\\]"), (short, "points"), (extra, "unexpected field"), ("x", "protocol message")]:
        with pytest.raises(MalformedInput, match=why):
            ref.apply(extend(events[:2], seat0.key, 0, CHOOSE, data)[-1])
    assert ref.next_line == 3 and ref.ledger.deal.current.choose is None
    ref.apply(extend(events[:2], seat0.key, 0, CHOOSE, overlap)[-1])  # twin: the well-formed choice is accepted
    # the choice is the chooser's: the deck seat may not make it, nor may a seat make the house's deal
    ref = referee_after(events[:2])
    with pytest.raises(OutOfOrder):
        ref.apply(extend(events[:2], seat1.key, 1, CHOOSE, choose)[-1])
    ref = referee_after(events[:4])  # the chooser's hand is not yet proven
    with pytest.raises(IllegalMove, match="not complete"):
        ref.apply(extend(events[:4], tab.dealer.key, None, "deal", events[5]["data"])[-1])
    ref = referee_after(events[:5])
    with pytest.raises(MalformedInput, match="no sealed hands"):
        ref.apply(extend(events[:5], tab.dealer.key, None, "deal", {**events[5]["data"], "sealed_hands": ["ab"]})[-1])
    ref.apply(events[5])  # twin


def test_a_hand_proof_of_the_other_seat_or_another_round_is_refused(dealt):
    tab, path = dealt
    events = events_of(path)
    seat0 = tab.seats[0]
    ref = referee_after(events[:4])
    deck_hand = events[3]["data"]["dealer_hand"]  # the deck seat's proof, offered as the chooser's
    with pytest.raises(InvalidProof, match="chooser's hand proof"):
        ref.apply(extend(events[:4], seat0.key, 0, HAND, {**events[4]["data"], **deck_hand})[-1])
    assert ref.ledger.deal.current.chooser_commitment is None


def test_a_seat_that_never_answers_is_timed_out_and_places_last(tmp_path):
    class Clock:
        t = 1000.0

        def __call__(self):
            return self.t

    clock = Clock()
    spec = spec_for(CLASSIC, oblivious())
    referee = RefereeParty(spec, prover=Prover(), limits=TimeLimits(deal=30.0), clock=clock)
    seats = [Seat(spec, i, f"s{i}", Prover(), clock=clock) for i in range(2)]
    seats[0].sends_deal_lines = False  # the chooser holds back its choice
    tab = Table(referee, Dealer(spec, Prover(), clock=clock), seats, TranscriptWriter(tmp_path / "t.jsonl"))
    tab.start()
    assert kinds(tab) == ["header", COMMIT] and not tab.over
    clock.t += 30.0
    assert tab.poll() is None  # not after the deadline yet
    early = extend(tab.writer.events, referee.key, None, TIMEOUT,
                   {"seat": 0, "line": CHOOSE, "since": 2, "deadline": tab.writer.events[1]["at"] + 30.0})
    with pytest.raises(EarlyTimeout):
        referee_after(tab.writer.events).apply(early[-1])
    clock.t += 0.5
    line = tab.poll()
    assert line["action"] == TIMEOUT and line["data"]["seat"] == 0 and line["data"]["line"] == CHOOSE
    assert spec.text.describe(line, ["you", "house"]) == "you sent no oblivious.choose line in time"
    assert [spec.text.describe(e, ["you", "house"]).split()[:2] for e in tab.writer.events[1:2]] == [["house", "commits"]]
    assert tab.over and tab.view.result().placements == (2, 1) and kinds(tab)[-1] == "end"
    report = verify_transcript(tmp_path / "t.jsonl")  # a timeout is no proven fraud: it verifies
    assert report["complete"] and report["result"].placements == (2, 1)


def test_a_dealer_that_deals_nothing_after_the_exchange_is_timed_out_and_at_fault(tmp_path):
    class Clock:
        t = 1000.0

        def __call__(self):
            return self.t

    class Silent(Dealer):
        def act(self):
            return None

    clock = Clock()
    spec = spec_for(CLASSIC, oblivious())
    path = tmp_path / "s.jsonl"
    tab = Table(RefereeParty(spec, prover=Prover(), limits=TimeLimits(deal=30.0), clock=clock),
                Silent(spec, Prover(), clock=clock), [Seat(spec, i, f"s{i}", Prover(), clock=clock) for i in range(2)],
                TranscriptWriter(path))
    tab.start()
    assert kinds(tab)[1:] == EXCHANGE[:4] and not tab.over  # the exchange is complete; no deal
    assert tab.poll() is None
    clock.t += 31.0
    line = tab.poll()
    assert line["action"] == TIMEOUT and line["data"]["seat"] is None and line["data"]["line"] == "deal"
    assert tab.over and tab.view.result().placements == (1, 1)
    assert spec.text.describe(line, ["ann", "house"]) == "the dealer sent no deal line in time"
    with pytest.raises(DealerAtFault) as exc:
        verify_transcript(path)
    assert exc.value.line == 6


def test_a_match_stopped_mid_exchange_resumes_from_the_seeds_with_the_same_lines(tmp_path):
    spec = spec_for(CLASSIC, oblivious())
    path = tmp_path / "r.jsonl"
    seats = [Seat(spec, i, f"s{i}", Prover()) for i in range(2)]
    seats[0].sends_deal_lines = False  # the chooser's process stops after the deck seat's commit
    tab = Table(RefereeParty(spec, prover=Prover()), Dealer(spec, Prover()), seats, TranscriptWriter(path),
                _saver(path))
    tab.start()
    assert kinds(tab) == ["header", COMMIT]
    expected = spec.deal.chooser_party(seats[0].deal_secrets, tab.match_id, 1, Prover()).choose(
        tab.writer.events[1]["data"])
    resumed = resume_match(path)  # every party from its own secrets file
    assert kinds(resumed)[1:6] == EXCHANGE
    assert resumed.writer.events[2]["data"] == expected  # the seed made the same choice again
    for s in resumed.seats:
        assert commit(s.private["hand"], s.private["salt"]) == resumed.view.ledger.hands[s.seat]
    run(resumed, moves=3)
    assert verify_transcript(path)["lines"] == len(resumed.writer.events)


# ---------------------------------------------------------------- the options

def test_the_deal_option_at_both_tables():
    for game in (CLASSIC, FIVE_UP):
        assert spec_for(game, {"deal": "oblivious"}).deal.__class__ is eng.ObliviousDeal
        assert spec_for(game, {"deal": "dealer"}).deal.__class__.__name__ == "ProvenDeal"
        assert spec_class(game).option_values["deal"] == ("oblivious", "dealer", "house-blind")
        with pytest.raises(MalformedInput, match="deal must be one of"):
            spec_for(game, {"deal": "house"})
    s = spec_for(CLASSIC, {"deal": "oblivious", "mode": "standard"})
    assert s.statements()[:2] == ["card.permutation.v1@deck=52", "card.chosen_hand.v1@deck=52,hand=7"]
    assert spec_for(FIVE_UP, {"deal": "oblivious"}).statements()[1] == "card.chosen_hand.v1@deck=52,hand=2"
    for args in (["demo", CLASSIC, "--deal", "house"], ["demo", "--deal", "house"], ["play", "--deal", "house"]):
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 2 and "deal must be one of ['oblivious', 'dealer', 'house-blind'], got 'house'" in out.output


def test_the_demo_plays_an_oblivious_match_and_verifies_it(tmp_path):
    # GAME left out: the default game, with --deal given back to its options
    out = CliRunner().invoke(main, ["demo", "--mode", "casual", "--deal", "oblivious",
                                    "--out", str(tmp_path / "d.jsonl")])
    assert out.exit_code == 0, out.output
    assert "oblivious" in out.output and "transcript verified offline" in out.output
    assert events_of(tmp_path / "d.jsonl")[1]["action"] == COMMIT


# ---------------------------------------------------------------- a seat's seeded randomness

def test_a_seed_makes_the_same_party_again_and_another_seed_does_not():
    a1, a2, b = od.DealRandom(b"a" * 32), od.DealRandom(b"a" * 32), od.DealRandom(b"b" * 32)
    xs = [a1.randbelow(2**254) for _ in range(4)]
    assert xs == [a2.randbelow(2**254) for _ in range(4)] and xs != [b.randbelow(2**254) for _ in range(4)]
    assert od.DealRandom().randbelow(2**128) != od.DealRandom().randbelow(2**128)  # no seed: the OS
    deck = list(range(52))
    od.DealRandom(b"c" * 32).shuffle(deck)
    assert sorted(deck) == list(range(52)) and deck != list(range(52))
    picked = od.DealRandom(b"d" * 32).sample(range(52), 19)
    assert len(set(picked)) == 19 and all(0 <= p < 52 for p in picked)
    with pytest.raises(ValueError):
        a1.randbelow(0)
    # the deck seat's party from its seed continues its own commit, and refuses another seed's
    spec = spec_for(FIVE_UP, oblivious(FIVE_UP))
    s1, s2 = spec.deal.seat_secrets(), spec.deal.seat_secrets()
    prover = Prover()
    first = spec.deal.deck_party(s1, "m", 1, prover)
    first._permutation_proof = "not needed here"  # the commit's other fields are what resume checks
    first.commitments = [commit(c, s) for c, s in zip(first._cards, first._salts)]
    msg = {**od._header("commit", "m", 1), "shape": spec.deal.shape.to_json(),
           "commitments": [str(c) for c in first.commitments], "proof": {}, "ot": first._ot.setup()}
    again = spec.deal.deck_party(s1, "m", 1, prover)
    again.resume(msg)
    assert again.state == "committed" and again._cards == first._cards
    with pytest.raises(MalformedInput, match="not this dealer's"):
        spec.deal.deck_party(s2, "m", 1, prover).resume(msg)
    assert spec.deal.deck_party(s1, "m", 2, prover)._cards != first._cards  # a fresh deck each round


def test_seeded_positions_are_uniform():
    """The chooser's arrangement from its seeded stream: every position equally likely in
    each slot (chi-square), with a negative twin (a biased draw is caught)."""
    from oblivious_helpers import chi2_critical

    n, runs = 52, 2600
    counts = [0] * n
    biased = [0] * n
    for k in range(runs):
        rng = od.DealRandom(k.to_bytes(4, "big") * 8)
        first = rng.sample(range(n), 14)[0]
        counts[first] += 1
        biased[min(first, rng.randbelow(n))] += 1  # the smaller of two draws: skewed low
    expected = runs / n
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    chi2_biased = sum((c - expected) ** 2 / expected for c in biased)
    assert chi2 < chi2_critical(n - 1) < chi2_biased


def test_attack_the_engine_dealer_goes_silent_while_the_house_trails_and_the_leader_keeps_its_win(tmp_path):
    """Five Up Two Down (a deal every round): the engine's dealer (the house's, holding no seat) deals until the house's seat (1)
    trails, then deals nothing. Before: every seat placed 1 (the leader's win a draw). Now
    the match is settled on the standing at the fault, live and offline; an end line that
    says the draw (re-signed by the referee) is refused."""
    class Clock:
        t = 1000.0

        def __call__(self):
            return self.t

    class SilentWhenTrailing(Dealer):
        def act(self):
            scores = self.view.rules.s.scores
            return None if scores[1] < scores[0] else super().act()

    clock = Clock()
    spec = spec_for(FIVE_UP, oblivious(FIVE_UP))
    path = tmp_path / "t.jsonl"
    tab = Table(RefereeParty(spec, prover=Prover(), limits=TimeLimits(deal=30.0), clock=clock),
                SilentWhenTrailing(spec, Prover(), clock=clock),
                [Seat(spec, i, f"s{i}", Prover(), clock=clock) for i in range(2)], TranscriptWriter(path))
    tab.start()
    agents = [spec_class(FIVE_UP).house_bot(3), spec_class(FIVE_UP).random_bot(4)]
    for _ in range(400):
        if tab.over or tab.to_move is None:
            break
        seat = tab.to_move
        tab.move(seat, agents[seat].act(tab.observation(seat)))
    scores = tab.view.rules.s.scores
    assert not tab.over and scores[1] < scores[0], (scores, tab.view.result(), kinds(tab)[-8:])  # the house trails
    clock.t += 31.0
    line = tab.poll()
    assert line["action"] == TIMEOUT and line["data"]["seat"] is None and tab.over
    result = tab.view.result()
    assert result.placements == (1, 2) and "standing" in result.reason
    assert tab.writer.events[-1]["action"] == "end" and tab.writer.events[-1]["data"]["placements"] == [1, 2]
    with pytest.raises(DealerAtFault) as fault:
        verify_transcript(path)                                  # the dealer at fault, the end line agreed
    assert fault.value.result == result
    events = events_of(path)
    draw = json.loads(json.dumps(events))
    draw[-1]["data"]["placements"] = [1, 1]
    draw[-1] = sign_line(tab.referee.key, draw[-1])
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, draw, "draw.jsonl"))
    assert exc.value.code == "end.result"
