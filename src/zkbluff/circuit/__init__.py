"""R1CS construction, satisfaction checks and circom's binary formats."""
from zkbluff.circuit.builder import (  # noqa: F401
    LC, R1CS, ConstraintSystem, build, check, first_unsatisfied,
)
