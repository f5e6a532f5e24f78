"""SGL021 and the --config merge follow each SGLang release's own config merger (field round rw35/b P1, fix
helper w43).

What was wrong: pdlint judged every release's ``--config`` keys by 0.5.23's merger (keys from the option strings,
``_takes_one_value``).  Before 0.5.23 the merger's refused set is ``{a.dest: a}`` over every action that is no
``_StoreTrueAction`` / ``_StoreAction`` (``sglang/srt/server_args_config_parser.py``, from 0.5.19 under
``sglang/srt/utils/``), so for SGLang 0.5.14 ``cuda-graph-bs:`` (dest ``cuda_graph_bs_decode``) is accepted with a
deprecation warning — pdlint said SGL021 error — while ``cuda-graph-max-bs-decode:`` (a dest an alias's
DeprecatedAliasStoreAction shares) is refused — pdlint said nothing.

Ground truth: the real mergers of 0.5.14 and 0.5.23 run in the oracle venv (rw35/b ``repro/1/merge514.py``):
0.5.14 a.yaml ``MERGED ['--cuda-graph-bs', '1', '2', '4', ...]`` / ``PARSED OK``; b.yaml ``REJECT ValueError
Unsupported config option 'cuda_graph_max_bs_decode' with action 'DeprecatedAliasStoreAction'``.  The refused sets
below are those mergers' ``unsupported_actions`` (key -> action class), read from the live parsers.  The merger
file of every release from 0.5.3 to 0.5.23 was read from its wheel: 0.5.3-0.5.7 refuse nothing and write every
boolean as a bare flag or nothing (``boolean_actions`` is always empty), 0.5.8-0.5.13.post1 write a mapping as
``str(dict)``, 0.5.14-0.5.22 as JSON; before 0.5.3 there is no ``--config``.
"""

import json

import pytest

from pdlint.cli import main
from pdlint.engines.sglang import config_merge as cm
from pdlint.engines.sglang import flags

from test_sglang_help import repo  # noqa: F401  (tests/ is on sys.path under pytest)

LAUNCH = "python -m sglang.launch_server --config c.yaml --model-path /m --disaggregation-mode decode --port 30000"


def findings(repo, capsys, version: str, config: str) -> list:
    (repo / "c.yaml").write_text(config)
    (repo / "launch.sh").write_text("#!/bin/sh\n" + LAUNCH + "\n")
    main(["--format", "json", "--sglang-version", version, "launch.sh"])
    out = json.loads(capsys.readouterr().out)
    return [(f["code"], f["severity"], f["path"], f["line"], f["message"]) for f in out["findings"]]


# SGLang 0.5.14's live ConfigArgumentMerger(parser).unsupported_actions (oracle venv, the 0.5.14 wheel's sources)
REAL_0_5_14 = {
    'collect_tokens_histogram': 'DeprecatedAction', 'cuda_graph_backend_prefill': 'DeprecatedStoreConstAction',
    'cuda_graph_bs_decode': 'DeprecatedAliasStoreAction', 'cuda_graph_bs_prefill': 'DeprecatedAliasStoreAction',
    'cuda_graph_max_bs_decode': 'DeprecatedAliasStoreAction', 'cuda_graph_max_bs_prefill': 'DeprecatedAliasStoreAction',
    'cuda_graph_tc_compiler': 'DeprecatedAliasStoreAction', 'disable_cuda_graph': 'DeprecatedStoreTrueAction',
    'dsa_decode_backend': 'DeprecatedAliasStoreAction', 'dsa_prefill_backend': 'DeprecatedAliasStoreAction',
    'dsa_prefill_cp_mode': 'DeprecatedAliasStoreAction', 'enable_dsa_prefill_context_parallel':
    'DeprecatedStoreTrueAction', 'enable_prefill_context_parallel': 'DeprecatedStoreTrueAction',
    'experts_shared_outer_loras': 'BooleanOptionalAction', 'incremental_streaming_output': 'DeprecatedStoreTrueAction',
    'lora_paths': 'LoRAPathAction', 'lora_strict_loading': 'BooleanOptionalAction',
    'mamba_radix_cache_strategy': 'DeprecatedAliasStoreAction', 'prefill_cp_mode': 'DeprecatedAliasStoreAction',
    'prefill_round_robin_balance': 'DeprecatedAction', 'speculative_draft_window_size': 'DeprecatedAliasStoreAction'}
# SGLang 0.5.23's (the oracle's own release)
_BOOL_OPT_0_5_23 = ('dcp_replicate_q_proj', 'dllm_fdfo', 'enable_decoder_swa_bounded_replay', 'enable_dsa_fused_indexer',
                    'enable_fused_qk_norm_rope', 'enable_tf32_matmul', 'enable_tp_lm_head_all_to_all',
                    'experts_shared_outer_loras', 'lora_strict_loading', 'mm_enable_dp_encoder',
                    'ple_offload_embedding', 'speculative_enable_w4a4_mxfp4_megamoe')
REAL_0_5_23 = {**{k: 'BooleanOptionalAction' for k in _BOOL_OPT_0_5_23},
               **{'no_' + k: 'BooleanOptionalAction' for k in _BOOL_OPT_0_5_23},
               'disable_cuda_graph': 'DeprecatedStoreTrueAction', 'enable_dp_attention': 'DeprecatedStoreTrueAction',
               'lora_paths': 'LoRAPathAction'}


def refused(version: str) -> dict:
    unsupported = cm.key_classes(flags.load(version))[1]
    return {k: cm.ACTION_CLASS.get(f.action, f.action.partition("custom:")[2] or f.action)
            for k, f in unsupported.items()}


@pytest.mark.parametrize("version, real", [("0.5.14", REAL_0_5_14), ("0.5.23", REAL_0_5_23)])
def test_refused_keys_are_the_release_mergers(version, real):
    assert refused(version) == real


@pytest.mark.parametrize("version", ["0.5.14", "0.5.19"])
def test_an_alias_key_the_old_merger_accepts_is_no_sgl021(repo, capsys, version):
    """P1, wrong finding: `cuda-graph-bs:` is accepted by 0.5.14-0.5.19 (deprecated alias, a warning)."""
    got = findings(repo, capsys, version, "cuda-graph-bs:\n  - 1\n  - 2\n  - 4\n")
    assert [(c, s, p, line) for c, s, p, line, _ in got] == [("SGL008", "warning", "c.yaml", 1)]


@pytest.mark.parametrize("version", ["0.5.14", "0.5.19"])
def test_a_dest_an_alias_shares_is_refused_by_the_old_merger(repo, capsys, version):
    """P1, wrong silence: `cuda-graph-max-bs-decode:` is refused by 0.5.14-0.5.19 (dest-keyed refused set)."""
    got = findings(repo, capsys, version, "cuda-graph-max-bs-decode: 64\n")
    assert [(c, s, p, line) for c, s, p, line, _ in got] == [("SGL021", "error", "c.yaml", 1)]
    assert got[0][4] == (f"Unsupported config option 'cuda_graph_max_bs_decode' with action "
                         f"'DeprecatedAliasStoreAction' [SGLang {version}]")


def test_0_5_23_keeps_its_merger(repo, capsys):
    """Neighbour: 0.5.23 accepts `cuda-graph-max-bs-decode:` and refuses a BooleanOptionalAction's `no-` key."""
    assert findings(repo, capsys, "0.5.23", "cuda-graph-max-bs-decode: 64\n") == []
    got = findings(repo, capsys, "0.5.23", "no-enable-tf32-matmul: true\n")
    assert [(c, line) for c, _, _, line, _ in got] == [("SGL021", 1)]


def test_a_plain_store_key_stays_quiet_on_old_releases(repo, capsys):
    """Neighbour: an ordinary store key is accepted by every merger."""
    for version in ("0.5.5", "0.5.9", "0.5.14", "0.5.21"):
        assert findings(repo, capsys, version, "mem-fraction-static: 0.8\n") == [], version


def test_before_0_5_8_the_merger_refuses_no_key(repo, capsys):
    """0.5.3-0.5.7: ConfigArgumentMerger(boolean_actions=[]) has no refused set: `lora-paths:` is merged."""
    assert findings(repo, capsys, "0.5.5", "lora-paths: [a=/x]\nenable-lora: true\n") == []
    got = findings(repo, capsys, "0.5.8", "lora-paths: [a=/x]\nenable-lora: true\n")
    assert [(c, line, m) for c, _, _, line, m in got] == [
        ("SGL021", 1, "Unsupported config option 'lora_paths' with action 'LoRAPathAction' [SGLang 0.5.8]")]


def test_before_0_5_8_a_boolean_is_a_bare_flag(repo, capsys):
    """0.5.3-0.5.7: `served-model-name: true` is a bare `--served-model-name` (argparse: expected one argument);
    0.5.23 passes `--served-model-name true`."""
    got = findings(repo, capsys, "0.5.5", "served-model-name: true\n")
    assert [(c, line) for c, _, _, line, _ in got] == [("SGL003", 1)]
    assert "expected one argument" in got[0][4]
    assert findings(repo, capsys, "0.5.23", "served-model-name: true\n") == []


def test_before_0_5_8_a_number_key_is_an_unknown_flag_not_a_crash(repo, capsys):
    """0.5.3-0.5.7 never call key.replace: `1: 2` is `--1 2` (unrecognized), 0.5.8 crashes (SGL021)."""
    got = findings(repo, capsys, "0.5.5", "1: 2\n")
    assert [(c, line) for c, _, _, line, _ in got] == [("SGL001", 1)]
    got = findings(repo, capsys, "0.5.9", "1: 2\n")
    assert [(c, line) for c, _, _, line, _ in got] == [("SGL021", 1)]


def test_before_0_5_14_a_mapping_is_a_python_repr(repo, capsys):
    """0.5.8-0.5.13.post1 write a mapping value as str(dict), which json.loads refuses; 0.5.14 writes JSON."""
    got = findings(repo, capsys, "0.5.9", "json-model-override-args: {a: 1}\n")
    assert [(c, line) for c, _, _, line, _ in got] == [("SGL044", 1)]
    assert findings(repo, capsys, "0.5.14", "json-model-override-args: {a: 1}\n") == []


def test_before_0_5_3_there_is_no_config_option(repo, capsys):
    """0.5.2 has no --config: argparse refuses it (no merge, the file is not read)."""
    got = findings(repo, capsys, "0.5.2", "cuda-graph-max-bs: 64\n")
    assert [(c, p, line) for c, _, p, line, _ in got] == [("SGL009", "launch.sh", 2)]
    assert "--config is not a flag of SGLang 0.5.2" in got[0][4]


def test_every_release_with_config_has_a_merger():
    for v in flags.available_versions():
        has_config = flags.load(v).lookup("--config") is not None
        assert (cm.merger_of(v) is not None) == has_config, v
    assert cm.merger_of("0.5.7").first == "0.5.3" and cm.merger_of("0.5.13.post1").first == "0.5.8"
    assert cm.merger_of("0.5.22").first == "0.5.14" and cm.merger_of("0.5.23").first == "0.5.23"
