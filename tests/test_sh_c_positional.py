"""``sh -c SCRIPT ARG0 ARGS...`` in a container's command: the word after the script is ``$0``, the rest are
``$1``...  Field test rw6/d (DO-Solutions/gtc-2026-doks k8s/dynamo/*.yaml): ``command: [bash, -c, '... exec
python3 -m dynamo.trtllm "$@"', --]`` with the flags in ``args:``; pdlint put the ``--`` into ``"$@"``, and an
SGLang server read every flag after it as a positional (SGL010, SGL011 x4, PD105 on a valid Deployment)."""

import pytest

POD = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: prefill}}
    spec:
      template:
        spec:
          containers:
            - name: sglang
              image: lmsysorg/sglang:v0.5.9
              command: [bash, -c, 'export LD_LIBRARY_PATH=/usr/local/lib && exec python3 -m sglang.launch_server "$@"'{arg0}]
              args: [--model-path, /models/m, --disaggregation-mode, prefill, --tp-size, "2"]
    """


@pytest.mark.parametrize("arg0", [", --", ", sglang", ", _"])
def test_the_word_after_the_script_is_dollar_zero(scratch_git, arg0):
    scratch_git.write("prefill.yaml", POD.format(arg0=arg0))
    code, report = scratch_git.lint("prefill.yaml")
    assert (code, report["findings"]) == (0, [])
    [launch] = report["launches"]
    assert launch["role"] == "prefill"


def test_without_a_dollar_zero_word_the_first_flag_is_dollar_zero(scratch_git):
    # bash -c SCRIPT --model-path ...: bash takes --model-path as $0, and "$@" starts at its value
    scratch_git.write("prefill.yaml", POD.format(arg0=""))
    code, report = scratch_git.lint("prefill.yaml")
    assert code == 1
    assert report["launches"][0]["role"] == "prefill"
    assert "SGL010" in [f["code"] for f in report["findings"]]  # /models/m: a positional
