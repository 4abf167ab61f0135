"""The proven deal deals whatever its deal statement draws (``games/engine/deal_statement.py``):
cards (``card.deal.v2``, with or without a board) and dice (``dice.deal.v1``, a real statement
with its native twin), through the same :class:`ProvenDeal`, which reads every seat's share
and entropy commitment by position from the statement's typed declaration. Its private state
is typed (``games/engine/deal_state.py``) and saved in the JSON form it always had."""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field as dataclass_field
from types import SimpleNamespace
from typing import Any, ClassVar, Mapping, Optional

import pytest

from zkbluff.circuit import check
from zkbluff.errors import CommitmentMismatch, IllegalMove, MalformedInput, TranscriptError, UnsatisfiedConstraint
from zkbluff.field import r
from zkbluff.games.engine.deal_state import DealerState, OpenedSeat, SeatSecrets
from zkbluff.games.engine.deal_statement import CardDeal, DealLayout, DealStatement, DiceDeal, Drawn
from zkbluff.games.engine.proven_deal import (
    COMPLAINT_LINE, DEALER_LINE, OPEN_LINE, SEAT_LINE, DealPublic, DealShape, ProvenDeal,
)
from zkbluff.games.engine.rules import NO_SEAT, Action, Result, Rules
from zkbluff.games.engine.spec import GameSpec, Move, ProofDemand, Role
from zkbluff.games.engine.table import open_match
from zkbluff.games.engine.verifier import verify_transcript
from zkbluff.groth16 import setup_insecure_seeded_for_tests
from zkbluff.protocol.entropy import EntropySecret, seal_hand
from zkbluff.statements.deal import deal_native, deal_v2_statement
from zkbluff.statements.dice import dice_deal_statement, dice_native, pack, unpack

from statement_checks import (
    check_declaration, check_native_twin_agrees, check_no_public_input_free, check_private_wires_pinned,
    check_proves_and_publics_bound,
)

DICE = DiceDeal.even(dice=3, faces=6, seats=2)
HEADER = {"matchId": "m-dice", "limits": {"entropy": 30.0}}


# ------------------------------------------------------------------ the interface
def test_card_deal_and_dealshape_are_one_deal_statement_of_cards():
    shape = DealShape(20, (5, 5), board=1)
    assert shape is not None and isinstance(shape, DealStatement) and DealShape is CardDeal
    assert shape.drawn == "cards" and shape.shares == 2 and shape.sealed
    assert shape.key_id(3) == deal_v2_statement(20, (5, 5), 1, entropies=3).key_id
    assert DICE.drawn == "dice" and DICE.shares == 2 and DICE.key_id(2) == "dice.deal.v1@faces=6,cups=3-3,entropies=2"


@pytest.mark.parametrize("deal", [CardDeal(52, (7, 7)), CardDeal(52, (2, 2), board=5), CardDeal(3, (1,), 1, False),
                                  DICE, DiceDeal(6, (5, 4, 3, 2)), DiceDeal(2, (16,))])
def test_the_declaration_is_the_statements_and_the_layout_is_read_from_it_by_position(deal):
    for e in (1, 3):
        stmt = deal.statement(e)
        assert deal.declaration(e) == stmt.inputs and stmt.inputs.public_names == stmt.public
        layout = deal.layout(e)
        names = stmt.public
        assert [names[p] for p in layout.entropies] == [f"entropy{i}_commitment" for i in range(e)]
        assert [stmt.inputs.public[p].kind for p in layout.shares] == ["commitment"] * deal.shares
        assert names[layout.round] == "round" and (layout.public is None) == (deal.drawn == "dice")
        values = {n: 1000 + i for i, n in enumerate(names)}
        got = layout.read(values)
        assert got.entropies == tuple(values[names[p]] for p in layout.entropies)
        assert got.shares == tuple(values[names[p]] for p in layout.shares) and got.round == values["round"]
        with pytest.raises(MalformedInput, match="publics"):  # the negative twin: another statement's publics
            layout.read({**values, "extra": 1})


def test_the_pinned_publics_keep_the_order_the_table_always_compared_them_in():
    pinned = CardDeal(52, (18, 17, 17)).layout(4).pin([10, 11, 12, 13], 2, 0)
    assert list(pinned.items()) == [("entropy0_commitment", 10), ("round", 2), ("board", 0),
                                    ("entropy1_commitment", 11), ("entropy2_commitment", 12),
                                    ("entropy3_commitment", 13)]
    assert "board" not in DICE.layout(2).pin([1, 2], 3)  # a statement without a public draw pins none
    with pytest.raises(ValueError, match="3 entropy commitments for 2"):
        DICE.layout(2).pin([1, 2, 3], 3)


def test_a_layout_that_is_not_the_deal_shape_is_refused():
    stmt = deal_v2_statement(52, (5, 5), entropies=2)
    with pytest.raises(ValueError, match="not 3 entropy"):  # the declaration has two contributors
        DealLayout.canonical(stmt.inputs, 3, 2, True)
    with pytest.raises(ValueError, match="not 2 entropy"):  # no public draw in the card deal's place
        DealLayout.canonical(dice_deal_statement(6, (3, 3), 2).inputs, 2, 2, True)


def test_the_card_twin_through_the_interface_is_deal_native():
    shape = CardDeal(52, (2, 2), board=5)
    assert shape.draw([5, 6], 3) == Drawn(tuple(deal_native([5, 6], 3, (2, 2), 5, 52)[0]), deal_native([5, 6], 3, (2, 2), 5, 52)[1])


# ------------------------------------------------------------------ the dice statement
@pytest.fixture(scope="module")
def dice_statement():
    return DICE.statement(2)


def test_dice_statement_passes_the_generic_statement_checks(dice_statement):
    check_declaration(dice_statement)
    check_private_wires_pinned(dice_statement, "dice")
    check_no_public_input_free(dice_statement)
    check_native_twin_agrees(dice_statement, 7)


def test_dice_proof_verifies_and_every_public_is_bound(dice_statement, mcl):
    pk = setup_insecure_seeded_for_tests(dice_statement.system(), "dice.deal.v1", backend=mcl)
    check_proves_and_publics_bound(dice_statement, pk, mcl, "dice-prove")


def _dice_inputs(rng: random.Random) -> dict[str, int]:
    ents = [(rng.randrange(r), rng.randrange(r)) for _ in range(2)]
    return {**DICE.inputs(ents, [rng.randrange(r), rng.randrange(r)], 4), "context": 9}


def test_dice_are_the_seeds_roll_and_a_chosen_cup_does_not_prove(dice_statement):
    inputs = _dice_inputs(random.Random(1))
    full = dice_statement.complete(inputs)
    cups = dice_native([inputs["entropy0"], inputs["entropy1"]], 4, (3, 3), 6)
    assert all(0 <= d < 6 for c in cups for d in unpack(c, 3, 6)) and pack(unpack(cups[0], 3, 6), 6) == cups[0]
    system, witness = dice_statement.build(inputs)
    check(system, witness)
    # the house's attack: claim a cup it chose (a commitment to other dice) for seat 0
    chosen = (cups[0] + 1) % 6 ** 3
    from zkbluff.gadgets import native as nat
    with pytest.raises(UnsatisfiedConstraint, match="share0/opens"):
        dice_statement.build({**inputs, "share0_commitment": nat.commit(chosen, inputs["share0_salt"])})
    # ... or another round's roll
    with pytest.raises(UnsatisfiedConstraint, match="share1/opens"):
        dice_statement.build({**inputs, "share1_commitment": full["share1_commitment"] + 1})
    assert dice_native([inputs["entropy0"], inputs["entropy1"]], 5, (3, 3), 6) != cups


def test_cups_of_different_sizes_roll_each_its_own_dice():
    ents = [11, 12, 13]
    small, big = dice_native(ents, 2, (2, 5), 6)
    (whole,) = dice_native(ents, 2, (7,), 6)  # one stream of dice, cut into the cups in cup order
    assert small < 6 ** 2 and big < 6 ** 5 and unpack(whole, 7, 6) == unpack(small, 2, 6) + unpack(big, 5, 6)
    from zkbluff.statements.dice import chunks
    assert chunks(96, 6) == [61, 35] and chunks(7, 6) == [7]  # 96 six-faced dice: two Poseidon outputs
    many = DiceDeal(6, (16,) * 6)
    stmt = many.statement(3)
    inputs = {**many.inputs([(e, e + 1) for e in ents], list(range(6)), 2), "context": 1}
    check(*stmt.build(inputs))  # the circuit rolls what the twin rolls (its commitments are the twin's) over two chunks
    assert many.draw(ents, 2).shares == tuple(dice_native(ents, 2, (16,) * 6, 6))
    stmt = DiceDeal(6, (2, 5)).statement(3)
    inputs = DiceDeal(6, (2, 5)).inputs([(e, e + 1) for e in ents], [7, 8], 2)
    check(*stmt.build({**inputs, "context": 1}))


def test_dice_statement_parameters_are_checked():
    for bad in ((6, (0, 3), 2), (1, (3, 3), 2), (6, (3,) * 7, 2), (6, (3, 3), 0), (6, (17,), 2), (6, (), 2)):
        with pytest.raises(ValueError):
            dice_deal_statement(*bad)


# ------------------------------------------------------------------ a whole proven dice deal
def _event(n: int, at: float, data: dict[str, Any], seat: Any = None) -> dict[str, Any]:
    return {"n": n, "at": at, "data": data, "seat": seat}


def _entropy_phase(deal: ProvenDeal, seats: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The entropy phase on the deal's own checks (no table): returns ``(view, dealer state)``."""
    view = SimpleNamespace(ledger=SimpleNamespace(deal=deal.new_public()), header=HEADER)
    dealer = deal.dealer_start(HEADER["matchId"], [], [])
    kind, data = deal.dealer_line(dealer, view.ledger, HEADER, 10.0)
    deal.check_line(view, kind, None, _event(2, 10.0, data))
    n = 3
    for phase in (SEAT_LINE, OPEN_LINE):
        for s, secrets in enumerate(seats):
            kind, data = deal.seat_line(secrets, s, view.ledger, HEADER["matchId"], 11.0)
            assert kind == phase
            deal.check_line(view, kind, s, _event(n, 11.0, data, s))
            dealer = deal.dealer_receive(dealer, view.ledger, {"action": kind, "seat": s})
            n += 1
    assert deal.ready(view.ledger)
    return view, dealer


def test_a_dice_game_deals_in_proof_through_the_unchanged_proven_deal():
    deal = ProvenDeal("dice-two", 2, dealer_seat=None, deals=DICE)  # the house deals and holds no seat
    assert deal.statement_id == DICE.statement(3).key_id and deal.entropies == 3
    seats = [deal.seat_secrets(), deal.seat_secrets()]
    view, dealer = _entropy_phase(deal, seats)
    cups, public, inputs, sealed = deal.deal_round(dealer, 1, 9)
    ents = deal.contributors(dealer)
    assert public == 0 and cups == dice_native([e for e, _ in ents], 1, (3, 3), 6)  # the seed's roll, no choice
    stmt = deal.statement
    system, witness = stmt.build({**inputs, "context": 5})
    publics = dict(zip(stmt.public, witness[1:1 + system.n_public]))
    demand = deal.demand(view.ledger, 1, 0, sealed)
    assert demand.statement == stmt.key_id and all(publics[k] == v for k, v in demand.pinned.items())
    assert set(demand.pinned) == {"entropy0_commitment", "entropy1_commitment", "entropy2_commitment", "round"}
    for s in range(2):  # each seat opens its own cup and finds its entropy in the proof
        assert deal.seat_open(seats[s], s, HEADER["matchId"], 9, sealed[s], publics) == \
            (cups[s], inputs[f"share{s}_salt"])
    with pytest.raises(IllegalMove, match="entropy2_commitment"):  # the negative twin: not this seat's entropy
        deal.seat_open(seats[1], 1, HEADER["matchId"], 9, sealed[1],
                       {**publics, "entropy2_commitment": publics["entropy2_commitment"] + 1})
    action = SimpleNamespace(sealed_hands=sealed)
    deal.observe(view.ledger, 9, action, [publics])
    assert view.ledger.deal.deals[0].commitments == (publics["share0_commitment"], publics["share1_commitment"])


def test_a_wrong_cup_is_complained_about_and_the_dealer_is_found_at_fault():
    deal = ProvenDeal("dice-two", 2, dealer_seat=None, deals=DICE)
    seats = [deal.seat_secrets(), deal.seat_secrets()]
    view, dealer = _entropy_phase(deal, seats)
    cups, _, inputs, sealed = deal.deal_round(dealer, 1, 9)
    stmt = deal.statement
    system, witness = stmt.build({**inputs, "context": 5})
    publics = dict(zip(stmt.public, witness[1:1 + system.n_public]))
    # the dealer seals seat 1 other dice than the proof committed to
    state = deal.state_of(dealer)
    bad = seal_hand(state.seats[1].hand_key, HEADER["matchId"], 9, (cups[1] + 1) % 216, inputs["share1_salt"])
    sealed = (sealed[0], bad)
    with pytest.raises(CommitmentMismatch):
        deal.seat_open(seats[1], 1, HEADER["matchId"], 9, sealed[1], publics)
    deal.observe(view.ledger, 9, SimpleNamespace(sealed_hands=sealed), [publics])
    complaint = deal.complaint(seats[1], 1, {"n": 9, "data": {"sealed_hands": list(sealed)}})
    deal.check_line(view, COMPLAINT_LINE, 1, _event(10, 12.0, complaint, 1))
    assert view.ledger.deal.fault and view.ledger.deal.fault_line == 10
    with pytest.raises(IllegalMove, match="over"):
        deal.check_line(view, COMPLAINT_LINE, 1, _event(11, 12.0, complaint, 1))


# ------------------------------------------------------------------ typed state, saved as before
def test_seat_secrets_and_dealer_state_are_typed_and_saved_in_their_json_form():
    deal = ProvenDeal("g", 2, (5, 5), seat_keys=("pile",))
    saved = deal.seat_secrets()
    assert list(saved) == ["entropy", "salt", "handKey", "x25519", "pileSecret"]
    typed = deal.secrets_of(saved)
    assert isinstance(typed, SeatSecrets) and typed.to_json() == saved and deal.secrets_of(typed) is typed
    dealer = deal.dealer_start("m", [], [])
    assert list(dealer) == ["matchId", "entropy", "salt", "x25519", "seats"]
    state = DealerState.from_json(dealer)
    opened = state.opened(1, OpenedSeat(b"\x01" * 32, EntropySecret(3, 4))).opened(0, OpenedSeat(b"\x02" * 32))
    again = opened.to_json()
    assert again["seats"] == {"1": {"entropy": "3", "salt": "4", "handKey": "01" * 32}, "0": {"handKey": "02" * 32}}
    assert DealerState.from_json(again) == opened


@pytest.mark.parametrize("field, value", [("handKey", "00"), ("x25519", None), ("entropy", "-1"), ("pileSecret", "zz")])
def test_malformed_seat_secrets_are_refused_naming_the_field(field, value):
    deal = ProvenDeal("g", 2, (5, 5), seat_keys=("pile",))
    saved = {**deal.seat_secrets(), field: value}
    with pytest.raises(MalformedInput, match=field):
        deal.secrets_of(saved)


def test_malformed_dealer_state_is_refused():
    deal = ProvenDeal("g", 2, (5, 5))
    good = deal.dealer_start("m", [], [])
    for bad in ({**good, "seats": {"x": {}}}, {**good, "seats": {"0": {"handKey": "1"}}}, {**good, "matchId": 3}, []):
        with pytest.raises(MalformedInput):
            deal.state_of(bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------ one checker per line kind
def test_every_deal_line_kind_has_its_own_documented_checker():
    assert set(ProvenDeal.checks) == set(ProvenDeal.line_roles)
    assert all(check.__doc__ and kind in check.__doc__ for kind, check in ProvenDeal.checks.items())
    assert ProvenDeal.checks[DEALER_LINE] is ProvenDeal._check_dealer


# ------------------------------------------------------------------ small pieces
def test_every_function_of_the_deal_is_under_forty_lines():
    """The deal's longest function (``check_line`` was an 89-line if/elif over the line kinds)."""
    import ast

    import zkbluff.games.engine.deal_state as state_module
    import zkbluff.games.engine.deal_statement as statement_module
    import zkbluff.games.engine.proven_deal as deal_module

    long = []
    for module in (deal_module, statement_module, state_module):
        tree = ast.parse(open(module.__file__).read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines >= 40:
                    long.append(f"{module.__name__}.{node.name}: {lines} lines")
    assert long == []


# ------------------------------------------------------------------ a whole match of a dice game
@dataclass(frozen=True)
class Roll(Action):
    kind: ClassVar[str] = "roll"
    role: ClassVar[Role] = Role.DEALER
    round: int
    sealed_hands: tuple[str, ...]


@dataclass(frozen=True)
class Look(Action):
    kind: ClassVar[str] = "look"
    role: ClassVar[Role] = Role.SEAT


class RollRules(Rules):
    """The house rolls every seat's cup once, then each seat looks in turn."""

    n_seats = 2

    def __init__(self) -> None:
        self.rolled, self.looked = False, 0

    @property
    def over(self) -> bool:
        return self.looked == 2

    @property
    def to_move(self) -> Optional[int]:
        return NO_SEAT if not self.rolled else self.looked

    def legal_actions(self, seat: Optional[int]) -> list[Action]:
        return [Look()] if self.rolled and seat == self.looked and not self.over else []

    def check(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Roll) and seat is NO_SEAT and not self.rolled and action.round == 1:
            return
        if isinstance(action, Look) and self.rolled and seat == self.looked and not self.over:
            return
        raise IllegalMove(f"{action.kind}: not now")

    def _apply(self, seat: Optional[int], action: Action) -> None:
        if isinstance(action, Roll):
            self.rolled = True
        else:
            self.looked += 1

    def public_state(self) -> Any:
        return (self.rolled, self.looked)

    def result(self) -> Optional[Result]:
        return Result((1, 1), (0, 0), "looked") if self.over else None


@dataclass
class RollLedger:
    cups: tuple[int, ...] = ()
    deal: DealPublic = dataclass_field(default_factory=DealPublic)


class RollSpec(GameSpec):
    """A dice game on the unchanged engine: no subclass of the deal, only its deal statement."""

    game = "roll-two"
    title = "Roll (two seats, the house rolls)"
    actions = (Roll, Look)
    n_seats = 2
    house_bot = random_bot = text = None  # type: ignore[assignment]

    def __init__(self, options: Optional[Mapping[str, Any]] = None):
        super().__init__(options)
        self.deal = ProvenDeal(self.game, 2, dealer_seat=None, deals=DICE)

    def statements(self) -> list[str]:
        return [self.deal.statement_id]

    def new_rules(self) -> RollRules:
        return RollRules()

    def new_ledger(self, header: Mapping[str, Any]) -> RollLedger:
        return RollLedger()

    def demand(self, rules: Rules, ledger: Any, seat: Optional[int], action: Action) -> list[ProofDemand]:
        return [self.deal.demand(ledger, action.round, 0, action.sealed_hands)] if isinstance(action, Roll) else []

    def record(self, ledger: Any, seat: Optional[int], action: Action, publics: list[dict[str, int]]) -> None:
        if isinstance(action, Roll):
            got = self.deal.read_publics(publics[0])
            assert got is not None
            ledger.cups = got.shares

    def new_private(self) -> dict[str, Any]:
        return {"cup": None}

    def seat_move(self, private: Mapping[str, Any], rules: Rules, seat: int, intent: Any) -> Move:
        return Move(Look())

    def seat_receive(self, private: Mapping[str, Any], deal_secrets: Mapping[str, Any], seat: int, match_id: str,
                     event: Mapping[str, Any], action: Action, publics: list[dict[str, int]]) -> dict[str, Any]:
        if isinstance(action, Roll):
            packed, _ = self.deal.seat_open(deal_secrets, seat, match_id, event["n"], action.sealed_hands[seat],
                                            publics[0])
            return {"cup": packed}
        return dict(private)

    def observation(self, rules: Rules, private: Mapping[str, Any], seat: int) -> Any:
        return private["cup"]

    def dealer_move(self, dealer: Mapping[str, Any], rules: Rules, ledger: Any, match_id: str, line: int) -> Move:
        _, _, inputs, sealed = self.deal.deal_round(dealer, 1, line)
        return Move(Roll(1, sealed), (inputs,))

    def timeout(self, rules: Rules) -> Optional[tuple[Action, str]]:
        return None


@pytest.fixture
def roll_game(monkeypatch):
    from zkbluff.games.engine import registry as games
    from zkbluff.statements import registry as statements

    stmt = DICE.statement(3)
    known = statements.all_statements()
    monkeypatch.setattr(statements, "all_statements", lambda: {**known, stmt.key_id: stmt})
    monkeypatch.setattr(games, "_GAMES", {**games._GAMES, RollSpec.game: RollSpec})


def test_a_dice_game_plays_a_whole_match_with_real_proofs_and_verifies(roll_game, tmp_path):
    path, keys = tmp_path / "roll.jsonl", tmp_path / "keys"
    tab = open_match(RollSpec.game, transcript=path, key_folder=keys)
    events = [json.loads(x) for x in path.read_text().splitlines()]
    assert [e["action"] for e in events][:7] == ["header", "entropy.dealer"] + ["entropy.seat"] * 2 + \
        ["entropy.open"] * 2 + ["roll"]
    assert events[0]["data"]["deal"]["statement"] == DICE.key_id(3)
    cups = [s.private["cup"] for s in tab.seats]
    ents = tab.spec.deal.contributors(tab.dealer.state)
    assert cups == dice_native([e for e, _ in ents], 1, (3, 3), 6)  # each seat holds the seed's roll
    for seat in range(2):
        tab.move(seat, None)
    report = verify_transcript(path, keys_dir=keys)
    assert report["complete"] and report["proofs"] == 1
    # the negative twin: the roll line with another cup's commitment fails its proof
    lines = path.read_text().splitlines()
    roll = json.loads(lines[6])
    roll["proofs"][0]["public"][3] = str(int(roll["proofs"][0]["public"][3]) + 1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:6] + [json.dumps(roll)] + lines[7:]) + "\n")
    with pytest.raises(TranscriptError, match="line 7"):
        verify_transcript(bad, keys_dir=keys)
