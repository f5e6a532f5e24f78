"""Hostile-input round rw35/i P2: a loop counter that reaches a launch only through a variable the launched server
reads from its environment (``export CUDA_VISIBLE_DEVICES=$i``).

What was wrong: ``joins.Joins.launch_relevant`` decided whether a variable's value can reach a launch only from the
script's ``$NAME`` reads.  ``CUDA_VISIBLE_DEVICES`` is read by the server, never by the script, so it did not count,
and neither did the counter ``i`` that feeds it: ``widen_loop`` made ``i`` a placeholder after the first iteration.
The prefill of ``i=0; while [ $i -lt 2 ]; do i=$((i+1)); export CUDA_VISIBLE_DEVICES=$i; done`` got GPU 1 instead
of 2 (a false PD151 against a decode on GPU 1); ``export CUDA_VISIBLE_DEVICES=$i`` after the loop gave a value
pdlint could not see and a clean pass where bash puts both launches on GPU 2 (a missed PD151); and a counted loop of
300 cut at 256 gave no PD015, since ``iteration_reaches_launch`` asks the same question.

Now a variable a check reads from a launch's environment (``ShellContext.env_checked``) always reaches a launch, so
the counter that feeds it is kept.  A counter that feeds only a variable no check reads is still widened (no PD015,
no 256 iterations run).
"""

PREFILL = "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 &\n"
DECODE = "python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 &\n"


def _findings(report):
    return sorted((f["code"], f["line"]) for f in report["findings"])


def test_a_counter_exported_in_the_loop_gives_the_prefill_its_last_value(scratch):
    """repro/2/launch_b.sh: bash gives the prefill GPU 2, the decode GPU 1 - no overlap (was a false PD151)."""
    scratch.write("launch.sh", "#!/bin/bash\ni=0\n"
                  "while [ $i -lt 2 ]; do i=$((i+1)); export CUDA_VISIBLE_DEVICES=$i; done\n"
                  + PREFILL + "export CUDA_VISIBLE_DEVICES=1\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert _findings(report) == [] and code == 0


def test_a_counter_modulo_over_four_iterations_gives_the_prefill_its_last_value(scratch):
    """t/l/m4.sh: `% 2` over 4 iterations ends at 0; the decode on GPU 1 does not overlap."""
    scratch.write("launch.sh", "#!/bin/bash\ni=0\n"
                  "while [ $i -lt 4 ]; do i=$((i+1)); export CUDA_VISIBLE_DEVICES=$((i % 2)); done\n"
                  + PREFILL + "export CUDA_VISIBLE_DEVICES=1\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert _findings(report) == [] and code == 0


def test_a_counter_exported_after_the_loop_is_its_final_value(scratch):
    """repro/2/launch.sh: bash puts both launches on GPU 2 (was a clean pass with CUDA_VISIBLE_DEVICES opaque)."""
    scratch.write("launch.sh", "#!/bin/bash\ni=0\nwhile [ $i -lt 2 ]; do i=$((i+1)); done\n"
                  "export CUDA_VISIBLE_DEVICES=$i\n" + PREFILL + "export CUDA_VISIBLE_DEVICES=2\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert _findings(report) == [("PD151", 6)] and code == 1


def test_the_same_counter_on_other_gpus_stays_quiet(scratch):
    scratch.write("launch.sh", "#!/bin/bash\ni=0\nwhile [ $i -lt 2 ]; do i=$((i+1)); done\n"
                  "export CUDA_VISIBLE_DEVICES=$i\n" + PREFILL + "export CUDA_VISIBLE_DEVICES=0\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert _findings(report) == [] and code == 0


def test_a_counted_loop_cut_at_the_limit_that_sets_the_gpus_is_reported(scratch):
    """repro/2/launch_c.sh: 300 iterations, cut at 256 - what the rest would set is not what pdlint saw (was no
    PD015 and a clean pass)."""
    scratch.write("launch.sh", "#!/bin/bash\n"
                  "for ((i = 0; i < 300; i++)); do export CUDA_VISIBLE_DEVICES=$((i % 4)); done\n"
                  + PREFILL + "export CUDA_VISIBLE_DEVICES=3\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert ("PD015", 2) in _findings(report)


def test_a_counter_that_feeds_only_a_variable_no_check_reads_is_still_widened(scratch):
    """The neighbour: `export MY_STEP=...` is read by nothing pdlint checks, so the loop is not run out (no
    PD015) and the launches are checked."""
    scratch.write("launch.sh", "#!/bin/bash\n"
                  "for ((i = 0; i < 300; i++)); do export MY_STEP=$((i % 4)); done\n"
                  "export CUDA_VISIBLE_DEVICES=0\n" + PREFILL + "export CUDA_VISIBLE_DEVICES=1\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert _findings(report) == [] and code == 0


def test_a_wait_loop_beside_an_exported_gpu_list_is_still_widened(scratch):
    """The neighbour: a health wait's counter reaches no launch, even with CUDA_VISIBLE_DEVICES exported before it."""
    scratch.write("launch.sh", "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0\n" + PREFILL
                  + "waited=0\nwhile [ $waited -lt 600 ]; do sleep 1; waited=$((waited + 1)); done\n"
                  "export CUDA_VISIBLE_DEVICES=1\n" + DECODE)
    code, report = scratch.lint("launch.sh")
    assert _findings(report) == [] and code == 0
