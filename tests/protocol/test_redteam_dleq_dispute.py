"""Red team of issue 26 item 6 (Cheat's dispute discloses one hand-over's key,
protocol/dleq.py), as a cheating sender and as a picker who wants more than one hand-over
opened. These attacks fail; the tests pin the guards."""
import pytest

from zkbluff.errors import CommitmentMismatch, MalformedInput
from zkbluff.field import r
from zkbluff.protocol import dleq

CTX_A, CTX_B = "hand-over:called=3,sender=0,picker=1", "hand-over:called=3,sender=2,picker=1"


def test_attack_a_sender_reusing_another_senders_ephemeral_and_proof_is_refused():
    """Seat 2 copies seat 0's ephemeral R and its proof into its own hand-over, so that the
    picker's dispute of seat 2's hand-over would disclose x R, seat 0's key: the proof is
    bound to its own hand-over (sender 0), and refused for sender 2's."""
    k = dleq.fresh_scalar()
    R, proof = dleq.public_of(k), dleq.prove_dlog(k, CTX_A)
    dleq.check_dlog(R, proof, CTX_A, "sender 0")  # twin: seat 0's own
    with pytest.raises(CommitmentMismatch):
        dleq.check_dlog(R, proof, CTX_B, "sender 2")


def test_attack_a_multiple_of_another_ephemeral_has_no_proof():
    """Seat 2 publishes R2 = 2 R (it does not know log R); with R's proof it is refused, and
    a disclosure of x R2 would otherwise give x R by halving."""
    k = dleq.fresh_scalar()
    R2 = dleq.public_of(2 * k % r)
    with pytest.raises(CommitmentMismatch):
        dleq.check_dlog(R2, dleq.prove_dlog(k, CTX_B), CTX_B, "sender 2")


def test_attack_a_picker_disclosing_a_point_of_another_hand_over_is_refused():
    """The picker (key x) disputes hand-over A but discloses S of hand-over B (another
    ephemeral): the proof ties S to this hand-over's R and to the pile key, nothing else."""
    x = dleq.fresh_scalar()
    P = dleq.public_of(x)
    Ra, Rb = dleq.public_of(dleq.fresh_scalar()), dleq.public_of(dleq.fresh_scalar())
    Sb, proof_b = dleq.prove_dleq(x, Rb, CTX_B)
    with pytest.raises(CommitmentMismatch):
        dleq.check_dleq(P, Ra, Sb, proof_b, CTX_A, "dispute")
    Sa, proof_a = dleq.prove_dleq(x, Ra, CTX_A)
    dleq.check_dleq(P, Ra, Sa, proof_a, CTX_A, "dispute")  # twin: the disputed one's own point
    with pytest.raises(CommitmentMismatch):
        dleq.check_dleq(P, Ra, Sa, proof_a, CTX_B, "dispute")  # and only for its own hand-over


@pytest.mark.parametrize("proof", [None, 5, "00" * 63, "GG" * 64, "AB" * 64, "ff" * 64, ["00" * 64]])
def test_a_malformed_proof_is_refused_typed(proof):
    R = dleq.public_of(dleq.fresh_scalar())
    with pytest.raises(MalformedInput):
        dleq.check_dlog(R, proof, CTX_A, "hand_over")


@pytest.mark.parametrize("point", [None, "00" * 64, "zz", 7, "00" * 63 + "01"])
def test_a_point_off_the_curve_or_at_infinity_is_refused_typed(point):
    with pytest.raises(MalformedInput):
        dleq.point_of(point, "ephemeral")
