"""A Dockerfile stage's launch is judged against the engine release its RUN lines install.

Field test rw18/p (P9): the dockerfiles corpus' `min-inference-fips.Dockerfile` (`ARG SGLANG_VERSION=0.5.12.post1`,
a builder stage's `RUN python3 -m pip install "sglang==${SGLANG_VERSION}"`, its dist-packages copied into the
runtime stage that runs `python3 -m sglang.launch_server`) was judged against SGLang 0.5.23, and a ROCm vLLM
Dockerfile's `uv pip install ... vllm==${VLLM_VERSION}` against vLLM 0.33.0: the FROM tag was used as a pin, the
install line was not."""

import pytest

from pdlint.formats import dockerfile
from pdlint.text import SourceFile, TStr

# --dcp-size: added in SGLang 0.5.15; --enable-nan-detection: in 0.4.0-0.5.12.post1, removed in 0.5.13
_CMD = ('CMD ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", '
        '"--disaggregation-mode", "decode", {flag}]\n')


_DCP = '"--dcp-size", "2"'


def _lint(scratch_git, text, name="Dockerfile"):
    scratch_git.write(name, text)
    return scratch_git.lint(name)


def _found(report):
    return [(f["code"], f["line"]) for f in report["findings"]]


def test_a_flag_the_installed_release_lacks_is_reported_against_it(scratch_git):
    code, report = _lint(scratch_git, 'FROM python:3.12\nRUN pip install "sglang[all]==0.5.9"\n'
                         + _CMD.format(flag=_DCP))
    assert _found(report) == [("SGL009", 3)] and code == 1
    message = report["findings"][0]["message"]
    assert "--dcp-size is not a flag of SGLang 0.5.9" in message and message.endswith("[SGLang 0.5.9]")


def test_a_flag_the_installed_release_has_is_quiet(scratch_git):
    # (judged against the newest table, --enable-nan-detection is "removed in SGLang 0.5.13")
    code, report = _lint(scratch_git, 'FROM python:3.12\nRUN pip install "sglang[all]==0.5.9"\n'
                         + _CMD.format(flag='"--enable-nan-detection"'))
    assert _found(report) == [] and code == 0


def test_an_arg_version_in_a_builder_stage_whose_dist_packages_are_copied(scratch_git):
    # (rw18/p dockerfiles corpus b63328357389, min-inference-fips.Dockerfile, cut down)
    text = ('ARG SGLANG_VERSION=0.5.12.post1\n'
            'FROM nvidia/cuda:13.0.1-cudnn-devel-ubuntu24.04 AS builder\n'
            'ARG SGLANG_VERSION\n'
            'RUN --mount=type=cache,target=/root/.cache/pip \\\n'
            '    python3 -m pip install "sglang==${SGLANG_VERSION}" \\\n'
            '    # a note\n'
            '    && python3 -m pip install "kernels==0.14.1"\n'
            'FROM cgr.dev/chainguard/python-fips:3.12 AS runtime\n'
            'COPY --from=builder /usr/local/lib/python3.12/dist-packages /usr/lib/python3.12/site-packages\n'
            + _CMD.format(flag=_DCP))
    code, report = _lint(scratch_git, text, "min-inference-fips.Dockerfile")
    assert _found(report) == [("SGL009", 10)]
    assert report["findings"][0]["message"].endswith("[SGLang 0.5.12.post1]")
    (stage,) = [s for s in dockerfile.parse(TStr.from_source(SourceFile("Dockerfile", text)))
                if s.name == "runtime"]
    version, origin = stage.pins["sglang"]
    assert (version, origin.line, origin.column) == ("0.5.12.post1", 5, 28)  # (the pin as written)


def test_a_stage_built_on_the_installing_stage_and_uv_pip(scratch_git):
    # (rw18/p dockerfiles corpus f56646651140: `uv pip install ... vllm==${VLLM_VERSION}` in `base`)
    text = ('ARG VLLM_VERSION=0.10.1\n'
            'FROM ubuntu:24.04 AS base\n'
            'ARG VLLM_VERSION\n'
            'RUN uv pip install --find-links https://wheels.example/vllm/ vllm==${VLLM_VERSION} flash-attn==2.8.3\n'
            'FROM base AS server\n'
            'ENTRYPOINT ["vllm", "serve", "m", "--attention-backend", "FLASH_ATTN"]\n')
    code, report = _lint(scratch_git, text)
    assert [c for c, _ in _found(report)] == ["VLLM018"] and report["findings"][0]["line"] == 6
    assert "is not a flag of vLLM 0.10.1" in report["findings"][0]["message"]


@pytest.mark.parametrize("text", [
    # the FROM tag names a release of the engine: it wins over the install
    'FROM lmsysorg/sglang:v0.5.23\nRUN pip install "sglang[all]==0.5.9"\n' + _CMD.format(flag=_DCP),
    # an install in another stage the launch neither is built on nor copies packages from
    'FROM python:3.12 AS other\nRUN pip install sglang==0.5.9\nFROM python:3.12\nCOPY --from=other /app /app\n'
    + _CMD.format(flag=_DCP),
    # a range pins nothing; an install that is not one (`pip download`)
    'FROM python:3.12\nRUN pip install "sglang>=0.5.9" && pip download sglang==0.5.9\n' + _CMD.format(flag=_DCP),
    # a variable pdlint cannot see (an ARG of the global scope the stage does not declare)
    'ARG V=0.5.9\nFROM python:3.12\nRUN pip install sglang==${V}\n' + _CMD.format(flag=_DCP),
])
def test_no_pin(scratch_git, text):
    code, report = _lint(scratch_git, text)
    assert _found(report) == [] and code == 0, report["findings"]


def test_a_hostile_variable_expansion_is_bounded():
    text = ('FROM python:3.12\nENV A=' + "x" * 50_000 + '\nRUN pip install sglang==0.5.9 ' + "$A " * 20_000 + '\n'
            'CMD ["python3", "-m", "sglang.launch_server"]\n')
    (stage,) = dockerfile.parse(TStr.from_source(SourceFile("Dockerfile", text)))
    assert stage.pins["sglang"][0] == "0.5.9"
