"""The table: routes messages between the parties of one match and writes the accepted
lines. It holds no secret and decides nothing: the referee party checks every line, the
dealer deals, the seats move. Every message crosses :func:`wire` (a JSON round trip), so
what works here works unchanged over a network.

:func:`open_match` starts a match with every party in this process (the CLI, the demo,
tests); :func:`resume_match` continues one from its transcript and each party's own
secrets file beside it.
"""
from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

from zkbluff.ceremony.trust import TrustContext
from zkbluff.errors import CommitmentMismatch, MalformedInput, StorageError, ZkbluffError
from zkbluff.games.engine.parties import Dealer, Prover, RefereeParty, Seat, TimeLimits, new_match_id
from zkbluff.protocol.fixed_randomness import FixedRandomness
from zkbluff.protocol.signing import SigningKey
from zkbluff.statements.keys import load_keys
from zkbluff.games.engine.referee import Referee
from zkbluff.games.engine.rules import NO_SEAT
from zkbluff.games.engine.registry import spec_for
from zkbluff.protocol.transcript import TranscriptWriter, parse_chain, read_lines


def wire(message: Any) -> Any:
    """A message as the other side receives it: JSON-encoded and decoded."""
    return json.loads(json.dumps(message))


@dataclass
class MoveTiming:
    line: int
    action: str
    seat: Optional[int]
    prove_s: float = 0.0
    verify_s: float = 0.0


class Table:
    def __init__(self, referee: RefereeParty, dealer: Dealer, seats: Sequence[Seat], writer: TranscriptWriter,
                 persist: Optional[Callable[["Table"], None]] = None):
        self.referee, self.dealer, self.seats = referee, dealer, list(seats)
        self.spec = referee.spec
        self.writer = writer
        self.persist = persist
        self.timings: list[MoveTiming] = []
        #: the header's ``ceremony`` (a per-match ceremony's digest and record folder), if any
        self.ceremony: Optional[dict[str, str]] = None
        self.ceremony_timing: Optional["CeremonyTiming"] = None

    # ---- the public state, as the referee holds it
    @property
    def view(self) -> Referee:
        assert self.referee.view is not None
        return self.referee.view

    @property
    def rules(self) -> Any:
        return self.view.rules

    @property
    def state(self) -> Any:
        return self.view.rules.s if hasattr(self.view.rules, "s") else self.view.rules.public_state()

    @property
    def over(self) -> bool:
        return self.view.over

    @property
    def to_move(self) -> Optional[int]:
        return self.view.rules.to_move

    @property
    def match_id(self) -> str:
        return str(self.view.match_id)

    @property
    def header(self) -> dict[str, Any]:
        return self.view.header

    def observation(self, seat: int) -> Any:
        return self.seats[seat].observation()

    # ---- routing
    def start(self, match_id: Optional[str] = None) -> dict[str, Any]:
        """Joins, the seats' private messages to the dealer, the dealer's hello, the header."""
        match_id = match_id or new_match_id()
        joins = [wire(s.join()) for s in self.seats]
        messages = [wire(s.to_dealer()) for s in self.seats]
        hello = wire(self.dealer.hello(match_id, joins, messages))
        keys = {k: self.dealer.prover.key(k).vk.to_json() for k in self.spec.statements()}
        if self.persist is not None:  # the parties' secrets are saved before the header that names them
            self.persist(self)
        header = self.publish(self.referee.header(match_id, joins, hello, keys, self.ceremony))
        self.advance()
        return header

    def publish(self, line: dict[str, Any], seconds: float = 0.0) -> dict[str, Any]:
        """Every check first, then the write: each seat hosted here refuses a move in its name
        that it did not make (:meth:`Seat.check_own`), the referee checks the line; a refused
        line raises with nothing written, sent or persisted. Then it is written and sent to
        every other party. A write the storage refuses (:class:`StorageError`, an ``OSError``)
        raises with every party as it was: the same call again writes the line."""
        import time

        line = wire(line)
        # a seat's (and the dealer's) line: the referee's signed receipt, its time of it; first, so
        # every check below sees the line as it will be written (its deadlines run from the receipt)
        line = self.referee.admit(line)
        try:
            for seat in self.seats:
                seat.check_own(line)
            self.dealer.check_line(line)
        except CommitmentMismatch as refused:  # the referee's public reason first, where it has one
            copy.deepcopy(self.view).apply(line)  # on a copy: a refusal changes nothing
            raise refused
        # the referee's check is its receive (the proofs verified once, as the line is taken): a
        # write the storage refuses after it puts the referee's view and deadline back, so the
        # retry on this table makes and writes the same line (refused means unchanged)
        kept = (self.referee.view.snapshot() if self.referee.view is not None else None, self.referee.deadline)
        t = time.perf_counter()
        try:
            self.referee.receive(line)
            verify_s = time.perf_counter() - t
            self.writer.append_event(line)
        except BaseException:
            self._put_back(*kept)
            raise
        self.dealer.receive(wire(line))
        for seat in self.seats:
            seat.receive(wire(line))
        if "proofs" in line:
            self.timings.append(MoveTiming(line["n"], line["action"], line["seat"], seconds, verify_s))
        if self.persist is not None:
            self.persist(self)
        return line

    def _put_back(self, view: Optional[Referee], deadline: float) -> None:
        """The referee as it was before a line it took was refused (by the storage)."""
        if view is None:
            self.referee.view = None
        elif self.referee.view is not None:
            self.referee.view.restore(view)
        self.referee.deadline = deadline

    def advance(self) -> None:
        """Write the lines that are nobody's choice: the deal's own lines (the dealer's
        entropy commitment, each seat's entropy, a seat's complaint), deals, the end, the
        closing line. Returns when a seat is to move, or the deal waits for a seat."""
        while True:
            if not self.over:
                line = self._deal_line()
                if line is not None:
                    self.publish(line)
                    continue
                if not self.view.deal_ready:
                    return  # waiting for seats' entropies (poll() writes their forfeit after the deadline)
            if self.over:
                if not self.view.ended:
                    self.publish(self.referee.end_line())
                elif self.spec.deal.closing is not None and not self.view.closed:
                    self.publish(self.dealer.close())
                else:
                    return
            elif self.to_move is NO_SEAT and not self.spec.clock_due(self.rules):
                line = self.dealer.act()
                if line is not None:
                    self.publish(line, self.dealer.prover.last_seconds)
                    continue
                line = self.referee.act()
                if line is None and self.spec.deal.line_roles:
                    return  # the dealer holds back its deal: poll() times it out after its deadline
                if line is None:
                    raise RuntimeError(f"{self.spec.game}: no seat is to move and neither the dealer nor the "
                                       f"referee acts (the spec's dealer_move/referee_move)")
                self.publish(line, self.referee.prover.last_seconds)
            elif not self._open_seal():
                return

    # ---- sealed moves
    def leave_seal(self, seat: int, seal: Any) -> None:
        """Seat ``seat`` leaves its sealed move for its next turn with the referee, or a chain
        of them (a list: one for each of its next turns, in order), checked first: a seal that
        does not verify is refused and the seat's earlier one, if any, is dropped. Kept in the
        referee's own state (persisted with it), never sent to anyone. A seal the host cannot
        save (its storage refused the write) is refused too, the seals held left as they were."""
        before = self.referee.private
        seals = dict(before.get("seals", {}))
        seals.pop(str(seat), None)
        self.referee.private = {**before, "seals": seals}
        self.spec.check_seal(self.view, seat, seal)
        seals[str(seat)] = seal
        if self.persist is not None:
            try:
                self.persist(self)
            except BaseException:
                self.referee.private = before
                raise
        self.advance()  # its time may have run out already

    def _open_seal(self) -> bool:
        """Play the sealed move of the seat whose time ran out, if the referee holds one (the
        first of its chain: the rest are for its next timed-out turns); True if a line was
        written. A seal the referee refuses now (stale) is dropped with the rest of its chain:
        the seat's own agent owes the automatic move, as without one. A line the host cannot
        write or save (its storage refused) leaves the seals held exactly as they were, to be
        played when the write is tried again; a seal whose line is on the transcript already
        (written, the referee's secrets not saved after it) is never opened again: the rest of
        its chain goes on."""
        seat = self.spec.seal_to_open(self.rules)
        if seat is None:
            return False
        before = self.referee.private
        seals = dict(before.get("seals", {}))
        held = seals.pop(str(seat), None)
        if not held:
            return False
        chain = held if isinstance(held, list) else [held]  # a chain: the first now, the rest at its next timeouts
        played = self._played_seals({c.get("kind") for c in chain if isinstance(c, dict)})
        while chain and _seal_key(chain[0]) in played:
            chain = chain[1:]
        if chain[1:]:
            seals[str(seat)] = chain[1:]
        self.referee.private = {**before, "seals": seals}
        if not chain:
            return False
        try:
            self.publish(self.referee.open_seal(chain[0]))
        except StorageError:
            self.referee.private = before  # refused: unchanged (the first seal is played on the retry)
            raise
        except ZkbluffError:  # stale (the seat moved itself since): the rest of its chain is too
            seals.pop(str(seat), None)
            self.referee.private = {**before, "seals": seals}
            return False
        except BaseException:  # any other failure to write it (an OSError from a plain writer)
            self.referee.private = before
            raise
        return True

    def _played_seals(self, kinds: set[Any]) -> set[str]:
        """The sealed moves of these kinds the transcript holds already (their kind and data)."""
        return {_seal_key({"kind": e["action"], "data": e.get("data")})
                for e in self.writer.events if e.get("action") in kinds}

    def _deal_line(self) -> Optional[dict[str, Any]]:
        line = self.dealer.deal_line()
        if line is not None:
            return line
        for seat in self.seats:
            line = seat.deal_line()
            if line is not None:
                if self.persist is not None:  # what the seat committed to in it (its hand) is saved before the line
                    self.persist(self)
                return line
        return None

    def move(self, seat: int, intent: Any) -> dict[str, Any]:
        """Seat ``seat`` acts on ``intent``; returns the written line. A refused move raises
        and changes nothing. The referee's clock is read first: a move that comes after a
        deadline the clock has passed finds the timeout written before it."""
        if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise MalformedInput(f"seat must be 0..{len(self.seats) - 1}, got {seat!r}")
        self.poll()
        line = self.seats[seat].move(intent)
        return self.submit(line, self.seats[seat].prover.last_seconds if "proofs" in line else 0.0)

    def submit(self, line: dict[str, Any], seconds: float = 0.0) -> dict[str, Any]:
        """A seat's signed line made elsewhere (by a seat in this process, or one across a
        network): checked by the referee and written, then the lines that follow by
        themselves. A refused line raises and changes nothing."""
        written = self.publish(line, seconds)
        self.advance()
        return written

    def announce(self, action: Any) -> dict[str, Any]:
        """The referee writes one of its own actions (a game's connection event); a refused
        one raises and changes nothing."""
        written = self.publish(self.referee.announce(action))
        self.advance()
        return written

    def poll(self) -> Optional[dict[str, Any]]:
        """Write the timeout the referee's clock has reached, if any."""
        if self.over:
            return None
        line = self.referee.timeout_line()
        if line is None:
            return None
        written = self.publish(line)
        self.advance()
        return written


def _seal_key(seal: Any) -> str:
    """A seal's identity: its kind and data (the seat's signature over a context unique to
    one turn), as the line that plays it carries them."""
    return json.dumps([seal.get("kind"), seal.get("data")], sort_keys=True) if isinstance(seal, dict) else repr(seal)


def may_act(view: Referee, seat: int) -> bool:
    """Whether ``seat`` may make a line now, by the public state ``view``: the deal is
    ready and the seat is to move, or the table waits on the referee's clock (a calling
    window: nobody is to move) and the seat has a legal action there. Any party's copy of
    the state answers the same (a server, a seat's client)."""
    if view.over or not view.deal_ready:
        return False
    rules = view.rules
    if rules.to_move is NO_SEAT:
        return view.spec.clock_due(rules) and bool(rules.legal_actions(seat))
    return bool(rules.to_move == seat)


# ---------------------------------------------------------------- local matches

def secrets_path(transcript: Path, party: str) -> Path:
    return transcript.with_name(f"{transcript.name}.{party}.secrets.json")


def _party_files(table: Table) -> list[tuple[str, dict[str, Any]]]:
    return [("referee", table.referee.export()), ("dealer", table.dealer.export())] + \
        [(f"seat{s.seat}", s.export()) for s in table.seats]


def _saver(transcript: Path) -> Callable[[Table], None]:
    def save(table: Table) -> None:
        """Each party's own secrets beside the transcript, one file each (for resuming);
        never published."""
        for party, data in _party_files(table):
            path = secrets_path(transcript, party)
            tmp = path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # readable by its owner only
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(json.dumps(data))
            os.chmod(tmp, 0o600)  # also when the file existed with looser bits
            os.replace(tmp, path)
    return save


class _CeremonySigner:
    """A party's line-signing key as the ceremony's seat key (raw bytes in and out)."""

    def __init__(self, key: SigningKey):
        self._key = key
        self._public = bytes.fromhex(key.public_hex)

    @property
    def public(self) -> bytes:
        return self._public

    def sign(self, message: bytes) -> bytes:
        return bytes.fromhex(self._key.sign(message))


def ceremony_record_path(transcript: Path) -> Path:
    """Where a match's per-match ceremony record lives: a folder beside its transcript."""
    return transcript.with_name(f"{transcript.name}.ceremony")


@dataclass
class CeremonyTiming:
    """Seconds per seat: its contributions (``phase1_s``, ``phase2_s``: every statement)
    and its checks of everything before it (``check1_s``, ``check2_s``); ``close_s``
    builds the initial keys from phase 1 (once, deterministic); ``verify_s`` is a third
    party's check of the finished record."""
    phase1_s: list[float]
    phase2_s: list[float]
    check1_s: list[float]
    check2_s: list[float]
    close_s: float
    verify_s: float
    power: int


def run_match_ceremony(spec: Any, match_id: str, seats: Sequence[Seat], backend: Any = None,
                       say: Optional[Callable[[str], None]] = None) -> tuple[Any, CeremonyTiming]:
    """Before the deal: each seat in turn checks the chain so far and contributes to phase
    1, then (phase 1 closed) checks everything and contributes to phase 2 of every
    statement the match uses, signing each contribution with its line key. Returns the
    ceremony, verified as a third party would (every seat's contribution present), and
    the times."""
    import time

    from zkbluff.ceremony import match as mm
    from zkbluff.curve import get_backend
    from zkbluff.statements import get_statement

    be = backend or get_backend()
    circuits = {k: get_statement(k).build()[0] for k in spec.statements()}
    mc = mm.start_match_ceremony(match_id, [bytes.fromhex(s.public_key) for s in seats], circuits)
    t_ = {"p1": [], "p2": [], "c1": [], "c2": []}  # type: dict[str, list[float]]

    def timed(key: str, f: Callable[[], Any]) -> Any:
        t = time.perf_counter()
        out = f()
        t_[key].append(time.perf_counter() - t)
        return out

    for s in seats:
        timed("c1", lambda: mm.check_so_far(mc, be))
        mc = timed("p1", lambda: mm.contribute_phase1(mc, s.seat, _CeremonySigner(s.key), be, verify_first=False))
    t = time.perf_counter()
    mc = mm.close_phase1(mc, be)
    close_s = time.perf_counter() - t
    for s in seats:
        timed("c2", lambda: mm.check_so_far(mc, be))
        mc = timed("p2", lambda: mm.contribute_phase2(mc, s.seat, _CeremonySigner(s.key), be, verify_first=False))
    t = time.perf_counter()
    mm.verify_match_ceremony(mc, be)
    timing = CeremonyTiming(t_["p1"], t_["p2"], t_["c1"], t_["c2"], close_s, time.perf_counter() - t, mc.ptau.power)
    if say:
        worst = max(a + b for a, b in zip(timing.phase1_s, timing.phase2_s))
        say(f"per-match ceremony: {len(seats)} seats, phase 1 at 2^{timing.power}, {len(circuits)} keys; "
            f"a seat's contributions {worst:.2f} s (phase 1 {max(timing.phase1_s):.2f} s, phase 2 "
            f"{max(timing.phase2_s):.2f} s), its checks before them {max(timing.check2_s):.2f} s; initial keys "
            f"{close_s:.2f} s; the whole record verified in {timing.verify_s:.2f} s")
    return mc, timing


#: whether this process may open a match with fixed randomness without marking it practice:
#: only a test process does (tests/conftest.py sets it); a seed anywhere else is refused
FIXED_RANDOMNESS_IN_TESTS = False

#: what a chosen seat secret may give (the fields of :meth:`Seat.export` it replaces)
SEAT_SECRET_FIELDS = frozenset({"key", "deal"})


class FixedTable(Table):
    """A table whose parties draw from one seed (:class:`FixedRandomness`) in every call
    that makes a line, so the same seed and the same moves write the same transcript."""

    fixed: FixedRandomness

    def move(self, seat: int, intent: Any) -> dict[str, Any]:
        with self.fixed.draws():
            return super().move(seat, intent)

    def submit(self, line: dict[str, Any], seconds: float = 0.0) -> dict[str, Any]:
        with self.fixed.draws():
            return super().submit(line, seconds)

    def announce(self, action: Any) -> dict[str, Any]:
        with self.fixed.draws():
            return super().announce(action)

    def poll(self) -> Optional[dict[str, Any]]:
        with self.fixed.draws():
            return super().poll()

    def leave_seal(self, seat: int, seal: Any) -> None:
        with self.fixed.draws():
            super().leave_seal(seat, seal)

    def advance(self) -> None:
        with self.fixed.draws():
            super().advance()


def _fixed_randomness(seed: Optional[int], seat_secrets: Optional[Sequence[Optional[Mapping[str, Any]]]],
                      n_seats: int, practice: bool) -> Optional[FixedRandomness]:
    """The seed's generators, after the refusals: fixed randomness (a seed or chosen seat
    secrets) only in a test process or a match marked practice, a seed an int, one chosen
    secret (or None) per seat with known fields only."""
    if seed is None and seat_secrets is None:
        return None
    if not (practice or FIXED_RANDOMNESS_IN_TESTS):
        raise MalformedInput("a seed or chosen seat secrets make a match that is not fair (whoever knows them "
                             "knows the cards): only for tests and replays, or a match marked practice=True",
                             code="match.fixed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise MalformedInput(f"seed: an int, got {seed!r}", code="match.fixed")
    if seat_secrets is not None:
        if len(seat_secrets) != n_seats:
            raise MalformedInput(f"seat_secrets: one per seat ({n_seats}), got {len(seat_secrets)}",
                                 code="match.fixed")
        for i, given in enumerate(seat_secrets):
            unknown = set(given or {}) - SEAT_SECRET_FIELDS
            if unknown:
                raise MalformedInput(f"seat_secrets[{i}]: unknown fields {sorted(unknown)} "
                                     f"(may give {sorted(SEAT_SECRET_FIELDS)})", code="match.fixed")
    return FixedRandomness(0 if seed is None else seed)


def _party_key(fixed: Optional[FixedRandomness], party: str) -> Optional[SigningKey]:
    return SigningKey.from_secret_hex(fixed.party_key_seed(party)) if fixed is not None else None


def _chosen_seat(spec: Any, i: int, name: str, prover: Prover, given: Optional[Mapping[str, Any]],
                 clock: Optional[Callable[[], float]], fixed: Optional[FixedRandomness]) -> Seat:
    given = given or {}
    key = SigningKey.from_secret_hex(given["key"]) if "key" in given else _party_key(fixed, f"seat{i}")
    deal = json.loads(json.dumps(given["deal"])) if "deal" in given else None
    return Seat(spec, i, name, prover, key=key, deal_secrets=deal, clock=clock)


def open_match(game: str, options: Optional[dict[str, Any]] = None, names: Optional[Sequence[str]] = None,
               transcript: Optional[Path] = None, match_id: Optional[str] = None, key_folder: Optional[Path] = None,
               backend: Any = None, clock: Optional[Callable[[], float]] = None,
               limits: Optional[TimeLimits] = None, say: Optional[Callable[[str], None]] = None,
               overwrite: bool = False, match_ceremony: bool = False, seed: Optional[int] = None,
               seat_secrets: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
               practice: bool = False) -> Table:
    """A new match with every party in this process; each makes its own key and secrets.

    Keys: the pinned project keys; ``key_folder``: a private key set (made there if
    missing; every party trusts it, deliberately); ``match_ceremony``: a per-match
    ceremony before the deal (:func:`run_match_ceremony`), its record saved beside the
    transcript (:func:`ceremony_record_path`) and named in the header.

    Fixed randomness, for tests and replays: ``seed`` fixes every party's draws for the
    whole match (:class:`FixedTable`: the same seed, clock and moves write the same
    transcript); ``seat_secrets``, one mapping (or None) per seat, gives a seat its
    signing key (``key``, as its secrets file holds it) or its deal secrets (``deal``)
    instead of drawing them. Either is refused (``match.fixed``) outside a test process
    unless ``practice=True`` marks the match as practice (``zkbluff play --seed``)."""
    spec = spec_for(game, options)
    fixed = _fixed_randomness(seed, seat_secrets, spec.n_seats, practice)
    if fixed is None:
        return _open_match(spec, game, names, transcript, match_id, key_folder, backend, clock, limits,
                           say, overwrite, match_ceremony, None, None)
    with fixed.draws():
        return _open_match(spec, game, names, transcript, match_id, key_folder, backend, clock, limits,
                           say, overwrite, match_ceremony, seat_secrets, fixed)


def _open_match(spec: Any, game: str, names: Optional[Sequence[str]],
                transcript: Optional[Path], match_id: Optional[str], key_folder: Optional[Path],
                backend: Any, clock: Optional[Callable[[], float]], limits: Optional[TimeLimits],
                say: Optional[Callable[[str], None]], overwrite: bool, match_ceremony: bool,
                seat_secrets: Optional[Sequence[Optional[Mapping[str, Any]]]],
                fixed: Optional[FixedRandomness]) -> Table:
    from zkbluff.ceremony import match as mm

    names = list(names or [f"seat {i}" for i in range(spec.n_seats)])
    if len(names) != spec.n_seats:
        raise MalformedInput(f"{game}: {spec.n_seats} seats, got {len(names)} names")
    if match_ceremony and key_folder is not None:
        raise MalformedInput("keys: a per-match ceremony or a private key folder, not both")
    match_id = match_id or new_match_id()
    if key_folder is not None:  # the private set exists before any party reads the header
        for k in spec.statements():
            load_keys(k, Path(key_folder), say=say)
    match_pks: dict[str, Any] = {}

    def prover() -> Prover:  # one per party
        return Prover(key_folder, backend, say, match_pks)

    kwargs: dict[str, Any] = {"limits": limits}
    if clock is not None:
        kwargs["clock"] = clock
    chosen = list(seat_secrets) if seat_secrets is not None else [None] * spec.n_seats
    seats = [_chosen_seat(spec, i, names[i], prover(), chosen[i], clock, fixed) for i in range(spec.n_seats)]
    ceremony = None
    if match_ceremony:
        mc, timing = run_match_ceremony(spec, match_id, seats, backend, say)
        match_pks.update({k: zk.pk for k, zk in mc.zkeys.items()})
        for s in seats:
            s.prover = prover()
        record = ceremony_record_path(Path(transcript) if transcript else Path(f"{match_id}.jsonl"))
        digest = mm.save(mc, record) if transcript else mm.record_digest(mc)
        ceremony = {"digest": digest, "record": record.name}
    referee = RefereeParty(spec, _party_key(fixed, "referee"), prover=prover(), **kwargs)
    dealer = Dealer(spec, prover(), _party_key(fixed, "dealer"), clock=clock)
    writer = TranscriptWriter(transcript, overwrite=overwrite)
    table = (FixedTable if fixed else Table)(referee, dealer, seats, writer,
                                             _saver(Path(transcript)) if transcript else None)
    if isinstance(table, FixedTable) and fixed is not None:
        table.fixed = fixed
    table.ceremony = ceremony
    if match_ceremony:
        table.ceremony_timing = timing
    table.start(match_id)
    return table


def resume_match(transcript: Path, key_folder: Optional[Path] = None, backend: Any = None,
                 clock: Optional[Callable[[], float]] = None, limits: Optional[TimeLimits] = None,
                 say: Optional[Callable[[str], None]] = None) -> Table:
    """Continue a match from its transcript and each party's secrets file beside it."""
    transcript = Path(transcript)
    events = list(parse_chain(read_lines(transcript)))
    if not events or events[0]["action"] != "header":
        raise MalformedInput("transcript: the first line must be the header")
    header = events[0]["data"]
    spec = spec_for(header.get("game"), header.get("options"))
    files: dict[str, Any] = {}
    for party in ["referee", "dealer"] + [f"seat{i}" for i in range(spec.n_seats)]:
        path = secrets_path(transcript, party)
        try:
            files[party] = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise MalformedInput(f"cannot resume without the {party}'s secrets ({path}): {exc}") from None

    match_pks: dict[str, Any] = {}
    if isinstance(header, dict) and "ceremony" in header:  # each party re-checks the match's ceremony
        from zkbluff.ceremony import match as mm
        from zkbluff.games.engine.verifier import match_trust
        from zkbluff.statements import get_statement

        match_trust(transcript, header, TrustContext.default(), backend)
        circuits = {k: get_statement(k).build()[0] for k in sorted(header["keys"])}
        mc = mm.load(ceremony_record_path(transcript), circuits, header["ceremony"]["digest"])
        match_pks = {k: zk.pk for k, zk in mc.zkeys.items()}

    def prover() -> Prover:
        return Prover(key_folder, backend, say, match_pks)

    kwargs: dict[str, Any] = {"limits": limits}
    if clock is not None:
        kwargs["clock"] = clock
    referee = RefereeParty.restore(spec, files["referee"], prover=prover(), **kwargs)
    dealer = Dealer.restore(spec, files["dealer"], prover(), clock)
    seats = [Seat.restore(spec, files[f"seat{i}"], prover(), clock) for i in range(spec.n_seats)]
    for e in events:
        referee.receive(e, restoring=True)
        dealer.receive(e, restoring=True)
        for s in seats:
            s.receive(e, restoring=True)
    table = Table(referee, dealer, seats, TranscriptWriter(transcript, events=events), _saver(transcript))
    table.advance()
    return table
