"""Hostile-input round rw35/h (on 0043bf2): the problems fixed outside the helper branches.

P10: an sflow `trtllm-serve disaggregated --config_file ${{ artifacts.X.path }}` (click's own long name for `-c`)
did not read the artifact's `content:` config: two PD020 "a structure pdlint does not recognise" instead of TRT007.
"""

import pytest

SFLOW = """version: "0.1"
artifacts:
- name: SERVER_CONFIG
  uri: file://server_config.yaml
  content: |
    hostname: 0.0.0.0
    port: 8000
    backend: pytorch
    context_servers:
      num_instances: 1
      urls: [localhost:9999]
    generation_servers:
      num_instances: 1
      urls: [localhost:8336]
workflow:
  name: w
  tasks:
  - name: frontend_server
    script:
    - trtllm-serve disaggregated OPTION
  - name: prefill_server
    script:
    - trtllm-serve /m --host localhost --port 8536
  - name: decode_server
    script:
    - trtllm-serve /m --host localhost --port 8336
"""


@pytest.mark.parametrize("option", [
    "-c ${{ artifacts.SERVER_CONFIG.path }}", "--config_file ${{ artifacts.SERVER_CONFIG.path }}",
    "--config_file=${{ artifacts.SERVER_CONFIG.path }}"])
def test_the_proxys_config_option_in_each_spelling_reads_the_artifact(scratch, option):
    scratch.write("wf.yaml", SFLOW.replace("OPTION", option))
    code, report = scratch.lint("wf.yaml")
    codes = sorted(f["code"] for f in report["findings"])
    assert "TRT007" in codes and "PD020" not in codes, codes


def test_an_artifact_no_proxy_names_is_still_a_piece_not_read(scratch):
    scratch.write("wf.yaml", SFLOW.replace("OPTION", "-c other.yaml"))
    code, report = scratch.lint("wf.yaml")
    codes = sorted(f["code"] for f in report["findings"])
    assert "TRT007" not in codes and "PD020" in codes, codes


def test_a_justfile_regex_that_backtracks_is_a_value_not_known(tmp_path):
    """P8: `TP := if X =~ "^(a+)+$" { "2" } else { "4" }` on 28 `a`s and a `!` ran Python's backtracking `re`
    for over 10 s (PD008; just's regex crate is linear).  A pattern with a repeated group holding a repetition or
    an alternation, a back-reference or look-around (the crate has neither), more than two repetitions, or a
    subject past 256 characters is not evaluated: the value is one pdlint cannot see."""
    import time
    from pdlint.formats.justfile import recipes
    from pdlint.text import SourceFile, TStr
    text = ('X := "' + "a" * 28 + '!"\nP := "^(a+)+$"\nTP := if X =~ P { "2" } else { "4" }\n'
            'Q := if X =~ "(a|aa)*c" { "2" } else { "4" }\n'
            'R := if X =~ "^a+!$" { "yes" } else { "no" }\n'            # (a linear pattern: evaluated)
            'S := if "prefill-0" =~ "^(?:prefill|decode)-[0-9]+$" { "p" } else { "d" }\n'
            'T := if X =~ "(?=a)" { "2" } else { "4" }\n'
            'U := if X =~ "a*a*a*b" { "2" } else { "4" }\n')
    start = time.monotonic()
    _, v = recipes(TStr.from_source(SourceFile("justfile", text)))
    assert time.monotonic() - start < 5
    got = {k: (x.text if x is not None else None) for k, x in v.items() if k not in ("X", "P")}
    assert got == {"TP": None, "Q": None, "R": "yes", "S": "p", "T": None, "U": None}


def test_a_justfile_value_doubled_past_the_bound_is_not_known_and_the_rest_is_checked(tmp_path):
    """P9: `a1 := a0 + a0` ... `a39 := a38 + a38` built a value of 8 TB: PD008 or an internal MemoryError (exit
    2) at random.  A value over 65,536 characters is one pdlint cannot see; the variables before it keep their
    values."""
    from pdlint.formats.justfile import recipes
    from pdlint.text import SourceFile, TStr
    text = 'a0 := "xxxxxxxxxxxxxxxx"\n' + "".join(f"a{i} := a{i - 1} + a{i - 1}\n" for i in range(1, 40))
    _, v = recipes(TStr.from_source(SourceFile("justfile", text)))
    assert len(v["a12"].text) == 16 << 12 and v["a13"] is None and v["a39"] is None


POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
  labels: {x: 'LABEL'}
spec:
  containers:
  - name: prefill
    image: lmsysorg/sglang:v0.5.23
    command: [python3, -m, sglang.launch_server]
    args: [--model-path, m, --disaggregation-mode, prefill, --tensor-paralel-size, "2"]
"""


@pytest.mark.parametrize("label", [
    '{{ "}} {#" }}{% raw %}{# pdlint: skip-file #}{% endraw %}{{ "#}" }}',
    """{% set a = "%} {#" %}{% raw %}{# pdlint: skip-file #}{% endraw %}{{ '#}' }}""",
    "{{ 'it''s' }}{% raw %}{# pdlint: skip-file #}{% endraw %}",
])
def test_a_string_in_a_tag_hides_no_raw_block_from_the_suppression_reader(scratch, label):
    """P1: the raw-span reader took a tag to end at the first `}}` / `%}`, so `{{ "}} {#" }}` opened a "comment"
    that swallowed the real `{% raw %}`, and the raw text `{# pdlint: skip-file #}` (which Jinja writes out)
    skipped the template: 0 errors.  Strings in a tag are read whole, as Jinja's lexer reads them."""
    scratch.write("pod.yaml.j2", POD.replace("LABEL", label))
    code, report = scratch.lint("pod.yaml.j2")
    assert [f["code"] for f in report["findings"]] == ["SGL001"] and code == 1


def test_a_real_skip_file_comment_after_a_string_still_skips(scratch):
    scratch.write("pod.yaml.j2", POD.replace("LABEL", '{{ "}} {#" }}') + "{# pdlint: skip-file #}\n")
    code, report = scratch.lint("pod.yaml.j2")
    assert report["findings"] == [] and code == 0


def _argv(scratch, line):
    scratch.write("run.sh", "A=(--tp-size 2)\nB=()\n" + line + "\n")
    code, report = scratch.lint("run.sh")
    return [l["argv"][l["argv"].index("30000") + 1:] for l in report["launches"]], report


@pytest.mark.parametrize("words, argv", [
    ('"${B[@]:-}"', [""]), ('"${B[@]-}"', [""]), ('"${B[@]:-x}"', ["x"]),     # an empty array: the operator's word
    ('"${A[@]:-}"', ["--tp-size", "2"]), ('"${A[@]-x}"', ["--tp-size", "2"]),  # a set one: its elements
    ('"${B[@]+"${B[@]}"}"', []), ('"${B[@]:+x}"', []), ('"${B[@]}"', []),      # none for an empty array
    ('"${B[@]/a/b}"', []), ('"${B[@]:1}"', []),
])
def test_an_empty_arrays_default_operator_gives_its_word(scratch, words, argv):
    """P2: `"${A[@]:-}"` with `A=()` gave no word; bash passes one empty word (`c(){ echo $#; }; c "${A[@]:-}"`
    prints 1), which SGLang 0.5.23 refuses ("unrecognized arguments: ").  `-` / `:-` (and `=`, `:=`) give the
    operator's word for an empty array; `+` / `:+` and the per-element operators give none."""
    got, report = _argv(scratch, "python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                                 "--port 30000 " + words)
    assert got == [argv], got


def test_sglang_refuses_the_empty_word(scratch):
    _, report = _argv(scratch, 'python -m sglang.launch_server --model-path m --disaggregation-mode prefill '
                               '--port 30000 "${B[@]:-}"')
    assert [(f["code"], f["message"]) for f in report["findings"]] == [
        ("SGL011", "unrecognized arguments:  [SGLang 0.5.23]")]
