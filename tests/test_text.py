"""Traced strings: the cheap origin key agrees with the positioned origin."""

import itertools
import os

import pytest

from pdlint.extract import Options
from pdlint.lint import run
from pdlint.text import Piece, SourceFile, TStr

FIXTURES = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures")


def test_origin_key_matches_origin_key_of_positions():
    # every argv token of the demo repository: two tokens share origin_key()
    # exactly when they share origin.key (path, line, column)
    result = run(["."], Options(cwd=os.path.abspath(FIXTURES)))
    toks = [t for l in result.launches for t in list(l.argv) + list(l.command) if t.pieces]
    assert len(toks) > 100
    for a, b in itertools.combinations(toks[:400], 2):
        assert (a.origin_key() == b.origin_key()) == (a.origin.key == b.origin.key), (a, b)


def test_origin_key_edge_cases():
    src = SourceFile("f.yaml", "ab\ncd\n")
    assert TStr("", ()).origin_key() is None
    assert TStr.synthetic("x", "<command line>").origin_key() == ("<command line>", -1)
    inexact = TStr("xyz", (Piece(0, 3, src, 3, (), False),))
    assert inexact[1:].origin_key() == inexact.origin_key() == TStr.from_source(src, 3, 4).origin_key()
    assert TStr.from_source(src, 3, 5)[1:].origin_key() == ("f.yaml", 4)
    # offsets past the end clamp as positions do
    past = TStr("q", (Piece(0, 1, src, 99),))
    assert past.origin.key == ("f.yaml", 3, 1) and past.origin_key() == ("f.yaml", len(src.text))


def test_pieces_compare_by_value():
    src = SourceFile("f", "abc")
    assert Piece(0, 1, src, 2) == Piece(0, 1, src, 2, (), True, False, "")
    assert Piece(0, 1, src, 2) != Piece(0, 1, src, 1)
    assert len({Piece(0, 1, src, 2), Piece(0, 1, src, 2)}) == 1
    assert "offset=2" in repr(Piece(0, 1, src, 2))


def _naive_slice(t: TStr, a: int, b: int) -> list:
    out = []
    for p in t.pieces:
        if p.end > a and p.start < b:
            s, e = max(p.start, a), min(p.end, b)
            out.append((s - a, e - a, p.offset + (s - p.start) if p.exact else p.offset, p.exact))
    return out


def test_slicing_a_text_of_many_pieces_matches_the_piecewise_definition():
    # pieces in text order with gaps (characters written nowhere) and inexact
    # runs: the bisecting slice must give exactly the clipped pieces
    import random

    src = SourceFile("f", "x" * 5000)
    pieces, pos = [], 0
    rng = random.Random(7)
    for i in range(120):
        pos += rng.choice((0, 0, 1, 3))  # gap
        n = rng.randint(1, 9)
        pieces.append(Piece(pos, pos + n, src, rng.randint(0, 4000), (), rng.random() < 0.7))
        pos += n
    t = TStr("y" * (pos + 2), tuple(pieces))
    for _ in range(2000):
        a = rng.randint(0, len(t.text) - 1)
        b = rng.randint(a + 1, len(t.text))
        got = [(p.start, p.end, p.offset, p.exact) for p in t[a:b].pieces]
        assert got == _naive_slice(t, a, b), (a, b)


@pytest.mark.parametrize("text", ["", "a", "\n", "ab\ncd\n", "\n\nx\n\ny", "one\r\ntwo\n"])
def test_line_of_is_the_line_of_position(text):
    src = SourceFile("f.txt", text)
    for offset in range(-2, len(text) + 3):
        assert src.line_of(offset) == src.position(offset)[0], (text, offset)


def test_real_origin_skips_text_written_in_no_file():
    """rw30/a problem 1: a finding at text pdlint added (the `( ... )` around a Makefile recipe line) is filed at
    the nearest character a file holds: after an added opening, before an added closing."""
    src = SourceFile("Makefile", "a:\n\techo one\n\techo two\n")
    one, two = TStr.from_source(src, 4, 12), TStr.from_source(src, 14, 22)
    opening, closing = TStr.synthetic("(\n", "<make>"), TStr.synthetic("\n)\n", "<make>")
    t = TStr.join([opening, one, closing, opening, two, closing])
    assert t.origin_at(0).path == "<make>"
    assert t.real_origin_at(0).key == ("Makefile", 2, 2)  # the `(`: the line's first word
    assert t.real_origin_at(11).key == ("Makefile", 2, 9)  # the `)` after `echo one`: its last character
    assert t.real_origin_at(14).key == ("Makefile", 3, 2)
    assert t.real_origin_at(3).key == t.origin_at(3).key == ("Makefile", 2, 3)  # written text: as origin_at
    assert TStr.synthetic("x", "<command line>").real_origin_at(0).path == "<command line>"  # nothing written
