"""The room directory over Redis (``zkbluff serve --directory redis://…``): which server
holds each room, so that many servers share one lobby (docs/scale-out.md).

- ``zkbluff:room:<CODE>`` -> the holding server's public URL, with a time to live: a
  server claims a new code only where no other holds it (codes unique across servers) and
  refreshes its rooms' entries every ``ttl / 3`` seconds (its presence: a server that dies
  stops refreshing, and its rooms' entries lapse). A Redis that restarts empty is filled
  again by the next refresh; while it is away the rooms keep playing (only look-ups of
  rooms held elsewhere need it).
- ``zkbluff:room:<CODE>:lines``: a pub/sub channel per room (``publish``/``subscribe``).
- The per-address limits shared by every server (:meth:`RoomDirectory.take`,
  :meth:`RoomDirectory.connect`): ``zkbluff:bucket:<what>:<ADDRESS>``, a token bucket on
  Redis's clock (rooms created), and ``zkbluff:conns:<ADDRESS>``, a hash of each server's
  open connections from that address, summed over the servers that are alive
  (``zkbluff:server:<URL>``, the server's presence, refreshed with its rooms): a server
  that dies stops counting within the time to live. While Redis is away each server falls
  back on its own limits.

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


#: a token bucket on Redis's clock: KEYS[1] the bucket, ARGV rate, burst; 1 if a token was taken
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]) or burst, tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local ok = 0
if tokens >= 1 then
  tokens = tokens - 1
  ok = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return ok
"""

#: one more connection from an address: KEYS[1] its hash (server -> open connections),
#: ARGV this server, the cap, the presence key prefix; the live servers' sum is under the
#: cap (a dead server's count is dropped); 1 if counted
CONNECT = """
local total = 0
local counts = redis.call('HGETALL', KEYS[1])
for i = 1, #counts, 2 do
  if counts[i] == ARGV[1] or redis.call('EXISTS', ARGV[3] .. counts[i]) == 1 then
    total = total + tonumber(counts[i + 1])
  else
    redis.call('HDEL', KEYS[1], counts[i])
  end
end
if total >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('EXPIRE', KEYS[1], 86400)
return 1
"""

#: one connection fewer: KEYS[1] the address's hash, ARGV this server
DISCONNECT = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""

SERVER_PREFIX = "zkbluff:server:"


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
        self._take = self.redis.register_script(TAKE)
        self._connect = self.redis.register_script(CONNECT)
        self._disconnect = self.redis.register_script(DISCONNECT)
        self._counted: set[str] = set()  # the addresses this server has a count under

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

    async def take(self, what: str, address: str, rate: float, burst: int) -> bool:
        """A token from ``address``'s bucket ``what`` that every server shares (``rate`` a
        second, bursts up to ``burst``, on Redis's clock); ``False``: none left."""
        try:
            return bool(await self._take(keys=[f"zkbluff:bucket:{what}:{address}"], args=[rate, burst]))
        except RedisError as exc:
            raise self._error(exc, f"could not count {what} of {address}") from None

    async def connect(self, address: str, cap: int) -> bool:
        """Count one more open connection from ``address`` on this server, unless the live
        servers together hold ``cap`` of them already (``False``)."""
        self._counted.add(address)
        try:
            return bool(await self._connect(keys=[f"zkbluff:conns:{address}"],
                                            args=[self._me(), cap, SERVER_PREFIX]))
        except RedisError as exc:
            raise self._error(exc, f"could not count the connections of {address}") from None

    async def disconnect(self, address: str) -> None:
        """One connection from ``address`` fewer on this server."""
        try:
            await self._disconnect(keys=[f"zkbluff:conns:{address}"], args=[self._me()])
        except RedisError as exc:
            raise self._error(exc, f"could not count the connections of {address}") from None

    async def list_connections(self, counts: Mapping[str, int]) -> None:
        """This server's open connections per address, set again (after Redis restarted
        empty, or a count that was lost while it was away); an address it no longer has
        connections from is cleared."""
        me = self._me()
        for address in self._counted - set(counts):
            await self.redis.hdel(f"zkbluff:conns:{address}", me)
        for address, n in counts.items():
            await self.redis.hset(f"zkbluff:conns:{address}", me, n)
        self._counted = set(counts)

    async def locate_many(self, codes: list[str]) -> list[Optional[str]]:
        """The servers holding ``codes`` (``None`` where none does), in one round trip."""
        if not codes:
            return []
        try:
            return [None if h is None else str(h) for h in await self.redis.mget([room_key(c) for c in codes])]
        except RedisError as exc:
            raise self._error(exc, "could not look up rooms") from None

    async def servers(self) -> list[str]:
        """The live servers' addresses (their presence keys), at most 16."""
        found: list[str] = []
        try:
            async for key in self.redis.scan_iter(match=SERVER_PREFIX + "*", count=100):
                found.append(str(key)[len(SERVER_PREFIX):])
                if len(found) >= 16:
                    break
        except RedisError as exc:
            raise self._error(exc, "could not list the servers") from None
        return sorted(found)

    async def refresh(self, codes: Iterable[str], connections: Optional[Mapping[str, int]] = None) -> list[str]:
        """Claim every room this server holds again and renew its presence; the codes
        another server holds now (logged: two servers think they hold one room). A Redis
        that cannot be reached raises, rooms or none (a server with a wrong --directory
        exits 3 at start rather than running alone). ``connections``: this server's open
        connections per address, listed again (:meth:`list_connections`)."""
        try:
            await self.redis.ping()
            if self.server_url is not None:
                await self.redis.set(SERVER_PREFIX + self.server_url, "1", ex=max(1, round(self.ttl)))
            if connections is not None:
                await self.list_connections(connections)
        except RedisError as exc:
            raise self._error(exc, "could not be reached") from None
        lost = [code for code in list(codes) if not await self.claim(code)]
        for code in lost:
            log.error("room directory: room %s is held by %s too", code, await self.locate(code))
        return lost

    async def keep(self, codes: Callable[[], Iterable[str]],
                   connections: Optional[Callable[[], Mapping[str, int]]] = None) -> None:
        """Refresh every ``ttl / 3`` seconds until cancelled; a Redis that is away is
        logged and tried again at the next turn (the rooms keep playing)."""
        down = False
        while True:
            try:
                await self.refresh(codes(), None if connections is None else connections())
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
