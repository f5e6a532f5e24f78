"""Structure rules (PD101-PD149): what the launch's *structure* says against
what its flags say.

These rules read the information the format adapters attach to launches
(``pdlint.formats.crd``, ``kustomize``, ``helm``, ``keyed``):
``structural_role`` / ``structural_origin`` (the CRD field, values key or
resource name that names the role), ``meta['replica_of']`` /
``meta['group_role']`` (leader and workers of one role instance) and
``meta['unit']``.  :func:`check` runs once over all extracted launches (after
the engine adapters have parsed them); :func:`sh_c_findings` runs on every
``sh -c`` script the extractor hands to the shell front-end; PD104 and PD106
are emitted by the Helm and Kustomize adapters.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from pdlint import lazyre
from pdlint.model import ERROR, ROLES, WARNING, Finding, Launch, Related
from pdlint.pairing import router_args
from pdlint.records import replace
from pdlint.rules import Rule, register
from pdlint.text import TStr

_C = "structure"

ROLE_MISMATCH = register(Rule(
    "PD101", "structural-role-mismatch", ERROR,
    "Reports a launch whose structure names one role (a CRD field such as a RoleBasedGroup role name, Dynamo "
    "`subComponentType`/`type`, OME `engineConfig`/`decoderConfig`, KServe `spec.prefill`, a Helm values or "
    "srt-slurm `prefill:`/`decode:` section, a container's or Tekton step's name, else the resource's name "
    "(the innermost unit that names a role wins), a sibling file name such as `decode.sh` beside "
    "`prefill.sh`) while its flags (`--disaggregation-mode` of SGLang or of Dynamo's TensorRT-LLM and vLLM "
    "workers, vLLM's `kv_role`, a runtime sidecar's "
    "`worker_type`) name the other. The launch is then paired as the role its structure names, so the "
    "prefill/decode pair checks still run (e.g. two `kv_producer`s).",
    "The operator, router and pairing all treat the pod as the role its structure names (service selectors, "
    "router discovery by role label, the DGD component type), while the engine runs as the role its flag names: "
    "prefill traffic reaches a decode server (or the reverse) and requests hang or fail at the KV hand-off. A "
    "values override or a copied block can swap a role silently this way.",
    "Make the flag agree with the structure (or move the container to the role it serves).",
    example="roles:\n  - name: prefill\n    template: ...\n      args: [--disaggregation-mode, decode]",
    example_fixed="roles:\n  - name: prefill\n    template: ...\n      args: [--disaggregation-mode, prefill]",
    category=_C))

LEADER_WORKER_DRIFT = register(Rule(
    "PD102", "leader-worker-flag-drift", WARNING,
    "Reports server flags that differ between the leader and worker templates of one multi-node role instance "
    "(LeaderWorkerSet, RoleBasedGroup leader/worker patches, DisaggregatedSet, OME `leader`/`worker`, or SGLang "
    "launches written one per node: one directory and role, the same literal `--dist-init-addr` and `--nnodes`, "
    "rank 0 the leader), apart from "
    "the rank and address flags that must differ (`--node-rank`, `--dist-init-addr`, `--host`, `--port`, "
    "`--nnodes`) and the SGLang options only the first node's HTTP server reads or that only switch a rank's own "
    "metrics on (`--enable-metrics`, `--api-key`, `--chat-template`, `--tool-call-parser`, `--log-requests`, ...).",
    "The ranks of one tensor-parallel group are one server: the scheduler on every rank sizes its memory pools and "
    "schedules from its own arguments, so a flag set on the leader only (e.g. `--max-total-tokens`) makes ranks "
    "disagree on pool sizes or features, which fails at start-up or later as a collective mismatch or hang.",
    "Give the leader and worker templates the same server flags (keep only the rank/address flags different); "
    "share one flag list between them where the format allows it.",
    example="leader:  ... --max-total-tokens 131072 --tp-size 16\nworker:  ... --tp-size 16",
    example_fixed="leader:  ... --max-total-tokens 131072 --tp-size 16\nworker:  ... --max-total-tokens 131072 "
                  "--tp-size 16",
    category=_C))

UNEXPORTED = register(Rule(
    "PD103", "sh-c-unexported-assignment", WARNING,
    "Reports a `VAR=value;` statement in an `sh -c` script (a container command, a `docker run ... sh -c`) that "
    "sets a shell variable which is neither exported nor used later in the script.",
    "A statement that only assigns sets a variable of the shell, not of the environment: the server started by "
    "the next statement never sees it. With a YAML folded block (`>`) each line of `MC_TE_METRIC=true` becomes a "
    "separate statement once it ends in `;`, so settings that look like environment variables have no effect.",
    "Put the variable in the container's `env:` list, write `export VAR=value;`, or prefix the command itself "
    "(`VAR=value python3 -m ...`, no `;`).",
    example="command: [sh, -c]\nargs:\n  - >\n    MC_TE_METRIC=true;\n    python3 -m sglang.launch_server ...",
    example_fixed="env:\n  - name: MC_TE_METRIC\n    value: \"true\"\ncommand: [sh, -c]\nargs:\n  - >\n    "
                  "python3 -m sglang.launch_server ...",
    category=_C))

HELM_NOT_RENDERED = register(Rule(
    "PD104", "helm-chart-not-rendered", WARNING,
    "Reports, once per chart, a Helm chart whose templates pdlint could neither render with `helm template` "
    "(`helm` is not on PATH, or it failed) nor evaluate with its built-in template subset, so only the literal "
    "flag lines of its templates and the role sections of `values.yaml` were checked.",
    "Flags produced by template logic (conditionals, loops, helpers pdlint cannot evaluate) are then unchecked: a "
    "clean result does not mean the rendered manifests are clean. When the built-in subset renders the chart, "
    "`pdlint show` says so in the launch context instead, and nothing is reported.",
    "Install `helm` where pdlint runs (CI), or simplify the chart's command templates; the finding also names "
    "the template construct that stopped the built-in renderer.",
    category=_C,
    notes="Severity is a warning, not an error: the chart itself may be fine. It is reported only when pdlint lost "
          "coverage, because a warning on every chart in every run without `helm` (Debian and PyPI do not ship it) "
          "would train people to ignore it: not for a chart whose templates and values.yaml hold no launch text (an "
          "operator's or a library chart). `templates/NOTES.txt` (printed after an install, never a manifest) is not "
          "evaluated."))

ROLE_FLAG_MISSING = register(Rule(
    "PD105", "structural-role-without-role-flag", WARNING,
    "Reports an SGLang server whose structure names it prefill or decode (RoleBasedGroup role, LeaderWorkerSet or "
    "Deployment name, DisaggregatedSet role, StormService role, Compose service name) but whose command line has "
    "no `--disaggregation-mode`, so it starts as an ordinary (non-disaggregated) server; and a vLLM server so "
    "named prefill with no `--kv-transfer-config`.",
    "A server without `--disaggregation-mode` neither hosts the bootstrap server (prefill) nor waits for KV "
    "transfers (decode): the router's PD hand-off to it fails or it silently serves whole requests alone. A vLLM "
    "server without a KV connector neither sends nor receives KV caches: the proxy's prefill step is wasted work "
    "and the decode recomputes the whole prompt.",
    "Add `--disaggregation-mode prefill` (or `decode`) to the role's command; for vLLM, a `--kv-transfer-config` "
    "with the connector and `kv_role` of the role.",
    example="- name: prefill\n  ... command: [python3, -m, sglang.launch_server, --model-path, m]",
    example_fixed="- name: prefill\n  ... command: [python3, -m, sglang.launch_server, --model-path, m, "
                  "--disaggregation-mode, prefill]",
    category=_C,
    notes="Not reported where an operator injects the role flag itself (Dynamo DGD, KServe), nor for a vLLM server "
          "with a word pdlint cannot see (a variable may hold the connector) or an unread `--config`; Dynamo's vLLM "
          "workers have their own rules (VLLM025, VLLM026). For vLLM only a prefill is reported: llm-d names the "
          "pods of aggregated serving `decode`, and a decode beside a prefill with a connector is VLLM011; nor one "
          "whose role pdlint read from its file name."))

#: PD105's help on a vLLM server (the rule's own names SGLang's flag first: field round rw29/a)
_VLLM_ROLE_FIX = ("Add a `--kv-transfer-config` with the connector and `kv_role` of the role (`kv_producer` for a "
                  "prefill, `kv_consumer` for a decode, or `kv_both`), as the other role's server has it.")

MODE_MISSING = register(Rule(
    "PD110", "disaggregation-flags-without-mode", WARNING,
    "Reports an SGLang server that sets disaggregation flags (`--disaggregation-transfer-backend`, "
    "`--disaggregation-bootstrap-port`, `--disaggregation-decode-*`...) but has no `--disaggregation-mode`, where "
    "nothing around it names a role either.",
    "Without `--disaggregation-mode` SGLang starts an ordinary (aggregated) server: `disaggregation_mode` is `null`, "
    "no bootstrap server and no KV receiver start, and the flags are read by nobody. SGLang accepts the command "
    "without a word, so a deployment meant as prefill/decode runs every request whole on each server (a launch "
    "template missing its per-role flag, a copied example).",
    "Add `--disaggregation-mode prefill` or `--disaggregation-mode decode` to the server of each role, or drop the "
    "disaggregation flags from an aggregated server.",
    example="python -m sglang.launch_server --model-path m --disaggregation-transfer-backend nixl "
            "--disaggregation-bootstrap-port 30001",
    example_fixed="python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                  "--disaggregation-transfer-backend nixl --disaggregation-bootstrap-port 30001",
    category=_C,
    source="sglang/srt/managers/disagg_service.py (start_disagg_service: the bootstrap server only for a prefill "
           "or a role-switching server), managers/scheduler.py (init_disaggregation), SGLang 0.5.23; field test "
           "rw18/o: skypilot-org/skypilot examples/serve/nvidia-dynamo/nvidia-dynamo-multinode.sky.yaml, accepted "
           "by SGLang 0.5.23's argument resolution with disaggregation_mode 'null'",
    notes="Where the structure names the role (a Deployment or container called prefill, a RoleBasedGroup role) the "
          "missing flag is PD105 instead. Not reported for `--disaggregation-ib-device` alone (SGLang also gives it "
          "to Mooncake for HiCache storage and elastic expert parallelism), for encoder disaggregation "
          "(`--encoder-only`, `--language-only`), when a word or a `--config` file pdlint cannot see may hold the "
          "mode, where an operator or chart adds the role flag itself, nor for a flag (or value) SGLang refuses: "
          "its SGL001 / SGL004 / SGL005 is the line to edit."))

KUSTOMIZE_ERROR = register(Rule(
    "PD106", "kustomize-build-error", ERROR,
    "Reports a `kustomization.yaml` pdlint cannot build: a resource, base or patch file that is missing or "
    "outside the repository, a resource, patch or generator file outside the kustomization's directory, two "
    "resources with one id (kind, name, namespace), a patch without `target:` whose resource is not in the build, "
    "or a kustomization cycle.",
    "`kustomize build` (and `kubectl apply -k`) fails the same way, and the launches the build would produce "
    "cannot be checked as deployed: pdlint checks each as written and pairs none of them.",
    "Fix the path or the patch target at the reported line; move a file above the kustomization into its "
    "directory (or give it a kustomization.yaml of its own and list that directory); rename or drop one of two "
    "resources with one id.",
    example="resources:\n  - deployment.yaml\npatches:\n  - path: patch-prefil.yaml",
    example_fixed="resources:\n  - deployment.yaml\npatches:\n  - path: patch-prefill.yaml",
    category=_C,
    notes="A patch with a `target:` selector (kind, name as a regular expression, labels...) that selects nothing "
          "is not reported: kustomize builds without it. A patch whose target is not found is not reported either "
          "when the target may be in a resource pdlint cannot see: one it did not read (larger than the read limit "
          "or over a budget, reported as PD008), a remote base, the kustomization that includes a Component, or a "
          "resource a JSON 6902 patch renames in a way pdlint does not follow. The launches the patch would change "
          "are then checked without it, and their context says so; a patch that changes a container's `command`, "
          "`args` or `env` and selects no resource pdlint read is PD020 (the launch it changes was not checked). "
          "A missing resource that a script in its "
          "directory writes (`envsubst < t.tpl.yaml > cm.yaml`, `| sponge cm.yaml`, `tee`, `-o`, `cp`) is not "
          "reported: the script generates it before `kubectl apply -k`; the build's context names the script. "
          "A file outside the kustomization's directory is what kustomize's default load restrictor "
          "(`LoadRestrictionsRootOnly`: \"security; file ... is not in or below ...\") refuses; a build run with "
          "`--load-restrictor LoadRestrictionsNone` (Flux's kustomize-controller builds that way) accepts it: give "
          "that kustomization PD106 in `per-file-ignores` there. Two resources of one id: kustomize's \"may not add "
          "resource with an already registered id\" (group, version, kind, name and namespace, `default` being "
          "none; a base's own `namePrefix` / `nameSuffix` / `namespace` tells them apart) and \"namespace "
          "transformation produces ID conflict\"."))

ROUTER_REPLICAS = register(Rule(
    "PD107", "router-static-urls-miss-replicas", WARNING,
    "Reports a router inside a RoleBasedGroup that is given static `--prefill`/`--decode` URLs for fewer "
    "replicas than the role runs (e.g. only `<group>-prefill-0` while the prefill role has `replicas: 2`), "
    "without service discovery; likewise a router whose URLs name some of the pods of a StatefulSet of its "
    "directory by their stable names (`http://prefill-0.prefill:30001` while the StatefulSet has `replicas: 3`).",
    "Replicas the router does not know about never receive traffic: the extra prefill or decode instances burn "
    "GPUs idle, and scaling the role up changes nothing.",
    "List every replica's URL, or use the router's service discovery (`--service-discovery` with "
    "`--prefill-selector`/`--decode-selector`).",
    example="- name: router ... --prefill http://g-prefill-0.s-g-prefill:8000\n- name: prefill\n  replicas: 2",
    example_fixed="- name: router ... --prefill http://g-prefill-0.s-g-prefill:8000 "
                  "--prefill http://g-prefill-1.s-g-prefill:8000\n- name: prefill\n  replicas: 2",
    category=_C))

ROUTER_NO_COMMAND = register(Rule(
    "PD108", "router-cli-without-command", ERROR,
    "Reports `python -m sglang_router` or the `sglang-router` console script run without a `launch` or "
    "`server` sub-command.",
    "sglang-router's CLI (`sglang_router/cli.py` `main`, behind `python -m sglang_router` and the console "
    "scripts since 0.3) prints its help and exits with status 1 unless its first argument is `launch`, `server`, "
    "`--help` or a version flag; releases before 0.3 have neither `sglang_router/__main__.py` nor the console "
    "scripts, so the command fails there too. The router never starts, and the prefill and decode servers "
    "receive no requests.",
    "Add the sub-command (`python -m sglang_router launch --pd-disaggregation ...`), or run the module "
    "`python -m sglang_router.launch_router` with the same flags.",
    example="python -m sglang_router --pd-disaggregation --prefill http://p:30000 --decode http://d:30001",
    example_fixed="python -m sglang_router launch --pd-disaggregation --prefill http://p:30000 "
                  "--decode http://d:30001",
    category=_C,
    notes="Checked from sglang-router 0.1.4, 0.2.1 and 0.3.2's wheels. The router's own flags are PD111."))

RAY_MODEL_ID = register(Rule(
    "PD109", "ray-pd-model-id-mismatch", ERROR,
    "Reports a Ray Serve LLM prefill/decode application whose `prefill_config` and `decode_config` name different "
    "`model_loading_config.model_id`s.",
    "Ray's prefill/decode builder (`build_pd_openai_app`, `PDServingArgs`) checks that both configs serve one model "
    "id and raises `ValueError(\"P/D model id mismatch\")` otherwise: the application is never deployed. The id is "
    "the name clients ask for; the weights come from `model_source` (compared by the engines' model rules, "
    "VLLM013 / SGL821), so two ids for the same weights fail too.",
    "Give both configs the same `model_id` (the weights stay in `model_source`).",
    example="prefill_config:\n  model_loading_config: {model_id: gptoss, model_source: openai/gpt-oss-120b}\n"
            "decode_config:\n  model_loading_config: {model_id: gptoss-decode, model_source: openai/gpt-oss-120b}",
    example_fixed="prefill_config:\n  model_loading_config: {model_id: gptoss, model_source: openai/gpt-oss-120b}\n"
                  "decode_config:\n  model_loading_config: {model_id: gptoss, model_source: openai/gpt-oss-120b}",
    category=_C,
    notes="Checked from Ray 2.52.0's wheel: ray/llm/_internal/serve/serving_patterns/prefill_decode/builder.py:101 "
          "(`_validate_model_ids`). Field test rw15/i, anyscale/ray-serve-llm-perf-examples."))

ROUTER_FLAG = register(Rule(
    "PD111", "router-flag-rejected", ERROR,
    "Reports a word on an sglang-router command line (`python -m sglang_router.launch_router`, `python -m "
    "sglang_router launch`, `sglang-router launch`, the `lmsysorg/sgl-model-gateway` and `lmsysorg/sglang-router` "
    "images up to the newest release pdlint knows; the `--router-*` options of `python -m "
    "sglang_router.launch_server` and `sglang-router server`) that the router's argument parser rejects in every "
    "known "
    "release: a flag that is neither an option nor an unambiguous prefix of one (with the closest spellings), or a "
    "value outside the option's choices (`--policy`, `--prefill-policy`, `--log-level`, ...).",
    "sglang-router parses its command line with plain argparse (`parse_router_args` in "
    "`sglang_router/launch_router.py`) and exits at start-up with `unrecognized arguments` or `invalid choice`: "
    "the router never starts, and the prefill and decode servers behind it receive no requests.",
    "Fix the spelling (see the suggestion) or remove the flag; give the option one of the listed values.",
    example="python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 8998 "
            "--decode http://d:30001 --policy cache_awar --bogus-router-flag",
    example_fixed="python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 8998 "
                  "--decode http://d:30001 --policy cache_aware",
    upstream="unrecognized arguments: {args}\nargument {flag}: invalid choice: {value!r} (choose from {choices})\n"
             "ambiguous option: {option} could match {matches}",
    source="sglang_router/launch_router.py:100 (parse_router_args: parser.parse_args), "
           "sglang_router/router_args.py:245 (--policy choices), sglang-router 0.3.2; every release's options: "
           "pdlint/engines/sglang/data/router-flags.json",
    category=_C,
    notes="Judged against every sglang-router release of the table (0.1.0 to 0.3.2, from the wheels' own "
          "parsers): a flag or value any of them accepts is not reported, whatever release the launch runs. An "
          "error only for a router image tagged with one of those releases; elsewhere the router may be a newer "
          "build (SGLang's images build it from its repository, with options and policies of its own: "
          "`--policy consistent_hashing`), so only a likely typo (a close spelling exists) is reported, as a "
          "warning. Values "
          "a flag takes (`--prefill URL [BOOTSTRAP_PORT]`, `--worker-urls URL...`, a negative number) are never "
          "read as flags. Not checked: a launch pdlint could not read whole (marked incomplete), a flag or value a "
          "variable writes (`--policy $POLICY`; a literal flag beside `$EXTRA_ARGS` is still checked: no expansion "
          "makes argparse accept it), "
          "the words after `--`, `smg launch` / `amg launch` / `smg server` / `amg server` (sglang-router "
          "0.2.4-0.3.2's console scripts, but also those of "
          "lightseekorg/smg, the Shepherd Model Gateway sglang-router became, whose parser has options and choices "
          "no sglang-router release has: `--enable-rl`, `--policy prefix_hash`), a router image tagged `latest`, "
          "untagged or newer than the table, mini_lb, vllm-router and Dynamo's frontend. Field test rw19/b: an "
          "`lmsysorg/sgl-model-gateway` StatefulSet with `--bogus-router-flag` and `--policy cache_awar` counted as "
          "checked. `sglang_router.launch_server` (and the CLI's `server` sub-command, which runs its main) parses "
          "SGLang's server flags and the router's options in one parser, the router's with a `router-` prefix "
          "(`RouterArgs.add_cli_args(parser, use_router_prefix=True, exclude_host_port=True)`, plus "
          "`--router-dp-worker-base-port`; `--worker-urls` unprefixed): pdlint takes those words out, judges them "
          "here against the prefixed table, and checks the rest as an SGLang server launch (SGL rules). Field test "
          "rw34/a P5: `--tensor-paralel-size 4` on `sglang_router.launch_server` passed as a router's options."))
UNDEFINED_REF = register(Rule(
    "PD112", "undefined-env-reference", WARNING,
    "Reports a Kubernetes `$(NAME)` reference in a container's `command` or `args` (of a Deployment, StatefulSet, "
    "Pod, Job, ReplicaSet, DaemonSet, CronJob or LeaderWorkerSet) that no variable of the container defines: not "
    "in its `env`, no `envFrom` that could, not one LeaderWorkerSet injects (`LWS_LEADER_ADDRESS`, "
    "`LWS_GROUP_SIZE`, `LWS_WORKER_INDEX`), not a service variable.",
    "Kubernetes leaves a reference it cannot resolve as written, so the server receives the text `$(NAME)`: "
    "`--node-rank $(LWS_WORKER_IDX)` stops SGLang with \"invalid int value: '$(LWS_WORKER_IDX)'\", and "
    "`--dist-init-addr $(LEADER_ADDR):5000` makes every node wait for a host that does not exist.",
    "Define the variable in the container's `env` (a `fieldRef` for pod fields), or use the name the controller "
    "injects.",
    example="args: [--nnodes, $(LWS_GROUP_SIZE), --node-rank, $(LWS_WORKER_IDX)]   # in a LeaderWorkerSet",
    example_fixed="args: [--nnodes, $(LWS_GROUP_SIZE), --node-rank, $(LWS_WORKER_INDEX)]",
    category=_C,
    source="Kubernetes API: Container.args (\"If a variable cannot be resolved, the reference in the input string "
           "will be unchanged\"); LWS site docs, reference/labels-annotations-and-environment-variables; field test "
           "rw19/b (the SGLang 0.5.23 oracle: \"argument --node-rank: invalid int value: '$(LWS_WORKER_IDX)'\")",
    notes="An error for an `LWS_` name that LeaderWorkerSet does not inject (a typo: it injects exactly those "
          "three, and TPU_* on TPU pods); a warning otherwise, since an admission webhook may add variables the "
          "manifest does not show. Not reported where the container has `envFrom`, for `$$(NAME)` (an escaped "
          "reference), for Kubernetes service variables (`*_SERVICE_HOST`, `*_SERVICE_PORT`, `*_PORT_*`) or in "
          "the script of an exec-form `sh -c` / `bash -c` (the shell runs an unresolved `$(nproc)` as a command "
          "substitution: no server receives its text; field test rw26/a)."))

#: the variables LeaderWorkerSet's controller adds to every pod of a group (its site docs, "Labels, Annotations and
#: Environment Variables"); TPU_* only on TPU pods
LWS_ENV = frozenset({"LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX", "TPU_WORKER_HOSTNAMES",
                     "TPU_WORKER_ID", "TPU_NAME"})
_SERVICE_VAR = lazyre.compile(r"[A-Z0-9_]+_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT(?:_\d+_(?:TCP|UDP|SCTP)"
                          r"(?:_PROTO|_PORT|_ADDR)?)?)")


def undefined_ref_findings(refs: list, env: dict, kind: Optional[str], env_from: bool) -> list:
    """PD112 for each ``(name, token)`` of a container's ``$(NAME)`` references that nothing defines."""
    from pdlint.formats.crd import CORE_WORKLOAD_KINDS
    if kind not in CORE_WORKLOAD_KINDS and kind != "LeaderWorkerSet":
        return []  # another controller's resource (RoleBasedGroup: RBG_LWP_*, Kthena, ...) may inject its own
    out = []
    seen = set()
    for name, tok in refs:
        if name in env or env_from or _SERVICE_VAR.fullmatch(name) or (kind == "LeaderWorkerSet" and name in LWS_ENV):
            continue
        key = (tok.origin.path, tok.origin.line, tok.origin.column) if tok.pieces else None
        if key is None or key in seen:
            continue
        seen.add(key)
        typo = kind == "LeaderWorkerSet" and name.startswith("LWS_")
        from pdlint.suggest import hint
        known = sorted(set(env) | (LWS_ENV if kind == "LeaderWorkerSet" else set()))
        msg = (f"$({name}) is no variable of this container (not in its env" +
               (", not one LeaderWorkerSet injects" if kind == "LeaderWorkerSet" else "") +
               f"): Kubernetes passes the text `$({name})` to the server unchanged{hint(name, known)}")
        f = _finding(UNDEFINED_REF, tok, None, msg)
        if typo:
            f = replace(f, severity=ERROR)
        out.append(f)
    return out


#: sglang-router's CLI entry points and the first arguments its main() accepts (sglang_router/cli.py)
ROUTER_CLIS = ("python -m sglang_router", "sglang-router")
ROUTER_CLI_FIRST = ("launch", "server", "-h", "--help", "--version", "-V", "--version-verbose")

# flags that must differ between ranks of one multi-node instance
RANK_DESTS = {"node_rank", "dist_init_addr", "host", "port", "nnodes", "nccl_init_addr"}
# (vLLM's --api-server-count: the leader's API servers; a --headless worker must not set it - run_headless:
# "api_server_count can't be set in headless mode")
RANK_OPTIONS = {"--node-rank", "--dist-init-addr", "--host", "--port", "--nnodes", "--nccl-init-addr",
                "--data-parallel-rank", "--data-parallel-address", "--data-parallel-start-rank", "--headless",
                "--api-server-count"}
#: SGLang options only the first node's HTTP server and tokenizer read (the other nodes of a multi-node
#: instance start schedulers only), or that only switch a rank's own metrics on: the leader may set them alone.
#: Read in SGLang 0.5.23: `enable_metrics` picks each rank's metrics collector and timers, no collective; the
#: others appear in no scheduler, model, cache or transfer module (`served_model_name`, which names KV storage
#: keys, and `reasoning_parser`, which the scheduler reads, are not here).  Field test rw8/a: veophi/rbg's
#: LeaderWorkerSet sample sets `--enable-metrics` on its leader only.
FRONT_END_DESTS = {"enable_metrics", "api_key", "admin_api_key", "chat_template", "completion_template",
                   "tool_call_parser", "log_requests", "log_requests_level", "timeout_keep_alive",
                   "enable_cache_report"}


def _finding(rule: Rule, tok: Optional[TStr], launch: Optional[Launch], message: str, related=(),
             role: Optional[str] = None, fix: Optional[str] = None) -> Finding:
    if tok is not None and tok.pieces and not tok.origin.path.startswith("<"):
        o = tok.origin
        path, line, col = o.path, o.line, o.column
        rel = list(related) + [Related(h.path, h.line, h.column, f"via {h.note}") for h in o.chain]
        end = col + len(tok.text)
    else:
        path, line, col, rel, end = launch.path, launch.line, 1, list(related), None
    return Finding(path, line, col, rule.code, rule.name, rule.severity, role, message, tuple(rel), fix or rule.fix,
                   None, end, token=tok.text if end is not None else None)


def _structure_related(launch: Launch) -> list:
    o = launch.structural_origin
    if o is None:
        return []
    how = launch.meta.get("role_how") or "structure"
    return [Related(o.path, o.line, o.column, f"{how} names the role {launch.structural_role!r} here")]


def _sglang_parsed(launch: Launch):
    info = launch.parsed
    return getattr(info, "parsed", None) if info is not None and hasattr(info, "args") else None


# ---------------------------------------------------------------------------
# PD101 / PD105
# ---------------------------------------------------------------------------

_ROLE_TOKEN = lazyre.compile(r"kv_producer|kv_consumer|--is-prefill-worker|--is-decode-worker|prefill|decode")


def role_findings(launch: Launch) -> list:
    out: list = []
    sr = launch.structural_role
    if sr not in ROLES:
        return out
    how = launch.meta.get("role_how") or "the structure"
    parsed = _sglang_parsed(launch)
    if parsed is not None:
        occ = parsed.occurrence("disaggregation_mode")
        if occ is not None and (occ.value in ROLES or occ.value == "null") and occ.value != sr:
            tok = occ.value_tok if occ.value_tok is not None and occ.value_tok.text else occ.name_tok
            # (`null`, written or a variable's default: an ordinary server the structure pairs as a role - field test
            # rw27/b, it passed clean where no --disaggregation-mode at all was PD105)
            out.append(_finding(ROLE_MISMATCH, tok, launch,
                                f"{how} makes this the {sr} server, but --disaggregation-mode is {occ.value!r}" +
                                (": SGLang starts it as an ordinary (non-disaggregated) server"
                                 if occ.value == "null" else ""),
                                _structure_related(launch), occ.value if occ.value in ROLES else None))
        elif occ is None and not parsed.incomplete and not launch.incomplete and not launch.meta.get("injects_role") \
                and launch.kind == "server" and not launch.meta.get("keyed"):
            out.append(_finding(ROLE_FLAG_MISSING, launch.command[-1] if launch.command else None, launch,
                                f"{how} makes this the {sr} server, but it has no --disaggregation-mode: SGLang "
                                f"starts it as an ordinary (non-disaggregated) server",
                                _structure_related(launch), sr))
    elif (tok := _wrapper_mode(launch)) is not None and tok.text in ROLES and tok.text != sr:
        # Dynamo's TensorRT-LLM / vLLM worker takes its role from its own --disaggregation-mode, as SGLang does
        # (field test rw21/a: a DynamoGraphDeployment's TRTLLMDecodeWorker started with `prefill` passed)
        out.append(_finding(ROLE_MISMATCH, tok, launch,
                            f"{how} makes this the {sr} server, but --disaggregation-mode is {tok.text!r}",
                            _structure_related(launch), tok.text))
    elif _vllm_without_connector(launch):
        out.append(_finding(ROLE_FLAG_MISSING, launch.command[-1] if launch.command else None, launch,
                            f"{how} makes this the {sr} server, but {_no_kv_config(launch)}: vLLM starts it "
                            f"as an ordinary server with no KV connector, so no KV cache is handed over",
                            _structure_related(launch), sr, _VLLM_ROLE_FIX))
    elif launch.role in ROLES and launch.role != sr:
        kv = getattr(launch.parsed, "kv", None)  # vLLM: the kv_role value itself
        node = kv.get("kv_role") if kv is not None and getattr(kv, "node", None) is not None else None
        tok = node.tok if node is not None else \
            next((t for t in launch.argv if launch.role in t.text or
                  {"prefill": "kv_producer", "decode": "kv_consumer"}[launch.role] in t.text), None)
        out.append(_finding(ROLE_MISMATCH, tok, launch,
                            f"{how} makes this the {sr} server, but its flags make it {launch.role!r}; pdlint "
                            f"pairs it as the {sr} server (its structure) so the pair checks still run",
                            _structure_related(launch), launch.role))
    for role, tok, note in launch.meta.get("role_claims", ()):
        if role != sr:
            out.append(_finding(ROLE_MISMATCH, tok, launch,
                                f"{how} makes this the {sr} role, but the {note} says {role!r}",
                                _structure_related(launch), role))
    return out


def _wrapper_mode(launch: Launch) -> Optional[TStr]:
    """The literal ``--disaggregation-mode`` value of a Dynamo TensorRT-LLM or vLLM worker (``python -m
    dynamo.trtllm`` / ``dynamo.vllm``), None for any other launch."""
    if launch.kind != "server" or not launch.entrypoint.startswith(("python -m dynamo.trtllm",
                                                                    "python -m dynamo.vllm")):
        return None
    return _literal_flag(launch, "--disaggregation-mode")


#: SGLang dests that act only on a prefill or decode server (disaggregation_ib_device also reaches Mooncake for
#: HiCache storage and elastic EP: mooncake_transfer_engine.maybe_init_shared_mooncake_transfer_engine)
_MODE_ONLY_EXEMPT = {"disaggregation_mode", "disaggregation_ib_device"}


def mode_missing_findings(launch: Launch) -> list:
    """PD110: disaggregation flags on an SGLang server with no --disaggregation-mode and no structural role."""
    parsed = _sglang_parsed(launch)
    if parsed is None or launch.kind != "server" or launch.structural_role in ROLES or launch.role in ROLES:
        return []
    if parsed.occurrence("disaggregation_mode") is not None or parsed.incomplete or launch.incomplete or \
            launch.meta.get("injects_role") or launch.meta.get("keyed") or \
            any(parsed.occurrence(d) is not None for d in ("encoder_only", "language_only")):
        return []
    # (a flag whose value SGLang refuses is that error's line already: SGL004 / SGL005)
    refused = {e.option for e in parsed.errors if e.option}
    flags = [o for o in parsed.occurrences
             if o.dest.startswith("disaggregation_") and o.dest not in _MODE_ONLY_EXEMPT and not o.name_tok.opaque
             and o.value is not None and o.option not in refused and o.written not in refused]
    if not flags:
        return []
    shown = " and ".join(dict.fromkeys(o.option for o in flags))
    related = [Related(o.name_tok.origin.path, o.name_tok.origin.line, o.name_tok.origin.column,
                       f"{o.option} is set here too") for o in flags[1:] if o.name_tok.pieces]
    return [_finding(MODE_MISSING, flags[0].name_tok, launch,
                     f"{shown} {'is' if len(flags) == 1 else 'are'} set, but there is no --disaggregation-mode: "
                     f"SGLang starts an ordinary (aggregated) server and no prefill/decode transfer happens",
                     related)]


def _no_kv_config(launch: Launch) -> str:
    """How a vLLM launch has no KV transfer config: none written, or one vLLM reads as None (``''``, ``None``)."""
    none = getattr(launch.parsed, "kv_none", None)
    return f"its --kv-transfer-config {none.text!r} reads as None" if none is not None \
        else "it has no --kv-transfer-config"


def _vllm_without_connector(launch: Launch) -> bool:
    """A vLLM server (not Dynamo's: VLLM025/VLLM026) with no ``--kv-transfer-config`` anywhere pdlint can see:
    every word known, its ``--config`` read (wodubayo/disaggregeted_inference_and_kv-caching_offloading runs a
    Compose service named ``prefill`` as a plain ``vllm/vllm-openai`` server)."""
    info = launch.parsed
    if launch.engine != "vllm" or info is None or not hasattr(info, "kv") or info.kv is not None:
        return False
    if launch.structural_role != "prefill" or launch.meta.get("role_from_sibling"):
        # a decode so named with no prefill is llm-d's aggregated serving (modelservice's decode-only pods); one
        # beside a prefill with a connector is VLLM011; a file name (`server_decode_profile.sh` beside a prefill
        # one) names what the script studies (ZhaiFeiyue/amd-tools profiles a plain server)
        return False
    if getattr(info, "dynamo", False) or getattr(info, "incomplete", False) or launch.incomplete:
        return False
    if launch.kind != "server" or launch.meta.get("injects_role") or launch.meta.get("keyed"):
        return False
    return not any(t.opaque for t in launch.argv)


# ---------------------------------------------------------------------------
# PD102
# ---------------------------------------------------------------------------

def _flag_map(launch: Launch) -> dict:
    """option -> (value text, token to blame) for the server flags of a launch."""
    parsed = _sglang_parsed(launch)
    out: dict = {}
    if parsed is not None:
        for occ in parsed.occurrences:
            if occ.dest in RANK_DESTS or occ.dest in FRONT_END_DESTS:
                continue
            out[occ.dest] = (occ.value_text(), occ.name_tok, occ.option)
        return out
    argv = list(launch.argv)
    i = 0
    while i < len(argv):
        t = argv[i].text
        if t.startswith("--"):
            name, eq, val = t.partition("=")
            key = name.replace("_", "-")
            if eq:
                value = val
            elif i + 1 < len(argv) and not argv[i + 1].text.startswith("--"):
                value = argv[i + 1].text
                i += 1
            else:
                value = ""
            if key not in RANK_OPTIONS:
                out[key] = (value, argv[i if eq else i - (1 if value else 0)], name)
        i += 1
    return out


SAME_RANK = register(Rule(
    "PD113", "same-node-rank-in-group", ERROR,
    "Reports a multi-node instance (a LeaderWorkerSet or RoleBasedGroup leader and its workers, or an SGLang "
    "instance written as one launch per node: launches of one directory and role with the same literal "
    "`--dist-init-addr` and `--nnodes`) two of whose nodes are given the same literal `--node-rank`.",
    "Each node of one instance must have its own rank: SGLang derives the TP ranks a node runs from `--node-rank` "
    "(tp_size_per_node x node_rank ...), so two nodes with rank 0 both claim ranks 0-7, and the rendezvous on "
    "`--dist-init-addr` waits for the missing ranks until it times out; vLLM's multi-node start does the same "
    "with its `--node-rank`.",
    "Give each node its rank from the controller (`--node-rank $(LWS_WORKER_INDEX)` in a LeaderWorkerSet, the "
    "RBG index variable), not a literal copied into every template.",
    example="leaderTemplate: ... --nnodes 2 --node-rank 0\nworkerTemplate: ... --nnodes 2 --node-rank 0",
    example_fixed="leaderTemplate: ... --nnodes 2 --node-rank 0\nworkerTemplate: ... --nnodes 2 --node-rank 1",
    category=_C,
    source="sglang/srt/entrypoints/engine.py (the node's TP ranks from node_rank), SGLang 0.5.23; field test rw19/b "
           "(RoleBasedGroup leader and worker templates both with --node-rank 0)"))

PROXY_COUNTS = register(Rule(
    "PD114", "proxy-host-port-count-mismatch", ERROR,
    "Reports vLLM's prefill/decode toy proxy (`toy_proxy_server.py`, and copies of it told by its "
    "`--prefiller-hosts` / `--decoder-hosts` flags) given a different number of hosts and ports for one role: "
    "`--prefiller-hosts localhost --prefiller-ports 8100 8101` (a flag not written counts its one default: "
    "`localhost`, port 8100 / 8200).",
    "The proxy pairs the lists item by item (`zip(args.prefiller_hosts, args.prefiller_ports)`) and checks their "
    "lengths first: `ValueError: Number of prefiller hosts must match number of prefiller ports` at start-up, so "
    "the proxy never starts and neither role receives a request.",
    "Give one host per port (`--prefiller-hosts localhost localhost --prefiller-ports 8100 8101`).",
    example="python toy_proxy_server.py --port 8000 --prefiller-hosts localhost --prefiller-ports 8100 8101 "
            "--decoder-hosts localhost --decoder-ports 8200",
    example_fixed="python toy_proxy_server.py --port 8000 --prefiller-hosts localhost localhost "
                  "--prefiller-ports 8100 8101 --decoder-hosts localhost --decoder-ports 8200",
    upstream="Number of prefiller hosts must match number of prefiller ports\n"
             "Number of decoder hosts must match number of decoder ports",
    source="vllm-project/vllm tests/v1/kv_connector/nixl_integration/toy_proxy_server.py (parse_args: the lengths "
           "are checked before the lists are zipped)",
    category=_C,
    notes="An error for a script named `toy_proxy_server.py`; a warning for a proxy of another name with the same "
          "flags (a copy, which may have changed its parsing). Lists written comma-separated "
          "(`--prefiller-host a,b --prefiller-port 8100`: LMCache's proxies, which give every host the one port) "
          "and lists a variable writes (`--prefiller-hosts $HOSTS`, which the shell may split) are not reported. "
          "Field test rw27/a."))

_PROXY_WORD = {"prefill": "prefiller", "decode": "decoder"}


def proxy_count_findings(launch: Launch) -> list:
    """PD114: a toy proxy's host and port lists of different lengths."""
    if launch.kind != "router" or launch.engine != "vllm" or launch.incomplete or \
            launch.entrypoint != "python toy_proxy_server.py":
        return []
    from pdlint.pairing import host_port_lists
    written = host_port_lists(launch)
    script = launch.command[-1].text.rsplit("/", 1)[-1] if launch.command else ""
    out = []
    for role in ("prefill", "decode"):
        hosts, ports = written.get((role, "host"), []), written.get((role, "port"), [])
        if not hosts and not ports:
            continue
        flags = hosts + ports
        if any(comma or not vals or any(v.opaque or "$" in v.text for v in vals) for _, vals, comma in flags):
            continue
        nh = sum(len(vals) for _, vals, _ in hosts) or 1  # (the proxy's default: one host, one port)
        np_ = sum(len(vals) for _, vals, _ in ports) or 1
        if nh == np_:
            continue
        word = _PROXY_WORD[role]
        flag, vals, _ = (ports or hosts)[-1]
        msg = (f"{nh} {word} host{'s' if nh != 1 else ''} and {np_} {word} port{'s' if np_ != 1 else ''}"
               f"{' (one default)' if not hosts or not ports else ''}: the proxy pairs them one by one and refuses "
               f"to start (\"Number of {word} hosts must match number of {word} ports\")")
        f = _finding(PROXY_COUNTS, flag, launch, msg)
        if script != "toy_proxy_server.py":
            f = replace(f, severity=WARNING, message=msg + f"; {script or 'this proxy'} is taken for a copy of "
                                                           "vLLM's toy proxy by its flags")
        out.append(f)
    return out


def _literal_rank(launch: Launch) -> Optional[TStr]:
    """The written ``--node-rank`` value of a launch, when it is a literal whole number."""
    tok = _literal_flag(launch, "--node-rank")
    return tok if tok is not None and tok.text.isdigit() else None


def same_rank_findings(groups: dict) -> list:
    out = []
    for ls in groups.values():
        leaders = [l for l in ls if l.meta["group_role"] == "leader"]
        for worker in (l for l in ls if l.meta["group_role"] == "worker"):
            wtok = _literal_rank(worker)
            if wtok is None:
                continue
            for leader in leaders:
                ltok = _literal_rank(leader)
                if ltok is None or ltok.text != wtok.text:
                    continue
                out.append(_finding(SAME_RANK, wtok, worker,
                                    f"this worker is given --node-rank {wtok.text}, the rank its leader has: "
                                    f"two nodes of one instance claim the same ranks and the group never "
                                    f"completes its rendezvous",
                                    [Related(ltok.origin.path, ltok.origin.line, ltok.origin.column,
                                             "the leader's --node-rank")] if ltok.pieces else [],
                                    worker.role if worker.role in ROLES else None))
                break
    seen, unique = set(), []
    for f in out:  # (one template line rendered per worker: once)
        if (f.path, f.line, f.column) not in seen:
            seen.add((f.path, f.line, f.column))
            unique.append(f)
    return unique


def drift_findings(launches: list) -> list:
    groups: dict = {}
    for l in launches:
        g = l.meta.get("replica_of")
        if g and l.meta.get("group_role") in ("leader", "worker") and l.kind == "server":
            groups.setdefault(g, []).append(l)
    out = same_rank_findings(groups)
    for g, ls in groups.items():
        leaders = [l for l in ls if l.meta["group_role"] == "leader"]
        workers = [l for l in ls if l.meta["group_role"] == "worker"]
        out += _group_drift(leaders, workers)
    out += node_script_findings(launches)
    return out


def _group_drift(leaders: list, workers: list, what_is=lambda l: l.meta["group_role"]) -> list:
    """PD102 between the leaders and the workers of one multi-node instance."""
    out: list = []
    if leaders and workers:
        lmaps = [(l, _flag_map(l)) for l in leaders]
        reported: set = set()
        for worker in workers:
            wmap = _flag_map(worker)
            # a leader and a worker evaluated on several paths (`if [ -n "$NEW_VLLM" ]; then ARGS=...` in both
            # scripts: kserve's llmisvc configs) run the same branch: each worker against its closest leader
            leader, lmap = min(lmaps, key=lambda lm: _drift(lm[1], wmap))
            role = leader.role if leader.role in ROLES else None
            what = f"{role} " if role else ""
            for dest in sorted(set(lmap) | set(wmap), key=lambda d: (lmap.get(d) or wmap.get(d))[1].origin.key):
                a, b = lmap.get(dest), wmap.get(dest)
                if a is not None and b is not None and a[0] == b[0]:
                    continue
                if a is not None and b is None:
                    msg = f"{a[2]} {a[0]}".rstrip() + f" is set on the {what}leader but not on its worker"
                    tok, other = a[1], worker
                elif a is None:
                    msg = f"{b[2]} {b[0]}".rstrip() + f" is set on the {what}worker but not on its leader"
                    tok, other = b[1], leader
                else:
                    msg = f"{a[2]} is {a[0]!r} on the {what}leader but {b[0]!r} on its worker"
                    tok, other = a[1], worker
                if (tok.origin_key(), msg) in reported:
                    continue  # (the same difference on another path)
                reported.add((tok.origin_key(), msg))
                rel = [Related(other.path, other.line, 1, f"{what_is(other)} launch ({other.context})")]
                if a is not None and b is not None:
                    ob = b[1].origin
                    rel.insert(0, Related(ob.path, ob.line, ob.column, "the worker's value"))
                out.append(_finding(LEADER_WORKER_DRIFT, tok, leader,
                                    msg + " (ranks of one instance must run the same server flags)", rel, role))
    return out


def _literal_flag(launch: Launch, flag: str) -> Optional[TStr]:
    """The written value of ``flag`` on an SGLang server's command line (the last one), when no part of it is
    a value pdlint cannot see."""
    argv = list(launch.argv)
    found = None
    for i, t in enumerate(argv):
        name, eq, _ = t.text.partition("=")
        if name.replace("_", "-") != flag:
            continue
        tok = t[len(name) + 1:] if eq else (argv[i + 1] if i + 1 < len(argv) else None)
        if tok is not None and not tok.opaque and not any(p.opaque for p in tok.pieces):
            found = tok
    return found


def node_script_findings(launches: list) -> list:
    """PD113 and PD102 for the nodes of one multi-node SGLang instance written as one script per node: launches
    of one directory and role with the same literal ``--dist-init-addr`` and ``--nnodes`` (2 or more), each file
    holding one node (one rank), are one instance when there are as many such files as nodes; rank 0 is its
    leader.  A file that starts several ranks itself is an instance of its own, and more files than nodes are
    alternatives (attempts, variants), not one instance: neither is grouped (devopsrustem/slurmv4, the field
    compare).  Field test rw21/b (hhhh1252023/pass cp/pnode60.sh and cp/pnode234.sh, nodes 0 and 1 of one
    prefill instance: the rank-1 node alone had `--quantization modelsliim` and another
    `--mem-fraction-static`); two nodes given one rank passed."""
    groups: dict = {}
    for l in launches:
        if l.kind != "server" or l.engine != "sglang" or l.meta.get("replica_of") or not l.argv:
            continue
        addr, nnodes, rank = (_literal_flag(l, f) for f in ("--dist-init-addr", "--nnodes", "--node-rank"))
        if addr is None or nnodes is None or rank is None or not nnodes.text.isdigit() or int(nnodes.text) < 2:
            continue
        key = (os.path.dirname(l.path), addr.text, nnodes.text, l.role)
        groups.setdefault(key, {}).setdefault(l.path, {}).setdefault(rank.text, (l, rank))
    out: list = []
    for (_, addr, nnodes, role), files in sorted(groups.items(), key=lambda kv: repr(kv[0])):
        nodes = [next(iter(ranks.values())) for _, ranks in sorted(files.items()) if len(ranks) == 1]
        if len(nodes) != len(files) or len(nodes) != int(nnodes):
            continue  # a file of several ranks, or more (or fewer) files than nodes: not one instance
        by_rank: dict = {}
        for l, rank in nodes:
            by_rank.setdefault(rank.text, []).append((l, rank))
        for text, same in sorted(by_rank.items()):
            first = same[0]
            for l, rank in same[1:]:
                o = first[1].origin
                out.append(_finding(
                    SAME_RANK, rank, l,
                    f"this node is given --node-rank {text}, as is {first[0].path}:{first[0].line}, the other node "
                    f"of the same instance (--dist-init-addr {addr}, --nnodes {nnodes}): two nodes claim the same "
                    f"ranks and the instance never completes its rendezvous",
                    [Related(o.path, o.line, o.column, "the other node's --node-rank")] if first[1].pieces else [],
                    role if role in ROLES else None))
        if len(by_rank) == len(nodes):
            leaders = [l for l, _ in by_rank.get("0", [])]
            workers = [l for t, ns in sorted(by_rank.items()) if t != "0" for l, _ in ns]
            out += _group_drift(leaders, workers, what_is=lambda l: "node")
    return out


def _drift(lmap: dict, wmap: dict) -> int:
    """How many server flags a leader's and a worker's flag maps (:func:`_flag_map`) differ in."""
    return sum(1 for d in set(lmap) | set(wmap) if (lmap.get(d) or (None,))[0] != (wmap.get(d) or (None,))[0])


# ---------------------------------------------------------------------------
# PD107
# ---------------------------------------------------------------------------



def router_cli_findings(launch: Launch) -> list:
    """PD108: sglang-router's CLI without its sub-command."""
    if launch.kind != "router" or launch.entrypoint not in ROUTER_CLIS or launch.incomplete:
        return []
    first = launch.argv[0] if launch.argv else None
    if first is not None and (first.opaque or first.text in ROUTER_CLI_FIRST):
        return []
    tok = first if first is not None else (launch.command[-1] if launch.command else None)
    return [_finding(ROUTER_NO_COMMAND, tok, launch,
                     f"`{launch.entrypoint}` needs the `launch` or `server` sub-command first: without it "
                     f"sglang-router's CLI prints its help and exits with status 1, and the router never starts")]


#: the entry points that run sglang-router's `parse_router_args` on their argv (the CLI forms of ROUTER_CLIS after
#: their `launch` sub-command: sglang_router/cli.py).  Not `smg launch` / `amg launch`: sglang-router 0.2.4-0.3.2
#: has those console scripts, but so has lightseekorg/smg, the Shepherd Model Gateway it became (its clap CLI
#: `shepherd-model-gateway` with aliases smg, amg, and its Python package `smg`), whose parser has many options and
#: choices no sglang-router release has (`--enable-rl`, `--prefix-token-count`, `--policy prefix_hash`,
#: `--backend vllm`)
ROUTER_PARSERS = ("python -m sglang_router.launch_router",)
#: the router images (pdlint.launchers.IMAGE_ENTRYPOINTS) and their tag: judged only when the tag names a release
#: of the table (an image built after it, `latest` or no tag may run a parser with options the table lacks)
_ROUTER_IMAGE = lazyre.compile(r"(?:^|/)(?:sgl-model-gateway|sglang-router)(?::([^@/\s]*))?(?:@|$)")
_RELEASE_TAG = lazyre.compile(r"v?(\d+)\.(\d+)\.(\d+)")


def _router_image_unknown(launch: Launch) -> bool:
    """The launch runs in an sglang-router image whose tag names no release up to the table's newest."""
    from pdlint.engines.sglang.router_flags import releases
    m = _ROUTER_IMAGE.search(str(launch.meta.get("image") or ""))
    if m is None:
        return False
    tag = _RELEASE_TAG.fullmatch(m.group(1) or "")
    rels = releases()
    if tag is None or not rels:
        return True
    newest = tuple(int(x) for x in rels[-1].version.split("."))
    return tuple(int(x) for x in tag.groups()) > newest


def router_options_judged(launch: Launch) -> bool:
    """Does PD111 judge this router's own options against a table: sglang-router's parser (`launch_router`, the
    CLI's `launch`), not in an image tagged newer than the table, `latest` or untagged (unpinned, for likely typos
    only)?  vllm-router, mini_lb, Dynamo's frontend, `smg launch`, a toy proxy: no table (coverage says so: field
    test rw20/f, vllm-router's `--bogus-router-flag` passed)."""
    if launch.kind != "router" or launch.engine != "sglang":
        return False
    argv = launch.argv
    if launch.entrypoint in ROUTER_CLIS:
        return bool(argv) and not argv[0].opaque and argv[0].text == "launch" and not _router_image_unknown(launch)
    return launch.entrypoint in ROUTER_PARSERS and not _router_image_unknown(launch)


def router_flag_findings(launch: Launch) -> list:
    """PD111: router flags and choices that no sglang-router release accepts (also the `--router-*` words of
    `sglang_router.launch_server`, a server launch whose SGLang flags the SGLang engine judges)."""
    from pdlint.engines.sglang import router_flags
    from pdlint.launchers import ROUTER_SERVERS
    if launch.engine != "sglang" or launch.incomplete:
        return []
    argv = launch.argv
    rels = None
    if launch.kind == "server":
        if launch.entrypoint not in ROUTER_SERVERS:
            return []
        argv = router_flags.split_server_argv(argv)[1]
        rels = router_flags.server_releases()
    elif launch.kind != "router":
        return []
    elif launch.entrypoint in ROUTER_CLIS:
        if not argv or argv[0].opaque or argv[0].text != "launch":
            return []  # (`server` takes SGLang's server flags too; no sub-command is PD108)
        argv = argv[1:]
    elif launch.entrypoint not in ROUTER_PARSERS:
        return []
    if _router_image_unknown(launch):
        return []
    pinned = _router_image_pinned(launch)
    from pdlint.suggest import hint
    out = []
    for rej in router_flags.check(argv, rels):
        msg = rej.message
        if rej.kind == "unknown":
            near = hint(rej.option, router_flags.all_options(rels))
            msg += " (no sglang-router release from " + _router_span() + " has this flag" + near + ")"
        elif rej.kind == "choice":
            near = hint(rej.token.text, rej.choices)
            msg += " (in every sglang-router release from " + _router_span() + " that has the option" + near + ")"
        else:
            near = ""
        if not pinned:
            # the router in SGLang's images is built from its repository, newer than the last PyPI release the
            # table has, with options and choices of its own (SemiAnalysisAI/InferenceX: `--policy
            # consistent_hashing` with "sglang-router >= 0.5.14"): unpinned, only a likely typo is said, as a warning
            if not near:
                continue
            f = _finding(ROUTER_FLAG, rej.token, launch, msg + "; no router release is pinned: a router newer than "
                         "the table may differ")
            out.append(replace(f, severity=WARNING))
            continue
        out.append(_finding(ROUTER_FLAG, rej.token, launch, msg))
    return out


def _router_image_pinned(launch: Launch) -> bool:
    """The launch runs in an sglang-router image tagged with a release of the table, or beside an exact
    ``sglang-router==X`` pin of one (``pip install``, requirements.txt, a Dockerfile: pdlint.formats.pins)."""
    m = _ROUTER_IMAGE.search(str(launch.meta.get("image") or ""))
    if m is not None and _RELEASE_TAG.fullmatch(m.group(1) or "") is not None and not _router_image_unknown(launch):
        return True
    from pdlint.engines.sglang.router_flags import releases
    pin = (launch.meta.get("pins") or {}).get("sglang-router")
    return pin is not None and any(r.version == str(pin).lstrip("v") for r in releases())


def _router_span() -> str:
    from pdlint.engines.sglang.router_flags import releases
    rels = releases()
    return f"{rels[0].version} to {rels[-1].version}" if rels else "the table"


def ray_model_id_findings(launches: list) -> list:
    """PD109: a Ray Serve LLM prefill/decode application whose two configs name different model ids."""
    apps: dict = {}
    for l in launches:
        app = l.meta.get("ray_app")
        if app is not None and l.structural_role in ("prefill", "decode") and l.meta.get("ray_model_id") is not None:
            apps.setdefault(app, {}).setdefault(l.structural_role, l)
    out = []
    for app, by_role in apps.items():
        p, d = by_role.get("prefill"), by_role.get("decode")
        if p is None or d is None:
            continue
        pid, did = p.meta["ray_model_id"], d.meta["ray_model_id"]
        if pid.opaque or did.opaque or pid.text == did.text:
            continue
        out.append(_finding(RAY_MODEL_ID, did, d,
                            f"the prefill config's model_id is {pid.text!r} but the decode config's {did.text!r}: "
                            f"Ray's prefill/decode builder raises \"P/D model id mismatch\" and the application is "
                            f"not deployed",
                            [Related(pid.origin.path, pid.origin.line, pid.origin.column,
                                     "the prefill config's model_id")] if pid.pieces else []))
    return out


def router_findings(launches: list) -> list:
    return _rbg_router_findings(launches) + _statefulset_router_findings(launches)


def _missing_replicas(router: Launch, tok: TStr, idx: set, n: int, label: str, name) -> Finding:
    """PD107 for a router given ``idx`` of ``n`` replicas' URLs (``name(k)``: replica k's name)."""
    missing, k = [], 0  # the first missing replicas, never a list sized by the replica count (a number from the file)
    while k < n and len(missing) < _MAX_LISTED:
        if k not in idx:
            missing.append(k)
        k += 1
    left = n - len({i for i in idx if 0 <= i < n}) - len(missing)
    more = f" and {left} more" if left > 0 else ""
    return _finding(ROUTER_REPLICAS, tok, router,
                    f"the router is given {len(idx)} static URL(s) for {label}, which runs {n} replicas: "
                    f"{', '.join(name(k) for k in missing)}{more} never "
                    f"receive{'s' if len(missing) == 1 and not more else ''} traffic")


def _statefulset_router_findings(launches: list) -> list:
    """PD107 for a router whose URLs name pods of a StatefulSet of its directory by their stable names
    (``http://prefill-0.prefill:30001``, the headless service's per-pod DNS name) but not all its replicas
    (field test rw19/b: only RoleBasedGroups were looked at)."""
    import posixpath
    sets: dict = {}  # (directory, StatefulSet name) -> replicas
    for l in launches:
        n, name = l.meta.get("replicas"), l.meta.get("resource_name")
        if l.meta.get("resource_kind") == "StatefulSet" and name and isinstance(n, int) and 0 < n <= 4096:
            sets[(posixpath.dirname(l.path), name)] = n
    if not sets:
        return []
    out = []
    for r in (l for l in launches if l.kind == "router"):
        names = sorted((name, n) for (d, name), n in sets.items() if d == posixpath.dirname(r.path))
        if not names or any(t.text.startswith("--service-discovery") for t in r.argv):
            continue
        seen: dict = {}
        first: dict = {}
        for _, how, tok, _ in router_args(r)[0]:
            if how != "url":
                continue
            for name, _ in names:
                m = re.match(r"^(?:https?://)?" + re.escape(name) + r"-(\d+)(?:[.:/]|$)", tok.text)
                if m:
                    seen.setdefault(name, set()).add(int(m.group(1)))
                    first.setdefault(name, tok)
        for name, n in names:
            idx = seen.get(name)
            if idx and len(idx) < n:
                out.append(_missing_replicas(r, first[name], idx, n, f"StatefulSet {name!r}",
                                             lambda k, name=name: f"{name}-{k}"))
    return out


def _rbg_router_findings(launches: list) -> list:
    out = []
    by_unit: dict = {}
    for l in launches:
        if l.meta.get("resource_kind") == "RoleBasedGroup" and l.meta.get("unit"):
            by_unit.setdefault(l.meta["unit"], []).append(l)
    for unit, ls in by_unit.items():
        replicas = {}
        for l in ls:
            rn, n = l.meta.get("role_name"), l.meta.get("replicas")
            if rn and isinstance(n, int):
                replicas[rn] = n
        group = ls[0].meta.get("resource_name") or ""
        for r in (l for l in ls if l.kind == "router"):
            texts = [t.text for t in r.argv]
            if any(t.startswith("--service-discovery") for t in texts):
                continue
            seen: dict = {}
            first: dict = {}
            # every URL of `--prefill URL [BOOTSTRAP] URL ...` (nargs="+": mini_lb, sglang-router), veophi/rbg's
            # examples/pd-disagg/sglang/sglang-pd.yaml (field test rw8/a)
            # (a replica's address: `http://GROUP-ROLE-INDEX.GROUP-ROLE:PORT`, or `GROUP-ROLE-INDEX:PORT`)
            replica = re.compile(r"^(?:https?://)?" + re.escape(group) + r"-(.+?)-(\d+)(?:[.:/]|$)")
            for _, how, tok, _ in router_args(r)[0]:
                m = replica.match(tok.text) if how == "url" else None
                if m:
                    seen.setdefault(m.group(1), set()).add(int(m.group(2)))
                    first.setdefault(m.group(1), tok)
            for rn, idx in seen.items():
                n = replicas.get(rn)
                if n is not None and len(idx) < n:
                    out.append(_missing_replicas(r, first[rn], idx, n, f"role {rn!r}",
                                                 lambda k, rn=rn: f"{group}-{rn}-{k}"))
    return out


_MAX_LISTED = 16  # replicas one PD107 message names


# ---------------------------------------------------------------------------
# PD103
# ---------------------------------------------------------------------------

_ASSIGN = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


_HEREDOC = lazyre.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([A-Za-z0-9_.-]+))")


def _heredoc_end(text: str, i: int, delimiters: list) -> int:
    """Where the text resumes after the bodies of the here-documents ``delimiters`` ((word, strip tabs))
    whose operators are on the line that ends at ``i`` (a newline): past each body's terminator line, or
    the end of the text."""
    n = len(text)
    i += 1
    for word, tabs in delimiters:
        while i < n:
            j = text.find("\n", i)
            line = text[i:n if j < 0 else j]
            i = n if j < 0 else j + 1
            if (line.lstrip("\t") if tabs else line) == word:
                break
    return min(i, n)


def _statements(text: str) -> list:
    """(start, end) of top-level statements (split on ; & && || newlines outside quotes; here-document
    bodies are no statements: ``python3 << EOF`` then ``run(capture_output=True)``)."""
    out, start, i, n = [], 0, 0, len(text)
    quote = None
    heredocs: list = []  # (delimiter, strip tabs) of the here-documents whose bodies start at the next line
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif c == "\\" and i + 1 < n:
            i += 2
            continue
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            out.append((start, i))
            i = n if j < 0 else j
            start = i
            continue
        elif c == "<" and text.startswith("<<", i):
            if text.startswith("<<<", i):  # a here-string
                i += 3
                continue
            m = _HEREDOC.match(text, i)
            if m:
                heredocs.append((next(g for g in m.groups()[1:] if g is not None), m.group(1) == "-"))
                i = m.end()
                continue
        elif c in ";\n&|":
            out.append((start, i))
            if c == "\n" and heredocs:
                i = _heredoc_end(text, i, heredocs)
                heredocs = []
            while i < n and text[i] in ";\n&|":
                i += 1
            start = i
            continue
        i += 1
    out.append((start, n))
    return [(a, b) for a, b in out if text[a:b].strip()]


def _words(text: str) -> list:
    """(start, end) of blank-separated words (quotes kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        j, quote = i, None
        while j < n and (quote or text[j] not in " \t"):
            if quote:
                if text[j] == quote:
                    quote = None
            elif text[j] in "'\"":
                quote = text[j]
            j += 1
        out.append((i, j))
        i = j
    return out


def unexported_assignments(script: TStr) -> list:
    """``(token, name)`` of assignment-only statements whose variable is never
    exported, used or allexported later in the script."""
    text = script.text
    if re.search(r"(^|[;\s])set\s+-[a-zA-Z]*a", text):
        return []
    out = []
    for a, b in _statements(text):
        ws = _words(text[a:b])
        if not ws:
            continue
        first = text[a + ws[0][0]:a + ws[0][1]]
        if not all(_ASSIGN.match(text[a + s:a + e]) for s, e in ws):
            if first in ("export", "readonly", "declare", "local", "typeset"):
                continue
            continue
        for s, e in ws:
            word = text[a + s:a + e]
            name = word.split("=", 1)[0]
            rest = text[b:]
            if re.search(r"\bexport\s+(?:-\w+\s+)*(?:[A-Za-z_][A-Za-z0-9_]*(?:=\S*)?\s+)*" + re.escape(name) +
                         r"\b", text) or re.search(r"\$\{?" + re.escape(name) + r"\b", rest):
                continue
            out.append((script[a + s:a + e], name))
    return out


def sh_c_findings(script: TStr, what: str = "`sh -c` script") -> list:
    """PD103 in the script of an ``sh -c`` (``what``: how the message names the script, e.g. an ``ssh HOST
    COMMAND``'s "`ssh` command string")."""
    out = []
    for tok, name in unexported_assignments(script):
        value = tok.text.split("=", 1)[1].rstrip(";")
        out.append(_finding(
            UNEXPORTED, tok, None,
            f"`{tok.text}` only sets a shell variable: {name} is not exported, so the command run by this "
            f"{what} never sees it (use the container's env list, `export {name}={value}` or a "
            f"`{name}={value} command` prefix)"))
    return out


# ---------------------------------------------------------------------------

def check(launches: list) -> list:
    """PD101, PD102, PD105, PD107, PD108, PD109, PD110, PD111 and PD114 over all extracted launches."""
    from pdlint.pairing import router_structure, sibling_structure
    out: list = []
    sibling_structure(launches)
    router_structure(launches)
    for l in launches:
        out += role_findings(l) + router_cli_findings(l) + mode_missing_findings(l) + router_flag_findings(l) + \
            proxy_count_findings(l)
    out += drift_findings(launches)
    out += router_findings(launches)
    out += ray_model_id_findings(launches)
    return out
