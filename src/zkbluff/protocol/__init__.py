"""Commit-reveal sessions, context binding and hash-chained transcripts.

Importing this package first answers pycryptodome's architecture probe (see
:func:`answer_pycryptodome_architecture_probe`): every module here that uses pycryptodome
(signatures, sealed messages, the entropy channel) is imported through it.
"""
from __future__ import annotations

import os
import struct
from typing import Optional


def pycryptodome_architecture() -> Optional[tuple[str, str]]:
    """What ``platform.architecture()`` answers for this interpreter when the ``file``
    command is not there: the pointer size in bits and no linkage name. None on Windows,
    where the probe spawns nothing and the linkage name matters (``WindowsPE``)."""
    if os.name != "posix":
        return None
    return f"{struct.calcsize('P') * 8}bit", ""


def answer_pycryptodome_architecture_probe() -> bool:
    """Fill pycryptodome's cache of ``platform.architecture()`` before it loads its first
    native library; return whether it was filled here.

    Without cffi, pycryptodome calls ``platform.architecture()`` once per process before
    loading a library, and on POSIX that runs ``file -b <python>`` in a subprocess: ~20 ms
    of wall time in every ``zkbluff transcript verify``. Of the answer it reads only whether
    the linkage starts with "Win" (to look bare library names up by ``find_library``; it
    loads its own libraries by full path), which on POSIX it never does. The answer given
    here is ``platform.architecture()``'s own for a POSIX system without ``file``
    (tests/protocol/test_crypto_start.py compares it with the real probe). A pycryptodome
    without that cache, or with cffi, is left alone."""
    answer = pycryptodome_architecture()
    if answer is None:
        return False
    try:
        from Crypto.Util import _raw_api
    except ImportError:  # pragma: no cover - pycryptodome is a dependency
        return False
    cache = getattr(_raw_api, "cached_architecture", None)
    if not isinstance(cache, list) or cache:
        return False
    cache[:] = answer
    return True


answer_pycryptodome_architecture_probe()
