"""The values that flow through pdlint's pipeline.

discover -> render -> extract -> check -> report.  Every stage hands the next one
plain data from this module; nothing flows backwards.

* :class:`Origin` is where a piece of text is written (the place a human edits)
  plus the chain of references (:class:`Hop`) through which a launch reached it:
  alias -> anchor, variable use -> assignment, macro call -> macro body,
  include -> included file, ``--config`` -> key.
* :class:`Launch` is one server (or router) command found in a file, with its
  argv as traced strings (:class:`pdlint.text.TStr`), so every token still
  knows its origin.
* :class:`Finding` is one diagnostic, already positioned at the line to edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from pdlint.records import dataclass, field

if TYPE_CHECKING:  # pragma: no cover
    from pdlint.text import TStr

ROLES = ("prefill", "decode")
ERROR = "error"
WARNING = "warning"
SAFE = "safe"  # fix applicability (ruff's terms): applied by --fix
UNSAFE = "unsafe"  # may change what the launch does beyond the finding: only with --unsafe-fixes


@dataclass(frozen=True)
class Hop:
    """One reference on the way from a launch to the text it uses."""

    path: str
    line: int
    column: int
    note: str

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "note": self.note}


@dataclass(frozen=True)
class Origin:
    """Where text is written (1-based line and column) and how it was reached.

    ``chain`` lists the references outermost first: the first hop is the place
    inside the launch that refers to something shared, the last hop is the one
    closest to this origin.
    """

    path: str
    line: int
    column: int
    chain: tuple = ()

    @property
    def key(self) -> tuple:
        return (self.path, self.line, self.column)

    def as_dict(self) -> dict:
        d = {"path": self.path, "line": self.line, "column": self.column}
        if self.chain:
            d["via"] = [h.as_dict() for h in self.chain]
        return d

    def describe_chain(self) -> str:
        return " -> ".join(f"{h.note} ({h.path}:{h.line})" for h in self.chain)


@dataclass
class Launch:
    """One server or router command line found in a source file.

    ``argv`` holds the arguments after the entry point (what the server's own
    argument parser sees); ``command`` the tokens that name the entry point.
    ``role`` is decided by the engine adapter once the argv is parsed
    (``prefill``, ``decode``, ``null`` for a non-PD server, None when not
    applicable, e.g. a router).
    """

    path: str
    line: int
    engine: str
    entrypoint: str
    kind: str  # "server" | "router"
    command: list = field(default_factory=list)  # list[TStr]
    argv: list = field(default_factory=list)  # list[TStr]
    env: dict = field(default_factory=dict)  # name -> TStr
    context: str = ""  # human description: container, branch, render role
    render_role: Optional[str] = None  # the role value a template was rendered with
    structural_role: Optional[str] = None  # role named by a CRD field / file name
    structural_origin: Optional[Origin] = None
    role: Optional[str] = None
    incomplete: bool = False  # argv holds values pdlint cannot see (opaque tokens)
    notes: list = field(default_factory=list)
    parsed: Any = None  # engine-specific parse result, set by the engine adapter
    unit: str = ""  # the deployment/unit key used for pairing
    ordinal: int = 0  # position among the launches of the same file
    meta: dict = field(default_factory=dict)  # adapter details: image, yaml path, resource kind/name
    gaps: list = field(default_factory=list)  # Gap: parts of this launch pdlint could not check

    def role_word(self, default: str = "other") -> str:
        """The role as a message names it: ``prefill`` / ``decode``; ``other`` for an aggregated or
        unknown-role server (``null``: the summary line counts those as "other"); ``default`` without a
        role."""
        if self.role is None:
            return default
        return "other" if self.role == "null" else self.role

    @property
    def label(self) -> str:
        role = self.role if self.role is not None else self.kind
        where = f"{self.path}:{self.line}"
        return f"{role} launch at {where}" + (f" ({self.context})" if self.context else "")

    def origins(self) -> list:
        return [t.origin for t in self.argv]

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "role": self.role,
            "engine": self.engine,
            "entrypoint": self.entrypoint,
            "kind": self.kind,
            "context": self.context,
            "argv": [t.text for t in self.argv],
            "origins": [t.origin.as_dict() for t in self.argv],
            "structural_role": self.structural_role,
            "structural_origin": self.structural_origin.as_dict() if self.structural_origin else None,
            "unit": self.unit or self.meta.get("unit") or None,
        }


@dataclass(frozen=True)
class Gap:
    """A part of a launch pdlint could not check (reported by :mod:`pdlint.coverage`):
    ``code`` is the coverage rule, ``token`` where it is written (None: the launch line),
    ``reason`` what was not checked and why, ``hint`` what makes it checkable."""

    code: str
    token: Any  # Optional[TStr]
    reason: str
    hint: str


@dataclass(frozen=True)
class Related:
    path: str
    line: int
    column: int
    note: str

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "note": self.note}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    column: int
    code: str
    name: str
    severity: str
    role: Optional[str]
    message: str
    related: tuple = ()
    fix: Optional[str] = None
    engine_version: Optional[str] = None
    end_column: Optional[int] = None
    autofix: Any = field(default=None, compare=False, repr=False)  # Optional[FixIntent]: what --fix can do
    end_line: Optional[int] = None  # with end_column: where the token ends (None: on ``line``)
    token: Optional[str] = None  # the text the finding points at (a flag, a key): pdlint.baseline's key

    @property
    def end(self) -> Optional[tuple]:
        """(end line, end column) of the token, exclusive; None when the finding has no token span."""
        if not self.end_column:
            return None
        end = (self.end_line or self.line, self.end_column)
        return end if end > (self.line, self.column) else None

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code, self.role or "", self.message)

    def as_dict(self) -> dict:
        d = {"path": self.path, "line": self.line, "column": self.column}
        end = self.end
        if end is not None:
            d["end_line"], d["end_column"] = end
        d.update({
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "role": self.role,
            "message": self.message,
            "related": [r.as_dict() for r in self.related],
        })
        if self.fix:
            d["fix"] = self.fix
        if self.engine_version:
            d["engine_version"] = self.engine_version
        return d


@dataclass
class Candidate:
    """A finding before the check stage places it (shared origins, de-duplication).

    Engine adapters produce these: ``token`` is what a human edits (None: the
    launch itself), ``role_specific`` whether the rule depends on the role.
    """

    code: str
    launch: Launch
    token: Any  # Optional[TStr]
    message: str
    role_specific: bool
    version: Optional[str] = None
    related: list = field(default_factory=list)
    fix: Optional[str] = None
    autofix: Any = None  # Optional[FixIntent]


@dataclass(frozen=True)
class AutoFix:
    """What a rule can fix, declared on the :class:`~pdlint.rules.Rule` (``Rule.autofix``).

    ``kind``: ``"replace"`` -- the engine adapter names the replacement text on
    each finding (a typo's single close match, a renamed or deprecated flag's
    replacement); ``"move"`` -- the rule rejects a flag on some roles only, so a
    finding at a shared origin (anchor, list, variable, ``{% set %}``, template
    line) is fixed by moving the flag and its values out of the shared part into
    the part of each role that accepts it.  ``applicability``: :data:`SAFE`
    (applied by ``--fix``) or :data:`UNSAFE` (only with ``--unsafe-fixes``).
    """

    kind: str
    applicability: str = SAFE


@dataclass(frozen=True)
class FixIntent:
    """A finding's fix, before :mod:`pdlint.fix` turns it into text edits.

    ``replace``: ``token`` (a traced string) becomes ``new[0]``; ``new[1:]`` are
    tokens added right after it, in the same list or command line.
    ``move``: ``token`` names the flag occurrence at a shared origin; ``source``
    are the launches that fail with it, ``target`` the launches that keep it.
    """

    kind: str
    message: str
    applicability: str
    token: Any  # TStr
    new: tuple = ()
    source: tuple = ()  # move: launches that lose the flag
    target: tuple = ()  # move: launches that keep it (in their own part)


@dataclass(frozen=True)
class Edit:
    """Replace ``[start, end)`` of a file's text (as pdlint read it: BOM
    stripped, line ends normalised to ``\\n``) with ``content``."""

    path: str  # display path
    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Fix:
    """A fix as text edits: what ``--fix`` writes and ``--diff`` shows."""

    message: str
    applicability: str
    edits: tuple  # of Edit, in file order, not overlapping
