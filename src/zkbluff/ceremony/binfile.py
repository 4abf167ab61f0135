"""The snarkjs binfile container and the contribution-parameter records that
``.ptau`` and ``.zkey`` share."""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Optional

from zkbluff.circuit.formats import BinReader, binfile_section, read_binfile
from zkbluff.errors import MalformedInput

__all__ = ["BinReader", "binfile_section", "read_binfile", "write_binfile", "ContributionParams"]


def write_binfile(magic: bytes, version: int, sections: list[tuple[int, bytes]]) -> bytes:
    return magic + struct.pack("<II", version, len(sections)) + b"".join(binfile_section(k, b) for k, b in sections)


@dataclass(frozen=True)
class ContributionParams:
    """A contribution's type (0 random, 1 beacon), optional name, and for a beacon its
    value and iteration exponent; serialised as snarkjs's sorted (id, ...) records."""

    type: int = 0
    name: Optional[str] = None
    iterations_exp: Optional[int] = None
    beacon: Optional[bytes] = None

    def to_bytes(self) -> bytes:
        out = bytearray(struct.pack("<I", self.type))
        params = bytearray()
        if self.name:
            data = self.name[:64].encode("utf-8")[:255]
            params += bytes([1, len(data)]) + data
        if self.type == 1:
            assert self.beacon is not None and self.iterations_exp is not None
            params += bytes([2, self.iterations_exp, 3, len(self.beacon)]) + self.beacon
        out += struct.pack("<I", len(params)) + params
        return bytes(out)

    @classmethod
    def read(cls, rd: BinReader, what: str) -> "ContributionParams":
        ctype = rd.u32()
        if ctype not in (0, 1):
            raise MalformedInput(f"{what}: contribution type {ctype}, expected 0 (random) or 1 (beacon)")
        body = BinReader(rd.take(rd.u32()), what + " parameters")
        name = exp = beacon = None
        last = 0
        while body.pos < len(body.data):
            kind = body.take(1)[0]
            if kind <= last:
                raise MalformedInput(f"{what}: contribution parameters are not sorted (id {kind} after {last})")
            last = kind
            if kind == 1:
                try:
                    name = body.take(body.take(1)[0]).decode("utf-8")
                except UnicodeDecodeError:
                    raise MalformedInput(f"{what}: the contributor name is not UTF-8") from None
            elif kind == 2:
                exp = body.take(1)[0]
            elif kind == 3:
                beacon = body.take(body.take(1)[0])
            else:
                raise MalformedInput(f"{what}: unknown contribution parameter id {kind}")
        if ctype == 1 and (exp is None or beacon is None):
            raise MalformedInput(f"{what}: a beacon contribution without its beacon value or iterations")
        return cls(ctype, name, exp, beacon)
