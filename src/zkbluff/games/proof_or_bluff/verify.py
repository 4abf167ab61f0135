"""Offline verification of a Proof or Bluff transcript.

Checks the hash chain, replays the rules through the referee (every move legal, every
public input equal to what the table held, every context bound to its line), verifies
every proof in one batch per key, and checks the reveals: the seats' commitments open,
the entropies give the committed seed, and the seed's deal opens every dealt hand
commitment. Reports the first bad line by number.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from zkbluff.errors import (
    CommitmentMismatch, IllegalMove, InvalidProof, MalformedInput, TranscriptError,
)
from zkbluff.games.proof_or_bluff.referee import Referee
from zkbluff.groth16 import VerifyingKey
from zkbluff.protocol.transcript import parse_chain, read_lines


def verify_transcript(path: Union[str, Path], trusted_keys: Optional[dict[str, VerifyingKey]] = None) -> dict:
    """Verify a transcript file; return a summary. Raises :class:`TranscriptError` (exit
    1) naming the first bad line, or :class:`MalformedInput` (exit 2)."""
    lines = read_lines(path)
    if not lines:
        raise MalformedInput(f"transcript {path}: empty")
    referee: Optional[Referee] = None
    n_proofs = 0
    for event in parse_chain(lines):
        n = event["n"]
        try:
            if n == 1:
                if event["action"] != "header" or event["seat"] is not None:
                    raise MalformedInput("the first line must be the header")
                referee = Referee(event["data"])
                if trusted_keys is not None:
                    for key_id, vk in referee.vks.items():
                        if key_id not in trusted_keys or trusted_keys[key_id].fingerprint() != vk.fingerprint():
                            raise TranscriptError(f"the table's key for {key_id} is not a trusted key", line=1)
                continue
            assert referee is not None
            referee.apply(event, verify_now=False)
            n_proofs += "proof" in event
        except TranscriptError:
            raise
        except MalformedInput as exc:
            raise MalformedInput(f"transcript line {n}: {exc}") from None
        except (IllegalMove, CommitmentMismatch, InvalidProof) as exc:
            raise TranscriptError(f"{exc}", line=n) from None
    assert referee is not None
    if referee.rules.over and not referee.revealed:
        missing = "reveal" if referee.ended else "end and reveal"
        raise TranscriptError(f"the rules end the match here, but the {missing} line(s) are missing",
                              line=len(lines) + 1)
    referee.verify_pending()
    s = referee.rules.s
    return {
        "lines": len(lines), "proofs": n_proofs, "rounds": len(referee.dealt), "table": referee.table,
        "mode": referee.mode, "complete": referee.revealed, "over": referee.rules.over,
        "winner": s.winner, "draw": s.draw, "scores": list(s.scores), "reason": s.end_reason,
        "keys": {k: vk.fingerprint()[:16] for k, vk in referee.vks.items()},
    }
