"""What a seat checks about a table before it sits down and before it signs anything:
``zkbluff join URL CODE --expect deal=oblivious --expect limit.proof>=60``.

A person who joins (rather than hosts) a room did not choose its game or options: the
house tells the client in its ``seat`` message, and later signs them in the match's header
(with the time limits, the trust model and the verifying keys). The client shows them
(:func:`describe_table`) and refuses, with :class:`~zkbluff.errors.TableMismatch` (exit 1),
a table that differs from what its person said to expect (:func:`check_table`):

- at the ``seat`` message, before the seat makes its secrets or its join: the game, the
  number of seats and each option (the game's defaults filled in; an option the game does
  not have is a mismatch);
- at the header (line 1, signed by the referee), before the seat signs any line: all of the
  above again, and the time limits, the trust model and where the keys come from. The
  header's options are also checked against the game's own validation (the spec), and the
  header's game and options against the ``seat`` message (:class:`~zkbluff.games.engine.parties.Seat`).

Expectations (``KEY=VALUE``; limits also ``>=`` and ``<=``):

====================  =============================================================
``game=NAME``          the registry name (``proof-or-bluff``, ``cheat``, ...)
``seats=N``            the number of seats
``OPTION=VALUE``       any option of the game (``deal=oblivious``, ``mode=casual``,
                       ``players=3``, ``window=3`` ...)
``limit.NAME=S``       a time limit of the header in seconds (``proof``, ``idle``,
                       ``entropy``, ``deal``, a game's own such as ``move``); ``>=``
                       and ``<=`` compare
``trust=TEXT``         the header's trust model, by its name (the words before its
                       first colon: ``oblivious deal``, ``zk dealer``)
``keys=SOURCE``        where every verifying key comes from: ``project`` (the pinned
                       project keys), ``match`` (a per-match ceremony with every seat's
                       contribution) or ``private`` (a key folder given deliberately)
====================  =============================================================
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

from zkbluff.errors import MalformedInput, TableMismatch
from zkbluff.games.engine.spec import GameSpec

#: expectations known before the header: the rest wait for it
SEAT_TIME = ("game", "seats")
HEADER_ONLY = ("trust", "keys")
KEY_SOURCES = ("project", "match", "private")
_FORM = re.compile(r"^([a-z][a-z0-9_.-]*)(>=|<=|=)(.+)$")


@dataclass(frozen=True)
class Expectation:
    """``key op value``: see the module for the keys."""

    key: str
    op: str
    value: str

    def __str__(self) -> str:
        return f"{self.key}{self.op}{self.value}"

    @property
    def limit(self) -> Optional[str]:
        return self.key[len("limit."):] if self.key.startswith("limit.") else None


def parse_expectation(text: str) -> Expectation:
    """One ``--expect`` argument; :class:`MalformedInput` (exit 2) if it is not ``KEY=VALUE``
    (or ``limit.NAME>=S`` / ``<=``)."""
    m = _FORM.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise MalformedInput(f"--expect: expected KEY=VALUE (e.g. deal=oblivious, limit.proof>=60), got {text!r}")
    key, op, value = m.group(1), m.group(2), m.group(3).strip()
    out = Expectation(key, op, value)
    if out.limit is not None:
        if not out.limit:
            raise MalformedInput(f"--expect {text}: name the limit (limit.proof, limit.idle, ...)")
        try:
            seconds = float(value)
        except ValueError:
            raise MalformedInput(f"--expect {text}: a limit is a number of seconds, got {value!r}") from None
        if not seconds > 0:
            raise MalformedInput(f"--expect {text}: a limit is a positive number of seconds, got {value!r}")
    elif op != "=":
        raise MalformedInput(f"--expect {text}: only a limit (limit.NAME) compares with {op}; use {key}=VALUE")
    if key == "seats" and not value.isdigit():
        raise MalformedInput(f"--expect {text}: seats is a number, got {value!r}")
    if key == "keys" and value not in KEY_SOURCES:
        raise MalformedInput(f"--expect {text}: keys is one of {', '.join(KEY_SOURCES)}, got {value!r}")
    return out


def parse_expectations(texts: Iterable[str]) -> tuple[Expectation, ...]:
    return tuple(parse_expectation(t) for t in texts)


def trust_name(trust: Any) -> str:
    """A header's trust model by its name: the words before the first colon."""
    return str(trust).split(":", 1)[0].strip()


def _key_sources(trust: Mapping[str, Any]) -> set[str]:
    return {t.source for t in trust.values()}


def describe_table(spec: GameSpec, names: Sequence[str] = (), header: Optional[Mapping[str, Any]] = None,
                   trust: Optional[Mapping[str, Any]] = None) -> list[str]:
    """What a person is shown about a table: the game, its seats and options (the ``seat``
    message's, known before the seat is taken), and from the signed header its trust
    model, time limits and where its keys come from (``trust``: the referee's
    ``{statement: Trust}`` for the header's keys)."""
    options = ", ".join(f"{k}={v}" for k, v in sorted(spec.options.items())) or "none"
    who = f": {', '.join(names)}" if names else ""
    out = [f"table: {spec.title} ({spec.game}), {spec.n_seats} seats{who}", f"options: {options}"]
    if header is not None:
        out.append(f"trust: {header.get('trust')}")
        limits = header.get("limits") or {}
        out.append("time limits: " + (", ".join(f"{k} {v:g} s" for k, v in sorted(limits.items())) or "none stated"))
        if trust is not None:
            sources = sorted(_key_sources(trust))
            ceremony = " (a per-match ceremony)" if header.get("ceremony") else ""
            out.append(f"keys: {len(trust)} verifying key(s) from {', '.join(sources) or 'nowhere'}{ceremony}")
    return out


def check_table(expected: Sequence[Expectation], spec: GameSpec, header: Optional[Mapping[str, Any]] = None,
                trust: Optional[Mapping[str, Any]] = None) -> None:
    """Refuse (:class:`TableMismatch`, every difference named) a table other than ``expected``.
    Without ``header`` (the ``seat`` message) only the game, seats and options are checked;
    with it, also the limits, trust model and key sources (``trust``: the referee's
    ``{statement: Trust}``)."""
    wrong: list[str] = []
    for e in expected:
        got: Any
        if e.key == "game":
            got = spec.game
        elif e.key == "seats":
            got = str(spec.n_seats)
        elif e.limit is not None or e.key in HEADER_ONLY:
            if header is None:
                continue  # known from the signed header only
            if e.key == "trust":
                got = trust_name(header.get("trust"))
            elif e.key == "keys":
                sources = _key_sources(trust or {})
                if sources != {e.value}:
                    wrong.append(f"keys: expected every key from {e.value}, the table's come from "
                                 f"{', '.join(sorted(sources)) or 'nowhere'}")
                continue
            else:
                limits = header.get("limits") or {}
                seconds = limits.get(e.limit)
                if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
                    wrong.append(f"{e}: the table states no {e.limit} limit (it states "
                                 f"{', '.join(sorted(limits)) or 'none'})")
                    continue
                want = float(e.value)
                ok = {"=": seconds == want, ">=": seconds >= want, "<=": seconds <= want}[e.op]
                if not ok:
                    wrong.append(f"{e}: the table's {e.limit} limit is {seconds:g} s")
                continue
        elif e.key in spec.option_values:
            got = spec.options.get(e.key)
        else:
            wrong.append(f"{e}: {spec.game} has no option {e.key} (its options: "
                         f"{', '.join(sorted(spec.option_values)) or 'none'})")
            continue
        if got != e.value:
            wrong.append(f"{e}: the table's {e.key} is {got}")
    if wrong:
        where = "signed header" if header is not None else "room"
        raise TableMismatch(f"the {where} is not the table you expect: " + "; ".join(wrong))
