"""The room directory over Redis (``zkbluff serve --directory redis://…``): which server
holds each room, so that many servers share one lobby (docs/scale-out.md).

- ``zkbluff:room:<CODE>`` -> the holding server's public URL, with a time to live: a
  server claims a new code only where no other holds it (codes unique across servers) and
  refreshes its rooms' entries every ``ttl / 3`` seconds (its presence: a server that dies
  stops refreshing, and its rooms' entries lapse). A Redis that restarts empty is filled
  again by the next refresh; while it is away the rooms keep playing (only look-ups of
  rooms held elsewhere need it).
- ``zkbluff:room:<CODE>:lines``: a pub/sub channel per room, where the holder publishes
  every public line it sends, for spectators connected elsewhere.

A room still lives in one process at a time. A server asked for a room another holds
answers ``{"type": "redirect", "url": …}`` and the client follows (server/client.py).
Needs the ``server`` extra (``redis``); imported only for ``--directory``.
"""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, AsyncIterator, Callable, Iterable, Mapping, Optional

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from zkbluff.errors import MalformedInput, StorageError

log = logging.getLogger("zkbluff.server")

#: set KEYS[1] to ARGV[1] for ARGV[2] seconds unless another server holds it; 1 if ours now
CLAIM = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return 1
end
return 0
"""


def room_key(code: str) -> str:
    return f"zkbluff:room:{code}"


def lines_channel(code: str) -> str:
    return f"zkbluff:room:{code}:lines"


def check_server_url(url: object) -> str:
    """A server's public address as a directory or a redirect names it: ws:// or wss://."""
    if not isinstance(url, str) or not url.startswith(("ws://", "wss://")) or len(url) > 300 \
            or any(ord(c) <= 32 for c in url):
        raise MalformedInput(f"server address: expected ws://HOST:PORT or wss://…, got {str(url)[:60]!r}")
    return url


class RoomDirectory:
    """One server's view of the shared directory. ``server_url``: the address clients are
    sent to for this server's rooms (set by :meth:`bind` once the server listens)."""

    def __init__(self, url: str, server_url: Optional[str] = None, ttl: float = 30.0, timeout: float = 2.0):
        self.where = url.split("@")[-1]  # (no password in messages)
        self.ttl, self.server_url = ttl, None if server_url is None else check_server_url(server_url)
        self.redis = aioredis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                             decode_responses=True)
        self._claim = self.redis.register_script(CLAIM)

    def bind(self, server_url: str) -> None:
        if self.server_url is None:
            self.server_url = check_server_url(server_url)

    def _error(self, exc: RedisError, what: str) -> StorageError:
        return StorageError(f"room directory {self.where} {what}: unreachable ({exc})")

    def _me(self) -> str:
        if self.server_url is None:
            raise StorageError("room directory: this server's address is not known yet (bind it first)")
        return self.server_url

    async def claim(self, code: str) -> bool:
        """Hold ``code`` for this server; ``False`` if another server holds it."""
        try:
            return bool(await self._claim(keys=[room_key(code)], args=[self._me(), max(1, round(self.ttl))]))
        except RedisError as exc:
            raise self._error(exc, f"could not claim room {code}") from None

    async def locate(self, code: str) -> Optional[str]:
        """The server holding ``code``, or ``None``."""
        try:
            holder = await self.redis.get(room_key(code))
        except RedisError as exc:
            raise self._error(exc, f"could not look up room {code}") from None
        return None if holder is None else str(holder)

    async def refresh(self, codes: Iterable[str]) -> list[str]:
        """Claim every room this server holds again (its presence); the codes another
        server holds now (logged: two servers think they hold one room). A Redis that
        cannot be reached raises, rooms or none (a server with a wrong --directory exits 3
        at start rather than running alone)."""
        try:
            await self.redis.ping()
        except RedisError as exc:
            raise self._error(exc, "could not be reached") from None
        lost = [code for code in list(codes) if not await self.claim(code)]
        for code in lost:
            log.error("room directory: room %s is held by %s too", code, await self.locate(code))
        return lost

    async def keep(self, codes: Callable[[], Iterable[str]]) -> None:
        """Refresh every ``ttl / 3`` seconds until cancelled; a Redis that is away is
        logged and tried again at the next turn (the rooms keep playing)."""
        down = False
        while True:
            try:
                await self.refresh(codes())
                if down:
                    log.warning("room directory %s is back: this server's rooms are listed again", self.where)
                down = False
            except StorageError as exc:
                if not down:
                    log.error("%s; the rooms keep playing, retrying every %.0f s", exc, self.ttl / 3)
                down = True
            await asyncio.sleep(self.ttl / 3)

    async def publish(self, code: str, message: Mapping[str, Any]) -> None:
        """Send a public message (a line, a result) to the room's spectators elsewhere."""
        try:
            await self.redis.publish(lines_channel(code), json.dumps(message, separators=(",", ":")))
        except RedisError as exc:
            raise self._error(exc, f"could not publish to room {code}") from None

    async def subscribe(self, code: str) -> AsyncIterator[dict[str, Any]]:
        """The room's public messages as its holder publishes them, from now on."""
        pubsub = self.redis.pubsub()
        try:
            await pubsub.subscribe(lines_channel(code))
            while True:
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                if msg is not None and msg.get("type") == "message":
                    yield json.loads(msg["data"])
        except RedisError as exc:
            raise self._error(exc, f"could not follow room {code}") from None
        finally:
            await pubsub.aclose()

    async def close(self) -> None:
        await self.redis.aclose()
