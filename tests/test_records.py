"""pdlint.records behaves as dataclasses does, on the same class bodies (the subset pdlint uses)."""

from __future__ import annotations

import dataclasses
import inspect
import pathlib
from typing import ClassVar, Optional

import pytest

from pdlint import records

IMPLS = [pytest.param(dataclasses, id="stdlib"), pytest.param(records, id="records")]


def make(mod, frozen=False, eq=True):
    @mod.dataclass(frozen=frozen, eq=eq)
    class Point:
        """A point."""

        x: int
        y: str = "a"
        tags: list = mod.field(default_factory=list)
        note: Optional[str] = mod.field(default=None, repr=False)
        weight: float = mod.field(default=1.0, compare=False)

    return Point


def params(cls) -> list:
    """(name, default) of the generated ``__init__`` (stdlib signatures also carry the annotations)."""
    return [(p.name, repr(p.default)) for p in inspect.signature(cls).parameters.values()]


def both(frozen=False, eq=True):
    return make(dataclasses, frozen, eq), make(records, frozen, eq)


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("eq", [False, True])
def test_init_repr_eq_hash_match_stdlib(frozen, eq):
    std, rec = both(frozen, eq)
    assert params(std) == params(rec)
    a, b = std(1, "b", [2], "n", 2.0), rec(1, "b", [2], "n", 2.0)
    assert repr(a) == repr(b) == "make.<locals>.Point(x=1, y='b', tags=[2], weight=2.0)"
    assert vars(a) == vars(b)
    d1, d2 = std(3), rec(3)
    assert vars(d1) == vars(d2) and d2.tags == [] and d2.tags is not rec(3).tags
    for cls in (std, rec):
        p, q = cls(1, weight=5.0), cls(1, weight=6.0)
        assert (p == q) is eq  # weight is not compared
        assert (p == cls(2)) is False
        if eq:
            assert p.__eq__(object()) is NotImplemented
    assert (std.__hash__ is None) == (rec.__hash__ is None) == (eq and not frozen)
    if frozen and eq:
        assert hash(std(1, "b", (2,))) == hash(rec(1, "b", (2,)))  # the same tuple is hashed
    if not eq:
        assert std.__hash__ is rec.__hash__ is object.__hash__  # identity hash, as object's


def test_frozen_assignment_and_deletion():
    std, rec = both(frozen=True)
    for cls, err in ((std, dataclasses.FrozenInstanceError), (rec, records.FrozenInstanceError)):
        p = cls(1)
        with pytest.raises(err, match="cannot assign to field 'x'"):
            p.x = 2
        with pytest.raises(err, match="cannot delete field 'y'"):
            del p.y
        with pytest.raises(AttributeError):
            p.other = 1
    assert issubclass(records.FrozenInstanceError, AttributeError)


def test_class_attributes_and_fields():
    std, rec = both()
    assert [f.name for f in dataclasses.fields(std)] == list(rec.__pdlint_fields__)
    for name in ("y", "note", "weight"):
        assert getattr(std, name) == getattr(rec, name)
    assert not hasattr(std, "tags") and not hasattr(rec, "tags")  # default_factory: no class attribute
    assert std.__match_args__ == rec.__match_args__ == ("x", "y", "tags", "note", "weight")


def test_replace():
    std, rec = both(frozen=True)
    a = dataclasses.replace(std(1, "b", [3]), y="c")
    b = records.replace(rec(1, "b", [3]), y="c")
    assert repr(a) == repr(b)
    with pytest.raises(TypeError):
        records.replace(object(), y=1)


def test_inheritance_keeps_field_order():
    out = []
    for mod in (dataclasses, records):
        @mod.dataclass(eq=False)
        class Node:
            start: int
            end: int
            tag: Optional[str] = None

        @mod.dataclass(eq=False)
        class Scalar(Node):
            value: str = ""
            tag: Optional[str] = "!"  # redefined: keeps its place, new default

        out.append((params(Scalar), repr(Scalar(1, 2))))
    assert out[0] == out[1]
    assert out[1][1].endswith("Scalar(start=1, end=2, tag='!', value='')")


def test_own_methods_are_kept():
    for mod in (dataclasses, records):
        @mod.dataclass(frozen=True)
        class Hit:
            code: str
            line: int = 0

            def __init__(self, code, line=0, extra=None):
                object.__setattr__(self, "code", code.upper())
                object.__setattr__(self, "line", line)

            def __repr__(self):
                return "hit"

        h = Hit("ab", 3, extra=1)
        assert (h.code, repr(h), h == Hit("AB", 3), hash(h) == hash(Hit("ab", 3))) == ("AB", "hit", True, True)

        @mod.dataclass
        class WithHash:
            a: int

            def __hash__(self):
                return 7

        assert hash(WithHash(1)) == 7


def test_recursive_repr():
    for mod in (dataclasses, records):
        @mod.dataclass(eq=False)
        class Loop:
            next: object = None

        x = Loop()
        x.next = x
        assert repr(x).endswith(".Loop(next=...)")


def test_definition_errors_match():
    for mod in (dataclasses, records):
        with pytest.raises(ValueError, match="mutable default"):
            @mod.dataclass
            class A:
                a: list = []  # noqa: RUF012

        with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
            @mod.dataclass
            class B:
                a: int = 0
                b: int

        with pytest.raises(ValueError, match="cannot specify both default and default_factory"):
            @mod.dataclass
            class C:
                a: int = mod.field(default=1, default_factory=int)


def test_unsupported_features_are_refused_not_ignored():
    with pytest.raises(TypeError, match="__post_init__"):
        @records.dataclass
        class A:
            a: int

            def __post_init__(self):
                pass

    with pytest.raises(TypeError, match="ClassVar"):
        @records.dataclass
        class B:
            a: ClassVar[int] = 1

    @records.dataclass(frozen=True)
    class Frozen:
        a: int

    with pytest.raises(TypeError, match="non-frozen record from a frozen one"):
        @records.dataclass
        class Thawed(Frozen):
            b: int = 0


def test_pdlint_uses_records_not_dataclasses():
    """Every record class in pdlint is made by pdlint.records (the import-time cost it removes)."""
    root = pathlib.Path(records.__file__).parent
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name != "records.py" and ("from dataclasses import" in p.read_text(encoding="utf-8")
                                                or "import dataclasses" in p.read_text(encoding="utf-8"))]
    assert offenders == []
