"""Mind Bluff over the network: a sealed choice that does not open no longer stalls the
table. The server's referee writes ``seal_complaint``; a person's client answers it by
itself with the box's key. Two houses: one whose referee lies about an honest box (the
client's answer ends the series void, its own copy fails ``referee.fault``), and one
honest referee facing a client whose box does not open (the client cannot answer; the
server's clock times it out and it forfeits the series)."""
from __future__ import annotations

import asyncio
import json

import pytest

from serving import serving
from zkbluff.errors import CommitmentMismatch, RefereeAtFault
from zkbluff.games.engine.parties import TimeLimits
from zkbluff.games.engine.spec import Move
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.games.mind_bluff import spec as mind_spec
from zkbluff.games.mind_bluff.referee import RefereeSecrets
from zkbluff.games.mind_bluff.rules import Phase, SealComplaint
from zkbluff.server.app import Server
from zkbluff.server.client import SeatClient, bot_policy

STEP = 180


async def _host(server, tmp_path, match_keys):
    task, url = await serving(server)
    client = SeatClient(url, tmp_path / "ann", "ann", bot_policy(5), lambda m: None, key_folder=match_keys,
                        add_bots=("house 1",))
    return task, client


def test_a_lying_referee_is_answered_by_the_clients_own_key_and_found_at_fault(match_keys, tmp_path, monkeypatch):
    honest = mind_spec.referee_move

    def lying(secrets, rules, ledger, match_id):  # the house's referee calls every honest box unopenable
        if rules.phase == Phase.EAT_VERDICT:
            return Move(SealComplaint(rules.actor))
        return honest(secrets, rules, ledger, match_id)

    monkeypatch.setattr(mind_spec, "referee_move", lying)

    async def run():
        server = Server(tmp_path / "data", key_folder=match_keys)
        task, client = await _host(server, tmp_path, match_keys)
        with pytest.raises(RefereeAtFault) as exc:  # its own copy, verified offline at the end
            await client.host("mind-bluff", {"humans": "none"})
        host = next(iter(server.rooms.values()))
        task.cancel()
        return exc.value, host.transcript

    fault, path = asyncio.run(asyncio.wait_for(run(), STEP))
    events = [json.loads(x) for x in path.read_text().splitlines()]
    kinds = [e["action"] for e in events]
    assert kinds[-3:] == ["seal_complaint", "seal_answer", "end"]
    assert events[-1]["data"]["placements"] == [1, 1] and "referee is at fault" in events[-1]["data"]["reason"]
    assert fault.line == events[-2]["n"] and fault.code == "referee.fault"
    with pytest.raises(RefereeAtFault):
        verify_transcript(path)                    # anyone's check of the server's copy says the same


def test_a_client_whose_box_does_not_open_cannot_answer_and_forfeits_by_the_servers_clock(
        match_keys, tmp_path, monkeypatch, real_clock_floors):
    real_seal = mind_spec.seal_choice

    def missealed(referee_public, match_id, seat, game, turn, opening, own=None):
        if seat == 0:  # the person's client seals to a key that is not the referee's
            referee_public = RefereeSecrets.fresh().channel_public
        return real_seal(referee_public, match_id, seat, game, turn, opening, own)

    monkeypatch.setattr(mind_spec, "seal_choice", missealed)

    async def run():
        server = Server(tmp_path / "data", key_folder=match_keys, limits=TimeLimits(proof=1.0), tick=0.05)
        task, client = await _host(server, tmp_path, match_keys)
        with pytest.raises(CommitmentMismatch) as exc:  # its own view refuses the answer it would make
            await client.host("mind-bluff", {"humans": "none"})
        assert exc.value.code == "seal.answer"
        host = next(iter(server.rooms.values()))
        for _ in range(600):                          # the server's clock: the proof limit, then the timeout
            if host.table is not None and host.table.view.complete:
                break
            await asyncio.sleep(0.05)
        task.cancel()
        return host.transcript

    path = asyncio.run(asyncio.wait_for(run(), STEP))
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e["action"] for e in events][-4:] == ["eat", "seal_complaint", "timeout", "end"]
    assert events[-2]["clock"]["limit"] == "proof" and events[-1]["data"]["placements"] == [2, 1]
    report = verify_transcript(path)
    assert report["complete"] and report["winner"] == 1
