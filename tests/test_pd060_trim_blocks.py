"""PD060 on a template's block-tag line when the repository's own Python renders its templates with Jinja's
`trim_blocks`: there the `{% if %}` line is never blank.  Field test rw21/a: ai-dynamo/aiconfigurator
(src/aiconfigurator/generator/rendering/engine.py: `Environment(trim_blocks=True, lstrip_blocks=True)`) had two false
PD060 errors on its benchmark templates.  Field test rw22/h: dropping the finding left the flags after the tag lines
unchecked (pdlint still rendered without trim_blocks), and a comment naming the option turned it off: it is now a
warning that says so, and only a real `Environment(...)` call counts."""

import pytest

TEMPLATE = """\
#!/bin/bash
python3 -m sglang.launch_server --model-path m --disaggregation-mode {{ role }} \\
{% if tp %}
    --tp-size {{ tp }} \\
{% endif %}
    --port 30000
"""

RENDER_PY = "import jinja2\nENV = jinja2.Environment(\n    loader=None,\n    trim_blocks=True,\n    lstrip_blocks=True,\n)\n"


def _findings(scratch_git, files):
    for name, text in files.items():
        scratch_git.write(name, text)
    _, report = scratch_git.lint("--var", "tp=2", "run.sh.j2")
    return report["findings"]


def _codes(scratch_git, files, severity="error"):
    return [f["code"] for f in _findings(scratch_git, files) if f["severity"] == severity]


def test_a_tag_line_breaks_the_command_where_nothing_trims_it(scratch_git):
    assert "PD060" in _codes(scratch_git, {"run.sh.j2": TEMPLATE})


def test_the_repositorys_renderer_trims_block_lines(scratch_git):
    """The command is checked as the repository's Python renders it, whole; one warning at the tag lines says so
    (field test rw23/h: the flags after them were a PD060 warning and never checked, so any trim_blocks call in the
    repository - dead code - passed an SGL001 / SGL101 there)."""
    files = {"run.sh.j2": TEMPLATE.replace("--tp-size {{ tp }}", "--tp-size {{ tp }} --bogus-after-tag"),
             "gen/render.py": RENDER_PY}
    found = _findings(scratch_git, files)
    (f,) = [f for f in found if f["code"] == "PD060"]
    assert (f["severity"], f["line"], f["column"]) == ("warning", 3, 1)
    assert f["message"].startswith("a command continues across block-tag lines: rendered without trim_blocks")
    assert "checked as rendered with trim_blocks=True, as the repository's Python renders templates " \
           "(gen/render.py:2)" in f["message"]
    assert "[tool.pdlint.jinja] trim-blocks = true" in f["fix"]
    assert [g["code"] for g in found if g["severity"] == "error"] == ["SGL001"]  # (the flags after the tags)


@pytest.mark.parametrize("py", [
    "# ENV = jinja2.Environment(trim_blocks=True)\n",  # a comment
    "DOC = 'Environment(loader=None, trim_blocks=True)'\n",  # a string
    "ENV = jinja2.Environment(trim_blocks=False)\n",
])
def test_only_a_real_environment_call_with_trim_blocks_counts(scratch_git, py):
    assert "PD060" in _codes(scratch_git, {"run.sh.j2": TEMPLATE, "notes.py": py})


def test_the_config_then_checks_the_command_whole(scratch_git):
    files = {"run.sh.j2": TEMPLATE.replace("--tp-size {{ tp }}", "--tp-size {{ tp }} --bogus-after-tag"),
             "gen/render.py": RENDER_PY, "pyproject.toml": "[tool.pdlint.jinja]\ntrim-blocks = true\n"}
    assert _codes(scratch_git, files) == ["SGL001"]


def test_a_config_that_says_how_templates_render_wins(scratch_git):
    files = {"run.sh.j2": TEMPLATE, "gen/render.py": RENDER_PY,
             "pyproject.toml": "[tool.pdlint.jinja]\ntrim-blocks = false\n"}
    assert "PD060" in _codes(scratch_git, files)


def test_a_real_blank_line_still_breaks_it(scratch_git):
    text = TEMPLATE.replace("{% endif %}\n", "{% endif %}\n\n")
    assert "PD060" in _codes(scratch_git, {"run.sh.j2": text, "gen/render.py": RENDER_PY})
