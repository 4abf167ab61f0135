"""What a proven deal deals: the deal statement interface of :class:`~zkbluff.games.engine.proven_deal.ProvenDeal`.

A proven deal computes every seat's share *inside the proof* from the committed entropies
(:mod:`zkbluff.games.engine.proven_deal` runs the commit order, seals each share to its seat and
checks the complaints). What is drawn is the :class:`DealStatement`'s business, nothing else:

- what is drawn (:attr:`~DealStatement.drawn`: ``"cards"``, ``"dice"``, ``"tokens"``), in how many
  shares (:attr:`~DealStatement.shares`: one a seat dealt to) and whether each is sealed to its
  seat (:attr:`~DealStatement.sealed`; a public draw goes to nobody);
- its statement (:meth:`~DealStatement.statement`: name and parameters, for ``E`` entropy
  contributors) and its native twin (:meth:`~DealStatement.draw`: what the proof derives from
  the seed, :class:`Drawn`);
- its private and public inputs (:meth:`~DealStatement.inputs`);
- where each contributor's entropy commitment, each share's commitment, the round and the
  public draw sit among the publics (:meth:`~DealStatement.layout`, a :class:`DealLayout` made
  from the statement's typed declaration, :class:`~zkbluff.statements.base.Inputs`, *by
  position*): the deal reads and pins them through it and never builds an input name itself.

Two implementations: :class:`CardDeal` (``card.deal.v2``: hands from a deck, with or without a
public board; ``DealShape`` in :mod:`~zkbluff.games.engine.proven_deal` is this class) and
:class:`DiceDeal` (``dice.deal.v1``: a cup of dice of ``faces`` faces per seat, cups of any sizes). A game
of other things implements the five methods (docs/adding-a-game.md, "The deal").
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Mapping, Optional, Sequence

from zkbluff.errors import MalformedInput
from zkbluff.statements.base import Inputs, Statement


@dataclass(frozen=True)
class Drawn:
    """What the native twin derives from the seed for one deal line: each share's secret
    value in the statement's share order (a hand's card mask, a cup's packed dice) and the
    public draw (a board's card mask; 0 where the statement has none)."""

    shares: tuple[int, ...]
    public: int = 0


@dataclass(frozen=True)
class DealPublics:
    """A deal proof's publics, read by position (:meth:`DealLayout.read`)."""

    entropies: tuple[int, ...]
    shares: tuple[int, ...]
    round: int
    public: Optional[int]


@dataclass(frozen=True)
class DealLayout:
    """Where a deal statement's publics sit: positions in its declaration's public inputs
    (``inputs.public``) of each contributor's entropy commitment (contributor order), each
    share's commitment (share order), the round and the public draw (None: the statement has
    none)."""

    inputs: Inputs
    entropies: tuple[int, ...]
    shares: tuple[int, ...]
    round: int
    public: Optional[int] = None

    @classmethod
    def canonical(cls, inputs: Inputs, entropies: int, shares: int, public: bool) -> "DealLayout":
        """The layout of ``card.deal.v2`` and ``dice.deal.v1``: the entropy commitments, the
        share commitments, the public draw (if any), the round, the context; checked against
        the declaration's kinds (:class:`ValueError` if it is not that shape)."""
        decl = inputs.public
        n = entropies + shares + (1 if public else 0)
        if len(decl) != n + 2 or any(i.kind != "commitment" for i in decl[:entropies + shares]) or \
                decl[n + 1].kind != "context":
            raise ValueError(f"deal layout: {[i.name for i in decl]} is not {entropies} entropy and {shares} share "
                             f"commitments{', the public draw' if public else ''}, the round and the context")
        return cls(inputs, tuple(range(entropies)), tuple(range(entropies, entropies + shares)), n,
                   entropies + shares if public else None)

    def _name(self, position: int) -> str:
        return self.inputs.public[position].name

    def fits(self, publics: Mapping[str, int]) -> bool:
        """Whether ``publics`` (a proof's publics by name) are this statement's."""
        return set(publics) == set(self.inputs.public_names)

    def read(self, publics: Mapping[str, int]) -> DealPublics:
        """The deal's values among a proof's publics (:class:`MalformedInput` unless they fit)."""
        if not self.fits(publics):
            raise MalformedInput(f"deal: publics {sorted(publics)} are not {list(self.inputs.public_names)}")
        return DealPublics(tuple(publics[self._name(p)] for p in self.entropies),
                           tuple(publics[self._name(p)] for p in self.shares), publics[self._name(self.round)],
                           None if self.public is None else publics[self._name(self.public)])

    def pin(self, entropies: Sequence[int], round_no: int, public: int = 0) -> dict[str, int]:
        """The publics a table pins on a deal proof: the recorded entropy commitments (in
        contributor order), the round and the public draw (where the statement has one). In
        the order the table compares them: contributor 0's commitment, the round, the public
        draw, then the other contributors' (a mismatch names the first that differs)."""
        if len(entropies) != len(self.entropies):
            raise ValueError(f"deal: {len(entropies)} entropy commitments for {len(self.entropies)} contributors")
        pinned = {self._name(self.entropies[0]): entropies[0], self._name(self.round): round_no}
        if self.public is not None:
            pinned[self._name(self.public)] = public
        pinned.update({self._name(p): e for p, e in zip(self.entropies[1:], entropies[1:])})
        return pinned


class DealStatement(ABC):
    """What one proven deal line deals (see the module): a statement that derives
    :attr:`shares` secret shares (and maybe a public draw) from ``E`` committed entropies.
    Immutable and hashable (a frozen dataclass): the deal keeps each layout it reads by it."""

    #: what is drawn: "cards", "dice", "tokens"
    drawn: ClassVar[str]
    #: each share is sealed to the seat it is dealt to (False: a public draw, shares to nobody)
    sealed: bool = True

    @property
    @abstractmethod
    def shares(self) -> int:
        """How many shares one line deals (a seat dealt to each, when :attr:`sealed`)."""

    @abstractmethod
    def statement(self, entropies: int) -> Statement:
        """The statement (name and parameters) for ``entropies`` contributors."""

    @abstractmethod
    def declaration(self, entropies: int, shares: Optional[int] = None) -> Inputs:
        """The statement's typed declaration for ``entropies`` contributors and ``shares``
        shares (by default :attr:`shares`), without building the statement."""

    @abstractmethod
    def draw(self, entropies: Sequence[int], round_no: int) -> Drawn:
        """The native twin: what the proof derives from the entropies (contributor order)."""

    @abstractmethod
    def inputs(self, contributors: Sequence[tuple[int, int]], salts: Sequence[int], round_no: int) -> dict[str, int]:
        """The proof's inputs from ``(entropy, salt)`` per contributor and a salt per share;
        the statement's native twin fills in the publics."""

    #: whether the statement has a public draw among its publics
    has_public: ClassVar[bool] = False

    def layout(self, entropies: int, shares: Optional[int] = None) -> DealLayout:
        """Where the publics sit (by default the canonical layout of the declaration)."""
        k = self.shares if shares is None else shares
        return DealLayout.canonical(self.declaration(entropies, k), entropies, k, self.has_public)

    def key_id(self, entropies: int) -> str:
        return self.statement(entropies).key_id


@dataclass(frozen=True)
class CardDeal(DealStatement):
    """``card.deal.v2``: hand ``k`` of the proof gets ``hands[k]`` cards, the public board
    ``board`` cards, from a deck of ``deck`` cards. ``sealed``: each hand is sealed to the seat
    it is dealt to; False for a public draw whose hands go to nobody (Bluffers' table card: the
    board is the draw). The statement always has a ``board`` public (0 without a board)."""

    deck: int
    hands: tuple[int, ...]
    board: int = 0
    sealed: bool = True
    drawn: ClassVar[str] = "cards"
    has_public: ClassVar[bool] = True

    @property
    def shares(self) -> int:
        return len(self.hands)

    def statement(self, entropies: int) -> Statement:
        from zkbluff.statements.deal import deal_v2_statement

        return deal_v2_statement(self.deck, self.hands, self.board, entropies=entropies)

    def declaration(self, entropies: int, shares: Optional[int] = None) -> Inputs:
        from zkbluff.statements.deal import deal_v2_inputs_declared

        return deal_v2_inputs_declared(self.shares if shares is None else shares, entropies)

    def draw(self, entropies: Sequence[int], round_no: int) -> Drawn:
        from zkbluff.statements.deal import deal_native

        masks, board = deal_native(entropies, round_no, self.hands, self.board, self.deck)
        return Drawn(tuple(masks), board)

    def inputs(self, contributors: Sequence[tuple[int, int]], salts: Sequence[int], round_no: int) -> dict[str, int]:
        from zkbluff.statements.deal import deal_v2_inputs

        inputs: dict[str, int] = deal_v2_inputs(contributors, salts, round_no)
        del inputs["context"]  # the prover binds the line's own
        return inputs


@dataclass(frozen=True)
class DiceDeal(DealStatement):
    """``dice.deal.v1``: one cup a seat, cup ``k`` of ``cups[k]`` dice with ``faces`` faces each,
    rolled from the seed; a share is the cup's packed dice (:func:`zkbluff.statements.dice.pack`,
    0-based faces). No public draw."""

    faces: int
    cups: tuple[int, ...]
    sealed: bool = True
    drawn: ClassVar[str] = "dice"

    @classmethod
    def even(cls, dice: int, faces: int, seats: int) -> "DiceDeal":
        """``seats`` cups of ``dice`` dice each."""
        return cls(faces, (dice,) * seats)

    @property
    def shares(self) -> int:
        return len(self.cups)

    def statement(self, entropies: int) -> Statement:
        from zkbluff.statements.dice import dice_deal_statement

        return dice_deal_statement(self.faces, self.cups, entropies)

    def declaration(self, entropies: int, shares: Optional[int] = None) -> Inputs:
        from zkbluff.statements.dice import dice_inputs

        return dice_inputs(self.shares if shares is None else shares, entropies)

    def draw(self, entropies: Sequence[int], round_no: int) -> Drawn:
        from zkbluff.statements.dice import dice_native

        return Drawn(tuple(dice_native(entropies, round_no, self.cups, self.faces)))

    def inputs(self, contributors: Sequence[tuple[int, int]], salts: Sequence[int], round_no: int) -> dict[str, int]:
        """By the declaration's order: each contributor's entropy and salt, then the share salts."""
        if len(salts) != self.shares:
            raise ValueError(f"dice: {len(salts)} salts for {self.shares} cups")
        layout = self.layout(len(contributors))
        values = [x for pair in contributors for x in pair] + list(salts)
        return {**dict(zip(layout.inputs.private_names, values, strict=True)),
                layout.inputs.public[layout.round].name: round_no}


__all__ = ["CardDeal", "DealLayout", "DealPublics", "DealStatement", "DiceDeal", "Drawn"]
