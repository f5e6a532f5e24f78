"""Hostile-input round rw27/h, worktree w9: configs, suppressions, Helm numbers and budgets.

* P15 / P16: a ``--config`` YAML that ``yaml.safe_load`` refuses although it composes (a tag SafeConstructor has no
  constructor for, a second document, an unhashable key) passed clean.  SGLang 0.5.23 (oracle) REJECTs each with
  ConstructorError / ComposerError before it starts; vLLM 0.33.0's loader raises ConstructorError.  Now SGL028 at
  the tag, the second ``---`` or the key (SGLang), PD022 (vLLM: its flags not read).
"""

import pytest

SGL_RUN = "python3 -m sglang.launch_server --config cfg.yaml --disaggregation-mode prefill\n"


def _codes(report, code):
    return [f for f in report["findings"] if f["code"] == code]


# --- P15: SGLang --config refused by yaml.safe_load -------------------------------------------------------------

@pytest.mark.parametrize("cfg, line, column", [
    ("model-path: /m\ntp-size: !!python/int 1\n", 2, 10),
    ("model-path: /m\ntp-size: !custom 1\n", 2, 10),
    ("model-path: /m\n---\ntp-size: 1\n", 2, 1),
    ("model-path: /m\ntp-size: 1\n...\n---\n", 4, 1),
    ("model-path: /m\n? [a]\n: 1\n", 2, 3),
    ("model-path: /m\ntp-size: !!int two\n", 2, 10),
])
def test_sglang_config_safe_load_refuses_is_sgl028(scratch_git, cfg, line, column):
    scratch_git.write("run.sh", SGL_RUN)
    scratch_git.write("cfg.yaml", cfg)
    code, report = scratch_git.lint("--strict", ".")
    hits = _codes(report, "SGL028")
    assert [(f["path"], f["line"], f["column"]) for f in hits] == [("cfg.yaml", line, column)]
    assert code == 1


def test_sglang_config_with_safe_tags_stays_quiet(scratch_git):
    scratch_git.write("run.sh", SGL_RUN)
    scratch_git.write("cfg.yaml", "---\nmodel-path: !!str /m\ntp-size: !!int 2\nenable-metrics: !!bool true\n...\n")
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "SGL028")
    assert code == 0, report["findings"]


# --- P16: vLLM --config refused by yaml.safe_load ---------------------------------------------------------------

VLLM_RUN = ("vllm serve /m --config c.yaml --kv-transfer-config "
            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n")


@pytest.mark.parametrize("cfg", ["tensor-parallel-size: !!python/int 2\n", "? [a]\n: 1\ntensor-parallel-size: 2\n"])
def test_vllm_config_safe_load_refuses_is_not_read(scratch_git, cfg):
    scratch_git.write("run.sh", VLLM_RUN)
    scratch_git.write("c.yaml", cfg)
    code, report = scratch_git.lint("--strict", ".")
    assert [(f["path"], f["line"]) for f in _codes(report, "PD022")] == [("run.sh", 1)]
    assert code == 1


def test_vllm_config_plain_is_read(scratch_git):
    scratch_git.write("run.sh", VLLM_RUN)
    scratch_git.write("c.yaml", "tensor-parallel-size: !!int 2\n")
    code, report = scratch_git.lint("--strict", ".")
    assert not _codes(report, "PD022")
    assert code == 0, report["findings"]
