"""Hostile round rw32/h problem 4: a template over its time budget was a PD008 *warning* ("it holds no launch
text pdlint knows, nor do the files it includes or sources"), exit 0, when its include name was computed
(``{% include "parts/" ~ role ~ ".txt" %}``): lint.names_launch_text looked the expression's words up as paths
(``parts``, ``role``, ``.txt``), found none, and said the file names no launch text - while parts/prefill.txt holds
a launch (SGL001 on a normal run: sglang's ``launch_server: error: unrecognized arguments: --tp-sizee``).  A PR
controls the template's cost (nested ``range(99999)`` loops), so a launch became unchecked with exit 0.

Now a name pdlint cannot know without evaluating it - a Jinja expression that is not one string literal (or a list
of them), a template name that names no file, a `source` word with an expansion - keeps the PD008 an error, with
no claim about the files it includes.  The render's budget runs out at once here (no test waits 10 s).
"""

import pytest

LAUNCH = "python -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} --tp-sizee 2\n"
QUIET = "echo {{ role }} starting\n"


def _over_budget_in_render(monkeypatch):
    """The Jinja render of every template runs out of its time budget before it reads an include."""
    from pdlint import budget
    from pdlint.render import jinja

    def raise_(*a, **k):
        raise budget.OverBudget("time", "jinja render", "10 s")

    monkeypatch.setattr(jinja, "_reached_role_info", raise_)


def _pd008(doc, path):
    return [(f["code"], f["severity"], f["message"]) for f in doc["findings"] if f["path"] == path]


@pytest.mark.parametrize("tag", [
    '{% include "parts/" ~ role ~ ".txt" %}',
    '{% include "parts/%s.txt" % role %}',
    '{% set n = "parts/" ~ role ~ ".txt" %}{% include n %}',
    '{% include ["parts/" ~ role ~ ".txt", "parts/none.txt"] %}',
    '{% import "parts/" ~ role ~ ".txt" as m %}',
    '{% extends role_template %}',
    '{% include "parts/missing.txt" %}',  # (names no file: the render would read one pdlint cannot)
])
def test_an_over_budget_template_with_a_computed_include_is_an_error(scratch, monkeypatch, tag):
    _over_budget_in_render(monkeypatch)
    scratch.write("parts/prefill.txt", LAUNCH)
    scratch.write("parts/decode.txt", LAUNCH)
    scratch.write("launch.sh.j2", "#!/bin/bash\n" + tag + "\n")
    code, doc = scratch.lint("launch.sh.j2")
    assert _pd008(doc, "launch.sh.j2") == [("PD008", "error", "not checked: exceeded 10 s in jinja render")]
    assert code == 1


@pytest.mark.parametrize("tag", [
    '{% include "parts/quiet.txt" %}',
    '{%- include "parts/quiet.txt" -%}',
    '{% include ["parts/missing.txt", "parts/quiet.txt"] %}',
    '{% include "parts/missing.txt" ignore missing %}',
    '{% from "parts/quiet.txt" import x %}',
])
def test_an_over_budget_template_with_a_literal_include_without_launch_text_stays_a_warning(scratch, monkeypatch,
                                                                                           tag):
    """The quiet neighbour: the file it includes is named by a literal and holds no launch text (nor does the
    template itself): no launch it names went unchecked."""
    _over_budget_in_render(monkeypatch)
    scratch.write("parts/quiet.txt", QUIET)
    scratch.write("parts/prefill.txt", LAUNCH)  # (a file the literal does not name)
    scratch.write("launch.sh.j2", "#!/bin/bash\n" + tag + "\n")
    code, doc = scratch.lint("launch.sh.j2")
    ((c, severity, message),) = _pd008(doc, "launch.sh.j2")
    assert (c, severity, code) == ("PD008", "warning", 0)
    assert "nor do the files it includes or sources" in message


def test_an_over_budget_template_with_a_literal_include_of_launch_text_is_an_error(scratch, monkeypatch):
    _over_budget_in_render(monkeypatch)
    scratch.write("parts/prefill.txt", LAUNCH)
    scratch.write("launch.sh.j2", '#!/bin/bash\n{% include "parts/prefill.txt" %}\n')
    code, doc = scratch.lint("launch.sh.j2")
    assert _pd008(doc, "launch.sh.j2") == [("PD008", "error", "not checked: exceeded 10 s in jinja render")]


def _over_budget_in_shell(monkeypatch, path: str) -> None:
    import pdlint.formats.shell as shell
    from pdlint import budget
    real = shell.shell_commands

    def slow(doc, *a, **k):
        if doc.pieces and doc.pieces[0].src is not None and doc.pieces[0].src.path == path:
            raise budget.OverBudget("time", "shell", "10 s")
        return real(doc, *a, **k)

    monkeypatch.setattr(shell, "shell_commands", slow)


@pytest.mark.parametrize("line", ['source "$DIR/lib/$ROLE.sh"', '. "$LIB"', 'source `pwd`/lib/x.sh',
                                  'source lib/*.sh'])
def test_an_over_budget_script_sourcing_a_computed_name_is_an_error(scratch, monkeypatch, line):
    """A script whose `source` word is computed (bash reads the file the expansion names: any of lib/'s files)."""
    _over_budget_in_shell(monkeypatch, "run.sh")
    scratch.write("lib/prefill.sh", LAUNCH.replace("{{ role }}", "prefill"))
    scratch.write("run.sh", "set -e\n" + line + "\n")
    code, doc = scratch.lint("run.sh")
    assert _pd008(doc, "run.sh") == [("PD008", "error", "not checked: exceeded 10 s in shell")] and code == 1


def test_an_over_budget_script_sourcing_literal_names_without_launch_text_stays_a_warning(scratch, monkeypatch):
    """The quiet neighbour: literal names, in the repository without launch text or outside it (a file pdlint
    reads in no run: conda's profile script, the user's home)."""
    _over_budget_in_shell(monkeypatch, "run.sh")
    scratch.write("lib/common.sh", "log() { echo \"$@\"; }\n")
    scratch.write("run.sh", "set -e\nsource ./lib/common.sh\n. /opt/conda/etc/profile.d/conda.sh\n"
                            "source ~/.bashrc\n")
    code, doc = scratch.lint("run.sh")
    ((c, severity, _),) = _pd008(doc, "run.sh")
    assert (c, severity, code) == ("PD008", "warning", 0)
