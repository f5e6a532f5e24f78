"""SGLang's ``--config FILE`` merge errors, end to end through ``main``: each
stops SGLang before argparse runs (``ConfigArgumentMerger`` in
``sglang/srt/utils/server_args_config_parser.py``), so each is an error finding
at the line to edit, and none is reported as something else."""

import json
import textwrap

import pytest

from pdlint.cli import main


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(repo, capsys, script: str, files: dict) -> list:
    for name, text in files.items():
        (repo / name).write_text(textwrap.dedent(text))
    (repo / "launch.sh").write_text("#!/bin/sh\n" + script + "\n")
    code = main(["--format", "json", "launch.sh"])
    out = json.loads(capsys.readouterr().out)
    assert code == (1 if any(f["severity"] == "error" for f in out["findings"]) else 0)
    return [(f["code"], f["path"], f["line"], f["message"]) for f in out["findings"]]


LAUNCH = "python -m sglang.launch_server --config c.yaml --disaggregation-mode prefill"


@pytest.mark.parametrize("key,action", [
    ("enable-tf32-matmul: true", "BooleanOptionalAction"),
    ("no-enable-tf32-matmul: true", "BooleanOptionalAction"),
    ("lora-paths: [a=/loras/a]", "LoRAPathAction"),
    ("enable-dp-attention: true", "DeprecatedStoreTrueAction"),
    ("disable-cuda-graph: true", "DeprecatedStoreTrueAction"),
])
def test_unsupported_config_keys(repo, capsys, key, action):
    got = findings(repo, capsys, LAUNCH, {"c.yaml": f"model-path: /m\n{key}\n"})
    assert [(c, p, l) for c, p, l, _ in got] == [("SGL021", "c.yaml", 2)]
    assert f"with action '{action}'" in got[0][3]


def test_supported_keys_are_quiet(repo, capsys):
    got = findings(repo, capsys, LAUNCH, {"c.yaml": "model-path: /m\nenable-metrics: true\ntp-size: 1\n"
                                                    "monokernel-backend: amd\n"})
    # DeprecatedStoreConstAction takes one value: the merger accepts it (argparse then warns)
    assert [c for c, _, _, _ in got] == ["SGL008"]


def test_root_not_a_mapping(repo, capsys):
    got = findings(repo, capsys, LAUNCH, {"c.yaml": "- model-path\n- /m\n"})
    assert [(c, p, l) for c, p, l, _ in got] == [("SGL026", "c.yaml", 1)]


def test_yaml_syntax_error_points_into_the_file(repo, capsys):
    got = findings(repo, capsys, LAUNCH, {"c.yaml": "model-path: /m\ntp-size: [2\n"})
    assert [(c, p) for c, p, _, _ in got] == [("SGL028", "c.yaml")]
    assert got[0][2] == 2


def test_json_config_is_refused(repo, capsys):
    got = findings(repo, capsys, "python -m sglang.launch_server --config c.json --disaggregation-mode prefill",
                   {"c.json": '{"model-path": "/m"}'})
    # the model path in the refused file is not reported missing: SGLang never got that far
    assert [(c, p, l) for c, p, l, _ in got] == [("SGL025", "launch.sh", 2)]
    assert got[0][3].startswith("Config file must be YAML format, got: .json")


def test_two_config_files(repo, capsys):
    got = findings(repo, capsys, "python -m sglang.launch_server --config c.yaml --config d.yaml",
                   {"c.yaml": "model-path: /m\n", "d.yaml": "tp-size: 1\n"})
    # not SGL007 ("SGLang uses the last"): SGLang refuses the launch
    assert [c for c, _, _, _ in got] == ["SGL023"]
    assert got[0][3].startswith("Multiple config files specified! Only one allowed.")


def test_config_without_path(repo, capsys):
    got = findings(repo, capsys, "python -m sglang.launch_server --model-path /m --config", {})
    assert [c for c, _, _, _ in got] == ["SGL027"]


def test_null_value_is_a_warning(repo, capsys):
    got = findings(repo, capsys, LAUNCH, {"c.yaml": "model-path: /m\nhicache-storage-backend-extra-config: null\n"})
    assert [(c, p, l) for c, p, l, _ in got] == [("SGL022", "c.yaml", 2)]
    # the device name None is refused on every host when a Mooncake PD server validates it (SGL048)
    got = findings(repo, capsys, LAUNCH, {"c.yaml": "model-path: /m\ndisaggregation-ib-device: null\n"})
    assert sorted((c, p, l) for c, p, l, _ in got) == [("SGL022", "c.yaml", 2), ("SGL048", "c.yaml", 2)]


def test_equals_form_is_never_read(repo, capsys):
    got = findings(repo, capsys, "python -m sglang.launch_server --model-path /m --config=c.yaml",
                   {"c.yaml": "tp-size: 1\n"})
    assert [c for c, _, _, _ in got] == ["SGL024"]


@pytest.mark.parametrize("written", ["--conf c.yaml", "--confi=c.yaml", "--confi c.yaml"])
def test_an_abbreviated_config_option_is_never_read(repo, capsys, written):
    """argparse takes the unique prefix for --config; SGLang's merge looks for the exact token (server_args.py:683
    `if "--config" in argv`): differential round rw28/b P6, the oracle kept every default c.yaml sets."""
    got = findings(repo, capsys, f"python -m sglang.launch_server --model-path /m {written}",
                   {"c.yaml": "tp-size: 1\n"})
    assert [c for c, _, _, _ in got] == ["SGL024"]
    assert "never reads" in got[0][3]


def test_the_exact_config_token_is_read_and_not_reported(repo, capsys):
    got = findings(repo, capsys, "python -m sglang.launch_server --model-path /m --config c.yaml",
                   {"c.yaml": "tp-size: 1\n"})
    assert got == []


def test_text_output(repo, capsys):
    (repo / "c.yaml").write_text("model-path: /m\nlora-paths: [a=/l]\n")
    (repo / "launch.sh").write_text(LAUNCH + "\n")
    assert main(["launch.sh"]) == 1
    out = capsys.readouterr().out
    assert "c.yaml:2:1: SGL021 error: Unsupported config option 'lora_paths' with action 'LoRAPathAction'" in out
