"""Offline verification of a transcript of any registered game.

Checks the hash chain, builds the referee from the header (dispatching on its ``game``:
an unknown game is :class:`MalformedInput`), replays every line through it (who may make
it, its signature, the rules, every public input equal to what the table held, every
context bound to its line), checks the closing line of the deal, and verifies every
proof in one batch per key. Reports the first bad line by number. A transcript whose
complaint line was upheld (the dealer sent a hand that does not open its commitment)
verifies to the end and then raises :class:`DealerAtFault` naming the complaint line.

Keys (:mod:`zkbluff.ceremony.trust`): by default only the pinned project keys are
trusted; a header naming a per-match ceremony (``ceremony``: the record's digest and its
folder beside the transcript) adds that match's keys once the record verifies and holds a
contribution from every seat the header lists; ``keys_dir`` adds a deliberate private key
set (reported loudly). Any other key: :class:`TranscriptError` on line 1 naming the
statement and the key ("untrusted key").
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Union

from zkbluff.ceremony.trust import TrustContext
from zkbluff.errors import (
    CommitmentMismatch, DealerAtFault, Equivocation, IllegalMove, InvalidCeremony, InvalidProof, MalformedInput,
    RefereeAtFault, TranscriptError, UnfoundedComplaint, UntrustedKey, ZkbluffError,
)
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.spec import Role
from zkbluff.protocol.signing import check_line_signature
from zkbluff.protocol.transcript import parse_chain, read_lines


HEADER_CODE = "header.malformed"


def _earlier_bad_proof(referee: Optional[Referee], line: int) -> None:
    """Before reporting a failure on ``line``: raise instead for a signature on an earlier
    line or on ``line`` itself (a line's signature is checked before its data; one that
    failed earlier in the line was never collected), or for a proof on an earlier line, that
    does not verify, whichever line comes first (a signature before a proof of its own line).
    Signatures and proofs are batched to the end, so without this a later failure would hide
    an earlier bad one and the first bad line would not be the one named."""
    if referee is None:
        return
    bad_signature: Optional[TranscriptError] = None
    if len(referee.signatures):
        try:
            referee.signatures.verify()
        except TranscriptError as exc:
            if exc.line is not None and exc.line <= line:
                bad_signature = exc
    limit = line if bad_signature is None or bad_signature.line is None else bad_signature.line
    if len(referee.batch):
        try:
            referee.batch.verify()
        except TranscriptError as exc:
            if exc.line is not None and exc.line < limit:
                raise
        # the batch's proofs (all before ``line``, or on it) verify, or fail only from ``limit`` on
    if bad_signature is not None:
        raise bad_signature


def _at_line(exc: ZkbluffError, line: int) -> ZkbluffError:
    """``exc`` as the verifier reports it: a :class:`TranscriptError` (exit 1) or a
    :class:`MalformedInput` (exit 2) naming ``line`` and the reason code; a default-coded
    malformed input is the header's (line 1) or the line's data (``line.malformed``)."""
    if isinstance(exc, TranscriptError):
        if exc.line is None:  # the line number is the verifier's to add
            return type(exc)(exc.reason, line=line, code=exc.code)
        return exc
    code = exc.code
    if isinstance(exc, MalformedInput):
        if code == "malformed":
            code = HEADER_CODE if line == 1 else "line.malformed"
        if exc.line is None:  # the line number is the verifier's to add; the error keeps its type
            exc.args = (f"transcript line {line}: {exc}",)
            exc.line = line
        exc.code = code
        return exc
    if isinstance(exc, (IllegalMove, CommitmentMismatch, InvalidProof, UnfoundedComplaint)):
        return TranscriptError(f"{exc}", line=line, code=code)
    return exc


def ceremony_folder(transcript: Path, header: Mapping[str, Any]) -> Path:
    """The folder of the per-match ceremony record the header names (beside the transcript)."""
    record = header["ceremony"].get("record") if isinstance(header.get("ceremony"), dict) else None
    if not isinstance(record, str) or not record or "/" in record or "\\" in record or record.startswith("."):
        raise MalformedInput(f"header: ceremony.record must be a folder name beside the transcript, got {record!r:.60}")
    return transcript.parent / record


def match_trust(transcript: Path, header: Mapping[str, Any], ctx: TrustContext,
                backend: Any = None) -> TrustContext:
    """``ctx`` plus the keys of the per-match ceremony the header names, once its record
    (beside the transcript) is the one the header's digest names, is for this match and
    these seats, verifies, and holds a contribution signed by every seat the header lists.
    Raises :class:`InvalidCeremony` (exit 1) or :class:`MalformedInput`."""
    from zkbluff.ceremony import match as mm
    from zkbluff.statements import get_statement

    cer = header["ceremony"]
    digest = cer.get("digest") if isinstance(cer, dict) else None
    if not isinstance(digest, str) or len(digest) != 64:
        raise MalformedInput(f"header: ceremony.digest must be 64 hex digits, got {digest!r:.80}")
    keys = header.get("keys")
    if not isinstance(keys, dict):
        raise MalformedInput("header: keys must be an object")
    circuits = {k: get_statement(k).build()[0] for k in sorted(keys)}
    mc = mm.load(ceremony_folder(transcript, header), circuits, digest)
    if mc.match_id != header.get("matchId"):
        raise InvalidCeremony(f"the ceremony record is for match {mc.match_id!r:.40}, not {header.get('matchId')!r:.40}")
    seats = header.get("parties", {}).get("seats") if isinstance(header.get("parties"), dict) else None
    if not isinstance(seats, list) or [k.hex() for k in mc.seat_keys] != [str(k).lower() for k in seats]:
        raise InvalidCeremony("the ceremony record's seat keys are not the seats the header lists")
    return ctx.with_match_keys(mm.verify_match_ceremony(mc, backend))


def verify_transcript(path: Union[str, Path], trust: Optional[TrustContext] = None,
                      seat_keys: Optional[Mapping[int, str]] = None, keys_dir: Optional[Path] = None,
                      backend: Any = None) -> dict[str, Any]:
    """Verify a transcript file; return a summary. Raises :class:`TranscriptError` (exit
    1) naming the first bad line, or :class:`MalformedInput` (exit 2).

    ``trust``: the keys accepted (default: the pinned project keys); ``keys_dir``: a
    private key set given deliberately (``--keys DIR``), reported in ``loud``. A header
    naming a per-match ceremony adds its keys once the record verifies. ``seat_keys``:
    public keys a seat is known by (seat number → hex); the header must list them, so a
    house that rewrote a whole match under fresh seat keys is caught."""
    path = Path(path)
    lines = read_lines(path)
    if not lines:
        raise MalformedInput(f"transcript {path}: empty", code="transcript.empty")
    ctx = trust if trust is not None else TrustContext.default()
    if keys_dir is not None:
        ctx = ctx.with_private_keys(Path(keys_dir))
    referee: Optional[Referee] = None
    chain = parse_chain(lines)
    n = 0
    while True:
        try:
            try:
                event = next(chain)
            except StopIteration:
                break
            n = event["n"]
            if referee is None:
                data = event.get("data")
                header: dict[str, Any] = data if isinstance(data, dict) else {}
                try:
                    header_ctx = match_trust(path, header, ctx, backend) if "ceremony" in header else ctx
                    referee = Referee(event, verify_now=False, trust=header_ctx)
                except (UntrustedKey, InvalidCeremony) as exc:
                    raise TranscriptError(str(exc), line=1, code=exc.code) from None
                for seat, key in (seat_keys or {}).items():
                    if not 0 <= seat < len(referee.seat_keys) or referee.seat_keys[seat] != key.lower():
                        raise TranscriptError(f"the header does not list {key[:16]}… as seat {seat}'s key", line=1,
                                              code="header.seat-key")
                continue
            referee.apply(event)
        except ZkbluffError as exc:
            # parse_chain names the line it refused (the one after ``n``); the referee's is ``n``
            bad = getattr(exc, "line", None) or n
            _earlier_bad_proof(referee, bad)
            raise _at_line(exc, bad) from None
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            _earlier_bad_proof(referee, n)
            raise MalformedInput(f"transcript line {n}: malformed data ({exc})", line=n,
                                 code=HEADER_CODE if n <= 1 else "line.malformed") from None
    assert referee is not None
    if referee.over and not referee.complete:
        stalled = referee.spec.fault(referee.ledger)
        if stalled is not None:  # the referee at fault ends it with no end line of its own (it stalled)
            _earlier_bad_proof(referee, len(lines) + 1)
            referee.batch.verify()
            raise RefereeAtFault(f"the referee is at fault: {stalled[1]}", line=stalled[0])
        closing = referee.spec.deal.closing
        missing = (f"the {closing} line is" if referee.ended else
                   f"the end and {closing} lines are" if closing else "the end line is")
        _earlier_bad_proof(referee, len(lines) + 1)
        raise TranscriptError(f"the rules end the match here, but {missing} missing",
                              line=len(lines) + 1, code="end.missing")
    _earlier_bad_proof(referee, len(lines) + 1)  # every signature, then every proof: the first bad line
    referee.batch.verify()
    fault = referee.spec.deal.fault(referee.ledger)
    if fault is not None:  # a whole, well-formed transcript whose complaint a verifier upholds
        err = DealerAtFault(f"the dealer is at fault (complaint upheld): {fault[1]}", line=fault[0])
        err.result = referee.result()  # the result stands as the end line states it (checked above)
        raise err
    fault = referee.spec.fault(referee.ledger)
    if fault is not None:  # a seat's answer showed the referee's complaint false
        raise RefereeAtFault(f"the referee is at fault (its complaint answered): {fault[1]}", line=fault[0])
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
        "key_sources": {k: t.source for k, t in referee.trust.items()},
        "loud": [t.loud for t in referee.trust.values() if t.loud],
    }


def equivocation(header_event: Mapping[str, Any], a: Mapping[str, Any], b: Mapping[str, Any],
                 trust: Optional[TrustContext] = None) -> Optional[Equivocation]:
    """What two lines for one position of a match (the same number after the same previous
    hash), from two copies of it or from a party's own records, show. Each must be signed by
    the party entitled to it under the header's keys (else :class:`TranscriptError`,
    ``line.signature``). Returns an :class:`Equivocation` naming the party that signed both
    when one party signed two different moves there (lines that differ in anything but
    their stamp ``at`` and signature): an honest seat never does (``Seat.move`` refuses a
    second move for a position; it re-stamps the same move instead) and neither does an
    honest referee or dealer; so it is evidence against that party. None when the two are
    the same move (a re-stamp) or were signed by different parties (a seat's line made
    stale by another party's line at that number: a race, not evidence by itself)."""
    header = Referee(header_event, verify_now=False, trust=trust)
    for line in (a, b):
        if not isinstance(line, Mapping):
            raise MalformedInput(f"equivocation: a line must be an object, got {type(line).__name__}")
    if a.get("n") != b.get("n") or a.get("prev") != b.get("prev") or not isinstance(a.get("n"), int) \
            or a.get("n", 0) < 2:
        raise MalformedInput(f"equivocation: the lines are not for one position (lines {a.get('n')!r:.12} and "
                             f"{b.get('n')!r:.12} after {str(a.get('prev'))[:12]}… and {str(b.get('prev'))[:12]}…)")
    signers = []
    for line in (a, b):
        role = header.role_of(line.get("action"))
        seat = line.get("seat") if role is Role.SEAT else None
        if role is Role.SEAT and (isinstance(seat, bool) or not isinstance(seat, int)
                                     or not 0 <= seat < len(header.seat_keys)):
            raise MalformedInput(f"equivocation: line {line.get('n')} names no seat of this match ({seat!r:.12})")
        key, who = header.key_of(role, seat)
        try:
            check_line_signature(dict(line), key, who)
        except ZkbluffError as exc:
            raise TranscriptError(f"equivocation: {exc}", line=line.get("n"), code="line.signature") from None
        signers.append((key, who))
    if signers[0][0] != signers[1][0]:
        return None

    def move(line: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in line.items() if k not in ("at", "sig", "received")}  # a re-stamp, a receipt: one move

    if move(a) == move(b):
        return None
    return Equivocation(f"{signers[0][1]} signed two different lines for line {a['n']} (after "
                        f"{str(a['prev'])[:12]}…): {a.get('action')} and {b.get('action')}", code="line.equivocation")
