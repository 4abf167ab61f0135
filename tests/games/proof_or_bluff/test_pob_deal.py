"""Issue 11 at both Proof or Bluff tables, end to end through the engine with real proofs:
the deal in proof behind the entropy commit order, nothing revealed after the match,
timeouts that state their clock, complaints that find the dealer at fault. Each test is
named after the attack it defeats."""
import json

import pytest
from click.testing import CliRunner

from deal_helpers import GrindingDealer
from zkbluff.cli import main
from zkbluff.errors import (
    DealerAtFault, EarlyTimeout, IllegalMove, InvalidProof, LateEntropy, OutOfOrder, TranscriptError,
    UnfoundedComplaint, UnsatisfiedConstraint, ZkbluffError,
)
from zkbluff.gadgets.native import commit
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat, TimeLimits
from zkbluff.games.engine.proven_deal import starting_draw
from zkbluff.games.engine.table import Table, open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff.moves import PlayCards
from zkbluff.games.proof_or_bluff.rules import Challenge, N_RANKS
from zkbluff.games.registry import spec_class, spec_for
from zkbluff.protocol.entropy import EntropySecret, seal_hand
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import TranscriptWriter, canonical, line_hash
from zkbluff.statements import get_statement
from zkbluff.statements.deal import deal_native

CLASSIC, FIVE_UP = "proof-or-bluff", "five-up-two-down"


class Clock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def make_table(keys, game=CLASSIC, mode="casual", clock=None, limits=None, dealer_cls=Dealer, hold=(), path=None):
    """``open_match`` with a chosen dealer class and seats that hold back their deal lines."""
    spec = spec_for(game, {"mode": mode, "deal": "dealer"})
    kw = {} if clock is None else {"clock": clock}
    referee = RefereeParty(spec, prover=Prover(keys), limits=limits, **kw)
    dealer = dealer_cls(spec, Prover(keys), clock=clock)
    seats = [Seat(spec, i, f"s{i}", Prover(keys), clock=clock) for i in range(2)]
    for i in hold:
        seats[i].sends_deal_lines = False
    tab = Table(referee, dealer, seats, TranscriptWriter(path))
    tab.start()
    return tab


def run(tab, seed=1):
    cls = spec_class(tab.spec.game)
    agents = [cls.house_bot(seed), cls.random_bot(seed + 1)]
    while not tab.over:
        seat = tab.to_move
        tab.move(seat, agents[seat].act(tab.observation(seat)))


def keys_of(tab):
    def key_of(e):
        if e["seat"] is not None:
            return tab.seats[e["seat"]].key
        return tab.dealer.key if e["action"] in ("deal", "entropy.dealer") else tab.referee.key
    return key_of


def rechain(events, key_of):
    """Renumber, relink and re-sign (a forger holding every key)."""
    out, prev = [], "0" * 64
    referee = key_of({"seat": None, "action": "end"})
    for i, e in enumerate(events, start=1):
        e = sign_line(key_of(e), {**e, "n": i, "prev": prev})
        if "received" in e:  # the referee's receipt (a seat's or the dealer's line), signed again
            e = sign_receipt(referee, e, e["received"]["at"])
        out.append(canonical(e))
        prev = line_hash(out[-1])
    return out


def write(tmp_path, lines, name="x.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def publics_of(event):
    stmt = get_statement(event["proofs"][0]["statement"])
    return dict(zip(stmt.public, map(int, event["proofs"][0]["public"])))


# ---------------------------------------------------------------- whole matches, and the secret scan

def leaves(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from leaves(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from leaves(v)
    else:
        yield obj


class Recorder:
    """Every secret any party held during a match (for the scan)."""

    def __init__(self):
        self.numbers: set[int] = set()
        self.texts: set[str] = set()

    def take(self, tab):
        for s in tab.seats:
            for k in ("entropy", "salt"):
                self.numbers.add(int(s.deal_secrets[k]))
            self.texts.update({s.deal_secrets["handKey"], s.deal_secrets["x25519"], s.key.secret_hex()})
            for k in ("hand", "salt", "play", "playSalt"):
                self.numbers.add(int(s.private[k]))
        d = tab.dealer.state
        self.numbers.update({int(d["entropy"]), int(d["salt"])})
        self.texts.update({d["x25519"], tab.dealer.key.secret_hex(), tab.referee.key.secret_hex()})
        for opened in d["seats"].values():
            self.texts.add(opened["handKey"])
            self.numbers.update(int(opened[k]) for k in ("entropy", "salt") if k in opened)


def scan(path, rec: Recorder) -> int:
    """Fail if any secret is a value of the transcript (numbers as exact leaves, texts
    anywhere); return how many secrets were looked for."""
    numbers = {n for n in rec.numbers if n >= 1 << 20}  # small ints (a 3-card mask, a count) are not secrets
    text = path.read_text()
    values = set()
    for line in text.splitlines():
        for v in leaves(json.loads(line)):
            if isinstance(v, bool):
                continue
            if isinstance(v, int):
                values.add(v)
            elif isinstance(v, str) and v.isdigit():
                values.add(int(v))
    assert not numbers & values, "a secret number is in the transcript"
    for t in rec.texts:
        assert t not in text, "a secret key is in the transcript"
    return len(numbers) + len(rec.texts)


@pytest.mark.parametrize("game, mode, seed", [(CLASSIC, "casual", 3), (FIVE_UP, "casual", 4)])
def test_a_finished_transcript_holds_no_secret_and_verifies_from_the_proofs_alone(match_keys, tmp_path, game, mode,
                                                                                    seed, seed_secrets):
    # seeded deal: a play of exactly the four cards of a rank whose mask a claim proof made
    # public would be a "secret" number in the transcript (rare, but a matter of the deal)
    seed_secrets(seed)
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, game, mode, path=path)
    rec = Recorder()
    rec.take(tab)
    cls = spec_class(game)
    agents = [cls.house_bot(seed), cls.random_bot(seed + 1)]
    while not tab.over:
        seat = tab.to_move
        tab.move(seat, agents[seat].act(tab.observation(seat)))
        rec.take(tab)
    events = [json.loads(x) for x in path.read_text().splitlines()]
    kinds = [e["action"] for e in events]
    # the commit order: the dealer's commitment first, then each seat's, then each seat's opening (sealed to
    # the dealer, after the last commitment), then the first deal
    assert kinds[:7] == ["header", "entropy.dealer", "entropy.seat", "entropy.seat", "entropy.open", "entropy.open",
                         "deal"]
    assert kinds[-1] == "end" and "reveal" not in kinds
    checked = scan(path, rec)
    assert checked >= 12
    report = verify_transcript(path)  # the deal's fairness from the proofs alone
    assert report["complete"] and report["scores"] == list(tab.state.scores)
    # every round proven with its round index and the recorded entropy commitments
    deals = [e for e in events if e["action"] == "deal"]
    dealer_commit = int(events[1]["data"]["commitment"])
    seat0_commit = int(next(e for e in events if e["action"] == "entropy.seat" and e["seat"] == 0)["data"]["commitment"])
    for k, e in enumerate(deals, start=1):
        pub = publics_of(e)
        assert (pub["round"], pub["entropy0_commitment"], pub["entropy1_commitment"]) == (k, dealer_commit,
                                                                                          seat0_commit)
    # negative twin of the scan: the seat's entropy in the clear would be found
    leaked = write(tmp_path, path.read_text().splitlines() + [json.dumps({"x": tab.seats[0].deal_secrets["entropy"]})])
    with pytest.raises(AssertionError, match="secret number"):
        scan(leaked, rec)


def test_the_deal_is_the_seeds_and_the_starting_rank_is_the_commitments_draw(match_keys):
    tab = make_table(match_keys, CLASSIC, "casual")
    d = tab.dealer.state
    ents = [int(d["entropy"]), int(d["seats"]["0"]["entropy"])]
    masks, _ = deal_native(ents, 1, (5, 5))
    assert [s.private["hand"] for s in tab.seats] == masks
    assert tab.state.required_rank == starting_draw(tab.view.ledger, N_RANKS)


# ---------------------------------------------------------------- grinding

def test_grinding_the_dealers_commitment_comes_first_and_a_seat_cannot_go_before_it(match_keys, tmp_path):
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, path=path)
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert events[1]["action"] == "entropy.dealer" and events[1]["seat"] is None
    verify_transcript(path)
    moved = {k: v for k, v in events[2].items() if k != "received"}  # moved: the referee never received it there
    swapped = [events[0], moved, events[1]] + events[3:]  # a seat's entropy before the dealer's commitment
    with pytest.raises(TranscriptError, match="before the dealer's commitment") as exc:
        verify_transcript(write(tmp_path, rechain(swapped, keys_of(tab))))
    assert exc.value.line == 2
    twice = events[:2] + [events[1]] + events[2:]  # a second commitment (a re-drawn entropy) is refused
    with pytest.raises(TranscriptError, match="already recorded"):
        verify_transcript(write(tmp_path, rechain(twice, keys_of(tab))))


def test_grinding_a_seats_late_entropy_is_refused_and_a_silent_seat_forfeits_before_any_card(match_keys, tmp_path):
    clock = Clock()
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, clock=clock, limits=TimeLimits(entropy=30), hold=(0,), path=path)
    assert [e["action"] for e in tab.writer.events] == ["header", "entropy.dealer", "entropy.seat"]
    deadline = tab.writer.events[1]["data"]["deadline"]
    assert deadline == clock.t + 30
    clock.t += 30  # at the deadline: the seat still has its time, the referee may not forfeit it
    assert tab.poll() is None
    clock.t += 1
    tab.seats[0].sends_deal_lines = True
    late = tab.seats[0].deal_line()
    n_before = len(tab.writer.events)
    with pytest.raises(LateEntropy):
        tab.publish(late)
    assert len(tab.writer.events) == n_before  # nothing written
    forfeit = tab.poll()
    assert forfeit["action"] == "entropy.forfeit" and forfeit["data"]["seats"] == [0] and tab.over
    kinds = [e["action"] for e in tab.writer.events]
    assert "deal" not in kinds and kinds[-1] == "end"
    report = verify_transcript(path)
    assert report["winner"] == 1 and "forfeit before any card" in report["summary"]
    # an early forfeit (stamped at the deadline), re-signed by the referee, is refused offline
    events = [json.loads(x) for x in path.read_text().splitlines()]
    early = json.loads(json.dumps(events))
    early[-2]["at"] = deadline
    with pytest.raises(TranscriptError, match="not after the deadline"):
        verify_transcript(write(tmp_path, rechain(early, keys_of(tab))))


def test_grinding_a_dealer_who_changes_its_entropy_after_the_seats_commitments_cannot_prove_the_deal(match_keys):
    with pytest.raises(ZkbluffError) as exc:
        make_table(match_keys, dealer_cls=GrindingDealer)
    assert "entropy0_commitment" in str(exc.value)  # the referee pins the recorded commitment
    # and a proof that states the recorded commitment cannot open it: refused by the constraints
    stmt = get_statement(spec_for(CLASSIC, {"mode": "casual", "deal": "dealer"}).deal.statement_id)
    honest, seat, grind = EntropySecret.fresh(), EntropySecret.fresh(), EntropySecret.fresh()
    inp = {"entropy0": grind.entropy, "entropy0_salt": grind.salt, "entropy1": seat.entropy,
           "entropy1_salt": seat.salt, "hand0_salt": 1, "hand1_salt": 2, "round": 1, "context": 3}
    stmt.build(inp)  # the ground entropy alone proves, under its own (new) commitment
    with pytest.raises(UnsatisfiedConstraint, match="entropy0/opens"):
        stmt.build({**inp, "entropy0_commitment": honest.commitment})


# ---------------------------------------------------------------- a hand not derived from the seed

def test_a_dealer_proving_a_hand_not_derived_from_the_seed_is_rejected(match_keys, tmp_path):
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, FIVE_UP, path=path)
    events = [json.loads(x) for x in path.read_text().splitlines()]
    deal_i = next(i for i, e in enumerate(events) if e["action"] == "deal")
    stmt = get_statement(events[deal_i]["proofs"][0]["statement"])
    d = tab.dealer.state
    ents = [(int(d["entropy"]), int(d["salt"])), (int(d["seats"]["0"]["entropy"]), int(d["seats"]["0"]["salt"]))]
    seeded, board = deal_native([e for e, _ in ents], 1, (2, 2), 5)
    chosen = (1 << 12) | (1 << 25)  # two aces for seat 0, whatever the seed says
    assert chosen != seeded[0]
    inp = {"entropy0": ents[0][0], "entropy0_salt": ents[0][1], "entropy1": ents[1][0], "entropy1_salt": ents[1][1],
           "hand0_salt": 5, "hand1_salt": 6, "round": 1, "context": 7}
    stmt.build(inp)
    with pytest.raises(UnsatisfiedConstraint, match="hand0/opens"):  # the prover refuses it
        stmt.build({**inp, "hand0_commitment": commit(chosen, 5)})
    # the table: a deal line whose proof says another hand commitment is refused before it is written
    forged = json.loads(json.dumps(events[deal_i]))
    forged["proofs"][0]["public"][stmt.public.index("hand0_commitment")] = str(commit(chosen, 5))
    class ChoosingDealer(Dealer):
        """Proves the seed's deal but states another hand commitment for seat 0."""

        def _line(self, seat, kind, data, proofs=None, at=None, clock=None):
            if kind == "deal":
                proofs = json.loads(json.dumps(proofs))
                proofs[0]["public"][stmt.public.index("hand0_commitment")] = str(commit(chosen, 5))
            return super()._line(seat, kind, data, proofs, at, clock)

    with pytest.raises(InvalidProof):
        make_table(match_keys, FIVE_UP, dealer_cls=ChoosingDealer)
    # the offline verifier: the same edit, re-chained and re-signed by the dealer, fails its proof
    changed = json.loads(json.dumps(events))
    changed[deal_i] = forged
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(write(tmp_path, rechain(changed, keys_of(tab))))
    assert exc.value.line == deal_i + 1
    verify_transcript(path)  # the honest one verifies


# ---------------------------------------------------------------- complaints

class WrongHandDealer(Dealer):
    """Seals seat 0 two aces of its choosing instead of its proven hand (round 1)."""

    def _line(self, seat, kind, data, proofs=None, at=None, clock=None):
        if kind == "deal" and data["round"] == 1:
            key = bytes.fromhex(self.state["seats"]["0"]["handKey"])
            data = {**data, "sealed_hands": [seal_hand(key, self.view.match_id, self.view.next_line,
                                                       (1 << 12) | (1 << 25), 99)] + list(data["sealed_hands"][1:])}
        return super()._line(seat, kind, data, proofs, at, clock)


@pytest.mark.parametrize("game", [CLASSIC, FIVE_UP])
def test_a_wrong_sealed_hand_leads_to_a_verified_complaint(match_keys, tmp_path, game):
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, game, dealer_cls=WrongHandDealer, path=path)
    kinds = [e["action"] for e in tab.writer.events]
    assert kinds[-3:] == ["deal", "complaint", "end"] and tab.over
    complaint = tab.writer.events[-2]
    assert complaint["seat"] == 0 and complaint["data"]["line"] == tab.writer.events[-3]["n"]
    assert "the dealer is at fault" in tab.writer.events[-1]["data"]["reason"]
    assert tab.writer.events[-1]["data"]["placements"] == [1, 2]  # the house's seat loses
    with pytest.raises(DealerAtFault) as exc:
        verify_transcript(path)
    assert exc.value.line == complaint["n"]
    res = CliRunner().invoke(main, ["transcript", "verify", str(path)])
    assert res.exit_code == 1 and f"line {complaint['n']}" in res.output and "dealer is at fault" in res.output


def test_a_false_complaint_against_an_honest_dealer_is_refused(match_keys, tmp_path):
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, path=path)
    deal = next(e for e in tab.writer.events if e["action"] == "deal")
    seat = tab.seats[0]
    honest = seat._line(0, "complaint", {"line": deal["n"], "sealed": deal["data"]["sealed_hands"][0],
                                         "handKey": seat.deal_secrets["handKey"]})
    with pytest.raises(UnfoundedComplaint, match="opens its commitment"):
        tab.publish(honest)
    other_key = seat._line(0, "complaint", {"line": deal["n"], "sealed": deal["data"]["sealed_hands"][0],
                                            "handKey": "ab" * 32})
    with pytest.raises(UnfoundedComplaint, match="not the hand key"):
        tab.publish(other_key)
    # offline: a complaint slipped into an honest transcript (re-signed by the seat) is refused
    events = [json.loads(x) for x in path.read_text().splitlines()]
    i = events.index(next(e for e in events if e["action"] == "deal")) + 1
    forged = events[:i] + [json.loads(json.dumps(honest))] + events[i:]
    with pytest.raises(TranscriptError, match="opens its commitment"):
        verify_transcript(write(tmp_path, rechain(forged, keys_of(tab))))


def test_a_dealer_who_never_sends_a_hand_is_at_fault(match_keys, tmp_path):
    class SilentDealer(Dealer):
        def act(self):
            return None

    clock = Clock()
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, clock=clock, limits=TimeLimits(deal=20), dealer_cls=SilentDealer, path=path)
    assert tab.writer.events[-1]["action"] == "entropy.open" and not tab.over
    clock.t += 20
    assert tab.poll() is None  # not before its deadline
    clock.t += 0.5
    line = tab.poll()
    assert line["action"] == "deal.timeout" and tab.over
    with pytest.raises(DealerAtFault) as exc:
        verify_transcript(path)
    assert exc.value.line == line["n"] and "no hand sent" in str(exc.value)


# ---------------------------------------------------------------- timeouts

def test_an_early_timeout_is_refused(match_keys, tmp_path):
    clock = Clock()
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, clock=clock, limits=TimeLimits(proof=30, idle=120), path=path)
    seat = tab.to_move
    mine = [c for c in range(52) if tab.seats[seat].private["hand"] >> c & 1]
    clock.t += 1
    tab.move(seat, PlayCards((mine[0],)))
    clock.t += 1
    tab.move(1 - seat, Challenge())
    challenge = tab.writer.events[-1]
    ref = tab.referee
    due = ref.view.timeout_clock(seat, "proof", clock.t)
    assert due["deadline"] == challenge["at"] + 30 and due["lastSigned"][0] == challenge["n"] - 1
    clock.t += 29
    assert tab.poll() is None  # the referee's own clock: not yet
    # a referee line stamped now, before the deadline: refused live
    from zkbluff.games.proof_or_bluff.rules import Timeout
    early = ref._line(None, "timeout", Timeout(seat, "proof").to_data(), at=clock.t,
                      clock=ref.view.timeout_clock(seat, "proof", clock.t))
    with pytest.raises(EarlyTimeout):
        tab.publish(early)
    # one stamped after the deadline while the clock is not there yet: refused live too
    future = ref._line(None, "timeout", Timeout(seat, "proof").to_data(), at=clock.t + 10,
                       clock=ref.view.timeout_clock(seat, "proof", clock.t + 10))
    with pytest.raises(IllegalMove, match="referee's clock"):
        tab.publish(future)
    clock.t += 2
    line = tab.poll()
    assert line["action"] == "timeout" and line["clock"]["deadline"] == challenge["at"] + 30
    run(tab)
    verify_transcript(path)
    events = [json.loads(x) for x in path.read_text().splitlines()]
    i = next(k for k, e in enumerate(events) if e["action"] == "timeout")
    for field, value in (("deadline", events[i]["clock"]["deadline"] - 5), ("since", events[i]["clock"]["since"] - 1),
                         ("lastSigned", None), ("seconds", 10)):
        forged = json.loads(json.dumps(events))
        forged[i]["clock"][field] = value
        with pytest.raises(TranscriptError) as exc:
            verify_transcript(write(tmp_path, rechain(forged, keys_of(tab))))
        assert exc.value.line == i + 1, field
    forged = json.loads(json.dumps(events))
    forged[i]["at"] = forged[i]["clock"]["deadline"]  # declared at its deadline: early
    with pytest.raises(TranscriptError, match="not after its deadline"):
        verify_transcript(write(tmp_path, rechain(forged, keys_of(tab))))


def test_a_dealer_who_never_commits_its_entropy_is_at_fault_and_not_early(match_keys, tmp_path):
    class MuteDealer(Dealer):
        def deal_line(self):
            return None

    clock = Clock()
    path = tmp_path / "m.jsonl"
    tab = make_table(match_keys, FIVE_UP, clock=clock, limits=TimeLimits(deal=20), dealer_cls=MuteDealer, path=path)
    assert [e["action"] for e in tab.writer.events] == ["header"]  # the seats wait for the dealer's commitment
    clock.t += 20
    assert tab.poll() is None
    # a deal.timeout stamped at its deadline, signed by the referee: refused live
    early = tab.referee._line(None, "deal.timeout", {"since": 1, "deadline": clock.t}, at=clock.t)
    with pytest.raises(EarlyTimeout):
        tab.publish(early)
    clock.t += 1
    line = tab.poll()
    assert line["action"] == "deal.timeout" and line["data"] == {"since": 1, "deadline": 1020.0} and tab.over
    with pytest.raises(DealerAtFault, match="no entropy commitment"):
        verify_transcript(path)
