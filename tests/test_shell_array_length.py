"""``${#NAME[@]}`` / ``${#NAME}`` in shell arithmetic (``words._substitute_refs``).

Field test rw26/b (an SGLang NCCLX PD matrix script): `if (( ${#backend_args[@]} > 0 )); then ... "${backend_args[@]}"
&; else ... &; fi` of an array the script built from literals was undecided, so both branches were launches: a phantom
server per role and call, and false PD150 port collisions with them."""

SCRIPT = """\
#!/bin/bash
launch_server() {
  local extra=()
  if [[ "$1" == "ncclx" ]]; then
    extra+=(--enable-metrics)
  fi
  shift
  if (( ${#extra[@]} > 0 )); then
    python3 -m sglang.launch_server "$@" "${extra[@]}" &
  else
    python3 -m sglang.launch_server "$@" &
  fi
}
launch_server BACKEND --model-path m --disaggregation-mode prefill --port 31000
"""


def _launches(report):
    return sorted((l["line"], " ".join(l["argv"][-1:])) for l in report["launches"])


def test_an_array_length_decides_the_branch(scratch):
    scratch.write("a.sh", SCRIPT.replace("BACKEND", "default"))
    _, report = scratch.lint("a.sh")
    assert [line for line, _ in _launches(report)] == [11]  # the else branch only
    scratch.write("a.sh", SCRIPT.replace("BACKEND", "ncclx"))
    _, report = scratch.lint("a.sh")
    assert _launches(report) == [(9, "--enable-metrics")]


def test_a_string_length_and_an_unknown_array_stay_as_they_were(scratch):
    scratch.write("b.sh", 'X=abc\nif (( ${#X} == 4 )); then python3 -m sglang.launch_server --model-path m; fi\n'
                          'if (( ${#UNSET_FROM_ENV[@]} > 0 )); then python3 -m sglang.launch_server --model-path n; fi\n')
    _, report = scratch.lint("b.sh")
    # ${#X} is 3, not 4: no first launch; an array the script never set (the environment's): undecided, kept
    assert [l["line"] for l in report["launches"]] == [3]
