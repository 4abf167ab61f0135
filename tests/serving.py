"""A zkbluff server on loopback for a test: started on a free port, its task and URL."""
from __future__ import annotations

import asyncio

from zkbluff.server.app import serve

STARTED_WITHIN = 30.0  # seconds for the server to listen


async def serving(server, port: int = 0) -> tuple["asyncio.Task[None]", str]:
    """Serve ``server`` on 127.0.0.1 (``port``; 0 for a free one): the serving task (cancel it
    to stop) and the ``ws://`` URL, once the server listens."""
    ready: "asyncio.Future[int]" = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(server, "127.0.0.1", port, lambda p, n: ready.set_result(p)))
    return task, f"ws://127.0.0.1:{await asyncio.wait_for(ready, STARTED_WITHIN)}"
