"""``zkbluff transcript compare`` and :mod:`zkbluff.games.engine.compare`: every verdict, who
signed each side of a divergence, and the live check a client runs on each line it is sent
(:func:`fork_of`). Hand-made chains (tests/fork_helpers.py): only chains and signatures."""
import json

import pytest
from click.testing import CliRunner

from fork_helpers import Chain, key
from zkbluff.cli import main
from zkbluff.errors import MalformedInput, TranscriptError
from zkbluff.games.engine.compare import (
    BROKEN_LINK, DIVERGED, IDENTICAL, PREFIX, TWO_LINES, compare_transcripts, fork_of, header_parties, signer_of,
)
from zkbluff.protocol.transcript import canonical


def played():
    """Header, two moves; then the seat's complaint and the referee's end (MINE) or, in
    THEIRS, the house's version: a timeout of the seat in place of its complaint."""
    base = Chain()
    base.add("seat 0", "claim", {"count": 2})
    base.add("seat 1", "challenge")
    mine, theirs = base.copy(), base.copy()
    mine.add("seat 0", "complaint", {"line": 3})
    mine.add("referee", "end", {"reason": "dealer at fault"})
    theirs.add("referee", "timeout", {"seat": 0})
    theirs.add("referee", "end", {"reason": "timeout"})
    return base, mine, theirs


def compare(tmp_path, a, b):
    return compare_transcripts(a.write(tmp_path / "mine.jsonl"), b.write(tmp_path / "theirs.jsonl"))


def cli(*args):
    return CliRunner().invoke(main, ["transcript", "compare", *map(str, args)])


# ---------------------------------------------------------------- verdicts

def test_identical_copies(tmp_path):
    _, mine, _ = played()
    found = compare(tmp_path, mine, mine.copy())
    assert (found.verdict, found.line, found.mine_lines, found.theirs_lines) == (IDENTICAL, None, 5, 5)
    out = cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert out.exit_code == 0 and out.output.startswith("identical: both copies hold the same 5 lines")


@pytest.mark.parametrize("shorter", ["mine", "theirs"])
def test_one_copy_is_the_start_of_the_other(tmp_path, shorter):
    base, mine, _ = played()
    a, b = (base, mine) if shorter == "mine" else (mine, base)
    found = compare(tmp_path, a, b)
    assert (found.verdict, found.line, found.mine_lines, found.theirs_lines) == (PREFIX, None, len(a.events),
                                                                                 len(b.events))
    out = cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert out.exit_code == 0 and out.output.startswith(f"prefix: {shorter.upper()} (3 lines) is the start of")


def test_a_house_that_rewrote_the_match_is_caught_by_the_seats_copy(tmp_path):
    """The house replaced the seat's complaint with a timeout: the copies diverge at line 4,
    the seat signed its version, the referee the other, and the referee signed lines after
    the fork in both copies (its end in MINE is chained to the complaint): proof."""
    _, mine, theirs = played()
    found = compare(tmp_path, mine, theirs)
    assert (found.verdict, found.line, found.same_match) == (DIVERGED, 4, True)
    assert found.mine == mine.events[3] and found.theirs == theirs.events[3]
    assert found.mine_signer.party == "seat 0" and found.mine_signer.name == "seat 0 (ann)"
    assert found.theirs_signer.party == "referee" and found.theirs_signer.key == key("referee").public_hex
    assert [(e.signer.party, e.mine, e.theirs) for e in found.equivocators] == [("referee", (5,), (4, 5))]
    assert found.house_equivocated and "proof that the house equivocated" in found.summary()
    out = cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert out.exit_code == 1, out.output
    assert out.output.splitlines()[0] == "diverged at line 4: the referee signed both histories: proof that the " \
                                         "house equivocated"
    assert "MINE   line 4: seat 0 complaint" in out.output and "signed by seat 0 (ann)" in out.output
    assert "THEIRS line 4: house timeout" in out.output and "MINE 5; THEIRS 4, 5" in out.output
    as_json = json.loads(cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl", "--json").output)
    assert as_json["verdict"] == "diverged" and as_json["line"] == 4 and as_json["houseEquivocated"]
    assert as_json["mine"]["line"] == mine.events[3] and as_json["theirs"]["signer"]["party"] == "referee"


def test_a_divergence_without_the_house_on_both_sides_is_no_proof(tmp_path):
    """The twin: MINE stops at the seat's complaint, so nothing the house signed is chained
    to it: the copies diverge, but no key signed both histories."""
    base, mine, theirs = played()
    del mine.events[4:]
    found = compare(tmp_path, mine, theirs)
    assert found.verdict == DIVERGED and found.line == 4 and found.equivocators == ()
    assert not found.house_equivocated and found.summary() == "diverged at line 4"
    out = cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert out.exit_code == 1 and "proof" not in out.output and "signed lines from line" not in out.output


def test_two_headers_for_one_match_signed_by_one_referee(tmp_path):
    """The house showed two seats two tables (another option) under one match id."""
    a, b = Chain(header_at=100.0), Chain(header_at=100.5)
    found = compare(tmp_path, a, b)
    assert (found.verdict, found.line, found.same_match) == (DIVERGED, 1, True)
    assert [e.signer.party for e in found.equivocators] == ["referee"] and found.house_equivocated


def test_two_headers_for_one_match_under_two_referee_keys_are_named_so(tmp_path):
    """A house that made a referee key for each seat's view: no key signed both headers
    (no proof by signature), but one match id under two headers is named."""
    found = compare(tmp_path, Chain(referee="referee-a"), Chain(referee="referee-b"))
    assert (found.verdict, found.line, found.same_match, found.equivocators) == (DIVERGED, 1, True, ())
    assert found.summary() == "diverged at line 1: two headers for one match, under different referee keys"


def test_different_matches_are_no_equivocation(tmp_path):
    """The twin: two matches (other ids) under the same referee key diverge at line 1, and
    no key is blamed: a referee signs many matches."""
    found = compare(tmp_path, Chain("m-1"), Chain("m-2"))
    assert (found.verdict, found.line, found.same_match, found.equivocators) == (DIVERGED, 1, False, ())
    assert "different matches" in found.summary()


def test_a_line_no_party_signed_is_named_so(tmp_path):
    base, mine, _ = played()
    forged = base.copy()
    forged.add("seat 0", "complaint", {"line": 3}, signer=key("mallory"))
    found = compare(tmp_path, mine, forged)
    assert found.line == 4 and found.theirs_signer is None and found.mine_signer.party == "seat 0"
    out = cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert out.exit_code == 1 and "signed by no party its header lists" in out.output


# ---------------------------------------------------------------- inputs that are not transcripts

def test_a_copy_whose_own_chain_is_broken_is_named(tmp_path):
    _, mine, theirs = played()
    mine.write(tmp_path / "mine.jsonl")
    edited = theirs.lines
    edited[2] = canonical({**theirs.events[2], "data": {"edited": True}})
    (tmp_path / "theirs.jsonl").write_text("".join(x + "\n" for x in edited))
    with pytest.raises(TranscriptError, match="THEIRS .*theirs.jsonl: does not chain") as caught:
        compare_transcripts(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert caught.value.line == 4 and caught.value.code == "line.chain"
    out = cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert out.exit_code == 1 and "THEIRS" in out.output


@pytest.mark.parametrize("text, code", [("", "transcript.empty"), ("{nope\n", "line.json"),
                                        ('{"n": 1}\n', "line.fields")])
def test_a_file_that_is_not_a_transcript_is_malformed(tmp_path, text, code):
    Chain().write(tmp_path / "mine.jsonl")
    (tmp_path / "theirs.jsonl").write_text(text)
    with pytest.raises(MalformedInput) as caught:
        compare_transcripts(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl")
    assert caught.value.code == code and "THEIRS" in str(caught.value)
    assert cli(tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl").exit_code == 2
    assert cli(tmp_path / "mine.jsonl", tmp_path / "nowhere.jsonl").exit_code == 2


def test_a_first_line_that_is_no_header_is_malformed_once_the_copies_differ(tmp_path):
    with pytest.raises(MalformedInput, match="header"):
        header_parties({"n": 1, "action": "claim", "data": {}})
    with pytest.raises(MalformedInput, match="header"):
        header_parties({"n": 1, "action": "header", "data": {"parties": {"referee": "a", "dealer": 1, "seats": []}}})


def test_signer_of_names_the_key_that_signed():
    chain = Chain()
    line = chain.add("seat 1", "claim")
    parties = header_parties(chain.events[0])
    assert signer_of(line, parties).party == "seat 1"
    assert signer_of({**line, "data": {"x": 1}}, parties) is None  # changed after signing
    assert signer_of({k: v for k, v in line.items() if k != "sig"}, parties) is None
    assert signer_of({**line, "sig": "zz"}, parties) is None


# ---------------------------------------------------------------- the live check: a line against the copy held

def test_fork_of_lets_the_same_line_and_the_next_chained_line_through():
    _, mine, _ = played()
    held = mine.events[:4]
    assert fork_of(held, mine.events[2]) is None  # a line held, sent again
    assert fork_of(held, mine.events[4]) is None  # the next line, chained to the copy
    assert fork_of(held, {**mine.events[4], "n": 6}) is None  # not the next: left to the caller
    assert fork_of([], mine.events[0]) is None  # nothing held yet


def test_fork_of_a_second_line_for_a_held_number():
    _, mine, theirs = played()
    held = mine.events  # the seat's copy: its complaint (4) and the referee's end (5)
    fork = fork_of(held, theirs.events[3])
    assert (fork.kind, fork.line) == (TWO_LINES, 4)
    assert fork.mine == mine.events[3] and fork.theirs == theirs.events[3]
    assert (fork.mine_signer.party, fork.theirs_signer.party) == ("seat 0", "referee")
    # the referee's end in the copy is chained to the complaint; the referee signed the timeout
    assert [(e.signer.party, e.mine, e.theirs) for e in fork.equivocators] == [("referee", (5,), (4,))]
    assert fork.house_equivocated and "proof of equivocation" in fork.describe()
    # the twin: only the complaint is held, nothing of the house's is chained to it
    twin = fork_of(mine.events[:4], theirs.events[3])
    assert twin.kind == TWO_LINES and twin.equivocators == () and "proof" not in twin.describe()


def test_fork_of_a_next_line_chained_to_another_copy():
    _, mine, theirs = played()
    fork = fork_of(mine.events[:4], theirs.events[4])  # theirs' end follows its timeout, not the complaint
    assert (fork.kind, fork.line) == (BROKEN_LINK, 4)
    assert fork.mine == mine.events[3] and fork.theirs == theirs.events[4]
    assert (fork.mine_signer.party, fork.theirs_signer.party) == ("seat 0", "referee") and not fork.equivocators
    assert "chained to another line 4" in fork.describe()


def test_fork_of_a_second_header():
    held = Chain().events
    fork = fork_of(held, Chain(header_at=101.0).events[0])
    assert (fork.kind, fork.line, fork.house_equivocated) == (TWO_LINES, 1, True)
    other = fork_of(held, Chain("m-2").events[0])  # another match's header: no blame
    assert other.kind == TWO_LINES and other.equivocators == ()


def test_a_spectator_stops_at_a_fork(tmp_path):
    from zkbluff.errors import ForkedMatch
    from zkbluff.server.client import Spectator

    _, mine, theirs = played()
    watcher = Spectator("ws://127.0.0.1:9", say=lambda m: None)
    watcher.events, watcher.match_id = list(mine.events), "m-1"
    with pytest.raises(ForkedMatch) as caught:
        watcher._on_line(theirs.events[3], "m-1")
    assert caught.value.line == 4 and caught.value.evidence["houseEquivocated"]
    assert watcher.events == mine.events
    watcher._on_line(mine.events[3], "m-1")  # the same line again: nothing happens
    assert watcher.events == mine.events
