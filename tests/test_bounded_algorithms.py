"""Algorithms that cannot blow up on hostile input (issue 9 item 2).

Each attack is checked for its result and for the work it costs, counted in
steps where the algorithm exposes them (so the assertion cannot be flaky),
with a generous wall-clock bound on top.
"""

import json
import time

import pytest

from pdlint.cli import main
from pdlint.formats import yamltree as yt


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    return tmp_path


def scan(capsys, *args):
    code = main(["--format", "json", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err, out.err
    return code, json.loads(out.out)


def codes(doc) -> set:
    return {(f["path"], f["code"]) for f in doc["findings"]}


class Clock:
    def __init__(self, limit: float):
        self.limit = limit

    def __enter__(self):
        self.t = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.monotonic() - self.t
        assert exc[0] is not None or self.elapsed < self.limit, f"took {self.elapsed:.1f} s"


# ---------------------------------------------------------------------------
# YAML merge keys: one resolution per mapping, not per alias chain
# ---------------------------------------------------------------------------

def merge_bomb(levels: int) -> str:
    lines = ["m0: &m0 {a: 1, b: 2}"]
    for i in range(1, levels + 1):
        lines.append(f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}]}}")
    return "\n".join(lines) + "\n"


def count_resolutions(monkeypatch) -> list:
    calls = [0]
    real = yt._items_of

    def counting(node):
        calls[0] += 1
        return real(node)

    monkeypatch.setattr(yt, "_items_of", counting)
    return calls


def test_merge_key_bomb_resolves_once_per_mapping(monkeypatch):
    calls = count_resolutions(monkeypatch)
    docs = yt.compose(merge_bomb(40))
    root = yt.Ref(docs[0].root)
    m40 = yt.get(root, "m40")
    with Clock(2):
        items = yt.map_items(m40)
    assert [k for k, _ in items] == ["a", "b"]
    assert yt.scalar_text(yt.get(m40, "b")) == "2"
    # 41 mappings below the root, each resolved once (2^40 alias chains)
    assert calls[0] <= 42
    # the value keeps the chain that reached it: merge key, alias, anchor per level
    hops = yt.get(m40, "a").hops
    assert [note for _, note in hops[:3]] == ["merge key <<", "alias *m39", "anchor &m39"]
    assert len(hops) == 3 * 40


def test_merge_resolution_matches_the_per_chain_definition():
    text = ("base: &base {x: 1, y: 2}\n"
            "over: &over {y: 3, z: 4}\n"
            "both: &both {<<: [*base, *over], x: 0}\n"
            "again: {<<: *both, w: 5}\n"
            "quoted: {'<<': *base}\n")
    root = yt.Ref(yt.compose(text)[0].root)
    assert [(k, yt.scalar_text(v)) for k, v in yt.map_items(yt.get(root, "both"))] == [
        ("x", "0"), ("y", "2"), ("z", "4")]
    assert [(k, yt.scalar_text(v)) for k, v in yt.map_items(yt.get(root, "again"))] == [
        ("w", "5"), ("x", "0"), ("y", "2"), ("z", "4")]
    # a quoted "<<" is an ordinary key
    assert [k for k, _ in yt.map_items(yt.get(root, "quoted"))] == ["<<"]
    assert yt.to_python(root)["again"] == {"w": 5, "x": 0, "y": 2, "z": 4}


def test_merge_cycle_and_long_merge_chain_stay_bounded():
    # an alias to an enclosing anchor builds a cycle
    root = yt.Ref(yt.compose("a: &a {k: 1, sub: {<<: *a, j: 2}}\n")[0].root)
    sub = yt.get(yt.get(root, "a"), "sub")
    assert [k for k, _ in yt.map_items(sub)] == ["j", "k", "sub"]
    self_merge = yt.Ref(yt.compose("&x {<<: *x, k: 1}\n")[0].root)
    assert [k for k, _ in yt.map_items(self_merge)] == ["k"]
    # 100 mappings each merging the previous one (a realistic chain is a few deep)
    def chain(n):
        lines = ["m0: &m0 {k0: 0}"] + [f"m{i}: &m{i} {{<<: *m{i - 1}, k{i}: {i}}}" for i in range(1, n)]
        return yt.Ref(yt.compose("\n".join(lines) + "\n")[0].root)

    assert len(yt.map_items(yt.get(chain(100), "m99"))) == 100
    # 3000 of them copy ~10^10 hops: the document's merge budget stops that, fast
    with Clock(5), pytest.raises(yt.LimitError, match="merge keys expand"):
        yt.map_items(yt.get(chain(3000), "m2999"))


def test_wide_merges_are_charged_to_the_budget(monkeypatch):
    # one mapping of 2000 keys merged into 1000 others: 2*10^6 copied entries
    text = "base: &b {" + ", ".join(f"k{i}: {i}" for i in range(2000)) + "}\n"
    text += "".join(f"x{i}: {{<<: *b}}\n" for i in range(1000))
    monkeypatch.setattr(yt, "MAX_MERGE_COST", 50_000)
    root = yt.Ref(yt.compose(text)[0].root)
    calls = count_resolutions(monkeypatch)
    with pytest.raises(yt.LimitError, match="more than 50000"):
        for k, v in yt.map_items(root):
            yt.map_items(v)
    assert calls[0] <= 50_000 // (2 * 2000) + 3  # the root, ~12 of the 1000 copies, the one over budget


def test_merge_key_bomb_file_and_values_file(repo, capsys):
    (repo / "bomb.yaml").write_text(merge_bomb(20) + "c:\n  containers:\n  - name: x\n    command: "
                                    "[python3, -m, sglang.launch_server, --model-path, /m, --tp-size, x]\n")
    (repo / "values.yaml").write_text(merge_bomb(20))
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nvalues = ["values.yaml"]\n')
    (repo / "t.sh.j2").write_text("python3 -m sglang.launch_server --model-path /m --tp-size {{ m20.a }}x\n")
    with Clock(10):
        code, doc = scan(capsys, ".")
    assert code == 1
    # both files are read and checked: the bad --tp-size of each is found (the template's value is
    # reported at the values-file line it comes from)
    assert {("bomb.yaml", "SGL005"), ("values.yaml", "SGL005")} <= codes(doc)


def test_alias_expansion_of_values_file_is_bounded(repo, capsys, monkeypatch):
    from pdlint import config
    monkeypatch.setattr(config, "MAX_VALUES_NODES", 5000)  # 9^10 values otherwise
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (repo / "values.yaml").write_text("\n".join(lines) + "\n")
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nvalues = ["values.yaml"]\n')
    (repo / "t.sh.j2").write_text("python3 -m sglang.launch_server --model-path /m\n")
    with Clock(10):
        code, doc = scan(capsys, ".")
    f = [f for f in doc["findings"] if f["code"] == "PD010"]
    assert len(f) == 1 and "expands to more than 5000 values" in f[0]["message"]


def test_a_small_values_file_with_aliases_is_read(repo, capsys):
    (repo / "values.yaml").write_text("common: &c {tp: 'x'}\nprefill: {<<: *c}\n")
    (repo / "pyproject.toml").write_text('[tool.pdlint]\nvalues = ["values.yaml"]\n')
    (repo / "t.sh.j2").write_text("python3 -m sglang.launch_server --model-path /m --tp-size {{ prefill.tp }}\n")
    code, doc = scan(capsys, ".")
    # reported where the value is written (through the merge key), reached from the template
    (f,) = doc["findings"]
    assert (f["path"], f["line"], f["code"]) == ("values.yaml", 1, "SGL005")
    assert any(r["note"] == "via {{ prefill.tp }}" for r in f["related"]), f["related"]


def test_merge_budget_overrun_is_a_limit_finding_and_the_scan_goes_on(repo, capsys, monkeypatch):
    monkeypatch.setattr(yt, "MAX_MERGE_COST", 5000)
    wide = "base: &b {" + ", ".join(f"k{i}: {i}" for i in range(500)) + "}\n"
    wide += "".join(f"x{i}: {{<<: *b}}\n" for i in range(100))
    (repo / "wide.yaml").write_text(wide + "containers:\n  - name: sglang\n    command: [python3]\n")
    (repo / "good.sh").write_text("python3 -m sglang.launch_server --model-path /m --tp-size x\n")
    # an SGLang --config file with an alias bomb
    laughs = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    laughs += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
    (repo / "cfg.yaml").write_text("model-path: /m\ndisaggregation-mode: prefill\n" + "\n".join(laughs) + "\n")
    (repo / "run.sh").write_text("python3 -m sglang.launch_server --config cfg.yaml\n")
    with Clock(20):
        code, doc = scan(capsys, ".")
    found = codes(doc)
    assert ("wide.yaml", "PD008") in found
    assert ("good.sh", "SGL005") in found
    # the launch reading it: the config is not read (a finding), and what it would set is unknown
    msgs = [f["message"] for f in doc["findings"] if f["path"] == "cfg.yaml" and f["code"] == "PD008"]
    assert any(m.startswith("config file not read: YAML alias expansion limit") for m in msgs), msgs
    # the launch reading it: only the coverage finding that its flags went unchecked
    assert [(f["code"], f["message"].split(":")[0]) for f in doc["findings"] if f["path"] == "run.sh"] == [
        ("PD022", "--config cfg.yaml was found but not read (over pdlint's limits; see the finding at the file)")]


def test_config_file_merge_errors_are_reported(repo, capsys):
    (repo / "c.yaml").write_text("tp-size: [2\n")
    (repo / "run.sh").write_text("python3 -m sglang.launch_server --model-path /m --config c.yaml\n")
    code, doc = scan(capsys, "run.sh")
    assert ("c.yaml", "SGL028") in codes(doc)  # at the file to edit
    (repo / "c.yaml").write_text("tp-size: 2\n")
    code, doc = scan(capsys, "run.sh")
    assert code == 0 and doc["findings"] == []


# ---------------------------------------------------------------------------
# Shell patterns and [[ =~ ]]: a linear matcher, a step budget per script
# ---------------------------------------------------------------------------

def _shell_run(text):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from test_shell import Run
    return Run(text)


def test_glob_and_ere_agree_with_reference_matchers_on_small_inputs():
    import fnmatch
    import random
    import re

    from pdlint.formats.shell.matching import Glob, ere_search

    rnd = random.Random(9)
    for _ in range(3000):
        pat = "".join(rnd.choice(["a", "b", "*", "?", "[ab]", "[!a]"]) for _ in range(rnd.randint(0, 6)))
        s = "".join(rnd.choice("ab") for _ in range(rnd.randint(0, 7)))
        g = Glob(pat, [False] * len(pat))
        assert g.fullmatch(s) == fnmatch.fnmatchcase(s, pat), (pat, s)
        # every prefix end, as ${x#p} / ${x##p} need them
        assert g.ends(s) == [k for k in range(len(s) + 1) if fnmatch.fnmatchcase(s[:k], pat)], (pat, s)
    atoms = ["a", "b", ".", "(a|b)", "(ab|a)", "[ab]", "[^a]", "(a+)", "()"]
    for _ in range(3000):
        rx = "".join(rnd.choice(atoms) + rnd.choice(["", "", "*", "+", "?", "{1,2}"]) for _ in range(rnd.randint(1, 4)))
        rx = rnd.choice(["", "^"]) + rx + rnd.choice(["", "$"])
        s = "".join(rnd.choice("ab") for _ in range(rnd.randint(0, 8)))
        assert ere_search(rx, [False] * len(rx), s) == (re.search(rx, s) is not None), (rx, s)


def test_quoted_pattern_characters_are_literal():
    from pdlint.formats.shell.matching import Glob, ere_search

    assert Glob("a*", [False, True]).fullmatch("a*") is True
    assert Glob("a*", [False, True]).fullmatch("ab") is False
    assert ere_search("l.7", [True] * 3, "prefillx7") is False
    assert ere_search("l.7", [False] * 3, "prefillx7") is True
    # regcomp without REG_NEWLINE: "." and $ see the whole string
    assert ere_search("a.b$", [False] * 4, "a\nb") is True
    # constructs not modelled are unknown, never guessed
    assert ere_search(r"\d", [False] * 2, "1") is None
    assert ere_search("(a", [False] * 2, "a") is None


def test_pathological_globs_take_linear_steps():
    from pdlint.formats.shell.matching import Budget, Glob

    budget = Budget(10**9)
    pat = "*a" * 30 + "*b"
    g = Glob(pat, [False] * len(pat), budget)
    with Clock(2):
        assert g.fullmatch("a" * 4000) is False
    # one pass over the subject, at most len(pattern) live states per character
    assert 10**9 - budget.left <= 4000 * (len(g.elems) + 2)
    budget = Budget(1000)
    assert Glob(pat, [False] * len(pat), budget).fullmatch("a" * 4000) is None  # over budget: unknown


def test_exponential_regex_is_linear_or_unknown():
    from pdlint.formats.shell.matching import Budget, ere_search

    budget = Budget(10**9)
    with Clock(2):
        assert ere_search("^(a+)+$", [False] * 7, "a" * 3000 + "b", budget) is False
        assert ere_search("^(a|aa)+$", [False] * 9, "a" * 3000, budget) is True
    assert 10**9 - budget.left < 200_000
    # {m,n} copies its operand: a huge automaton is refused, not built
    assert ere_search("(((a{255}){255}){255})", [False] * 22, "a") is None


def test_shell_pattern_attacks_finish_with_the_right_result():
    a200 = "a" * 200
    with Clock(5):
        r = _shell_run(f"x={a200}\ny=${{x#*a*a*a*a*b}}\ncmd \"$y\" ${{x%a*a*a*a*b*}}X ${{x##*a}}Y\n"
                       f"case $x in *a*a*a*a*b) cmd one;; *) cmd two;; esac\n"
                       f"[[ $x == *a*a*a*a*b ]] && cmd three\n"
                       f"x={'a' * 30}b\nif [[ $x =~ ^(a+)+$ ]]; then cmd four; else cmd five; fi\n")
    assert r.argv() == [["cmd", a200, a200 + "X", "Y"], ["cmd", "two"], ["cmd", "five"]]
    assert r.reports == []


def test_regex_match_follows_bash():
    r = _shell_run("r=prefill-7\n"
                   "if [[ $r =~ ^(prefill|decode)-[0-9]+$ ]]; then cmd one; else cmd two; fi\n"
                   "if [[ $r =~ \"l.7\" ]]; then cmd three; else cmd four; fi\n"
                   "re='\\d'\nif [[ $r =~ $re ]]; then cmd five; else cmd six; fi\n")
    # \d is not POSIX: unknown, both arms are followed
    assert r.argv() == [["cmd", "one"], ["cmd", "four"], ["cmd", "five"], ["cmd", "six"]]


def test_matching_budget_is_shared_by_the_script_and_reported():
    a400 = "a" * 400
    # each replacement tries every start: ~3*10^5 steps; 50 of them would be ~10 s
    lines = [f"x={a400}"] + [f"cmd ${{x//*a*a*a*b/Q}}{i}" for i in range(50)] + ["cmd ${x%%a}end"]
    with Clock(5):
        r = _shell_run("\n".join(lines) + "\n")
    assert [w.text for w in r.cmds[0].words] == ["cmd", a400 + "0"]  # the first replacements are computed
    assert r.codes() == ["PD-SHELL-LIMIT"] and "pattern matching took more than" in r.reports[0][1]
    # past the budget the values are unknown (opaque), never guessed
    assert r.cmds[-1].words[1].opaque and r.cmds[-2].words[1].opaque


def test_blanking_template_tags_matches_the_lazy_pattern_and_is_linear():
    """Field test rw23/h: `\\{\\{.*?\\}\\}|\\{%.*?%\\}|\\{#.*?#\\}` (re.S) scans to the end of the text from every
    unclosed opener: 60,000 `{{` with a suppression comment took 98 s in the suppression stage."""
    import random
    import re
    from pdlint.suppress import _blank_tags
    lazy = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
    rng = random.Random(3)
    pieces = ["{{", "}}", "{%", "%}", "{#", "#}", "{", "}", "x", "\n", " a ", "%", "#"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert _blank_tags(text) == lazy.sub(lambda m: re.sub(r"[^\n]", "_", m.group(0)), text), repr(text)
    with Clock(2):
        _blank_tags("{{ x " * 200_000 + "# pdlint: ignore[SGL101]\n")


def test_a_line_of_many_markers_costs_a_bounded_search():
    """Field test rw23/h: 90,000 `--disaggregation-mode` on one 2 MB line: each marker was checked against the whole
    line (an install command before it, an assignment at it): 90 s after the file's own budget had run out."""
    from pdlint.coverage import MAX_LINE_MARKERS, find_markers
    line = "pip install x; echo " + "--disaggregation-mode " * 90_000
    with Clock(5):
        found = find_markers(line + "\n", "shell")
    assert 0 < len(found) <= MAX_LINE_MARKERS
    line = "args: " + "--disaggregation-mode {{ if a }} " * 30_000  # (each marker against each template test)
    with Clock(5):
        assert 0 < len(find_markers(line + "\n")) <= MAX_LINE_MARKERS
