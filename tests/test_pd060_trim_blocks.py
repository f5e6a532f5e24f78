"""PD060 on a template's block-tag line when the repository's own Python renders its templates with Jinja's
`trim_blocks`: there the `{% if %}` line is never blank.  Field test rw21/a: ai-dynamo/aiconfigurator
(src/aiconfigurator/generator/rendering/engine.py: `Environment(trim_blocks=True, lstrip_blocks=True)`) had two false
PD060 errors on its benchmark templates."""

TEMPLATE = """\
#!/bin/bash
python3 -m sglang.launch_server --model-path m --disaggregation-mode {{ role }} \\
{% if tp %}
    --tp-size {{ tp }} \\
{% endif %}
    --port 30000
"""

RENDER_PY = "import jinja2\nENV = jinja2.Environment(\n    loader=None,\n    trim_blocks=True,\n    lstrip_blocks=True,\n)\n"


def _codes(scratch_git, files):
    for name, text in files.items():
        scratch_git.write(name, text)
    _, report = scratch_git.lint("--var", "tp=2", "run.sh.j2")
    return [f["code"] for f in report["findings"]]


def test_a_tag_line_breaks_the_command_where_nothing_trims_it(scratch_git):
    assert "PD060" in _codes(scratch_git, {"run.sh.j2": TEMPLATE})


def test_the_repositorys_renderer_trims_block_lines(scratch_git):
    assert "PD060" not in _codes(scratch_git, {"run.sh.j2": TEMPLATE, "gen/render.py": RENDER_PY})


def test_a_config_that_says_how_templates_render_wins(scratch_git):
    files = {"run.sh.j2": TEMPLATE, "gen/render.py": RENDER_PY,
             "pyproject.toml": "[tool.pdlint.jinja]\ntrim-blocks = false\n"}
    assert "PD060" in _codes(scratch_git, files)


def test_a_real_blank_line_still_breaks_it(scratch_git):
    text = TEMPLATE.replace("{% endif %}\n", "{% endif %}\n\n")
    assert "PD060" in _codes(scratch_git, {"run.sh.j2": text, "gen/render.py": RENDER_PY})
