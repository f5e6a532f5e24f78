"""Inline suppressions (pdlint/suppress.py): YAML / shell / Jinja / Go-template
comments, on the line or the line above, file level, ruff's noqa form,
unused suppressions (PD070) and --ignore-noqa."""

import json
import textwrap

import pytest

from pdlint.cli import main
from pdlint.suppress import directives
from pdlint.text import SourceFile

ANCHOR = textwrap.dedent("""\
    common: &common
      - --model-path
      - /models/q
    {above}  - --enable-linear-replayssm-spec{trailing}
    prefill:
      containers:
        - name: p
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
          args: *common
    decode:
      containers:
        - name: d
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode]
          args: *common
    """)

TEMPLATE = textwrap.dedent("""\
    {above}{% set shared_flags = ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "2",
                           "--enable-linear-replayssm-spec"] %}
    containers:
      - name: {{ role }}
        image: lmsysorg/sglang:v0.5.23
        command: ["python3", "-m", "sglang.launch_server"]
        args:
    {% for flag in shared_flags %}
          - "{{ flag }}"
    {% endfor %}
          - "--disaggregation-mode"
          - "{{ role }}"
    """)

SCRIPT = textwrap.dedent("""\
    #!/bin/bash
    {above}python3 -m sglang.launch_server --model-path /m \\
        --enable-linear-replayssm-spec \\
        --disaggregation-mode prefill{trailing}
    """)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(capsys, *args):
    code = main(["--format", "json", *args])
    doc = json.loads(capsys.readouterr().out)
    return code, [(f["code"], f["line"]) for f in doc["findings"]]


def template(above=""):
    return above + TEMPLATE.replace("{above}", "", 1)


def anchor(above="", trailing=""):
    return ANCHOR.format(above=above, trailing=trailing)


def test_unsuppressed_finding_fires(repo, capsys):
    (repo / "pd.yaml").write_text(anchor())
    assert findings(capsys, "pd.yaml") == (1, [("SGL101", 4)])


@pytest.mark.parametrize("above, trailing", [
    ("  # pdlint: ignore[SGL101] decode only; the operator drops it for prefill\n", ""),
    ("", "   # pdlint: ignore[SGL101]"),
    ("", "  # pdlint: ignore[ SGL102 , sgl101 ]"),
    ("", "  # pdlint: ignore[linear-replayssm-spec-on-prefill]"),
    ("", "  # noqa: SGL101"),
    ("", "  # noqa: E501, SGL101"),
    ("  # pdlint: ignore[SGL101]\n  # (stacked comment lines above one line all cover it)\n", ""),
])
def test_yaml_suppression_at_the_shared_origin(repo, capsys, above, trailing):
    """The shared anchor line is where the finding is placed; a directive
    there covers it for both launches that reach it."""
    (repo / "pd.yaml").write_text(anchor(above, trailing))
    code, found = findings(capsys, "pd.yaml")
    if "SGL102" in trailing:  # the other code of the directive covered nothing
        assert code == 0 and [c for c, _ in found] == ["PD070"]
    else:
        assert (code, found) == (0, [])


@pytest.mark.parametrize("above, trailing", [
    ("", "  # pdlint: ignore[SGL102]"),  # another code
    ("  # pdlint: ignore[SGL101]\n\n", ""),  # not the line above: a blank line between
    ("", "  # noqa"),  # a blanket noqa is not pdlint's
    ("", "  # pdlint:ignore SGL101"),  # not the syntax
    ("", "  #pdlint: ignore[SGL103]x"),  # SGL103 only
])
def test_yaml_suppression_that_does_not_cover(repo, capsys, above, trailing):
    (repo / "pd.yaml").write_text(anchor(above, trailing))
    code, found = findings(capsys, "pd.yaml")
    assert code == 1 and ("SGL101", 4 + above.count("\n")) in found


def test_directive_in_running_text_is_not_a_directive(repo, capsys):
    (repo / "run.sh").write_text(SCRIPT.format(above='echo "pdlint: ignore[SGL101]"\n',
                                               trailing=' x#pdlint: ignore[SGL101]'))
    assert ("SGL101", 4) in findings(capsys, "run.sh")[1]


def test_jinja_comment_above_a_multi_line_set(repo, capsys):
    (repo / "pd.yaml.j2").write_text(template(""))
    assert findings(capsys, "pd.yaml.j2") == (1, [("SGL101", 2)])
    (repo / "pd.yaml.j2").write_text(template("{# pdlint: ignore[SGL101] prefill drops it #}\n"))
    assert findings(capsys, "pd.yaml.j2") == (0, [])
    (repo / "pd.yaml.j2").write_text(template("{#- pdlint: ignore[SGL101] -#}\n"))
    assert findings(capsys, "pd.yaml.j2") == (0, [])
    (repo / "pd.yaml.j2").write_text(template("{# pdlint: ignore[SGL101] #} {% set x = 1 %}\n"))
    # that comment is on a line of code: it covers that line only, and nothing fires there
    assert findings(capsys, "pd.yaml.j2") == (1, [("PD070", 1), ("SGL101", 3)])


def test_jinja_trailing_comment(repo, capsys):
    text = template("").replace('"--enable-linear-replayssm-spec"] %}',
                                             '"--enable-linear-replayssm-spec"] %}  {# pdlint: ignore[SGL101] #}')
    (repo / "pd.yaml.j2").write_text(text)
    assert findings(capsys, "pd.yaml.j2") == (0, [])


def test_suppression_in_an_included_partial(repo, capsys):
    (repo / "partials").mkdir()
    (repo / "pd.yaml.j2").write_text(template("").replace(
        '{% for flag in shared_flags %}\n      - "{{ flag }}"\n{% endfor %}\n', '{% include "partials/flags.j2" %}\n'))
    (repo / "partials" / "flags.j2").write_text(
        '      - "--model-path"\n      - "/m"\n      - "--enable-linear-replayssm-spec"  # pdlint: ignore[SGL101]\n')
    assert findings(capsys, "pd.yaml.j2") == (0, [])
    assert findings(capsys, "--ignore-noqa", "pd.yaml.j2") == (1, [("SGL101", 3)])


def test_shell_continued_command(repo, capsys):
    (repo / "run.sh").write_text(SCRIPT.format(above="", trailing=""))
    assert findings(capsys, "run.sh") == (1, [("SGL101", 3)])
    # a comment cannot sit inside a continued command: after its last line, or above its first
    (repo / "run.sh").write_text(SCRIPT.format(above="", trailing="  # pdlint: ignore[SGL101]"))
    assert findings(capsys, "run.sh") == (0, [])
    (repo / "run.sh").write_text(SCRIPT.format(above="# pdlint: ignore[SGL101] reason\n", trailing=""))
    assert findings(capsys, "run.sh") == (0, [])


def test_skip_file(repo, capsys):
    (repo / "pd.yaml").write_text("# pdlint: skip-file\n" + anchor())
    (repo / "run.sh").write_text(SCRIPT.format(above="", trailing=""))
    assert findings(capsys, ".") == (1, [("SGL101", 3)])  # run.sh only
    (repo / "run.sh").write_text(SCRIPT.format(above="", trailing="") + "{# pdlint: skip-file #}\n")
    assert findings(capsys, ".") == (0, [])


def test_unused_suppressions_are_reported(repo, capsys):
    (repo / "pd.yaml").write_text(anchor("", "  # pdlint: ignore[SGL101, SGL102, BOGUS9]"))
    code = main(["pd.yaml"])
    out = capsys.readouterr().out
    assert code == 0
    assert "pd.yaml:4:37: PD070 warning: unused suppression of SGL102: no SGL102 finding on this line" in out
    assert "unused suppression of BOGUS9: 'BOGUS9' is not a pdlint rule code" in out
    assert "help: Remove SGL102 from the comment" in out
    assert main(["--strict", "pd.yaml"]) == 1
    capsys.readouterr()
    # a rule that is not enabled: the suppression covers nothing
    (repo / "pd.yaml").write_text(anchor("", "  # pdlint: ignore[SGL101]"))
    code = main(["--ignore", "SGL101", "pd.yaml"])
    assert code == 0 and "unused suppression of SGL101: SGL101 is not enabled here" in capsys.readouterr().out
    # PD070 itself can be turned off, or named in the directive
    assert findings(capsys, "--ignore", "SGL101,PD070", "pd.yaml") == (0, [])
    (repo / "pd.yaml").write_text(anchor("", "  # pdlint: ignore[SGL102, PD070]"))
    assert findings(capsys, "pd.yaml") == (1, [("SGL101", 4)])
    # the finding fixed: the suppression is now stale
    (repo / "pd.yaml").write_text(anchor("", "  # pdlint: ignore[SGL101]").replace("replayssm", "x"))
    assert ("PD070", 4) in findings(capsys, "pd.yaml")[1]


def test_noqa_with_other_tools_codes_only_is_left_alone(repo, capsys):
    (repo / "pd.yaml").write_text(anchor("", "  # noqa: E501"))
    assert findings(capsys, "pd.yaml") == (1, [("SGL101", 4)])


def test_ignore_noqa_audits_every_suppression(repo, capsys):
    (repo / "pd.yaml").write_text(anchor("", "  # pdlint: ignore[SGL101, SGL102]"))
    assert findings(capsys, "--ignore-noqa", "pd.yaml") == (1, [("SGL101", 4)])  # no PD070 either
    (repo / "pd.yaml").write_text("# pdlint: skip-file\n" + anchor())
    assert findings(capsys, "--ignore-noqa", "pd.yaml") == (1, [("SGL101", 5)])


def test_directive_forms_unit():
    src = SourceFile("x", textwrap.dedent("""\
        a: 1  # pdlint: ignore[SGL101] reason
        # pdlint: ignore[PD005]
        {{/* pdlint: ignore[SGL102] */}}
        {{- /* pdlint: ignore[SGL103] */ -}} --flag
        b: "text # pdlint: ignore[SGL104]"
        x#pdlint: ignore[SGL105]
        """))
    got = [(d.line, d.codes, d.form, d.own_line) for d in directives(src)]
    assert got == [(1, ("SGL101",), "pdlint", False), (2, ("PD005",), "pdlint", True),
                   (3, ("SGL102",), "pdlint", True), (4, ("SGL103",), "pdlint", False)]
    assert directives(SourceFile("y", "no directives here\n")) == []


@pytest.mark.parametrize("path, line, is_directive", [
    # a "#" inside a quoted string is text: an echo that explains pdlint, a flag's value
    ("run.sh", 'echo "to opt out add # pdlint: skip-file to a script"', False),
    ("run.sh", "echo 'a # pdlint: ignore[SGL101]'", False),
    ("run.sh", 'serve --log-level "info # pdlint: ignore[PD020] x"', False),
    ("run.sh", 'serve --x "a\\"b # pdlint: ignore[SGL101]"', False),  # an escaped quote does not close it
    ("pd.yaml", 'b: "text # pdlint: ignore[SGL104]"', False),
    ("pd.yaml", "b: 'it''s # pdlint: ignore[SGL104]'", False),  # '' inside single quotes
    # a comment
    ("run.sh", 'serve --log-level "info"  # pdlint: ignore[SGL101]', True),
    ("run.sh", "serve --x it\\'s  # pdlint: ignore[SGL101]", True),  # an escaped quote opens nothing
    ("run.sh", 'echo "a" # don\'t # pdlint: ignore[SGL101]', True),  # inside an earlier comment
    ("pd.yaml", "- --name it's  # pdlint: ignore[SGL101]", True),  # YAML: a quote inside a plain scalar
    ("pd.yaml", "- '--x'  # NOQA: SGL101", True),  # noqa in any case, as ruff and flake8 read it
    ("pd.yaml.j2", '- "{# pdlint: ignore[SGL101] #}"', True),  # a Jinja comment is one wherever it is
    ("pd.yaml.j2", "- --name it's  # pdlint: ignore[SGL101]", True),  # a YAML template reads as YAML
    ("run.sh.j2", "serve --name it's  # pdlint: ignore[SGL101]", False),  # a shell template as shell
])
def test_a_hash_directive_inside_a_quoted_string_is_text(path, line, is_directive):
    assert bool(directives(SourceFile(path, line + "\n"))) is is_directive


@pytest.mark.parametrize("text, is_directive", [
    # hostile-input round rw32/h P7: inside `{% raw %}` a `{# #}` is text Jinja writes out, not a comment
    ("{% raw %}{# pdlint: skip-file #}{% endraw %}\n", False),
    ("{%- raw -%}\nx\n{# pdlint: ignore[SGL101] #}\n{%- endraw %}\n", False),
    ("{% raw %}never closed\n{# pdlint: skip-file #}\n", False),
    # before and after a raw block, and the block's own shell comment: comments
    ("{# pdlint: skip-file #}{% raw %}{{ x }}{% endraw %}\n", True),
    ("{% raw %}{{ x }}{% endraw %}{# pdlint: skip-file #}\n", True),
    # rw33/h P7: a `{% raw %}` a comment or an expression mentions opens no block (jinja2 renders the comment away)
    ("{# wrap Go templates in {% raw %} #}\n{# pdlint: skip-file #}\n", True),
    ("{{ '{% raw %}' }}\n{# pdlint: skip-file #}\n", True),
])
def test_a_jinja_comment_inside_a_raw_block_is_text(text, is_directive):
    assert bool(directives(SourceFile("run.sh.j2", text))) is is_directive


@pytest.mark.parametrize("path, text, is_directive", [
    # a line of a string opened on an earlier line: text, not a comment (field test rw20/h)
    ("run.sh", 'usage="Usage: run.sh\n# pdlint: skip-file\n"\n', False),
    ("run.sh", "cat > x.sh <<'EOF'\n# pdlint: skip-file\nEOF\n", False),  # a here-document's body
    ("pd.yaml", 'a: "x\n  # pdlint: skip-file\n  y"\n', False),
    ("pd.yaml", "a: |\n  # pdlint: skip-file\n  y\n", False),
    # a template's strings, read with its `{{ }}` / `{% %}` blanked (field test rw21/h)
    ("run.sh.j2", 'usage="Usage: {{ name }}\n# pdlint: skip-file\n"\n', False),
    ("pd.yaml.j2", 'a: |\n  {% if x %}\n  # pdlint: skip-file\n  {% endif %}\n', False),
    ("run.sh.j2", 'usage="{{ name }}"\n# pdlint: skip-file\n', True),
    # a comment after such a string
    ("run.sh", 'usage="Usage: run.sh\n"\n# pdlint: skip-file\n', True),
    ("pd.yaml", 'a: "x\n  y"\n# pdlint: skip-file\n', True),
])
def test_a_directive_line_inside_a_string_of_several_lines_is_text(path, text, is_directive):
    assert bool(directives(SourceFile(path, text))) is is_directive


def test_skip_file_in_a_usage_message_does_not_skip_the_file(repo, capsys):
    usage = 'usage() { echo "to opt out of pdlint add # pdlint: skip-file to a script"; }\n'
    (repo / "run.sh").write_text(SCRIPT.format(above=usage, trailing=""))
    assert findings(capsys, "run.sh") == (1, [("SGL101", 4)])
    (repo / "run.sh").write_text(SCRIPT.format(above="# pdlint: skip-file\n", trailing=""))
    assert findings(capsys, "run.sh") == (0, [])
