"""py_ecc raises the interpreter's recursion limit to 100000 on import; zkbluff puts it back,
so a hostile line nested deep enough to overflow the C stack at that limit is refused as
malformed instead of crashing the process (a verifier, a client on the reference backend)."""
import subprocess
import sys

DEEP = 200_000  # deeper than py_ecc's limit: at its limit the C decoder overflows the stack

SCRIPT = f"""
import sys
import zkbluff.curve.pyecc_backend  # the reference backend: imports py_ecc
assert sys.getrecursionlimit() < 10_000, sys.getrecursionlimit()
from zkbluff.errors import MalformedInput
from zkbluff.server.protocol import decode
from zkbluff.protocol.transcript import parse_chain
deep = "[" * {DEEP} + "]" * {DEEP}
try:
    list(parse_chain([deep]))
except MalformedInput as exc:
    print("transcript refused:", exc.code)
try:
    import json; json.loads(deep)
except RecursionError:
    print("json refused")
"""


def test_importing_the_reference_backend_leaves_the_recursion_limit_and_deep_json_is_refused():
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    assert "transcript refused: line.json" in run.stdout and "json refused" in run.stdout


def test_the_ceremony_hash_to_g2_leaves_the_recursion_limit_too():
    script = ("import sys; from zkbluff.ceremony.rng import hash_to_g2\n"
              "before = sys.getrecursionlimit(); P = hash_to_g2(bytes(range(64)))\n"
              "assert P is not None and sys.getrecursionlimit() == before < 10_000, sys.getrecursionlimit()\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
