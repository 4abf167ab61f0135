"""Red team against the oblivious deal at a two-player Proof or Bluff table: a cheating
seat's lines that the referee (live) and ``transcript verify`` (offline) must refuse with a
typed error, leaving the table as it was. Real proofs under the pinned keys; one dealt
table per module."""
import json

import pytest

from zkbluff.errors import IllegalMove, MalformedInput, TranscriptError, UnfoundedComplaint
from zkbluff.games.engine.oblivious_deal import CHOOSE, COMMIT, COMPLAINT
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol import oblivious_deal as od
from zkbluff.protocol.signing import sign_line
from zkbluff.protocol.transcript import canonical, line_hash


def _events(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def _extend(events, key, seat, action, data):
    prev = line_hash(canonical(events[-1]))
    return events + [sign_line(key, {"n": len(events) + 1, "prev": prev, "seat": seat, "action": action,
                                     "data": data, "at": events[-1]["at"]})]


def _referee(events):
    ref = Referee(events[0])
    for e in events[1:]:
        ref.apply(e)
    return ref


def _write(tmp_path, events, name):
    p = tmp_path / name
    p.write_text("".join(canonical(e) + "\n" for e in events))
    return p


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """A classic casual (5+5) table right after its first oblivious deal, and the chooser's
    protocol party rebuilt from its seed (as far as its choice)."""
    path = tmp_path_factory.mktemp("redteam-dealt") / "m.jsonl"
    tab = open_match("proof-or-bluff", {"mode": "casual", "deal": "oblivious"}, transcript=path)
    seat0 = tab.seats[0]
    chooser = tab.spec.deal.chooser_party(seat0.deal_secrets, tab.match_id, 1, seat0.prover)
    events = _events(path)
    assert chooser.choose(events[1]["data"]) == events[2]["data"]
    return tab, events, chooser


@pytest.mark.parametrize("b", ["\u00b2", "\u0663", "1" * 5000])
def test_a_complaint_whose_reveal_is_no_ascii_decimal_is_refused_typed_live_and_offline(dealt, tmp_path, b):
    """A chooser complains with its OT reveal's ``b`` written in digits ``str.isdigit``
    takes but ``int`` does not (a superscript two), in another script's digits (Arabic-Indic
    three: a second spelling of a number), or too long for ``int``: the referee must refuse
    it as MalformedInput — not crash with a ValueError — and change nothing."""
    tab, events, chooser = dealt
    head = events[:4]  # header, commit, choose, transfer: the chooser's answer is due
    reveal = {**chooser._ot.reveal(0), "b": b}
    line = _extend(head, tab.seats[0].key, 0, COMPLAINT, {"round": 1, "reveal": reveal})[-1]
    ref = _referee(head)
    with pytest.raises(MalformedInput, match="b must be"):
        ref.apply(line)
    assert ref.next_line == 5 and ref.ledger.deal.fault is None and not ref.over
    with pytest.raises(MalformedInput) as exc:
        verify_transcript(_write(tmp_path, head + [line], "bad-b.jsonl"))
    assert exc.value.line == 5
    # twin: the same complaint with b in ASCII digits is read, and refused for what it is
    # (the deck seat was honest)
    honest = _extend(head, tab.seats[0].key, 0, COMPLAINT, {"round": 1, "reveal": chooser._ot.reveal(0)})[-1]
    with pytest.raises(UnfoundedComplaint, match="is correct"):
        _referee(head).apply(honest)


@pytest.mark.parametrize("kind,index", [(COMMIT, 1), (CHOOSE, 2)])
@pytest.mark.parametrize("round_", [1.0, True])
def test_an_exchange_line_whose_round_is_not_an_integer_is_refused(dealt, kind, index, round_):
    """A seat writes its exchange message with ``round`` 1.0 or true (equal to 1 in Python,
    another spelling in the signed transcript): refused as MalformedInput, nothing recorded."""
    tab, events, _ = dealt
    seat = 1 if kind == COMMIT else 0
    head = events[:index]
    line = _extend(head, tab.seats[seat].key, seat, kind, {**events[index]["data"], "round": round_})[-1]
    ref = _referee(head)
    before = ref.ledger.deal
    with pytest.raises(MalformedInput, match="round"):
        ref.apply(line)
    assert ref.next_line == index + 1 and ref.ledger.deal == before
    ref.apply(events[index])  # twin: the integer round is accepted


def test_a_complaint_whose_round_is_true_is_refused(dealt):
    tab, events, chooser = dealt
    head = events[:4]
    line = _extend(head, tab.seats[0].key, 0, COMPLAINT, {"round": True, "reveal": chooser._ot.reveal(0)})[-1]
    with pytest.raises(MalformedInput, match="round"):
        _referee(head).apply(line)


def _house_header(seats, house_spec, match_id="m-redteam"):
    """The header the house writes after the seats joined, under ``house_spec``."""
    from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty
    from zkbluff.games.engine.table import wire

    referee, dealer = RefereeParty(house_spec, prover=Prover()), Dealer(house_spec, Prover())
    joins, messages = [wire(s.join()) for s in seats], [wire(s.to_dealer()) for s in seats]
    hello = wire(dealer.hello(match_id, joins, messages))
    keys = {k: dealer.prover.key(k).vk.to_json() for k in house_spec.statements()}
    return wire(referee.header(match_id, joins, hello, keys, None))


@pytest.mark.parametrize("house_options", [{"mode": "casual", "deal": "dealer"},
                                           {"mode": "standard", "deal": "oblivious"}])
def test_a_seat_refuses_a_header_for_another_table_than_the_one_it_joined(house_options):
    """The house seats a player at an oblivious casual table, then writes the header of a
    dealer-deal table (where the house sees both hands) or of another hand size: the seat
    must refuse the header (its join, its deal secrets, its agreement were for another
    table) and hold no view."""
    from zkbluff.errors import CommitmentMismatch
    from zkbluff.games.engine.parties import Prover, Seat
    from zkbluff.games.registry import spec_for

    joined = spec_for("proof-or-bluff", {"mode": "casual", "deal": "oblivious"})
    seats = [Seat(joined, i, f"s{i}", Prover()) for i in range(2)]
    header = _house_header(seats, spec_for("proof-or-bluff", house_options))
    for s in seats:
        with pytest.raises(CommitmentMismatch, match="this seat joined"):
            s.receive(header)
        assert s.view is None
    # twin: the header of the table they joined is accepted
    good = _house_header(seats, joined)
    for s in seats:
        s.receive(good)
        assert s.view is not None and s.view.header["options"] == {"mode": "casual", "deal": "oblivious"}


@pytest.mark.parametrize("crashed_after", [4, 5])  # the deck seat's transfer, the chooser's hand
def test_a_restart_right_after_a_seats_exchange_line_is_written_resumes_the_match(tmp_path, crashed_after):
    """The house's process dies right after writing a seat's exchange line (the deck seat's
    transfer, or the chooser's hand), before the files saved after a written line. Before
    the fix the seat's hand lived only in memory until then: the resume raised
    CommitmentMismatch ("it made no hand") at the deal and the match could never go on. The
    seat's secrets are now saved before its line is written, so the match resumes and each
    hand opens its commitment."""
    import shutil

    from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat
    from zkbluff.games.engine.table import Table, _saver, resume_match, secrets_path
    from zkbluff.gadgets.native import commit
    from zkbluff.games.registry import spec_for
    from zkbluff.protocol.transcript import TranscriptWriter

    spec = spec_for("proof-or-bluff", {"mode": "casual", "deal": "oblivious"})
    path, backup = tmp_path / "c.jsonl", tmp_path / "before"
    backup.mkdir()
    save = _saver(path)

    def persist(table):
        save(table)
        if len(table.writer.events) == crashed_after - 1:  # the files as they were before the line
            for f in tmp_path.glob("c.jsonl.*.secrets.json"):
                shutil.copy(f, backup / f.name)

    seats = [Seat(spec, i, f"s{i}", Prover()) for i in range(2)]
    tab = Table(RefereeParty(spec, prover=Prover()), Dealer(spec, Prover()), seats, TranscriptWriter(path), persist)
    tab.start()
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:crashed_after]))  # the line was written ...
    for f in backup.iterdir():  # ... its seat's secrets file was not
        shutil.copy(f, tmp_path / f.name)
    owner = 1 if crashed_after == 4 else 0
    # the last files saved before the line was written already hold the hand it commits to
    assert "1" in json.loads(secrets_path(path, f"seat{owner}").read_text())["deal"]["hands"]
    resumed = resume_match(path)
    assert [e["action"] for e in resumed.writer.events][crashed_after:crashed_after + 1] == \
        (["oblivious.hand"] if crashed_after == 4 else ["deal"])
    for s in resumed.seats:
        assert commit(s.private["hand"], s.private["salt"]) == resumed.view.ledger.hands[s.seat]


def test_a_remote_chooser_saves_its_hand_before_its_hand_line_leaves(dealt, tmp_path):
    """A person's client makes its ``oblivious.hand`` line and sends it; the server writes
    it; the client dies before the line comes back. Its saved seat must already hold the
    hand the line commits to (before the fix it was saved only when a line came back, and
    the restarted client could never open its hand at the deal)."""
    import asyncio

    from zkbluff.games.engine.parties import Prover, Seat
    from zkbluff.protocol.transcript import TranscriptWriter
    from zkbluff.server.client import SeatClient

    tab, events, _ = dealt
    exported = tab.seats[0].export()
    # the seat as it was before it made its hand line: no hand, and no line signed for it yet
    # (its last signed line is its choose, line 3: a seat refuses a deal line in its name it did not make)
    fresh = {**exported, "deal": {"seed": exported["deal"]["seed"], "hands": {}}, "private": {}, "signed": events[2]}
    seat = Seat.restore(tab.spec, fresh, Prover())
    for e in events[:4]:  # header, commit, choose, transfer: the chooser's hand is due
        seat.receive(e)
    client = SeatClient("ws://127.0.0.1:9", tmp_path, "ann", lambda *a: None, say=lambda m: None)
    client.code, client.match_id, client.seat = "ABCD-EFGH", tab.match_id, seat
    client.folder.mkdir(parents=True)
    client.writer = TranscriptWriter(client.transcript_path(tab.match_id), events=events[:4])

    class Conn:
        sent = []

        async def send(self, msg):
            self.sent.append(msg)

    asyncio.run(client._deal_line(Conn()))
    assert [m["line"]["action"] for m in Conn.sent] == ["oblivious.hand"]
    saved = json.loads((client.folder / "seat.json").read_text())
    assert saved["seat"]["deal"]["hands"]["1"] == exported["deal"]["hands"]["1"]


def test_a_client_detects_the_house_server_rewriting_an_exchange_line_it_relays(dealt, tmp_path):
    """The house's server relays the deck seat's ``oblivious.commit`` to the chooser's
    client with one commitment changed: as is (the deck seat's signature no longer
    covers it), or re-signed with the deck seat's key (the house plays that seat; the
    permutation proof no longer covers the commitments). The client refuses both, keeps no
    copy of them, and takes the line as written."""
    from zkbluff.errors import InvalidProof
    from zkbluff.protocol.signing import InvalidSignature
    from zkbluff.games.engine.parties import Prover, Seat
    from zkbluff.protocol.transcript import TranscriptWriter
    from zkbluff.server.client import SeatClient

    tab, events, _ = dealt
    exported = tab.seats[0].export()
    seat = Seat.restore(tab.spec, {**exported, "deal": {"seed": exported["deal"]["seed"], "hands": {}},
                                   "private": {}}, Prover())
    client = SeatClient("ws://127.0.0.1:9", tmp_path, "ann", lambda *a: None, say=lambda m: None)
    client.code, client.match_id, client.seat = "ABCD-EFGH", tab.match_id, seat
    client.folder.mkdir(parents=True)
    client.writer = TranscriptWriter(client.transcript_path(tab.match_id))
    client._on_line({"matchId": tab.match_id, "line": events[0]})
    commit_line = events[1]
    data = commit_line["data"]
    changed = {**data, "commitments": [data["commitments"][1], data["commitments"][0], *data["commitments"][2:]]}
    as_is = {**commit_line, "data": changed}
    body = {k: v for k, v in commit_line.items() if k not in ("sig", "received")}
    resigned = sign_line(tab.seats[1].key, {**body, "data": changed})
    for line, err, why in [(as_is, InvalidSignature, "signed"), (resigned, InvalidProof, "permutation")]:
        with pytest.raises(err, match=why) as exc:
            client._on_line({"matchId": tab.match_id, "line": line})
        assert (err is InvalidSignature) == isinstance(exc.value, InvalidSignature)  # re-signed: its proof fails
        assert len(client.writer.events) == 1 and seat.view.next_line == 2
    client._on_line({"matchId": tab.match_id, "line": commit_line})  # twin: the line as written
    assert len(client.writer.events) == 2 and seat.view.ledger.deal.current is not None
