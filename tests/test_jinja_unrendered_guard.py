"""A branch of launch text guarded by a variable Jinja only asks about (`{% if spec is defined %}`,
`{% if spec | default(false) %}`) and that nothing pdlint reads sets was silently not rendered: the flags in it
were never checked, with no word (hostile-input test rw24/h item 5: `--strict` passed a shared
`--enable-linear-replayssm-spec`).  It is a PD020 at the guard; a guard of other text, a variable given a value,
and a value default stay quiet."""

import re

import pytest

LAUNCH = "python -m sglang.launch_server --model-path m --disaggregation-mode {role} --port {port} {extra}\n"


def _write_pair(scratch, extra):
    scratch.write("prefill.sh.j2", LAUNCH.format(role="prefill", port=30001, extra=extra))
    scratch.write("decode.sh.j2", LAUNCH.format(role="decode", port=30002, extra=extra))


def _pd020(doc):
    return sorted((f["path"], f["line"], f["column"], f["severity"], f["message"]) for f in doc["findings"]
                  if f["code"] == "PD020")


@pytest.mark.parametrize("extra", [
    "{% if spec is defined %}--enable-linear-replayssm-spec{% endif %}",
    "{% if spec is not undefined %}--enable-linear-replayssm-spec{% endif %}",
    "{% if spec | default(false) %}--enable-linear-replayssm-spec{% endif %}",
    "{% if spec|d('') %}--enable-linear-replayssm-spec{% endif %}",
    "{{ '--enable-linear-replayssm-spec' if spec is defined }}",
])
def test_launch_text_behind_a_guard_nothing_sets_is_reported_unchecked(scratch, extra):
    _write_pair(scratch, extra)
    code, doc = scratch.lint(".")
    found = _pd020(doc)
    column = re.search(r"(?<![\w-])spec\b(?!-)", LAUNCH.format(role="prefill", port=30001, extra=extra)).start() + 1
    assert [(p, line, col, sev) for p, line, col, sev, _ in found] == [
        ("decode.sh.j2", 1, column - 1, "warning"), ("prefill.sh.j2", 1, column, "warning")]
    assert all("guarded by 'spec'" in m and "was not rendered" in m for *_, m in found)
    assert doc["coverage"]["unchecked"] == 2  # (the summary line counts them as places not checked)
    assert code == 0
    assert scratch.lint(".", "--strict")[0] == 1  # (the CI mode a pull request's scan runs in)
    # what the hint says to do checks the branch: the prefill's refused flag
    code, doc = scratch.lint(".", "--var", "spec=1")
    assert not _pd020(doc) and code == 1
    assert [f["path"] for f in doc["findings"] if f["code"] == "SGL101"] == ["prefill.sh.j2"]


def test_a_guard_over_several_lines_is_reported_at_its_test(scratch):
    text = ("python -m sglang.launch_server --model-path m --disaggregation-mode prefill \\\n"
            "{% if spec_flags is defined %}\n"
            "  --enable-linear-replayssm-spec \\\n"
            "{% endif %}\n"
            "  --port 30001\n")
    scratch.write("launch.sh.j2", text)
    code, doc = scratch.lint(".")
    assert [(p, line, col) for p, line, col, *_ in _pd020(doc)] == [("launch.sh.j2", 2, 7)]


@pytest.mark.parametrize("extra, why", [
    ("--port-offset {{ offset | default(10) }}", "a value default is rendered and checked"),
    ("{% if log_dir is defined %}> /tmp/log 2>&1{% endif %}", "a guard of no launch text"),
    ("{% if spec is defined %}--enable-linear-replayssm-spec{% endif %}{# set below #}", "set with --var"),
])
def test_quiet_where_nothing_went_unchecked(scratch, extra, why):
    _write_pair(scratch, extra)
    args = ("--var", "spec=") if why == "set with --var" else ()
    code, doc = scratch.lint(".", *args)
    assert _pd020(doc) == [], why


def test_a_variable_set_for_one_role_only_is_not_reported_for_the_other(scratch):
    scratch.write("launch.sh.j2", "python -m sglang.launch_server --model-path m --disaggregation-mode {{ role }} "
                                  "{% if spec is defined %}--speculative-algorithm EAGLE{% endif %}\n")
    scratch.write("pyproject.toml", '[tool.pdlint]\nrole-var = "role"\n'
                                    '[tool.pdlint.roles.decode.vars]\nspec = true\n')
    code, doc = scratch.lint(".")
    assert _pd020(doc) == []


def test_an_inline_if_without_else_that_is_false_writes_nothing(scratch):
    """`{{ '--flag' if use_ring }}` with use_ring false: Jinja writes nothing (its undefined names no variable);
    it was a PD005 error "undefined variable '<undefined>'" at column 1."""
    scratch.write("p.sh.j2", "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 1 "
                             "{{ '--enable-linear-replayssm-spec' if use_ring }}\n")
    scratch.write("pyproject.toml", "[tool.pdlint.vars]\nuse_ring = false\n")
    code, doc = scratch.lint(".")
    assert [f["code"] for f in doc["findings"] if f["severity"] == "error"] == [] and code == 0
    scratch.write("pyproject.toml", "[tool.pdlint.vars]\nuse_ring = true\n")
    code, doc = scratch.lint(".")
    assert [f["code"] for f in doc["findings"]] == ["SGL101"] and code == 1


def test_an_unset_default_value_is_no_use_of_its_own(scratch):
    """Field compare (llm-d/llm-d-benchmark's harness pod): `{{ harness.stackName | default(model_id_label) |
    default('default') }}` asked the unset `model_id_label` for its truth, a new PD005 error; Jinja renders 'default'."""
    scratch.write("pod.yaml.j2", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - command: [x]\n      env:\n"
                                 "        - {name: S, value: \"{{ stack | default(label) | default('default') }}\"}\n")
    code, doc = scratch.lint(".")
    assert [f["code"] for f in doc["findings"]] == [] and code == 0


def test_one_finding_per_file_names_every_guard(scratch):
    """Field compare (ai-dynamo/aiconfigurator's generator templates guard every flag with `{% if sglang.x is defined
    %}`): one PD020 per line was 127 warnings for a directory; one per file names the variables and lines."""
    lines = [f"{{% if {n} is defined %}}--{n.replace('_', '-')} {{{{ {n} }}}}{{% endif %}}" for n in
             ("tp_size", "dp_size", "page_size")]
    scratch.write("cli_args.sh.j2", "python -m sglang.launch_server --model-path m \\\n" + " \\\n".join(lines) + "\n")
    code, doc = scratch.lint(".")
    [f] = [f for f in doc["findings"] if f["code"] == "PD020"]
    assert (f["line"], f["column"]) == (2, 7)
    assert "'tp_size', 'dp_size', 'page_size' on lines 2, 3, 4 was not rendered" in f["message"]


def test_an_ignore_on_one_guard_does_not_hide_the_others(scratch):
    # rw26/h item 15: the file's guards are one finding at the first; an ignore written there for a debug switch
    # hid a later guard of a refused flag.  A guard its own directive covers is a finding of its own now.
    text = ("python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 \\\n"
            "{%- if dbg is defined %}  {#- pdlint: ignore[PD020] debug builds only #}\n"
            "  --log-level debug \\\n"
            "{%- endif %}\n"
            "{%- if spec is defined %}\n"
            "  --enable-linear-replayssm-spec \\\n"
            "{%- endif %}\n"
            "  --host 0.0.0.0\n")
    scratch.write("prefill.sh.j2", text)
    code, doc = scratch.lint(".", "--strict")
    assert [(p, line) for p, line, *_ in _pd020(doc)] == [("prefill.sh.j2", 5)]
    assert "'dbg'" not in _pd020(doc)[0][4] and code == 1
    assert not [f for f in doc["findings"] if f["code"] == "PD070"]  # the ignore was used: no "unused" finding
    # without the ignore: one finding for both, as before
    scratch.write("prefill.sh.j2", text.replace("  {#- pdlint: ignore[PD020] debug builds only #}", ""))
    _, doc = scratch.lint(".")
    assert [(p, line) for p, line, *_ in _pd020(doc)] == [("prefill.sh.j2", 2)]


@pytest.mark.parametrize("text, expected", [
    ("{% if spec is defined %}--x{% endif %}", ["--x"]),
    ("{%- if a %}{% elif spec is defined %}--y{% else %}--z{% endif %}", ["--y"]),
    ("a {{ '--x' if spec is defined }} b", ["{{ '--x' if spec is defined }}"]),
    ("{{ spec | default(1) }}", None),  # an expression that does not test
    ("{% if spec is defined %}{% if b %}--x{% endif %}--y{% else %}--z{% endif %}",
     ["{% if b %}--x{% endif %}--y"]),
    ("{%- if\n   spec is defined %}--x{% endif %}", ["--x"]),  # a tag over two lines
    ("{% set s = spec | default(false) %}{% if s %}--x{% endif %}{{ '--y' if s }}{% if t %}--z{% endif %}",
     ["--x", "{{ '--y' if s }}"]),  # the test's answer assigned: the later tests of it
    ("# {% raw %}" + "{{ " * 2000 + "{% endraw %}{% if spec is defined %} --x{% endif %}", [" --x"]),
])
def test_the_branches_a_test_of_a_name_decides(text, expected):
    """rw26/h items 2 and 5: the tag was found by a regex over every `{{` of the line (quadratic on a line of many
    `{{` and no `}}`), on the name's own line only (a tag over two lines, a default assigned first: not seen)."""
    from pdlint.render.jinja import _guarded
    got = _guarded(text, text.index("spec"))
    assert (None if got is None else [text[a:b] for a, b in got]) == expected


@pytest.mark.parametrize("guard_open, guard_close, pre", [
    ("{%- if spec is true %}", "{%- endif %}", ""),
    ("{%- if spec is string %}", "{%- endif %}", ""),
    ("{%- if spec is sameas true %}", "{%- endif %}", ""),
    ("{%- if spec is number and spec > 0 %}", "{%- endif %}", ""),
    ("{%- if\n      spec is defined %}", "{%- endif %}", ""),
    ("{%- if s %}", "{%- endif %}", "{% set s = spec | default(false) %}"),
    ("{%- with s = spec | default(false) %}{%- if s %}", "{%- endif %}{%- endwith %}", ""),
    ("{%- if ns.spec %}", "{%- endif %}", "{% set ns = namespace(spec=spec is defined) %}"),
])
def test_other_tests_and_assigned_answers_are_guards_too(scratch, guard_open, guard_close, pre):
    """rw26/h item 5: `is true`, `is string`, `is sameas`, `is number`, a tag over two lines, and a default or a
    test whose answer is assigned first (`{% set %}`, `{% with %}`, `namespace()`) hid the refused flag: exit 0
    with --strict."""
    text = ((pre + "\n" if pre else "") +
            "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30001 \\\n"
            f"{guard_open}\n  --enable-linear-replayssm-spec \\\n{guard_close}\n  --host 0.0.0.0\n")
    scratch.write("prefill.sh.j2", text)
    code, doc = scratch.lint(".", "--strict")
    assert [p for p, *_ in _pd020(doc)] == ["prefill.sh.j2"] and code == 1  # (--strict: PD020 fails the run)
    assert "guarded by 'spec'" in _pd020(doc)[0][4]


@pytest.mark.parametrize("extra", [
    "{% if spec is not defined %}--page-size 16{% endif %}",
    "{{ '--page-size 16' if spec is undefined }}",
    "{% if spec is not string %}--page-size 16{% endif %}",
])
def test_a_branch_the_render_wrote_is_quiet(scratch, extra):
    """A test of an unset variable whose branch Jinja did write (`is not defined`) left nothing unchecked: it was a
    false PD020 until the render's own output was asked."""
    _write_pair(scratch, extra)
    code, doc = scratch.lint(".", "--strict")
    assert _pd020(doc) == [] and code == 0


def test_each_test_of_the_name_on_a_line_is_looked_at(scratch):
    _write_pair(scratch, "{{ '--page-size 16' if spec is not defined }} {{ '--enable-x' if spec is defined }}")
    _, doc = scratch.lint(".")
    assert [(p, line) for p, line, *_ in _pd020(doc)] == [("decode.sh.j2", 1), ("prefill.sh.j2", 1)]
