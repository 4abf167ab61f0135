"""The ``GameSpec`` interface: everything the generic referee, table, parties and offline
verifier need to know about one game, and nothing else does.

A spec names its statements and its deal; lists its action classes (the event schema:
each action class names its ``kind`` and its ``role``, the party entitled to make it); says, for each action, which
proof it must carry and which of that proof's public inputs the table already holds
(a list of :class:`ProofDemand`: an action may owe several proofs, or none), and what
the table records from the proofs afterwards (a new hand commitment); says how a seat turns an intent (``play these cards``) into an action and
the private inputs of its proof (:class:`Move`), and how a seat updates its own secrets
when its line is accepted; gives each seat its observation, its bots, its terminal text
and a summary of a result.

Specs are registered by the header's ``game`` in :mod:`zkbluff.games.registry`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, ClassVar, Mapping, Optional, Sequence

from zkbluff.errors import LimitTooShort, MalformedInput, UnknownRules
from zkbluff.games.engine.rules import Action, DealEnd, EndCode, Result, Role as Role, Rules  # Role: exported from its old home too


class LazyAttribute:
    """A class attribute named ``"module:name"``, imported when first read (and then set on
    the class it was read through, so later reads are plain): a game spec names its bots and
    terminal text this way, and a process that only verifies its transcripts imports neither."""

    def __init__(self, target: str):
        module, _, name = target.partition(":")
        if not module or not name:
            raise ValueError(f"LazyAttribute: expected 'module:name', got {target!r}")
        self.target = target
        self.attribute = ""

    def __set_name__(self, owner: type, attribute: str) -> None:
        self.attribute = attribute

    def __get__(self, instance: Any, owner: Optional[type] = None) -> Any:
        import importlib

        module, _, name = self.target.partition(":")
        value = getattr(importlib.import_module(module), name)
        if owner is not None and self.attribute:
            setattr(owner, self.attribute, value)
        return value

#: The shortest time limit (seconds) a table may state for each named limit of the engine's
#: ``TimeLimits``: a challenged seat's proof, an idle turn, the seats' entropy window, the
#: dealer's deal. A house that writes ``limits: {"idle": 0.001}`` would time every honest
#: seat out; every party refuses such a header (``header.limits``). A game may raise them
#: (``GameSpec.limit_floors``); a game's own limits (``GameSpec.time_limits``, e.g.
#: Bluffers' move timer) are floored at the rules' own value. docs/timeouts-and-complaints.md.
LIMIT_FLOORS: Mapping[str, float] = {"proof": 10.0, "idle": 20.0, "entropy": 10.0, "deal": 10.0}
#: A process's own scale on every floor (1.0). Only tests that run a real clock in fractions
#: of a second lower it, for their own process; nothing a header or a peer sends changes it.
FLOOR_SCALE = 1.0


def check_limits(limits: Mapping[str, Any], floors: Mapping[str, float], who: str) -> None:
    """Raise :class:`~zkbluff.errors.LimitTooShort` (``header.limits``) unless every limit
    in ``limits`` (name -> seconds, already positive numbers) that has a floor in
    ``floors`` is at least that floor; ``who`` names the table in the message."""
    short = {k: v for k, v in limits.items() if k in floors and float(v) < floors[k]}
    if short:
        said = ", ".join(f"{k} {float(v):g} s (the floor is {floors[k]:g} s)" for k, v in sorted(short.items()))
        raise LimitTooShort(f"{who}: time limit(s) shorter than the game allows: {said}")


def engine_floors() -> dict[str, float]:
    """The engine's floors (:data:`LIMIT_FLOORS` scaled): what a server checks its own
    limits against before any room exists."""
    return {k: v * FLOOR_SCALE for k, v in LIMIT_FLOORS.items()}


@dataclass(frozen=True)
class ProofDemand:
    """The proof an action must carry: the statement (registry key id) and the public
    inputs the table holds (``context`` is added by the engine). The proof's other publics
    are its outputs, handed to :meth:`GameSpec.record`."""

    statement: str
    pinned: Mapping[str, int]
    #: the seat whose proof a referee's line carries (its envelope's signer; a sealed move
    #: the seat proved in advance, ``pinned`` then names its own ``context``); None: the line's party
    for_seat: Optional[int] = None


@dataclass(frozen=True)
class Move:
    """What a party sends for one action: the action, the inputs of each proof the action
    owes (private witness and publics, without ``context``; in the order of
    :meth:`GameSpec.demand`), and the changes to the party's own secrets that take effect
    once the line is accepted."""

    action: Action
    proofs: tuple[Mapping[str, int], ...] = ()
    update: Mapping[str, Any] = field(default_factory=dict)


class DealScheme(ABC):
    """How a game's hidden cards get dealt: what seats send before the deal, what the
    header says, how the dealer makes each deal action and its proof, how a seat opens
    the hand sent to it, and the closing line (if any) that makes the deal checkable.
    A spec holds one; replacing it touches only the spec."""

    #: the action kind of the closing line the dealer writes after the end, or None
    closing: ClassVar[Optional[str]] = None
    #: what the header's ``trust`` says about this deal
    trust: ClassVar[str] = ""

    # ---- seat side
    @abstractmethod
    def seat_secrets(self) -> dict[str, Any]:
        """A seat's fresh deal secrets (made on the seat's side)."""

    @abstractmethod
    def seat_public(self, secrets: Mapping[str, Any]) -> dict[str, Any]:
        """What the seat publishes about its secrets (its join message's ``deal``)."""

    @abstractmethod
    def seat_to_dealer(self, seat: int, secrets: Mapping[str, Any]) -> dict[str, Any]:
        """The private message a seat sends the dealer before the deal."""

    # ---- dealer side
    @abstractmethod
    def dealer_start(self, match_id: str, seat_public: list[dict[str, Any]],
                     seat_messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The dealer's private state from the seats' messages; raises
        :class:`~zkbluff.errors.CommitmentMismatch` if a message does not open its seat's
        published commitment."""

    @abstractmethod
    def header(self, dealer: Mapping[str, Any], seat_public: list[dict[str, Any]]) -> dict[str, Any]:
        """The header's ``deal`` object."""

    @abstractmethod
    def check_header(self, deal: Any, n_seats: int) -> None:
        """Raise :class:`MalformedInput` unless ``deal`` is a well-formed header ``deal``."""

    def check_seat_header(self, deal: Any, seat: int, secrets: Mapping[str, Any]) -> None:
        """A seat's own check of the header's ``deal`` on receipt: what it committed to in its
        join is there as its own (raise :class:`~zkbluff.errors.CommitmentMismatch` if not), so
        the header the house signed stands for the seat's commitment. Nothing by default."""

    def closing_data(self, dealer: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    # ---- the deal's own lines (an entropy phase, complaints; none by default). A scheme
    # that has them (games/engine/proven_deal.py) keeps its public state in ``ledger.deal``.
    #: the deal's own line kinds and who makes each
    line_roles: ClassVar[Mapping[str, "Role"]] = {}
    #: the data fields of each of those lines, where the scheme lists them (a verifier then
    #: tells a stray field named as a secret, ``secret.leaked``, from a malformed line)
    line_fields: Mapping[str, frozenset[str]] = {}

    def ready(self, ledger: Any) -> bool:
        """Whether cards may be dealt (the rules' actions wait until then)."""
        return True

    def check_line(self, view: Any, kind: str, seat: Optional[int], event: Mapping[str, Any]) -> None:
        """Check and record one of :attr:`line_roles`' lines against the public state
        ``view`` (the :class:`~zkbluff.games.engine.referee.Referee`: its ledger, header,
        rules and last stamp); raise, changing nothing."""
        raise NotImplementedError

    def outcome(self, ledger: Any, scores: tuple[int, ...],
                standing: Optional[tuple[int, ...]] = None) -> Optional[Result]:
        """An end the deal decides (a forfeit before the deal, the dealer at fault), or None.
        ``standing``: the rules' :meth:`~zkbluff.games.engine.rules.Rules.standing_places`
        (a fault of a dealer that holds no seat settles the match on it)."""
        return None

    def outcome_code(self, ledger: Any) -> DealEnd:
        """The end code of the end :meth:`outcome` gives (called only when it gives one): the
        dealer at fault when :meth:`fault` names a fault, else a seat's forfeit (it sent nothing
        in time). A scheme whose ends differ says so here."""
        return DealEnd.FAULT if self.fault(ledger) is not None else DealEnd.FORFEIT

    def observe(self, ledger: Any, line: int, action: Action, publics: list[dict[str, int]]) -> None:
        """After the referee accepted game line ``line`` (e.g. to record a deal for complaints)."""

    def fault(self, ledger: Any) -> Optional[tuple[int, str]]:
        """``(line, reason)`` when a verified complaint found the dealer at fault."""
        return None

    def deal_deadline(self, view: Any) -> Optional[float]:
        """The deadline the deal waits on (seats' entropies, the dealer's deal) on the
        referee's clock, or None; ``view`` is the referee's public state."""
        return None

    def referee_line(self, view: Any, now: float) -> Optional[tuple[str, dict[str, Any]]]:
        """The referee's deal line once :meth:`deal_deadline` has passed (a forfeit, the
        dealer's timeout)."""
        return None

    def dealer_line(self, dealer: Mapping[str, Any], ledger: Any, header: Mapping[str, Any],
                    at: float) -> Optional[tuple[str, dict[str, Any]]]:
        """The dealer's next deal line of its own (before any deal action), or None."""
        return None

    def dealer_receive(self, dealer: dict[str, Any], ledger: Any, event: Mapping[str, Any]) -> dict[str, Any]:
        """The dealer's state after a recorded line (it opens what a seat sealed to it)."""
        return dealer

    def seat_line(self, secrets: Mapping[str, Any], seat: int, ledger: Any, match_id: str,
                  at: float) -> Optional[tuple[str, dict[str, Any]]]:
        """A seat's next deal line of its own (its entropy), or None."""
        return None

    def seat_line_in(self, secrets: dict[str, Any], seat: int, view: Any, prover: Any,
                     clock: Callable[[], float]) -> Optional[tuple[str, dict[str, Any], float]]:
        """A seat's next deal line ``(kind, data, at)`` given its whole view of the table
        (the rules' state too), its prover and its clock (the line is stamped ``at``), for
        a deal in which the seats themselves prove (the oblivious deal: stamped once the
        proof is made); by default :meth:`seat_line` stamped now."""
        at = clock()
        due = self.seat_line(secrets, seat, view.ledger, view.match_id, at)
        return None if due is None else (due[0], due[1], at)

    def complaint(self, secrets: Mapping[str, Any], seat: int, event: Mapping[str, Any]) -> Optional[dict[str, Any]]:
        """The data of a complaint line about a deal line whose sealed hand did not open, or
        None (the seat's error is raised instead)."""
        return None

    def check_closing(self, header: Mapping[str, Any], data: Any, ledger: Any) -> None:
        raise NotImplementedError


class GameSpec(ABC):
    """One game (one table kind) plugged into the engine. Instances carry the match's
    options (from the header's ``options``)."""

    #: the header's ``game``: the registry key
    game: ClassVar[str]
    #: a human title
    title: ClassVar[str]
    #: the action classes (the event schema); each names who makes its kind (``Action.role``)
    actions: ClassVar[tuple[type[Action], ...]]
    #: names of the options a header may carry, with their allowed values
    option_values: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    default_options: ClassVar[Mapping[str, str]] = {}
    #: the game's own named time limits in seconds (a limit ``timeout`` names that the
    #: table's TimeLimits does not have, e.g. a per-move timer)
    time_limits: ClassVar[Mapping[str, float]] = {}
    #: the floors of the table's named limits (seconds); see :data:`LIMIT_FLOORS`
    limit_floors: ClassVar[Mapping[str, float]] = LIMIT_FLOORS
    #: whether :meth:`seat_receive` also sees the seat's own accepted lines
    receive_own_lines: ClassVar[bool] = False
    #: the game's end reason codes (its rules module's ``END_CODES``, an :class:`EndCode`
    #: enum); None: a game that declares none knows only the legacy rules ``<game>/0``
    end_codes: ClassVar[Optional[type[EndCode]]] = None

    deal: DealScheme
    n_seats: int

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        opts = dict(self.default_options)
        if options is not None:
            if not isinstance(options, dict):
                raise MalformedInput(f"{self.game}: options must be an object, got {type(options).__name__}")
            unknown = sorted(set(options) - set(self.option_values))
            if unknown:
                raise MalformedInput(f"{self.game}: unknown option(s) {unknown}; known: {sorted(self.option_values)}")
            opts.update(options)
        for k, v in opts.items():
            if v not in self.option_values[k]:
                raise MalformedInput(f"{self.game}: option {k} must be one of {list(self.option_values[k])}, got {v!r}")
        self.options: dict[str, str] = opts

    @property
    def min_seats(self) -> int:
        """The fewest seats a room of this spec may start with (its options name the most:
        :attr:`n_seats`). A game whose seat count is an option lowers it (Bluffers: 2)."""
        return self.n_seats

    #: the options :meth:`table_options` sets at Start (a hosting client accepts a table
    #: that differs from what it asked for only in these)
    seat_set_options: ClassVar[tuple[str, ...]] = ()

    def check_seat_kind(self, seat: int, person: bool) -> None:
        """A seat's own check of the options the server set from the seats: raise
        :class:`~zkbluff.errors.TableMismatch` if they treat seat ``seat`` as the other
        kind (a person as a bot, or a bot as a person). Default: nothing to check."""
        return None

    def leave_intent(self) -> Optional[Any]:
        """The intent by which a seat leaves the table at any time (a client's Leave
        Table), or None where the game has none (default)."""
        return None

    def table_options(self, people: Sequence[bool]) -> dict[str, str]:
        """The options a server sets when a room's owner starts it, from the seats filled
        by then: ``people[i]`` is whether seat i is played by a person (not a house bot,
        not a client that says it runs a bot). Default: none (the options stand)."""
        return {}

    def floors(self) -> dict[str, float]:
        """The shortest value each named limit may have at this table, in seconds: the
        engine's (or this game's) :attr:`limit_floors`, and each of the game's own
        :attr:`time_limits` at its rules' value (a longer one is more generous; a shorter
        one is not the game). Scaled by :data:`FLOOR_SCALE`."""
        floors = {**self.limit_floors, **{k: float(v) for k, v in self.time_limits.items()}}
        return {k: v * FLOOR_SCALE for k, v in floors.items()}

    def check_limits(self, limits: Mapping[str, Any]) -> None:
        """Raise :class:`~zkbluff.errors.LimitTooShort` (``header.limits``) unless every
        limit in ``limits`` (a header's ``limits``: name -> seconds) that has a floor here
        is at least that floor. The one check every party runs: the referee party before it
        writes a header, the server when it opens a room, a client before it joins, every
        view of a header and ``zkbluff transcript verify``. Names without a floor pass
        (they time nothing at this table); values must already be positive numbers."""
        check_limits(limits, self.floors(), self.game)

    # ---- the rules version a transcript names (its header's ``rules``: ``"<game>/<n>"``)
    @property
    def rules_versions(self) -> tuple[int, ...]:
        """The rules versions this spec verifies: 0 (the legacy end line: its ``reason`` words
        compared verbatim, no code) and, for a game with :attr:`end_codes`, 1 (the end line's
        ``code`` checked, its words not)."""
        return (0, 1) if self.end_codes is not None else (0,)

    @property
    def rules_version(self) -> int:
        """The version a new match's header names (the newest known)."""
        return self.rules_versions[-1]

    def rules_name(self, version: Optional[int] = None) -> str:
        """``"<game>/<version>"`` (the header's ``rules``), the newest by default."""
        return f"{self.game}/{self.rules_version if version is None else version}"

    def parse_rules(self, rules: Any) -> int:
        """The version a header's ``rules`` names (a header without it: 0, the legacy rules).
        Raises :class:`~zkbluff.errors.UnknownRules` (``header.rules``, exit 2) for a name
        that is not ``"<this game>/<a known version>"``: a transcript verifies under the rules
        it names or not at all, never under others."""
        if not isinstance(rules, str):
            raise UnknownRules(f"header: rules must be a string \"{self.game}/<version>\", got {rules!r:.40}")
        game, _, version = rules.rpartition("/")
        known = ", ".join(self.rules_name(v) for v in self.rules_versions)
        if game != self.game or not version.isdigit() or version != str(int(version)) \
                or int(version) not in self.rules_versions:
            raise UnknownRules(f"header: rules {rules!r:.60} are not known to this verifier (it knows {known})")
        return int(version)

    def end_code(self, result: Result) -> str:
        """``<game>.<code>``: the end line's reason code for ``result`` under rules /1; its
        ``code`` must be one of :attr:`end_codes` or :class:`~zkbluff.games.engine.rules.DealEnd`
        (a game's rules that end with another are a bug, refused loudly)."""
        code = result.code.value if isinstance(result.code, Enum) else result.code
        known = {c.value for c in (*(self.end_codes or ()), *DealEnd)}
        if code not in known:
            raise AssertionError(f"{self.game}: the rules ended with code {code!r}, not one of its END_CODES "
                                 f"{sorted(known)}")
        return f"{self.game}.{code}"

    def action_class(self, kind: Any) -> type[Action]:
        for cls in self.actions:
            if cls.kind == kind:
                return cls
        raise MalformedInput(f"{self.game}: unknown action {kind!r}; expected one of "
                             f"{sorted(c.kind for c in self.actions)}")

    # ---- the public side (referee, verifier, every party's view)
    @abstractmethod
    def statements(self) -> list[str]:
        """The statement key ids the match's proofs use (the header's keys)."""

    @abstractmethod
    def new_rules(self) -> Rules: ...

    @abstractmethod
    def new_ledger(self, header: Mapping[str, Any]) -> Any:
        """The public commitments the table holds (hand commitments, the last play), for the
        match whose header data is ``header`` (already checked, its ``deal`` by the deal
        scheme's ``check_header``): a game whose ledger starts from the header (Mind Bluff:
        the seats' draw commitments in its ``deal``) reads it here."""

    @abstractmethod
    def demand(self, rules: Rules, ledger: Any, seat: Optional[int], action: Action) -> list[ProofDemand]:
        """The proofs ``action`` must carry, in order (empty: none). Called after the rules
        accepted the action and before it is applied."""

    @abstractmethod
    def record(self, ledger: Any, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        """Record what the table holds after the action (from its proofs' publics, by name,
        in the order of :meth:`demand`)."""

    # ---- the seat side
    @abstractmethod
    def new_private(self) -> dict[str, Any]:
        """A seat's own secrets beyond the deal's (its hand, salts, last play), JSON-safe."""

    @abstractmethod
    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        """Turn a seat's intent into its action and proof inputs; raise
        :class:`~zkbluff.errors.IllegalMove` / :class:`MalformedInput` saying why not."""

    @abstractmethod
    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int,
                     match_id: str, event: Mapping[str, Any], action: Action,
                     publics: list[dict[str, int]]) -> dict[str, Any]:
        """A seat's secrets after a line that someone else made (a deal sends it a hand,
        which it opens and checks against the published commitment); after its own lines
        too, after their ``Move.update``, when ``receive_own_lines`` is set."""

    def seat_deal_line(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int,
                       event: Mapping[str, Any]) -> dict[str, Any]:
        """A seat's secrets after one of the deal's own lines (``deal.line_roles``: an entropy
        line, its own or another seat's), for a game that keeps what such a line publishes
        (Cheat: each seat's pile key). By default nothing changes."""
        return dict(private)

    @abstractmethod
    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> Any:
        """What ``seat`` sees: public state, its own cards, its legal actions."""

    # ---- the dealer side
    @abstractmethod
    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                    line: int) -> Optional[Move]:
        """When no seat is to move: the dealer's next action (a deal, with each seat's cards
        sealed to it for ``line``) and its proof inputs; None if the referee acts instead."""

    def referee_move(self, referee: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str,
                     line: int) -> Optional[Move]:
        """When no seat is to move and the dealer does not act: the referee's action (with
        proofs from the referee's own secrets, e.g. a hidden count it holds); None if none."""
        return None

    def new_referee_private(self) -> dict[str, Any]:
        """The referee's own secrets (none by default)."""
        return {}

    # ---- the referee side
    @abstractmethod
    def timeout(self, rules: Rules) -> Optional[tuple[Action, Any]]:
        """The line the referee writes if the seat to move lets its time run out, and the
        limit that applies: a name ("proof" or "idle") or a number of seconds (a game's own
        clock, e.g. a calling window); None when no seat is to move."""

    def fault(self, ledger: Any) -> Optional[tuple[int, str]]:
        """``(line, reason)`` when a seat's answer to a complaint of the referee's showed the
        referee at fault (a whole transcript then fails ``referee.fault``); None by default."""
        return None

    def claimed_wait(self, rules: Rules, action: Action) -> Any:
        """The limit (a name or seconds) a seat's ``action`` claims another party let run out
        (a game's claim that the referee stalled), or None: the claim's own stamp must then
        be after the last line's plus that limit, as a referee's timeout is (``timeout.early``
        otherwise). Default: no action is such a claim."""
        return None

    # ---- sealed moves (a seat's automatic move proved in advance, left with the referee)
    def make_seal(self, seat: Any) -> Optional[list[dict[str, Any]]]:
        """(A seat's side.) The chain of sealed moves ``seat`` (a
        :class:`~zkbluff.games.engine.parties.Seat`) leaves with the referee now, one for each
        of its next turns in order (each ``{kind, data, proofs}``: the referee's line to play
        it), or None: :meth:`plan_seal`, :meth:`prove_seal` and :meth:`adopt_seal` at once."""
        plan = self.plan_seal(seat)
        return None if plan is None else self.adopt_seal(seat, plan, self.prove_seal(plan))

    def plan_seal(self, seat: Any) -> Optional[Any]:
        """(A seat's side, cheap, on its own thread.) What its next chain is made from, captured
        now, or None if none is due. Default: a game without sealed moves."""
        return None

    def prove_seal(self, plan: Any) -> Any:
        """(Any thread: the proving.) The chain made from ``plan`` alone (a client proves it in
        the background, beside the seat's own moves)."""
        raise NotImplementedError

    def adopt_seal(self, seat: Any, plan: Any, proved: Any) -> Optional[list[dict[str, Any]]]:
        """(A seat's side, on its own thread.) The chain to leave with the referee, its secrets
        kept in the seat's state, or None if the seat moved on since ``plan`` (stale)."""
        raise NotImplementedError

    def pending_seal(self, seat: Any) -> Optional[list[dict[str, Any]]]:
        """(A seat's side.) The chain ``seat`` made for its turns to come that still stands (to
        leave again on a new connection: the referee may never have got it), or None."""
        return None

    def check_seal(self, view: Any, seat: int, seal: Any) -> None:
        """(The referee's side.) Raise unless ``seal`` is ``seat``'s sealed move for its next turn
        (or a list: its chain for its next turns, in order)."""
        from zkbluff.errors import IllegalMove

        raise IllegalMove(f"{self.game}: a seat leaves no sealed move at this table")

    def seal_to_open(self, rules: Rules) -> Optional[int]:
        """The seat whose sealed move the referee may play now (its time ran out), or None."""
        return None

    def pause(self, rules: Rules, action: Action) -> float:
        """Seconds after the accepted line of ``action`` (``rules`` as it left them) in which
        no seat may make a line: a pause the game's rules hold all play for (Mind Bluff: a
        doubt, game 3's start). It runs from that line's stamp, the one the table's deadlines
        run from; a seat's line inside it is refused (:class:`~zkbluff.errors.PausedMove`,
        ``move.paused``), the referee's own lines are not. Default: no pause (0)."""
        return 0.0

    def clock_due(self, rules: Rules) -> bool:
        """True when nobody is to move and the table waits on the referee's clock (a calling
        window any seat may answer) instead of the dealer. The default: never."""
        return False

    # ---- bots and text
    #: bot classes, made with a seed: ``house_bot(seed).act(observation) -> intent`` (a spec
    #: may name them with :class:`LazyAttribute`, so a verifier never imports its bots)
    house_bot: ClassVar[type]
    random_bot: ClassVar[type]
    #: the game's terminal text: ``RULES``, ``describe(line, names)``, ``prompt(obs, ask, say, names)``
    text: ClassVar[Any]

    def summary(self, result: Optional[Result], seat_names: list[str]) -> str:
        if result is None:
            return "not over"
        if len(result.winners) == 1:
            who = f"{seat_names[result.winners[0]]} won"
        else:
            who = "draw" if len(result.winners) == len(result.placements) else \
                "shared win: " + ", ".join(seat_names[i] for i in result.winners)
        return f"{who} ({result.reason}); scores " + "–".join(str(x) for x in result.scores)
