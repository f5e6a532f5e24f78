"""Launch text pdlint cannot check is reported, never passed without a word: PD024 for prefill/decode launches of
engines pdlint has no rules for (LightLLM, LMDeploy; field test rw22/a: zhhangBian/lightllm-note's PD scripts gave
exit 0 and no finding), PD020 for launch text in program sources (field test rw23/a: a Pulumi program)."""

import pytest

from pdlint.cli import main


def codes(report, code="PD024"):
    return [(f["path"], f["line"], f["column"]) for f in report["findings"] if f["code"] == code]


def test_lightllm_pd_scripts_are_reported_at_the_run_mode(scratch):
    scratch.write("pd_prefill.sh", """\
        export host=$1
        KV_TRANS_USE_P2P=1 python -m lightllm.server.api_server --model_dir /path/DeepSeek-R1 \\
        --run_mode "prefill" \\
        --tp 8 --pd_master_ip $2 --pd_master_port 60011
        """)
    scratch.write("pd_master.sh", """\
        python -m lightllm.server.api_server --model_dir /m --run_mode=pd_master --port 60011
        """)
    code, report = scratch.lint(".")
    assert codes(report) == [("pd_master.sh", 1, 53), ("pd_prefill.sh", 3, 1)]
    f = next(f for f in report["findings"] if f["path"] == "pd_prefill.sh")
    assert "LightLLM" in f["message"] and "`--run_mode prefill`" in f["message"] and "ignore[PD024]" in f["fix"]
    assert f["severity"] == "warning" and code == 0
    assert report["coverage"]["unchecked"] == 2
    assert main(["--no-cache", "--strict", "-q", "."]) == 1  # --strict: not checked fails the run


def test_lmdeploy_pd_servers_and_proxy_in_yaml_lists(scratch):
    scratch.write("k8s.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: lmdeploy-decode}
        spec:
          template:
            spec:
              containers:
                - name: decode
                  image: openmmlab/lmdeploy:latest
                  command: ["lmdeploy", "serve", "api_server", "/models/qwen", "--role", "Decode"]
                - name: proxy
                  image: openmmlab/lmdeploy:latest
                  args:
                    - --serving-strategy
                    - DistServe
        """)
    code, report = scratch.lint(".")
    assert codes(report) == [("k8s.yaml", 10, 73), ("k8s.yaml", 14, 15)]
    # (the proxy is said as one, not as a prefill/decode server: field test rw25/a)
    assert report["findings"][1]["message"].startswith("LMDeploy prefill/decode proxy (`--serving-strategy DistServe`)")


@pytest.mark.parametrize("name, text, where, shown", [
    ("a.sh", "MODE=prefill\npython -m lightllm.server.api_server --model_dir /m --run_mode $MODE --tp 8\n",
     (2, 53), "a value pdlint cannot see (`--run_mode $MODE`)"),
    ("b.sh", "python -m lightllm.server.api_server --model_dir /m --run_mode \\\n  decode --tp 8\n",
     (1, 53), "(`--run_mode decode`)"),
    ("f.yaml", 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: s\n'
               '      image: openmmlab/lmdeploy:latest\n      command: ["lmdeploy", "serve", "api_server", "/m", "--role",\n'
               '                "Prefill", "--port", "8000"]\n', (8, 59), "(`--role Prefill`)"),
])
def test_the_mode_after_a_continuation_a_list_break_or_from_a_variable(scratch, name, text, where, shown):
    """Hostile-input test rw25/h item 5: `--run_mode $MODE`, `--run_mode \\` + `decode` and a flow list's
    `"--role",` + newline + `"Prefill"` were "No launch text found" (exit 0 with --strict)."""
    scratch.write(name, text)
    code, report = scratch.lint("--strict", ".")
    assert codes(report) == [(name, *where)] and code == 1
    assert shown in report["findings"][0]["message"]


def test_quiet_on_non_pd_launches_comments_and_other_tools(scratch):
    scratch.write("normal.sh", """\
        python -m lightllm.server.api_server --model_dir /m --run_mode normal
        # python -m lightllm.server.api_server --model_dir /m --run_mode prefill
        lmdeploy serve api_server /m --role Hybrid
        """)
    scratch.write("tool.sh", "python train.py --run_mode decode --role Prefill\n")  # neither engine named
    scratch.write("other.py", "import lightllm\nrun_mode = 'prefill'\n")
    code, report = scratch.lint(".")
    assert codes(report) == [] and code == 0


def test_suppressed_on_the_line(scratch):
    scratch.write("pd.sh", "python -m lightllm.server.api_server --run_mode decode  # pdlint: ignore[PD024] by hand\n")
    code, report = scratch.lint(".")
    assert codes(report) == [] and codes(report, "PD070") == [] and code == 0



@pytest.mark.parametrize("name, text", [
    ("index.ts", "const c = {args: ['vllm', 'serve', 'm', '--kv-transfer-config',\n"
                 "  '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}']};\n"),
    ("deploy.mjs", 'spawn("vllm", ["serve", "m", "--kv-transfer-config", \'{"kv_role":"kv_consumer"}\']);\n'),
])
def test_launch_text_in_program_sources_is_reported_unchecked(scratch, name, text):
    """Field test rw23/a: a Pulumi program (TypeScript) or a Node launcher starting a PD server was left out of a walk
    without a word (a Python or Terraform file with the same text is a PD020).  Go and Rust are not read: mostly an
    operator's or a router's own source (their CLI definitions), field compare of stop 41."""
    scratch.write("main.go", 'args := []string{"--kv-transfer-config", `{"kv_role":"kv_consumer"}`}\n')
    scratch.write(name, text)
    scratch.write("notes.ts", "export const port = 8000;\n")  # (no launch text: not reported)
    code, report = scratch.lint(".")
    assert [(f["path"], f["code"]) for f in report["findings"]] == [(name, "PD020")]
    assert "per-file-ignores" in report["findings"][0]["fix"] and code == 0


def test_a_mindie_pd_start_script_is_reported(scratch):
    """Field test rw25/a: a MindIE start script in its PD ("dmi") mode passed with no word."""
    scratch.write("boot_pd.sh", "source /usr/local/Ascend/mindie/set_env.sh\nexport MINDIE_INFER_MODE=dmi\n"
                                "cd /usr/local/Ascend/mindie/latest/mindie-service/bin\n./mindieservice_daemon\n")
    scratch.write("boot.sh", "source /usr/local/Ascend/mindie/set_env.sh\nexport MINDIE_INFER_MODE=standard\n"
                             "./mindieservice_daemon\n")
    code, report = scratch.lint(".")
    assert codes(report) == [("boot_pd.sh", 2, 8)] and "MindIE" in report["findings"][0]["message"]


def test_rtp_llm_and_xllm_pd_launches_are_reported(scratch):
    """Field test rw27/a: Alibaba RTP-LLM (`ROLE_TYPE=PREFILL ... python3 -m rtp_llm.start_server`, from its DeepSeek
    deploy guide) and JD xLLM (`xllm --enable_disagg_pd=true --instance_role=PREFILL`, its disagg_pd guide) prefill
    and decode launches were "No launch text found", exit 0."""
    scratch.write("start_prefill.sh", "PD_SEPARATION=1 \\\nROLE_TYPE=PREFILL \\\n/opt/conda310/bin/python3 -m "
                                      "rtp_llm.start_server --checkpoint_path /m --tp_size 1 --start_port 8090\n")
    scratch.write("start_decode.sh", "python3 -m rtp_llm.start_server --checkpoint_path /m --role_type DECODE\n")
    scratch.write("xllm_pd.sh", "/path/to/xllm --model=/m --port=8010 \\\n  --enable_disagg_pd=true \\\n"
                                "  --instance_role=PREFILL &\n/path/to/xllm --model=/m --port=8020 "
                                "--enable_disagg_pd=true --instance_role=$ROLE &\n")
    # quiet: a fused (non-PD) RTP-LLM server, an xLLM default-role server, and the flag in a comment
    scratch.write("start_fused.sh", "ROLE_TYPE=PDFUSION python3 -m rtp_llm.start_server --checkpoint_path /m\n")
    scratch.write("xllm_one.sh", "/path/to/xllm --model=/m --port=8010 --instance_role=DEFAULT\n"
                                 "# --instance_role=DECODE   for a decode instance\n")
    code, report = scratch.lint(".")
    assert codes(report) == [("start_decode.sh", 1, 54), ("start_prefill.sh", 2, 1), ("xllm_pd.sh", 3, 3),
                             ("xllm_pd.sh", 4, 62)]
    assert [f["message"].split(" ", 1)[0] for f in report["findings"]] == ["RTP-LLM", "RTP-LLM", "xLLM", "xLLM"]
    assert "a value pdlint cannot see" in report["findings"][3]["message"] and code == 0
