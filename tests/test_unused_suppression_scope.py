"""PD070 (unused suppression) only in files the run judged.

Field test rw19/c: `pdlint check --strict pd.sh.j2` (a commit that staged only a template) reported `a.yaml:9 PD070
unused suppression of SGL101` in a manifest beside it that was neither named nor checked - read only to see
whether it is a playbook that renders the template - and failed the commit; checking `a.yaml` uses the
suppression."""

MANIFEST = """\
    x-args: &args
      - --model-path
      - m
      - --enable-linear-replayssm-spec   # pdlint: ignore[SGL101] the operator strips it on prefill
    items:
      - apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
            - name: prefill
              image: lmsysorg/sglang:v0.5.23
              command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
              args: *args
    apiVersion: v1
    kind: List
    """


def _codes(report):
    return [(f["path"], f["code"]) for f in report["findings"]]


def test_a_file_read_only_beside_a_named_template_gets_no_pd070(scratch_git):
    scratch_git.write("a.yaml", MANIFEST)
    scratch_git.write("pd.sh.j2", "#!/bin/bash\necho {{ role }}\n")
    _, report = scratch_git.lint("--strict", "pd.sh.j2")
    assert ("a.yaml", "PD070") not in _codes(report)
    code, report = scratch_git.lint("--strict", "a.yaml")  # checked: its suppression is used
    assert report["findings"] == [] and code == 0


def test_an_unused_suppression_in_a_file_a_launch_reads_is_reported(scratch_git):
    # the shell script sources lib.sh; lib.sh's directive names a code no finding there has
    scratch_git.write("lib.sh", "ARGS='--model-path m --tp-size 2'  # pdlint: ignore[SGL101]\n")
    scratch_git.write("run.sh", "#!/bin/bash\nsource lib.sh\npython3 -m sglang.launch_server $ARGS "
                                "--disaggregation-mode prefill\n")
    _, report = scratch_git.lint("run.sh")
    assert ("lib.sh", "PD070") in _codes(report)
