"""A limit the shell evaluator hits after every launch of a script, with no launch text from there on, cost
no launch (SemiAnalysisAI/InferenceX: 327 PD008 errors from its benchmark client's option parser and
helper functions, all after the servers started)."""

# (read by `read`, whose effect pdlint does not follow: paths that differ only in what no launch reads are
# joined before the limit, see test_shell_widen.py)
EXPLODE = "".join(f'if [ -n "$U{i}" ]; then A{i}=1; fi\n' for i in range(6)) + 'read -r ALL <<< "$A0$A1$A2$A3$A4$A5"\n'
LAUNCH = "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill &\n"


def _pd015(report):
    return [f["line"] for f in report["findings"] if f["code"] == "PD015"]


def test_an_explosion_after_the_last_launch_is_not_reported(scratch_git):
    scratch_git.write("bench.sh", "#!/bin/bash\n" + LAUNCH + EXPLODE + "python3 client.py --port 30000\n")
    code, report = scratch_git.lint("bench.sh")
    assert _pd015(report) == [] and len(report["launches"]) == 1 and code == 0


def test_an_explosion_before_a_launch_is_reported(scratch_git):
    scratch_git.write("bench.sh", "#!/bin/bash\n" + EXPLODE + LAUNCH)
    code, report = scratch_git.lint("bench.sh")
    assert _pd015(report) and code == 0


def test_launch_text_after_the_explosion_keeps_it_reported(scratch_git):
    scratch_git.write("bench.sh", "#!/bin/bash\n" + LAUNCH + EXPLODE +
                      "python3 -m sglang.launch_server --model-path m --disaggregation-mode decode &\n")
    code, report = scratch_git.lint("bench.sh")
    assert _pd015(report)


def test_a_launch_function_called_after_the_explosion_keeps_it_reported(scratch_git):
    # the second call launches what the branches decide (--port $A0): paths cut there may differ
    launch = LAUNCH.replace(" &", " --port 3000$A0 &")
    scratch_git.write("bench.sh", "#!/bin/bash\nstart() {\n  " + launch + "}\nstart\n" + EXPLODE + "start\n")
    code, report = scratch_git.lint("bench.sh")
    assert _pd015(report)  # (and PD150: the two calls are two prefills on one host, one bootstrap port)


def test_the_same_launch_again_after_the_explosion_cost_nothing(scratch_git):
    scratch_git.write("bench.sh", "#!/bin/bash\nstart() {\n  " + LAUNCH + "}\nstart\n" + EXPLODE + "start\n")
    code, report = scratch_git.lint("bench.sh")
    assert _pd015(report) == [] and code == 0


# a limit that stops the whole evaluation (expansion size): what follows was not evaluated at all
DOUBLING = 'X=ab\nfor i in $(seq 1 30); do X="$X$X"; done\n'


def _pd015_findings(report):
    return [(f["line"], f["severity"]) for f in report["findings"] if f["code"] == "PD015"]


def test_an_evaluation_stopped_before_a_launch_says_so(scratch_git):
    """One line of a pull request stops the evaluation before the launch (field test rw20/h): the finding says the
    launches after it were not evaluated, and the launch text is PD020; warnings, which `--strict` fails on
    (legitimate scripts reach the limit too: InferenceX's speedbench wait loops)."""
    scratch_git.write("run.sh", "#!/bin/bash\n" + DOUBLING + LAUNCH.replace(" &", " --no-such-flag &"))
    code, report = scratch_git.lint("run.sh")
    assert _pd015_findings(report) == [(3, "warning")] and code == 0
    (f,) = [f for f in report["findings"] if f["code"] == "PD015"]
    assert "evaluation stopped; the launches after it were not evaluated" in f["message"]
    assert "PD020" in {f["code"] for f in report["findings"]}
    code, report = scratch_git.lint("--strict", "run.sh")
    assert code == 1


def test_a_limit_that_only_cuts_paths_does_not_say_the_evaluation_stopped(scratch_git):
    scratch_git.write("bench.sh", "#!/bin/bash\n" + EXPLODE + LAUNCH)
    code, report = scratch_git.lint("bench.sh")
    assert [s for _, s in _pd015_findings(report)] == ["warning"] and code == 0
    assert not any("not evaluated" in m for m in _messages(report))


def test_an_evaluation_stopped_after_the_last_launch_is_not_reported(scratch_git):
    scratch_git.write("run.sh", "#!/bin/bash\n" + LAUNCH + DOUBLING + "python3 client.py --port 30000\n")
    code, report = scratch_git.lint("run.sh")
    assert _pd015_findings(report) == [] and len(report["launches"]) == 1 and code == 0


def _messages(report):
    return [f["message"] for f in report["findings"] if f["code"] == "PD015"]


def test_an_evaluation_stopped_before_flags_a_checker_greps_for_says_no_launch_was_lost(scratch_git):
    # no server's entry point after the stop, only engine flags a verification script searches for
    # (littlemex/disaggregated-inference-with-nixl-over-aws-efa's verify-s3-deployment.sh)
    scratch_git.write("verify.sh", "#!/bin/bash\n" + DOUBLING +
                      "grep -q '\"kv_role\":\"kv_producer\"' prefill.json && echo ok --kv-transfer-config\n")
    code, report = scratch_git.lint("verify.sh")
    assert not any("launches after it" in m for m in _messages(report)) and code == 0


def test_an_evaluation_stopped_before_a_sourced_launcher_says_so(scratch_git):
    scratch_git.write("lib.sh", "start() {\n  " + LAUNCH + "}\n")
    scratch_git.write("run.sh", "#!/bin/bash\nsource ./lib.sh\n" + DOUBLING + "start\n")
    code, report = scratch_git.lint("run.sh")
    assert [m.endswith("the launches after it were not evaluated") for m in _messages(report)] == [True]


# rw26/h item 1: launches the shell builds from pieces hold no launch text (`E=sgl; E=${E}ang`, `python3 -m
# $E.launch_server`); an evaluation stopped altogether before them was not reported: "No launch text found", exit 0
# with --strict.  What it did not reach names an engine: the stop is reported.
PIECES = ('E=sgl\nE=${E}ang\nD="--disagg"\nD="${D}regation-mode"\n'
          "python3 -m $E.launch_server --model-path m $D prefill --enable-linear-replayssm-spec &\n")
DOUBLING = "X=ab\nfor i in $(seq 30); do X=$X$X; done\n"


def test_a_stop_before_launches_built_from_pieces_is_reported(scratch_git):
    scratch_git.write("run.sh", "#!/bin/bash\n" + DOUBLING + PIECES)
    code, report = scratch_git.lint("--strict", "run.sh")
    (f,) = [f for f in report["findings"] if f["code"] == "PD015"]
    assert f["line"] == 3 and "holds launch words" in f["message"] and code == 1
    scratch_git.write("run.sh", "#!/bin/bash\n" + PIECES)  # (the control: built and checked)
    assert [f["code"] for f in scratch_git.lint("run.sh")[1]["findings"]] == ["SGL101"]


def test_a_stop_before_text_that_names_no_engine_stays_quiet(scratch_git):
    scratch_git.write("run.sh", "#!/bin/bash\n" + PIECES.replace("&\n", "&\nwait\n") + DOUBLING +
                      'echo "$X" | head -c 10\n')
    code, report = scratch_git.lint("--strict", "run.sh")
    assert _pd015(report) == [] and code == 1  # (1: the launch's own SGL101)


def test_an_unquoted_here_document_is_judged_as_the_command_reads_it(scratch_git):
    # rw26/h item 4, third trigger: the pieces written into a here-document a script runs (`cat > p.sh <<EOS`,
    # `bash p.sh`): its text as written holds no launcher, its expanded text does
    body = ('E=sgl\nE=${E}ang\nD="--disagg"\nD="${D}regation-mode"\ncat > /tmp/p.sh <<EOS\n'
            "python3 -m $E.launch_server --model-path m $D prefill --enable-linear-replayssm-spec\nEOS\n"
            "bash /tmp/p.sh &\n")
    scratch_git.write("run.sh", "#!/bin/bash\n" + body)
    code, report = scratch_git.lint("--strict", "run.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1
    scratch_git.write("run.sh", "#!/bin/bash\n" + body.replace("<<EOS", "<<'EOS'"))  # quoted: written as is
    code, report = scratch_git.lint("run.sh")
    assert "SGL101" not in [f["code"] for f in report["findings"]]


def test_a_stop_before_an_engine_name_in_a_path_stays_quiet(scratch_git):
    # field compare (littlemex/disaggregated-inference-with-nixl-over-aws-efa run_experiment.sh): `vllm` in a log
    # file's name after the stop is no launch
    scratch_git.write("run.sh", "#!/bin/bash\n" + DOUBLING + "rm -f /tmp/vllm_*.log /tmp/sglang_*.pid\n")
    code, report = scratch_git.lint("--strict", "run.sh")
    assert _pd015(report) == [] and code == 0
