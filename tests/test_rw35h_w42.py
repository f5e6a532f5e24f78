"""rw35/h P5: GitLab variable expansion cost.

What was wrong: ``yaml_shell.expanded_env`` expanded (and copied) every variable of every job environment, read or
not, and ``Expansions.of`` kept a key of every variable per job: 3,200 plain globals x 1,000 jobs took 512 MB
(PD008, nothing checked), 200 chained globals x 2,000 jobs that set the chain's end took 26 s.  Now the variables a
job's script reads are expanded first, the others only while a small budget lasts (else as values pdlint did not
expand, NOT_EXPANDED_BUDGET), and a job of more than MAX_JOB_VARIABLES variables hands on only those its script may
read.
"""
import time

from pdlint.formats import yaml_shell
from pdlint.formats import yamltree as yt
from pdlint.text import NOT_EXPANDED_BUDGET, SourceFile, TStr


def _scripts(text: str) -> list:
    doc = TStr.from_source(SourceFile(".gitlab-ci.yml", text))
    return [s for s in yaml_shell.scripts(doc, yt.compose(doc.text), set()) if s.path[0] != ".t"]  # (jobs only)


def _plain_globals(nv: int, nj: int, script: str = "python -m sglang.launch_server --model-path m --tp $V0") -> str:
    lines = ["variables:"] + [f"  V{i}: x{i}" for i in range(nv)]
    lines.append(f".t: &t\n  script: [{script}]")
    lines += [f"j{j}: {{<<: *t, variables: {{W: {j}}}}}" for j in range(nj)]
    return "\n".join(lines) + "\n"


def test_many_plain_globals_are_not_copied_into_every_job():
    out = _scripts(_plain_globals(600, 200))
    assert len(out) == 200
    # the script reads V0 (and nothing runs another file): the other 599 globals are not handed to each job
    assert all(set(s.env) == {"V0"} for s in out)
    assert all(s.env["V0"].text == "x0" for s in out)


def test_few_globals_or_a_script_that_runs_a_file_keep_them_all():
    out = _scripts(_plain_globals(20, 3))
    assert all(len(s.env) == 21 for s in out)  # (20 globals and W: under MAX_JOB_VARIABLES, all of them)
    out = _scripts(_plain_globals(600, 3, "bash serve.sh"))
    assert all(len(s.env) == 601 for s in out)  # (serve.sh may read any of them)


def test_chained_globals_read_by_the_jobs_are_expanded_fast():
    nv, nj = 60, 400
    lines = ["variables:"] + [f"  V{i}: $V{i + 1}" for i in range(nv)] + [f"  V{nv}: x"]
    lines.append(".t: &t\n  script: [python -m sglang.launch_server --model-path m --tp $V0]")
    lines += [f"j{j}: {{<<: *t, variables: {{V{nv}: {j}}}}}" for j in range(nj)]
    t = time.process_time()
    out = _scripts("\n".join(lines) + "\n")
    spent = time.process_time() - t
    assert len(out) == nj
    # each job's $V0 (what its script reads) is its own V60, or said undecided - never a wrong value
    for j, s in enumerate(out):
        v = s.env["V0"]
        assert v.text == str(j) or any(p.opaque == NOT_EXPANDED_BUDGET for p in v.pieces), (j, v.text)
    assert sum(s.env["V0"].text == str(j) for j, s in enumerate(out)) >= 300
    assert spent < 6, spent


def test_a_job_variable_reaching_a_global_still_expands():
    text = ("variables:\n  TP: '2'\n  ARGS: --tp-size $TP\n"
            "j1:\n  variables: {TP: '4'}\n  script: [python -m sglang.launch_server --model-path m $ARGS]\n"
            "j2:\n  script: [python -m sglang.launch_server --model-path m $ARGS]\n")
    out = _scripts(text)
    assert [s.env["ARGS"].text for s in out] == ["--tp-size 4", "--tp-size 2"]
