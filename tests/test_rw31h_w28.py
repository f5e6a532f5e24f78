"""rw31/h P5 and P7 (hostile-input review of e19f1dc).

P5: a file over its time budget was a PD008 *warning* ("it holds no launch text pdlint knows") when its own text
had no launcher marker, even when its launches live in the templates it includes or the scripts it sources; and
the pair stage compared every one of ~2000 identical foreground launches with every earlier one (> 10 s).
P7: the Jinja filter registration scan (PD016) walked nested ``def filters`` bodies once per nesting level.
"""

import pytest


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


def test_over_budget_script_that_sources_its_launch_is_an_error(scratch, monkeypatch):
    """rw31/h P5: run.sh `source "$(dirname "$0")/lib/launch.sh"`; launch.sh holds the launch (SGL001 on a normal
    run).  Over its budget before the `source` was evaluated (nothing read it), the PD008 was a warning, exit 0: the
    bounded textual search of the names it sources finds launch.sh's launch text."""
    import pdlint.formats.shell as shell
    real = shell.shell_commands

    def slow(doc, *a, **k):
        if doc.pieces and doc.pieces[0].src is not None and doc.pieces[0].src.path == "run.sh":
            over_budget("shell")()
        return real(doc, *a, **k)

    monkeypatch.setattr(shell, "shell_commands", slow)
    scratch.write("lib/launch.sh", "python -m sglang.launch_server --model-path m --tensor-paralel-size 2\n")
    scratch.write("run.sh", 'set -e\nsource "$(dirname "$0")/lib/launch.sh"\n')
    code, doc = scratch.lint("run.sh")
    assert _pd008(doc, "run.sh") == [("PD008", "error", "not checked: exceeded 10 s in shell")]
    assert code == 1


def test_over_budget_script_sourcing_no_launch_text_stays_a_warning(scratch, monkeypatch):
    """The quiet neighbour (field test rw25/a): a script with no launch text, sourcing a file with none either (and
    naming a file that does not exist), over its budget is a warning, exit 0."""
    import pdlint.formats.shell as shell
    real = shell.shell_commands

    def slow(doc, *a, **k):
        if doc.pieces and doc.pieces[0].src is not None and doc.pieces[0].src.path == "evidence.sh":
            over_budget("shell")()
        return real(doc, *a, **k)

    monkeypatch.setattr(shell, "shell_commands", slow)
    scratch.write("lib/common.sh", "log() { echo \"$@\"; }\n")
    scratch.write("evidence.sh", "source ./lib/common.sh\n. \"$HOME/missing.sh\"\n"
                                 "python3 -c 'import vllm; print(vllm.__version__)'\n")
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
