"""The in-circuit library. Each gadget has a native twin of the same name in
:mod:`zkbluff.gadgets.native`; ``is_*`` returns a constrained bit, ``enforce_*`` adds
constraints, ``*_unchecked`` adds none."""
from zkbluff.gadgets.basic import (  # noqa: F401
    alloc_boolean, bool_and, bool_not, bool_or, bool_xor, enforce_bits_le_constant, enforce_boolean,
    enforce_range, from_bits, is_equal, is_zero, less_or_equal, less_than, mux, popcount, select, to_bits,
)
from zkbluff.gadgets.poseidon import commit, poseidon  # noqa: F401
from zkbluff.gadgets.sets import (  # noqa: F401
    count_outside, difference, difference_of_subset, enforce_disjoint, enforce_subset, intersection, union,
    union_disjoint,
)
