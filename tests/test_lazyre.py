"""pdlint.lazyre: module-level patterns compiled on first use (issue 11: one changed file in a cached
repository paid about 80 ms compiling some 370 patterns it mostly did not use)."""

import copy
import importlib
import pickle
import pkgutil
import re
import subprocess
import sys

import pytest

import pdlint
from pdlint import lazyre


def _modules():
    for info in pkgutil.walk_packages(pdlint.__path__, "pdlint."):
        if info.name.endswith("__main__"):
            continue
        yield importlib.import_module(info.name)


def _lazy_patterns():
    for mod in _modules():
        for name, value in sorted(vars(mod).items()):
            if isinstance(value, lazyre.LazyPattern):
                yield f"{mod.__name__}.{name}", value


def test_every_module_pattern_compiles():
    """A bad pattern fails here, not at its first use in somebody's run."""
    found = list(_lazy_patterns())
    assert len(found) > 300  # the module-level patterns of the analysis stack
    for where, lazy in found:
        compiled = lazy.compiled
        assert isinstance(compiled, re.Pattern), where
        assert compiled.pattern == lazy.pattern, where


def test_compiled_on_first_method_then_plain_attributes():
    p = lazyre.compile(r"(?P<a>x+)(y)?", re.I)
    assert "_compiled" not in vars(p)
    assert p.pattern == r"(?P<a>x+)(y)?"  # no compile for the text
    assert "_compiled" not in vars(p)
    assert p.match("XXy").group("a") == "XX"
    assert isinstance(vars(p)["_compiled"], re.Pattern)
    assert vars(p)["search"] == vars(p)["_compiled"].search  # later calls: an attribute, no hook
    assert p.sub("-", "axxb") == "a-b"
    assert p.findall("xy xx") == [("x", "y"), ("xx", "")]
    assert p.groups == 2 and p.groupindex == {"a": 1} and p.flags & re.I
    assert [m.start() for m in p.finditer("x x")] == [0, 2]
    assert p.split("axb") == ["a", "x", None, "b"]
    assert p.fullmatch("xxy") and not p.fullmatch("xyx")
    assert p.subn("", "xx.x") == (".", 2)


def test_bytes_pattern_and_bad_pattern():
    assert lazyre.compile(rb"\$(\w+)").search(b"a $B").group(1) == b"B"
    bad = lazyre.compile(r"(unclosed")
    with pytest.raises(re.error):
        bad.compiled
    with pytest.raises(AttributeError):
        bad.no_such_method


def test_dunder_lookups_do_not_compile():
    """copy / pickle / hasattr probes look up dunders on the instance: no compile, no detour into re.Pattern."""
    p = lazyre.compile(r"a+")
    assert not hasattr(p, "__setstate__x")
    q = copy.copy(p)
    r = pickle.loads(pickle.dumps(p))
    assert "_compiled" not in vars(p) and "_compiled" not in vars(q) and "_compiled" not in vars(r)
    assert r.match("aa").group() == "aa" and q.match("a")


def test_importing_the_analysis_stack_compiles_nothing():
    """Importing pdlint's modules leaves their patterns uncompiled until a file needs them (before this module,
    importing the analysis stack compiled all 370; a new module-level ``re.compile`` fails here)."""
    code = ("import importlib, pkgutil, re, sys\n"
            "import pdlint\n"
            "for info in pkgutil.walk_packages(pdlint.__path__, 'pdlint.'):\n"
            "    if not info.name.endswith('__main__'): importlib.import_module(info.name)\n"
            "from pdlint import lazyre\n"
            "eager, lazy = [], 0\n"
            "for name, mod in sorted(sys.modules.items()):\n"
            "    if not name.startswith('pdlint'): continue\n"
            "    for k, v in vars(mod).items():\n"
            "        if isinstance(v, re.Pattern): eager.append(name + '.' + k)\n"
            "        elif isinstance(v, lazyre.LazyPattern):\n"
            "            lazy += 1\n"
            "            if '_compiled' in vars(v): eager.append(name + '.' + k + ' (compiled at import)')\n"
            "print(lazy); print('\\n'.join(eager))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert int(out[0]) > 300
    # (the SGLang rules' example command lines were written at import, compiling rulebase's three doc patterns: they
    # are made when a rule's docs are - Rule.doc_examples)
    assert [line for line in out[1:] if line] == []


def test_pyyamls_reader_pattern_is_compiled_on_first_use():
    """``import yaml`` compiled PyYAML's ``Reader.NON_PRINTABLE`` (a class of astral ranges: 56M of the 98M
    instructions the import cost after pdlint's own start-up, measured with callgrind), which the C loader pdlint
    reads YAML with never runs: imported after pdlint, it is a pattern compiled on first use - the pure-Python
    reader still refuses a control character with it, and ``re.compile`` of its text then gives the real pattern."""
    code = ("import re, pdlint, yaml\n"
            "p = yaml.reader.Reader.NON_PRINTABLE\n"
            "print(type(p).__name__, '_compiled' in vars(p))\n"
            "print(yaml.load('a: b', Loader=yaml.CSafeLoader if hasattr(yaml, 'CSafeLoader') else yaml.SafeLoader))\n"
            "print(type(p).__name__, '_compiled' in vars(p))\n"
            "try:\n"
            "    yaml.load('a: \\x07', Loader=yaml.SafeLoader)\n"
            "except yaml.reader.ReaderError as e:\n"
            "    print('refused', 'special characters are not allowed' in str(e))\n"
            "print(type(re.compile(p.pattern)).__name__, re.compile(p.pattern) is p.compiled)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:5] == ["_Seeded False", "{'a': 'b'}", "_Seeded False", "refused True",
                                   "Pattern True"], out


def test_seeding_leaves_an_imported_yaml_and_a_compiled_pattern_alone():
    """Seeding only helps a library not imported yet: yaml imported before pdlint keeps its compiled pattern, and a
    pattern already in ``re``'s cache is not replaced."""
    code = ("import re, yaml, pdlint\n"
            "print(type(yaml.reader.Reader.NON_PRINTABLE).__name__)\n"
            "from pdlint import lazyre\n"
            "real = re.compile('x+y')\n"
            "lazyre.seed('x+y')\n"
            "print(re.compile('x+y') is real)\n"
            "lazyre.seed('q+r')\n"
            "p = re.compile('q+r')\n"
            "print(type(p).__name__, p.fullmatch('qqr') is not None, type(re.compile('q+r')).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == ["Pattern", "True", "_Seeded True Pattern"], out
