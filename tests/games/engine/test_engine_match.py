"""The engine's parties and referee: every line signed by the party entitled to it; no
party acts for another; parties hold only their own secrets; sloppy input is typed."""
import json
import time

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.cli.common import seeded_randomness
from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, TranscriptError
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.table import open_match, wire
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.proof_or_bluff.moves import PlayCards
from zkbluff.games.proof_or_bluff.rules import (
    MODES, Accept, Challenge, ClassicRules, FiveUpRules, Play, ProveLies, ProveVerdict,
)
from zkbluff.games.registry import spec_class, spec_for
from zkbluff.protocol.signing import InvalidSignature, SigningKey, sign_line
from zkbluff.protocol.transcript import canonical, line_hash

CLASSIC = "proof-or-bluff"


@pytest.fixture(scope="module")
def finished(match_keys, tmp_path_factory):
    """A whole match of seeded bots on seeded entropy: the same match on every run. The tests
    below forge its accepts, which a random deal left out of about one match in 400."""
    path = tmp_path_factory.mktemp("e") / "m.jsonl"
    with seeded_randomness(5):
        tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=path,
                         key_folder=match_keys)
        cls = spec_class(CLASSIC)
        bots = [cls.house_bot(11), cls.house_bot(12)]
        while not tab.over:
            s = tab.to_move
            tab.move(s, bots[s].act(tab.observation(s)))
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert "accept" in [e["action"] for e in events] and "prove" in [e["action"] for e in events]
    return path, events, tab


def resign(events, key_of, start=0):
    """Re-chain and re-sign the lines from index ``start`` on (the lines before are kept
    with their original signatures)."""
    out = [canonical(e) for e in events[:start]]
    prev = line_hash(out[-1]) if out else "0" * 64
    for i, e in enumerate(events[start:], start=start + 1):
        e = sign_line(key_of(e), {**e, "n": i, "prev": prev})
        out.append(canonical(e))
        prev = line_hash(out[-1])
    return out


def write(tmp_path, lines, name="f.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def house_forger(tab, impostor):
    """The house holds the referee's and the dealer's keys, not the seats'."""
    def key_of(e):
        if e["seat"] is not None:
            return impostor
        return tab.dealer.key if e["action"] in ("deal", "entropy.dealer") else tab.referee.key
    return key_of


def honest_keys(tab):
    def key_of(e):
        if e["seat"] is not None:
            return tab.seats[e["seat"]].key
        return tab.dealer.key if e["action"] in ("deal", "entropy.dealer") else tab.referee.key
    return key_of


def test_a_rewrite_without_the_seats_keys_is_rejected(finished, tmp_path):
    """The house rewrites a seat's accept into a challenge under the byte-identical
    header: it cannot sign the seat's line. The same rewrite signed with the seat's own
    key gets past that line (so the signature, nothing else, stopped it)."""
    path, events, tab = finished
    i = next(k for k, e in enumerate(events) if e["action"] == "accept")
    forged = json.loads(json.dumps(events))
    forged[i]["action"] = "challenge"
    forged[i].pop("received", None)  # the line as changed was never the referee's to receive
    lines = resign(forged, house_forger(tab, SigningKey.generate()), start=i)
    assert lines[0] == canonical(events[0])  # the header is untouched
    with pytest.raises(TranscriptError, match="not signed by seat") as exc:
        verify_transcript(write(tmp_path, lines))
    assert exc.value.line == i + 1
    res = CliRunner().invoke(main, ["transcript", "verify", str(write(tmp_path, lines, "g.jsonl"))])
    assert res.exit_code == 1 and f"line {i + 1}" in res.output
    with pytest.raises(TranscriptError) as twin:
        verify_transcript(write(tmp_path, resign(forged, honest_keys(tab), start=i), "h.jsonl"))
    assert twin.value.line > i + 1


def test_a_rewrite_under_fresh_seat_keys_is_caught_by_the_seats_known_keys(finished, tmp_path, match_keys):
    """A house that replays a whole match under the same match id with seats it made
    itself writes a self-consistent transcript (the header's hash is in every proof's
    context, so nothing of the real match can be reused); only the seats' own public keys
    tell it apart."""
    path, events, tab = finished
    fake_path = tmp_path / "fake.jsonl"
    fake = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=fake_path,
                      match_id=tab.match_id, key_folder=match_keys)
    cls = spec_class(CLASSIC)
    bots = [cls.house_bot(1), cls.house_bot(2)]
    while not fake.over:
        s = fake.to_move
        fake.move(s, bots[s].act(fake.observation(s)))
    verify_transcript(fake_path)
    with pytest.raises(TranscriptError, match="seat 0's key"):
        verify_transcript(fake_path, seat_keys={0: tab.seats[0].public_key})
    verify_transcript(path, seat_keys={0: tab.seats[0].public_key, 1: tab.seats[1].public_key})
    res = CliRunner().invoke(main, ["transcript", "verify", str(fake_path), "--seat-key", f"1:{tab.seats[1].public_key}"])
    assert res.exit_code == 1 and "seat 1's key" in res.output
    ok = CliRunner().invoke(main, ["transcript", "verify", str(path), "--seat-key", f"1:{tab.seats[1].public_key}"])
    assert ok.exit_code == 0, ok.output


def test_a_null_seat_accept_is_rejected(finished, tmp_path, match_keys):
    """Offline: the house puts an accept on a line with seat null, signed with its own key."""
    path, events, tab = finished
    i = next(k for k, e in enumerate(events) if e["action"] == "accept")
    for key in (tab.dealer.key, tab.referee.key):
        forged = json.loads(json.dumps(events))
        forged[i]["seat"] = None
        with pytest.raises(TranscriptError, match="seat null") as exc:
            verify_transcript(write(tmp_path, resign(forged, lambda e: key if e["seat"] is None else
                                                     tab.seats[e["seat"]].key, start=i)))
        assert exc.value.line == i + 1
    # live: the referee refuses it and nothing is written
    live = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys)
    seat = live.to_move
    hand = [c for c in range(52) if live.seats[seat].private["hand"] >> c & 1]
    live.move(seat, PlayCards((hand[0],)))
    view, n = live.view, len(live.writer.events)
    for key in (live.dealer.key, live.referee.key):
        for action in (Accept(), Challenge()):
            line = sign_line(key, {"n": view.next_line, "prev": view.head, "seat": None, "action": action.kind,
                                   "data": {}, "at": time.time()})
            with pytest.raises(IllegalMove, match="seat null"):
                live.publish(line)
    # and a seat signing in the other seat's name
    line = sign_line(live.seats[seat].key, {"n": view.next_line, "prev": view.head, "seat": 1 - seat,
                                            "action": "accept", "data": {}, "at": time.time()})
    with pytest.raises(InvalidSignature, match=f"not signed by seat {1 - seat}"):
        live.publish(line)
    assert len(live.writer.events) == n
    live.move(1 - seat, Accept())  # the real seat can
    assert len(live.writer.events) == n + 1


def test_null_seat_actions_are_refused_by_the_rules():
    r = ClassicRules(MODES["casual"], 3)
    r.deal()
    r.play(0, 1)
    for action in (Accept(), Challenge()):
        with pytest.raises(IllegalMove, match="seat null"):
            r.apply(NO_SEAT, action)
    r.challenge(1)
    with pytest.raises(IllegalMove, match="seat null"):
        r.apply(NO_SEAT, ProveVerdict(True))
    with pytest.raises(IllegalMove, match="only the dealer"):
        ClassicRules(MODES["casual"]).apply(0, spec_for(CLASSIC).actions[0](1, 3, ()))
    r.apply(0, ProveVerdict(True))  # the challenged seat itself can


def test_roles_and_header_checks(finished):
    path, events, tab = finished
    ref = Referee(events[0])
    for e in events[1:]:
        if e["action"] == "end":
            break
        ref.apply(e)
    with pytest.raises(IllegalMove, match="referee's line, but it names seat 0"):
        ref.apply(sign_line(tab.seats[0].key, {**events[[x["action"] for x in events].index("end")], "seat": 0}))
    bad = json.loads(json.dumps(events[0]))
    bad["data"]["game"] = "go-fish"
    with pytest.raises(MalformedInput, match="unknown game"):
        Referee(sign_line(tab.referee.key, bad))
    with pytest.raises(InvalidSignature, match="the referee"):  # a header not signed by its referee
        Referee(sign_line(tab.dealer.key, events[0]))
    with pytest.raises(MalformedInput, match="mode"):
        spec_for(CLASSIC, {"mode": "turbo"})
    with pytest.raises(MalformedInput, match="unknown option"):
        spec_for(CLASSIC, {"speed": "fast"})


def test_a_seat_refuses_a_header_with_another_key_for_it(finished):
    path, events, tab = finished
    seat = type(tab.seats[0])(tab.spec, 0, "ann")  # a fresh client with its own key
    with pytest.raises(CommitmentMismatch, match="another public key"):
        seat.receive(events[0])


def test_parties_hold_only_their_own_secrets(finished):
    path, events, tab = finished
    s0, s1 = tab.seats
    mine = json.dumps(s0.export())
    for secret in (s1.deal_secrets["entropy"], s1.deal_secrets["handKey"], s1.key.secret_hex(),
                   tab.dealer.key.secret_hex(), tab.referee.key.secret_hex(), str(s1.private["salt"])):
        assert secret not in mine
    ref = json.dumps(tab.referee.export())
    for secret in (s0.deal_secrets["entropy"], s0.key.secret_hex(), tab.dealer.key.secret_hex()):
        assert secret not in ref
    assert s0.join()["deal"] != s0.deal_secrets and s0.deal_secrets["entropy"] not in json.dumps(s0.join())
    assert not any(isinstance(v, SigningKey) for v in vars(tab).values())  # the table holds no key
    with pytest.raises(TypeError):
        wire({"not": {1, 2}})  # only JSON crosses between parties


def test_sloppy_inputs_get_typed_errors(match_keys):
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys)
    seat = tab.to_move
    hand = [c for c in range(52) if tab.seats[seat].private["hand"] >> c & 1]
    n = len(tab.writer.events)
    with pytest.raises(MalformedInput, match="listed twice"):
        tab.move(seat, PlayCards((hand[0], hand[0])))
    with pytest.raises(IllegalMove, match="count must be 1..4"):
        tab.move(seat, PlayCards(tuple(hand[:5])))
    with pytest.raises(MalformedInput, match="card id"):
        tab.move(seat, PlayCards((52,)))
    with pytest.raises(MalformedInput, match="PlayCards"):
        tab.move(seat, Play(1, tab.state.required_rank))  # a seat says which cards, not a count
    assert len(tab.writer.events) == n
    with pytest.raises(MalformedInput, match="verdict must be true or false"):
        ProveVerdict.from_data({"verdict": 1})
    with pytest.raises(MalformedInput, match="lies must be an integer"):
        ProveLies.from_data({"lies": "1"})
    with pytest.raises(MalformedInput, match="lies must be an integer"):
        ProveLies.from_data({"lies": True})
    r = FiveUpRules("casual")
    r.deal(sum(1 << c for c in (0, 14, 28, 42, 11)))
    r.claim(0, (0,))
    r.challenge(1)
    for bad in (2, -1, True):
        with pytest.raises(IllegalMove, match="lies must be"):
            r.resolve(bad)
    r.resolve(1)
    assert r.s.scores == [0, 1]


ODD_VALUES = (None, "x", -1, 2 ** 80, True, [], {}, [1, "a"], 1.5)


def test_every_malformed_field_is_a_typed_error(finished):
    """Each data field of each line (and its seat, action, proofs) replaced by values of
    other types, re-signed by the entitled party: the referee refuses every one with a
    zkbluff error (never a stray KeyError or TypeError) and the honest line still applies.
    The one exception: under rules /1 the end line's ``reason`` is the game's words, never
    checked, so other words ("x") are taken (and another type is refused)."""
    import copy

    from zkbluff.errors import ZkbluffError

    path, events, tab = finished
    key_of = {None: tab.referee.key}

    def signer(e):
        if e["seat"] is not None and isinstance(e["seat"], int) and 0 <= e["seat"] < 2:
            return tab.seats[e["seat"]].key
        return tab.dealer.key if e["action"] in ("deal", "entropy.dealer") else key_of[None]

    ref = Referee(events[0], verify_now=False)
    tried = 0
    for e in events[1:]:
        mutants = []
        for field_name in e["data"]:
            for v in ODD_VALUES:
                m = json.loads(json.dumps(e))
                m["data"][field_name] = v
                mutants.append(m)
        for top, values in (("seat", ("0", 5, -1, True)), ("action", (None, 3, "dance", ["play"]))):
            for v in values:
                mutants.append({**json.loads(json.dumps(e)), top: v})
        if "proofs" in e:
            mutants += [{**e, "proofs": v} for v in ({}, [], [1], "p", [e["proofs"][0], e["proofs"][0]])]
            mutants.append({**e, "proofs": [{**e["proofs"][0], "public": ["1"]}]})
        for m in mutants:
            if m == e:
                continue
            try:
                m = sign_line(signer(m), m)
            except (KeyError, TypeError):
                m = sign_line(tab.referee.key, m)
            if e["action"] == "end" and ref.rules_version >= 1 and m.get("action") == "end" \
                    and isinstance(m["data"].get("reason"), str) and m["data"] != e["data"] \
                    and {**m["data"], "reason": ""} == {**e["data"], "reason": ""}:
                copy.deepcopy(ref).apply(m)  # other words for the same end: taken
                continue
            with pytest.raises(ZkbluffError):
                copy.deepcopy(ref).apply(m)
            tried += 1
        ref.apply(e)
    assert tried > 300 and ref.complete
    ref.batch.verify()


def test_a_seat_notices_a_line_in_its_name_that_it_did_not_make(match_keys):
    """Even past a compromised referee: a seat's own view refuses a line in its name that
    it did not sign, and one signed with its key that it did not make."""
    tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, key_folder=match_keys)
    seat = tab.to_move
    other = tab.seats[1 - seat]
    view = other.view
    fake = sign_line(SigningKey.generate(), {"n": view.next_line, "prev": view.head, "seat": seat,
                                              "action": "play", "data": {"count": 1, "rank": 0}, "at": time.time()})
    with pytest.raises(InvalidSignature):
        other.receive(fake)
    me = tab.seats[seat]
    stolen = sign_line(me.key, {"n": me.view.next_line, "prev": me.view.head, "seat": 1 - seat,
                                "action": "accept", "data": {}, "at": time.time()})
    with pytest.raises(InvalidSignature):
        me.receive(stolen)  # signed with the wrong seat's key
    hand = [c for c in range(52) if me.private["hand"] >> c & 1]
    line = me.move(PlayCards((hand[0],)))
    me._pending = None  # as if this seat had never sent it (its key used elsewhere)
    with pytest.raises(CommitmentMismatch, match="did not make it"):
        me.receive(line)


def test_every_partys_secrets_file_is_readable_by_its_owner_only(tmp_path):
    """demo, play and the server all save through the table: 0600 whatever the umask."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        path = tmp_path / "m.jsonl"
        tab = open_match(CLASSIC, {"mode": "casual", "deal": "dealer"}, ["ann", "house"], transcript=path)
        files = sorted(tmp_path.glob("m.jsonl.*.secrets.json"))
        assert len(files) == 4 and tab.writer.events  # referee, dealer and both seats
        for f in files:
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name
    finally:
        os.umask(old)
