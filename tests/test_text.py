"""Traced strings: the cheap origin key agrees with the positioned origin."""

import itertools
import os

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
