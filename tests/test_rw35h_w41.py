"""Hostile-input round rw35/h, P4 and P6: the scripts pdlint evaluates for a sed template's values
(``Extractor.sed_values``: a ``.sh`` beside ``t.yaml`` that runs ``sed "s#{TP}#VALUE#g" t.yaml``).

P4: the evaluation ran with no launch-relevance pruning (``ShellContext`` without ``launch_text``), so a 255-count
loop of 160 ``if``s that no sed reads ran every iteration in full - 16x what the script's own check costs - and an
11 KB script beside the template made the template's check a PD008 error (``exceeded 10 s in yaml``).  Its only
bound was bytes, not work.  Now the statements that hold a ``sed`` or a ``s#{NAME}#`` are its launch text (the
same pruning as the script's own check), and the statements evaluated are bounded per script and per template:
past them the placeholders stay undecided with the PD015 note, the template is still checked.

P6: the byte bound of the scripts read (``_MAX_SED_TOTAL_BYTES``) was spent per process, so ``--jobs 1`` gave
SGL005 on two templates of four and a PD015 on the others, ``--jobs 2`` SGL005 on all four (and the file order, the
files named, the result cache changed it too).  Now it is per template: the same findings whatever else the process
checked."""

import pytest

TEMPLATE = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: lmsysorg/sglang:v0.5.9
    command: [python3, -m, sglang.launch_server]
    args: [--model-path, m, --disaggregation-mode, prefill, --tp-size, "{TP}"]
"""


def _ifs(n: int) -> str:
    return "".join(f'  if [ "$x{k}" = "$i" ]; then y{k}="${{y{k}}}a$i"; else y{k}="${{y{k}}}b"; fi\n'
                   for k in range(n))


def _codes(doc):
    return sorted((f["code"], f["path"]) for f in doc["findings"])


def _undecided(doc):
    return [(u["flag"], u["text"]) for f in doc["coverage"]["files"].values() for u in f.get("undecided", [])]


@pytest.fixture
def statements(monkeypatch):
    """How many statements the shell front-end evaluated (every evaluation of the run, in this process)."""
    from pdlint.formats.shell import interp
    count = [0]
    real = interp.Interpreter.exec_stmt

    def counted(self, *a, **k):
        count[0] += 1
        return real(self, *a, **k)

    monkeypatch.setattr(interp.Interpreter, "exec_stmt", counted)
    return count


def test_a_loop_no_sed_reads_is_not_run_in_full_for_the_templates_values(scratch, statements):
    """P4: 255 iterations of 10 ``if``s before the sed: every iteration ran (about 2,800 statements, 2 s; at 160
    ``if``s the template was PD008).  The loop's variables reach no sed, so it is widened as in the script's own
    check, and the value the sed gives is still read (SGL005 on 'banana')."""
    scratch.write("t.yaml", TEMPLATE)
    scratch.write("deploy.sh", "#!/bin/bash\nfor (( i = 0; i < 255; i++ )); do\n" + _ifs(10) + "done\n"
                  "sed -e 's#{TP}#banana#g' t.yaml | kubectl apply -f -\n")
    code, doc = scratch.lint("-j", "1", "--debug", "t.yaml")  # (in this process: the statements are counted)
    assert _codes(doc) == [("SGL005", "deploy.sh")] and code == 1
    assert "banana" in doc["findings"][0]["message"]
    assert statements[0] < 500


def test_a_loop_that_sets_what_the_sed_reads_still_runs_its_count(scratch):
    """Neighbour: the loop writes the value the sed substitutes (``TP`` after 3 iterations): it is run, and the
    value is the one it leaves (no pruning of what a sed reads)."""
    scratch.write("t.yaml", TEMPLATE)
    scratch.write("deploy.sh", "#!/bin/bash\nTP=x\nfor (( i = 0; i < 3; i++ )); do\n  TP=\"${TP}y\"\ndone\n"
                  'sed -e "s#{TP}#${TP}#g" t.yaml | kubectl apply -f -\n')
    code, doc = scratch.lint("t.yaml")
    assert _codes(doc) == [("SGL005", "deploy.sh")] and "'xyyy'" in doc["findings"][0]["message"]


def test_a_script_past_the_work_bound_leaves_the_placeholders_undecided(scratch, monkeypatch):
    """P4: a sed inside the loop keeps every iteration (a launch there would too); the statements evaluated for a
    script's sed values are bounded (``_MAX_SED_SCRIPT_STEPS``, lowered here): past it the script is left unread,
    the placeholder undecided with the PD015 note, and the template is checked (no PD008, no guessed value)."""
    import pdlint.extract as X
    monkeypatch.setattr(X, "_MAX_SED_SCRIPT_STEPS", 300)
    scratch.write("t.yaml", TEMPLATE)
    scratch.write("deploy.sh", "#!/bin/bash\nfor (( i = 0; i < 255; i++ )); do\n" + _ifs(4) +
                  "  sed -e 's#{TP}#banana#g' t.yaml | kubectl apply -f -\ndone\n")
    code, doc = scratch.lint("t.yaml")
    assert _codes(doc) == [("PD015", "t.yaml")] and code == 0
    assert _undecided(doc) == [("--tp-size", "{TP}")]
    [note] = doc["findings"]
    assert "was not read" in note["message"] and "300 a script" in note["message"]


def test_a_short_loop_with_the_sed_inside_is_read_under_the_work_bound(scratch, monkeypatch):
    """Neighbour: the same script with a 3-count loop stays under the (lowered) bound: its value is read."""
    import pdlint.extract as X
    monkeypatch.setattr(X, "_MAX_SED_SCRIPT_STEPS", 300)
    scratch.write("t.yaml", TEMPLATE)
    scratch.write("deploy.sh", "#!/bin/bash\nfor (( i = 0; i < 3; i++ )); do\n" + _ifs(4) +
                  "  sed -e 's#{TP}#banana#g' t.yaml | kubectl apply -f -\ndone\n")
    code, doc = scratch.lint("t.yaml")
    assert _codes(doc) == [("SGL005", "deploy.sh")] and code == 1


def test_the_scripts_of_one_template_share_a_work_bound(scratch, monkeypatch):
    """P4: the statements of a template's scripts together are bounded too (``_MAX_SED_TEMPLATE_STEPS``): a
    script listed after they ran out is left unread (PD015), never a value another script may contradict."""
    import pdlint.extract as X
    monkeypatch.setattr(X, "_MAX_SED_TEMPLATE_STEPS", 40)
    scratch.write("t.yaml", TEMPLATE)
    scratch.write("a.sh", "#!/bin/bash\nfor (( i = 0; i < 20; i++ )); do\n  sed -e 's#{TP}#2#g' t.yaml > o.yaml\n"
                  "done\n")
    scratch.write("b.sh", "sed -e 's#{TP}#banana#g' t.yaml | kubectl apply -f -\n")
    code, doc = scratch.lint("t.yaml")
    assert _codes(doc) == [("PD015", "t.yaml")] and _undecided(doc) == [("--tp-size", "{TP}")]


def _four_dirs(scratch, pad: int) -> None:
    for k in range(1, 5):
        scratch.write(f"d{k}/t.yaml", TEMPLATE)
        scratch.write(f"d{k}/deploy.sh", "#!/bin/bash\n" + "# padding line of a long comment\n" * pad +
                      'sed "s#{TP}#banana#g" t.yaml | kubectl apply -f -\n')


def test_the_byte_bound_is_per_template_not_per_process(scratch_git):
    """P6: four directories, each a template and a 200 KB script: ``--jobs 1`` gave SGL005 on d1, d2 and PD015 on
    d3, d4 (the process's 512 KB were spent); ``--jobs 2`` SGL005 on all four.  Now each template has its own bound:
    SGL005 on all four with either, and on d3 when the hook names only d3/deploy.sh."""
    import subprocess
    _four_dirs(scratch_git, 6000)  # (6,000 lines of 33 bytes: 198 KB a script)
    subprocess.run(["git", "add", "-A"], check=True)
    results = []
    for jobs in ("1", "2"):
        code, doc = scratch_git.lint("-j", jobs, ".")
        results.append((code, _codes(doc)))
    assert results[0] == results[1] == (1, [("SGL005", f"d{k}/deploy.sh") for k in range(1, 5)])
    code, doc = scratch_git.lint("d3/deploy.sh")
    assert (code, _codes(doc)) == (1, [("SGL005", "d3/deploy.sh")])


def test_one_templates_scripts_over_the_byte_bound_still_leave_it_undecided(scratch):
    """Neighbour: three 198 KB scripts that name one template pass its 512 KB: the third (by name) is not read,
    the placeholders stay undecided with the PD015 note - with --jobs 1 and --jobs 2 alike."""
    scratch.write("t.yaml", TEMPLATE)
    for n in ("a", "b", "c"):
        scratch.write(f"{n}.sh", "#!/bin/bash\n" + "# padding line of a long comment\n" * 6000 +
                      'sed "s#{TP}#2#g" t.yaml | kubectl apply -f -\n')
    for jobs in ("1", "2"):
        code, doc = scratch.lint("-j", jobs, ".")
        assert _codes(doc) == [("PD015", "t.yaml")] and code == 0
        assert _undecided(doc) == [("--tp-size", "{TP}")]
        assert "1 script beside this template" in doc["findings"][0]["message"]
