"""rw35/b P4: PD014 after an unquoted here-document.

What was wrong: a script that writes a generated script with an unquoted here-document (``cat > entry.sh <<EOF ...
source /host/file.sh ... exec python3 -m sglang.launch_server --port $PPORT --tp $PTP ... EOF``) has the OUTER
shell substitute ``$PPORT``/``$PTP`` when it writes the file (they came from an earlier ``eval "$(...)"``).  PD014
said the sourced host file "is not in the repository; the launches after it read $PPORT, $PTP, which no file
pdlint read sets ... keep the file in the repository", blaming a file that runs later and cannot set them
(field: ZhengWG/sglang scripts/ci/slurm/launch_mi355x.sh:469,484, 21 variables of ``eval "$RECIPE_VARS"``).
Now PD014 lists only the variables the generated script still reads at run time (an escaped ``\\$X`` in the
unquoted here-document, or a quoted here-document's ``$X``) and says nothing when none are left; the undecided
note still names the values pdlint cannot see.
"""

EVAL_HEAD = """\
#!/bin/bash
set -euo pipefail
RECIPE_VARS="$(python3 - "$CONFIG_FILE" <<'PY'
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
print(f"PTP={r['tp']}")
print(f"PPORT={r['port']}")
PY
)"
eval "$RECIPE_VARS"
WORKDIR=/tmp/work
"""


def _pd014(doc) -> list:
    return [f for f in doc["findings"] if f["code"] == "PD014"]


def test_values_the_outer_script_expands_are_not_blamed_on_the_sourced_file(scratch_git):
    """The repro of P4: $PPORT and $PTP are written by the outer script; the `source` cannot set them."""
    scratch_git.write("launch.sh", EVAL_HEAD + """\
cat > "$WORKDIR/prefill_entry.sh" <<EOF2
#!/bin/bash
source /host_home/ci/model_flags.sh
exec python3 -m sglang.launch_server \\
  --model-path /models/m --port $PPORT --tp $PTP \\
  --disaggregation-mode prefill
EOF2
""")
    code, doc = scratch_git.lint("launch.sh")
    assert _pd014(doc) == []
    # (still not a clean pass on values pdlint cannot see: the launch's undecided values are said)
    assert "prefill" in {l["role"] for l in doc["launches"]}
    undecided = doc["coverage"]["files"]["launch.sh"]["undecided"]
    assert {u["name"] for u in undecided} == {"PPORT", "PTP"}


def test_an_escaped_reference_in_an_unquoted_heredoc_is_still_the_sourced_files(scratch_git):
    """Neighbour: `\\$IBDEV` is read by the generated script when it runs, after the host file it sources; only
    that one is listed, not the outer script's $PPORT/$PTP."""
    scratch_git.write("launch.sh", EVAL_HEAD + """\
cat > "$WORKDIR/prefill_entry.sh" <<EOF2
#!/bin/bash
source /host_home/ci/model_flags.sh
exec python3 -m sglang.launch_server \\
  --model-path /models/m --port $PPORT --tp $PTP \\
  --disaggregation-mode prefill --disaggregation-ib-device \\$IBDEV
EOF2
""")
    code, doc = scratch_git.lint("launch.sh")
    (f,) = _pd014(doc)
    assert f["line"] == 14
    assert "the launches after it read $IBDEV, which no file pdlint read sets" in f["message"]
    assert "$PPORT" not in f["message"] and "$PTP" not in f["message"]


def test_a_quoted_heredoc_reads_its_variables_at_run_time(scratch_git):
    """Neighbour: a quoted here-document is written as is; its `$PPORT` is the generated script's, read after the
    host file it sources: PD014 as before."""
    scratch_git.write("launch.sh", EVAL_HEAD + """\
cat > "$WORKDIR/prefill_entry.sh" <<'EOF2'
#!/bin/bash
source /host_home/ci/model_flags.sh
exec python3 -m sglang.launch_server \\
  --model-path /models/m --port $PPORT --tp $PTP \\
  --disaggregation-mode prefill
EOF2
""")
    code, doc = scratch_git.lint("launch.sh")
    (f,) = _pd014(doc)
    assert "sourced file /host_home/ci/model_flags.sh is not in the repository (a file of the deploy host)" \
        in f["message"]
    assert "read $PPORT, $PTP, which no file pdlint read sets" in f["message"]


def test_a_variable_set_in_the_generated_script_from_an_outer_value(scratch_git):
    """Neighbour: `P=$PPORT` in the generated script, the outer script's value written there, then `--port $P`:
    still the outer script's, not the sourced file's."""
    scratch_git.write("launch.sh", EVAL_HEAD + """\
cat > "$WORKDIR/prefill_entry.sh" <<EOF2
#!/bin/bash
source /host_home/ci/model_flags.sh
P=$PPORT
exec python3 -m sglang.launch_server \\
  --model-path /models/m --port \\$P --tp 2 \\
  --disaggregation-mode prefill
EOF2
""")
    code, doc = scratch_git.lint("launch.sh")
    assert _pd014(doc) == []


def test_a_plain_script_sourcing_a_host_file_is_still_reported(scratch_git):
    """Neighbour: no here-document, the launch reads $PPORT after the host file: PD014 as before."""
    scratch_git.write("launch.sh", "#!/bin/bash\nsource /host_home/ci/model_flags.sh\n"
                                   "python3 -m sglang.launch_server --model-path /models/m --port $PPORT "
                                   "--disaggregation-mode prefill\n")
    code, doc = scratch_git.lint("launch.sh")
    (f,) = _pd014(doc)
    assert "read $PPORT, which no file pdlint read sets" in f["message"]
