"""What a statement is: a versioned name, parameters, one ``synthesize`` for the
constraint system and the witness, and a native twin that computes its public values.

Inputs are a dict of named values (as circom's ``input.json``). Public values the caller
leaves out are computed by the native twin (like circom outputs); public values the
caller gives must agree with the private ones, or building the witness fails naming the
constraint that breaks.

A statement declares its inputs once, as a typed :class:`Inputs` (each :class:`Input` a
name, a kind and, for a mask, its width): :meth:`Statement.declare` derives the public
and private name lists from it, the native twin's inputs are checked against it
(:meth:`Statement.complete`), and the catalog row of docs/statements.md is rendered from
it (``tools/statement_docs.py``). The public order is the circuit's: the generic
statement tests hold the declaration equal to the synthesised system's public wires.
A statement may also say which game folder owns it (``owner``) and how to draw valid
random inputs for it (``sample``), which the generic tests and the vector generator use.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from zkbluff.circuit.builder import LC, R1CS, ConstraintSystem, build, build_witness
from zkbluff.errors import MalformedInput
from zkbluff.field import r
from zkbluff.gadgets.basic import alloc_boolean, from_bits


#: the kinds of input a declaration names, and what each holds
KINDS = {
    "field": "any element of Fr",
    "commitment": "a Poseidon commitment (an element of Fr)",
    "salt": "a commitment's salt (an element of Fr)",
    "context": "the line's context (an element of Fr)",
    "mask": "a set over 0..width-1 as a bitmask (below 2^width)",
    "bit": "0 or 1",
    "number": "a small number (below 2^width)",
}


@dataclass(frozen=True)
class Input:
    """One declared input: its name, its kind (a key of :data:`KINDS`) and, for a mask or
    a number, its width in bits."""
    name: str
    kind: str = "field"
    width: Optional[int] = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"input {self.name!r}: unknown kind {self.kind!r} (one of {', '.join(KINDS)})")
        if (self.kind in ("mask", "number")) != (self.width is not None):
            raise ValueError(f"input {self.name!r}: a {self.kind} {'needs' if self.width is None else 'takes no'} "
                             "width")

    def check(self, key_id: str, v: int) -> None:
        """Refuse a value outside the kind (the field range is checked for every input)."""
        if self.kind == "bit" and v not in (0, 1):
            raise MalformedInput(f"{key_id}: input {self.name!r} is a bit, got {v}")
        if self.width is not None and not v < 1 << self.width:
            what = f"a mask over {self.width}" if self.kind == "mask" else f"a number below 2^{self.width}"
            raise MalformedInput(f"{key_id}: input {self.name!r} must be {what}, got {v}")


def commitment(name: str) -> Input:
    return Input(name, "commitment")


def salt(name: str) -> Input:
    return Input(name, "salt")


def mask(name: str, width: int) -> Input:
    return Input(name, "mask", width)


def number(name: str, width: int) -> Input:
    return Input(name, "number", width)


def bit(name: str) -> Input:
    return Input(name, "bit")


CONTEXT = Input("context", "context")


@dataclass(frozen=True)
class Inputs:
    """A statement's inputs, declared once: the public ones in the circuit's order, then
    the private ones."""
    public: tuple[Input, ...]
    private: tuple[Input, ...]

    def __post_init__(self) -> None:
        names = [i.name for i in (*self.public, *self.private)]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"inputs declared twice: {', '.join(twice)}")
        if "context" not in names or CONTEXT not in self.public:
            raise ValueError("a statement takes the public input `context` (kind context)")

    @property
    def public_names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.public)

    @property
    def private_names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.private)

    def by_name(self) -> dict[str, Input]:
        return {i.name: i for i in (*self.public, *self.private)}

    def catalog_columns(self) -> tuple[str, str]:
        """The public and private columns of the statement's row in docs/statements.md: the
        names in order, a run of more than eight numbered names (``card0`` .. ``card51``)
        written as its ends."""
        return _names_column(self.public_names), _names_column(self.private_names)

    @staticmethod
    def untyped(public: tuple[str, ...], private: tuple[str, ...]) -> "Inputs":
        """The declaration of a statement made from name lists only (every input a field element)."""
        return Inputs(tuple(CONTEXT if n == "context" else Input(n) for n in public),
                      tuple(Input(n) for n in private))


def _names_column(names: tuple[str, ...], longest: int = 8) -> str:
    out: list[str] = []
    i = 0
    while i < len(names):
        m = re.fullmatch(r"(.*?)([0-9]+)", names[i])
        j = i + 1
        if m:
            stem, first = m.group(1), int(m.group(2))
            while j < len(names) and names[j] == f"{stem}{first + j - i}":
                j += 1
        if m and j - i > longest:
            out.append(f"{names[i]}..{names[j - 1]}")
        else:
            out.extend(names[i:j])
        i = j
    return ", ".join(out)


@dataclass(frozen=True)
class Statement:
    name: str
    params: tuple[tuple[str, Any], ...]
    public: tuple[str, ...]
    private: tuple[str, ...]
    synthesize: Callable[[ConstraintSystem, Optional[dict], dict], None] = field(repr=False)
    native: Callable[[dict, dict], dict] = field(repr=False)
    doc: str = ""
    #: the typed declaration (:meth:`declare`); None for a statement made from name lists
    declared: Optional[Inputs] = field(default=None, repr=False, compare=False)
    #: the game folder that holds the statement (``"cheat"``), None for the shared catalog
    owner: Optional[str] = None
    #: valid random inputs for the tests and the vector generator: ``sample(rng) -> inputs``
    sample: Optional[Callable[[Any], dict]] = field(default=None, repr=False, compare=False)
    #: what one proof discloses, in words, for the review: ``said(public values by name, who)``
    #: (a game folder's own statements say it themselves; the shared ones are worded in the review)
    said: Optional[Callable[[Mapping[str, int], str], str]] = field(default=None, repr=False, compare=False)

    @classmethod
    def declare(cls, name: str, params: tuple[tuple[str, Any], ...], inputs: Inputs,
                synthesize: Callable[[ConstraintSystem, Optional[dict], dict], None],
                native: Callable[[dict, dict], dict], doc: str = "", owner: Optional[str] = None,
                sample: Optional[Callable[[Any], dict]] = None,
                said: Optional[Callable[[Mapping[str, int], str], str]] = None) -> "Statement":
        """A statement whose public and private name lists come from its declaration."""
        return cls(name, params, inputs.public_names, inputs.private_names, synthesize, native, doc,
                   declared=inputs, owner=owner, sample=sample, said=said)

    @property
    def inputs(self) -> Inputs:
        """The declaration (an untyped one from the name lists when none was declared)."""
        return self.declared if self.declared is not None else Inputs.untyped(self.public, self.private)

    def catalog_row(self, constraints: int) -> str:
        """Its row of the table in docs/statements.md (``tools/statement_docs.py`` writes them)."""
        public, private = self.inputs.catalog_columns()
        return f"| `{self.key_id}` | {constraints} | {public} | {private} |"
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
        inputs = {k: input_value(v, f"{self.key_id}: input {k!r}") for k, v in inputs.items()}
        if self.declared is not None:
            kinds = self.declared.by_name()
            for k, v in inputs.items():
                kinds[k].check(self.key_id, v)
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


def input_value(v: Any, what: str = "input") -> int:
    """One input value: an integer ``0 <= x < r``, or such a number as a string in decimal
    or ``0x`` hex (as the CLI's input files and snarkjs' ``input.json`` write them);
    :class:`MalformedInput` for anything else (a bool, a float, an out-of-range number)."""
    if isinstance(v, str):
        t = v.strip()
        try:
            v = int(t, 16) if t.lower().startswith("0x") else int(t, 10)
        except ValueError:
            raise MalformedInput(f"{what} must be an integer 0 <= x < r (or its decimal or 0x-hex string), "
                                 f"got {t[:40]!r}") from None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < r:
        raise MalformedInput(f"{what} must be an integer 0 <= x < r, got {v!r:.80}")
    return v


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
        bits = [alloc_boolean(cs, f"bit_{i}", bit_hint(inputs, name, i)) for i in range(n)]
    if cs.records_hints:  # the mask is a circom input (not a wire): below 2^n, then its bits
        from zkbluff.circuit.circom import Input

        cs.hint_assert("({m} >> {n}) == 0", m=Input(name), n=n)  # type: ignore[attr-defined]
        for i, b in enumerate(bits):
            cs.hint(b, "({m} >> {i}) & 1", m=Input(name), i=i)
    return bits


def public_mask_bits(cs: ConstraintSystem, mask: LC, inputs: Optional[dict], name: str, n: int) -> list[LC]:
    """Bits of a public mask, constrained boolean and to recompose to it (n + 1 constraints)."""
    with cs.namespace(name + "_bits"):
        bits = [alloc_boolean(cs, f"bit_{i}", bit_hint(inputs, name, i)) for i in range(n)]
        if cs.records_hints:
            for i, b in enumerate(bits):
                cs.hint(b, "({m} >> {i}) & 1", m=mask, i=i)
        cs.enforce_equal(from_bits(bits), mask, "recompose")
    return bits


def bind_context(cs: ConstraintSystem, context: LC) -> None:
    """Put the context public input into a constraint (``context^2`` on a private wire;
    1 constraint), so no public input is free in the constraint system."""
    cs.mul(context, context, "context/square")
