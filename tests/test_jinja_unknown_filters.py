"""Jinja filters and tests pdlint's Jinja does not have (PD016): a filter the repository's own renderer registers
on its Environment is no syntax error (field round rw30/a P4).

Ground truth (Jinja 3.1, jinja2/compiler.py ``_filter_test_common``): ``self.fail(f"No {type_name} named
{node.name!r}.")`` - a TemplateAssertionError raised because the *Environment* lacks the name; the same template
compiles where ``env.filters["model_id_label"] = f`` was set first (llm-d/llm-d-benchmark's
llmdbenchmark/parser/render_plans.py:148 renders config/templates/jinja/08_httproute.yaml.j2 so)."""

from pdlint.extract import _jinja_registrations

RENDER_PY = '''\
import pathlib, re
from jinja2 import Environment, FileSystemLoader

pathlib.Path("EXECUTED").write_text("pdlint ran repository code")  # (never: pdlint reads this file as text)


def model_id_label(name: str) -> str:
    return re.sub(r"[^a-z0-9-]", "-", name.lower())[:63]


env = Environment(loader=FileSystemLoader("templates"), trim_blocks=True, lstrip_blocks=True)
env.filters["model_id_label"] = model_id_label
print(env.get_template("httproute.yaml.j2").render(model_name="Qwen/Qwen3-0.6B"))
'''

HTTPROUTE = """
    apiVersion: gateway.networking.k8s.io/v1
    kind: HTTPRoute
    metadata:
      name: {{ model_name | model_id_label }}
    spec:
      parentRefs:
        - name: gateway
    """

SERVE = """
    #!/bin/sh
    python3 -m sglang.launch_server --model-path /models/m --disaggregation-mode {{ role }} \\
      --served-model-name {{ model_name | model_id_label }} --port 30000
    """


def _found(doc):
    return [(f["path"], f["line"], f["column"], f["code"], f["severity"]) for f in doc["findings"]]


def test_a_filter_the_repository_registers_is_no_error_in_a_template_without_launch(scratch_git):
    """rw30/a P4 (repro/4): `PD004 error: No filter named 'model_id_label'.` on an HTTPRoute template that the
    repository's tool/render.py renders after registering the filter.  Now nothing: the template holds no launch
    (as its undefined variables, PD005, are not reported there), scanned or named, and no repository code ran."""
    scratch_git.write("tool/render.py", RENDER_PY)
    scratch_git.write("templates/httproute.yaml.j2", HTTPROUTE)
    for args in ((".",), ("templates/httproute.yaml.j2",)):
        code, doc = scratch_git.lint(*args)
        assert (code, _found(doc)) == (0, []), args
    assert not (scratch_git.root / "EXECUTED").exists()


def test_a_registered_filter_on_a_launch_is_a_warning_naming_where_and_its_result_undecided(scratch_git):
    scratch_git.write("tool/render.py", RENDER_PY)
    scratch_git.write("templates/serve.sh.j2", SERVE)
    code, doc = scratch_git.lint("--var", "model_name=Qwen/Qwen3-0.6B", ".")
    assert code == 0
    assert _found(doc) == [("templates/serve.sh.j2", 3, 39, "PD016", "warning")]
    (f,) = doc["findings"]
    assert "No filter named 'model_id_label'" in f["message"] and "(tool/render.py:12)" in f["message"]
    assert 'filters = ["model_id_label"]' in f["fix"]
    # both roles built, the filtered value one pdlint cannot see (not a clean pass on it)
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
    argv = doc["launches"][0]["argv"]
    assert argv[argv.index("--served-model-name") + 1] == "$model_id_label"
    assert doc["coverage"]["undecided"] >= 1
    assert not (scratch_git.root / "EXECUTED").exists()
    # declared in the config: rendered the same way, without the warning
    scratch_git.write("pyproject.toml", '[tool.pdlint.jinja]\nfilters = ["model_id_label"]\n')
    code, doc = scratch_git.lint("--var", "model_name=Qwen/Qwen3-0.6B", ".")
    assert (code, _found(doc)) == (0, []) and len(doc["launches"]) == 2


def test_a_misspelt_builtin_filter_stays_an_error_with_did_you_mean(scratch_git):
    """`| defualt` is no filter anywhere: Jinja's "No filter named 'defualt'." stays PD004, with the builtin
    name it is close to; a real syntax error stays PD004 as before."""
    scratch_git.write("templates/serve.sh.j2", SERVE.replace("model_name | model_id_label", "model_name | defualt('m')"))
    code, doc = scratch_git.lint("--var", "model_name=m", ".")
    assert code == 1 and _found(doc) == [("templates/serve.sh.j2", 3, 39, "PD004", "error")]
    assert "No filter named 'defualt'. Did you mean 'default'?" in doc["findings"][0]["message"]
    scratch_git.write("templates/serve.sh.j2", SERVE + "{% if x %}\n")
    code, doc = scratch_git.lint("--var", "model_name=m", ".")
    assert code == 1 and [f[3] for f in _found(doc)] == ["PD004"]
    assert "Did you mean" not in doc["findings"][0]["message"]


def test_an_unknown_filter_or_test_nothing_registers_is_a_warning_saying_what_was_not_checked(scratch_git):
    scratch_git.write("templates/serve.sh.j2", SERVE.replace("model_id_label", "slugify_name").replace(
        "--port 30000", "--port 30000 {% if role is gpu_role %}--tp-size 2{% endif %}"))
    code, doc = scratch_git.lint("--var", "model_name=m", ".")
    assert code == 0
    assert [(f[1], f[3]) for f in _found(doc)] == [(3, "PD016"), (3, "PD016")]
    by = {f["message"].split("'")[1]: f for f in doc["findings"]}
    assert "no Python file of the repository" in by["slugify_name"]["message"]
    assert "answered false, so what it guards was not rendered" in by["gpu_role"]["message"]
    assert "pdlint: ignore[PD016]" in by["gpu_role"]["fix"]


def test_registrations_are_read_from_python_source_never_run():
    src = b'''
import jinja2
env = jinja2.Environment()
env.filters["a"] = str
self.env.tests['b'] = callable
env.filters.update(c=str, **{"d": str})
env.filters.update({"e": str})
# env.filters["commented"] = str
text = 'env.filters["in_a_string"] = str'
FILTERS = {"not_registered": str}

class FilterModule:
    def filters(self):
        return {"f": str}

@app.template_filter("g")
def g_impl(x):
    return x

@bp.app_template_test()
def h(x):
    return True
'''
    got = {k for k, _ in _jinja_registrations(src)}
    assert got == {("filter", "a"), ("test", "b"), ("filter", "c"), ("filter", "d"), ("filter", "e"),
                   ("filter", "f"), ("filter", "g"), ("test", "h")}
    assert _jinja_registrations(b"def broken(:\n") == []


def test_ansible_fully_qualified_filter_names_are_the_preset_ones(scratch_git):
    """`| ansible.builtin.to_json` is the preset's `to_json` (Ansible's template module resolves the collection
    name); an unknown collection filter (`community.general.foo`) is PD016, its result unseen."""
    scratch_git.write("pyproject.toml", '[tool.pdlint.jinja]\npreset = "ansible"\n')
    scratch_git.write("templates/serve.sh.j2", SERVE.replace("model_name | model_id_label",
                                                             "'m' | ansible.builtin.to_json"))
    code, doc = scratch_git.lint(".")
    assert (code, _found(doc)) == (0, [])
    argv = doc["launches"][0]["argv"]
    assert argv[argv.index("--served-model-name") + 1] == "m"  # (shell quoting: "m" is m)
    scratch_git.write("templates/serve.sh.j2", SERVE.replace("model_id_label", "community.general.foo"))
    code, doc = scratch_git.lint("--var", "model_name=m", ".")
    assert [(f[3], f[4]) for f in _found(doc)] == [("PD016", "warning")]
    assert "No filter named 'community.general.foo'" in doc["findings"][0]["message"]


def test_a_loop_over_an_unknown_filter_result_writes_nothing_not_its_placeholder_letters(scratch_git):
    """The stand-in's result is opaque text that a loop walks as empty: `{% for a in extra | expand %}` wrote
    `--$ --e --x ...`, one flag per character of `$expand` (false unknown-flag errors)."""
    scratch_git.write("templates/serve.sh.j2", SERVE.replace(
        "--port 30000", "--port 30000 {% for a in extra | expand %}--{{ a }} {% endfor %}"))
    code, doc = scratch_git.lint("--var", "model_name=m", "--var", "extra=x", ".")
    assert [f[3] for f in _found(doc)] == ["PD016", "PD016"]  # (model_id_label, expand)
    argv = doc["launches"][0]["argv"]
    assert argv[-2:] == ["--port", "30000"]
