"""Red team: a house that shows a seat two histories of one match. The house's server
holds the referee's and the dealer's keys, so it can sign a second line for a number the
seat already holds, or chain a line to a header the seat never saw. The seat's client must
stop with :class:`ForkedMatch`, keep both signed lines beside its transcript copy, and
name who signed each. Loopback, one process; the fork comes before any proof is made."""
import asyncio
import json

import pytest

from serving import serving
from zkbluff.errors import ForkedMatch
from zkbluff.protocol.signing import sign_line, sign_receipt
from zkbluff.protocol.transcript import canonical, line_hash
from zkbluff.server import app
from zkbluff.server.app import Server, serve
from zkbluff.server.client import SeatClient, bot_policy

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual", "deal": "dealer"}  # line 2: the dealer's commitment
STEP = 180


def house_key(host, line):
    """The house party's key that signed ``line`` (the referee's or the dealer's)."""
    table = host.table
    for party in (table.referee, table.dealer):
        if sign_line(party.key, line)["sig"] == line["sig"]:
            return party.key
    raise AssertionError(f"line {line['n']} is not the house's")


def resign(host, line, **changes):
    """``line`` with ``changes``, signed again by the house party that signed it; a line with
    the referee's receipt (the dealer's) is received again, its time moved as its stamp was."""
    body = {**{k: v for k, v in line.items() if k != "sig"}, **changes}
    signed = sign_line(house_key(host, line), body)
    if "received" in line:
        signed = sign_receipt(host.table.referee.key, signed, line["received"]["at"] + signed["at"] - line["at"])
    return signed


def lying_flush(fork, only=None):
    """The server's flush, with ``fork(host, n, events)`` giving the lines a seated
    connection is sent in place of line ``n`` (spectators get nothing here); with ``only``
    (a public key), only that seat's connection is lied to, the others get the lines written."""
    async def flush(self):
        if self.table is None:
            return
        events = self.table.writer.events
        for conn in [c for c in self.conns.values() if c.seated]:
            while conn.sent < len(events):
                lie = only is None or (only() if callable(only) else only) == conn.public_key
                for line in fork(self, conn.sent + 1, events) if lie else [events[conn.sent]]:
                    await conn.send({"type": "line", "matchId": self.match_id, "line": line})
                conn.sent += 1
    return flush


def second_line_two(host, n, events):
    """Line 2 as written, then a second line 2 (the dealer's commitment, stamped a moment
    later and signed again by the dealer)."""
    line = events[n - 1]
    if n != 2:
        return [line]
    later = line["at"] + 0.25
    return [line, resign(host, line, at=later, data={**line["data"], "deadline": line["data"]["deadline"] + 0.25})]


def line_two_on_another_header(host, n, events):
    """Line 2 chained to another header (the same header stamped a moment later, signed
    again by the referee), signed again by the dealer."""
    line = events[n - 1]
    if n != 2:
        return [line]
    other_header = resign(host, events[0], at=events[0]["at"] + 0.25)
    return [resign(host, line, prev=line_hash(canonical(other_header)))]


async def _forked(tmp_path, fork, match_keys):
    server = Server(tmp_path / "data", key_folder=match_keys)
    task, url = await serving(server)
    said = []
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(2), said.append, key_folder=match_keys,
                        add_bots=("robo",), reconnect_for=5.0)
    try:
        with pytest.raises(ForkedMatch) as caught:
            await client.host(GAME, OPTIONS)
    finally:
        task.cancel()
        server.close()
    return client, caught.value


@pytest.mark.parametrize("fork, kind, at", [(second_line_two, "two-lines", 2),
                                            (line_two_on_another_header, "broken-link", 1)])
def test_a_client_catches_a_house_that_forks_the_match(fork, kind, at, tmp_path, monkeypatch, match_keys):
    monkeypatch.setattr(app.RoomHost, "flush", lying_flush(fork))
    client, exc = asyncio.run(asyncio.wait_for(_forked(tmp_path, fork, match_keys), STEP))
    assert exc.exit_code == 1 and exc.code == "transcript.fork" and exc.line == at
    # the evidence is on disk beside the seat's transcript copy: both signed lines, who signed each
    saved = json.loads((client.folder / f"{client.match_id}.fork-{at}.json").read_text())
    assert saved == {**exc.evidence, "matchId": client.match_id, "code": client.code, "server": client.url,
                     "seat": 0, "seenAt": saved["seenAt"]}
    assert saved["kind"] == kind and saved["line"] == at
    copy = [json.loads(x) for x in client.transcript_path(client.match_id).read_text().splitlines()]
    assert saved["mine"]["line"] == copy[at - 1]  # the held line, as the copy keeps it
    assert saved["theirs"]["line"] != saved["mine"]["line"]
    assert saved["theirs"]["line"]["n"] == 2  # the second line 2, or a line 2 on another header
    mine_by, theirs_by = saved["mine"]["signer"], saved["theirs"]["signer"]
    header = copy[0]["data"]["parties"]
    if kind == "two-lines":  # the dealer signed both versions of line 2
        assert mine_by["party"] == theirs_by["party"] == "dealer" and mine_by["key"] == header["dealer"]
        assert saved["houseEquivocated"] and [e["party"] for e in saved["equivocators"]] == ["dealer"]
    else:  # the referee signed the held header; the dealer signed line 2 on top of another one
        assert (mine_by["party"], theirs_by["party"]) == ("referee", "dealer")
        assert not saved["houseEquivocated"] and saved["equivocators"] == []
    assert "the server sent" in str(exc) and str(exc.saved) in str(exc)
    # the copy holds only the lines that chain: the forking line is not in it
    assert all(line != saved["theirs"]["line"] for line in copy)


def only_another_line_two(host, n, events):
    """In place of line 2, the dealer's commitment stamped a moment later (signed again)."""
    line = events[n - 1]
    if n != 2:
        return [line]
    return [resign(host, line, at=line["at"] + 0.25, data={**line["data"], "deadline": line["data"]["deadline"] + 0.25})]


async def _two_views(tmp_path, match_keys, monkeypatch):
    server = Server(tmp_path / "data", key_folder=match_keys)
    task, url = await serving(server)
    ann = SeatClient(url, tmp_path / "ann", "ann", bot_policy(1), lambda m: None, key_folder=match_keys,
                     reconnect_for=5.0)
    bob = SeatClient(url, tmp_path / "bob", "bob", bot_policy(2), lambda m: None, key_folder=match_keys,
                     reconnect_for=5.0)
    monkeypatch.setattr(app.RoomHost, "flush", lying_flush(only_another_line_two, only=ann.key.public_hex))
    hosting = asyncio.ensure_future(ann.host(GAME, OPTIONS))
    while ann.code is None:
        await asyncio.sleep(0.02)
    joining = asyncio.ensure_future(bob.join(ann.code))
    try:
        with pytest.raises(ForkedMatch) as caught:
            await hosting
        while bob.writer is None or len(bob.writer.events) < 3:  # bob has the line that exposed it
            await asyncio.sleep(0.02)
    finally:
        joining.cancel()
        task.cancel()
        server.close()
    return ann, bob, caught.value


def test_a_house_that_shows_two_seats_two_histories_is_caught(tmp_path, monkeypatch, match_keys):
    """The house shows ann another line 2 (the dealer's commitment, signed again) than bob.
    Its own referee refuses ann's lines (they chain to her line 2), and to go on it must send
    her bob's, which chain to his: ann's client stops at bob's line 3. Ann's copy held
    against bob's then shows the dealer signed both line 2s: proof."""
    from zkbluff.games.engine.compare import DIVERGED, compare_transcripts

    ann, bob, exc = asyncio.run(asyncio.wait_for(_two_views(tmp_path, match_keys, monkeypatch), STEP))
    assert exc.line == 2 and exc.evidence["kind"] == "broken-link"
    assert exc.evidence["theirs"]["line"]["n"] == 3 and exc.evidence["theirs"]["signer"]["party"] == "seat 1"
    assert exc.evidence["mine"]["signer"]["party"] == "dealer"
    found = compare_transcripts(ann.transcript_path(ann.match_id), bob.transcript_path(bob.match_id))
    assert (found.verdict, found.line) == (DIVERGED, 2)
    assert [e.signer.party for e in found.equivocators] == ["dealer"] and found.house_equivocated
    # the twin: bob, shown the lines the table wrote, holds a copy that chains; he saw no fork
    assert [e["n"] for e in bob.writer.events] == [1, 2, 3] and bob.writer.events[2]["seat"] == 1


# ---------------------------------------------------------------- after the match: the house rewrites its file

def house_rewrite(transcript, seat):
    """The house's rewrite of a finished match, made with the referee's key from its own
    secrets file: the lines before the seat's last move, then, for that number, the
    referee's timeout of the seat and whatever its clock writes after (the end). Every line
    is signed by the party entitled to it and the rules accept each: a valid match."""
    import math

    from zkbluff.games.engine.parties import RefereeParty
    from zkbluff.games.engine.registry import spec_for
    from zkbluff.games.engine.table import secrets_path
    from zkbluff.protocol.transcript import parse_chain, read_lines

    events = list(parse_chain(read_lines(transcript)))
    spec = spec_for(events[0]["data"]["game"], events[0]["data"]["options"])
    k = max(e["n"] for e in events if e["seat"] == seat and e["action"] not in spec.deal.line_roles)
    referee = RefereeParty.restore(spec, json.loads(secrets_path(transcript, "referee").read_text()),
                                   clock=lambda: (referee.deadline if math.isfinite(referee.deadline)
                                                  else referee.view.head_at) + 1.0)
    forged = events[:k - 1]
    for e in forged:
        referee.receive(e, restoring=True)
    while len(forged) < len(events) + 5:
        line = referee.end_line() if referee.view.over else referee.timeout_line()
        if line is None:
            break
        referee.receive(line, restoring=True)
        forged.append(line)
        if line["action"] == "end":
            break
    transcript.write_text("".join(canonical(e) + "\n" for e in forged), encoding="utf-8")
    return k


async def _played(tmp_path, match_keys):
    server = Server(tmp_path / "data", key_folder=match_keys)
    task, url = await serving(server)
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(4), lambda m: None, key_folder=match_keys,
                        add_bots=("robo",))
    try:
        report = await client.host(GAME, {"mode": "casual"})
    finally:
        task.cancel()
    return server, client, report


@pytest.mark.slow
def test_the_seats_copy_exposes_a_house_that_rewrote_its_transcript(tmp_path, match_keys):
    """A whole networked match (real proofs); afterwards the house replaces the seat's last
    move by a timeout and re-signs everything after it. The house's file is a valid match
    (``transcript verify`` accepts it: nothing inside one copy shows the rewrite); the seat's
    copy, held against it, shows the fork, who signed each version, and the referee's
    signatures on both histories."""
    from click.testing import CliRunner

    from zkbluff.cli import main
    from zkbluff.games.engine.compare import DIVERGED, compare_transcripts
    from zkbluff.games.engine.verifier import verify_transcript

    server, client, report = asyncio.run(asyncio.wait_for(_played(tmp_path, match_keys), STEP * 2))
    host = server.rooms[report["code"]]
    mine, theirs = client.transcript_path(report["matchId"]), host.transcript
    assert mine.read_text() == theirs.read_text()  # the twin: before the rewrite, the same history
    assert compare_transcripts(mine, theirs).verdict == "identical"
    k = house_rewrite(theirs, report["seat"])
    server.close()
    assert verify_transcript(theirs)["lines"] >= k  # the rewritten file is a valid match on its own
    assert verify_transcript(mine)["complete"]
    found = compare_transcripts(mine, theirs)
    assert (found.verdict, found.line, found.same_match) == (DIVERGED, k, True)
    assert found.mine_signer.key == client.key.public_hex and found.mine_signer.party == f"seat {report['seat']}"
    assert found.theirs_signer.party == "referee" and found.theirs["action"] == "timeout"
    assert found.house_equivocated and [e.signer.party for e in found.equivocators] == ["referee"]
    out = CliRunner().invoke(main, ["transcript", "compare", str(mine), str(theirs)])
    assert out.exit_code == 1 and f"diverged at line {k}" in out.output and "house equivocated" in out.output


# ---------------------------------------------------------------- the house's result message

def test_a_result_message_that_is_not_the_copys_is_refused():
    """The server computes placements and points; the seat checks them against its own
    verified copy (the end line the referee signed) and seed 003's points table."""
    from zkbluff.errors import TranscriptError
    from zkbluff.games.engine.rules import Result
    from zkbluff.server.client import check_result_message

    report = {"result": Result((2, 1), (3, 7), "target reached")}
    honest = {"placements": [2, 1], "scores": [3, 7], "points": [1, 5], "summary": "bob wins"}
    check_result_message(honest, report)
    for lie in ({"placements": [1, 2]}, {"scores": [7, 3]}, {"points": [5, 5]}):
        with pytest.raises(TranscriptError, match="not what this seat's verified copy gives") as caught:
            check_result_message({**honest, **lie}, report)
        assert caught.value.code == "result.mismatch" and caught.value.exit_code == 1
    with pytest.raises(TranscriptError, match="does not show finished"):
        check_result_message(honest, {"result": None})


# ---------------------------------------------------------------- from the command line

def test_zkbluff_host_exits_1_and_says_what_it_saw(tmp_path, monkeypatch, match_keys):
    """``zkbluff host`` at a house that sends a second line 2: exit 1 (ForkedMatch), one line
    saying which line, who signed each version, that it is proof, and where the evidence is."""
    import threading

    from click.testing import CliRunner

    from zkbluff.cli import main

    monkeypatch.setattr(app.RoomHost, "flush", lying_flush(second_line_two))
    ready, box = threading.Event(), {}

    async def house():
        box["stop"] = asyncio.Event()
        server = Server(tmp_path / "data", key_folder=match_keys)
        port = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(serve(server, "127.0.0.1", 0, lambda p, n: port.set_result(p)))
        box["url"], box["loop"] = f"ws://127.0.0.1:{await asyncio.wait_for(port, STEP)}", asyncio.get_running_loop()
        ready.set()
        await box["stop"].wait()
        task.cancel()
        server.close()

    thread = threading.Thread(target=lambda: asyncio.run(house()), daemon=True)
    thread.start()
    assert ready.wait(STEP)
    try:
        out = CliRunner().invoke(main, ["host", GAME, "--server", box["url"], "--name", "ann", "-o", "mode=casual",
                                        "-o", "deal=dealer", "--add-bot", "robo", "--bot", "2",
                                        "--home", str(tmp_path / "ann")])
    finally:
        box["loop"].call_soon_threadsafe(box["stop"].set)
        thread.join(30)
    assert out.exit_code == 1, out.output
    error = [x for x in out.output.splitlines() if x.startswith("error: ")]
    assert len(error) == 1 and error[0].startswith("error: line 2: the server sent a second, different line 2 "
                                                   "(signed by the dealer: entropy.dealer)")
    assert "proof of equivocation" in error[0]
    saved = error[0].split("kept in ")[1].split(" (hold")[0]
    assert json.loads(open(saved).read())["houseEquivocated"]
