"""The parties of a match: each :class:`Seat`, the :class:`Dealer` and the
:class:`RefereeParty`. Each holds only its own secrets (its signing key, made on its own
side; a seat's deal secrets and cards; the dealer's view of the deal) and a copy of the
public state that it rebuilds from the lines it is sent. They talk only by JSON-safe
messages (dicts): a join, a private message to the dealer, a signed line. In-process
today; a network server passes the same messages over a socket.
"""
from __future__ import annotations

import copy
import json
import secrets as pysecrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from zkbluff.ceremony.trust import TrustContext
from zkbluff.errors import (ClockDispute, CommitmentMismatch, Equivocation, IllegalMove, MalformedInput, PausedMove,
                            ZkbluffError)
from zkbluff.games.engine.referee import END, STAMP_TOLERANCE, Referee, limit_seconds, referee_stamp
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.spec import GameSpec, Move, Role
from zkbluff.groth16 import ProvingKey, prove
from zkbluff.protocol.context import context_value
from zkbluff.protocol.envelope import make_envelope
from zkbluff.protocol.signing import SigningKey, check_line_signature, sign_line, sign_receipt
from zkbluff.protocol.transcript import GENESIS, canonical, line_hash
from zkbluff.statements import get_statement
from zkbluff.statements.keys import load_keys


class Prover:
    """A party's prover: the proving keys it loaded (public material) and the backend,
    and the keys this party trusts when it checks a line (:meth:`trust`).

    Keys: the pinned project keys by default; ``key_folder``: a private key set, used and
    trusted deliberately (loudly); ``match_keys``: the proving keys of a per-match
    ceremony this party has verified (``{statement: ProvingKey}``), trusted as such."""

    def __init__(self, key_folder: Optional[Path] = None, backend: Any = None,
                 say: Optional[Callable[[str], None]] = None,
                 match_keys: Optional[Mapping[str, ProvingKey]] = None):
        self.key_folder, self.backend, self.say = key_folder, backend, say
        self.match_keys = dict(match_keys or {})
        self.last_seconds = 0.0

    def key(self, statement: str) -> ProvingKey:
        if statement in self.match_keys:
            return self.match_keys[statement]
        return load_keys(statement, self.key_folder, say=self.say)

    def trust(self) -> TrustContext:
        """The keys this party accepts in a header: pinned, plus its private folder (made
        before the header is read) or the per-match keys it verified."""
        ctx = TrustContext.default()
        if self.key_folder is not None:
            ctx = ctx.with_private_keys(self.key_folder)
        if self.match_keys:
            ctx = ctx.with_match_keys({k: pk.vk.fingerprint() for k, pk in self.match_keys.items()})
        return ctx

    def prove(self, statement: str, inputs: Mapping[str, int], match_id: str, line: int, prev: str,
              signer: Optional[int]) -> dict[str, Any]:
        """The envelope of a proof of ``statement`` bound to the given line."""
        pk = self.key(statement)
        system, witness = get_statement(statement).build({**inputs, "context": context_value(match_id, line, prev)})
        assert witness is not None
        t = time.perf_counter()
        proof = prove(pk, witness, backend=self.backend)
        self.last_seconds = time.perf_counter() - t
        return make_envelope(statement, pk.vk, witness[1:1 + system.n_public], proof, signer)


class _Party:
    """What every party shares: its key and its copy of the public state."""

    def __init__(self, spec: GameSpec, key: Optional[SigningKey], clock: Optional[Callable[[], float]] = None):
        self.spec = spec
        self.key = key or SigningKey.generate()  # made here, on the party's own side
        self.view: Optional[Referee] = None
        self.clock: Callable[[], float] = clock or time.time  # stamps the lines this party signs

    @property
    def public_key(self) -> str:
        return self.key.public_hex

    def _follow(self, event: Mapping[str, Any]) -> tuple[Any, list[dict[str, int]]]:
        """Check and apply a public line to this party's own view (signatures, rules and
        proofs, verified at once: no party takes another's word for a line)."""
        if self.view is None:
            self.view = Referee(event, verify_now=True, trust=getattr(self, "prover", Prover()).trust())
            return None, []
        return self.view.apply(event)

    def _line(self, seat: Optional[int], kind: str, data: dict[str, Any],
              proofs: Optional[list[dict[str, Any]]] = None, at: Optional[float] = None,
              clock: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
        """This party's signed line, stamped ``at`` (its clock now by default)."""
        assert self.view is not None
        event: dict[str, Any] = {"n": self.view.next_line, "prev": self.view.head, "seat": seat, "action": kind,
                                 "data": data, "at": self.clock() if at is None else at}
        if proofs:
            event["proofs"] = proofs
        if clock is not None:
            event["clock"] = dict(clock)
        return sign_line(self.key, event)

    def _signed_move(self, move: Move, seat: Optional[int], prover: Prover) -> dict[str, Any]:
        """The signed line of ``move`` with the proofs its action owes, bound to the next line."""
        assert self.view is not None
        self.view.rules.check(seat, move.action)
        demands = self.spec.demand(self.view.rules, self.view.ledger, seat, move.action)
        if len(move.proofs) != len(demands):
            raise IllegalMove(f"{move.action.kind}: owes {len(demands)} proof(s) "
                              f"({', '.join(d.statement for d in demands)}), {len(move.proofs)} given")
        envelopes, seconds = [], 0.0
        for demand, inputs in zip(demands, move.proofs):
            envelopes.append(prover.prove(demand.statement, inputs, self.view.match_id, self.view.next_line,
                                          self.view.head, seat))
            seconds += prover.last_seconds
        prover.last_seconds = seconds
        return self._line(seat, move.action.kind, move.action.to_data(), envelopes)


class Seat(_Party):
    """One player's client: its key, its deal secrets, its cards, its prover. It sees the
    public lines and the sealed messages addressed to it, nothing else."""

    def __init__(self, spec: GameSpec, seat: int, name: str = "player", prover: Optional[Prover] = None,
                 key: Optional[SigningKey] = None, deal_secrets: Optional[dict[str, Any]] = None,
                 private: Optional[dict[str, Any]] = None, clock: Optional[Callable[[], float]] = None):
        super().__init__(spec, key, clock)
        self.seat, self.name = seat, name
        self.prover = prover or Prover()
        self.deal_secrets = deal_secrets if deal_secrets is not None else spec.deal.seat_secrets()
        self.private = private if private is not None else spec.new_private()
        self._pending: Optional[tuple[int, Mapping[str, Any]]] = None
        #: a complaint line's data this seat owes the table (its sealed hand did not open)
        self.complaint: Optional[dict[str, Any]] = None
        #: False: this seat holds back its deal lines (tests of forfeits)
        self.sends_deal_lines = True
        #: the last line this seat signed (a move or a deal line). While the table still waits
        #: at its position (its number, after its previous hash) the seat signs no other line
        #: there: a house that calls it stale and asks again gets the same line (:meth:`resend`)
        self.signed: Optional[dict[str, Any]] = None
        #: this seat's own clock's time when each line reached it (line number -> seconds): its
        #: evidence of when a wait began (saved with its secrets; a client writes them beside its copy)
        self.received_at: dict[int, float] = {}
        #: the complaints this seat saved when it refused a line on its own clock (:class:`ClockDispute`)
        self.disputes: list[dict[str, Any]] = []
        #: the referee stamp of each line this seat took live (line number -> seconds)
        self.referee_stamps: dict[int, float] = {}
        #: the clock this seat reads a line's arrival on (None: :attr:`clock`); a client whose
        #: stamps are clamped to the table's gives its machine's own clock here
        self.receive_clock: Optional[Callable[[], float]] = None
        #: what each of its own moves changed in its private state (line number -> update),
        #: saved with its secrets: its review replays its own view from the deal (:meth:`replay`)
        self.own_updates: dict[int, dict[str, Any]] = {}
        #: its private state before the match (a game's may hold secrets drawn at the start,
        #: e.g. Bluffers' revolver seed): where its review's replay starts
        self.first_private: dict[str, Any] = json.loads(json.dumps(self.private))
        #: this seat's clock when it began to take lines where it takes them now: when it was
        #: made or restored (in process), at each seat message of its connection (the network
        #: client sets it, before the catch-up). A line the referee stamped no later than that
        #: (plus the tolerance) may come late, in a catch-up (written while the seat was away);
        #: any later line was written while the seat was there and is pushed live, so its stamp
        #: may not trail the seat's receive time by more than the tolerance (``clock.skew``).
        #: None: every line comes live.
        self.connected_at: Optional[float] = self.clock()

    def signed_here(self) -> Optional[dict[str, Any]]:
        """The line this seat signed for the table's next position, if it signed one."""
        s, view = self.signed, self.view
        if s is None or view is None or s.get("n") != view.next_line or s.get("prev") != view.head:
            return None
        return s

    def _remember(self, line: dict[str, Any]) -> dict[str, Any]:
        """Keep ``line`` as the one this seat signed for its position (the public ways in,
        :meth:`move` and :meth:`deal_line`, refuse or resend before they make another; the
        raw signer ``_line`` remembers nothing, so tests can forge with it)."""
        self.signed = line
        return line

    def _refusal(self) -> str:
        s = self.signed
        assert s is not None
        return (f"seat {self.seat} already signed {s.get('action')} for line {s.get('n')} (after "
                f"{str(s.get('prev'))[:12]}…): it signs no other line there until a line lands at that number; "
                f"the same line again, re-stamped, is resend()")

    def resend(self) -> dict[str, Any]:
        """The line this seat signed for the table's next position, again: the same move (its
        action, data and proofs), stamped now and signed again. Its first stamp may be too old
        for the referee's clock (a break, a restart, a house that held it back); its move is
        never remade. :class:`IllegalMove` if this seat signed nothing for this position."""
        s = self.signed_here()
        if s is None or self.view is None or self.view.over:
            raise IllegalMove(f"seat {self.seat}: nothing signed for line "
                              f"{self.view.next_line if self.view else '?'} to send again")
        event = {k: v for k, v in s.items() if k != "sig"}
        event["at"] = self.clock()
        self.signed = sign_line(self.key, event)
        return self.signed

    def deal_line(self) -> Optional[dict[str, Any]]:
        """This seat's own deal line due now: a complaint, else its entropy line; or None."""
        if self.view is None or not self.sends_deal_lines or self.view.over:
            return None
        signed = self.signed_here()
        if signed is not None:  # made for this line already: the same deal line again, or none
            return self.resend() if signed.get("action") in self.spec.deal.line_roles else None
        if self.complaint is not None:
            data, self.complaint = self.complaint, None
            return self._remember(self._line(self.seat, "complaint", data))
        due = self.spec.deal.seat_line_in(self.deal_secrets, self.seat, self.view, self.prover, self.clock)
        return None if due is None else self._remember(self._line(self.seat, due[0], due[1], at=due[2]))

    def join(self) -> dict[str, Any]:
        """The public join message: name, public key, the deal's public commitments."""
        return {"type": "join", "seat": self.seat, "name": self.name, "publicKey": self.public_key,
                "deal": self.spec.deal.seat_public(self.deal_secrets)}

    def to_dealer(self) -> dict[str, Any]:
        """The private message for the dealer before the deal."""
        return {"type": "deal-secrets", "seat": self.seat, "to": "dealer",
                "body": self.spec.deal.seat_to_dealer(self.seat, self.deal_secrets)}

    def check_own(self, event: Mapping[str, Any]) -> None:
        """Raise :class:`CommitmentMismatch`, changing nothing, if ``event`` is a move in this
        seat's name that this seat did not make: none is pending at its number, or it is not
        the line this seat signed there (its action, data and proofs; a resend re-stamps only).
        The same for the deal's lines a seat makes (its entropy, its opening, a complaint):
        one in its name is the one it signed at that number, or refused.
        Cheap and before any party takes the line: the table asks it of every seat it hosts
        before the referee checks and writes (refused means unchanged)."""
        if self.view is None or event.get("seat") != self.seat or event.get("action") in self._not_moves() - \
                self._own_deal_lines():
            return
        try:  # a line not signed with this seat's key is not its own: the referee refuses it as such
            check_line_signature(dict(event), self.public_key, f"seat {self.seat}")
        except (ZkbluffError, TypeError, ValueError):
            return
        if event.get("action") in self._own_deal_lines():  # its entropy, opening, complaint: the one it signed
            return self._check_signed_here(event)
        pending = self._pending
        if pending is None or pending[0] != event.get("n"):
            raise CommitmentMismatch(f"seat {self.seat}: line {event.get('n')!r} is in this seat's name, "
                                     f"but this seat did not make it")
        made = self.signed
        if made is not None and made.get("n") == event.get("n"):
            mine, got = json.loads(json.dumps(made)), json.loads(json.dumps(dict(event)))
            if any(mine.get(k) != got.get(k) for k in ("prev", "action", "data", "proofs")):
                raise CommitmentMismatch(f"seat {self.seat}: line {event.get('n')!r} is in this seat's name, but "
                                         f"this seat did not make it (it made {mine.get('action')} there)")

    def _own_deal_lines(self) -> set[Any]:
        return {k for k, role in self.spec.deal.line_roles.items() if role == Role.SEAT}

    def _check_signed_here(self, event: Mapping[str, Any]) -> None:
        made = self.signed
        mine = json.loads(json.dumps(made)) if made is not None else {}
        got = json.loads(json.dumps(dict(event)))
        if made is None or made.get("n") != event.get("n") or \
                any(mine.get(k) != got.get(k) for k in ("prev", "action", "data", "proofs")):
            raise CommitmentMismatch(f"seat {self.seat}: deal line {event.get('n')!r} ({event.get('action')}) is in "
                                     f"this seat's name, but this seat did not make it")

    def _not_moves(self) -> set[Any]:
        """Line kinds that are no seat's move (the header, deal lines, the end, the closing)."""
        return {"header", END, self.spec.deal.closing, *self.spec.deal.line_roles}

    def receive(self, event: Mapping[str, Any], restoring: bool = False, arrived: Optional[float] = None) -> None:
        """Follow a public line; open what it carries for this seat. A move in its name that
        it did not make is refused before its view takes it (:meth:`check_own`). ``arrived``:
        this seat's clock when the line reached it, if read before now (a client that reads
        its connection while it proves or checks another line); else its clock now."""
        if not restoring:
            self.check_own(event)
        first = self.view is None
        now = None if restoring or first else self.check_clock(event, arrived)
        action, publics = self._follow(event)
        if first:
            self._check_header(event, restoring, arrived)
            return
        if now is not None:
            self.received_at[int(event["n"])], self.referee_stamps[int(event["n"])] = now, referee_stamp(event)
        if restoring:
            return
        self._take(event, action, publics)

    def _check_header(self, event: Mapping[str, Any], restoring: bool, arrived: Optional[float] = None) -> None:
        """The header this seat's view took: its own key, the table it joined, its own deal
        commitments, and (live) the referee's stamp against its clock; refused, no view."""
        assert self.view is not None
        if self.view.seat_keys[self.seat] != self.public_key:
            self.view = None
            raise CommitmentMismatch(f"seat {self.seat}: the header lists another public key for this seat")
        got, joined = (self.view.spec.game, dict(self.view.spec.options)), (self.spec.game, dict(self.spec.options))
        if got != joined:  # the house may not change the table (its deal, its hands) after the join
            self.view = None
            raise CommitmentMismatch(f"seat {self.seat}: the header is for {got[0]} {got[1]}; this seat joined "
                                     f"{joined[0]} {joined[1]}")
        try:  # its own commitments in the header's deal, as it sent them (commit, then open)
            self.spec.deal.check_seat_header(self.view.header.get("deal"), self.seat, self.deal_secrets)
            if not restoring:
                self.received_at[1], self.referee_stamps[1] = self.check_clock(event, arrived), referee_stamp(event)
        except (CommitmentMismatch, ClockDispute, MalformedInput):
            self.view = None
            raise

    def _take(self, event: Mapping[str, Any], action: Any, publics: list[dict[str, int]]) -> None:
        """What a followed line (not the header) gives this seat: its deal line's cards, its
        own move's update, what another's line opens for it (or its complaint)."""
        if action is None:
            if event.get("action") in self.spec.deal.line_roles:
                self.private = self.spec.seat_deal_line(self.private, self.deal_secrets, self.seat, event)
            return
        pending, self._pending = self._pending, None
        if event["seat"] == self.seat:
            assert pending is not None  # check_own: the move it made at this number
            self.private = {**self.private, **pending[1]}
            self.own_updates[int(event["n"])] = dict(pending[1])
        assert self.view is not None
        # lines others made; and the seat's own lines too where the spec asks (a value its own
        # proof fixed only once the line's context was known, e.g. a card its seed picks)
        if event["seat"] != self.seat or self.spec.receive_own_lines:
            try:
                self.private = self.spec.seat_receive(self.private, self.deal_secrets, self.seat,
                                                      self.view.match_id, event, action, publics)
            except CommitmentMismatch:
                complaint = self.spec.deal.complaint(self.deal_secrets, self.seat, event)
                if complaint is None:
                    raise
                self.complaint = complaint  # published by the table as this seat's complaint line

    def check_clock(self, event: Mapping[str, Any], arrived: Optional[float] = None) -> float:
        """This seat's receive time of the line (``arrived``, else its clock now), after its
        checks of the line's referee stamp against it: :class:`ClockDispute` (the complaint
        kept in :attr:`disputes`), changing nothing else, if the stamp is ahead of this clock by
        more than the header's tolerance (``clock.skew``), or behind it by more on a line that
        came live (``clock.skew`` too: a house that back-dates its own line shortens the wait
        it starts; one stamped before this seat's connection, :attr:`connected_at`, may be a
        late delivery in a catch-up); or if the line is a timeout (a deal's forfeit or timeout
        too) whose wait, by this seat's own receive time of the line that began it, had not run
        out (``timeout.contradicted``: a tolerance allowed for the network). A header with no
        tolerance stated is refused live."""
        now = arrived if arrived is not None else (self.receive_clock or self.clock)()
        assert self.view is not None
        if event.get("n") == 1 and "clock" not in self.view.header:
            raise MalformedInput("header: no clock.tolerance stated: this seat cannot check the referee's stamps",
                                 code="header.malformed")
        tolerance = self.view.tolerance
        try:
            stamp = referee_stamp(event)
        except MalformedInput:
            return now  # its view refuses the line (line.stamp)
        record = {"line": event.get("n"), "hash": line_hash(canonical(dict(event))), "refereeAt": stamp,
                  "receivedAt": now, "tolerance": tolerance}
        if stamp - now > tolerance:
            self._dispute("clock.skew", f"line {event.get('n')!r} is stamped {stamp} by the referee; this seat's "
                          f"clock read {now} when it came (tolerance {tolerance} s)", record)
        if now - stamp > tolerance and self.came_live(stamp, tolerance):
            self._dispute("clock.skew", f"line {event.get('n')!r} is stamped {stamp} by the referee, {now - stamp:.3f} "
                          f"s before this seat's clock read {now} when it came live (tolerance {tolerance} s; "
                          f"connected since {self.connected_at})", {**record, "live": True,
                                                                     "connectedAt": self.connected_at})
        self._check_wait(event, now, record)
        return now

    def came_live(self, stamp: float, tolerance: float) -> bool:
        """Whether a line the referee stamped ``stamp`` reached this seat live: it was written
        while this seat was connected (after :attr:`connected_at`, beyond the tolerance), so
        the table pushed it at once; an earlier one may come in a catch-up, late."""
        return self.connected_at is None or stamp > self.connected_at + tolerance

    def _check_wait(self, event: Mapping[str, Any], now: float, record: dict[str, Any]) -> None:
        """``timeout.contradicted`` unless a timeout's wait ran, by this seat's clock, its
        seconds less the tolerance from the line that began it (from that line's arrival, or
        from its stamp plus the tolerance when it came late)."""
        wait, tolerance = self._wait_of(event), record["tolerance"]
        if wait is None or wait.get("since") not in self.received_at:
            return
        seconds, came = wait.get("seconds"), self.received_at[wait["since"]]
        began = min(came, self.referee_stamps.get(wait["since"], came) + tolerance)
        if isinstance(seconds, (int, float)) and now - began < seconds - tolerance:
            self._dispute("timeout.contradicted", f"line {event.get('n')!r}: a timeout of a {seconds} s wait from "
                          f"line {wait['since']}, which began at {began} by this seat's clock: only "
                          f"{now - began:.3f} s ran", {**record, "since": wait["since"], "sinceReceivedAt": came,
                                                       "began": began, "seconds": seconds})

    def _wait_of(self, event: Mapping[str, Any]) -> Optional[dict[str, Any]]:
        """The wait a referee's line ends (``{since, seconds}``): a timeout's ``clock``; the
        deal's own forfeits and timeouts (``entropy.forfeit``, ``deal.timeout``,
        ``oblivious.timeout``: data ``{since, deadline}``) give their seconds as the deadline
        less the referee stamp of ``since`` as this seat took it; None for any other line."""
        if event.get("seat") is not None:
            return None
        wait = event.get("clock")
        if isinstance(wait, dict):
            return wait
        data = event.get("data")
        if event.get("action") not in self.spec.deal.line_roles or not isinstance(data, dict):
            return None
        since, deadline = data.get("since"), data.get("deadline")
        if type(since) is not int or since not in self.referee_stamps or isinstance(deadline, bool) or \
                not isinstance(deadline, (int, float)):
            return None
        return {"since": since, "seconds": float(deadline) - self.referee_stamps[since]}

    def _dispute(self, code: str, message: str, record: dict[str, Any]) -> None:
        complaint = {"code": code, **record}
        self.disputes.append(complaint)
        raise ClockDispute(f"seat {self.seat}: {message}", code=code, complaint=complaint)

    def move(self, intent: Any) -> dict[str, Any]:
        """The signed line for ``intent`` (with its proof). Raises and changes nothing if
        the rules refuse it."""
        if self.view is None:
            raise IllegalMove("the match has not started")
        if self.signed_here() is not None:  # before any proof: a second move here is never made
            raise Equivocation(self._refusal())
        left = self.pause_left()
        if left > 0:  # the rules hold all play: a line made now would be refused (move.paused)
            raise PausedMove(f"seat {self.seat}: the table is paused for {left:.2f} s more (until "
                             f"{self.view.paused_until}); wait it out before moving")
        move = self.spec.seat_move(self.private, self.view.rules, self.seat, intent)
        line = self._remember(self._signed_move(move, self.seat, self.prover))
        self._pending = (line["n"], move.update)
        return line

    @classmethod
    def replay(cls, spec: GameSpec, data: Mapping[str, Any], prover: Optional[Prover] = None) -> "Seat":
        """A seat at the start of its match, from its secrets file (:meth:`export`): its key,
        its deal secrets and its own moves' updates, its private state back to the game's
        first; :meth:`follow_again` then takes the match's lines one by one as it took them
        (for its review: its own view after each line). A file saved before own moves were
        recorded replays its hand as dealt, without its own plays."""
        seat = cls.restore(spec, data, prover)
        seat.private = dict(seat.first_private)
        seat._pending, seat.signed = None, None
        seat.received_at, seat.referee_stamps, seat.disputes = {}, {}, []
        return seat

    def follow_again(self, event: Mapping[str, Any], trust: Optional[TrustContext] = None) -> None:
        """Take a line of this seat's own match again (after :meth:`replay`), one already
        verified as a whole (``verify_transcript``; ``trust``: the keys it was verified with):
        the rules and the deal follow it, its own move's recorded update is applied, what
        another's line opens for it is opened; no clock is read and no proof checked again."""
        if self.view is None:
            self.view = Referee(event, verify_now=False, trust=trust or self.prover.trust())
            self._check_header(event, restoring=True)
            return
        action, publics = self._follow(event)
        n = event.get("n")
        if action is not None and event.get("seat") == self.seat and isinstance(n, int):
            self._pending = (n, self.own_updates.get(n, {}))
        self._take(event, action, publics)

    def pause_left(self) -> float:
        """Seconds, by this seat's clock, until the pause the rules hold play for ends (0.0
        when none runs): a client or bot waits this long before it makes a line."""
        if self.view is None:
            return 0.0
        return max(0.0, self.view.paused_until - self.clock())

    def observation(self) -> Any:
        assert self.view is not None
        return self.spec.observation(self.view.rules, self.private, self.seat)

    def export(self) -> dict[str, Any]:
        """This seat's own secrets, for its own resume file (never a message)."""
        return {"seat": self.seat, "name": self.name, "key": self.key.secret_hex(), "deal": self.deal_secrets,
                "private": self.private, "pending": None if self._pending is None else list(self._pending),
                "signed": self.signed, "receivedAt": sorted(self.received_at.items()),
                "refereeStamps": sorted(self.referee_stamps.items()), "disputes": self.disputes,
                "ownUpdates": sorted(self.own_updates.items()), "firstPrivate": self.first_private}

    @classmethod
    def restore(cls, spec: GameSpec, data: Mapping[str, Any], prover: Optional[Prover] = None,
                clock: Optional[Callable[[], float]] = None) -> "Seat":
        try:
            seat = cls(spec, data["seat"], data["name"], prover, SigningKey.from_secret_hex(data["key"]),
                       dict(data["deal"]), dict(data["private"]), clock)
            pending = data.get("pending")  # a line it made that may not have come back yet
            if pending is not None:
                seat._pending = (int(pending[0]), dict(pending[1]))
            signed = data.get("signed")  # the last line it signed: never a second one for its position
            if signed is not None:
                if not isinstance(signed, dict):
                    raise TypeError(f"signed must be a line object, got {type(signed).__name__}")
                seat.signed = dict(signed)
            seat.received_at = {int(n): float(t) for n, t in data.get("receivedAt", [])}
            seat.referee_stamps = {int(n): float(t) for n, t in data.get("refereeStamps", [])}
            seat.disputes = [dict(d) for d in data.get("disputes", [])]
            seat.own_updates = {int(n): dict(u) for n, u in data.get("ownUpdates", [])}
            seat.first_private = dict(data.get("firstPrivate") or spec.new_private())
            return seat
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise MalformedInput(f"seat secrets file: {exc}") from None


class Dealer(_Party):
    """Deals: it receives the seats' deal messages, publishes the deal's header part,
    proves each deal and seals each seat's cards to it, and writes the closing line."""

    def __init__(self, spec: GameSpec, prover: Optional[Prover] = None, key: Optional[SigningKey] = None,
                 state: Optional[dict[str, Any]] = None, clock: Optional[Callable[[], float]] = None):
        super().__init__(spec, key, clock)
        self.prover = prover or Prover()
        self.state = state

    def hello(self, match_id: str, joins: list[dict[str, Any]], messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Take the seats' messages; answer with the public key and the header's ``deal``."""
        publics = [j["deal"] for j in sorted(joins, key=lambda j: j["seat"])]
        bodies = [m["body"] for m in sorted(messages, key=lambda m: m["seat"])]
        self.state = self.spec.deal.dealer_start(match_id, publics, bodies)
        return {"type": "dealer-hello", "publicKey": self.public_key, "deal": self.spec.deal.header(self.state, publics)}

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> None:
        self._follow(event)
        if self.view is not None and self.state is not None and self.view.next_line > 2:
            self.state = self.spec.deal.dealer_receive(self.state, self.view.ledger, event)

    def check_line(self, event: Mapping[str, Any]) -> None:
        """Raise, changing nothing, if this dealer could not take the deal line ``event``
        (a seat's sealed opening that does not open): the table asks before it writes."""
        if self.view is None or self.state is None or event.get("action") not in self.spec.deal.line_roles:
            return
        view = copy.deepcopy(self.view)
        view.apply(dict(event))
        self.spec.deal.dealer_receive(self.state, view.ledger, event)

    def deal_line(self) -> Optional[dict[str, Any]]:
        """The dealer's own deal line due now (its entropy commitment), or None."""
        assert self.view is not None and self.state is not None
        if self.view.over:
            return None
        at = self.clock()
        due = self.spec.deal.dealer_line(self.state, self.view.ledger, self.view.header, at)
        return None if due is None else self._line(NO_SEAT, due[0], due[1], at=at)

    def act(self) -> Optional[dict[str, Any]]:
        """The dealer's next line (a deal with its proof and sealed hands), or None when
        the spec says the referee acts."""
        assert self.view is not None and self.state is not None
        move = self.spec.dealer_move(self.state, self.view.rules, self.view.ledger, self.view.match_id,
                                     self.view.next_line)
        return None if move is None else self._signed_move(move, NO_SEAT, self.prover)

    def close(self) -> dict[str, Any]:
        assert self.view is not None and self.state is not None and self.spec.deal.closing is not None
        return self._line(NO_SEAT, self.spec.deal.closing, self.spec.deal.closing_data(self.state))

    def export(self) -> dict[str, Any]:
        return {"key": self.key.secret_hex(), "state": self.state}

    @classmethod
    def restore(cls, spec: GameSpec, data: Mapping[str, Any], prover: Optional[Prover] = None,
                clock: Optional[Callable[[], float]] = None) -> "Dealer":
        try:
            return cls(spec, prover, SigningKey.from_secret_hex(data["key"]), data["state"], clock)
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"dealer secrets file: {exc}") from None


@dataclass
class TimeLimits:
    """Seconds per limit (the header's ``limits``): a challenged seat's proof, an idle
    turn, the seats' entropy window after the dealer's commitment, the dealer's deal."""

    proof: float = 60.0
    idle: float = 600.0
    entropy: float = 60.0
    deal: float = 60.0


def limit_table(spec: GameSpec, limits: TimeLimits) -> dict[str, float]:
    """The named limits a header of ``spec`` states under ``limits``: the game's own
    (``GameSpec.time_limits``, e.g. Bluffers' per-move timer) and the table's."""
    return {**{k: float(v) for k, v in spec.time_limits.items()}, **asdict(limits)}


class RefereeParty(_Party):
    """Writes the header, checks every line before it is written (proofs verified at
    once), and writes the lines that are nobody's move: timeouts (by its clock) and the end."""

    def __init__(self, spec: GameSpec, key: Optional[SigningKey] = None, clock: Callable[[], float] = time.time,
                 limits: Optional[TimeLimits] = None, prover: Optional[Prover] = None,
                 private: Optional[dict[str, Any]] = None):
        super().__init__(spec, key, clock)
        self.limits = limits or TimeLimits()
        spec.check_limits(self.limit_table())  # a referee never writes a header whose limits are below the floors
        self.deadline = float("inf")
        self.prover = prover or Prover()
        self.private = private if private is not None else spec.new_referee_private()

    def header(self, match_id: str, joins: list[dict[str, Any]], hello: Mapping[str, Any],
               keys: Mapping[str, dict[str, Any]], ceremony: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
        joins = sorted(joins, key=lambda j: j["seat"])
        if [j["seat"] for j in joins] != list(range(self.spec.n_seats)):
            raise MalformedInput(f"expected joins from seats 0..{self.spec.n_seats - 1}")
        data = {
            "game": self.spec.game, "options": dict(self.spec.options), "matchId": match_id,
            "seats": [j["name"] for j in joins], "trust": self.spec.deal.trust,
            "parties": {"referee": self.public_key, "dealer": hello["publicKey"],
                        "seats": [j["publicKey"] for j in joins]},
            "keys": dict(keys), "deal": hello["deal"], "limits": self.limit_table(),
            "clock": {"tolerance": STAMP_TOLERANCE},
        }
        if self.spec.rules_version >= 1:  # the rules the match is played (and verifies) under
            data["rules"] = self.spec.rules_name()
        if ceremony is not None:  # a per-match ceremony's record: its digest and folder beside the transcript
            data["ceremony"] = dict(ceremony)
        return sign_line(self.key, {"n": 1, "prev": GENESIS, "seat": None, "action": "header", "data": data,
                                    "at": self.clock()})

    def admit(self, event: dict[str, Any]) -> dict[str, Any]:
        """A seat's or the dealer's line with this referee's signed receipt (``received``: its
        clock now), the time every deadline after it runs from (the dealer is a party with a
        clock of its own, like a seat); the referee's own lines as they are. A line that brings
        a receipt of its own is refused (``line.malformed``), changing nothing."""
        if self.view is None or self.view.closed:
            return event
        try:
            role = self.view.role_of(event.get("action"))
        except ZkbluffError:
            return event  # refused by receive, for what it is
        if role not in (Role.SEAT, Role.DEALER):
            return event
        if "received" in event:
            raise IllegalMove(f"line {event.get('n')!r}: a {role.value}'s line brings no receipt (the referee adds "
                              f"its own)", code="line.malformed")
        return sign_receipt(self.key, event, self.clock())

    def receive(self, event: Mapping[str, Any], restoring: bool = False) -> tuple[Any, list[dict[str, int]]]:
        """Check and apply a line (raises, changing nothing, if it is refused). Live (not
        ``restoring``), a line's stamp must be this referee's clock's reading (within
        :data:`STAMP_TOLERANCE`): nobody back-dates an entropy or a timeout; and no seat's line
        reaches it inside a pause the rules hold play for (:meth:`Referee.check_pause`)."""
        if not restoring and "at" in event:
            now, at = self.clock(), event["at"]
            if isinstance(at, (int, float)) and not isinstance(at, bool) and abs(at - now) > STAMP_TOLERANCE:
                raise IllegalMove(f"line {event.get('n')!r} is stamped {at}; the referee's clock reads {now}",
                                  code="line.stamp")
        if not restoring and self.view is not None:  # a seat's line inside a pause, whatever its stamp says
            self.view.check_pause(event, self.clock(), by="the referee's clock reads")
        if self.view is None:
            self.view = Referee(event, verify_now=True, trust=self.prover.trust())
            out: tuple[Any, list[dict[str, int]]] = (None, [])
        else:
            out = self.view.apply(event)
        self._reset_deadline()
        return out

    def _reset_deadline(self) -> None:
        """The deadline the table now waits on: the deal's (seats' entropies) or the seat
        to move's (the last line's stamp plus its limit); infinite when nobody is waited on."""
        view = self.view
        assert view is not None
        deal = self.spec.deal.deal_deadline(view)
        due = None if view.over or not view.deal_ready else self.spec.timeout(view.rules)
        if deal is not None:
            self.deadline = deal
        elif due is None:
            self.deadline = float("inf")
        else:  # a limit by name ("proof", "idle") or a game's own number of seconds (a calling window)
            since = view.head_at if view.head_at is not None else self.clock()
            seconds = limit_seconds(self.limit_table(), due[1])
            assert seconds is not None  # the spec's limit is a named limit or its own seconds
            self.deadline = since + seconds

    def limit_table(self) -> dict[str, float]:
        """The named limits the header states: the game's own (``GameSpec.time_limits``,
        e.g. Bluffers' per-move timer) and the table's :class:`TimeLimits`."""
        return limit_table(self.spec, self.limits)

    def act(self) -> Optional[dict[str, Any]]:
        """The referee's own action when no seat is to move and the dealer does not act."""
        assert self.view is not None
        move = self.spec.referee_move(self.private, self.view.rules, self.view.ledger, self.view.match_id,
                                      self.view.next_line)
        return None if move is None else self._signed_move(move, NO_SEAT, self.prover)

    def end_line(self) -> dict[str, Any]:
        assert self.view is not None
        result = self.view.result()
        assert result is not None
        return self._line(None, END, self.view.end_data(result))

    def announce(self, action: Any) -> dict[str, Any]:
        """The referee's signed line for one of its own actions that no clock triggers
        (a game's connection events: a seat dropped or back). Raises :class:`IllegalMove`,
        writing nothing, unless the spec gives the action's kind to the referee and the
        rules accept it now."""
        assert self.view is not None
        known = next((cls for cls in self.spec.actions if cls.kind == action.kind), None)
        if known is None or known.role is not Role.REFEREE:
            raise IllegalMove(f"{action.kind}: not a referee's action in {self.spec.game}")
        self.view.rules.check(NO_SEAT, action)
        return self._line(None, action.kind, action.to_data())

    def timeout_line(self) -> Optional[dict[str, Any]]:
        """The timeout line when the clock has passed the deadline of the seat to move."""
        assert self.view is not None
        now = self.clock()
        if now <= self.deadline or self.view.over:
            return None
        deal = self.spec.deal.referee_line(self.view, now)
        if deal is not None:
            return self._line(None, deal[0], deal[1], at=now)
        due = self.spec.timeout(self.view.rules)
        if due is None or not self.view.deal_ready:
            return None
        seat = self.view.rules.to_move  # None: a wait nobody is to move in (Cheat's calling window)
        return self._line(None, due[0].kind, due[0].to_data(), at=now,
                          clock=self.view.timeout_clock(seat, due[1], now))

    def open_seal(self, seal: Mapping[str, Any]) -> dict[str, Any]:
        """The referee's signed line that plays a seat's sealed move (``{kind, data, proofs}``,
        the proofs the seat made in advance); the referee's check of it is :meth:`receive`'s."""
        return self._line(None, seal["kind"], dict(seal["data"]), list(seal["proofs"]))

    def export(self) -> dict[str, Any]:
        return {"key": self.key.secret_hex(), "private": self.private}

    @classmethod
    def restore(cls, spec: GameSpec, data: Mapping[str, Any], **kwargs: Any) -> "RefereeParty":
        try:
            return cls(spec, SigningKey.from_secret_hex(data["key"]), private=dict(data["private"]), **kwargs)
        except (KeyError, TypeError) as exc:
            raise MalformedInput(f"referee secrets file: {exc}") from None


def new_match_id() -> str:
    return pysecrets.token_hex(8)
