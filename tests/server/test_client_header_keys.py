"""A seat's client reads the table's header keys with the one check the referee and the
verifier use (``header_verifying_keys``): the size guards first, then each key's public count
against its statement's. A key of another count is an untrusted key (``header.key``), not a
fingerprint that merely differs."""
import copy

import pytest

from zkbluff.errors import MalformedInput, UntrustedKey
from zkbluff.games.engine.parties import Prover
from zkbluff.games.engine.registry import spec_for
from zkbluff.server.client import SeatClient

GAME, OPTIONS = "proof-or-bluff", {"mode": "casual", "deal": "dealer"}


@pytest.fixture(scope="module")
def honest_header():
    spec = spec_for(GAME, OPTIONS)
    prover = Prover(None)
    return spec, {"n": 1, "data": {"keys": {k: prover.key(k).vk.to_json() for k in spec.statements()}}}


def client_at(tmp_path):
    return SeatClient("ws://127.0.0.1:9", tmp_path / "ann", "ann", lambda *a: None, lambda m: None)


def test_the_client_reads_the_honest_header_keys(tmp_path, honest_header):
    spec, header = honest_header
    assert client_at(tmp_path)._check_header(spec, header) is None


def test_attack_a_header_key_of_another_public_count_is_an_untrusted_key_at_the_client(tmp_path, honest_header):
    spec, header = honest_header
    forged = copy.deepcopy(header)
    key_id = spec.statements()[-1]
    vk = forged["data"]["keys"][key_id]
    vk["IC"], vk["nPublic"] = vk["IC"] + vk["IC"][:1], vk["nPublic"] + 1
    with pytest.raises(UntrustedKey, match="public inputs") as err:
        client_at(tmp_path)._check_header(spec, forged)
    assert err.value.code == "header.key" and err.value.statement == key_id


def test_a_header_missing_a_statement_key_is_malformed_at_the_client(tmp_path, honest_header):
    spec, header = honest_header
    forged = copy.deepcopy(header)
    del forged["data"]["keys"][spec.statements()[0]]
    with pytest.raises(MalformedInput) as err:
        client_at(tmp_path)._check_header(spec, forged)
    assert err.value.code == "header.malformed"
