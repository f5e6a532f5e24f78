"""Dockerfiles: what each build stage runs (ENTRYPOINT and CMD) is a launch, in its FROM image.

Field test rw18/o (repro 6): a Dockerfile's `CMD ["python3", "-m", "sglang.launch_server", ..., "--no-such-flag"]`
was only PD020 "a file kind pdlint does not read"; its FROM tag (lmsysorg/sglang:v0.5.9) pins the release."""

import pytest


def _lint(scratch_git, text, name="Dockerfile"):
    scratch_git.write(name, text)
    code, report = scratch_git.lint(name)
    return code, report


def _found(report):
    return [(f["code"], f["line"], f["column"]) for f in report["findings"]]


def test_an_exec_form_cmd_is_checked_against_the_from_release(scratch_git):
    code, report = _lint(scratch_git, 'FROM lmsysorg/sglang:v0.5.9\nCMD ["python3", "-m", "sglang.launch_server", '
                                      '"--model-path", "Qwen/Qwen3-8B", "--disaggregation-mode", "prefill", '
                                      '"--no-such-flag"]\n')
    assert _found(report) == [("SGL001", 2, 117)] and code == 1
    assert report["findings"][0]["message"].endswith("[SGLang 0.5.9]")
    (launch,) = report["launches"]
    assert (launch["role"], launch["line"]) == ("prefill", 2)


def test_a_shell_form_entrypoint_over_lines_with_env_and_an_arg_tag(scratch_git):
    text = ("ARG TAG=v0.5.9\n"
            "FROM lmsysorg/sglang:${TAG} AS server\n"
            "ENV TP=2\n"
            "ENTRYPOINT python3 -m sglang.launch_server --model-path m --tp-size $TP \\\n"
            "    --disaggregation-mode decode --disaggregation-transfer-backend mooncak\n")
    code, report = _lint(scratch_git, text, "prefill.Dockerfile")
    assert [(c, l) for c, l, _ in _found(report)] == [("SGL004", 5)]
    assert "[SGLang 0.5.9]" in report["findings"][0]["message"]
    assert report["launches"][0]["role"] == "decode"


def test_a_cmd_behind_a_known_image_entrypoint_and_a_stage_from_another(scratch_git):
    text = ('FROM vllm/vllm-openai:v0.10.1 AS base\n'
            'CMD ["--model", "m", "--tensor-parallel-size", "2.0"]\n'
            'FROM base AS tuned\n'
            'ENV VLLM_LOGGING_LEVEL=DEBUG\n')
    code, report = _lint(scratch_git, text)
    # one launch: the stage that writes no ENTRYPOINT / CMD of its own runs its parent's
    assert len(report["launches"]) == 1 and report["launches"][0]["engine"] == "vllm"
    assert [(c, l) for c, l, _ in _found(report)] == [("VLLM037", 2)]


def test_an_entrypoint_resets_the_inherited_cmd(scratch_git):
    text = ('FROM lmsysorg/sglang:v0.5.9 AS a\n'
            'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--bogus"]\n'
            'FROM a AS b\n'
            'ENTRYPOINT ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n')
    code, report = _lint(scratch_git, text)
    assert [(c, l) for c, l, _ in _found(report)] == [("SGL001", 2)]  # stage b: no --bogus
    assert len(report["launches"]) == 2


@pytest.mark.parametrize("text", [
    'FROM lmsysorg/sglang:v0.5.9\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m", '
    '"--disaggregation-mode", "prefill"]\n',
    'FROM python:3.12\nRUN pip install vllm==0.10.1\nCMD ["bash"]\n',
    'FROM ubuntu\n# a comment that names sglang.launch_server\n',
])
def test_quiet(scratch_git, text):
    code, report = _lint(scratch_git, text)
    assert report["findings"] == [] and code == 0


def test_a_run_line_is_a_build_step_read_as_a_script(scratch_git):
    # a server a RUN starts (a warm-up at build time) fails the build with the same flags
    code, report = _lint(scratch_git, "FROM lmsysorg/sglang:v0.5.9\n"
                                      "RUN --mount=type=cache,target=/root/.cache python3 -m sglang.launch_server "
                                      "--model-path m --bogus & sleep 5\n")
    assert [c for c, _, _ in _found(report)] == ["SGL001"]


def test_building_and_copying_a_router_binary_is_no_launch(scratch_git):
    # sgl-project/sglang docker/Dockerfile (a vendored copy in libertywing/FlashMemory-Deepseek-V4): two false PD108
    code, report = _lint(scratch_git, "FROM lmsysorg/sglang:v0.5.9\n"
                                      "RUN cd /sgl/sgl-model-gateway \\\n"
                                      "    && cargo build --release --bin sglang-router --features vendored-openssl \\\n"
                                      "    && cp target/release/sglang-router /usr/local/bin/sglang-router\n")
    assert report["findings"] == [] and report["launches"] == []


def test_comment_and_empty_lines_inside_a_continued_run_are_dropped_as_docker_does(scratch_git):
    # vllm-project/vllm docker/Dockerfile (a copy in ddps-lab/vllm-disaggregation): a false PD009 "missing 'fi'"
    code, report = _lint(scratch_git, "FROM ubuntu:22.04\n"
                                      "RUN if [ \"${BUILD_OS}\" = manylinux ]; then \\\n"
                                      "        # rdma-core-devel provides libibverbs headers\n"
                                      "        dnf install -y git \\\n"
                                      "\n"
                                      "        && dnf clean all; \\\n"
                                      "    else apt-get update -y; fi\n")
    assert report["findings"] == []


def test_an_arg_of_the_stage_is_a_variable_of_its_run_lines(scratch_git):
    # sgl-project/sglang docker/npu.Dockerfile: `ARG PIP_INSTALL="python3 -m pip install ..."` then
    # `RUN ${PIP_INSTALL} sglang-router` (a false PD108: the package's name read as a router launch)
    code, report = _lint(scratch_git, 'FROM ubuntu:22.04\nARG PIP_INSTALL="python3 -m pip install --no-cache-dir"\n'
                                      'RUN ${PIP_INSTALL} sglang-router\n')
    assert report["findings"] == [] and report["launches"] == []


def test_a_comment_ending_in_a_backslash_does_not_swallow_the_next_stage(scratch_git):
    # vllm-project/vllm docker/Dockerfile: `#   docker build --target vllm-openai-nonroot ... \` above a FROM
    code, report = _lint(scratch_git, 'FROM vllm/vllm-openai:v0.10.1 AS base\n'
                                      'ENTRYPOINT ["vllm", "serve"]\n'
                                      '# Built via:\n'
                                      '#   docker build --target nonroot \\\n'
                                      '#       -f docker/Dockerfile .\n'
                                      'FROM base AS nonroot\n'
                                      'CMD ["--model", "m", "--tensor-parallel-size", "two"]\n')
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("VLLM037", 7)]
    assert len(report["launches"]) == 2


def test_env_values_are_substituted_as_docker_does(scratch_git):
    # field test rw18/p (repro 17): `ARG ROLE=prefill` + `ENV ROLE=${ROLE}` left the literal `${ROLE}` in the argv
    # (a false SGL004); a build argument without a default is a value pdlint cannot see, not '' (SGL005)
    code, report = _lint(scratch_git, "FROM lmsysorg/sglang:v0.5.5\nARG ROLE=prefill\nARG TP\n"
                                      "ENV ROLE=${ROLE} MODE=\"$ROLE\" TPS=${TP:-1}\n"
                                      "CMD python3 -m sglang.launch_server --model-path m --disaggregation-mode "
                                      "${MODE} --tp-size $TPS\n")
    assert report["findings"] == []
    (launch,) = report["launches"]
    assert launch["role"] == "prefill"


def test_an_undefined_variable_in_env_is_empty_at_build_time(scratch_git):
    code, report = _lint(scratch_git, "FROM lmsysorg/sglang:v0.5.5\nENV MODE=${NOT_SET}prefil\n"
                                      "CMD python3 -m sglang.launch_server --model-path m --disaggregation-mode $MODE\n")
    assert [f["code"] for f in report["findings"]] == ["SGL004"]


@pytest.mark.parametrize("cmd", ['CMD ["python3", "-m", "sglang.launch_server", "--help"]',
                                 'CMD ["vllm", "serve", "-h"]', 'CMD trtllm-serve --help'])
def test_a_default_command_asking_for_help_starts_no_server(scratch_git, cmd):
    # field test rw18/p: `--help` got false SGL010 / SGL001 / VLLM018 / TRT011 errors; the oracle prints help, exit 0
    code, report = _lint(scratch_git, f"FROM lmsysorg/sglang:v0.5.9\n{cmd}\n")
    assert report["findings"] == [] and report["launches"] == []


def test_here_documents_of_run_lines(scratch_git):
    # field test rw18/p: `RUN python - <<'PY'` ... `PY` was a false PD009; `RUN <<EOF` ... `EOF` is a script
    code, report = _lint(scratch_git, "FROM lmsysorg/sglang:v0.5.9\n"
                                      "RUN python - <<'PY'\nimport os\nprint(os.getcwd())\nPY\n"
                                      "RUN <<EOF\nset -e\npython3 -m sglang.launch_server --model-path m --bogus &\nEOF\n")
    assert [(f["code"], f["line"]) for f in report["findings"]] == [("SGL001", 8)]


def test_env_values_built_from_values_are_bounded(scratch_git):
    # `ENV B=$A$A`, `ENV C=$B$B` ...: each line doubles the text; past the bound the value is one pdlint cannot see
    lines = ["FROM lmsysorg/sglang:v0.5.9", "ENV A0=xxxxxxxxxx"]
    lines += [f"ENV A{i}=$A{i - 1}$A{i - 1}" for i in range(1, 60)]
    lines += ["CMD python3 -m sglang.launch_server --model-path $A59"]
    code, report = _lint(scratch_git, "\n".join(lines) + "\n")
    assert report["findings"] == [] and len(report["launches"]) == 1


def test_a_packed_exec_form_item_names_the_container_runtime(scratch):
    # hostile-input round rw27/h P28: PD050 on a Dockerfile's CMD said "the kubelet runs a program literally named ..."
    scratch.write("Dockerfile", 'FROM lmsysorg/sglang:v0.5.23\nCMD ["python3 -m sglang.launch_server --model-path /m '
                                '--disaggregation-mode prefill"]\n')
    _, report = scratch.lint("Dockerfile")
    pd050 = [f for f in report["findings"] if f["code"] == "PD050"]
    assert len(pd050) == 1 and "the container runtime runs" in pd050[0]["message"]
    assert "kubelet" not in pd050[0]["message"]
