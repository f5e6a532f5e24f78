"""Scripts a script writes or runs from a here-document (sgl-project/sglang's scripts/ci/slurm/launch_mi355x.sh
writes prefill_entry.sh / decode_entry.sh with `cat > "$WORKDIR/..." <<EOF`): evaluated as scripts of their
own, from the text the outer script writes, each token traced to where it is written."""

import pytest


WRITER = '''#!/usr/bin/env bash
set -euo pipefail
WORKDIR="$HOME/ci/${CONFIG_NAME}"
PORT=30025
COMMON="--trust-remote-code --tp 8 \\
--enable-linear-replayssm-spec"
cat > "$WORKDIR/prefill_entry.sh" <<EOF
#!/bin/bash
exec python3 -m sglang.launch_server \\
  --model-path /models/m --port $PORT \\
  $COMMON "\\${EXTRA_ARGS[@]}" \\
  --disaggregation-mode prefill
EOF
cat > "$WORKDIR/decode_entry.sh" <<EOF
#!/bin/bash
exec python3 -m sglang.launch_server \\
  --model-path /models/m --port 30026 \\
  $COMMON \\
  --disaggregation-mode decode
EOF
srun bash "$WORKDIR/prefill_entry.sh" &
'''


def test_generated_entry_scripts_are_checked_at_the_writers_lines(scratch_git):
    scratch_git.write("launch.sh", WRITER)
    code, report = scratch_git.lint("launch.sh")
    roles = sorted(l["role"] for l in report["launches"])
    assert roles == ["decode", "prefill"]
    prefill = next(l for l in report["launches"] if l["role"] == "prefill")
    i = prefill["argv"].index("--port")
    assert prefill["argv"][i + 1] == "30025" and prefill["origins"][i + 1]["line"] == 4  # PORT=30025
    (seed,) = [f for f in report["findings"] if f["code"] == "SGL101"]
    assert (seed["path"], seed["line"], seed["role"]) == ("launch.sh", 6, "prefill")  # the shared variable
    # the generated script's own runtime array: a value pdlint cannot see, at the here-document line
    gaps = [(f["code"], f["line"]) for f in report["findings"] if f["code"].startswith("PD02")]
    assert gaps == [("PD023", 11)]
    assert report["coverage"]["files"]["launch.sh"]["status"] == "partial"
    assert code == 1


@pytest.mark.parametrize("head,body_first", [
    ("bash <<EOF", ""),
    ("ssh node1 <<EOF", ""),
    ("cat <<EOF > run_prefill.sh", ""),
    ("cat > run.txt <<EOF", "#!/bin/sh\n"),
    # env's options before the shell (the #! pattern script files are read with; `-S` was taken for the program)
    ("cat > run.sh <<EOF", "#!/usr/bin/env -S bash -e\n"),
    ("cat > run.txt <<EOF", "#! /usr/bin/env -S -i bash\n"),
])
def test_what_makes_a_here_document_a_script(scratch_git, head, body_first):
    scratch_git.write("go.sh", f"F=--enable-linear-replayssm-spec\n{head}\n{body_first}"
                               "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill $F\nEOF\n")
    code, report = scratch_git.lint("go.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL101"] and code == 1


@pytest.mark.parametrize("head,body_first", [
    ("python3 - <<EOF", ""),  # a Python program
    ("cat > run.py <<EOF", ""),
    ("cat > run.sh <<EOF", "#!/usr/bin/env python3\n"),  # the #! line decides
    ("cat > run.sh <<EOF", "#!/usr/bin/env -S python3 -u\n"),
    ("cat > run.sh <<EOF", "#!/bin/shellcheck-wrapper\n"),
])
def test_other_here_documents_stay_not_checked(scratch_git, head, body_first):
    scratch_git.write("go.sh", f"{head}\n{body_first}"
                               "python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill\nEOF\n")
    code, report = scratch_git.lint("go.sh")
    assert report["launches"] == []
    assert [f["code"] for f in report["findings"]] == ["PD020"]


def test_a_quoted_here_document_script_resolves_its_own_variables(scratch_git):
    scratch_git.write("go.sh", "MODE=decode\ncat > entry.sh <<'EOF'\n#!/bin/bash\nMODE=prefill\n"
                               "python3 -m sglang.launch_server --model-path m --disaggregation-mode $MODE\nEOF\n")
    _, report = scratch_git.lint("go.sh")
    assert [l["role"] for l in report["launches"]] == ["prefill"]  # the written script's MODE, not the writer's


def test_expansions_after_a_continued_line_of_a_here_document_are_expanded(shell_eval):
    # tree-sitter-bash finds no expansion in a body after a line ending in `\`
    _, ctx = shell_eval('F=x\nG=y\ncat > a.sh <<EOF\nrun \\\n  --a $G \\\n  $F ${F} $(echo z) "\\${M[@]}" \\$G\nEOF\n', heredoc_filter=lambda t: True)
    (hd,) = ctx.heredocs
    assert hd.text.text == 'run   --a y   x x z "${M[@]}" $G\n'
