"""circom 2 source for a statement: the same constraints, the same witness.

:class:`CircomExport` runs a statement's ``synthesize`` (the one description of the
statement) and records, in the builder's order, every wire it allocates with the circom
code of its hint, and every constraint. :func:`circom_source` writes them as one circom
template: a signal per wire (named after the wire), ``<--`` for each hint (the gadgets
describe their hints with :meth:`ConstraintSystem.hint`; a product wire is
``a * b``), and ``A * B === C`` for each constraint, in zkbluff's constraint order,
with its name as a comment. A gadget may write itself as one block instead
(:meth:`CircomExport.begin_block`: Poseidon is its rounds as a loop over its constants),
and a linear combination longer than :data:`LONG` terms is a ``var`` built a chunk a line
(circom's compiler recurses on an expression's depth). Compiled with ``--O0`` (no
simplification), circom keeps every constraint and every signal. A private wire no gadget
described is a named input when its name's last part is one (``salt0``), else
:func:`export` refuses it. One template, not a template per gadget: a sub-component's
inputs would be signals of their own, tied by copy constraints zkbluff does not have.

What is identical, and what is mapped (``docs/interop.md``):

- **Constraints**: circom writes constraint j of zkbluff's system as constraint j, with
  its terms sorted by wire and a linear row ``A * B = C`` (A or B a constant) as
  ``0 * 0 = C - A*B``. :func:`normal_form` writes zkbluff's system the same way; the
  relation (and so the witness, the QAP's solutions and a proof) is unchanged.
- **Wires**: circom numbers the public inputs first (1..n, as zkbluff), then the private
  inputs, then the other signals in declaration order. zkbluff allocates its private
  wires in build order (a private input may come after a computed wire, and a mask input
  is its bits, not a wire), so :attr:`CircomCircuit.wire_map` gives each zkbluff wire's
  circom wire; the circom wires no constraint names (a mask input itself) are not
  zkbluff wires. The public wires are never moved, so the verification key is the same;
  a circom witness read through the map is zkbluff's witness, which the pinned
  ``.zkey`` proves.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from zkbluff.circuit.builder import LC, ONE_WIRE, R1CS, ConstraintSystem, LCLike
from zkbluff.errors import MalformedInput
from zkbluff.field import r


class Input:
    """A named input of the statement that is not itself a wire (a mask: its bits are)."""

    def __init__(self, name: str):
        self.name = name


class Code:
    """A circom expression: ``template`` with ``{name}`` holes filled by ``args``."""

    def __init__(self, template: str, args: dict):
        self.template = template
        self.args = args


class Var:
    """A circom ``var`` the export declared (a value several hints share)."""

    def __init__(self, name: str):
        self.name = name


BlockWriter = Callable[..., tuple[dict[str, str], list[str]]]

#: circom helpers the hints call (emitted once, at the top of every export)
HELPERS = """\
// the index (in id order) of the j-th set bit of mask among its n low bits; n if none
function zkbluff_pick(mask, j, n) {
    var seen = 0;
    var found = n;
    for (var c = 0; c < n; c++) {
        if (((mask >> c) & 1) == 1) {
            if (seen == j && found == n) {
                found = c;
            }
            seen++;
        }
    }
    return found;
}
"""

#: a linear combination longer than this is written as a var, this many terms a line
LONG = 64

_KEYWORDS = {"signal", "input", "output", "var", "component", "template", "function", "for", "while", "if",
             "else", "return", "main", "public", "log", "assert", "include", "pragma", "circom", "parallel",
             "custom", "bus", "do"}


class CircomExport(ConstraintSystem):
    """A shape-only system that also records the circom code of every wire's hint."""

    records_hints = True

    def __init__(self, private_inputs: Sequence[str]):
        super().__init__(with_values=False)
        self.private_inputs = list(private_inputs)
        self.events: list[tuple[str, Any]] = []  # ("wire", index) | ("constraint", index) | ("var", (name, code))
        self.hints: dict[int, Code] = {}
        self.products: dict[int, int] = {}  # constraint -> the product wire it defines (``w <== a * b``)
        self._vars: set[str] = set()

    def _alloc(self, full: str, v: Optional[int]) -> LC:
        out = super()._alloc(full, v)
        self.events.append(("wire", len(self.wire_names) - 1))
        return out

    def enforce(self, a: LCLike, b: LCLike, c: LCLike, name: str) -> None:
        super().enforce(a, b, c, name)
        self.events.append(("constraint", len(self.constraints) - 1))

    def mul(self, a: LCLike, b: LCLike, name: str) -> LC:
        a, b = LC.of(a), LC.of(b)
        n_wires, n_constraints = len(self.wire_names), len(self.constraints)
        out = super().mul(a, b, name)
        # the builder's mul inlines _alloc and enforce (its hot path): record what it added here
        for w in range(n_wires, len(self.wire_names)):
            if not self.events or self.events[-1] != ("wire", w):
                self.events.append(("wire", w))
        for j in range(n_constraints, len(self.constraints)):
            if not self.events or self.events[-1] != ("constraint", j):
                self.events.append(("constraint", j))
        if not (a.is_constant() or b.is_constant()):
            w = _wire_of(out)
            self.hints[w] = Code("{a} * {b}", {"a": a, "b": b})
            self.products[len(self.constraints) - 1] = w
        return out

    def hint(self, wire: LC, code: str, **args: object) -> None:
        self.hints[_wire_of(wire)] = Code(code, dict(args))

    def hint_assert(self, code: str, **args: object) -> None:
        """A circom ``assert`` the witness must pass (an input the builder refuses)."""
        self.events.append(("assert", Code(code, dict(args))))

    def begin_block(self, writer: BlockWriter, **info: Any) -> None:
        """The events up to :meth:`end_block` are one gadget, which ``writer`` writes as a
        circom block instead of wire by wire: ``writer(base, info, wires, rows, render)``
        returns the circom functions it needs (name -> text) and the block's lines, given the
        signal array ``base`` its wires are (``base[k][m]``, row-major in build order), the
        constraints they are in, and ``render`` (a linear combination -> circom)."""
        self.events.append(("begin", (writer, info)))

    def end_block(self) -> None:
        self.events.append(("end", None))

    def code(self, template: str, **args: object) -> Code:
        """A circom expression to pass as a hint's argument."""
        return Code(template, dict(args))

    def hint_var(self, name: str, code: str, **args: object) -> Var:
        """A circom ``var`` holding ``code``'s value, declared here (a hint shared by wires)."""
        base = _identifier(self.path(name))
        full, k = base, 1
        while full in self._vars:
            full, k = f"{base}_{k}", k + 1
        self._vars.add(full)
        self.events.append(("var", (full, Code(code, dict(args)))))
        return Var(full)


def _wire_of(x: LC) -> int:
    if len(x.terms) != 1 or next(iter(x.terms.values())) != 1:
        raise ValueError("a hint describes one wire")
    return next(iter(x.terms))


def _identifier(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not s or s[0].isdigit() or s in _KEYWORDS:
        s = "w_" + s
    return s


@dataclass
class CircomCircuit:
    """An exported statement: the circom source, its template name, each zkbluff wire's
    circom wire, and the circom inputs in order (the public ones first)."""

    source: str
    template: str
    wire_map: list[int]
    public_inputs: list[str]
    private_inputs: list[str]
    n_circom_wires: int


def _coeff(c: int) -> tuple[str, int]:
    """(sign, magnitude) of a field element, the magnitude below r/2."""
    return ("-", r - c) if c > r // 2 else ("+", c)


def export(synthesize, public_inputs: Sequence[str], private_inputs: Sequence[str], template: str,
           comment: str = "") -> CircomCircuit:
    """The circom circuit of ``synthesize(cs, None)`` (a statement's synthesize, parameters
    bound): see the module docstring. Raises :class:`MalformedInput` for a wire whose hint
    no gadget described (the export would not compute it)."""
    cs = CircomExport(private_inputs)
    synthesize(cs, None)
    if cs.public_names != [*public_inputs]:
        raise MalformedInput(f"the statement's public inputs {list(public_inputs)} are not its public wires "
                             f"{cs.public_names}")
    names: dict[int, str] = {}
    used: set[str] = set()

    def unique(base: str) -> str:
        full, k = base, 1
        while full in used or full in cs._vars:
            full, k = f"{base}_{k}", k + 1
        used.add(full)
        return full

    for i, n in enumerate(public_inputs, start=1):
        if _identifier(n) != n:
            raise MalformedInput(f"public input {n!r} is not a circom identifier")
        names[i] = unique(n)
    # the private wires that are named inputs (no hint, the input's name as the last part)
    claimed: dict[str, int] = {}
    for i in range(1 + cs.n_public, len(cs.wire_names)):
        if i in cs.hints:
            continue
        leaf = cs.wire_names[i].rsplit("/", 1)[-1]
        if leaf in private_inputs and leaf not in claimed:
            claimed[leaf] = i
        else:
            raise MalformedInput(f"wire {i} '{cs.wire_names[i]}': no gadget described its hint in circom")
    input_signal: dict[str, str] = {}
    for n in private_inputs:
        if _identifier(n) != n:
            raise MalformedInput(f"private input {n!r} is not a circom identifier")
        input_signal[n] = unique(n)
        if n in claimed:
            names[claimed[n]] = input_signal[n]
    # gadgets written as blocks: their wires are a signal array, their events one block
    events: list[tuple[str, Any]] = []
    k = 0
    while k < len(cs.events):
        kind, x = cs.events[k]
        if kind != "begin":
            events.append((kind, x))
            k += 1
            continue
        end = next(e for e in range(k, len(cs.events)) if cs.events[e][0] == "end")
        inner = cs.events[k + 1:end]
        wires = [w for kd, w in inner if kd == "wire"]
        if wires:
            base = unique(_identifier(x[1]["name"]))
            width = x[1]["row"]
            for q, w in enumerate(wires):
                names[w] = f"{base}[{q // width}][{q % width}]"
            events.append(("block", (x[0], base, x[1], wires, [j for kd, j in inner if kd == "constraint"])))
        k = end + 1
    for i in range(1 + cs.n_public, len(cs.wire_names)):
        if i not in names:
            names[i] = unique(_identifier(cs.wire_names[i]))

    body: list[str] = []
    n_long = [0]

    def lc(terms: dict[int, int]) -> str:
        if not terms:
            return "0"
        if len(terms) > LONG:  # circom's compiler recurses on an expression's depth: a var, a chunk a line
            ws = sorted(terms)
            name = f"zk_lc_{n_long[0]}"
            n_long[0] += 1
            for k in range(0, len(ws), LONG):
                chunk = lc({w: terms[w] for w in ws[k:k + LONG]})
                body.append(f"    var {name} = {chunk};" if k == 0 else f"    {name} += {chunk};")
            return name
        parts = []
        for w in sorted(terms):
            sign, mag = _coeff(terms[w])
            if w == ONE_WIRE:
                term = str(mag)
            else:
                term = names[w] if mag == 1 else f"{mag} * {names[w]}"
            parts.append((sign, term))
        first_sign, first = parts[0]
        out = ("-" if first_sign == "-" else "") + first
        for sign, term in parts[1:]:
            out += f" {sign} {term}"
        return out

    def factor(terms: dict[int, int]) -> str:
        # circom moves a bare signal factor to B; written ``1 * s`` it stays where it is
        if len(terms) == 1 and next(iter(terms.values())) == 1 and ONE_WIRE not in terms:
            return f"(1 * {names[next(iter(terms))]})"
        return f"({lc(terms)})"

    products = set(cs.products.values())

    def render(x: object) -> str:
        if isinstance(x, LC):
            return f"({lc(x.terms)})"
        if isinstance(x, bool):
            return str(int(x))
        if isinstance(x, int):
            return str(x % r)
        if isinstance(x, Input):
            return input_signal[x.name]
        if isinstance(x, Var):
            return x.name
        if isinstance(x, Code):
            return "(" + x.template.format(**{k: render(v) for k, v in x.args.items()}) + ")"
        raise TypeError(f"cannot write {type(x).__name__} in circom")

    # circom numbers the private inputs before every other signal: zkbluff wire -> circom wire
    circom_index: dict[str, int] = {}
    order = [*public_inputs, *private_inputs]
    for k, n in enumerate(order, start=1):
        circom_index[input_signal.get(n, n)] = k
    nxt = len(order) + 1
    wire_map = [0] * len(cs.wire_names)
    for i in range(1, len(cs.wire_names)):
        nm = names[i]
        if nm not in circom_index:
            circom_index[nm] = nxt
            nxt += 1
        wire_map[i] = circom_index[nm]

    ns_prev = ""
    functions: dict[str, str] = {}
    for kind, x in events:
        if kind == "block":
            writer, base, info, wires, rows = x
            fns, lines_ = writer(base, info, wires, rows, render)
            functions.update(fns)
            body.extend(lines_)
        elif kind == "wire":
            i = x
            if i <= cs.n_public or names[i] in input_signal.values():
                continue
            ns = cs.wire_names[i].rsplit("/", 1)[0] if "/" in cs.wire_names[i] else ""
            if ns != ns_prev and ns:
                body.append(f"    // {ns}")
            ns_prev = ns
            if i not in products:  # (a product is declared with its constraint)
                body.append(f"    signal {names[i]};")
                body.append(f"    {names[i]} <-- {render(cs.hints[i])};")
        elif kind == "assert":
            body.append(f"    assert({render(x)});")
        elif kind == "var":
            vname, code = x
            body.append(f"    var {vname} = {render(code)};")
        else:
            j = x
            a, b, c = cs.constraints[j]
            if j in cs.products:  # w = a * b: a long factor is a var, written once
                w = names[cs.products[j]]
                fa, fb = factor(a), factor(b)
                if len(a) > 2:
                    body.append(f"    var {w}_a = {fa};")
                    fb = f"{w}_a" if b == a else fb
                    fa = f"{w}_a"
                if len(b) > 2 and b != a:
                    body.append(f"    var {w}_b = {fb};")
                    fb = f"{w}_b"
                body.append(f"    signal {w};")
                body.append(f"    {w} <-- {fa} * {fb};")
                body.append(f"    {fa} * {fb} === {w};  // {cs.constraint_names[j]}")
            else:
                body.append(f"    {factor(a)} * {factor(b)} === {lc(c)};  // {cs.constraint_names[j]}")

    decl = [f"    signal input {n};" for n in public_inputs]
    decl += [f"    signal input {input_signal[n]};" for n in private_inputs]
    lines = ["pragma circom 2.0.0;", ""]
    if comment:
        lines += [f"// {ln}" if ln else "//" for ln in comment.splitlines()] + [""]
    lines += [HELPERS, *functions.values(), f"template {template}() {{", "    // public inputs (wires 1..n, as zkbluff's)", *decl[:len(public_inputs)],
              "    // private inputs", *decl[len(public_inputs):], *body, "}", "",
              f"component main {{public [{', '.join(public_inputs)}]}} = {template}();", ""]
    return CircomCircuit("\n".join(lines), template, wire_map, list(public_inputs), list(private_inputs),
                         nxt)


def _sorted(terms: dict[int, int]) -> dict[int, int]:
    return {w: terms[w] for w in sorted(terms) if terms[w] % r}


def normal_form(system: R1CS) -> R1CS:
    """``system`` as circom writes it: terms sorted by wire, and each linear row (A or B a
    constant) as ``0 * 0 = C - A*B``. Same wires, same relation, same names."""
    out: list[tuple[dict[int, int], dict[int, int], dict[int, int]]] = []
    for a, b, c in system.constraints:
        a_const = all(w == ONE_WIRE for w in a)
        b_const = all(w == ONE_WIRE for w in b)
        if a_const or b_const:
            k, lin = (a.get(ONE_WIRE, 0), b) if a_const else (b.get(ONE_WIRE, 0), a)
            terms = dict(c)
            for w, v in lin.items():
                terms[w] = (terms.get(w, 0) - k * v) % r
            out.append(({}, {}, _sorted(terms)))
        else:
            out.append((_sorted(a), _sorted(b), _sorted(c)))
    return R1CS(system.n_wires, system.n_public, out, list(system.constraint_names), list(system.wire_names),
                list(system.public_names))


def from_circom(system: R1CS, wire_map: Sequence[int]) -> R1CS:
    """circom's compiled ``system`` with its wires renumbered as zkbluff's (``wire_map``
    from :func:`export`), in normal form; raises :class:`MalformedInput` if a constraint
    names a circom wire that is no zkbluff wire."""
    back = {cw: i for i, cw in enumerate(wire_map)}
    if any(wire_map[i] != i for i in range(1, system.n_public + 1)):
        raise MalformedInput("circom's public wires are not zkbluff's")

    def remap(terms: dict[int, int], j: int) -> dict[int, int]:
        out = {}
        for w, v in terms.items():
            if w not in back:
                raise MalformedInput(f"circom constraint {j} names wire {w}, which is no zkbluff wire")
            out[back[w]] = v
        return out

    cons = [(remap(a, j), remap(b, j), remap(c, j)) for j, (a, b, c) in enumerate(system.constraints)]
    mapped = R1CS(len(wire_map), system.n_public, cons, list(system.constraint_names),
                  ["one"] + [f"wire_{i}" for i in range(1, len(wire_map))])
    return normal_form(mapped)


def witness_from_circom(witness: Sequence[int], wire_map: Sequence[int]) -> list[int]:
    """circom's witness (its wire order) read as zkbluff's."""
    return [witness[cw] for cw in wire_map]
