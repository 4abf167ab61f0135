"""LazyAttribute: a game spec's bots and text are imported when first read, then plain
class attributes; a verifier that never reads them never imports them."""
import subprocess
import sys

import pytest

from zkbluff.games.engine.spec import LazyAttribute


def test_a_lazy_attribute_imports_on_first_read_and_stays():
    class Holder:
        thing = LazyAttribute("json:JSONDecoder")

    assert isinstance(Holder.__dict__["thing"], LazyAttribute)
    import json

    assert Holder.thing is json.JSONDecoder and Holder().thing is json.JSONDecoder
    assert Holder.__dict__["thing"] is json.JSONDecoder  # set on the class: later reads are plain


def test_a_bad_target_is_refused_or_raises_when_read():
    with pytest.raises(ValueError, match="module:name"):
        LazyAttribute("json.JSONDecoder")

    class Holder:
        thing = LazyAttribute("json:NoSuchThing")
        gone = LazyAttribute("zkbluff.no_such_module:X")

    with pytest.raises(AttributeError):
        Holder.thing
    with pytest.raises(ModuleNotFoundError):
        Holder.gone


_PROBE = """
import json, sys
from zkbluff.games.registry import spec_for
spec = spec_for("proof-or-bluff", {"mode": "casual", "deal": "oblivious"})
before = "zkbluff.games.proof_or_bluff.bot" in sys.modules
bot = type(spec).house_bot
print(json.dumps([before, "zkbluff.games.proof_or_bluff.bot" in sys.modules, bot.__name__,
                  type(spec).text.__name__, spec.new_ledger({}).deal.__class__.__name__]))
"""


def test_the_proof_or_bluff_spec_imports_its_bots_when_asked():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == \
        '[false, true, "ClassicHouseBot", "ClassicText", "ObliviousPublic"]'


def test_a_dealer_table_ledger_starts_with_the_proven_deals_public_state():
    from zkbluff.games.engine.proven_deal import DealPublic
    from zkbluff.games.registry import spec_for

    spec = spec_for("proof-or-bluff", {"mode": "casual", "deal": "dealer"})
    assert spec.new_ledger({}).deal == DealPublic()
    assert type(spec).random_bot.__name__ == "ClassicRandomBot"
    five = spec_for("five-up-two-down", {"mode": "casual", "deal": "dealer"})
    assert type(five).house_bot.__name__ == "FiveUpHouseBot" and type(five).text.__name__ == "FiveUpText"
