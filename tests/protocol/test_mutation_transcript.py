"""protocol/transcript.py on its own (not only through a whole match's hash): the canonical
form, line numbers, the event shape, files with and without a trailing newline, a writer
that resumes, non-ASCII text, and files that cannot be read. Each check here fails when the
line of transcript.py it names is deleted or changed (issue 21)."""
import hashlib
import json
import os
import re
import sys

import pytest

from zkbluff.errors import MalformedInput, TranscriptError
from zkbluff.protocol.transcript import GENESIS, TranscriptWriter, canonical, line_hash, parse_chain, read_lines


def chain(*datas, seat=None):
    """A well-formed chain of lines (no signatures: parse_chain checks only the chain)."""
    w = TranscriptWriter(None)
    for d in datas:
        w.append(seat, "x", d)
    return w


def test_canonical_form_is_sorted_compact_and_keeps_non_ascii():
    assert canonical({"b": 1, "a": [1, {"d": 2, "c": None}]}) == '{"a":[1,{"c":null,"d":2}],"b":1}'
    assert canonical({"name": "Zoë 🂡"}) == '{"name":"Zoë 🂡"}'  # not \u-escaped
    assert canonical({"a": "x"}) != json.dumps({"a": "x"})  # the default json has spaces


def test_line_hash_is_sha256_of_the_utf8_bytes():
    line = '{"name":"Zoë"}'
    assert line_hash(line) == hashlib.sha256(line.encode("utf-8")).hexdigest()
    assert line_hash(line) != hashlib.sha256(line.encode("latin-1")).hexdigest()
    assert GENESIS == "0" * 64


def test_writer_numbers_and_links_every_line():
    w = chain({"i": 1}, {"i": 2}, {"i": 3})
    assert [e["n"] for e in w.events] == [1, 2, 3]
    assert w.events[0]["prev"] == GENESIS
    for a, b in zip(w.lines, w.events[1:]):
        assert b["prev"] == line_hash(a)
    assert w.head == line_hash(w.lines[-1]) and w.next_line == 4
    assert [e for e in parse_chain(w.lines)] == w.events


def test_draft_carries_proofs_only_when_there_are_some():
    w = TranscriptWriter(None)
    assert "proofs" not in w.draft(None, "x", {})
    assert "proofs" not in w.draft(None, "x", {}, proofs=[])
    assert w.draft(0, "x", {"a": 1}, proofs=[{"p": 1}]) == {
        "n": 1, "prev": GENESIS, "seat": 0, "action": "x", "data": {"a": 1}, "proofs": [{"p": 1}]}


def test_append_event_refuses_a_line_that_is_not_the_next_one():
    w = chain({"i": 1})
    for bad in ({"n": 3, "prev": w.head}, {"n": 2, "prev": GENESIS}, {"prev": w.head}):
        with pytest.raises(MalformedInput, match="expected the next line 2"):
            w.append_event({**bad, "seat": None, "action": "x", "data": {}})
    assert len(w.lines) == 1 and w.next_line == 2  # unchanged
    w.append_event({"n": 2, "prev": w.head, "seat": None, "action": "x", "data": {}})
    assert w.next_line == 3


@pytest.mark.parametrize("trailing", ["\n", ""])
def test_a_file_with_or_without_a_trailing_newline_reads_the_same(tmp_path, trailing):
    w = chain({"i": 1}, {"i": 2})
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(w.lines) + trailing, encoding="utf-8")
    assert read_lines(p) == w.lines
    assert list(parse_chain(read_lines(p))) == w.events


def test_a_blank_line_is_not_dropped(tmp_path):
    """Only the one newline that ends the file is dropped; an empty line in the middle or at
    the end (two newlines) is a line that is not JSON."""
    w = chain({"i": 1}, {"i": 2})
    for text, bad in (("\n".join(w.lines) + "\n\n", 3), (w.lines[0] + "\n\n" + w.lines[1] + "\n", 2)):
        p = tmp_path / "t.jsonl"
        p.write_text(text, encoding="utf-8")
        with pytest.raises(MalformedInput, match=f"transcript line {bad}: not JSON"):
            list(parse_chain(read_lines(p)))
    p.write_text("", encoding="utf-8")
    assert read_lines(p) == []


def test_an_unreadable_file_is_malformed_not_a_stack_trace(tmp_path):
    with pytest.raises(MalformedInput, match="transcript .*missing"):
        read_lines(tmp_path / "missing.jsonl")
    with pytest.raises(MalformedInput, match="transcript"):
        read_lines(tmp_path)  # a folder
    p = tmp_path / "latin1.jsonl"
    p.write_bytes('{"name":"Zoë"}\n'.encode("latin-1"))
    with pytest.raises(MalformedInput, match="utf-8"):
        read_lines(p)


def test_non_ascii_survives_a_file_round_trip(tmp_path):
    p = tmp_path / "t.jsonl"
    w = TranscriptWriter(p)
    w.append(None, "header", {"seats": ["Zoë", "Ðenis"]})
    w.append(0, "say", {"text": "¡hola! 🂡"})
    assert p.read_bytes().decode("utf-8").count("Zoë") == 1
    lines = read_lines(p)
    assert lines == w.lines
    events = list(parse_chain(lines))
    assert events[1]["data"]["text"] == "¡hola! 🂡"
    # the same event written with \u escapes is not the canonical line
    escaped = json.dumps(events[0], sort_keys=True, separators=(",", ":"))
    assert escaped != lines[0]
    with pytest.raises(TranscriptError, match="canonical") as exc:
        list(parse_chain([escaped] + lines[1:]))
    assert exc.value.line == 1


def test_parse_chain_checks_canonical_form_alone():
    w = chain({"i": 1}, {"i": 2})
    spaced = json.dumps(w.events[1], sort_keys=True)  # same event, not canonical
    with pytest.raises(TranscriptError, match="canonical") as exc:
        list(parse_chain([w.lines[0], spaced]))
    assert exc.value.line == 2
    unsorted = json.dumps(dict(reversed(list(w.events[1].items()))), separators=(",", ":"))
    with pytest.raises(TranscriptError, match="canonical"):
        list(parse_chain([w.lines[0], unsorted]))


def test_parse_chain_checks_the_line_number_alone():
    """A line with the right link but the wrong number (so only the number is wrong)."""
    w = chain({"i": 1})
    bad = canonical({"n": 3, "prev": line_hash(w.lines[0]), "seat": None, "action": "x", "data": {}})
    with pytest.raises(TranscriptError, match="numbered 3, expected 2") as exc:
        list(parse_chain([w.lines[0], bad]))
    assert exc.value.line == 2
    first = canonical({"n": 0, "prev": GENESIS, "seat": None, "action": "x", "data": {}})
    with pytest.raises(TranscriptError, match="numbered 0, expected 1"):
        list(parse_chain([first]))


def test_parse_chain_checks_the_link_alone():
    w = chain({"i": 1}, {"i": 2})
    bad = canonical({**w.events[1], "prev": "f" * 64})
    with pytest.raises(TranscriptError, match="does not chain") as exc:
        list(parse_chain([w.lines[0], bad]))
    assert exc.value.line == 2
    first = canonical({**w.events[0], "prev": "1" * 64})
    with pytest.raises(TranscriptError, match="does not chain"):
        list(parse_chain([first]))
    # a removed line: the next one is misnumbered
    with pytest.raises(TranscriptError, match="numbered 2, expected 1"):
        list(parse_chain(w.lines[1:]))


def test_parse_chain_yields_lines_as_it_checks_them():
    """A verifier reports the first bad line: earlier lines were already handed over."""
    w = chain({"i": 1}, {"i": 2})
    it = parse_chain([w.lines[0], "{nope"])
    assert next(it) == w.events[0]
    with pytest.raises(MalformedInput, match="transcript line 2: not JSON"):
        next(it)


BASE = {"n": 1, "prev": GENESIS, "seat": None, "action": "x", "data": {}}


@pytest.mark.parametrize("event", [
    [1, 2], "text", 3, None,
    *({k: v for k, v in BASE.items() if k != drop} for drop in BASE),  # each required field missing alone
    {**BASE, "extra": 1}, {**BASE, "Proofs": []},
])
def test_the_event_shape_alone(event):
    shape = "expected an event with n, prev" if isinstance(event, dict) else "expected a JSON object"
    with pytest.raises(MalformedInput, match=f"transcript line 1: .*{shape}"):
        list(parse_chain([canonical(event)]))


@pytest.mark.parametrize("optional", ["proofs", "sig", "at", "clock"])
def test_every_optional_field_is_allowed(optional):
    event = {**BASE, optional: 1}
    assert list(parse_chain([canonical(event)])) == [event]


def test_all_optional_fields_at_once_are_allowed():
    event = {**BASE, "proofs": [], "sig": "s", "at": 1.5, "clock": {}}
    assert list(parse_chain([canonical(event)])) == [event]


def exactly(text):
    """``pytest.raises(match=...)`` for the whole message: the messages a user reads."""
    return "^" + re.escape(text) + "$"


def test_the_messages_say_what_was_got_and_what_was_expected(tmp_path):
    """The one-line messages the CLI prints, whole."""
    w = chain({"i": 1})
    with pytest.raises(MalformedInput, match=exactly("event numbered 5, expected the next line 2 linked to the head")):
        w.append_event({"n": 5, "prev": w.head, "seat": None, "action": "x", "data": {}})
    p = tmp_path / "t.jsonl"
    p.write_text("x\n")
    with pytest.raises(MalformedInput, match=exactly(f"transcript {p} already holds a match: resume it or "
                                                     "choose another file")):
        TranscriptWriter(p)
    missing = tmp_path / "none.jsonl"
    with pytest.raises(MalformedInput, match=exactly(f"transcript {missing}: [Errno 2] No such file or directory: "
                                                     f"'{missing}'")):
        read_lines(missing)
    with pytest.raises(MalformedInput, match=exactly("transcript line 1: not JSON (Expecting value)")):
        list(parse_chain(["nope"]))
    with pytest.raises(MalformedInput, match=exactly("transcript line 1: expected a JSON object, got list")):
        list(parse_chain(["[]"]))
    with pytest.raises(MalformedInput, match=exactly("transcript line 1: fields ['action', 'data', 'n', 'prev'], "
                                                     "expected an event with n, prev, seat, action, data (and "
                                                     "proofs, sig, at, clock)")):
        list(parse_chain([canonical({k: v for k, v in BASE.items() if k != "seat"})]))
    spaced = json.dumps(BASE)
    with pytest.raises(TranscriptError, match=exactly("line 1: not in canonical form (the line was edited)")):
        list(parse_chain([spaced]))
    with pytest.raises(TranscriptError, match=exactly("line 1: numbered 2, expected 1 (a line was removed or "
                                                      "reordered)")):
        list(parse_chain([canonical({**BASE, "n": 2})]))
    with pytest.raises(TranscriptError, match=exactly("line 1: does not chain to the line before (hash mismatch)")):
        list(parse_chain([canonical({**BASE, "prev": "1" * 64})]))


def test_a_new_file_is_created_empty_and_an_existing_match_is_not_overwritten(tmp_path):
    p = tmp_path / "t.jsonl"
    TranscriptWriter(p)
    assert p.exists() and p.read_text() == ""
    TranscriptWriter(p)  # an empty file may be reused
    w = TranscriptWriter(p)
    w.append(None, "x", {})
    before = p.read_bytes()
    with pytest.raises(MalformedInput, match="already holds a match"):
        TranscriptWriter(p)
    assert p.read_bytes() == before
    TranscriptWriter(p, overwrite=True)
    assert p.read_text() == ""


def test_history_after_resume(tmp_path):
    """A writer resumed from the events on disk keeps them, continues the numbering and the
    chain, appends to the same file (never truncating it), and the whole file verifies."""
    p = tmp_path / "t.jsonl"
    w = TranscriptWriter(p)
    w.append(None, "header", {"who": "Zoë"})
    w.append(0, "x", {"i": 1})
    events = list(parse_chain(read_lines(p)))
    r = TranscriptWriter(p, events=events)
    assert r.events == events and r.lines == w.lines and r.head == w.head and r.next_line == 3
    assert p.read_text(encoding="utf-8") == "\n".join(w.lines) + "\n"  # not truncated
    r.append(1, "y", {"i": 2})
    lines = read_lines(p)
    assert len(lines) == 3 and lines[:2] == w.lines
    again = list(parse_chain(lines))
    assert again[2]["n"] == 3 and again[2]["prev"] == line_hash(lines[1])
    # a resumed writer refuses a line that does not follow what it resumed
    with pytest.raises(MalformedInput):
        r.append_event({"n": 3, "prev": line_hash(lines[1]), "seat": None, "action": "z", "data": {}})


def test_every_line_is_on_disk_as_soon_as_it_is_appended(tmp_path):
    p = tmp_path / "t.jsonl"
    w = TranscriptWriter(p)
    for i in range(3):
        w.append(None, "x", {"i": i})
        assert read_lines(p) == w.lines
    assert os.path.getsize(p) == sum(len(x.encode()) + 1 for x in w.lines)


def test_a_memory_writer_touches_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = chain({"i": 1})
    assert w.path is None and list(tmp_path.iterdir()) == []


def test_each_line_is_flushed_and_fsynced_before_append_returns(tmp_path, monkeypatch):
    """"Flushed to disk one by one": append syncs the file it wrote, and the line is already
    out of Python's buffer when it does (a crash after append loses nothing)."""
    p = tmp_path / "t.jsonl"
    w = TranscriptWriter(p)
    synced = []
    real = os.fsync

    def spy(fd):
        with open(p, encoding="utf-8") as fh:
            synced.append(fh.read())
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    for i in range(2):
        w.append(None, "x", {"i": i})
        assert synced[-1] == "".join(x + "\n" for x in w.lines)  # on disk when it was synced
    assert len(synced) == 2
    TranscriptWriter(None).append(None, "x", {})
    assert len(synced) == 2  # a memory writer syncs nothing


@pytest.mark.parametrize("value, why", [("1" * 5000, "Exceeds the limit (4300 digits) for integer string conversion"),
                                        ("[" * 5000 + "]" * 5000, "maximum recursion depth exceeded")])
def test_json_python_cannot_read_is_malformed_on_its_own_line(value, why):
    """JSON too big for the reader (a number of over 4300 digits, arrays nested beyond the
    recursion limit) is refused like any other non-JSON line, naming that line; never a
    raw ValueError or RecursionError. The recursion limit is Python's default here: py_ecc
    raises it to 100000 when imported, and then the C decoder overflows the C stack instead
    (a crash no reader can catch; see the report of issue 21)."""
    good = canonical({"n": 1, "prev": GENESIS, "seat": None, "action": "x", "data": {}})
    bad = '{"n":2,"prev":"' + line_hash(good) + '","seat":null,"action":"x","data":' + value + "}"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        events = parse_chain([good, bad])
        assert next(events)["n"] == 1
        with pytest.raises(MalformedInput) as exc:
            next(events)
    finally:
        sys.setrecursionlimit(limit)
    assert exc.value.line == 2 and exc.value.code == "line.json"
    assert str(exc.value).startswith(f"transcript line 2: not JSON this reader takes ({why}")


def test_secret_fields_are_the_secret_names_the_extra_names_and_salts():
    from zkbluff.protocol.transcript import secret_fields

    assert secret_fields({"seed", "n", "entropy"}) == ["entropy", "seed"]  # no extra names given
    assert secret_fields({"perm", "n"}, {"perm"}) == ["perm"]
    assert secret_fields({"hand_salt", "countSalt", "salty", "x"}) == ["countSalt", "hand_salt"]
    assert secret_fields({"perm", "x"}) == [] and secret_fields({1, "seed"}) == ["seed"]


def test_a_top_level_secret_field_is_refused_as_leaked():
    line = canonical({"n": 1, "prev": GENESIS, "seat": None, "action": "x", "data": {}, "entropy": "ab"})
    with pytest.raises(MalformedInput) as exc:
        list(parse_chain([line]))
    assert exc.value.code == "secret.leaked" and exc.value.line == 1
    assert str(exc.value) == ("transcript line 1: field(s) ['entropy'] named as secrets: no line may carry a secret")
