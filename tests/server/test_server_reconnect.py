"""A client whose connection drops reconnects by itself for ``reconnect_for`` seconds from
the moment the connection was lost (docs/hosting.md: "for two minutes"), however long the
connection had been up before: a seat in a long match, or a spectator, is not given up the
moment its server restarts. Its twin: a server that never comes back is given up after
the window, not before. In-process servers on loopback, a lobby room (no proofs)."""
import asyncio
import time

from websockets.asyncio.client import connect

from zkbluff.errors import MalformedInput
from zkbluff.server.app import Server, serve
from zkbluff.server.client import SeatClient, Spectator, bot_policy

#: the clients' reconnect_for, shorter than the time their connection was up; where the server
#: comes back, long enough that its restart (in-process, no proofs) is well within it
SHORT, LONG = 3.0, 10.0
STEP = 120  # a bound on any one wait on a loaded machine


async def _start(data, port=0):
    server = Server(data)
    ready = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", port, lambda p, n: ready.set_result(p)))
    return server, task, await asyncio.wait_for(ready, STEP)


async def _stop(task):
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


async def _until(cond, what):
    for _ in range(STEP * 20):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def _a_room_whose_owner_waits(tmp_path, window):
    """A server, and a client that created a two-seat room and waits in its lobby, connected
    for longer than its reconnect window."""
    server, task, port = await _start(tmp_path / "data")
    said = []
    client = SeatClient(f"ws://127.0.0.1:{port}", tmp_path / "ann", "ann", bot_policy(1), said.append,
                        reconnect_for=window)
    hosting = asyncio.ensure_future(client.host("proof-or-bluff", {"mode": "casual"}))
    await _until(lambda: client.code is not None and client.code in server.rooms, "the room")
    code = client.code
    await _until(lambda: client.key.public_hex in server.rooms[code].conns, "the owner's connection")
    await asyncio.sleep(window + 1.0)  # the connection is now older than the window
    assert not hosting.done()
    return server, task, port, client, hosting, code


async def _back(tmp_path):
    server, task, port, client, hosting, code = await _a_room_whose_owner_waits(tmp_path, LONG)
    watcher = Spectator(f"ws://127.0.0.1:{port}", say=lambda m: None, reconnect_for=LONG)
    watching = asyncio.ensure_future(watcher.watch(code))
    await _until(lambda: any(True for _ in server.rooms[code].spectators), "the spectator")
    await asyncio.sleep(LONG + 1.0)
    await _stop(task)  # the server goes down ...
    await asyncio.sleep(0.5)  # (the clients' first attempts find nobody listening)
    again, task, _ = await _start(tmp_path / "data", port)  # ... and comes back on the same port
    # both come back by themselves: the owner to its room, the spectator to its watch
    await _until(lambda: client.key.public_hex in again.rooms[code].conns, "the owner back in its room")
    await _until(lambda: any(True for _ in again.rooms[code].spectators), "the spectator back")
    assert not hosting.done() and not watching.done()
    for t in (hosting, watching):
        t.cancel()
    await asyncio.gather(hosting, watching, return_exceptions=True)
    await _stop(task)


def test_a_client_up_longer_than_its_window_reconnects_after_a_restart(tmp_path):
    asyncio.run(asyncio.wait_for(_back(tmp_path), 600))


async def _gone(tmp_path):
    server, task, port, client, hosting, code = await _a_room_whose_owner_waits(tmp_path, SHORT)
    lost = time.monotonic()  # (before the client can see the loss)
    await _stop(task)  # the server goes down for good
    try:
        await asyncio.wait_for(hosting, STEP)
    except MalformedInput as exc:
        assert "could not reconnect" in str(exc)
    else:
        raise AssertionError("the client did not give up on a server that never came back")
    assert time.monotonic() - lost >= SHORT  # it tried for the whole window first
    # and nobody is listening: the port was really closed
    try:
        await connect(f"ws://127.0.0.1:{port}", open_timeout=5)
    except OSError:
        pass
    else:
        raise AssertionError("a server still listens")


def test_a_client_gives_up_a_server_gone_for_good_after_its_window(tmp_path):
    asyncio.run(asyncio.wait_for(_gone(tmp_path), 600))
