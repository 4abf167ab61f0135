"""An R1CS builder over Fr: one description of a statement for both jobs.

A statement is a Python function ``synthesize(cs, inputs)``. Run on a
:class:`ConstraintSystem` without values it builds the constraint system; run with
values (``inputs`` given) the same code also computes every wire. There is never a
second description to keep in step.

Naming convention (as arkworks and gnark): ``is_*`` returns a constrained boolean,
``enforce_*`` adds constraints, ``*_unchecked`` adds none (a hint the caller must pin).
"""
from __future__ import annotations

import contextlib
import gc
import hashlib
from dataclasses import dataclass, field as dc_field
from typing import Callable, Iterator, Optional, Sequence, Union

from zkbluff.errors import MalformedInput, UnsatisfiedConstraint
from zkbluff.field import r

ONE_WIRE = 0


class LC:
    """A linear combination ``sum coeff_i * wire_i`` (wire 0 is the constant 1),
    carrying its value when the system computes values. Additions, subtractions and
    scalar multiplications are free: they add no constraint."""

    __slots__ = ("terms", "value")

    def __init__(self, terms: dict[int, int], value: Optional[int]):
        self.terms = terms
        self.value = value

    # -- construction
    @staticmethod
    def constant(c: int) -> "LC":
        c %= r
        return LC({ONE_WIRE: c} if c else {}, c)

    @staticmethod
    def of(x: "LCLike") -> "LC":
        return x if isinstance(x, LC) else LC.constant(int(x))

    def is_constant(self) -> bool:
        t = self.terms
        return not t or (len(t) == 1 and ONE_WIRE in t)

    def constant_value(self) -> int:
        return self.terms.get(ONE_WIRE, 0)

    # -- arithmetic (free)
    def _combine(self, other: "LCLike", sign: int) -> "LC":
        terms = dict(self.terms)
        if not isinstance(other, LC):  # a constant: only the ONE_WIRE term moves
            k = int(other) % r
            if k:
                v = (terms.get(ONE_WIRE, 0) + sign * k) % r
                if v:
                    terms[ONE_WIRE] = v
                else:
                    del terms[ONE_WIRE]
            return LC(terms, None if self.value is None else (self.value + sign * k) % r)
        get = terms.get
        if sign == 1:
            for w, c in other.terms.items():
                v = (get(w, 0) + c) % r
                if v:
                    terms[w] = v
                elif w in terms:
                    del terms[w]
        else:
            for w, c in other.terms.items():
                v = (get(w, 0) - c) % r
                if v:
                    terms[w] = v
                elif w in terms:
                    del terms[w]
        val = None if self.value is None or other.value is None else (self.value + sign * other.value) % r
        return LC(terms, val)

    def __add__(self, other: "LCLike") -> "LC":
        if isinstance(other, LC):
            return self._combine(other, 1)
        k = int(other) % r  # a constant (the common case: x + i), inlined
        terms = dict(self.terms)
        if k:
            v = (terms.get(ONE_WIRE, 0) + k) % r
            if v:
                terms[ONE_WIRE] = v
            else:
                del terms[ONE_WIRE]
        return LC(terms, None if self.value is None else (self.value + k) % r)

    __radd__ = __add__

    def __sub__(self, other: "LCLike") -> "LC":
        return self._combine(other, -1)

    def __rsub__(self, other: "LCLike") -> "LC":
        return LC.of(other)._combine(self, -1)

    def __neg__(self) -> "LC":
        return LC({w: (-c) % r for w, c in self.terms.items()}, None if self.value is None else (-self.value) % r)

    def __mul__(self, k: int) -> "LC":
        if isinstance(k, LC):
            raise TypeError("LC * LC is not linear: use cs.mul(a, b, name), which adds a constraint")
        k = int(k) % r
        if k == 0:
            return LC({}, None if self.value is None else 0)
        return LC({w: c * k % r for w, c in self.terms.items()}, None if self.value is None else self.value * k % r)

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"LC({self.terms}, value={self.value})"


LCLike = Union[LC, int]


@dataclass
class R1CS:
    """A rank-1 constraint system: ``<A_j, w> * <B_j, w> = <C_j, w>`` for every j.

    Wire order is circom's: 0 the constant 1, then the public inputs, then the private
    wires. Each constraint has a name (a namespace path such as ``"play/subset/bit_17"``).
    """

    n_wires: int
    n_public: int
    constraints: list[tuple[dict[int, int], dict[int, int], dict[int, int]]]
    constraint_names: list[str]
    wire_names: list[str]
    public_names: list[str] = dc_field(default_factory=list)
    #: circom header fields kept for byte-faithful round trips of files read from circom
    n_pub_out: int = 0
    n_prv_in: int = 0
    labels: Optional[list[int]] = None

    @property
    def n_constraints(self) -> int:
        return len(self.constraints)

    @property
    def n_private(self) -> int:
        return self.n_wires - 1 - self.n_public

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the constraint system's canonical bytes: counts and every
        constraint in order, coefficients as 32-byte little-endian, terms by wire.
        Names do not enter it; a change to any constraint does."""
        from zkbluff.circuit.formats import r1cs_constraint_bytes

        h = hashlib.sha256()
        h.update(b"zkbluff.r1cs.v1")
        h.update(self.n_wires.to_bytes(4, "little") + self.n_public.to_bytes(4, "little"))
        h.update(len(self.constraints).to_bytes(4, "little"))
        h.update(r1cs_constraint_bytes(self.constraints))
        return h.hexdigest()


def lc_value(terms: dict[int, int], witness: Sequence[int]) -> int:
    return sum(c * witness[w] for w, c in terms.items()) % r


def first_unsatisfied(system: R1CS, witness: Sequence[int]) -> Optional[int]:
    """Index of the first unsatisfied constraint, or None."""
    for j, (a, b, c) in enumerate(system.constraints):
        if lc_value(a, witness) * lc_value(b, witness) % r != lc_value(c, witness):
            return j
    return None


def check(system: R1CS, witness: Sequence[int]) -> None:
    """Return if ``witness`` satisfies ``system``; raise :class:`UnsatisfiedConstraint`
    naming the first failing constraint, or :class:`MalformedInput` for a witness of
    the wrong size, with values out of range, or with ``w[0] != 1``."""
    if len(witness) != system.n_wires:
        raise MalformedInput(f"invalid witness size, got {len(witness)}, expected {system.n_wires}")
    if witness[0] != 1:
        raise MalformedInput(f"witness[0] must be 1 (the constant wire), got {witness[0]}")
    for i, v in enumerate(witness):
        if not isinstance(v, int) or not 0 <= v < r:
            raise MalformedInput(f"witness[{i}]: expected 0 <= w < r, got {v!r}")
    j = first_unsatisfied(system, witness)
    if j is not None:
        name = system.constraint_names[j]
        raise UnsatisfiedConstraint(f"constraint {j} '{name}' is not satisfied", constraint=name, index=j)


Hint = Union[int, Callable[[], int], None]


class ConstraintSystem:
    """The object a statement's ``synthesize`` writes into.

    ``with_values=False`` builds the shape only (hints are never called);
    ``with_values=True`` also computes the witness, and raises
    :class:`UnsatisfiedConstraint` at the first constraint the values violate.
    """

    #: True for a system that records each wire's hint as circom code
    #: (:class:`zkbluff.circuit.circom.CircomExport`): gadgets then describe their hints
    #: with :meth:`hint`, which costs nothing elsewhere
    records_hints = False

    def __init__(self, with_values: bool = False):
        self.with_values = with_values
        self.values: list[int] = [1]
        self.wire_names: list[str] = ["one"]
        self.public_names: list[str] = []
        self.n_public = 0
        self.constraints: list[tuple[dict[int, int], dict[int, int], dict[int, int]]] = []
        self.constraint_names: list[str] = []
        self._ns: list[str] = []
        self._prefix = ""  # "/".join(self._ns) + "/" inside a namespace, kept in step by namespace()
        self._private_seen = False
        self._wire_names_used: set[str] = set()
        self._constraint_names_used: set[str] = set()

    # -- names
    @contextlib.contextmanager
    def namespace(self, name: str) -> Iterator[None]:
        """Prefix every name allocated inside with ``name/``."""
        self._ns.append(name)
        outer, self._prefix = self._prefix, self._prefix + name + "/"
        try:
            yield
        finally:
            self._ns.pop()
            self._prefix = outer

    def path(self, name: str) -> str:
        return "/".join([*self._ns, name])

    def _unique(self, name: str, used: set[str]) -> str:
        full = self._prefix + name
        if full in used:
            k = 1
            while f"{full}#{k}" in used:
                k += 1
            full = f"{full}#{k}"
        used.add(full)
        return full

    # -- allocation
    def _value(self, hint: Hint, name: str) -> Optional[int]:
        if not self.with_values:
            return None
        v = hint() if callable(hint) else hint
        if v is None:
            raise MalformedInput(f"no value for wire '{name}' while computing the witness")
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            raise MalformedInput(f"wire '{name}': expected an int, got {type(v).__name__}")
        return v % r

    def public(self, name: str, value: Hint = None) -> LC:
        """Allocate a public input. All public inputs come before any private wire."""
        if self._private_seen:
            raise RuntimeError(f"public input '{name}' allocated after a private wire: declare public inputs first")
        full = self._unique(name, self._wire_names_used)
        v = self._value(value, full)
        if self.with_values and value is not None and not callable(value):
            if isinstance(value, int) and not 0 <= value < r:
                raise MalformedInput(f"public input '{full}': expected 0 <= x < r, got {value}")
        self.n_public += 1
        self.public_names.append(full)
        return self._alloc(full, v)

    def private_unchecked(self, name: str, value: Hint = None) -> LC:
        """Allocate a private wire whose value is a hint: nothing constrains it here,
        so the calling gadget must."""
        self._private_seen = True
        full = self._unique(name, self._wire_names_used)
        return self._alloc(full, self._value(value, full))

    def _alloc(self, full: str, v: Optional[int]) -> LC:
        idx = len(self.wire_names)
        self.wire_names.append(full)
        if self.with_values:
            self.values.append(v)  # type: ignore[arg-type]
        return LC({idx: 1}, v)

    def hint(self, wire: LC, code: str, **args: object) -> None:
        """Describe how ``wire``'s hint is computed, in circom: ``code`` is an expression with
        ``{name}`` holes filled by ``args`` (linear combinations, ints, other such
        expressions). Only a system with :attr:`records_hints` keeps it; gadgets call it
        under ``if cs.records_hints``."""

    # -- constraints
    def enforce(self, a: LCLike, b: LCLike, c: LCLike, name: str) -> None:
        """Add the constraint ``a * b = c``."""
        if not isinstance(a, LC):
            a = LC.constant(int(a))
        if not isinstance(b, LC):
            b = LC.constant(int(b))
        if not isinstance(c, LC):
            c = LC.constant(int(c))
        full = self._unique(name, self._constraint_names_used)
        self.constraints.append((a.terms, b.terms, c.terms))
        self.constraint_names.append(full)
        if self.with_values and (a.value * b.value - c.value) % r:  # type: ignore[operator]
            raise UnsatisfiedConstraint(
                f"constraint {len(self.constraints) - 1} '{full}' is not satisfied", constraint=full,
                index=len(self.constraints) - 1)

    def enforce_equal(self, a: LCLike, b: LCLike, name: str) -> None:
        """Constrain ``a == b`` (1 constraint)."""
        self.enforce(LC.of(a) - b, 1, 0, name)

    def mul(self, a: LCLike, b: LCLike, name: str) -> LC:
        """A new wire constrained to ``a * b`` (1 constraint); constants fold for free."""
        if not isinstance(a, LC):
            a = LC.constant(int(a))
        if not isinstance(b, LC):
            b = LC.constant(int(b))
        at, bt = a.terms, b.terms
        if not at or (len(at) == 1 and ONE_WIRE in at):  # a.is_constant(), inlined: the hot path
            return b * at.get(ONE_WIRE, 0)
        if not bt or (len(bt) == 1 and ONE_WIRE in bt):
            return a * bt.get(ONE_WIRE, 0)
        # private_unchecked and enforce inlined: the product's wire, then a * b = out, which
        # its value satisfies by construction (out is a * b mod r)
        self._private_seen = True
        full = self._prefix + name
        used = self._wire_names_used
        if full in used:
            full = self._unique(name, used)
        else:
            used.add(full)
        wire_names = self.wire_names
        idx = len(wire_names)
        wire_names.append(full)
        if self.with_values:
            v: Optional[int] = a.value * b.value % r  # type: ignore[operator]
            self.values.append(v)  # type: ignore[arg-type]
        else:
            v = None
        out_terms = {idx: 1}
        self.constraints.append((at, bt, out_terms))
        full = self._prefix + name
        used = self._constraint_names_used
        if full in used:
            full = self._unique(name, used)
        else:
            used.add(full)
        self.constraint_names.append(full)
        return LC(out_terms, v)

    # -- results
    def system(self) -> R1CS:
        return R1CS(len(self.wire_names), self.n_public, self.constraints, self.constraint_names,
                    self.wire_names, self.public_names)

    def witness(self) -> list[int]:
        if not self.with_values:
            raise RuntimeError("this constraint system was built without values")
        return list(self.values)


class VLC(LC):
    """A linear combination known by its value only (the lean witness pass of
    :class:`WitnessSystem`): it carries the value and whether it is a constant, never
    its terms, so the free algebra costs one modular operation. Mixed with an :class:`LC`
    (a gadget's ``LC.constant``) it wins the operator dispatch as a subclass."""

    __slots__ = ("const",)

    def __init__(self, value: int, const: bool):
        self.terms = None  # type: ignore[assignment]
        self.value = value
        self.const = const

    def is_constant(self) -> bool:
        return self.const

    def constant_value(self) -> int:
        return self.value  # type: ignore[return-value]

    def __add__(self, other: "LCLike") -> "LC":
        v, c = _value_and_const(other)
        return VLC((self.value + v) % r, self.const and c)  # type: ignore[operator]

    __radd__ = __add__

    def __sub__(self, other: "LCLike") -> "LC":
        v, c = _value_and_const(other)
        return VLC((self.value - v) % r, self.const and c)  # type: ignore[operator]

    def __rsub__(self, other: "LCLike") -> "LC":
        v, c = _value_and_const(other)
        return VLC((v - self.value) % r, self.const and c)  # type: ignore[operator]

    def __neg__(self) -> "LC":
        return VLC(-self.value % r, self.const)  # type: ignore[operator]

    def __mul__(self, k: int) -> "LC":
        if isinstance(k, LC):
            raise TypeError("LC * LC is not linear: use cs.mul(a, b, name), which adds a constraint")
        k = int(k) % r
        if k == 0:
            return VLC(0, True)
        return VLC(self.value * k % r, self.const)  # type: ignore[operator]

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"VLC(value={self.value}, const={self.const})"


def _value_and_const(x: "LCLike") -> tuple[int, bool]:
    if type(x) is VLC:
        return x.value, x.const  # type: ignore[return-value]
    if isinstance(x, LC):
        return x.value, x.is_constant()  # type: ignore[return-value]
    return int(x) % r, True


class _Diverged(Exception):
    """The lean pass cannot stand for the full one (it raised; the full pass names why)."""


_NO_NAMESPACE = contextlib.nullcontext()


class WitnessSystem(ConstraintSystem):
    """The same ``synthesize`` run for the witness values only: no terms, no names, no
    constraint list (the lean path of a proof; the constraint system is built once and
    cached by the statement). Each constraint's values are still checked as it is added;
    at the first one that fails (or any other error) :func:`build_witness` re-runs the
    full builder, which raises naming the constraint.

    It allocates exactly the wires of the full pass, with the same values, unless a
    linear combination whose terms cancel to a constant is multiplied (the full pass folds
    it, this one cannot see it): then it allocates *more* wires, which
    :func:`build_witness` detects by the count and answers with the full pass."""

    def __init__(self) -> None:
        super().__init__(with_values=True)
        self.n_constraints = 0

    def namespace(self, name: str):  # type: ignore[override]
        return _NO_NAMESPACE

    def _value(self, hint: Hint, name: str) -> Optional[int]:
        v = hint() if callable(hint) else hint
        if isinstance(v, bool):
            return int(v)
        if not isinstance(v, int):
            raise _Diverged(name)
        return v % r

    def public(self, name: str, value: Hint = None) -> LC:
        if self._private_seen:
            raise _Diverged(name)
        if not callable(value) and isinstance(value, int) and not isinstance(value, bool) and not 0 <= value < r:
            raise _Diverged(name)
        v = self._value(value, name)
        self.n_public += 1
        self.values.append(v)  # type: ignore[arg-type]
        return VLC(v, False)  # type: ignore[arg-type]

    def private_unchecked(self, name: str, value: Hint = None) -> LC:
        self._private_seen = True
        v = self._value(value, name)
        self.values.append(v)  # type: ignore[arg-type]
        return VLC(v, False)  # type: ignore[arg-type]

    def enforce(self, a: LCLike, b: LCLike, c: LCLike, name: str) -> None:
        av, _ = _value_and_const(a)
        bv, _ = _value_and_const(b)
        cv, _ = _value_and_const(c)
        self.n_constraints += 1
        if (av * bv - cv) % r:
            raise _Diverged(name)

    def enforce_equal(self, a: LCLike, b: LCLike, name: str) -> None:
        self.n_constraints += 1
        if (_value_and_const(a)[0] - _value_and_const(b)[0]) % r:
            raise _Diverged(name)

    def mul(self, a: LCLike, b: LCLike, name: str) -> LC:
        av, ac = _value_and_const(a)
        bv, bc = _value_and_const(b)
        if ac:
            return b * av if isinstance(b, LC) else LC.constant(av * bv)
        if bc:
            return a * bv  # type: ignore[operator]
        v = av * bv % r
        self._private_seen = True
        self.values.append(v)
        self.n_constraints += 1
        return VLC(v, False)

    def product_wire(self, v: int) -> None:
        """What :meth:`mul` records for a product of two non-constants with value ``v``
        (one wire, one constraint): for gadgets with a values-only fast path."""
        self._private_seen = True
        self.values.append(v)
        self.n_constraints += 1

    def system(self) -> R1CS:
        raise RuntimeError("a WitnessSystem computes values only; build the system with ConstraintSystem")


Synthesize = Callable[[ConstraintSystem, Optional[dict]], object]


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a system is built: a build allocates a few
    objects a constraint and frees few, so each collection would walk every dict already
    built (and the caller's heap) for nothing; at 2^16 that was a third of the time. The
    collector is put back as it was (nested uses leave it off until the outer one ends)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def build(synthesize: Synthesize, inputs: Optional[dict] = None) -> tuple[R1CS, Optional[list[int]]]:
    """Run a statement once: the system, and the witness when ``inputs`` is given."""
    cs = ConstraintSystem(with_values=inputs is not None)
    with gc_paused():
        synthesize(cs, inputs)
    return cs.system(), (cs.witness() if inputs is not None else None)



def build_witness(synthesize: Synthesize, inputs: dict, shape: R1CS) -> list[int]:
    """The witness of ``synthesize`` for ``inputs``, equal to :func:`build`'s, by the lean
    pass (:class:`WitnessSystem`) when it gives exactly ``shape``'s wire and constraint
    counts and every constraint held; otherwise by the full pass, which raises naming the
    first unsatisfied constraint (or returns the witness the lean pass could not)."""
    ws = WitnessSystem()
    try:
        with gc_paused():
            synthesize(ws, inputs)
    except _Diverged:
        ws = None  # type: ignore[assignment]
    except (ArithmeticError, TypeError, ValueError, KeyError):
        ws = None  # type: ignore[assignment]  (the full pass raises it again, or its typed error)
    if ws is not None and len(ws.values) == shape.n_wires and ws.n_constraints == shape.n_constraints \
            and ws.n_public == shape.n_public:
        return ws.values
    system, witness = build(synthesize, inputs)
    if system.n_wires != shape.n_wires or system.n_constraints != shape.n_constraints:
        raise MalformedInput(f"the circuit built for these inputs has {system.n_constraints} constraints and "
                             f"{system.n_wires} wires, expected {shape.n_constraints} and {shape.n_wires}")
    assert witness is not None
    return witness
