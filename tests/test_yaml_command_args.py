"""A YAML mapping with a `command:` list and an `args:` list but no `image:` (a values file's role section, an anchor
merged into containers) is one command line, the args after the command, as a container runs them.  Hostile-input
round rw27/h P18: `command` was read alone, a launch without its `--model-path` (false SGL010), PD105 and PD020."""

VALUES = """\
prefill:
  command:
  - python3
  - -m
  - sglang.launch_server
  args:
  - --model-path
  - /m
  - --disaggregation-mode
  - prefill
"""


def test_command_and_args_make_one_launch(scratch):
    scratch.write("values-pd.yaml", VALUES)
    code, report = scratch.lint("values-pd.yaml")
    assert (code, report["findings"]) == (0, [])
    assert [(l["role"], l["argv"]) for l in report["launches"]] == [
        ("prefill", ["--model-path", "/m", "--disaggregation-mode", "prefill"])]


def test_the_args_are_still_checked(scratch):
    scratch.write("values-pd.yaml", VALUES + "  - --tp-size\n  - x\n")
    _, report = scratch.lint("values-pd.yaml")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL005", 12)]
