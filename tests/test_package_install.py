"""A package manager's install / uninstall names packages, not a program that runs: ``pip install
sglang-router`` is no router launch (found by a real-file round: kvcache-ai/Mooncake
scripts/tone_tests/scripts/common.sh, sgl-project/sglang .github/workflows/pr-test-rust.yml), while a
launch behind a wrapper (``uv run``, ``conda run``, ``numactl``, ``srun``, ``docker run IMAGE``) still is one."""

import json

from pdlint.cli import main

INSTALLS = """\
pip install sglang-router
pip3 install --upgrade "sglang[all]" sglang-router
uv pip install sglang-router
uv add sglang-router
uv tool install sglang-router
python -m pip install sglang-router
python3 -m pip --index-url https://pypi.example/simple install trtllm-serve
apt-get install -y sglang-router
sudo apt-get -o Dpkg::Options::=--force-confnew install -y trtllm-serve
yum install -y sglang-router
conda install -c conda-forge sglang-router
mamba install sglang-router
npm i sglang-router
poetry add sglang-router
pip install vllm trtllm-serve
pip uninstall -y sglang-router
pip download sglang-router
"""

LAUNCHES = """\
uv run python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000
conda run -n env python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001
numactl --membind 0 python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30002
srun -N1 python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30003
docker run --rm -v /pip:/pip lmsysorg/sglang python3 -m sglang.launch_server --model-path m --port 30004
nohup sglang-router --pd-disaggregation --prefill http://a:30000 --decode http://b:30001 &
pipx run sglang-router --pd-disaggregation --prefill http://a:30000 --decode http://b:30001
"""


def check(tmp_path, capsys, monkeypatch, text):
    (tmp_path / "setup.sh").write_text("#!/bin/bash\n" + text)
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "--format", "json", "--exit-zero", "setup.sh"])
    return json.loads(capsys.readouterr().out)


def test_package_installs_are_no_launches(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, INSTALLS)
    assert [(l["line"], l["entrypoint"]) for l in doc["launches"]] == []
    # nor launch text left unchecked: the launcher words there are package names
    assert [f for f in doc["findings"] if f["code"].startswith("PD02")] == []


def test_launches_behind_wrappers_still_found(tmp_path, capsys, monkeypatch):
    doc = check(tmp_path, capsys, monkeypatch, INSTALLS + LAUNCHES)
    n = INSTALLS.count("\n") + 1
    assert [(l["line"] - n, l["entrypoint"], l["role"]) for l in doc["launches"]] == [
        (1, "python -m sglang.launch_server", "prefill"),
        (2, "python -m sglang.launch_server", "decode"),
        (3, "python -m sglang.launch_server", "prefill"),
        (4, "python -m sglang.launch_server", "decode"),
        (5, "python -m sglang.launch_server", "null"),
        (6, "sglang-router", None),
        (7, "sglang-router", None),
    ]
