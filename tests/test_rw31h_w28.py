"""rw31/h P5 and P7 (hostile-input review of e19f1dc).

P5: a file over its time budget was a PD008 *warning* ("it holds no launch text pdlint knows") when its own text
had no launcher marker, even when its launches live in the templates it includes or the scripts it sources; and
the pair stage compared every one of ~2000 identical foreground launches with every earlier one (> 10 s).
P7: the Jinja filter registration scan (PD016) walked nested ``def filters`` bodies once per nesting level.
"""


def test_identical_launches_that_never_share_the_host_are_compared_with_the_first_ones_only(monkeypatch):
    """rw31/h P5: an include fan-out renders one foreground launch 2000 times; none shares the host with another
    (the script waits for each: pairing.one_after_the_other), so no pair was ever taken and each launch was
    compared with every earlier one (2000 x 2000 / 2 predicate calls, > 10 s: PD008 "exceeded 10 s in pair
    stage").  Each is now compared with the first MAX_EXAMINED launches of its group of identical launches."""
    from pdlint import pair_rules
    from pdlint.model import Launch
    from pdlint.pairing import Deployment

    class Parsed:
        incomplete = False

    calls = []

    def foreground(a, b):
        calls.append((a, b))
        return True  # the first one runs in the foreground: never on the host together

    monkeypatch.setattr(pair_rules, "one_after_the_other", foreground)
    n = 300
    ls = [Launch(path="r.sh", line=i + 1, engine="none", entrypoint="x", kind="server", command=[], argv=[])
          for i in range(n)]
    for l in ls:
        l.parsed = Parsed()
    assert pair_rules._colocated_pairs(Deployment("r.sh", "one file", ls)) == []
    assert len(calls) <= n * 2 * pair_rules.MAX_PARTNERS  # 44,850 before
    assert (ls[0], ls[1]) in calls and (ls[0], ls[299]) in calls and (ls[40], ls[299]) not in calls


def test_colocated_pairs_of_distinct_groups_keep_their_order_and_partners():
    """The quiet neighbour: launches of two groups (two commands repeated) still pair with the earlier launches of
    each group, in the script's order, up to MAX_PARTNERS per group."""
    from pdlint import pair_rules
    from pdlint.model import Launch
    from pdlint.pairing import Deployment

    class Parsed:
        incomplete = False

    ls = [Launch(path="r.sh", line=i + 1, engine="none", entrypoint="x" if i % 2 else "y", kind="server",
                 command=[], argv=[]) for i in range(60)]
    for l in ls:
        l.parsed = Parsed()
    pairs = pair_rules._colocated_pairs(Deployment("r.sh", "one file", ls))
    partners = [a for a, b in pairs if b is ls[59]]
    assert len(partners) == 2 * pair_rules.MAX_PARTNERS
    assert partners == sorted(partners, key=ls.index)


# ---------------------------------------------------------------------------
# P5: a file over its time budget whose launch text is in a file it includes or sources stays a PD008 error
# ---------------------------------------------------------------------------

LAUNCH = ("python -m sglang.launch_server --model-path m --disaggregation-mode {{ role }} "
          "--disaggregation-transfer-backend {{ 'nixl' if role == 'prefill' else 'mooncake' }} --port 30000\n")


def over_budget(stage):
    """A stand-in for a stage that ran out of the file's time budget (10 s: what the include fan-out took), at once."""
    def raise_(*a, **k):
        from pdlint import budget
        raise budget.OverBudget("time", stage, "10 s")
    return raise_


def _pd008(doc, path):
    return [(f["code"], f["severity"], f["message"]) for f in doc["findings"] if f["path"] == path]


def test_over_budget_template_whose_launch_is_in_an_include_is_an_error(scratch, monkeypatch):
    """rw31/h P5: t/fan.sh.j2 reaches its launch (t/f11.j2: prefill with nixl, decode with mooncake - SGLang's
    transfer backends must match, SGL805 when included once) through an include the render read; the pair stage
    ran out of the budget and the PD008 was a warning ("it holds no launch text pdlint knows"), exit 0.  The include
    name is computed here, so only what the extract stage read (Extraction.reads) tells the file has launch text."""
    from pdlint import check
    scratch.write("t/launch.j2", LAUNCH)
    scratch.write("t/fan.sh.j2", "{% set n = 'lau' ~ 'nch.j2' %}"
                                 "{% for role in ['prefill','decode'] %}{% include n %}{% endfor %}\n")
    monkeypatch.setattr(check, "_dep_candidates", over_budget("pair stage"))
    code, doc = scratch.lint("t/fan.sh.j2")
    assert _pd008(doc, "t/fan.sh.j2") == [("PD008", "error", "not checked: exceeded 10 s in pair stage")]
    assert code == 1


def _over_budget_in_shell(monkeypatch, path: str) -> None:
    """The shell stage of ``path`` runs out of its budget (at once: no test waits for one)."""
    import pdlint.formats.shell as shell
    real = shell.shell_commands

    def slow(doc, *a, **k):
        if doc.pieces and doc.pieces[0].src is not None and doc.pieces[0].src.path == path:
            over_budget("shell")()
        return real(doc, *a, **k)

    monkeypatch.setattr(shell, "shell_commands", slow)


def test_over_budget_script_that_sources_its_launch_is_an_error(scratch, monkeypatch):
    """rw31/h P5: run.sh `source "$(dirname "$0")/lib/launch.sh"`; launch.sh holds the launch (SGL001 on a normal
    run).  Over its budget before the `source` was evaluated (nothing read it), the PD008 was a warning, exit 0: the
    bounded textual search of the names it sources finds launch.sh's launch text."""
    _over_budget_in_shell(monkeypatch, "run.sh")
    scratch.write("lib/launch.sh", "python -m sglang.launch_server --model-path m --tensor-paralel-size 2\n")
    scratch.write("run.sh", 'set -e\nsource "$(dirname "$0")/lib/launch.sh"\n')
    code, doc = scratch.lint("run.sh")
    assert _pd008(doc, "run.sh") == [("PD008", "error", "not checked: exceeded 10 s in shell")]
    assert code == 1


def test_over_budget_script_sourcing_no_launch_text_stays_a_warning(scratch, monkeypatch):
    """The quiet neighbour (field test rw25/a): a script with no launch text, sourcing a file with none either (and
    naming a file that does not exist), over its budget is a warning, exit 0; its echoed sentences ("1. Check
    ...", "then source ...") are no commands the search follows."""
    _over_budget_in_shell(monkeypatch, "evidence.sh")
    scratch.write("lib/common.sh", "log() { echo \"$@\"; }\n")
    scratch.write("evidence.sh", "source ./lib/common.sh\n. \"$HOME/missing.sh\"\n"
                                 "python3 -c 'import vllm; print(vllm.__version__)'\n"
                                 + "echo 'Step 1. Check the driver. Then source the toolkit. See lib/common.sh'\n"
                                 * 2000)  # (prose is no `.` / `source` command: no lookups, no bound reached)
    code, doc = scratch.lint("evidence.sh")
    ((c, severity, message),) = _pd008(doc, "evidence.sh")
    assert (c, severity) == ("PD008", "warning")
    assert message.startswith("not checked: exceeded 10 s in shell; it holds no launch text pdlint knows, nor do "
                              "the files it includes or sources")
    assert code == 0


def test_over_budget_findings_look_at_what_the_file_read():
    """The unit: a file read for the over-budget one (Extraction.reads) holds launch text -> error; the same file
    read by another job does not make it one."""
    from pdlint import budget
    from pdlint.lint import over_budget_findings
    from pdlint.text import SourceFile

    class B:
        over = {"a.sh.j2": budget.OverBudget("time", "pair stage", "1 s"),
                "b.sh.j2": budget.OverBudget("time", "pair stage", "1 s")}
    sources = {"a.sh.j2": SourceFile("a.sh.j2", "{% include n %}\n", "/r/a.sh.j2"),
               "b.sh.j2": SourceFile("b.sh.j2", "{% include n %}\n", "/r/b.sh.j2"),
               "l.j2": SourceFile("l.j2", LAUNCH, "/r/l.j2")}
    reads = {"a.sh.j2": {"/r/a.sh.j2", "/r/l.j2"}, "b.sh.j2": {"/r/b.sh.j2"}}
    assert [(f.path, f.severity) for f in over_budget_findings(B, sources, reads)] == [
        ("a.sh.j2", "error"), ("b.sh.j2", "warning")]


# ---------------------------------------------------------------------------
# P7: the Jinja filter registration scan walks the syntax tree once, and parses bounded files only
# ---------------------------------------------------------------------------

def _nested_filters(depth: int, statements: int, name: str = "model_id_label") -> bytes:
    """rw31/h repro/7's gen.py, smaller: ``depth`` nested `def filters(self):` (tab indentation), the innermost
    with ``statements`` statements on one line and ``return {name: x}``."""
    lines = ["\t" * d + "def filters(self):" for d in range(depth)]
    return ("\n".join(lines) + "\n" + "\t" * depth + ";".join(["x=1"] * statements) + "\n"
            + "\t" * depth + f"return {{'{name}': x}}\n").encode()


def test_nested_filter_definitions_are_walked_once(monkeypatch):
    """rw31/h P7: `ast.walk(node)` for every `def filters` inside `ast.walk(tree)` walked nested definitions once per
    level (99 levels around 200,000 statements: the 10 s budget).  One walk now: each node's children are listed
    about once (ast.iter_child_nodes, which ast.walk uses too)."""
    import ast
    from pdlint.extract import _jinja_registrations
    data = _nested_filters(40, 1500)
    nodes = sum(1 for _ in ast.walk(ast.parse(data)))
    real = ast.iter_child_nodes
    calls = [0]

    def counting(node):
        calls[0] += 1
        return real(node)

    monkeypatch.setattr(ast, "iter_child_nodes", counting)
    assert _jinja_registrations(data) == [(("filter", "model_id_label"), 42)]
    assert calls[0] <= nodes + 1, (calls[0], nodes)  # 40 x as many before


def test_a_return_counts_for_its_nearest_enclosing_function():
    """A `return {...}` of a helper nested in `def filters` is not the plugin's table; the table is still found."""
    from pdlint.extract import _jinja_registrations
    src = b'''
class FilterModule:
    def filters(self):
        def helper():
            return {"not_a_filter": 1}
        return {"real_filter": helper}

def tests():
    return {"a_test": callable}
'''
    assert {k for k, _ in _jinja_registrations(src)} == {("filter", "real_filter"), ("test", "a_test")}


TEMPLATE = ("python -m sglang.launch_server --model-path {{ model | model_id_label }} "
            "--disaggregation-mode {{ role }}\n")


def test_a_python_file_too_large_to_parse_is_said_not_passed_over(scratch_git, monkeypatch):
    """rw31/h P7: a Python file over the bound pdlint parses is not parsed (an 807 KB file took 10 s and 510 MB),
    and the PD016 says so: not "no Python file of the repository registers it" alone."""
    from pdlint import extract
    monkeypatch.setattr(extract, "MAX_PY_PARSE_BYTES", 4096)  # (128 KB in a run: a small file keeps the test fast)
    data = _nested_filters(10, 2000)
    scratch_git.write("plugins/evil_plugin.py", data.decode())
    scratch_git.write("launch.sh.j2", TEMPLATE)
    code, doc = scratch_git.lint("launch.sh.j2")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD016"]
    assert "no Python file of the repository that pdlint read registers it" in f["message"]
    assert f["message"].endswith(f"; pdlint did not parse plugins/evil_plugin.py ({len(data):,} bytes: over the "
                                 f"4,096 pdlint parses), which may register it")
    assert not [f for f in doc["findings"] if f["code"] == "PD008"]


def test_ordinary_plugin_files_still_register_and_unrelated_python_is_not_parsed(scratch_git, monkeypatch):
    """The quiet neighbours: an Ansible filter plugin and an `env.filters[...] = ...` file are still read (the PD016
    names the place, nothing said about unparsed files); a large Python file that merely says "filter" has no
    registration's text and is neither parsed nor listed."""
    from pdlint import extract
    monkeypatch.setattr(extract, "MAX_PY_PARSE_BYTES", 4096, raising=False)
    scratch_git.write("filter_plugins/labels.py", "class FilterModule:\n    def filters(self):\n"
                                                  "        return {'model_id_label': str}\n")
    scratch_git.write("render.py", "import jinja2\nenv = jinja2.Environment()\nenv.tests['gpu_role'] = bool\n")
    scratch_git.write("big.py", "# filter the rows\n" + "x = 1\n" * 2000)
    scratch_git.write("launch.sh.j2", TEMPLATE)
    code, doc = scratch_git.lint("launch.sh.j2")
    (f,) = [f for f in doc["findings"] if f["code"] == "PD016"]
    assert "the repository's Python registers it (filter_plugins/labels.py:3)" in f["message"]
    assert "did not parse" not in f["message"]
