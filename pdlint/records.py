"""``@dataclass``, ``field`` and ``replace`` for pdlint's own record classes, made
without compiling more than their ``__init__``.

Why not :mod:`dataclasses`: on the Python releases pdlint supports it writes the
source of every generated method (``__init__``, ``__repr__``, ``__eq__``, and for a
frozen class ``__hash__``, ``__setattr__``, ``__delattr__``) and compiles it, and for a
class without a docstring computes ``inspect.signature``.  pdlint defines about a
hundred record classes; making them took 75 ms of the 240 ms a hook run spent
importing (bench: one changed file in a 1,000-file repository), most of it in
``compile``.  Here only ``__init__`` is compiled (the same statements
:mod:`dataclasses` writes: it runs for every record made); the other methods are
closures over the field names, compared and hashed as the same tuples through
:func:`operator.attrgetter`.

The behaviour is that of :func:`dataclasses.dataclass` for the subset pdlint uses
(``tests/test_records.py`` compares the two on the same class bodies):

* ``@dataclass``, ``@dataclass(frozen=True)``, ``@dataclass(eq=False)``;
* ``field(default=..., default_factory=..., repr=..., compare=...)``;
* fields in annotation order, base classes' fields first (a redefined field keeps
  its place); a field without a default after one with a default, or a mutable
  (unhashable) default, is a ``TypeError`` / ``ValueError`` as there;
* generated ``__init__`` (frozen classes assign through ``object.__setattr__``),
  ``__repr__`` (recursion-safe), ``__eq__`` (same class only, compared fields as a
  tuple), ``__hash__`` (``None`` for a mutable class with ``eq``; the fields' tuple
  for a frozen one; left alone with ``eq=False`` or an explicit ``__hash__``),
  frozen ``__setattr__`` / ``__delattr__`` raising :class:`FrozenInstanceError`;
  a method the class defines itself is kept; ``__match_args__``.

``ClassVar`` annotations, ``init=False``, ``kw_only``, ``order``, ``slots`` and
``__post_init__`` are not part of the subset: a class that uses them is refused
when it is defined (``TypeError``), so nothing silently behaves differently.
"""

from __future__ import annotations

from _thread import get_ident as _thread_ident
from operator import attrgetter

__all__ = ["dataclass", "field", "replace", "FrozenInstanceError", "MISSING"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class _HasFactory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _HasFactory()
_FIELDS = "__pdlint_fields__"


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class Field:
    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True):
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def _copy(self, name: str) -> "Field":
        f = Field(self.default, self.default_factory, self.repr, self.compare)
        f.name = name
        return f


def field(*, default=MISSING, default_factory=MISSING, repr: bool = True, compare: bool = True):
    return Field(default, default_factory, repr, compare)


def replace(obj, **changes):
    """A copy of ``obj`` with ``changes`` (as :func:`dataclasses.replace`)."""
    try:
        fs = getattr(obj, _FIELDS)
    except AttributeError:
        raise TypeError("replace() should be called on pdlint record instances") from None
    for name in fs:
        if name not in changes:
            changes[name] = getattr(obj, name)
    return obj.__class__(**changes)


def dataclass(cls=None, /, *, frozen: bool = False, eq: bool = True):
    def wrap(c):
        return _process(c, frozen, eq)

    return wrap if cls is None else wrap(cls)


def _is_classvar(annotation) -> bool:
    if isinstance(annotation, str):
        a = annotation.replace(" ", "")
        return a.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar"))
    name = getattr(getattr(annotation, "__origin__", annotation), "_name", None)
    return name == "ClassVar" or type(annotation).__name__ == "InitVar"


def _process(cls, frozen: bool, eq: bool):
    own = cls.__dict__
    for name in ("__post_init__", "__slots__"):
        if name in own:
            raise TypeError(f"{cls.__qualname__}: pdlint.records does not support {name}")
    fs: dict = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = base.__dict__.get(_FIELDS)
        if base_fields is not None:
            if base.__dict__.get("__pdlint_frozen__") != frozen:
                raise TypeError("cannot inherit frozen record from a non-frozen one" if frozen else
                                "cannot inherit non-frozen record from a frozen one")
            fs.update(base_fields)
    for name, annotation in own.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            raise TypeError(f"{cls.__qualname__}.{name}: pdlint.records does not support ClassVar/InitVar")
        value = own.get(name, MISSING)
        if isinstance(value, Field):
            f = value._copy(name)
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(value)
            f.name = name
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             f"use default_factory")
        fs[name] = f
    for name, value in own.items():
        if isinstance(value, Field) and name not in fs:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    names = tuple(fs)
    seen_default = False
    for f in fs.values():
        if f.default is MISSING and f.default_factory is MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            seen_default = True

    made: dict = {}
    if "__init__" not in own:
        made["__init__"] = _init(fs, frozen)
    if "__repr__" not in own:
        made["__repr__"] = _repr(tuple(f.name for f in fs.values() if f.repr))
    compared = _getter(tuple(f.name for f in fs.values() if f.compare))
    if eq and "__eq__" not in own:
        made["__eq__"] = _eq(compared)
    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    hash_action = None
    if eq and not explicit_hash:
        hash_action = "add" if frozen else "none"
    if hash_action == "add":
        made["__hash__"] = _hash(compared)
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
        made["__setattr__"], made["__delattr__"] = _frozen(cls, names)
    for name, fn in made.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, fn)
    if hash_action == "none":
        cls.__hash__ = None
    setattr(cls, _FIELDS, fs)
    cls.__pdlint_frozen__ = frozen
    if "__match_args__" not in own:
        cls.__match_args__ = names
    return cls


# The generated methods.  Only ``__init__`` is compiled (it runs for every record made: the
# same statements :mod:`dataclasses` writes); the others are closures over the field names,
# with no source to compile (compiling is what made :mod:`dataclasses` slow to import).

def _init(fs: dict, frozen: bool):
    env: dict = {"_HAS_FACTORY": _HAS_FACTORY, "_object": object}
    params, body = ["self"], []
    for i, f in enumerate(fs.values()):
        n = f.name
        if f.default_factory is not MISSING:
            env[f"_f{i}"] = f.default_factory
            params.append(f"{n}=_HAS_FACTORY")
            value = f"_f{i}() if {n} is _HAS_FACTORY else {n}"
        elif f.default is not MISSING:
            env[f"_d{i}"] = f.default
            params.append(f"{n}=_d{i}")
            value = n
        else:
            params.append(n)
            value = n
        body.append(f" _object.__setattr__(self, {n!r}, {value})" if frozen else f" self.{n} = {value}")
    ns: dict = {}
    exec(f"def __init__({', '.join(params)}):\n" + "\n".join(body or [" pass"]), env, ns)
    return ns["__init__"]


def _getter(names: tuple):
    """self -> the tuple of ``names`` (the tuple :mod:`dataclasses` compares and hashes)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return lambda self: ()


def _repr(names: tuple):
    running: set = set()

    def __repr__(self):
        key = (id(self), _thread_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            return self.__class__.__qualname__ + "(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"
        finally:
            running.discard(key)

    return __repr__


def _eq(values):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values):
    def __hash__(self):
        return hash(values(self))

    return __hash__


def _frozen(cls, names: tuple):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__
