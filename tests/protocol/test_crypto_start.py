"""pycryptodome's architecture probe (``platform.architecture()``, which runs ``file`` in a
subprocess) is answered by zkbluff.protocol before pycryptodome loads its first library:
no subprocess in a verifier, with an answer that means what the real probe's means."""
import importlib.util
import json
import os
import platform
import subprocess
import sys

import pytest

from zkbluff.protocol import pycryptodome_architecture

_PROBE = """
import json, platform, sys
calls = []
real = platform._syscmd_file
platform._syscmd_file = lambda *a, **k: (calls.append(a), real(*a, **k))[1]
if sys.argv[1] == "zkbluff":
    from zkbluff.protocol.signing import SigningKey, check_line_signature, sign_line
    key = SigningKey.from_secret_hex("11" * 32)
    line = sign_line(key, {"n": 2, "prev": "00" * 32, "seat": 0, "action": "play", "data": {}})
    check_line_signature(line, key.public_hex, "seat 0")
    try:
        check_line_signature({**line, "n": 3}, key.public_hex, "seat 0")
        refused = False
    except Exception:
        refused = True
    print(json.dumps({"calls": len(calls), "refused": refused}))
else:
    from Crypto.PublicKey import ECC
    ECC.generate(curve="Ed25519")
    print(json.dumps({"calls": len(calls)}))
"""


def _probe(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(os.name != "posix", reason="the probe spawns nothing off POSIX")
def test_signatures_are_checked_without_the_architecture_subprocess():
    assert _probe("zkbluff") == {"calls": 0, "refused": True}


@pytest.mark.skipif(os.name != "posix" or importlib.util.find_spec("cffi") is not None,
                    reason="pycryptodome probes only when it loads its libraries through ctypes")
def test_pycryptodome_alone_still_runs_the_probe():
    """The negative twin: without zkbluff.protocol first, pycryptodome asks ``file`` (if it
    stops doing that, the answer in zkbluff.protocol can go)."""
    assert _probe("pycryptodome") == {"calls": 1}


@pytest.mark.skipif(os.name != "posix", reason="on Windows nothing is answered ahead")
def test_the_answer_means_what_the_real_probe_means():
    bits, linkage = pycryptodome_architecture()
    real_bits, real_linkage = platform.architecture()
    assert bits == real_bits
    # the one thing pycryptodome reads from the linkage name
    assert linkage.startswith("Win") == real_linkage.startswith("Win") == False  # noqa: E712
