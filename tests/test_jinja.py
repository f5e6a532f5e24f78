"""Render stage: per-role Jinja rendering, the source tracer, role detection, safety bounds."""

import os

import pytest

from pdlint.render import jinja as J
from pdlint.text import SourceFile, TStr


def render(tmp_path, files, main="t.sh.j2", variables=None, role_var=None, role_vars=None, limits=None):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    root = str(tmp_path)

    def read(full):
        if not os.path.isfile(full):
            return None
        return SourceFile(os.path.relpath(full, root).replace(os.sep, "/"), open(full).read(), full)

    src = read(os.path.join(root, main))
    return J.render_template(src, main, root=root, cwd=root, variables=variables or {}, role_var=role_var,
                             role_vars=role_vars or {}, limits=limits or J.Limits(), read_file=read)


def words(rendered):
    return {w.text: w.origin for w in rendered.text.split_ws()}


def test_renders_once_per_detected_role_and_traces_literals(tmp_path):
    renders, problems, var = render(tmp_path, {"t.sh.j2": (
        "python -m sglang.launch_server --tp-size 2 \\\n"
        "{% if role == 'prefill' %}  --disaggregation-mode prefill{% else %}  --disaggregation-mode decode"
        "{% endif %}\n")})
    assert problems == [] and var == "role"
    assert [r.role for r in renders] == ["prefill", "decode"]
    w = words(renders[0])
    assert (w["--tp-size"].line, w["--tp-size"].column) == (1, 32)
    assert w["prefill"].line == 2 and "decode" not in w
    assert words(renders[1])["decode"].line == 2


def test_set_block_macro_include_and_constants_are_the_origin(tmp_path):
    renders, problems, _ = render(tmp_path, {
        "t.sh.j2": ('{% set common %}--tp-size 2 --enable-x{% endset %}\n'
                    '{% set port = "30000" %}\n'
                    '{% from "lib/m.j2" import extra %}\n'
                    'run {{ common }} --port {{ port }} {{ extra() }}\n'
                    '{% include "lib/inc.j2" %}\n'),
        "lib/m.j2": "{% macro extra() %}--mem 0.8{% endmacro %}",
        "lib/inc.j2": "--included",
    })
    assert problems == []
    w = words(renders[0])
    assert (w["--enable-x"].path, w["--enable-x"].line, w["--enable-x"].column) == ("t.sh.j2", 1, 29)
    assert [h.note for h in w["--enable-x"].chain] == ["{{ common }}"]
    assert (w["30000"].line, w["30000"].column) == (2, 16)
    assert w["--mem"].path == "lib/m.j2" and w["--mem"].chain[0].note == "{{ extra(…) }}"
    assert w["--included"].path == "lib/inc.j2" and w["--included"].chain[0].note == "include 'lib/inc.j2'"


def test_config_variables_keep_their_own_position(tmp_path):
    cfg = SourceFile("pyproject.toml", 'x\nmodel = "/models/q"\n')
    model = J.OStr(TStr.at("/models/q", cfg, 11, exact=True))
    renders, _, _ = render(tmp_path, {"t.sh.j2": "run --model-path {{ model }}\n"}, variables={"model": model})
    o = words(renders[0])["/models/q"]
    assert (o.path, o.line, o.column) == ("pyproject.toml", 2, 10)
    assert o.chain[0].note == "{{ model }}"


def test_post_processed_capture_falls_back_to_a_consistent_mapping(tmp_path):
    renders, problems, _ = render(tmp_path, {"t.sh.j2": "{% set a %}  --x  {% endset %}run {{ a | trim }}|{{ a | length }}\n"})
    assert problems == []
    assert renders[0].text.text == "run --x|7\n"
    assert renders[0].traced is False


@pytest.mark.parametrize("template,expected", [
    ("{% if mode == 'p' %}x{% endif %}", ("mode", "p")),
    ("--disaggregation-mode {{ server_role }}", ("server_role", "prefill")),
    ("{{ pd_role }}", ("pd_role", "prefill")),
    ("--tp {{ tp }}", (None, None)),
    # a name the template binds itself before every use is not an input to give per role
    ('{% set role = "prefill" %}--disaggregation-mode {{ role }}', (None, None)),
    ('{% for role in ["prefill", "decode"] %}--disaggregation-mode {{ role }}\n{% endfor %}', (None, None)),
    ('{% macro m(mode) %}--disaggregation-mode {{ mode }}{% endmacro %}{{ m("prefill") }}', (None, None)),
    ('{% with role = "decode" %}{% if role == "decode" %}x{% endif %}{% endwith %}', (None, None)),
    # ... but one it may read from the context first is
    ('{% set role = role | default("prefill") %}--disaggregation-mode {{ role }}', ("role", "prefill")),
    ('{% if x %}{% set mode = "p" %}{% endif %}{% if mode == "p" %}x{% endif %}', ("mode", "p")),
    # a role name set from a role switch: the switch is the input (true for its role)
    ('{% if is_prefill %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}'
     '--disaggregation-mode {{ role }}', ("is_prefill", True)),
    ('{% set mode = "decode" if decode_server else "prefill" %}{% if mode == "prefill" %}x{% endif %}',
     ("decode_server", False)),
    # (a value of one role, not a switch)
    ('{% if prefill_port %}{% set role = "prefill" %}{% endif %}--disaggregation-mode {{ role }}',
     ("role", "prefill")),
    # the switch the role name is set from, not another role-named switch the template reads (one that sorts
    # first was taken: hostile-input round rw29/h P2)
    ('{% if is_prefill %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}'
     '--disaggregation-mode {{ role }}{% if enable_decode_radix_off %} x{% endif %}', ("is_prefill", True)),
    ('{% set mode = "prefill" if is_prefill else "decode" %}--disaggregation-mode {{ mode }}'
     '{% if decode_offload %} x{% endif %}', ("is_prefill", True)),
    ('{% set p = "prefill" if is_prefill else "decode" %}{% set mode = p %}--disaggregation-mode {{ mode }}'
     '{% if decode_offload %} x{% endif %}', ("is_prefill", True)),
    ('{% for r in ["prefill", "decode"] %}--disaggregation-mode {{ r }}{% if r == "decode" and decode_extra_on %}'
     ' x{% endif %}\n{% endfor %}', (None, None)),
])
def test_role_variable_detection(tmp_path, template, expected):
    renders, _, var = render(tmp_path, {"t.sh.j2": template}, variables={"tp": 1})
    assert var == expected[0]
    assert renders[0].role_value == expected[1]


def test_configured_role_variable_and_per_role_vars(tmp_path):
    renders, _, var = render(tmp_path, {"t.sh.j2": "{{ kind }} {{ port }}"}, role_var="kind",
                             variables={"port": 1}, role_vars={"decode": {"port": 2}})
    assert var == "kind"
    assert [r.text.text for r in renders] == ["prefill 1", "decode 2"]


def test_undefined_variables_are_reported_at_their_line_and_rendering_goes_on(tmp_path):
    renders, problems, _ = render(tmp_path, {"t.sh.j2": "a\nrun {{ missing }} --x\n{% for i in nothing %}{% endfor %}"})
    assert [(p.code, p.line, p.column) for p in problems] == [("undefined", 2, 8), ("undefined", 3, 13)]
    assert "undefined variable 'missing'" in problems[0].message
    tok = [w for w in renders[0].text.split_ws() if w.text == "${missing}"][0]
    assert tok.opaque


def test_syntax_error_has_its_line(tmp_path):
    renders, problems, _ = render(tmp_path, {"t.sh.j2": "ok\n{% if x %}\nno end\n"})
    # Jinja names the block left open
    assert renders == [] and problems[0].code == "syntax" and problems[0].line == 2
    assert "endif" in problems[0].message


def test_includes_cannot_leave_the_repository(tmp_path):
    outside = tmp_path.parent / "outside-secret.j2"
    outside.write_text("SECRET")
    os.symlink(str(outside), str(tmp_path / "link.j2"))
    for target in ("../outside-secret.j2", "link.j2", "/etc/passwd"):
        renders, problems, _ = render(tmp_path, {"t.sh.j2": "a\n{% include '" + target + "' %}"})
        assert renders == [] and problems and problems[0].code == "include", target
        assert problems[0].line == 2
        assert all("SECRET" not in r.text.text for r in renders)


def test_sandbox_refuses_unsafe_operations(tmp_path):
    renders, problems, _ = render(tmp_path, {"t.sh.j2": "{{ ''.__class__.__mro__ }}\n{% set l = [] %}{{ l.append(1) }}"})
    assert renders == [] and problems[0].code == "render"
    assert "sandbox" in problems[0].message or "unsafe" in problems[0].message


def test_render_time_and_output_are_bounded(tmp_path):
    renders, problems, _ = render(
        tmp_path, {"t.sh.j2": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"},
        limits=J.Limits(render_seconds=0.5))
    assert renders == [] and problems[0].code == "limit" and "longer than" in problems[0].message
    renders, problems, _ = render(tmp_path, {"t.sh.j2": "{% for i in range(100000) %}xxxxxxxxxx{% endfor %}"},
                                  limits=J.Limits(max_output=10000))
    assert renders == [] and problems[0].code == "limit" and "exceeds" in problems[0].message


@pytest.mark.parametrize("text", [
    # the private-use characters pdlint's tracer marks segments with, in template text, in a string
    # constant, as a fake segment header with an id that does not exist, and in a variable's value
    "python -m sglang.launch_server --model-path m\ue000x\ue001 --disaggregation-mode {{ role }}\n",
    '{{ "\ue000" }}python -m sglang.launch_server --disaggregation-mode {{ role }} --model-path m\n',
    "python -m sglang.launch_server --model-path m\ue00099999\ue001y\ue002 --disaggregation-mode {{ role }}\n",
    "python -m sglang.launch_server --model-path {{ v }} --disaggregation-mode {{ role }}\n",
])
def test_marker_characters_in_the_input_are_text(scratch, text):
    scratch.write("run.sh.j2", text)
    scratch.write("pyproject.toml", '[tool.pdlint.vars]\nv = "\ue002m\ue000"\n')
    code, doc = scratch.lint(".")
    assert [f["code"] for f in doc["findings"] if f["code"] in ("PD012", "PD013")] == []
    assert code in (0, 1)
    code, doc = scratch.lint("--select", "SGL101", ".")
    assert code == 0


def test_arithmetic_on_undefined_variables_is_a_value_pdlint_cannot_see(scratch_git):
    """shun8686/for_debug's Volcano job templates (field test rw6/g): `{{ prefill_size + decode_size }}` with the
    two undefined stopped the whole render (PD006), so no launch of the template was checked."""
    scratch_git.write("run.sh.j2", "python3 -m sglang.launch_server --model-path /m --tp-size "
                                   "{{ prefill_size + decode_size }} --port {{ 2 * base }} {% if nodes > 1 %}--nnodes "
                                   "{{ nodes }}{% endif %} --disaggregation-mode prefill "
                                   "--disaggregation-transfer-backend fake\n")
    code, report = scratch_git.lint("run.sh.j2")
    found = sorted((f["code"], f["message"]) for f in report["findings"])
    assert [c for c, _ in found] == ["PD005"] * 4 + ["SGL104"]
    assert {m.split("'")[1] for c, m in found if c == "PD005"} == {"prefill_size", "decode_size", "base", "nodes"}


def _lint_json(tmp_path) -> tuple:
    """``pdlint check --no-cache --format json`` of the directory through ``main``: (exit code, findings, coverage)."""
    import json
    from pdlint.cli import main
    out = tmp_path.parent / (tmp_path.name + "-out.json")
    code = main(["check", "--no-cache", "--format", "json", "--output-file", str(out), str(tmp_path)])
    data = json.loads(out.read_text())
    return code, data["findings"], data["coverage"]


def test_a_loop_over_both_roles_is_rendered_once_with_both_launches(tmp_path):
    # `{% for role in [...] %}` binds the role itself: rendering it "per role" gave each launch the other's role (a
    # false PD101 for each), as did `{% set role = "prefill" %}` in a one-role template
    (tmp_path / "loop.sh.j2").write_text(
        '{% for role in ["prefill", "decode"] %}\n'
        'CUDA_VISIBLE_DEVICES={{ loop.index0 }} python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B'
        ' --disaggregation-mode {{ role }} --port 3000{{ loop.index }} &\n{% endfor %}\n')
    (tmp_path / "one.sh.j2").write_text(
        '{% set role = "prefill" %}\n'
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {{ role }}\n')
    code, findings, coverage = _lint_json(tmp_path)
    assert code == 0 and findings == [] and (coverage["prefill"], coverage["decode"]) == (2, 1)
    # a role-only flag in the loop's shared text is still found, for the role that refuses it
    (tmp_path / "loop.sh.j2").write_text(
        '{% for role in ["prefill", "decode"] %}\n'
        'CUDA_VISIBLE_DEVICES={{ loop.index0 }} python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B'
        ' --disaggregation-mode {{ role }} --port 3000{{ loop.index }} --enable-linear-replayssm-spec &\n'
        '{% endfor %}\n')
    code, findings, _ = _lint_json(tmp_path)
    assert code == 1 and [(f["code"], f["role"]) for f in findings] == [("SGL101", "prefill")]


def test_another_role_named_switch_is_not_taken_for_the_role_switch(tmp_path):
    # hostile-input round rw29/h P2: the first free name with one role word in it (`decode_extra_on`,
    # `decode_offload`, `enable_decode_radix_off`) was taken as the switch the role is set from; rendered per
    # its value, is_prefill unset, both renders took one branch: a false PD101, a false PD005 for is_prefill
    launch = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode '
    (tmp_path / "sw.sh.j2").write_text(
        '{% if is_prefill %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}\n'
        + launch + '{{ role }}{% if enable_decode_radix_off %} --disable-radix-cache{% endif %}\n')
    (tmp_path / "expr.sh.j2").write_text(
        '{% set mode = "prefill" if is_prefill else "decode" %}\n'
        + launch + '{{ mode }}{% if decode_offload %} --enable-mixed-chunk{% endif %}\n')
    (tmp_path / "loop.sh.j2").write_text(
        '{% for r in ["prefill", "decode"] %}\nCUDA_VISIBLE_DEVICES={{ loop.index0 }} ' + launch +
        '{{ r }} --port 3000{{ loop.index }}'
        '{% if r == "decode" and decode_extra_on %} --disable-radix-cache{% endif %} &\n{% endfor %}\n')
    code, findings, coverage = _lint_json(tmp_path)
    assert code == 1 and (coverage["prefill"], coverage["decode"]) == (3, 3)
    assert sorted((f["code"], os.path.basename(f["path"]), f["message"]) for f in findings) == [
        ("PD005", "expr.sh.j2", "undefined variable 'decode_offload'"),
        ("PD005", "loop.sh.j2", "undefined variable 'decode_extra_on'"),
        ("PD005", "sw.sh.j2", "undefined variable 'enable_decode_radix_off'")]
    hints = {os.path.basename(f["path"]): f["fix"] for f in findings}
    assert "[tool.pdlint.roles.decode.vars]" in hints["sw.sh.j2"] and "'is_prefill'" in hints["sw.sh.j2"]
    # (the loop renders both launches at once: one value for the switch, no role variable to name)
    assert "--var decode_extra_on=true" in hints["loop.sh.j2"] and "role-var" not in hints["loop.sh.j2"]
    # given their values, nothing is left
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pdlint.vars]\ndecode_extra_on = true\n[tool.pdlint.roles.decode.vars]\ndecode_offload = true\n'
        'enable_decode_radix_off = true\n[tool.pdlint.roles.prefill.vars]\ndecode_offload = false\n'
        'enable_decode_radix_off = false\n')
    code, findings, coverage = _lint_json(tmp_path)
    assert code == 0 and findings == [] and (coverage["prefill"], coverage["decode"]) == (3, 3)


def test_a_role_loop_around_an_include_is_rendered_once(tmp_path):
    # hostile-input round rw29/h P11: the included template reads the loop's `role` from its context; counted as an
    # input of the whole template, it was rendered per role (both launches in each render): two false PD101
    (tmp_path / "launch.j2").write_text(
        'CUDA_VISIBLE_DEVICES={{ gpu | default(0) }} python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B'
        ' --disaggregation-mode {{ role }} --port 3000{{ gpu | default(0) }}'
        '{% if role == "prefill" %} --enable-linear-replayssm-spec{% endif %} &\n')
    (tmp_path / "main.sh.j2").write_text('{% for role in ["prefill", "decode"] %}\n{% set gpu = loop.index0 %}'
                                         '{% include "launch.j2" %}\n{% endfor %}\n')
    code, findings, coverage = _lint_json(tmp_path)
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)
    assert code == 1 and [(f["code"], f["role"], os.path.basename(f["path"])) for f in findings] == [
        ("SGL101", "prefill", "launch.j2")]
    # (the partial alone, included by a template that gives no role, still reads `role` from the context)
    (tmp_path / "main.sh.j2").write_text('{% include "launch.j2" %}\n')
    code, findings, coverage = _lint_json(tmp_path)
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)
    assert [(f["code"], f["role"]) for f in findings] == [("SGL101", "prefill")]


def test_a_partial_included_in_a_role_loop_and_at_the_top_level_keeps_its_role_input(tmp_path):
    """Hostile-input round rw30/h P12: launch.j2 included inside `{% for role in ["prefill"] %}` and at the top
    level, where `role` is the template's input. The include graph kept the bound names of the first path only
    ({role}): rendered once, `role` undefined at the second include (PD005 + PD021), and the decode render's
    `--tp-size abc` - SGLang: "argument --tp-size: invalid int value: 'abc'" - was missed. A name is bound for an
    included template only where every include of it binds it; the loop's launch keeps its own role (no PD101)."""
    (tmp_path / "launch.j2").write_text(
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {{ role }} '
        '--port {{ port | default(30000) }}{% if role == "decode" %} --tp-size abc{% endif %} &\n')
    (tmp_path / "main.sh.j2").write_text('{% for role in ["prefill"] %}{% set port = 30010 %}\n'
                                         '{% include "launch.j2" %}\n{% endfor %}\n{% include "launch.j2" %}\n')
    code, findings, coverage = _lint_json(tmp_path)
    # (the same-host rules see the loop's prefill launch and the top-level one in one script: PD150 / PD151)
    assert code == 1 and [(f["code"], os.path.basename(f["path"])) for f in findings
                          if f["code"] not in ("PD150", "PD151")] == [("SGL005", "launch.j2")], findings
    assert "invalid int value: 'abc'" in findings[0]["message"]
    assert (coverage["prefill"], coverage["decode"]) == (3, 1)
    # (bound on every path - two loops - it is no input: rendered once, both launches in it)
    (tmp_path / "main.sh.j2").write_text('{% for role in ["prefill"] %}{% set port = 30010 %}\n'
                                         '{% include "launch.j2" %}\n{% endfor %}\n'
                                         '{% for role in ["decode"] %}{% set port = 30020 %}\n'
                                         '{% include "launch.j2" %}\n{% endfor %}\n')
    code, findings, coverage = _lint_json(tmp_path)
    assert [f["code"] for f in findings] == ["SGL005"]
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)


def test_the_names_bound_where_a_template_is_included():
    from jinja2 import Environment
    from pdlint.render.jinja import _nodes_by_type, _referenced
    env = Environment()

    def refs(text):
        tree = env.parse(text)
        return [(n, sorted(b)) for n, b in _referenced(tree, _nodes_by_type(tree))]

    # (a template included at several places: bound only what every include of it binds)
    assert refs('{% for role in r %}{% include "a" %}{% include "b" %}{% endfor %}{% include "a" %}') == [
        ("a", []), ("b", ["loop", "role"])]
    # a `{% set %}` binds what comes after it; in an `{% if %}` only when every branch sets it; in a loop only there
    assert refs('{% include "a" %}{% set role = 1 %}{% include "b" %}') == [("a", []), ("b", ["role"])]
    assert refs('{% if x %}{% set role = 1 %}{% else %}{% set role = 2 %}{% set y = 1 %}{% endif %}'
                '{% include "a" %}') == [("a", ["role"])]
    assert refs('{% if x %}{% set role = 1 %}{% endif %}{% include "a" %}') == [("a", [])]
    assert refs('{% for i in r %}{% set role = i %}{% endfor %}{% include "a" %}') == [("a", [])]
    assert refs('{% macro m(role) %}{% include "a" %}{% endmacro %}') == [("a", ["caller", "kwargs", "role",
                                                                                  "varargs"])]
    # (a child template's top-level sets run before its parent renders, wherever they stand)
    assert refs('{% extends "base" %}{% set role = 1 %}') == [("base", ["role"])]


def test_a_role_set_from_a_role_switch_renders_per_value_of_the_switch(tmp_path):
    switch = '{% if is_prefill %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}\n'
    launch = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {{ role }}'
    (tmp_path / "sw.sh.j2").write_text(switch + launch + '{% if not is_prefill %} --enable-linear-replayssm-spec'
                                                         '{% endif %}\n')
    # PD005 for is_prefill and a false PD101 before: `role` was rendered per role, is_prefill unset both times
    code, findings, coverage = _lint_json(tmp_path)
    assert code == 0 and findings == [] and (coverage["prefill"], coverage["decode"]) == (1, 1)
    (tmp_path / "sw.sh.j2").write_text(switch + launch + '{% if is_prefill %} --enable-linear-replayssm-spec'
                                                         '{% endif %}\n')
    code, findings, _ = _lint_json(tmp_path)
    assert code == 1 and [(f["code"], f["role"], f["line"]) for f in findings] == [("SGL101", "prefill", 2)]


def _lint_var_json(tmp_path, *args) -> tuple:
    import json
    from pdlint.cli import main
    out = tmp_path.parent / (tmp_path.name + "-out.json")
    code = main(["check", "--no-cache", "--format", "json", "--output-file", str(out), *args, str(tmp_path)])
    data = json.loads(out.read_text())
    return code, data["findings"], data["coverage"], data["launches"]


NODE_TYPE = ('{% if node_type == "ctx" %}{% set mode = "prefill" %}{% else %}{% set mode = "decode" %}{% endif %}\n'
             'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {{ mode }} '
             '--port {{ 30000 if mode == "prefill" else 30001 }}')


def test_a_role_the_template_sets_on_every_path_from_a_node_type_is_no_role_variable(tmp_path):
    """Hostile-input round rw30/h P13: the template sets `mode` itself in both branches of `node_type == "ctx"`
    and writes it after --disaggregation-mode: flag and role always agree. `mode` was rendered per role - each
    render's role the value the template then overwrote: "PD101 [decode] rendered with mode='prefill' makes this
    the prefill server, but --disaggregation-mode is 'decode'", and with `--var node_type=ctx` the same the other
    way round, exit 1 on a correct template. Rendered per value of the guard it compares with a role word
    ("ctx": prefill), once when --var gives it."""
    (tmp_path / "launch.sh.j2").write_text(NODE_TYPE + "\n")
    code, findings, coverage, launches = _lint_var_json(tmp_path)
    assert (code, findings) == (0, []) and (coverage["prefill"], coverage["decode"]) == (1, 1)
    code, findings, coverage, launches = _lint_var_json(tmp_path, "--var", "node_type=ctx")
    assert (code, findings) == (0, []) and (coverage["prefill"], coverage["decode"]) == (1, 0)
    assert [launch["argv"][-1] for launch in launches] == ["30000"]
    # (one value written in only one branch: `mode` is read from the context otherwise, still the role variable)
    (tmp_path / "launch.sh.j2").write_text(NODE_TYPE.replace('{% else %}{% set mode = "decode" %}', '') + "\n")
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert [f["code"] for f in findings] == ["PD005"] and (coverage["prefill"], coverage["decode"]) == (1, 1)


def test_a_template_set_role_still_has_its_launches_checked(tmp_path):
    # the prefill render (node_type=ctx) still reaches its own wrong value: SGLang "invalid int value: 'abc'"
    (tmp_path / "launch.sh.j2").write_text(NODE_TYPE + '{% if node_type == "ctx" %} --tp-size abc{% endif %}\n')
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert code == 1 and [f["code"] for f in findings] == ["SGL005"] and "'abc'" in findings[0]["message"]
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)
    # a guard compared with no role word: rendered once, the guard an undefined variable to give (`--var`)
    (tmp_path / "launch.sh.j2").write_text(NODE_TYPE.replace('"ctx"', '"first"') + "\n")
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert [(f["code"], f["message"].split(" (")[0]) for f in findings] == [
        ("PD005", "undefined variable 'node_type'")]
    assert (coverage["prefill"], coverage["decode"]) == (0, 1)


GUARD_TYPO = ('python -m sglang.launch_server --model-path m --disaggregation-mode {{ role }} '
              '{% if role == "prefill" %}--tensor-paralel-size 2{% endif %} --port 30000\n')


@pytest.mark.parametrize("guard", [
    'node_type | default("gen") == "ctx"',
    'node_type | d("gen") == "ctx"',
    'node_type | default("gen") | lower == "ctx"',
    'node_type | trim == "ctx"',
    'node_type | string == "ctx"',
    'node_type | default("gen") | upper == "CTX"',
    '"ctx" == node_type | default("gen")',
])
@pytest.mark.parametrize("form", ["if", "inline"])
def test_a_role_set_from_a_guard_through_a_filter_renders_per_value_of_the_guard(tmp_path, guard, form):
    """Hostile-input round rw31/h P6: the template sets `role` in both branches of `node_type | default("gen") ==
    "ctx"` (or `{% set role = "prefill" if ... else "decode" %}`); the deploy renders it with node_type=ctx for the
    prefill server, whose command has a typo SGLang refuses ("unrecognized arguments: --tensor-paralel-size 2").
    pdlint did not see node_type through the filter: rendered once, node_type unset, the default's branch only -
    "0 prefill, 1 decode", no finding, exit 0. Rendered per value of the guard, as `node_type == "ctx"` is."""
    head = (f'{{% if {guard} %}}{{% set role = "prefill" %}}{{% else %}}{{% set role = "decode" %}}{{% endif %}}\n'
            if form == "if" else f'{{% set role = "prefill" if {guard} else "decode" %}}\n')
    (tmp_path / "launch.sh.j2").write_text(head + GUARD_TYPO)
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert code == 1 and [(f["code"], f["line"]) for f in findings] == [("SGL001", 2)]
    assert "--tensor-paralel-size" in findings[0]["message"]
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)


@pytest.mark.parametrize("head", [
    # the default applied in its own `{% set %}`, and the plain comparison: rendered per value as before
    '{% set node_type = node_type | default("gen") %}\n'
    '{% if node_type == "ctx" %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}\n',
    '{% if node_type == "ctx" %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}\n',
])
def test_a_role_set_from_a_guard_without_a_filter_in_the_test_still_renders_per_value(tmp_path, head):
    (tmp_path / "launch.sh.j2").write_text(head + GUARD_TYPO)
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert code == 1 and [f["code"] for f in findings] == ["SGL001"]
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)


def test_a_filtered_guard_on_another_variable_is_no_role_variable(tmp_path):
    # `backend | default("nixl") == "mooncake"` compares with no role word: `role` stays the role variable, the
    # template rendered per role as before (the prefill render's typo reported, the decode render clean)
    (tmp_path / "launch.sh.j2").write_text(
        'python -m sglang.launch_server --model-path m --disaggregation-mode {{ role }} '
        '{% if backend | default("nixl") | lower == "mooncake" %}--disaggregation-transfer-backend mooncake'
        '{% endif %} {% if role == "prefill" %}--tensor-paralel-size 2{% endif %} --port 30000\n')
    code, findings, coverage, launches = _lint_var_json(tmp_path)
    assert code == 1 and [f["code"] for f in findings] == ["SGL001"]
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)
    assert not any("mooncake" in launch["argv"] for launch in launches)


@pytest.mark.parametrize("head", [
    '{% if node_type | default("gen") | replace("-", "_") == "ctx" %}{% set role = "prefill" %}{% else %}'
    '{% set role = "decode" %}{% endif %}\n',
    '{% if node_type | default("gen") == "first" %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}'
    '{% endif %}\n',
    '{% set role = "prefill" if is_first | default(false) else "decode" %}\n',
    '{% set role = "prefill" if (node_type | default("gen"))[:3] == "ctx" else "decode" %}\n',
])
def test_a_role_set_from_a_guard_pdlint_cannot_decide_is_said_not_a_clean_pass(tmp_path, head):
    """rw31/h P6: where pdlint cannot tell which value of the guard gives prefill and which decode (a filter it does
    not see through, no role word compared, a boolean read through `| default(false)`), the template renders once
    with the guard unset - one branch's role only, the other's launch (here with a typo SGLang refuses,
    "unrecognized arguments: --tensor-paralel-size 2") never checked. That is said (PD020, so --strict fails),
    naming the guard where it is read - it was a clean pass, exit 0."""
    (tmp_path / "launch.sh.j2").write_text(head + GUARD_TYPO)
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    guard = "is_first" if "is_first" in head else "node_type"
    assert code == 0 and [(f["code"], f["line"], f["column"]) for f in findings] == [
        ("PD020", 1, head.index(guard) + 1)]
    assert f"'{guard}'" in findings[0]["message"] and "went unchecked" in findings[0]["message"]
    assert f"--var {guard}=" in findings[0]["fix"]
    assert (coverage["prefill"], coverage["decode"]) == (0, 1)
    code, _, _, _ = _lint_var_json(tmp_path, "--strict")
    assert code == 1


SWITCH_LAUNCH = "python -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} --port 30000\n"


@pytest.mark.parametrize("head", [
    '{% if is_prefill | default(false) | bool %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}'
    '{% endif %}\n',
    '{% set role = "prefill" if is_prefill | bool else "decode" %}\n',
    '{% if is_prefill | to_bool %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}\n',
])
def test_a_role_switch_tested_only_through_a_filter_pdlint_cannot_see_is_said_not_a_false_pd101(tmp_path, head):
    """rw32/h P3: `{% if is_prefill | default(false) | bool %}` without the ansible preset - `bool` is a stand-in
    whose result is truthy whatever `is_prefill` is, so both of the switch's renders took the prefill branch and the
    one made for is_prefill=False got a PD101 error ("makes this the decode server, but --disaggregation-mode is
    'prefill'") on a template that cannot disagree with itself (Ansible renders decode there). pdlint cannot render
    such a switch per value: rendered once, and the other role's launch text said unchecked (PD020 at the guard)."""
    (tmp_path / "launch.sh.j2").write_text(head + SWITCH_LAUNCH)
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    notes = [f for f in findings if f["code"] == "PD020"]
    assert code == 0 and not [f for f in findings if f["severity"] == "error"]
    assert [(f["line"], f["column"]) for f in notes] == [(1, head.index("is_prefill") + 1)]
    filt = "to_bool" if "to_bool" in head else "bool"
    assert f"'is_prefill' decides the role this template renders, but every test reads it through `{filt}`" in \
        notes[0]["message"] and "went unchecked" in notes[0]["message"]
    assert ("preset = \"ansible\"" in notes[0]["fix"]) == (filt == "bool")
    assert (coverage["prefill"], coverage["decode"]) == (1, 0)


@pytest.mark.parametrize("head, preset", [
    ('{% if is_prefill | default(false) | bool %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}'
     '{% endif %}\n', True),
    ('{% if is_prefill %}{% set role = "prefill" %}{% else %}{% set role = "decode" %}{% endif %}\n', False),
])
def test_a_role_switch_pdlint_can_render_per_value_stays_two_launches(tmp_path, head, preset):
    (tmp_path / "launch.sh.j2").write_text(head + SWITCH_LAUNCH)
    if preset:
        (tmp_path / "pyproject.toml").write_text('[tool.pdlint.jinja]\npreset = "ansible"\n')
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert (code, findings) == (0, []) and (coverage["prefill"], coverage["decode"]) == (1, 1)


def test_a_role_switch_read_through_a_default_and_tested_nowhere_else_is_said(tmp_path):
    # the role written after --disaggregation-mode and never tested: no guarded branch of launch text in sight for
    # the unrendered-guard note, so only this one says the prefill render is missing (a clean pass on e19f1dc)
    (tmp_path / "launch.sh.j2").write_text(
        '{% set mode = "prefill" if is_first | default(false) else "decode" %}\n'
        'python -m sglang.launch_server --model-path m --disaggregation-mode {{ mode }} --port 30000\n')
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert code == 0 and [(f["code"], f["line"], f["column"]) for f in findings] == [("PD020", 1, 28)]
    assert "'is_first' decides the role this template gives its launch ('mode'" in findings[0]["message"]
    assert (coverage["prefill"], coverage["decode"]) == (0, 1)


def test_an_undecided_guard_given_a_value_or_reported_undefined_gets_no_note(tmp_path):
    head = ('{% if node_type | default("gen") | replace("-", "_") == "ctx" %}{% set role = "prefill" %}{% else %}'
            '{% set role = "decode" %}{% endif %}\n')
    (tmp_path / "launch.sh.j2").write_text(head + GUARD_TYPO)
    # given: rendered once with that value, which is what the deployment renders - nothing left unsaid
    code, findings, coverage, _ = _lint_var_json(tmp_path, "--var", "node_type=ctx")
    assert code == 1 and [f["code"] for f in findings] == ["SGL001"]
    code, findings, coverage, _ = _lint_var_json(tmp_path, "--var", "node_type=gen")
    assert (code, findings) == (0, []) and (coverage["prefill"], coverage["decode"]) == (0, 1)
    # unset with no default: the undefined variable is the finding (PD005), no second one
    (tmp_path / "launch.sh.j2").write_text(head.replace(' | default("gen")', '') + GUARD_TYPO)
    code, findings, _, _ = _lint_var_json(tmp_path)
    assert [f["code"] for f in findings] == ["PD005"] and "'node_type'" in findings[0]["message"]
    # a role set from the template's own loop: both launches in one render, nothing undecided
    (tmp_path / "launch.sh.j2").write_text(
        '{% for node_type in ["ctx", "gen"] %}{% set role = "prefill" if node_type | replace("-", "_") == "ctx" '
        'else "decode" %}\n' + GUARD_TYPO + '{% endfor %}\n')
    code, findings, coverage, _ = _lint_var_json(tmp_path)
    assert code == 1 and [f["code"] for f in findings] == ["SGL001"]
    assert (coverage["prefill"], coverage["decode"]) == (1, 1)


def test_the_template_line_of_an_undefined_name_reads_the_debug_info_once(tmp_path, monkeypatch):
    # hostile-input round rw29/h: Jinja's get_corresponding_lineno parses the whole debug info on every call, one
    # call per undefined name: a template of 1,000 `{% if xN %}` tests took seconds there (quadratic)
    import jinja2
    reads = []
    original = jinja2.Template.debug_info
    monkeypatch.setattr(jinja2.Template, "debug_info", property(lambda self: reads.append(1) or original.fget(self)))
    text = "".join(f"{{% if x{i} %}}a{{% endif %}}\n" for i in range(50)) + "--disaggregation-mode {{ role }}\n"
    renders, problems, _ = render(tmp_path, {"t.sh.j2": text})
    assert len(renders) == 2 and sorted({p.line for p in problems if p.code == "undefined"}) == list(range(1, 51))
    assert len(reads) <= 2  # (once per compiled template)
    # the same lines as Jinja's own look-up
    from pdlint.render.jinja import _template_line
    t = jinja2.Environment().from_string("a\n{% if x %}\n{{ y }}\n{% endif %}\n{{ z }}\nq {{ w }}")

    class State:
        line_maps: dict = {}
    assert [_template_line(State, t, n) for n in range(40)] == [t.get_corresponding_lineno(n)
                                                                for n in range(40)]
