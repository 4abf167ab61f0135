"""The server's referee clock: its deadlines come from the transcript's stamps, so a
server restarted from its data resumes every wait where it was (it does not start the
clock again), and a timeout is written strictly after its deadline, never at it.
Real parties and proofs; the clock is injected (the test never sleeps)."""
from zkbluff.games.engine.parties import Seat, TimeLimits
from zkbluff.games.engine.registry import spec_for
from zkbluff.protocol.signing import SigningKey
from zkbluff.server.app import RoomHost, Server
from zkbluff.server.rooms import Member, Room, RoomState

GAME = "proof-or-bluff"  # with the house's deal in proof: the seats' entropy window comes first
IDLE = 30.0


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def _server(data, clock):
    return Server(data, clock=clock, limits=TimeLimits(proof=IDLE, idle=IDLE, entropy=IDLE, deal=IDLE))


def _follow(seats, table):
    for s in seats:
        for e in table.writer.events[s.view.next_line - 1 if s.view else 0:]:
            s.receive(e)


def _a_match_waiting_for_a_seat(tmp_path, clock):
    """Two people's seats (in this process, as their clients would be) at a server table,
    dealt, the first seat to move; the server's data folder."""
    server = _server(tmp_path / "data", clock)
    spec = spec_for(GAME, {"deal": "dealer"})
    keys = [SigningKey.generate() for _ in range(2)]
    room = Room("CLOCKTST", GAME, keys[0].public_hex, 2, 2,
                [Member("ann", False, keys[0].public_hex), Member("bob", False, keys[1].public_hex)],
                RoomState.PLAYING)
    host = RoomHost(server, room, dict(spec.options), tmp_path / "data" / "rooms" / room.code)
    server.rooms[room.code] = host
    host.begin()
    seats = [Seat(spec, i, ["ann", "bob"][i], key=keys[i], clock=clock) for i in range(2)]
    for i, s in enumerate(seats):
        host.seat_join(i, {"type": "seat-join", "join": s.join(), "toDealer": s.to_dealer()})
    host.launch()
    for _ in range(2):  # each seat's entropy commitment, then (all committed) its opening, a second apart
        for s in seats:
            _follow(seats, host.table)
            clock.now += 1.0
            host.submit(s.deal_line())
    _follow(seats, host.table)
    assert host.table.view.deal_ready and host.table.to_move is not None
    return server, host, seats


def test_a_restarted_server_resumes_the_referees_clock_from_the_transcript(tmp_path):
    clock = Clock(1_000_000.0)
    server, host, seats = _a_match_waiting_for_a_seat(tmp_path, clock)
    last = host.table.writer.events[-1]
    deadline = host.table.referee.deadline
    assert deadline == last["at"] + IDLE  # the seat to move's idle limit, from the last line's stamp
    server.close()

    clock.now += IDLE / 2  # the server was down for half the wait
    again = _server(tmp_path / "data", clock)
    assert again.load() == 1
    table = again.rooms["CLOCKTST"].table
    assert table.writer.events == host.table.writer.events
    # resumed: the same deadline, not a fresh IDLE seconds from the restart
    assert table.referee.deadline == deadline != clock.now + IDLE
    n, to_move = len(table.writer.events), table.to_move
    clock.now = deadline - 1.0
    assert again.rooms["CLOCKTST"].poll() is False and len(table.writer.events) == n
    clock.now = deadline  # at the deadline: not yet
    assert again.rooms["CLOCKTST"].poll() is False and len(table.writer.events) == n
    clock.now = deadline + 0.001  # strictly after it: the timeout
    assert again.rooms["CLOCKTST"].poll() is True
    timeout = table.writer.events[n]
    assert timeout["action"] == "timeout" and timeout["seat"] is None and timeout["data"]["seat"] == to_move
    assert timeout["clock"]["deadline"] == deadline and timeout["at"] > deadline
    again.close()


def test_a_restart_while_the_entropy_window_is_open_keeps_its_deadline(tmp_path):
    """The seats' entropy window is the dealer's line's deadline (in the transcript): after a
    restart a seat's entropy within it is still taken, and the forfeit comes only after it."""
    clock = Clock(2_000_000.0)
    server = _server(tmp_path / "data", clock)
    spec = spec_for(GAME, {"deal": "dealer"})
    keys = [SigningKey.generate() for _ in range(2)]
    room = Room("WINDOWTS", GAME, keys[0].public_hex, 2, 2,
                [Member("ann", False, keys[0].public_hex), Member("bob", False, keys[1].public_hex)],
                RoomState.PLAYING)
    host = RoomHost(server, room, dict(spec.options), tmp_path / "data" / "rooms" / room.code)
    host.begin()
    seats = [Seat(spec, i, ["ann", "bob"][i], key=keys[i], clock=clock) for i in range(2)]
    for i, s in enumerate(seats):
        host.seat_join(i, {"type": "seat-join", "join": s.join(), "toDealer": s.to_dealer()})
    host.launch()
    deadline = host.table.writer.events[-1]["data"]["deadline"]
    assert host.table.referee.deadline == deadline
    server.close()

    clock.now = deadline - 2.0  # restarted near the end of the window
    again = _server(tmp_path / "data", clock)
    assert again.load() == 1
    host = again.rooms["WINDOWTS"]
    assert host.table.referee.deadline == deadline
    _follow(seats, host.table)
    host.submit(seats[0].deal_line())  # in time: taken
    assert host.table.view.ledger.deal.seats.keys() == {0}
    clock.now = deadline
    assert host.poll() is False
    clock.now = deadline + 0.5
    assert host.poll() is True
    forfeit = host.table.writer.events[-2]
    assert forfeit["action"] == "entropy.forfeit" and forfeit["data"]["seats"] == [1]
    assert host.table.view.over and host.table.writer.events[-1]["action"] == "end"
    again.close()
