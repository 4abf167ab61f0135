"""The one referee: checks each transcript line of any game against its spec, the rules,
the commitments the table holds, the line's signature and its proof, then applies it.

The live table runs every line through it before writing; every party keeps its own
copy to follow the public state; ``zkbluff transcript verify`` runs a whole file through
it offline (proofs collected into one batch per key). One piece of code decides what is
legal, for every game.

A line is checked in this order, before any pairing: its number and link, who may make
it (a seat's action on a line naming seat null is refused: the dealer and referee may
never act for a seat), its signature under that party's key from the header, the action's
typed data, the rules, each proof envelope against what the table holds.

A line carries ``proofs`` (a list of envelopes, in the order the spec demands) exactly when
its action owes proofs.

Keys: the header's verifying keys are accepted only under the referee's
:class:`~zkbluff.ceremony.trust.TrustContext` (by default the pinned project keys; a
per-match ceremony's keys or a deliberate private key set only when the caller adds
them): any other key refuses the header (:class:`~zkbluff.errors.UntrustedKey`, exit 1),
so no proof is ever checked under a key the verifier does not trust. A header may carry
``ceremony`` (the digest of a per-match ceremony record, :mod:`zkbluff.ceremony.match`);
the caller verifies that record and adds its keys to the context.

Time. Every line carries ``at``, its maker's stamp in seconds (a line without one is
malformed, ``line.stamp``). A seat's line and the dealer's also carry ``received`` =
``{at, sig}``: the referee's receipt, its own clock's time when it accepted the line, signed
by the referee over the line as its maker signed it
(:func:`~zkbluff.protocol.signing.sign_receipt`); the maker's ``at`` may be at most the
header's ``clock.tolerance`` from it. A line's *referee stamp* is its receipt's time (a
seat's or the dealer's line) or its ``at`` (the referee's lines); referee stamps never go
backwards, and every deadline runs from them, never from a seat's or the dealer's
self-chosen ``at``. The live referee writes a receipt on every seat and dealer line; offline
a line without one is taken on its own stamp (no earlier than the line before), and a
header without ``clock`` (from before receipts) takes :data:`STAMP_TOLERANCE`. The header may carry
``limits`` (seconds per limit name). A timeout (the line the spec's ``timeout`` gives)
carries ``clock``: ``since`` (the line that started the wait: the line before it),
``limit`` (its name), ``seconds``, ``deadline`` (``since``'s referee stamp plus ``seconds``)
and ``lastSigned`` (``[line, hash]`` of the last line the timed-out seat signed, or null);
it is refused unless each is what the transcript and the header say, and
(:class:`EarlyTimeout`) unless its own stamp is after the deadline.

The deal's own lines (``spec.deal.line_roles``: an entropy phase, complaints) go to the
deal scheme; the rules' actions wait until ``spec.deal.ready``. The match is over when the
rules say so or when the deal ends it (a forfeit before the deal, the dealer at fault).
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, TypedDict

from zkbluff.ceremony.trust import Trust, TrustContext, check_key
import math

from zkbluff.errors import EarlyTimeout, IllegalMove, MalformedInput, PausedMove, ZkbluffError
from zkbluff.games.engine.header_keys import header_verifying_keys
from zkbluff.games.engine.rules import Action, Result
from zkbluff.games.engine.spec import GameSpec, ProofDemand, Role
from zkbluff.games.engine.registry import spec_for
from zkbluff.protocol.envelope import ProofBatch, check_envelope
from zkbluff.protocol.signing import (SignatureBatch, check_line_signature, check_public_key, receipt_message,
                                     verify_signature)
from zkbluff.protocol.transcript import GENESIS, canonical, line_hash, secret_fields
from zkbluff.statements import get_statement

HEADER_FIELDS = {"game", "options", "matchId", "seats", "trust", "parties", "keys", "deal"}
#: optional header fields: ``limits`` (seconds per limit name); ``ceremony`` names a per-match
#: ceremony record (``--keys match``); ``clock`` (``{"tolerance": seconds}``: how far a seat's
#: stamp may be from the referee's receipt, and a referee stamp from a seat's clock)
#: ``rules`` (``"<game>/<version>"``: the rules the transcript verifies under; none: the legacy ``<game>/0``)
OPTIONAL_HEADER_FIELDS = {"limits", "ceremony", "clock", "rules"}
END = "end"
#: reason codes (zkbluff.errors.TRANSCRIPT_CODES) given here
HEADER, ORDER, PARTY = "header.malformed", "line.order", "line.party"
#: how far (seconds) a live line's stamp may be from the referee's clock (the header's
#: ``clock.tolerance``, as the referee party writes it)
STAMP_TOLERANCE = 5.0
#: the largest ``clock.tolerance`` a header may state (beyond it a stamp proves nothing)
MAX_TOLERANCE = 30.0


def _time(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise MalformedInput(f"{what} must be a time in seconds >= 0, got {v!r:.40}", code="line.stamp")
    return float(v)


def _stamp(event: Mapping[str, Any]) -> float:
    """The line's own ``at``: every line carries one (``line.stamp`` otherwise)."""
    if "at" not in event:
        raise MalformedInput(f"line {event.get('n')!r}: no time stamp 'at' (every line carries its stamp)",
                             code="line.stamp")
    return _time(event["at"], "'at'")


def referee_stamp(event: Mapping[str, Any]) -> float:
    """The referee's time of an accepted line: its receipt's (a seat's or the dealer's line),
    else its ``at``."""
    received = event.get("received")
    if isinstance(received, dict) and "at" in received:
        return _time(received["at"], "'received.at'")
    return _stamp(event)


def header_tolerance(data: Mapping[str, Any]) -> float:
    """The header's ``clock.tolerance`` (:data:`STAMP_TOLERANCE` for a header without ``clock``)."""
    if "clock" not in data:
        return STAMP_TOLERANCE
    clock = data["clock"]
    v = clock.get("tolerance") if isinstance(clock, dict) and set(clock) == {"tolerance"} else None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_TOLERANCE:
        raise MalformedInput(f"header: clock must be {{tolerance: seconds in (0, {MAX_TOLERANCE}]}}, "
                             f"got {clock!r:.80}", code=HEADER)
    return float(v)


#: the end line's data fields under the legacy rules ``<game>/0`` (its ``reason`` words checked) and
#: under ``<game>/1`` (its reason ``code`` checked, the words not)
END_FIELDS = {0: frozenset({"placements", "scores", "reason"}), 1: frozenset({"placements", "scores", "reason", "code"})}


def result_data(result: Result, code: Optional[str] = None) -> dict[str, Any]:
    """The end line's data for ``result``: with ``code`` (``<game>.<code>``, rules /1) or
    without (the legacy rules /0)."""
    data = {"placements": list(result.placements), "scores": list(result.scores), "reason": result.reason}
    if code is not None:
        data["code"] = code
    return data


def limit_seconds(limits: Mapping[str, Any], limit: Any) -> Optional[float]:
    """A timeout's limit in seconds: a name of the header's ``limits`` ("proof", "idle")
    or a game's own number of seconds (Cheat's calling window); None if unknown."""
    if isinstance(limit, (int, float)) and not isinstance(limit, bool):
        return float(limit)
    value = limits.get(limit) if isinstance(limit, str) else None
    return None if value is None else float(value)


def _header_data(header_event: Mapping[str, Any]) -> dict[str, Any]:
    """The header line's ``data``, once the line is line 1 (seat null) and its fields and
    ``limits`` are well formed (``header.malformed`` otherwise)."""
    if header_event.get("n") != 1 or type(header_event.get("n")) is not int or header_event.get("prev") != GENESIS \
            or header_event.get("action") != "header" or header_event.get("seat") is not None:
        raise MalformedInput("the first line must be the header (line 1, seat null)", code=HEADER)
    data = header_event.get("data")
    if not isinstance(data, dict) or not HEADER_FIELDS <= set(data) <= HEADER_FIELDS | OPTIONAL_HEADER_FIELDS:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise MalformedInput(f"header: fields {got}, expected {sorted(HEADER_FIELDS)} "
                             f"(and optionally {sorted(OPTIONAL_HEADER_FIELDS)})", code=HEADER)
    limits = data.get("limits", {})
    if not isinstance(limits, dict) or any(isinstance(v, bool) or not isinstance(v, (int, float)) or
                                           not math.isfinite(v) or v <= 0 for v in limits.values()):
        raise MalformedInput(f"header: limits must map names to positive seconds, got {limits!r:.80}", code=HEADER)
    return data


def _header_spec(data: Mapping[str, Any]) -> GameSpec:
    """The game the header names (``header.game``), once its limits, match id and seat names
    are what the game allows."""
    try:
        spec = spec_for(data["game"], data["options"])
    except MalformedInput as exc:
        exc.code = "header.game"
        raise
    spec.check_limits(data.get("limits", {}))  # header.limits: no time limit below the game's floor
    if not isinstance(data["matchId"], str) or not data["matchId"]:
        raise MalformedInput("header: matchId must be a non-empty string", code=HEADER)
    seats = data["seats"]
    if not isinstance(seats, list) or len(seats) != spec.n_seats or not all(isinstance(s, str) for s in seats):
        raise MalformedInput(f"header: seats must be {spec.n_seats} names", code=HEADER)
    return spec


@dataclass(frozen=True)
class Line:
    """One line under check, once its number, link, party, stamps, signature and secrets
    passed: what its kind's checker reads."""

    event: Mapping[str, Any]
    kind: str
    seat: Optional[int]
    role: Role
    #: its referee stamp (:func:`referee_stamp`)
    at: float


#: a line kind's checker: checks and applies the line, returns its action (None for the
#: engine's and the deal's own lines) and its proofs' publics by name
Checker = Callable[["Referee", Line], tuple[Optional[Action], list[dict[str, int]]]]


class TimeoutClock(TypedDict):
    """A timeout line's ``clock``: the line that started the wait (``since``), the limit's
    name (or a game's own seconds), its seconds, the deadline on the referee's clock and the
    ``[line, hash]`` of the timed-out seat's last signed line (null for a wait nobody was to move in)."""

    since: int
    limit: Any
    seconds: float
    deadline: float
    lastSigned: Optional[list[Any]]


@dataclass(frozen=True)
class Pause:
    """A pause the game's rules hold all play for (``GameSpec.pause``): opened by line
    ``line``, ``seconds`` long, over at ``until`` (that line's stamp plus ``seconds``)."""

    line: int
    seconds: float
    until: float


class Referee:
    """Public state of one match and the check of every line. ``verify_now``: verify each
    proof and each line's signature as it comes (the live table); otherwise collect them into
    :attr:`batch` and :attr:`signatures` (the offline verifier checks both before it reports
    a line, and at the end). The header's own signature is checked at once either way."""

    def __init__(self, header_event: Mapping[str, Any], verify_now: bool = True,
                 trust: Optional[TrustContext] = None):
        data = _header_data(header_event)
        self.header = data
        #: how far a seat's stamp may be from the referee's receipt (the header's ``clock.tolerance``)
        self.tolerance = header_tolerance(data)
        self.spec: GameSpec = _header_spec(data)
        #: the rules version the header names (``header.rules`` if unknown); 0 without ``rules``
        self.rules_version = self.spec.parse_rules(data["rules"]) if "rules" in data else 0
        self.match_id: str = data["matchId"]
        self.seat_names: list[str] = data["seats"]
        self._read_parties(data["parties"])
        check_line_signature(dict(header_event), self.referee_key, "the referee")
        self.vks = header_verifying_keys(data["keys"], self.spec.statements())
        ctx = trust if trust is not None else TrustContext.default()
        #: why each key is trusted (``Trust.loud`` set for a private key set)
        self.trust: dict[str, Trust] = {k: check_key(k, self.vks[k], ctx) for k in sorted(self.vks)}
        try:
            self.spec.deal.check_header(data["deal"], self.spec.n_seats)
        except MalformedInput as exc:
            exc.code = HEADER
            raise
        #: names no line's data may carry beyond its action's fields (``secret.leaked``)
        self.secret_names = frozenset(n for k in self.spec.statements() for n in get_statement(k).private)
        #: the checker of each line kind the engine or the deal knows (a game action: :meth:`_check_action`)
        closing = self.spec.deal.closing
        self.checkers: dict[str, Checker] = {**({} if closing is None else {closing: Referee._check_closing}),
                                             **{k: Referee._check_deal_line for k in self.spec.deal.line_roles},
                                             END: Referee._check_end}
        self.verify_now = verify_now
        self._start_state(header_event)

    def _read_parties(self, parties: Any) -> None:
        """The referee's, the dealer's and each seat's public keys from the header's ``parties``."""
        if not isinstance(parties, dict) or set(parties) != {"referee", "dealer", "seats"} or \
                not isinstance(parties["seats"], list) or len(parties["seats"]) != self.spec.n_seats:
            raise MalformedInput(f"header: parties must list the referee's, the dealer's and "
                                 f"{self.spec.n_seats} seats' public keys", code=HEADER)
        try:
            self.referee_key = check_public_key(parties["referee"], "the referee's public key")
            self.dealer_key = check_public_key(parties["dealer"], "the dealer's public key")
            self.seat_keys = [check_public_key(k, f"seat {i}'s public key") for i, k in enumerate(parties["seats"])]
        except MalformedInput as exc:
            exc.code = HEADER
            raise

    def _start_state(self, header_event: Mapping[str, Any]) -> None:
        """The public state before line 2: the rules, the ledger, the batches, the head."""
        self.rules = self.spec.new_rules()
        self.ledger = self.spec.new_ledger(self.header)
        self.batch = ProofBatch()
        #: the lines' signatures when not ``verify_now`` (checked together by the verifier)
        self.signatures = SignatureBatch()
        self.n_proofs = 0
        self.ended = False
        self.closed = False
        if self.spec.deal.line_roles:
            self.ledger.deal = self.spec.deal.new_public()  # type: ignore[attr-defined]
        self.head = line_hash(canonical(dict(header_event)))
        #: the referee stamp of the last line (:func:`referee_stamp`): every deadline runs from it
        self.head_at: Optional[float] = _stamp(header_event)
        #: the last line's own ``at`` (a line without a receipt is stamped no earlier)
        self.head_own_at: Optional[float] = self.head_at
        self.next_line = 2
        #: per seat, ``[line, hash]`` of the last line it signed
        self.last_signed: dict[int, list[Any]] = {}
        #: the last pause a line opened (``GameSpec.pause``), or None
        self.pause: Optional[Pause] = None

    # ---- who may make a line
    def role_of(self, kind: Any) -> Role:
        if not isinstance(kind, str):
            raise MalformedInput(f"action must be a string, got {kind!r:.40}", code="action.unknown")
        if kind == END:
            return Role.REFEREE
        if kind is not None and kind == self.spec.deal.closing:
            return Role.DEALER
        if kind in self.spec.deal.line_roles:
            return self.spec.deal.line_roles[kind]
        if kind == "header":
            raise IllegalMove("a second header", code=ORDER)
        try:
            return self.spec.action_class(kind).role  # an unknown kind is malformed
        except MalformedInput as exc:
            exc.code = "action.unknown"
            raise

    def key_of(self, role: Role, seat: Optional[int]) -> tuple[str, str]:
        if role is Role.SEAT:
            assert seat is not None
            return self.seat_keys[seat], f"seat {seat} ({self.seat_names[seat]})"
        if role is Role.DEALER:
            return self.dealer_key, "the dealer"
        return self.referee_key, "the referee"

    @property
    def complete(self) -> bool:
        """The match is over and every closing line is written."""
        return self.ended and (self.spec.deal.closing is None or self.closed)

    @property
    def over(self) -> bool:
        """The rules ended the match, or the deal did (a forfeit, the dealer at fault)."""
        return self.rules.over or self._deal_outcome() is not None

    def result(self) -> Optional[Result]:
        dealt = self._deal_outcome()
        if dealt is not None and not dealt.code:  # the deal's end: the engine's code for it
            dealt = dataclasses.replace(dealt, code=self.spec.deal.outcome_code(self.ledger).value)
        return dealt or self.rules.result()

    def end_data(self, result: Result) -> dict[str, Any]:
        """The end line's data for ``result`` under the header's rules version: with its reason
        code ``<game>.<code>`` under /1, the legacy three fields under /0."""
        return result_data(result, self.spec.end_code(result) if self.rules_version >= 1 else None)

    @property
    def deal_ready(self) -> bool:
        return self.spec.deal.ready(self.ledger)

    def _deal_outcome(self) -> Optional[Result]:
        if not self.spec.deal.line_roles:
            return None
        scores = getattr(self.rules.public_state(), "scores", None)
        scores = tuple(scores) if isinstance(scores, (tuple, list)) else (0,) * self.spec.n_seats
        standing = getattr(self.rules, "standing_places", None)  # a fault of a seatless dealer settles on it
        return self.spec.deal.outcome(self.ledger, scores, standing=standing() if callable(standing) else None)

    def timeout_clock(self, seat: Optional[int], limit: Any, now: float) -> TimeoutClock:
        """The ``clock`` a timeout of ``seat`` (None: a wait nobody is to move in, such as a
        calling window) under ``limit`` states when written at ``now``."""
        seconds = limit_seconds(self.header.get("limits", {}), limit)
        if seconds is None or self.head_at is None:
            raise MalformedInput(f"timeout: needs the header's limits.{limit} and a stamp on line {self.next_line - 1}")
        return {"since": self.next_line - 1, "limit": limit, "seconds": seconds,
                "deadline": self.head_at + seconds, "lastSigned": None if seat is None else self.last_signed.get(seat)}

    def _check_timeout_clock(self, event: Mapping[str, Any], seat: Optional[int], limit: Any) -> None:
        clock, at = event.get("clock"), _stamp(event)
        expected = self.timeout_clock(seat, limit, at)
        if clock != expected:
            raise IllegalMove(f"timeout: its clock {clock!r:.200} is not what the transcript gives: {expected}",
                              code="timeout.clock")
        if at <= expected["deadline"]:
            raise EarlyTimeout(f"timeout of seat {seat}: declared at {at}, not after its deadline {expected['deadline']} "
                               f"(line {expected['since']} + {expected['seconds']} s)")

    def _check_claimed_wait(self, event: Mapping[str, Any], limit: Any) -> None:
        """A seat's claim (:meth:`GameSpec.claimed_wait`) is stamped after the last line's
        stamp plus ``limit``, like a referee's timeout; earlier is ``timeout.early``."""
        at = referee_stamp(event)
        seconds = limit_seconds(self.header.get("limits", {}), limit)
        if seconds is None or self.head_at is None:
            raise MalformedInput(f"{event.get('action')}: a claim needs its stamp 'at', the header's limits.{limit} "
                                 f"and a stamp on line {self.next_line - 1}", code="line.stamp")
        if at <= self.head_at + seconds:
            raise EarlyTimeout(f"{event.get('action')}: claimed at {at}, not after its deadline "
                               f"{self.head_at + seconds} (line {self.next_line - 1} + {seconds} s)")

    @property
    def paused_until(self) -> float:
        """When the last pause the rules hold play for ends (0.0 if none opened): a seat's
        client waits for it before it makes a line."""
        return 0.0 if self.pause is None else self.pause.until

    def check_pause(self, event: Mapping[str, Any], at: Optional[float], by: str = "stamped") -> None:
        """Refuse (:class:`PausedMove`, ``move.paused``) a seat's line made at ``at`` inside
        the last pause (its stamp; live, the referee's clock when it reached it, ``by``);
        the referee's and the dealer's lines (seat null) are never held."""
        pause = self.pause
        if pause is None or event.get("seat") is None or event.get("action") in self.spec.deal.line_roles:
            return
        if at is None:
            raise MalformedInput(f"{event.get('action')!r:.40}: a seat's line after a pause needs its stamp 'at'",
                                 code="line.stamp")
        if at < pause.until:
            raise PausedMove(f"{event.get('action')!r:.40}: {by} {at}, inside the {pause.seconds:g} s pause line "
                             f"{pause.line} opened (play resumes at {pause.until})")

    def _open_pause(self, line: int, action: Action) -> None:
        """After ``action``'s line is applied: the pause it opens, from its stamp (the one
        the deadlines run from, :attr:`head_at`)."""
        seconds = self.spec.pause(self.rules, action)
        if seconds > 0 and self.head_at is not None:
            self.pause = Pause(line, float(seconds), self.head_at + float(seconds))

    # ---- the check
    def snapshot(self) -> "Referee":
        """A copy of this state to :meth:`restore` later (a line taken, then refused by the
        storage): the lines' state copied, what no line changes (the spec, the header, the
        verifying keys and their trust) shared."""
        memo = {id(x): x for x in (self.spec, self.header, self.vks, self.trust, self.secret_names)}
        return copy.deepcopy(self, memo)

    def restore(self, snapshot: "Referee") -> None:
        """Put this state back as it was at ``snapshot`` (the same object, so a caller that
        holds it sees the restored state)."""
        self.__dict__.clear()
        self.__dict__.update(snapshot.__dict__)

    def apply(self, event: Mapping[str, Any]) -> tuple[Optional[Action], list[dict[str, int]]]:
        """Check one line and apply it; return its action (None for end and closing lines)
        and its proofs' publics by name. Raises a :class:`~zkbluff.errors.ZkbluffError` and
        changes nothing if the line is refused (data of the wrong shape anywhere is
        :class:`MalformedInput`, never a stray ``KeyError``)."""
        try:
            return self._apply(event)
        except ZkbluffError:
            raise
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise MalformedInput(f"{event.get('action')!r:.40}: malformed line ({type(exc).__name__}: {exc})") from None

    def _apply(self, event: Mapping[str, Any]) -> tuple[Optional[Action], list[dict[str, int]]]:
        line = self._check_line(event)
        check = self.checkers.get(line.kind, Referee._check_action)
        action, publics = check(self, line)
        self.head = line_hash(canonical(dict(event)))
        self.head_at, self.head_own_at = line.at, _stamp(event)
        if action is not None:
            self._open_pause(event["n"], action)
        if line.seat is not None and line.role is Role.SEAT:
            self.last_signed[line.seat] = [event["n"], self.head]
        self.next_line += 1
        return action, publics

    def _check_line(self, event: Any) -> Line:
        """What every line owes before its kind's checker reads it: its number and link, its
        party (who may make it, the seat it names), its stamps, its signature and its receipt's,
        no secret in its data."""
        if not isinstance(event, dict):
            raise MalformedInput("a line must be an object", code="line.json")
        if event.get("n") != self.next_line or type(event.get("n")) is not int:
            raise IllegalMove(f"line {event.get('n')!r} does not follow line {self.next_line - 1} "
                              f"(expected number {self.next_line})", code="line.number")
        if event.get("prev") != self.head:
            raise IllegalMove(f"line {event.get('n')!r} does not follow line {self.next_line - 1} "
                              f"(expected it linked to that line's hash)", code="line.chain")
        if self.closed:
            raise IllegalMove("nothing may follow the closing line", code=ORDER)
        kind, seat = event.get("action"), event.get("seat")
        role = self.role_of(kind)
        at = self._check_stamps(event, role)
        self._check_party(str(kind), role, seat)
        public_key, who = self.key_of(role, seat)
        if self.verify_now:
            check_line_signature(dict(event), public_key, who)
        else:  # well formed now; the arithmetic with the others (SignatureBatch)
            self.signatures.add_line(dict(event), public_key, who, event["n"])
        self._check_receipt_signature(event)
        self._check_no_secret(kind, event.get("data"))
        return Line(event, str(kind), seat, role, at)

    def _check_party(self, kind: str, role: Role, seat: Any) -> None:
        """A seat's line names a seat of the table; the dealer's and the referee's name none."""
        if role is Role.SEAT:
            if seat is None:
                raise IllegalMove(f"{kind}: a seat's action; the dealer or referee (seat null) may not make it",
                                  code=PARTY)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.spec.n_seats:
                raise MalformedInput(f"{kind}: seat must be 0..{self.spec.n_seats - 1}, got {seat!r}", code=PARTY)
        elif seat is not None:
            raise IllegalMove(f"{kind}: the {role.value}'s line, but it names seat {seat!r}", code=PARTY)

    # ---- one checker per line kind (:attr:`checkers`; a game action: :meth:`_check_action`)
    def _check_end(self, line: Line) -> tuple[Optional[Action], list[dict[str, int]]]:
        self._end(line.event)
        return None, []

    def _check_deal_line(self, line: Line) -> tuple[Optional[Action], list[dict[str, int]]]:
        """One of the deal's own lines (``spec.deal.line_roles``), checked by the deal scheme."""
        kind, event = line.kind, line.event
        if self.ended or self.over:
            raise IllegalMove(f"{kind}: the match is over", code=ORDER)
        if "proofs" in event:
            raise IllegalMove(f"{kind}: an unexpected proof", code="proof.missing")
        if "clock" in event:
            raise IllegalMove(f"{kind}: unexpected fields", code="line.malformed")
        self.spec.deal.check_line(self, kind, line.seat, event)
        return None, []

    def _check_closing(self, line: Line) -> tuple[Optional[Action], list[dict[str, int]]]:
        """The deal's closing line (``spec.deal.closing``), after the end."""
        kind, event = line.kind, line.event
        if not self.ended:
            raise IllegalMove(f"{kind}: before the end", code=ORDER)
        if "proofs" in event:
            raise IllegalMove(f"{kind}: an unexpected proof", code="proof.missing")
        if "clock" in event:
            raise IllegalMove(f"{kind}: an unexpected clock", code="line.malformed")
        self.spec.deal.check_closing(self.header, event.get("data"), self.ledger)
        self.closed = True
        return None, []

    def _check_action(self, line: Line) -> tuple[Optional[Action], list[dict[str, int]]]:
        """A game action: the rules accept it (after the deal's entropy phase), its clock and
        its proofs are what the table demands; then the rules, the ledger and the deal take it."""
        kind, seat = line.kind, line.seat
        if self.ended or self.over:
            raise IllegalMove(f"{kind}: the match is over", code=ORDER)
        if not self.deal_ready:
            raise IllegalMove(f"{kind}: the deal's entropy phase is not complete", code=ORDER)
        action = self.spec.action_class(kind).from_data(line.event.get("data"))
        self.rules.check(seat, action)
        if line.role is Role.SEAT:
            self.check_pause(line.event, line.at)
        self._check_action_clock(line, action)
        publics = self._check_proofs(line, self.spec.demand(self.rules, self.ledger, seat, action))
        self.rules.apply(seat, action)
        self.spec.record(self.ledger, seat, action, publics)
        self.spec.deal.observe(self.ledger, line.event["n"], action, publics)
        return action, publics

    def _check_action_clock(self, line: Line, action: Action) -> None:
        """A referee's timeout is the one the rules give and carries its clock (no other line
        carries one); a seat's claim that another party let its time run out is late enough."""
        kind, event = line.kind, line.event
        due = self.spec.timeout(self.rules) if line.role is Role.REFEREE else None
        if due is not None and kind == due[0].kind:
            if action != due[0]:
                raise IllegalMove(f"{kind}: the seat to move and its limit give {due[0].to_data()}",
                                  code="timeout.clock")
            self._check_timeout_clock(event, self.rules.to_move, due[1])
        elif "clock" in event:
            raise IllegalMove(f"{kind}: only a timeout carries a clock", code="line.malformed")
        claimed = self.spec.claimed_wait(self.rules, action) if line.role is Role.SEAT else None
        if claimed is not None:  # a seat's claim that the party waited on let its time run out
            self._check_claimed_wait(event, claimed)

    def _check_proofs(self, line: Line, demands: list[ProofDemand]) -> list[dict[str, int]]:
        """The line's envelopes, one per demand, each against what the table holds (verified
        now or added to :attr:`batch`); their publics by name."""
        kind, event = line.kind, line.event
        envelopes = event.get("proofs", [])
        if bool(demands) != ("proofs" in event):
            raise IllegalMove(f"{kind}: {'a proof is missing' if demands else 'an unexpected proof'}",
                              code="proof.missing")
        if not isinstance(envelopes, list) or len(envelopes) != len(demands):
            raise MalformedInput(f"{kind}: proofs must be a list of {len(demands)} envelope(s)",
                                 code="proof.malformed")
        checked, publics = [], []
        for demand, obj in zip(demands, envelopes):
            env, named = check_envelope(
                obj, statement=demand.statement, vk=self.vks[demand.statement],
                names=get_statement(demand.statement).public, pinned=demand.pinned, match_id=self.match_id,
                line=event["n"], prev=event["prev"], signer=line.seat if demand.for_seat is None else demand.for_seat,
                verify_now=self.verify_now)
            checked.append(env)
            publics.append(named)
        if not self.verify_now:
            for demand, env in zip(demands, checked):
                self.batch.add(self.vks[demand.statement], env, event["n"])
        self.n_proofs += len(demands)
        return publics

    def _check_stamps(self, event: Mapping[str, Any], role: Role) -> float:
        """The line's referee stamp, after its checks (``line.stamp``): it carries ``at``; a
        seat's or the dealer's line may carry the referee's receipt (the live referee always
        adds one; a transcript from before receipts has none, and one from before the dealer's
        has none on the dealer's lines), within the tolerance of its ``at`` and no earlier than
        the last line's referee stamp; the referee's own lines carry none; a line without a
        receipt is stamped no earlier than the last line."""
        at = _stamp(event)
        received = event.get("received")
        if role is Role.REFEREE and "received" in event:
            raise IllegalMove(f"line {event['n']}: only a seat's or the dealer's line carries the referee's receipt",
                              code="line.malformed")
        if "received" in event:
            maker = "the dealer" if role is Role.DEALER else "the seat"
            if not isinstance(received, dict) or set(received) != {"at", "sig"}:
                raise MalformedInput(f"line {event['n']}: {maker}'s line carries the referee's receipt "
                                     f"{{at, sig}}, got {received!r:.80}", code="line.stamp")
            got = _time(received["at"], "'received.at'")
            if abs(got - at) > self.tolerance:
                raise IllegalMove(f"line {event['n']}: {maker} stamped it {at}, the referee received it at {got}: "
                                  f"more than the tolerance {self.tolerance} s apart", code="line.stamp")
            if self.head_at is not None and got < self.head_at:  # the seat's own stamp may trail it
                raise IllegalMove(f"line {event['n']} is received at {got}, before the line it follows "
                                  f"({self.head_at})", code="line.stamp")
            return got
        if self.head_own_at is not None and at < self.head_own_at:
            raise IllegalMove(f"line {event['n']} is stamped {at}, before the line it follows ({self.head_own_at})",
                              code="line.stamp")
        return at

    def _check_receipt_signature(self, event: Mapping[str, Any]) -> None:
        """The receipt (when the line has one) is the referee's signature (``line.signature``)."""
        received = event.get("received")
        if not isinstance(received, dict):
            return
        message = receipt_message(dict(event), received["at"])
        if self.verify_now:
            verify_signature(self.referee_key, message, received["sig"], "the referee (its receipt)")
        else:
            self.signatures.add(message, received["sig"], self.referee_key, "the referee (its receipt)", event["n"])

    def data_fields(self, kind: str) -> Optional[frozenset[str]]:
        """The fields a line of ``kind`` carries in its data, where the engine knows them
        (the end line, every game action, the deal lines a scheme lists); None if not."""
        if kind == END:
            return END_FIELDS[self.rules_version]
        known = getattr(self.spec.deal, "line_fields", {})
        if kind in known:
            return frozenset(known[kind])
        if kind in self.spec.deal.line_roles or kind == self.spec.deal.closing:
            return None
        return frozenset(f.name for f in dataclasses.fields(self.spec.action_class(kind)))

    def _check_no_secret(self, kind: Any, data: Any) -> None:
        """Refuse (``secret.leaked``) data carrying, beyond its action's own fields, a field
        named as a secret: a private witness input of the match's statements or a party's
        secret (:data:`~zkbluff.protocol.transcript.SECRET_NAMES`). Other stray fields are
        left to the action's own check (``line.malformed``)."""
        if not isinstance(data, dict) or not isinstance(kind, str):
            return
        allowed = self.data_fields(kind)
        if allowed is None:
            return
        leaked = secret_fields(set(data) - allowed, self.secret_names)
        if leaked:
            raise MalformedInput(f"{kind}: data field(s) {leaked} named as secrets: no line may carry a secret",
                                 code="secret.leaked")

    def _end(self, event: Mapping[str, Any]) -> None:
        if self.ended:
            raise IllegalMove("end: a second end", code="end.early")
        if not self.over:
            raise IllegalMove("end: the match is not over by the rules", code="end.early")
        if "proofs" in event:
            raise IllegalMove("end: an unexpected proof", code="proof.missing")
        if "clock" in event:
            raise IllegalMove("end: an unexpected clock", code="line.malformed")
        result = self.result()
        assert result is not None
        self._check_end_data(event.get("data"), self.end_data(result))
        self.ended = True

    def _check_end_data(self, data: Any, expected: Mapping[str, Any]) -> None:
        """The end line's data against what the replayed rules give (``end.result``): under the
        legacy rules /0 every field, the reason words too; under /1 its fields are exactly
        placements, scores, reason and code (else malformed, ``line.malformed``), its reason is
        words (a string, not compared: the game may reword it) and the rest must be the same JSON."""
        if self.rules_version == 0:
            if data != expected:
                raise IllegalMove(f"end: recorded {data!r:.120}, the rules give {dict(expected)}", code="end.result")
            return
        fields = END_FIELDS[self.rules_version]
        if not isinstance(data, dict) or set(data) != fields or not isinstance(data["reason"], str) \
                or not isinstance(data["code"], str):
            got = sorted(data) if isinstance(data, dict) else type(data).__name__
            raise MalformedInput(f"end: data fields {got}, expected {sorted(fields)} (reason and code strings) "
                                 f"under rules {self.spec.rules_name(self.rules_version)}", code="line.malformed")
        checked = {k: v for k, v in expected.items() if k != "reason"}
        recorded = {k: data[k] for k in checked}
        if canonical(recorded) != canonical(checked):  # as JSON: a place `true` is not the place 1
            raise IllegalMove(f"end: recorded {recorded!r:.120}, the rules give {checked}", code="end.result")
