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
    assert "checked as rendered with trim_blocks=True there, as the repository's Python renders templates " \
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


def test_only_the_continued_command_is_trimmed(scratch_git):
    """Hostile-input test rw24/h item 8: the whole template rendered with trim_blocks joined a line ending in a
    `{% if %}{% endif %}` comment with the next one, a launch, in pdlint's render only: that launch (markers split
    with `{{ "_" }}`) was a comment, unchecked, no word.  A render without trim_blocks keeps it a line of its own."""
    text = ("#!/bin/bash\n"
            "python3 -m sglang.launch_server --model-path m --disaggregation-mode decode \\\n"
            "{% if tp %}\n"
            "    --tp-size {{ tp }} \\\n"
            "{% endif %}\n"
            "    --port 30000 &\n"
            "echo ready # {% if true %}{% endif %}\n"
            'python -m sglang.launch{{ "_" }}server --model-path m --disaggregation{{ "-" }}mode prefill '
            "--port 30001 --enable-linear-replayssm-spec &\n"
            "wait\n")
    found = _findings(scratch_git, {"run.sh.j2": text, "gen/render.py": RENDER_PY})
    assert [(f["code"], f["line"]) for f in found if f["code"] in ("PD060", "PD020", "SGL101")] == \
        [("PD060", 3), ("SGL101", 8)]


@pytest.mark.parametrize("tag, trimmed", [
    ("{% if tp %}", "{% if tp-%}"),
    ("{%if tp%}", None),  # (no space to trade for the `-`: the whole template is trimmed, as before)
])
def test_trim_continued_keeps_positions(tag, trimmed):
    from pdlint.render.jinja import trim_continued
    text = f"cmd \\\n{tag}\n  --a \\\n{{% endif %}}\n  --b\nnext # {{% if x %}}{{% endif %}}\nlast\n"
    out = trim_continued(text)
    if trimmed is None:
        assert out is None
    else:
        assert out == text.replace(tag, trimmed).replace("{% endif %}\n  --b", "{% endif-%}\n  --b")
        assert len(out) == len(text)
