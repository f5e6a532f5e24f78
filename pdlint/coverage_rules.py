"""Coverage diagnostics: launch text pdlint saw but could not check.

pdlint's promise is "passes => the servers start"; a file that holds a launch
pdlint could not turn into a checked launch must never pass silently.  These
rules are raised by :mod:`pdlint.coverage` after the check stage.  They are
warnings (the launch may be fine); ``--strict`` makes them errors.
"""

from pdlint.model import WARNING
from pdlint.rules import Rule, register

_C = "coverage"

UNCHECKED = register(Rule(
    "PD020", "unchecked-launch-text", WARNING,
    "Reports launch text (a known launcher such as `sglang.launch_server`, `vllm serve`, `trtllm-serve`, "
    "`dynamo.sglang`, a router, also written as list items: `[vllm, serve]`, or `- vllm` / `- serve` on two "
    "lines; or an engine-only flag such as `--disaggregation-mode` or `--kv-transfer-config`) from which no "
    "launch pdlint checked was built; and a kustomize JSON 6902 patch operation pdlint did not apply that may change "
    "a launch (a path not in the resource as pdlint built it, an index past the end of a list, a target selector "
    "pdlint cannot evaluate), at the operation; and a kustomize patch (JSON 6902 or strategic merge) that changes a "
    "container's `command`, `args` or `env` but selects no resource pdlint read (the target may be in a remote base "
    "pdlint does not fetch), at the operation or the patched field, naming that resource.",
    "pdlint found a server launch it did not understand: an unknown file structure, a launcher behind a variable or "
    "wrapper pdlint does not follow, a template branch no role value renders (or one behind a Jinja `is defined` / "
    "Helm `.Values` test of a value no file pdlint read sets), or a file kind pdlint does not read. "
    "Its flags were not checked at all, so a passing run says nothing about this launch (nor about a launch a patch "
    "operation pdlint did not apply changes).",
    "Make the launch checkable: start the command with a known launcher (or a wrapper pdlint follows: `srun`, "
    "`docker run`, `env`, `sh -c`), name the template's role variable with `role-var`, give variables set outside "
    "the repository a value in `[tool.pdlint.vars]` or a `values` file. If the text is not a launch (a usage "
    "message, documentation), exclude the file or suppress the finding. A JSON 6902 operation: make its path match "
    "the resource as built (`kubectl kustomize`), or write the change as a strategic-merge patch. A patch of a "
    "remote base: check the patched launch where the base is read (or vendor the base into the repository).",
    example="#!/bin/sh\n$LAUNCHER --model-path /models/qwen --disaggregation-mode prefill",
    example_fixed="#!/bin/sh\npython3 -m sglang.launch_server --model-path /models/qwen --disaggregation-mode prefill",
    category=_C))

UNRESOLVED_ROLE = register(Rule(
    "PD021", "unresolved-role", WARNING,
    "Reports a prefill/decode server launch whose role pdlint cannot decide: the role flag's value "
    "(`--disaggregation-mode`, vLLM's `kv_role`, Dynamo's worker mode) comes from a variable pdlint does not know. "
    "When no file name, CRD field or template branch names the role either, the launch has none and is not paired; "
    "when one does (`start_decode.sh` beside `start_prefill.sh`, a router's URL), the message says so: pdlint takes "
    "that role and pairs the launch, but what the role flag's value itself sets was not checked.",
    "Most of SGLang's PD checks are role-specific (a flag refused on a prefill server, another on a decode "
    "server); with the role unknown none of them ran on this launch, and it was not paired with its peer.  With the "
    "role taken from a file name the pair rules ran, but the value that sets the role (a whole "
    "`--kv-transfer-config`) went unchecked.",
    "Give the role variable a value pdlint can see: name it with `role-var` (templates render once per role), "
    "set it in `[tool.pdlint.roles.<role>.vars]`, or write the role literally in each launch.",
    example="ROLE=$1\npython3 -m sglang.launch_server --disaggregation-mode $ROLE",
    example_fixed="case \"$1\" in\n  prefill) python3 -m sglang.launch_server --disaggregation-mode prefill ;;\n"
                  "  decode)  python3 -m sglang.launch_server --disaggregation-mode decode ;;\nesac",
    category=_C))

UNRESOLVED_CONFIG = register(Rule(
    "PD022", "unresolved-config-file", WARNING,
    "Reports a launch that reads a config file (SGLang or vLLM `--config PATH`, Dynamo `--disagg-config PATH`, a "
    "TensorRT-LLM options file or disaggregated `-c` config) pdlint cannot find: the path is a variable, a mount "
    "path no ConfigMap in the repository provides, or a file outside the repository. Also a TensorRT-LLM "
    "disaggregated config whose `context_servers` / `generation_servers` list only URLs, when pdlint did not find "
    "the servers started at them: their settings are in those servers' own options files.",
    "The flags in that file are merged into the server's arguments at start-up; pdlint checked the launch without "
    "them, so any role-only flag, typo or conflicting value in the file was not checked.",
    "Keep the config file in the repository and reference it by a path relative to the launch file or the "
    "repository root (or from a ConfigMap in the same manifest or kustomization).",
    example="python3 -m sglang.launch_server --config $CONFIG_DIR/prefill.yaml",
    example_fixed="python3 -m sglang.launch_server --config configs/prefill.yaml",
    category=_C))

OPAQUE_ARGS = register(Rule(
    "PD023", "opaque-launch-arguments", WARNING,
    "Reports a word in a launch's argument list whose value pdlint cannot see (an environment variable, a "
    "variable set outside the repository, a command substitution, a template action another tool renders: "
    "`{{- if .Spec.X -}}--flag{{- end }}`) where a flag could stand, so it may add any number of flags.",
    "Whatever flags that variable holds at deploy time were not checked: a role-only flag passed through "
    "`$EXTRA_ARGS` is exactly the shared-flag failure pdlint exists to catch.",
    "Give the variable the value it has at deploy time in `[tool.pdlint.vars]`, a `values` file or `--var` "
    "(an empty string when it is normally unset), or write its flags into the launch. For a template action "
    "(a controller's Go template), check the command line it renders.",
    example="python3 -m sglang.launch_server --model-path /models/qwen $EXTRA_ARGS",
    example_fixed="[tool.pdlint.vars]\nEXTRA_ARGS = \"--enable-metrics\"",
    category=_C))

OTHER_ENGINE = register(Rule(
    "PD024", "unsupported-engine-launch", WARNING,
    "Reports a prefill/decode launch of a serving engine pdlint has no rules for: LightLLM (`lightllm.server."
    "api_server --run_mode prefill|decode|pd_master|config_server|nixl_prefill|nixl_decode`) and LMDeploy (`lmdeploy "
    "serve api_server --role Prefill|Decode`, `lmdeploy serve proxy --serving-strategy DistServe`), MindIE "
    "(`MINDIE_INFER_MODE=dmi` in a start script naming MindIE), RTP-LLM (`rtp_llm.start_server` with "
    "`ROLE_TYPE=PREFILL|DECODE` or `--role_type`) and xLLM (`xllm --instance_role=PREFILL|DECODE|MIX`), at the flag that makes it a PD server; a mode "
    "written as a variable (`--run_mode $MODE`) is said as a launch that may be one. A non-PD launch of those "
    "engines is not reported.",
    "pdlint checks SGLang, vLLM and TensorRT-LLM servers (and the wrappers that start them). Nothing in this launch "
    "was checked, so a run that passes says nothing about it; without this finding the run would read as \"the PD "
    "configuration was verified\".",
    "Check this launch against the engine's own arguments by hand. To record that it stays unchecked, put "
    "`# pdlint: ignore[PD024]` on the line (or give the file PD024 in `per-file-ignores`); `ignore = [\"PD024\"]` "
    "accepts every such launch of the repository.",
    example="python -m lightllm.server.api_server --model_dir /models/llama --run_mode prefill --pd_master_port 60011",
    example_fixed="python -m lightllm.server.api_server --model_dir /models/llama --run_mode prefill "
                  "--pd_master_port 60011  # pdlint: ignore[PD024] LightLLM: checked by hand",
    category=_C))

CODES = (UNCHECKED.code, UNRESOLVED_ROLE.code, UNRESOLVED_CONFIG.code, OPAQUE_ARGS.code, OTHER_ENGINE.code)
