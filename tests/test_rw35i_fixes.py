"""Hostile-input round rw35/i (on 63328d3): the problems fixed outside the helper branches.

P3: a justfile `=~ "a{4294967296}"` - Python's `re` raises OverflowError (not re.error) for a repetition count of
2**32 or more: PD013 "pdlint failed on this file", neither launch checked.
P6: a GitLab job of more than 256 variables hands its script only those it reads (MAX_JOB_VARIABLES); a script
reading one through `${!R}` (a name made at run time) lost it: "--tp-size ${!R} ... write the value into the
file" although the file sets it (`PREFILL_TP: "two"`, which SGLang refuses).
"""


def test_a_justfile_repetition_count_python_cannot_compile_is_a_value_not_known(scratch):
    scratch.write("justfile", 'tp := if "a" =~ "a{4294967296}" { "1" } else { "2" }\n\nprefill:\n'
                  "    python -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp-size {{tp}}\n")
    code, report = scratch.lint("justfile")
    assert report["findings"] == [] and code == 0
    assert [u["text"] for u in report["coverage"]["files"]["justfile"]["undecided"]] == ["{{tp}}"]


def test_a_job_reading_a_variable_by_indirection_gets_every_variable(scratch):
    lines = ["variables:"] + [f'  V{i}: "v{i}"' for i in range(300)] + ['  PREFILL_TP: "two"', "prefill:", "  script:",
             '    - R=PREFILL; R="${R}_TP"',
             '    - python -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp-size "${!R}"']
    scratch.write(".gitlab-ci.yml", "\n".join(lines) + "\n")
    code, report = scratch.lint(".gitlab-ci.yml")
    assert [(f["code"], f["message"]) for f in report["findings"]] == [
        ("SGL005", "argument --tp-size/--tensor-parallel-size: invalid int value: 'two' [SGLang 0.5.23]")]
