"""Shared by the tests of the drawing gadgets (tests/gadgets/test_gadget_order_guards.py,
tests/statements/test_statement_deal_v2.py): a one-gadget statement around
:func:`zkbluff.gadgets.order.mixed_radix_digits`."""
from __future__ import annotations

from zkbluff.gadgets.order import mixed_radix_digits


def digits_circuit(radices):
    """A statement: public ``h`` and the digits ``j0, j1, ...``, each equal to the gadget's
    digit of ``h`` in mixed radix ``radices`` (rows ``out_d``)."""
    def synth(cs, inp):
        h = cs.public("h", inp and inp["h"])
        outs = [cs.public(f"j{d}", inp and inp[f"j{d}"]) for d in range(len(radices))]
        for d, j in enumerate(mixed_radix_digits(cs, h, radices)):
            cs.enforce_equal(j, outs[d], f"out_{d}")
    return synth
