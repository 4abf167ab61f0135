"""Offline verification of a transcript of any registered game.

Checks the hash chain, builds the referee from the header (dispatching on its ``game``:
an unknown game is :class:`MalformedInput`), replays every line through it (who may make
it, its signature, the rules, every public input equal to what the table held, every
context bound to its line), checks the closing line of the deal, and verifies every
proof in one batch per key. Reports the first bad line by number. A transcript whose
complaint line was upheld (the dealer sent a hand that does not open its commitment)
verifies to the end and then raises :class:`DealerAtFault` naming the complaint line.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Union

from zkbluff.errors import (
    CommitmentMismatch, DealerAtFault, IllegalMove, InvalidProof, MalformedInput, TranscriptError,
    UnfoundedComplaint,
)
from zkbluff.games.engine.referee import Referee
from zkbluff.groth16 import VerifyingKey
from zkbluff.protocol.transcript import parse_chain, read_lines


def verify_transcript(path: Union[str, Path], trusted_keys: Optional[dict[str, VerifyingKey]] = None,
                      seat_keys: Optional[Mapping[int, str]] = None) -> dict[str, Any]:
    """Verify a transcript file; return a summary. Raises :class:`TranscriptError` (exit
    1) naming the first bad line, or :class:`MalformedInput` (exit 2).

    ``trusted_keys``: the verifying keys the statements must use. ``seat_keys``: public
    keys a seat is known by (seat number → hex); the header must list them, so a house
    that rewrote a whole match under fresh seat keys is caught."""
    lines = read_lines(path)
    if not lines:
        raise MalformedInput(f"transcript {path}: empty")
    referee: Optional[Referee] = None
    for event in parse_chain(lines):
        n = event["n"]
        try:
            if referee is None:
                referee = Referee(event, verify_now=False)
                if trusted_keys is not None:
                    for key_id, vk in referee.vks.items():
                        if key_id not in trusted_keys or trusted_keys[key_id].fingerprint() != vk.fingerprint():
                            raise TranscriptError(f"the table's key for {key_id} is not a trusted key", line=1)
                for seat, key in (seat_keys or {}).items():
                    if not 0 <= seat < len(referee.seat_keys) or referee.seat_keys[seat] != key.lower():
                        raise TranscriptError(f"the header does not list {key[:16]}… as seat {seat}'s key", line=1)
                continue
            referee.apply(event)
        except TranscriptError:
            raise
        except MalformedInput as exc:
            raise MalformedInput(f"transcript line {n}: {exc}") from None
        except (IllegalMove, CommitmentMismatch, InvalidProof, UnfoundedComplaint) as exc:
            raise TranscriptError(f"{exc}", line=n) from None
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise MalformedInput(f"transcript line {n}: malformed data ({exc})") from None
    assert referee is not None
    if referee.over and not referee.complete:
        missing = "closing" if referee.ended else "end and closing"
        raise TranscriptError(f"the rules end the match here, but the {missing} line(s) are missing",
                              line=len(lines) + 1)
    referee.batch.verify()
    fault = referee.spec.deal.fault(referee.ledger)
    if fault is not None:  # a whole, well-formed transcript whose complaint a verifier upholds
        raise DealerAtFault(f"the dealer is at fault (complaint upheld): {fault[1]}", line=fault[0])
    result = referee.result()
    winners = result.winners if result else ()
    return {
        "game": referee.spec.game, "options": dict(referee.spec.options), "lines": len(lines),
        "proofs": referee.n_proofs, "complete": referee.complete, "over": referee.over,
        "result": result, "scores": list(result.scores) if result else None,
        "winner": winners[0] if len(winners) == 1 else None,
        "draw": result is not None and len(winners) == len(result.placements),
        "summary": referee.spec.summary(result, referee.seat_names),
        "keys": {k: vk.fingerprint()[:16] for k, vk in referee.vks.items()},
    }
