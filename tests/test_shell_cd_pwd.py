"""`ROOT="$(cd "$SCRIPT_DIR/../../.." && pwd)"; source "$ROOT/benchmarks/benchmark_lib.sh"` (SemiAnalysisAI/
InferenceX's agentic scripts): `cd DIR && pwd` inside $(...) prints the directory as the script names it,
so the sourced library is found relative to the script (it had been PD014 "outside the repository")."""

import pytest



def test_a_library_sourced_from_the_repository_root_is_read(scratch_git):
    scratch_git.write("benchmarks/benchmark_lib.sh", "EXTRA=(--enable-linear-replayssm-spec)\n")
    scratch_git.write("benchmarks/single_node/agentic/run.sh",
                      '#!/bin/bash\nSCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                      'ROOT="$(cd "$SCRIPT_DIR/../../.." && pwd)"\nsource "$ROOT/benchmarks/benchmark_lib.sh"\n'
                      'python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill "${EXTRA[@]}"\n')
    code, report = scratch_git.lint("benchmarks/single_node/agentic/run.sh")
    (f,) = report["findings"]
    assert (f["code"], f["path"], f["line"]) == ("SGL101", "benchmarks/benchmark_lib.sh", 1) and code == 1


@pytest.mark.parametrize("script,text", [
    ("R=$(cd /opt/app && pwd)\nrun $R\n", "/opt/app"),
    ("cd /a\nR=$(cd b && pwd)\nrun $R\n", "/a/b"),
    ('R=$(cd "$(dirname "$0")" && cd .. && pwd)\nrun $R/y\n', '$(dirname "$0")/../y'),
])
def test_cd_then_pwd_prints_the_directory(shell_eval, script, text):
    assert shell_eval(script)[0][-1].words[-1].text == text


@pytest.mark.parametrize("script", [
    "R=$(cd rel && pwd)\nrun $R\n",  # relative to a directory pdlint does not know
    "R=$(pwd)\nrun $R\n",
    "R=$(cd - && pwd)\nrun $R\n",
    "R=$(cd && pwd)\nrun $R\n",
])
def test_an_unknown_directory_stays_unknown(shell_eval, script):
    assert shell_eval(script)[0][-1].words[-1].opaque
