"""Field test rw16 (SGLang PD launches checked against SGLang 0.5.23's oracle, Kubernetes wrappers of PD
serving, vLLM / TensorRT-LLM deployments by teams other than the engines'): what it found, each with the
repository it came from."""

import textwrap


def _codes(out):
    return sorted((f["path"], f["code"]) for f in out["findings"])


def _script(backend: str) -> str:
    flag = f" --disaggregation-transfer-backend {backend}" if backend else ""
    return textwrap.dedent(f"""\
        #!/bin/bash
        CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path /models/m --host 10.0.0.1 --port 30000 \\
          --disaggregation-mode prefill{flag} &
        CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path /models/m --host 10.0.0.1 --port 30001 \\
          --disaggregation-mode decode{flag} &
        python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://10.0.0.1:30000 \\
          --decode http://10.0.0.1:30001 --port 8000
        """)


def test_a_router_names_the_servers_of_its_own_script_not_a_sibling_experiments_at_the_same_address(scratch_git):
    """devopsrustem/slurmv4: one script per experiment, all on the same hosts and ports; the router of the NIXL
    experiment joined the Mooncake experiments' servers (by their address) and SGL805 paired a NIXL prefill with
    a Mooncake decode of another script."""
    scratch_git.write("exp/run_mooncake.sh", _script(""))
    scratch_git.write("exp/run_nixl.sh", _script("nixl"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert sorted((p["prefill"]["path"], p["decode"]["path"]) for u in out["pairs"] for p in u["pairs"]) == [
        ("exp/run_mooncake.sh", "exp/run_mooncake.sh"), ("exp/run_nixl.sh", "exp/run_nixl.sh")]


def test_a_router_still_joins_the_servers_of_another_script_it_names(scratch_git):
    """The router in its own script (hhhh1252023/pass's router.sh) still pairs the servers other scripts start at
    the addresses it names; a mismatch between them is found."""
    text = _script("nixl").splitlines(keepends=True)
    scratch_git.write("exp/prefill.sh", "".join(text[:3]))
    scratch_git.write("exp/decode.sh", "#!/bin/bash\n" + "".join(text[3:5]).replace(" nixl", ""))
    scratch_git.write("exp/router.sh", "#!/bin/bash\n" + "".join(text[5:]))
    code, out = scratch_git.lint(".")
    assert code == 1 and ("exp/decode.sh", "SGL805") in _codes(out)


def test_servers_started_in_the_foreground_one_after_the_other_never_share_the_host_but_still_pair(scratch_git):
    """devopsrustem/slurmv4's notes scripts ("# run on node A" / "# run on node B"): the second server starts only
    when the first has ended, so PD151 "both use GPU 0" was false; their configurations are still compared."""
    scratch_git.write("pd.sh", textwrap.dedent("""\
        #!/bin/bash
        # run on node A
        python3 -m sglang.launch_server --model-path /models/m --port 30000 --disaggregation-mode prefill
        # run on node B
        python3 -m sglang.launch_server --model-path /models/m --port 30001 --disaggregation-mode decode \\
          --disaggregation-transfer-backend nixl
        """))
    code, out = scratch_git.lint(".")
    assert (code, _codes(out)) == (1, [("pd.sh", "SGL805")])


def test_a_background_server_or_a_detached_container_still_shares_the_host(scratch_git):
    for first in ("python3 -m sglang.launch_server --model-path /models/m --port 30000 --disaggregation-mode "
                  "prefill &",
                  "docker run -d --gpus all --network host lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server "
                  "--model-path /models/m --port 30000 --disaggregation-mode prefill"):
        scratch_git.write("pd.sh", "#!/bin/bash\n" + first + "\n" + first.replace("prefill", "decode").replace(
            "30000", "30001").rstrip(" &") + "\n")
        code, out = scratch_git.lint(".")
        assert (code, _codes(out)) == (1, [("pd.sh", "PD151")]), first


def test_command_v_looks_a_program_up_and_starts_nothing(scratch_git):
    """bytedance-iaas/vllm's start-router.sh: `command -v vllm-router >/dev/null 2>&1` was a router launch without
    arguments, paired with every server; `command vllm-router ...` still runs it."""
    scratch_git.write("start-router.sh", textwrap.dedent("""\
        #!/bin/bash
        if ! command -v vllm-router >/dev/null 2>&1; then pip install vllm-router; fi
        sudo command -V vllm-router
        command vllm-router --port 8000 --prefill http://10.0.0.1:8100 --decode http://10.0.0.2:8200
        """))
    code, out = scratch_git.lint(".")
    assert [(la["line"], la["kind"]) for la in out["launches"]] == [(4, "router")]
    assert out["findings"] == []


_CONFIGS = """\
#!/bin/bash
MODEL=Qwen/Qwen3-8B
C_prefill() {
  CUDA_VISIBLE_DEVICES=0,1 vllm serve $MODEL --tensor-parallel-size 2 --port 8100 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
}
C_decode() {
  CUDA_VISIBLE_DEVICES=2,3 vllm serve $MODEL --tensor-parallel-size 2 --port 8200 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
}
D_prefill() {
  local decoder_host="${DECODER_HOST:-NOT_SET}"
  if [[ "$decoder_host" == "NOT_SET" ]]; then echo "set DECODER_HOST"; exit 1; fi
  CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL --tensor-parallel-size D_TP --port 8100 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
}
D_decode() {
  CUDA_VISIBLE_DEVICES=0 vllm serve $MODEL --tensor-parallel-size 1 --port 8200 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
}
case "$1" in
  C) case "$2" in prefill) C_prefill ;; decode) C_decode ;; esac ;;
  D) case "$2" in prefill) D_prefill ;; decode) D_decode ;; esac ;;
esac
"""


def test_a_launch_after_a_guard_on_an_environment_default_is_checked_and_pairs_in_its_configuration(scratch_git):
    """ddps-lab/vllm-disaggregation disagg-exp/launch_configs.sh: `[[ "${DECODER_HOST:-NOT_SET}" == NOT_SET ]] &&
    exit` ended the run with the default, so configuration D's prefill was PD020 and D's TP-1 decode was paired with
    configuration C's TP-2 prefill (a false VLLM021 error on vLLM 0.11.0)."""
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nvllm-version = "0.11.0"\n')
    scratch_git.write("launch.sh", _CONFIGS.replace("D_TP", "1"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert sorted(la["line"] for la in out["launches"]) == [4, 8, 14, 18]
    scratch_git.write("launch.sh", _CONFIGS.replace("=0 vllm serve $MODEL --tensor-parallel-size D_TP",
                                                    "=0,1 vllm serve $MODEL --tensor-parallel-size 2"))  # D's own pair
    code, out = scratch_git.lint(".")
    assert (code, sorted({f["code"] for f in out["findings"]})) == (1, ["VLLM021"])
    assert {f["line"] for f in out["findings"]} <= {14, 18}


def _unrendered_chart(scratch_git, command: str) -> dict:
    scratch_git.write("chart/Chart.yaml", "apiVersion: v2\nname: pd\nversion: 0.1.0\n")
    scratch_git.write("chart/values.yaml", textwrap.dedent("""\
        prefill:
          nodes: []
          extraArgs: [--gpu-memory-utilization, "0.85", --enable-linear-replayssm-spec]
        decode:
          nodes: []
          extraArgs: [--gpu-memory-utilization, "0.85"]
        """))
    scratch_git.write("chart/templates/prefill.yaml", textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: prefill}}
        spec:
          template:
            spec:
              containers:
              - name: engine
                command: {command}
                args:
                {{{{- range .Values.prefill.extraArgs }}}}
                - {{{{ . | quote }}}}
                {{{{- end }}}}
        """))
    scratch_git.write("chart/templates/validations.yaml",
                      '{{- if empty .Values.prefill.nodes -}}\n{{- fail "prefill.nodes must be set" -}}\n{{- end -}}\n')
    return scratch_git.lint(".")[1]


def test_an_unrendered_charts_values_are_not_judged_as_sglang_flags_when_its_templates_start_vllm(scratch_git):
    """bytedance-iaas/vllm examples/deployment/deepseek-v4-flash-pd: a chart that `fail`s until node names are set,
    whose templates run `vllm serve`; its prefill/decode extraArgs were 8 SGL001 errors for vLLM's flags."""
    out = _unrendered_chart(scratch_git, '["vllm", "serve", "Qwen/Qwen3-0.6B"]')
    # (the template that `fail`s holds no launch text: the others are rendered since field test rw20/h, and the
    # SGLang flag in the vLLM server's args is vLLM's unknown flag, not an SGLang finding)
    assert sorted({f["code"] for f in out["findings"]}) == ["PD105", "VLLM018"]
    out = _unrendered_chart(scratch_git, '["python3", "-m", "sglang.launch_server"]')  # an SGLang chart: judged
    assert {f["code"] for f in out["findings"] if f["path"] == "chart/values.yaml"} == {"SGL001"}


_START = ('#!/bin/bash\nset -euo pipefail\nsource SOURCE\nexec python3 -m sglang.launch_server --model-path /models/m '
          '--tp-size "$TP_SIZE" --attn-dp-size 2 --disaggregation-mode prefill --port 30000\n')


def test_a_sourced_deploy_host_file_whose_variables_a_launch_reads_is_reported(scratch_git):
    """whn09/kimi-k3-sglang: `source /host/kimi-k3-sglang/env_common.sh` (the repository mounted in the container)
    left `--tp-size "$TP_SIZE"` unseen and passed with no word; the file beside the script is read now, and a file
    the repository does not have is PD014 at the `source` line, naming the variables."""
    scratch_git.write("env_common.sh", 'TP_SIZE="${TP_SIZE:-3}"\n')
    scratch_git.write("start_prefill.sh", _START.replace("SOURCE", "/host/kimi-k3-sglang/env_common.sh"))
    code, out = scratch_git.lint(".")
    assert [(f["path"], f["line"], f["code"]) for f in out["findings"]] == [("env_common.sh", 1, "SGL205")]
    scratch_git.write("start_prefill.sh", _START.replace("SOURCE", "/opt/site/env.sh"))
    code, out = scratch_git.lint(".")
    (f,) = out["findings"]
    assert (f["path"], f["line"], f["code"]) == ("start_prefill.sh", 3, "PD014")
    assert "$TP_SIZE" in f["message"] and "deploy host" in f["message"]


def test_a_sourced_deploy_host_file_no_launch_reads_from_is_not_reported(scratch_git):
    scratch_git.write("start_prefill.sh", _START.replace("SOURCE", "/opt/conda/etc/profile.d/conda.sh").replace(
        '"$TP_SIZE"', "2"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])


_COMPOSE = """\
services:
  prefill:
    image: vllm/vllm-openai:v0.11.0
    environment: [CUDA_VISIBLE_DEVICES=0]
    command: --model Qwen/Qwen3-8B --port 8100 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
  decode:
    image: vllm/vllm-openai:v0.11.0
    environment: [CUDA_VISIBLE_DEVICES=1]
    ports: ["8201:8200"]
    command: --model Qwen/Qwen3-8B --port 8200 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
  proxy:
    image: vllm/vllm-openai:v0.11.0
    entrypoint: ["python3", "/app/toy_proxy_server.py"]
    command: ["--prefiller-host", "prefill", "--prefiller-port", "8100", "--decoder-host", "decode", "--decoder-port", "PORT"]
"""


def test_a_compose_routers_url_to_a_service_is_compared_with_the_services_port(scratch_git):
    """A toy proxy service sending decode requests to `decode:8201` while the decode service's vLLM listens on 8200
    (the `ports:` mapping is for the host's clients, not the project network): PD154, as for a shell script."""
    scratch_git.write("docker-compose.yml", _COMPOSE.replace("PORT", "8201"))
    code, out = scratch_git.lint(".")
    assert [(f["line"], f["code"]) for f in out["findings"]] == [(14, "PD154")]
    scratch_git.write("docker-compose.yml", _COMPOSE.replace("PORT", "8200"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])


_KV = ("CUDA_VISIBLE_DEVICES={gpu} vllm serve Qwen/Qwen3-0.6B --port {port} --kv-transfer-config "
       "'{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"{role}\",\"kv_connector_extra_config\":"
       "{{\"num_threads\":'$THREADS'}}}}' &\n")


def test_a_kv_transfer_config_with_a_value_pdlint_cannot_see_keeps_its_literal_role(scratch_git):
    """littlemex's P2P NCCL scripts (field test rw16/m): `..."kv_buffer_size":'$BUF'}` made the whole JSON unreadable:
    PD021 said the literal kv_role came from a value pdlint cannot see, and no pair or config rule ran."""
    text = "#!/bin/bash\n" + _KV.format(gpu=0, port=8100, role="kv_producer") + \
        _KV.format(gpu=1, port=8200, role="kv_consumer").replace("NixlConnector", "P2pNcclConnector") + "wait\n"
    scratch_git.write("pyproject.toml", '[tool.pdlint]\nvllm-version = "0.33.0"\n')
    scratch_git.write("launch.sh", text)
    code, out = scratch_git.lint(".")
    assert sorted(la["role"] for la in out["launches"]) == ["decode", "prefill"]
    assert "VLLM010" in {f["code"] for f in out["findings"]}  # the connectors differ: a pair rule ran
    assert "PD021" not in {f["code"] for f in out["findings"]}
    scratch_git.write("launch.sh", text.replace("P2pNcclConnector", "NixlConnector"))
    code, out = scratch_git.lint(".")
    assert {f["code"] for f in out["findings"]} <= {"PD150"}  # (both NIXL side channels on the default port)


def test_a_value_pdlint_cannot_see_is_unknown_to_the_config_rules():
    from pdlint.engines.vllm import tjson
    from pdlint.text import Piece, TStr
    text = '{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_buffer_size":$BUF}'
    a = text.index("$BUF")
    tok = TStr(text, (Piece(0, a, None, 0, label="<t>"), Piece(a, a + 4, None, a, opaque=True, label="<t>"),
                      Piece(a + 4, len(text), None, a + 4, label="<t>")))
    node = tjson.parse(tok)
    assert node.get("kv_role").value == "kv_both" and not node.get("kv_role").tok.opaque
    assert node.get("kv_buffer_size").value is None and node.get("kv_buffer_size").tok.opaque
    members = '{"kv_role":"kv_both",$EXTRA}'  # members pdlint cannot see: not JSON with a number there either
    a = members.index("$EXTRA")
    bad = TStr(members, (Piece(0, a, None, 0, label="<t>"), Piece(a, a + 6, None, a, opaque=True, label="<t>"),
                         Piece(a + 6, len(members), None, a + 6, label="<t>")))
    try:
        tjson.parse(bad)
    except tjson.JSONError:
        pass
    else:
        raise AssertionError("not JSON")


_DISPATCH = """\
#!/bin/bash
launch_worker() {
  local port="$1" extra="$2"
  trtllm-serve Qwen/Qwen3-4B --backend pytorch --port "$port" --extra_llm_api_options "$extra" &
}
start_proxy() {
  trtllm-serve disaggregated -c disagg.yaml
}
case "${1:-}" in
  context)    launch_worker 8001 ctx.yaml; wait ;;
  generation) launch_worker 8011 gen.yaml; wait ;;
  proxy)      start_proxy ;;
esac
"""


def test_a_function_a_role_run_calls_is_no_uncalled_launch_of_another_run(scratch_git):
    """ddps-lab/disaggregation-TensorRT-LLM disagg-exp/launch_trtllm.sh: the `proxy` run added launch_worker's
    command "not called in this script" with `--port $1 --extra_llm_api_options $2` unknown (PD022, TRT008), and
    the proxy was labelled as the context run's uncalled start_proxy."""
    scratch_git.write("launch.sh", _DISPATCH)
    scratch_git.write("ctx.yaml", "disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write("gen.yaml", "cache_transceiver_config:\n  backend: UCX\n")
    scratch_git.write("disagg.yaml", "hostname: localhost\nport: 8000\nbackend: pytorch\ncontext_servers:\n"
                      "  num_instances: 1\n  urls: [localhost:8001]\ngeneration_servers:\n  num_instances: 1\n"
                      "  urls: [localhost:8011]\n")
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    shell = [(la["line"], la["role"], la["context"].split(", run as ")[-1]) for la in out["launches"]
             if la["path"] == "launch.sh"]
    assert shell == [(4, "prefill", "`launch.sh context`"), (4, "decode", "`launch.sh generation`"),
                     (7, None, "`launch.sh proxy`")]
    scratch_git.write("gen.yaml", "cache_transceiver_config:\n  backend: NIXL\n")  # the pair is still judged
    code, out = scratch_git.lint(".")
    assert "TRT001" in {f["code"] for f in out["findings"]}


_RBG_V1ALPHA1 = """\
apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata:
  name: sglang-pd
spec:
  roleTemplates:
    - name: engine-base
      template:
        spec:
          containers:
            - name: sglang
              image: lmsysorg/sglang:v0.5.23
              command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B, --port, "30000"]
  roles:
    - name: prefill
      templateRef: {name: engine-base}
      templatePatch:
        spec:
          containers:
            - name: sglang
              args: [--disaggregation-mode, prefill, --page-size, "64"]
    - name: decode
      templateRef: {name: engine-base}
      templatePatch:
        spec:
          containers:
            - name: sglang
              args: [--disaggregation-mode, decode, --page-size, "PAGE"]
"""


def test_a_v1alpha1_role_based_groups_template_patch_is_applied(scratch_git):
    """RoleBasedGroup v1alpha1 (sgl-project/rbg api/workloads/v1alpha1: RoleSpec.TemplatePatch, a strategic-merge
    patch of the referenced template): the patch was dropped, its --disaggregation-mode with it (two false PD105)."""
    scratch_git.write("rbg.yaml", _RBG_V1ALPHA1.replace("PAGE", "64"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert sorted(la["role"] for la in out["launches"]) == ["decode", "prefill"]
    scratch_git.write("rbg.yaml", _RBG_V1ALPHA1.replace("PAGE", "32"))
    code, out = scratch_git.lint(".")
    assert [(f["line"], f["code"]) for f in out["findings"]] == [(28, "SGL801")]  # page sizes differ


_LB = """\
#!/bin/bash
PIN
python3 -m sglang.launch_server --model-path /models/m --port 30000 --disaggregation-mode prefill &
CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server --model-path /models/m --port 30001 --disaggregation-mode decode &
ROUTER --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --host 0.0.0.0 --port 8000
"""
_MINI = "python3 -m sglang.srt.disaggregation.mini_lb"


def _lb(scratch_git, pin: str, router: str = _MINI) -> list:
    scratch_git.write("lb.sh", _LB.replace("PIN", pin).replace("ROUTER", router).replace(
        "python3 -m sglang.launch_server --model-path /models/m --port 30000", "CUDA_VISIBLE_DEVICES=0 python3 -m "
        "sglang.launch_server --model-path /models/m --port 30000"))
    return [(f["line"], f["code"]) for f in scratch_git.lint(".")[1]["findings"]]


def test_sglangs_mini_lb_module_is_reported_where_the_release_has_none(scratch_git):
    """coco-alen/sglang_assistance test_script/pd_lb.sh: `python -m sglang.srt.disaggregation.mini_lb` raises from
    SGLang 0.5.2 (relocated to sglang-router) and is gone from 0.5.6 (the wheels); pdlint passed it as a router."""
    assert _lb(scratch_git, "pip install 'sglang[all]==0.5.4'") == [(5, "PD157")]
    assert _lb(scratch_git, "") == [(5, "PD158")]
    assert _lb(scratch_git, "pip install 'sglang[all]==0.5.1'") == []
    assert _lb(scratch_git, "pip install 'sglang[all]==0.5.4'",
               "python3 -m sglang_router.launch_router --pd-disaggregation --mini-lb") == []
    # its launcher module, in the 0.4.8-0.5.1 wheels (field test rw17/n)
    assert _lb(scratch_git, "pip install 'sglang[all]==0.5.2'", "python3 -m sglang.srt.disaggregation.launch_lb") \
        == [(5, "PD157")]
    assert _lb(scratch_git, "pip install 'sglang[all]==0.4.10'", "python3 -m sglang.srt.disaggregation.launch_lb") \
        == []


def test_undefined_variables_of_a_template_of_resources_without_pods_are_not_errors(scratch_git):
    """llm-d/llm-d-benchmark config/templates/jinja: 46 PD005 errors on PVC, RBAC and HTTPRoute templates that launch
    nothing whatever their variables are (the benchmark renders them with its own values); a Deployment template
    whose variables pdlint lacks keeps them (given values, it may render a launch)."""
    scratch_git.write("templates/pvc.yaml.j2", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n"
                      "  name: {{ name }}\nspec:\n  storageClassName: {{ storage.class }}\n---\napiVersion: rbac."
                      "authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {{ name }}\n")
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    scratch_git.write("templates/engine.yaml.j2", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n"
                      "spec:\n  template:\n    spec:\n      containers:\n      - name: e\n        image: {{ image }}\n"
                      "        command: {{ command }}\n")
    code, out = scratch_git.lint(".")
    assert code == 1 and {(f["path"], f["code"]) for f in out["findings"]} == {("templates/engine.yaml.j2", "PD005")}


_LLMD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: dec}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: ghcr.io/llm-d/llm-d:v0.2.0
        args:
        - "--model=Qwen/Qwen3-0.6B"
        - "EXTRA"
        - "--kv-transfer-config={\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"kv_both\\"}"
"""


def test_an_args_only_container_of_the_llm_d_image_is_a_vllm_server(scratch_git):
    """llm-d's image runs vLLM's OpenAI server on its arguments (llm-d/llm-d Dockerfile's ENTRYPOINT): a container
    with only `args:` (cnuland/hello-chris-llm-d, field test rw16/m) was PD020 "`--model=...` is not a launcher"."""
    scratch_git.write("decode.yaml", _LLMD.replace("EXTRA", "--enable-prefix-caching"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    assert [(la["engine"], la["entrypoint"]) for la in out["launches"]] == [
        ("vllm", "python -m vllm.entrypoints.openai.api_server")]
    scratch_git.write("decode.yaml", _LLMD.replace("EXTRA", "--enable-prefix-cache"))
    code, out = scratch_git.lint(".")
    assert [(f["line"], f["code"]) for f in out["findings"]] == [(12, "VLLM018")]


_SSH = """\
#!/bin/bash
# starts the vllm prefill experiment on node 1
ACTION="$1"
shift
LAYER=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --layer) LAYER="$2"; shift 2 ;;
        *) shift ;;
    esac
done
start_experiment() {
    local layer_opt=""
    if [ -n "$LAYER" ]; then
        layer_opt="--layer $LAYER"
    fi
    local experiment_cmd="cd /home/ubuntu/experiments && ./run_phase2.sh $layer_opt TAIL"
    ssh "ubuntu@$NODE1_IP" "$experiment_cmd" 2>&1 | tee /tmp/x.log &
}
case "$ACTION" in
    start) start_experiment ;;
esac
"""


def test_a_built_remote_command_is_not_a_syntax_error_for_a_value_pdlint_stands_in_for(scratch_git):
    """littlemex's experiments/scripts/control_experiment.sh (valid bash): the `ssh` string holds a value the option
    loop sets, which pdlint writes as `<what the loop at line 6 adds to LAYER>`; parsing that as shell gave a
    PD009 "cannot parse '>'" at the loop.  A real error in the string's own text is still reported."""
    scratch_git.write("run.sh", _SSH.replace(" TAIL", ""))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    scratch_git.write("run.sh", _SSH.replace("TAIL", "&& ( echo"))
    code, out = scratch_git.lint(".")
    assert [(f["line"], f["code"]) for f in out["findings"]] == [(17, "PD009")]


def test_an_epd_forks_disaggregation_mode_names_sglangs_encoder_and_language_only_servers(scratch_git):
    """coco-alen/sglang_assistance: `--disaggregation-mode encode` / `language` (an EPD fork's modes): SGL004 said
    "use one of the listed values", and prefill/decode would silently make the split a PD pair."""
    for mode in ("encode", "language", "prefil"):
        scratch_git.write("e.sh", "#!/bin/bash\npython3 -m sglang.launch_server --model-path Qwen/Qwen2.5-VL-7B-Instruct "
                          f"--disaggregation-mode {mode} --port 30000\n")
        code, out = scratch_git.lint(".")
        (f,) = out["findings"]
        assert f["code"] == "SGL004"
        assert ("--encoder-only" in f["message"]) == (mode != "prefil"), mode


_DISAGG = """\
hostname: 0.0.0.0
port: 8000
model: Qwen/Qwen3-4B
backend: pytorch
context_servers:
  num_instances: 1
  tensor_parallel_size: 1
  cache_transceiver_config: {backend: UCX}
  urls: ["localhost:8001"]
generation_servers:
  num_instances: 1
  tensor_parallel_size: 1
  cache_transceiver_config: {backend: UCX}
  urls: ["localhost:8011"]
"""
_STARTS = ("#!/bin/bash\ntrtllm-serve Qwen/Qwen3-4B --backend pytorch --port PORT --extra_llm_api_options ctx.yaml &\n"
           "trtllm-serve Qwen/Qwen3-4B --backend pytorch --port 8011 --extra_llm_api_options gen.yaml &\n")


def test_a_disaggregated_config_no_proxy_names_is_not_its_url_servers_settings(scratch_git):
    """ddps-lab/disaggregation-TensorRT-LLM: a URL-mode disaggregated config kept beside the script that starts the
    servers at its URLs (the proxy's -c config is generated): TRT005 judged the config's context_servers block,
    not the context server's own ctx.yaml (disable_overlap_scheduler: true).  With no server at its URL the block
    is judged as before; the result cache re-checks the config when the script changes."""
    scratch_git.write("disagg_config.yaml", _DISAGG)
    scratch_git.write("ctx.yaml", "disable_overlap_scheduler: true\ncache_transceiver_config: {backend: UCX}\n")
    scratch_git.write("gen.yaml", "cache_transceiver_config: {backend: UCX}\n")
    scratch_git.write("start.sh", _STARTS.replace("PORT", "8001"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    scratch_git.write("start.sh", _STARTS.replace("PORT", "8002"))
    code, out = scratch_git.lint(".")
    assert [(f["path"], f["code"]) for f in out["findings"]] == [("disagg_config.yaml", "TRT005")]


def test_the_result_cache_rechecks_a_disaggregated_config_with_the_script_beside_it(scratch_git):
    from pdlint.cli import main
    import json
    scratch_git.write("disagg_config.yaml", _DISAGG)
    scratch_git.write("ctx.yaml", "disable_overlap_scheduler: true\ncache_transceiver_config: {backend: UCX}\n")
    scratch_git.write("gen.yaml", "cache_transceiver_config: {backend: UCX}\n")
    runs = []
    for port in ("8001", "8002", "8001"):
        scratch_git.write("start.sh", _STARTS.replace("PORT", port))
        main(["--format", "json", "."])  # (the cache on)
        runs.append(sorted(f["code"] for f in json.loads(scratch_git._capsys.readouterr().out)["findings"]))
    assert runs == [[], ["TRT005"], []]


_SCENARIO = """\
scenario:
  - name: "tiered"
    decode:
      replicas: 1
      vllm:
        customCommand: |
          vllm serve /model-cache/$MODEL_PATH \\
          --port 8200 \\
          --kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":$(CPU_BYTES_TO_USE)}}'
ENV"""


def test_a_yaml_held_command_expands_the_dependent_variables_its_env_list_sets(scratch_git):
    """llm-d/llm-d-benchmark config/scenarios/guides/tiered-prefix-cache.yaml: Kubernetes replaces
    `$(CPU_BYTES_TO_USE)` (set by the role's `extraEnvVars`) in the container's args before the shell runs, so vLLM
    gets valid JSON; pdlint said VLLM001.  Without the variable the text reaches vLLM as written: VLLM001."""
    scratch_git.write("scenario.yaml", _SCENARIO.replace(
        "ENV", '      extraEnvVars:\n        - name: CPU_BYTES_TO_USE\n          value: "214748364800"\n'))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    scratch_git.write("scenario.yaml", _SCENARIO.replace("ENV", ""))
    code, out = scratch_git.lint(".")
    assert [f["code"] for f in out["findings"]] == ["VLLM001"]


def test_variables_the_host_sets_after_an_unread_source_are_not_reported(scratch_git):
    """Field test rw17/n: `source /etc/profile.d/modules.sh` (or a venv's `activate`) then `--model-path
    /home/$USER/...`: $USER is the login shell's, not the sourced file's; PD014 stays for a variable of its own."""
    launch = ("python3 -m sglang.launch_server --model-path /home/$USER/models/m --disaggregation-mode prefill "
              "--port 30000 --tp-size TP\n")
    scratch_git.write("job.sbatch", "#!/bin/bash\n#SBATCH -N 1\nsource /etc/profile.d/modules.sh\n" +
                      launch.replace("TP", "1"))
    code, out = scratch_git.lint(".")
    assert (code, out["findings"]) == (0, [])
    scratch_git.write("job.sbatch", "#!/bin/bash\n#SBATCH -N 1\nsource /etc/profile.d/modules.sh\n" +
                      launch.replace("TP", "$TP_SIZE"))
    code, out = scratch_git.lint(".")
    assert [(f["line"], f["code"]) for f in out["findings"]] == [(3, "PD014")]
    assert "$TP_SIZE" in out["findings"][0]["message"] and "$USER" not in out["findings"][0]["message"]
