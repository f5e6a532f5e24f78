"""A script that installs the engine before it starts it (`pip install "sglang[all]==0.5.2"`) runs that release:
its launches were judged against the newest release, or an unpinned one inferred from their flags
(pdlint.formats.pins.install_pins, extract.Extractor.shell)."""

import pytest

from pdlint.formats.pins import install_pins

SERVE = """\
    #!/bin/bash
    INSTALL
    python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --enable-ep-moe --tp 2
    """


def codes(report) -> list:
    return [(f["code"], f["line"], f["message"].rsplit("[", 1)[-1]) for f in report["findings"]]


def test_the_installed_release_judges_the_launch(scratch_git):
    """--enable-ep-moe is a DeprecatedAction in 0.5.4: argparse raises at start-up."""
    scratch_git.write("serve.sh", SERVE.replace("INSTALL", 'pip install -U "sglang[all]==0.5.4"'))
    code, report = scratch_git.lint("serve.sh")
    assert codes(report) == [("SGL009", 3, "SGLang 0.5.4]")]
    assert code == 1


def test_a_release_that_has_the_flag_is_quiet(scratch_git):
    scratch_git.write("serve.sh", SERVE.replace("INSTALL", "uv pip install sglang==0.5.2"))
    code, report = scratch_git.lint("serve.sh")
    assert report["findings"] == [] and code == 0


@pytest.mark.parametrize("install", [
    "",  # no pin: inferred from the flag, a warning
    "pip install sglang>=0.5.4",  # a range pins nothing
    "echo pip install sglang==0.5.4",  # no install
    "docker run lmsysorg/sglang:v0.5.4 pip install sglang==0.5.4",  # in a container, not on this host
])
def test_no_install_on_this_host_no_pin(scratch_git, install):
    scratch_git.write("serve.sh", SERVE.replace("INSTALL", install))
    _, report = scratch_git.lint("serve.sh")
    assert [c for c, _, _ in codes(report)] == ["SGL012"]


def test_an_install_after_the_launch_pins_nothing(scratch_git):
    scratch_git.write("serve.sh", SERVE.replace("INSTALL", "true") + "    pip install sglang==0.5.4\n")
    _, report = scratch_git.lint("serve.sh")
    assert [c for c, _, _ in codes(report)] == ["SGL012"]


def test_install_pins():
    assert install_pins(["python3", "-m", "pip", "install", "-U", "vllm==0.11.0", "sglang[all]==0.5.9"]) == {
        "vllm": ("0.11.0", 5), "sglang": ("0.5.9", 6)}
    assert install_pins(["pip", "install", "tensorrt_llm==1.0.0"]) == {"trtllm": ("1.0.0", 2)}
    assert install_pins(["sudo", "-E", "pip3", "install", "sglang==0.5.9"]) == {"sglang": ("0.5.9", 4)}
    assert install_pins(["echo", "pip", "install", "sglang==0.5.9"]) == {}
    assert install_pins(["pip", "uninstall", "-y", "sglang==0.5.9"]) == {}
    assert install_pins(["python3", "x.py", "sglang==0.5.9"]) == {}


SKY = """\
    resources:
      accelerators: H100:2
    setup: |
      pip install uv
      uv pip install "sglang[all]==RELEASE"
    run: |
      python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --enable-ep-moe --tp 2
    """


def test_a_skypilot_setup_pins_its_run(scratch_git):
    scratch_git.write("task.yaml", SKY.replace("RELEASE", "0.5.4"))
    _, report = scratch_git.lint("task.yaml")
    assert codes(report) == [("SGL009", 7, "SGLang 0.5.4]")]
    scratch_git.write("task.yaml", SKY.replace("RELEASE", "0.5.2"))
    code, report = scratch_git.lint("task.yaml")
    assert report["findings"] == [] and code == 0


def test_a_setup_install_after_other_commands_on_its_line(scratch_git):
    """`apt-get update && pip install \\` / `"sglang[all]==0.5.4"`: one command per operator, continued lines
    joined (pins.text_install_pins, shared with Dockerfile RUN lines)."""
    scratch_git.write("task.yaml", SKY.replace('uv pip install "sglang[all]==RELEASE"',
                                               'apt-get update -y && pip install \\\\\n        "sglang[all]==0.5.4"'))
    _, report = scratch_git.lint("task.yaml")
    assert codes(report) == [("SGL009", 8, "SGLang 0.5.4]")]
