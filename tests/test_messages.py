"""Messages a user acts on (issue 11 item 5), each through ``main``: a removed flag is said to be removed
(with its replacement), an include-only partial is checked in its includer's context only, an undefined
variable gets a did-you-mean and the role-switch hint, a YAML syntax error names where the unclosed
bracket or quote opened, a non-UTF-8 file is reported by line and column, and a run with nothing to check
says so."""

import json
import subprocess
import textwrap

import pytest

from pdlint.cli import main


@pytest.fixture
def repo(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def put(root, name, text, mode="w"):
    p = root / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(textwrap.dedent(text))
    return p


def findings(capsys, *args):
    code = main(["--format", "json", "--no-cache", *args])
    out = capsys.readouterr()
    return code, json.loads(out.out)["findings"], out.err


def text(capsys, *args):
    code = main(["--no-cache", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# -- a flag removed or renamed in the judged release --------------------------------------------------------

def test_a_removed_flag_is_reported_as_removed_with_its_replacement_not_as_ambiguous(repo, capsys):
    put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --cuda-graph-max-bs 8\n")
    code, fs, _ = findings(capsys, "--sglang-version", "0.5.23", "run.sh")
    assert code == 1
    assert [f["code"] for f in fs] == ["SGL009"]  # removed-flag, not SGL002 ambiguous-option
    (f,) = fs
    assert f["message"].startswith("--cuda-graph-max-bs was removed in SGLang 0.5.20")
    assert "use --cuda-graph-max-bs-decode" in f["message"]
    assert "write the full flag name" not in f["message"] + f.get("fix", "")
    # in the release that deprecated it: a deprecation warning naming the replacement
    code, fs, _ = findings(capsys, "--sglang-version", "0.5.19", "run.sh")
    assert [f["code"] for f in fs] == ["SGL008"]
    assert "use --cuda-graph-max-bs-decode" in fs[0]["message"]


def test_a_prefix_that_is_no_flag_of_its_own_stays_ambiguous(repo, capsys):
    put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --cuda-graph-max 8\n")
    code, fs, _ = findings(capsys, "--sglang-version", "0.5.23", "run.sh")
    assert [f["code"] for f in fs] == ["SGL002"] and "ambiguous option" in fs[0]["message"]


# -- include-only partials -------------------------------------------------------------------------------

LAUNCH = """\
    #!/bin/bash
    python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} \\
    {% include "_flags.sh.j2" -%}
      --port 30000
    """
PARTIAL = """\
      --tp-size 2 \\
      --page-size 64 \\
    """


def test_an_include_only_partial_is_checked_in_its_includers_context_only(repo, capsys):
    put(repo, "launch.sh.j2", LAUNCH)
    put(repo, "_flags.sh.j2", PARTIAL)
    for args in ([], ["--force-exclude", "_flags.sh.j2"], ["_flags.sh.j2", "launch.sh.j2"]):
        code, out, _ = text(capsys, "--strict", *(args or ["."]))
        assert code == 0, (args, out)
        assert "PD009" not in out
        assert "2 launches checked (1 prefill, 1 decode, 0 routers) in 2 files" in out
    # its flags are checked in the includer's renders: a finding there is placed in the partial
    put(repo, "_flags.sh.j2", PARTIAL.replace("--page-size 64", "--enable-linear-replayssm-spec"))
    code, fs, _ = findings(capsys, "--strict", ".")
    assert code == 1
    assert [(f["path"], f["line"], f["code"], f["role"]) for f in fs] == [("_flags.sh.j2", 2, "SGL101", "prefill")]


def test_an_unreadable_partial_is_still_reported_once(repo, capsys):
    put(repo, "launch.sh.j2", LAUNCH)
    put(repo, "_flags.sh.j2", b"  --tp-size 2 \xff\n")
    code, fs, _ = findings(capsys, ".")
    assert [(f["path"], f["code"]) for f in fs if f["code"] == "PD002"] == [("_flags.sh.j2", "PD002")]


def test_a_fragment_no_template_includes_is_still_checked_alone(repo, capsys):
    put(repo, "_flags.sh.j2", PARTIAL)  # no includer in the run: pdlint says what it sees
    code, out, _ = text(capsys, "--strict", ".")
    # a flag list whose last `\` runs into the end of the text parses in bash (it was PD009 from
    # tree-sitter-bash); the words are no launch text
    assert code == 0 and "PD009" not in out and "No launch text found in 1 file." in out, out


# -- undefined variables ---------------------------------------------------------------------------------

def test_undefined_variable_gets_a_did_you_mean_over_the_defined_names(repo, capsys):
    put(repo, "pyproject.toml", '[tool.pdlint.vars]\nmodel_path = "/m"\n')
    put(repo, "pd.sh.j2", """\
        {% set tp_size = 2 %}
        python3 -m sglang.launch_server --model-path {{ model_pth }} --tp {{ tp_sise }} \\
          --disaggregation-mode {{ role }} --port {{ port }}
        """)
    code, fs, _ = findings(capsys, "pd.sh.j2")
    msgs = sorted(f["message"] for f in fs if f["code"] == "PD005")
    assert msgs == ["undefined variable 'model_pth'; did you mean 'model_path'?",
                    "undefined variable 'port'",  # nothing close: no guess
                    "undefined variable 'tp_sise'; did you mean 'tp_size'?"]


def test_undefined_role_switch_gets_the_role_hint(repo, capsys):
    put(repo, "sw.sh.j2", """\
        python3 -m sglang.launch_server --model-path /m --port 30000 \\
          {% if is_prefill %}--disaggregation-mode prefill{% else %}--disaggregation-mode decode{% endif %}
        """)
    code, fs, _ = findings(capsys, "sw.sh.j2")
    (f,) = [f for f in fs if f["code"] == "PD005"]
    assert f["message"] == "undefined variable 'is_prefill'"
    assert f["fix"].startswith("'is_prefill' looks like a role switch: name it with `role-var = \"is_prefill\"`")
    # the advice works: named as the role variable, the switch renders true for prefill, false for decode
    put(repo, "pyproject.toml", '[tool.pdlint]\nrole-var = "is_prefill"\n')
    code, out, _ = text(capsys, "sw.sh.j2")
    assert code == 0 and "PD005" not in out and "1 prefill, 1 decode" in out, out


def test_a_value_of_one_roles_server_gets_no_role_switch_hint(repo, capsys):
    # (topsail, field test rw6/e: `sglang_prefill_port` was told to become the role variable)
    put(repo, "pd.sh.j2", "python3 -m sglang.launch_server --model-path /m --port {{ sglang_prefill_port }} "
                          "--disaggregation-mode prefill {{ '--x' if prefill_enabled else '' }}\n")
    code, fs, _ = findings(capsys, "pd.sh.j2")
    hints = {f["message"]: f.get("fix") for f in fs if f["code"] == "PD005"}
    assert hints["undefined variable 'sglang_prefill_port'"] is None
    assert hints["undefined variable 'prefill_enabled'"].startswith("'prefill_enabled' looks like a role switch")


def test_a_role_switch_beside_a_role_variable_is_given_per_role_values(repo, capsys):
    put(repo, "pd.sh.j2", """\
        python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }} --port 30000 \\
          {% if is_decode %}--disaggregation-decode-enable-offload-kvcache{% endif %}
        """)
    code, fs, _ = findings(capsys, "pd.sh.j2")
    (f,) = [f for f in fs if f["code"] == "PD005"]
    assert "`is_decode = true` in `[tool.pdlint.roles.decode.vars]` and `is_decode = false` in " \
           "`[tool.pdlint.roles.prefill.vars]`" in f["fix"]
    put(repo, "pyproject.toml", "[tool.pdlint.roles.decode.vars]\nis_decode = true\n"
                                "[tool.pdlint.roles.prefill.vars]\nis_decode = false\n")
    code, fs, _ = findings(capsys, "pd.sh.j2")
    # the advice works: the decode render gets the flag (and SGLang's decode-side check), prefill does not
    assert [(f["code"], f["role"]) for f in fs] == [("SGL108", "decode")], fs


def test_an_undefined_role_name_variable_gets_the_role_var_hint(repo, capsys):
    put(repo, "w.sh.j2", "python3 -m sglang.launch_server --model-path /m --port {{ worker_role_port }}\n"
                         "echo {{ worker_role }}\n")
    code, fs, _ = findings(capsys, "w.sh.j2")
    hints = {f["message"]: f.get("fix") for f in fs if f["code"] == "PD005"}
    assert hints["undefined variable 'worker_role'"].startswith(
        "'worker_role' looks like the role variable: name it with `role-var = \"worker_role\"`")


# -- YAML syntax errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("content, where, message", [
    ("args: [--tp-size, 2\nimage: x\n", (2, 6),
     "invalid YAML: while parsing a flow sequence (opened at line 1, column 7), did not find expected ',' or ']'"),
    ('a: "abc\nb: 3\n', (2, 5),
     "invalid YAML: while scanning a quoted scalar (opened at line 1, column 4), found unexpected end of stream"),
    ("a: {b: 1\nc: 2\n", None, "(opened at line 1, column 4)"),
])
def test_a_yaml_syntax_error_names_where_the_bracket_or_quote_opened(repo, capsys, content, where, message):
    put(repo, "bad.yaml", content)
    code, fs, _ = findings(capsys, "bad.yaml")
    (f,) = fs
    assert code == 1 and f["code"] == "PD003"
    assert message in f["message"]
    if where is not None:
        assert (f["line"], f["column"]) == where  # where the error was found


def test_a_rendered_templates_yaml_error_names_the_template_line(repo, capsys):
    put(repo, "d.yaml.j2", """\
        {# a comment line that the render drops #}
        {% set x = 1 %}
        args: [--disaggregation-mode, {{ role }}
        image: lmsysorg/sglang
        """)
    code, fs, _ = findings(capsys, "d.yaml.j2")
    msgs = {f["message"] for f in fs if f["code"] == "PD003"}
    assert msgs and all("(opened at line 3, column 7)" in m for m in msgs), msgs


def test_a_config_files_yaml_error_names_where_the_bracket_opened(repo, capsys):
    put(repo, "run.sh", "python3 -m sglang.launch_server --config cfg.yaml --disaggregation-mode prefill\n")
    put(repo, "cfg.yaml", "model-path: /m\nport: [1, 2\ntp-size: 2\n")
    code, fs, _ = findings(capsys, "run.sh")
    assert any("(opened at line 2, column 7)" in f["message"] for f in fs), [f["message"] for f in fs]


def test_a_values_files_yaml_error_names_where_the_bracket_opened(repo, capsys):
    put(repo, "pyproject.toml", '[tool.pdlint]\nvalues = ["vals.yaml"]\n')
    put(repo, "vals.yaml", "tp: 2\nflags: [--a, --b\nport: 1\n")
    put(repo, "t.sh.j2", "python3 -m sglang.launch_server --model-path /m --tp-size {{ tp }}\n")
    code, fs, _ = findings(capsys, "t.sh.j2")
    msgs = [f["message"] for f in fs if f["path"] == "vals.yaml"]
    assert any("(opened at line 2, column 8)" in m for m in msgs), [(f["path"], f["message"]) for f in fs]


# -- non-UTF-8 files ---------------------------------------------------------------------------------------

def test_non_utf8_is_reported_by_line_and_column(repo, capsys):
    put(repo, "l.yaml", b"a: 1\r\nb: \"h\xc3\xa9\xe9llo\"\n")
    code, fs, _ = findings(capsys, "l.yaml")
    (f,) = fs
    assert code == 1 and f["code"] == "PD002"
    assert (f["line"], f["column"]) == (2, 7)  # 6 characters before it on its line: b, :, space, ", h, é
    assert f["message"] == "not valid UTF-8 at line 2, column 7 (byte 0xe9: invalid continuation byte)"
    assert "byte 1" not in f["message"]


# -- nothing to check --------------------------------------------------------------------------------------

def test_nothing_to_check_is_said_with_exit_0(repo, capsys):
    put(repo, "docs/README.md", "hello\n")
    put(repo, "pyproject.toml", '[tool.pdlint]\nexclude = ["vendor/**"]\n')
    put(repo, "vendor/run.sh", "python3 -m sglang.launch_server --model-path /m\n")
    code, out, err = text(capsys, "docs")
    assert code == 0
    assert err == ("pdlint: warning: No files to check under the given path(s) (pdlint reads YAML, Jinja, shell "
                   "scripts, Makefiles, Justfiles, Dockerfiles and files named on the command line; documentation "
                   "such as Markdown is not read: named, its launch text is listed as not checked, PD020)\n")
    assert "No files checked." in out and "No launch text found" not in out  # (field round rw33/a: "in 0 files")
    code, out, err = text(capsys, "vendor")
    assert code == 0 and "(1 file excluded by `exclude`; " in err
    code, out, err = text(capsys, "--force-exclude", "vendor/run.sh")
    assert code == 0 and "No files to check" in err
    code, out, err = text(capsys, "--quiet", "docs")
    assert (code, out, err) == (0, "", "")
    code, out, err = text(capsys, "--format", "json", "docs")
    assert code == 0 and json.loads(out)["files"] == 0 and "No files to check" in err
    # a run with files says nothing of the kind
    put(repo, "k8s/a.yaml", "a: 1\n")
    code, out, err = text(capsys, ".")
    assert "No files to check" not in err


def test_unknown_flag_help_points_at_a_suggestion_only_when_there_is_one(tmp_path):
    """(field round rw28/a P7: `--disaggregation-decode-url`, close to no flag, got "see the suggestion")"""
    import json
    from pdlint.cli import main
    out = tmp_path / "o.json"
    (tmp_path / "a.sh").write_text("python3 -m sglang.launch_server --model-path m --disaggregation-mode prefill"
                                   " --disaggregation-decode-url http://d:30001\n")
    (tmp_path / "b.sh").write_text("python3 -m sglang.launch_server --model-path m --disagregation-mode prefill\n")
    assert main(["check", "--no-cache", "--format", "json", "--output-file", str(out), str(tmp_path)]) == 1
    by_path = {f["path"].rsplit("/", 1)[-1]: f for f in json.loads(out.read_text())["findings"] if f["code"] == "SGL001"}
    assert "did you mean" not in by_path["a.sh"]["message"]
    assert "suggestion" not in by_path["a.sh"]["fix"] and "remove it" in by_path["a.sh"]["fix"]
    assert "did you mean --disaggregation-mode" in by_path["b.sh"]["message"]
    assert "see the suggestion" in by_path["b.sh"]["fix"]
