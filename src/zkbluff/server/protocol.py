"""The messages between the server and its clients (JSON text frames, one object each).

The match itself travels in the engine's own messages, unchanged: a seat's public
``join``, its private ``deal-secrets`` message for the dealer, and signed lines (see
:mod:`zkbluff.games.engine.parties`). This module adds only the envelope around them
and the lobby: who a connection is (it signs the server's per-connection challenge with
its Ed25519 key), which room, which seat.

Client → server (``type``):

- ``create`` {game, options, name, publicKey, sig}: a new room, the sender its owner;
- ``join`` {code, name, publicKey, have, sig}: take a seat in a room, or come back to the
  seat this key holds (``have``: how many lines of the current match it already has);
- ``watch`` {code, have}: a spectator (public lines only);
- ``add-bot`` {name}, ``remove-bot`` {seat}, ``start`` {}, ``again`` {}: the owner's lobby;
- ``seat-join`` {join, toDealer}: the seat's engine messages for the match it was seated in;
- ``line`` {line}: a signed line of the seat's own.
- ``seal`` {seal}: the seat's chain of sealed moves for its next turns (a list of
  ``{kind, data, proofs}``, in order: a game's automatic moves proved in advance, Bluffers),
  kept by the referee, which plays one each time one of those turns times out
  (:meth:`~zkbluff.games.engine.table.Table.leave_seal`).

Server → client: ``hello`` {challenge}, ``room`` {...}, ``seat`` {seat, matchId, game,
options, names}, ``line`` {matchId, line}, ``result`` {...}, ``error`` {error, message}.

A frame larger than :data:`~zkbluff.server.rooms.MAX_MESSAGE_BYTES` is refused by the
transport before it is read whole; anything else that is not one JSON object with a
``type`` is refused with an ``error`` reply and changes nothing.
"""
from __future__ import annotations

import json
import secrets
from typing import Any, Mapping

from zkbluff.errors import MalformedInput, ZkbluffError
from zkbluff.protocol.signing import SigningKey, check_public_key, verify_signature
from zkbluff.protocol.transcript import canonical
from zkbluff.server.rooms import MAX_MESSAGE_BYTES

AUTH_DOMAIN = "zkbluff-server-auth-v1\n"
DEFAULT_PORT = 8765


def new_challenge() -> str:
    return secrets.token_hex(16)


def decode(raw: Any) -> dict[str, Any]:
    """One client message, or :class:`MalformedInput` saying what was wrong with it."""
    if isinstance(raw, (bytes, bytearray)):
        raise MalformedInput(f"expected a JSON text frame, got {len(raw)} binary bytes")
    if not isinstance(raw, str):
        raise MalformedInput("expected a JSON text frame")
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise MalformedInput(f"message of {len(raw)} characters; the limit is {MAX_MESSAGE_BYTES} bytes")
    try:
        msg = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise MalformedInput(f"not JSON ({exc.__class__.__name__}: {str(exc)[:80]})") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise MalformedInput("expected a JSON object with a string 'type'")
    return msg


def encode(msg: Mapping[str, Any]) -> str:
    return json.dumps(msg, separators=(",", ":"))


def auth_bytes(msg: Mapping[str, Any], challenge: str) -> bytes:
    body = {k: v for k, v in msg.items() if k != "sig"}
    return (AUTH_DOMAIN + canonical({**body, "challenge": challenge})).encode("utf-8")


def sign_auth(key: SigningKey, msg: Mapping[str, Any], challenge: str) -> dict[str, Any]:
    """``msg`` with ``publicKey`` and a signature binding it to this connection's challenge."""
    body = {**{k: v for k, v in msg.items() if k != "sig"}, "publicKey": key.public_hex}
    return {**body, "sig": key.sign(auth_bytes(body, challenge))}


def check_auth(msg: Mapping[str, Any], challenge: str) -> str:
    """The public key that signed ``msg`` for this connection (a message signed for another
    connection, i.e. replayed, does not verify)."""
    public_key = check_public_key(msg.get("publicKey"), "publicKey")
    verify_signature(public_key, auth_bytes(msg, challenge), msg.get("sig"), "the connecting client")
    return public_key


def error_reply(exc: BaseException, about: Any = None, line: Any = None) -> dict[str, Any]:
    """The server's refusal: the error's class (``error``), its stable reason (``code``, the
    client acts on it: ``line.stamp`` is a line to stamp again), the message it answers
    (``about``) and, for a refused line, that line's number (``n``: the client tells its own
    line from the one a rival's took)."""
    if isinstance(exc, ZkbluffError):
        name, exit_code, reason = type(exc).__name__, exc.exit_code, exc.code
    else:
        name, exit_code, reason = "InternalError", 1, "error"
    out: dict[str, Any] = {"type": "error", "error": name, "exit": exit_code, "code": reason,
                           "message": str(exc)[:500]}
    if about is not None:
        out["about"] = about
    if isinstance(line, dict) and type(line.get("n")) is int:
        out["n"] = line["n"]
    return out
