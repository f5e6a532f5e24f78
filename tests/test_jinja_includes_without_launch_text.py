"""A Jinja template that imports, includes or extends only templates without launch text is no launch template
(keivenchang/dynamo-utils' HTML dashboards, field test rw12/d: `{% from "macros.j2" import ... %}` made the page
"may launch", its Python-context variables 22 PD005 errors and its HTML a PD009 shell syntax error, while
pdlint said "No launch text found"). One whose included template holds launch text, or whose include cannot
be read, is still rendered and judged."""

PAGE = """\
{%- from "macros.j2" import hello -%}
<!DOCTYPE html>
<html>
<body>
  <p>Generated {{ generated_time }}</p>
  {% for c in commits %}<li>{{ hello(c.sha) }}</li>{% endfor %}
</body>
</html>
"""


def _codes(doc):
    return sorted(f["code"] for f in doc["findings"])


def test_a_page_importing_macros_without_launch_text_is_not_judged(scratch_git):
    scratch_git.write("html/macros.j2", "{% macro hello(x) %}<b>{{ x }}</b>{% endmacro %}\n")
    scratch_git.write("html/page.j2", PAGE)
    scratch_git.write("html/layout.j2", "<html>{% block body %}{% endblock %}</html>\n")
    scratch_git.write("html/child.j2", '{% extends "layout.j2" %}{% block body %}{{ rows }}{% endblock %}\n')
    code, doc = scratch_git.lint("html")
    assert (code, _codes(doc)) == (0, [])


def test_a_template_whose_include_holds_launch_text_is_judged(scratch_git):
    scratch_git.write("t/flags.j2", "--disaggregation-mode {{ role }} --tp-size {{ tp }}\n")
    scratch_git.write("t/run.sh.j2", '#!/bin/bash\npython -m sglang.launch_server --model-path m '
                                     '{% include "flags.j2" %}\n')
    code, doc = scratch_git.lint("t/run.sh.j2")
    assert "PD005" in _codes(doc)  # tp is undefined: the launch it renders is incomplete
    # an include pdlint cannot read may hold launch text: its page's undefined variables are still reported
    scratch_git.write("h/page.j2", PAGE.replace('"macros.j2"', '"missing.j2"'))
    code, doc = scratch_git.lint("h/page.j2")
    assert "PD007" in _codes(doc), doc["findings"]
