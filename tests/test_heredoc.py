"""Here-documents in shell scripts: the Kubernetes manifest of ``kubectl apply -f - <<EOF`` is read as
YAML, traced to the script (through the variables it expands), and checked like a manifest file.

The shell front-end records a here-document only when asked (``ShellContext.heredoc_filter``); the
extract stage asks for those holding launch text."""

from __future__ import annotations

import textwrap

import pytest

from pdlint.cli import main
from pdlint.formats.shell import ShellContext, shell_commands
from pdlint.text import SourceFile, TStr

LAUNCH = "sglang.launch_server"


def heredocs(text: str, accept=lambda t: LAUNCH in t, **kw):
    ctx = ShellContext(lambda p, c: None, lambda *a: None, heredoc_filter=accept, **kw)
    shell_commands(TStr.from_source(SourceFile("deploy.sh", text)), ctx)
    return ctx.heredocs


def at(t: TStr, needle: str) -> tuple:
    o = t.origin_at(t.text.index(needle))
    return o.line, o.column


# -- the front-end --------------------------------------------------------------------------------

def test_quoted_delimiter_keeps_the_text_as_written_at_its_lines():
    (hd,) = heredocs("kubectl apply -f - <<'EOF'\nargs: [python3, -m, sglang.launch_server, $PORT]\nEOF\n")
    assert hd.text.text == "args: [python3, -m, sglang.launch_server, $PORT]\n"
    assert at(hd.text, "sglang") == (2, 21)
    assert not hd.text[hd.text.text.index("$"):].opaque  # not expanded: literal text
    assert hd.evaluated and hd.start == 0


@pytest.mark.parametrize("delimiter", ['"EOF"', "\\EOF"])
def test_every_quoted_delimiter_form_stops_expansion(delimiter):
    (hd,) = heredocs(f"X=1\ncat <<{delimiter} | kubectl apply -f -\nx: [{LAUNCH}, $X, `date`]\nEOF\n")
    assert hd.text.text == f"x: [{LAUNCH}, $X, `date`]\n"


def test_unquoted_delimiter_expands_with_origins_and_unknown_values_opaque():
    script = ('PORT=30000\n'
              'kubectl apply -f - <<EOF\n'
              f'args: [{LAUNCH}, --port, "$PORT", --host, $HOST, "{{\\"a\\": \\$b}}", `echo x`, $(echo y)]\n'
              'EOF\n')
    (hd,) = heredocs(script)
    # \" stays (the YAML inside unescapes it), \$ is a literal $, both substitution forms run
    assert hd.text.text == f'args: [{LAUNCH}, --port, "30000", --host, $HOST, "{{\\"a\\": $b}}", x, y]\n'
    assert at(hd.text, "30000") == (1, 6)  # where PORT is set
    host = hd.text.text.index("$HOST")
    assert hd.text[host:host + 5].opaque
    assert hd.text.origin_at(host).line == 3


def test_special_parameters_the_grammar_leaves_in_the_text_are_expanded():
    script = textwrap.dedent(f"""\
        apply() {{
          kubectl apply -f - <<EOF
        args: [{LAUNCH}, --disaggregation-mode, $1, --x, \\$2, --n, $#, --pid, $$]
        EOF
        }}
        apply prefill
        """)
    (hd,) = heredocs(script)
    text = hd.text.text
    assert text.startswith(f"args: [{LAUNCH}, --disaggregation-mode, prefill, --x, $2, --n, 1, --pid, $$]")
    assert at(hd.text, "prefill") == (6, 7)  # the call's argument
    assert hd.text[text.index("$$"):].opaque


def test_dash_strips_leading_tabs_of_every_line():
    (hd,) = heredocs(f"f() {{\n\tkubectl apply -f - <<-EOF\n\tkind: Pod\n\t\targs: [{LAUNCH}]\n\tEOF\n}}\nf\n")
    assert hd.text.text == f"kind: Pod\nargs: [{LAUNCH}]\n"
    assert at(hd.text, "args") == (4, 3)


def test_filter_decides_and_none_records_nothing():
    script = f"kubectl apply -f - <<EOF\nkind: Pod\nEOF\ncat <<EOF\n{LAUNCH}\nEOF\n"
    assert [h.text.text for h in heredocs(script)] == [f"{LAUNCH}\n"]
    ctx = ShellContext(lambda p, c: None, lambda *a: None)
    shell_commands(TStr.from_source(SourceFile("deploy.sh", script)), ctx)
    assert ctx.heredocs == []


def test_one_record_per_distinct_text_and_one_per_loop_value():
    script = textwrap.dedent(f"""\
        apply() {{
          kubectl apply -f - <<EOF
        args: [{LAUNCH}, --disaggregation-mode, $1]
        EOF
        }}
        for i in 1 2; do apply prefill; done
        for r in prefill decode; do apply "$r"; done
        """)
    # the same text from the same places once; the loop's values are other places
    got = [(h.text.text.split(", ")[-1], h.text.origin_at(h.text.text.rindex(", ") + 2).line) for h in heredocs(script)]
    assert got == [("prefill]\n", 6), ("prefill]\n", 7), ("decode]\n", 7)]


def test_inside_command_substitution():
    (hd,) = heredocs(f"M=$(cat <<EOF\nargs: [{LAUNCH}]\nEOF\n)\necho \"$M\" | kubectl apply -f -\n")
    assert hd.text.text == f"args: [{LAUNCH}]\n"


def test_unreached_after_a_limit_is_recorded_as_written():
    script = "".join(f"echo {i}\n" for i in range(5)) + "X=1\n" + \
        f"kubectl apply -f - <<EOF\nargs: [{LAUNCH}, $X]\nEOF\n"
    (hd,) = heredocs(script, max_commands=2)
    assert not hd.evaluated
    assert hd.text.text == f"args: [{LAUNCH}, $X]\n"
    assert hd.text[hd.text.text.index("$X"):].opaque  # evaluation never set X
    assert [h.evaluated for h in heredocs(script)] == [True]


def test_unterminated_heredoc_runs_to_the_end_and_herestring_is_none():
    (hd,) = heredocs(f"cat <<EOF\nargs: [{LAUNCH}]\n")  # bash: "here-document delimited by end-of-file"
    assert hd.text.text == f"args: [{LAUNCH}]\n"
    assert heredocs(f"cat <<< \"{LAUNCH}\"\n") == []


# -- end to end ------------------------------------------------------------------------------------

DEPLOY = """\
    #!/bin/bash
    MODEL=Qwen/Qwen3-8B
    SHARED={shared}
    for ROLE in prefill decode; do
      kubectl apply -f - <<EOF
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: sglang-$ROLE
    spec:
      template:
        spec:
          containers:
          - name: sglang
            image: lmsysorg/sglang:v0.5.23
            command: [python3, -m, sglang.launch_server]
            args: [--model-path, $MODEL, --disaggregation-mode, $ROLE, $SHARED]
    EOF
    done
    """


def test_role_only_flag_in_a_shared_variable_fires_at_the_variable(scratch_git, capsys):
    scratch_git.write("deploy.sh", DEPLOY.format(shared="--enable-linear-replayssm-spec"))
    code, out = scratch_git.lint("deploy.sh")
    assert code == 1
    assert [(f["code"], f["line"], f["column"]) for f in out["findings"]] == [("SGL101", 3, 8)]
    assert out["coverage"]["prefill"] == 1 and out["coverage"]["decode"] == 1
    assert out["coverage"]["unchecked"] == 0
    assert len(out["pairs"]) == 1
    assert main(["check", "--no-cache", "deploy.sh"]) == 1
    assert "here-document at line 5" in capsys.readouterr().out


def test_same_manifest_without_the_flag_is_clean(scratch_git, capsys):
    scratch_git.write("deploy.sh", DEPLOY.format(shared="--trust-remote-code"))
    code, out = scratch_git.lint("deploy.sh")
    assert code == 0, out["findings"]
    assert out["coverage"]["launches"] == 2 and out["coverage"]["unchecked"] == 0


def test_quoted_manifest_is_checked_where_it_is_written(scratch_git, capsys):
    scratch_git.write("apply.sh", """\
        cat <<'EOF' | kubectl apply -f -
        apiVersion: v1
        kind: Pod
        metadata: {name: prefill}
        spec:
          containers:
          - name: s
            image: lmsysorg/sglang:v0.5.23
            command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill,
                      --enable-linear-replayssm-spec]
        EOF
        """)
    code, out = scratch_git.lint("apply.sh")
    assert code == 1
    assert [(f["code"], f["line"], f["column"]) for f in out["findings"]] == [("SGL101", 10, 15)]


def test_heredoc_that_is_not_yaml_stays_reported_as_not_checked(scratch_git, capsys):
    scratch_git.write("run.sh", f"""\
        python - <<'EOF'
        import subprocess
        subprocess.run(["python3", "-m", "{LAUNCH}", "--disaggregation-mode", "prefill"])
        EOF
        """)
    code, out = scratch_git.lint("run.sh")
    assert out["coverage"]["launches"] == 0
    assert {f["code"] for f in out["findings"]} == {"PD020"}
    assert (code, out["coverage"]["unchecked"]) == (0, 1)  # a warning, and the place said


def test_config_file_written_by_a_heredoc_is_no_virtual_launch(scratch_git, capsys):
    # `cat > cfg.yaml <<EOF` writes an SGLang --config file: pdlint cannot tie it to the launch that
    # reads it, so it is no launch of its own; its launch text stays reported
    scratch_git.write("cfg.sh", """\
        cat > /tmp/prefill.yaml <<'EOF'
        disaggregation-mode: prefill
        enable-linear-replayssm-spec: true
        EOF
        """)
    code, out = scratch_git.lint("cfg.sh")
    assert out["launches"] == []
    assert [f["code"] for f in out["findings"]] == ["PD020"]


def test_fix_leaves_a_script_alone(scratch_git, capsys):
    # a finding inside a here-document has no fix (the YAML round trip is for YAML files): --fix
    # reports it and changes nothing
    path = scratch_git.write("deploy.sh", DEPLOY.format(shared="--enable-linear-replayssm-spec"))
    before = path.read_text()
    assert main(["check", "--no-cache", "--fix", "deploy.sh"]) == 1
    assert "SGL101" in capsys.readouterr().out
    assert path.read_text() == before


def test_texts_a_loop_expands_count_against_the_expansion_budget():
    body = "x: " + "y" * 5000 + f" {LAUNCH} $i\n"
    script = f"for i in $(seq 1 200); do\n  cat <<EOF\n{body}EOF\ndone\n" .replace("$(seq 1 200)", " ".join(map(str, range(200))))
    reports = []
    ctx = ShellContext(lambda p, c: None, lambda *a: reports.append(a[1]), heredoc_filter=lambda t: True,
                       max_expansion=100_000)
    shell_commands(TStr.from_source(SourceFile("loop.sh", script)), ctx)
    assert 10 <= len(ctx.heredocs) <= 21
    assert any("more than 100000 characters" in r for r in reports)
