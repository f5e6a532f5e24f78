"""`sh -c` strings built around values pdlint does not know (SemiAnalysisAI/InferenceX's amd_utils/job.slurm:
`srun bash -c "if [ -d '$path' ]; ..."` with `path` from `$(awk '...' "$F")`), and the same parse error
reached from several paths or scripts."""

SCRIPT = """#!/bin/bash
DIR=$(awk '/^'"$MODEL_NAME"':/{found=1; next} found && /hf_dir:/{print $2; exit}' "$MODELS_YAML")
check() {
  srun /bin/bash -c "
    if [ -d '$1' ]; then
      python3 -m sglang.launch_server --model-path '$1' --disaggregation-mode prefill --enable-linear-replayssm-spec
    fi
  "
}
check "/nfsdata/$DIR"
check "/it-share/$DIR"
"""


def test_an_unknown_value_inside_a_quoted_sh_c_string_is_one_value(scratch_git):
    scratch_git.write("job.slurm", SCRIPT)
    code, report = scratch_git.lint("job.slurm")
    codes = [f["code"] for f in report["findings"]]
    assert "PD009" not in codes  # the placeholder's own quotes are no syntax of the inner script
    assert "SGL101" in codes and code == 1


def test_a_parse_error_is_reported_once_per_place(scratch_git):
    scratch_git.write("lib.sh", 'f() { echo "${a[@]+"}; }\n')  # a syntax error tree-sitter-bash reports
    for name in ("a.sh", "b.sh"):
        scratch_git.write(name, "#!/bin/bash\nsource lib.sh\npython3 -m sglang.launch_server --model-path m\n")
    _, report = scratch_git.lint("a.sh", "b.sh", "lib.sh")
    places = [(f["path"], f["line"], f["column"]) for f in report["findings"] if f["code"] == "PD009"]
    assert places and len(places) == len(set(places))
