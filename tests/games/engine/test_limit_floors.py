"""Header time limits have floors: a house that writes ``limits: {"idle": 0.001}`` would
time every honest seat out. Every party refuses such a table (``header.limits``): the
referee party before it writes the header, every view of a header (each seat's client,
spectators), ``zkbluff transcript verify``, and the server before it opens a room."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zkbluff.cli import main
from zkbluff.errors import TRANSCRIPT_CODES, CommitmentMismatch, LimitTooShort, TranscriptError
from zkbluff.games.engine import spec as spec_module
from zkbluff.games.engine.parties import RefereeParty, TimeLimits
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.registry import spec_for
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.protocol.signing import SigningKey, sign_line

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "transcripts"


def _base(name="mind-bluff"):
    lines = (VECTORS / f"{name}.jsonl").read_text().splitlines()
    referee = SigningKey.from_secret_hex(json.loads((VECTORS / f"{name}.parties.json").read_text())["referee"])
    return lines, referee


def _with_limits(header_line, referee, **limits):
    h = json.loads(header_line)
    h["data"]["limits"] = {**h["data"]["limits"], **limits}
    h.pop("sig")
    return sign_line(referee, h)


def test_the_floors_are_one_table_per_game_and_a_games_own_limit_is_floored_at_its_rules_value():
    mind = spec_for("mind-bluff")
    assert mind.floors() == dict(spec_module.LIMIT_FLOORS)
    bluffers = spec_for("bluffers", {"players": "2"})
    assert bluffers.floors()["move"] == bluffers.time_limits["move"] == 30.0
    bluffers.check_limits({"move": 30.0, "idle": 20.0})  # at the floor: accepted
    with pytest.raises(LimitTooShort, match="move 29 s"):
        bluffers.check_limits({"move": 29.0})
    mind.check_limits({"idle": 600.0, "unknown": 0.5})  # a name without a floor times nothing here
    with pytest.raises(LimitTooShort, match=r"idle 0.001 s \(the floor is 20 s\)") as exc:
        mind.check_limits({"idle": 0.001, "proof": 60.0})
    assert exc.value.code == "header.limits" and exc.value.exit_code == 1 and "header.limits" in TRANSCRIPT_CODES


def test_a_header_with_a_limit_below_its_floor_is_refused_by_every_view():
    lines, referee = _base()
    short = _with_limits(lines[0], referee, idle=0.001)
    with pytest.raises(LimitTooShort) as exc:
        Referee(short, verify_now=True)
    assert exc.value.code == "header.limits"
    # twin: the same header re-signed with the floor itself is accepted
    Referee(_with_limits(lines[0], referee, idle=spec_module.LIMIT_FLOORS["idle"]), verify_now=True)


def test_transcript_verify_fails_a_header_below_the_floor_on_line_1_with_its_code(tmp_path):
    lines, referee = _base()
    path = tmp_path / "short.jsonl"
    path.write_text("\n".join([json.dumps(_with_limits(lines[0], referee, proof=1.0), sort_keys=True,
                                          separators=(",", ":"))] + lines[1:]) + "\n")
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(path)
    assert (exc.value.line, exc.value.code) == (1, "header.limits")
    out = CliRunner().invoke(main, ["transcript", "verify", str(path), "--json"])
    assert out.exit_code == 1 and json.loads(out.output)["code"] == "header.limits"
    # twin: at the floor the header passes; line 2 then links to the old header's hash
    path.write_text("\n".join([json.dumps(_with_limits(lines[0], referee, proof=10.0), sort_keys=True,
                                          separators=(",", ":"))] + lines[1:]) + "\n")
    with pytest.raises(TranscriptError) as exc:
        verify_transcript(path)
    assert (exc.value.line, exc.value.code) == (2, "line.chain")


def test_a_referee_party_refuses_to_open_a_table_below_the_floors():
    spec = spec_for("mind-bluff")
    with pytest.raises(LimitTooShort, match="idle"):
        RefereeParty(spec, limits=TimeLimits(idle=0.001))
    with pytest.raises(LimitTooShort, match="proof"):
        RefereeParty(spec, limits=TimeLimits(proof=9.5))
    assert RefereeParty(spec, limits=TimeLimits(proof=10.0, idle=20.0, entropy=10.0, deal=10.0)).limit_table()[
        "idle"] == 20.0


def test_a_server_refuses_to_start_with_limits_below_the_floors(tmp_path):
    from zkbluff.server.app import Server

    with pytest.raises(LimitTooShort, match="zkbluff serve"):
        Server(tmp_path / "a", limits=TimeLimits(idle=1.0))
    Server(tmp_path / "b", limits=TimeLimits(idle=20.0)).close()
    out = CliRunner().invoke(main, ["serve", "--data", str(tmp_path / "c"), "--idle-limit", "0.001"])
    assert out.exit_code == 1 and "idle" in out.output


def test_the_floor_scale_is_the_processs_own_and_scales_every_floor(monkeypatch):
    spec = spec_for("mind-bluff")
    monkeypatch.setattr(spec_module, "FLOOR_SCALE", 0.01)
    spec.check_limits({"idle": 1.0})  # a test running a real clock in seconds
    with pytest.raises(LimitTooShort):
        spec.check_limits({"idle": 0.1})


def test_a_seats_client_refuses_a_header_below_the_floor_and_keeps_no_view():
    """What a client does with the header it is sent (``Seat.receive``, the engine's seat in
    every client): the floor is checked before anything else of the table is taken."""
    from zkbluff.games.engine.parties import Seat

    lines, referee = _base()
    seat = Seat(spec_for("mind-bluff", {"humans": "none"}), 0, "ann")
    with pytest.raises(LimitTooShort):
        seat.receive(_with_limits(lines[0], referee, proof=0.5))
    assert seat.view is None
    with pytest.raises(CommitmentMismatch, match="another public key"):  # twin: at the floor it gets past the
        seat.receive(_with_limits(lines[0], referee, proof=10.0))       # limits, to its own key (not listed)
