"""Setup ceremonies in snarkjs's formats, the project's pinned keys, per-match keys and
the default trust rule.

* :mod:`~zkbluff.ceremony.ptau` - Powers of Tau (phase 1): new, contribute, beacon,
  verify, prepare phase 2 (``.ptau``);
* :mod:`~zkbluff.ceremony.phase2` - the circuit-specific phase 2: new, contribute,
  beacon, verify (``.zkey``), and the compact form the repository keeps;
* :mod:`~zkbluff.ceremony.project` - one ceremony for every registered statement,
  pinned in ``circuits/manifest.json``;
* :mod:`~zkbluff.ceremony.match` - a ceremony at the table in which every seat
  contributes (and signs);
* :mod:`~zkbluff.ceremony.trust` - ``check_key``: which verifying keys a verifier accepts.

See ``docs/who-can-forge-a-proof.md``.
"""
from zkbluff.ceremony.trust import Trust, TrustContext, check_key

__all__ = ["Trust", "TrustContext", "check_key"]
