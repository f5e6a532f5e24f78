"""PD005 once per undefined variable and template, at its first use, naming the other lines.

Field test: ai-dynamo/aiconfigurator renders its templates from generator objects (``BenchConfig.*``,
``sglang.*``): pdlint gave one error per use, 69 errors for 15 names, all with the same fix (give the variable
a value)."""

TEMPLATE = """\
    #!/bin/bash
    python3 -m sglang.launch_server --model-path {{ cfg.model }} \\
      --disaggregation-mode {{ role }} \\
      --tp-size {{ cfg.tp }} \\
      --port {{ port }} \\
      --page-size {{ cfg.page_size }}
    """


def test_one_finding_per_undefined_name(scratch_git):
    scratch_git.write("run.sh.j2", TEMPLATE)
    code, report = scratch_git.lint("run.sh.j2")
    got = sorted((f["line"], f["message"]) for f in report["findings"] if f["code"] == "PD005")
    assert got == [(2, "undefined variable 'cfg' (also used on lines 4, 6)"),
                   (5, "undefined variable 'port'")]
    assert code == 1


def test_a_suppression_at_the_first_use_covers_the_name(scratch_git):
    scratch_git.write("run.sh.j2", "{# pdlint: ignore[PD005] generator object #}\n" + TEMPLATE.replace(
        "{{ port }}", "30000"))
    _, report = scratch_git.lint("run.sh.j2")
    assert [f["code"] for f in report["findings"] if f["code"] == "PD005"] == []
