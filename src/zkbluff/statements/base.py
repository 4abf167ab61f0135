"""What a statement is: a versioned name, parameters, one ``synthesize`` for the
constraint system and the witness, and a native twin that computes its public values.

Inputs are a dict of named values (as circom's ``input.json``). Public values the caller
leaves out are computed by the native twin (like circom outputs); public values the
caller gives must agree with the private ones, or building the witness fails naming the
constraint that breaks.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from zkbluff.circuit.builder import LC, R1CS, ConstraintSystem, build, build_witness
from zkbluff.errors import MalformedInput
from zkbluff.field import r
from zkbluff.gadgets.basic import alloc_boolean, from_bits


@dataclass(frozen=True)
class Statement:
    name: str
    params: tuple[tuple[str, Any], ...]
    public: tuple[str, ...]
    private: tuple[str, ...]
    synthesize: Callable[[ConstraintSystem, Optional[dict], dict], None] = field(repr=False)
    native: Callable[[dict, dict], dict] = field(repr=False)
    doc: str = ""
    #: the *committed* inputs (Groth16 with a commitment to part of the witness,
    #: :mod:`zkbluff.groth16.committed`): the last ``len(committed)`` names of ``public``.
    #: They are public wires of the constraint system (so the key is an ordinary key), but a
    #: proof discloses only the point ``D`` they sum to under their verifying-key bases.
    committed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.committed and self.public[len(self.public) - len(self.committed):] != self.committed:
            raise ValueError(f"{self.name}: committed inputs must be the last public inputs")

    @property
    def disclosed(self) -> tuple[str, ...]:
        """The public inputs a verifier is given as numbers (all but the committed ones)."""
        return self.public[: len(self.public) - len(self.committed)]

    @property
    def key_id(self) -> str:
        """``name@k=v,...``: the registry's identifier for this parameter set."""
        return self.name + ("@" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params) if self.params else "")

    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    def complete(self, inputs: dict) -> dict:
        """The inputs with every public value filled in by the native twin."""
        missing = [k for k in self.private if k not in inputs]
        if missing:
            raise MalformedInput(f"{self.key_id}: missing private input(s) {', '.join(missing)}")
        unknown = [k for k in inputs if k not in self.private and k not in self.public]
        if unknown:
            raise MalformedInput(f"{self.key_id}: unknown input(s) {', '.join(unknown)}")
        for k, v in inputs.items():
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < r:
                raise MalformedInput(f"{self.key_id}: input {k!r} must be an integer 0 <= x < r, got {v!r}")
        try:
            computed = self.native(inputs, self.param_dict)
        except KeyError as exc:  # a public input the native twin cannot compute (a rank mask, a target)
            raise MalformedInput(f"{self.key_id}: missing input {exc.args[0]!r} (public inputs: "
                                 f"{', '.join(self.public)})") from None
        full = {**computed, **inputs}
        missing = [k for k in self.public if k not in full]
        if missing:
            raise MalformedInput(f"{self.key_id}: missing input(s) {', '.join(repr(k) for k in missing)} "
                                 f"(public inputs: {', '.join(self.public)})")
        return full

    def build(self, inputs: Optional[dict] = None) -> tuple[R1CS, Optional[list[int]]]:
        """``(system, witness)``: the constraint system (built once per process and shared:
        do not change it) and, when ``inputs`` are given, the witness by the lean path
        (:meth:`witness`). :meth:`build_full` runs the whole builder instead."""
        return self.system(), (None if inputs is None else self.witness(inputs))

    def build_full(self, inputs: Optional[dict] = None) -> tuple[R1CS, Optional[list[int]]]:
        """One full run of the builder (a fresh system, with the witness when ``inputs``
        are given): the reference the lean path is tested against."""
        full = None if inputs is None else self.complete(inputs)
        return build(lambda cs, inp: self.synthesize(cs, inp, self.param_dict), full)

    def system(self) -> R1CS:
        """The constraint system, built once per statement and process and kept (callers
        must not change it). Threads asking at once wait for the one build (a server
        starting many matches would otherwise build it once per thread)."""
        cached = _SYSTEMS.get(self.key_id)
        if cached is None or cached[0] is not self:
            with _SYSTEMS_LOCK:
                cached = _SYSTEMS.get(self.key_id)
                if cached is None or cached[0] is not self:
                    cached = (self, self.build_full()[0])
                    _SYSTEMS[self.key_id] = cached
        return cached[1]

    def witness(self, inputs: dict) -> list[int]:
        """The full witness (wire 0 is 1, then the publics) for ``inputs``, equal to
        :meth:`build_full`'s; raises like it (a malformed input, an unsatisfied constraint
        named). The lean path: the values only, against the cached :meth:`system`
        (see :func:`zkbluff.circuit.builder.build_witness`)."""
        params = self.param_dict
        return build_witness(lambda cs, inp: self.synthesize(cs, inp, params), self.complete(inputs),
                             self.system())

    def public_values(self, inputs: dict) -> list[int]:
        full = self.complete(inputs)
        return [full[k] for k in self.public]


_SYSTEMS: dict[str, tuple[Statement, R1CS]] = {}
_SYSTEMS_LOCK = threading.RLock()


def _fmt(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return "-".join(map(str, v))
    return str(v)


def value(inputs: Optional[dict], name: str):
    """A lazy hint reading ``inputs[name]`` (None while building the shape)."""
    return None if inputs is None else inputs[name]


def bit_hint(inputs: Optional[dict], name: str, i: int):
    return None if inputs is None else (inputs[name] >> i) & 1


def alloc_mask(cs: ConstraintSystem, inputs: Optional[dict], name: str, n: int) -> list[LC]:
    """The n bits of private mask ``inputs[name]``, each constrained boolean (n constraints).
    The mask itself is their weighted sum (free), so it is below 2^n by construction;
    a value of ``inputs[name]`` with a bit at n or above is refused as malformed."""
    if inputs is not None and not 0 <= inputs[name] < (1 << n):
        raise MalformedInput(f"input {name!r}: a mask over {n} cards, got {inputs[name]}")
    with cs.namespace(name):
        return [alloc_boolean(cs, f"bit_{i}", bit_hint(inputs, name, i)) for i in range(n)]


def public_mask_bits(cs: ConstraintSystem, mask: LC, inputs: Optional[dict], name: str, n: int) -> list[LC]:
    """Bits of a public mask, constrained boolean and to recompose to it (n + 1 constraints)."""
    with cs.namespace(name + "_bits"):
        bits = [alloc_boolean(cs, f"bit_{i}", bit_hint(inputs, name, i)) for i in range(n)]
        cs.enforce_equal(from_bits(bits), mask, "recompose")
    return bits


def bind_context(cs: ConstraintSystem, context: LC) -> None:
    """Put the context public input into a constraint (``context^2`` on a private wire;
    1 constraint), so no public input is free in the constraint system."""
    cs.mul(context, context, "context/square")
