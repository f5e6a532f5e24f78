"""Markdown kept in a YAML value: each shell code block is a script, each section one deployment.

vllm-project/recipes (field test rw13/f) keeps every model's guide as Markdown in a `guide: |` block scalar, its
commands in ```bash blocks: 444 PD020 in the repository, nothing checked.  This file is cut down from
models/deepseek-ai/DeepSeek-V4-Flash.yaml."""

RECIPE = """\
meta:
  title: "DeepSeek-V4-Flash"
guide: |
  ## Single node

  ```bash
  export HF_TOKEN=<your HF token>
  vllm serve deepseek-ai/DeepSeek-V4-Flash --port 8000 --tensor-parallel-size 8 ...
  ```

  ### H200 Single-Node PD (NIXL)

  **Prefill** (GPUs 0-3, port 8000):

  ```bash
  docker run --gpus all --network host -e CUDA_VISIBLE_DEVICES=0,1,2,3 \\
    vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-V4-Flash --port 8000 --tensor-parallel-size 4 \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
  ```

  **Decode** (GPUs 4-7, port 8001):

  ```bash
  docker run --gpus all --network host -e CUDA_VISIBLE_DEVICES=4,5,6,7 \\
    vllm/vllm-openai:v0.20.0 deepseek-ai/DeepSeek-V4-Flash --port 8001 --tensor-parallel-size DTP \\
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
  ```

  **Router**:

  ```bash
  pip install vllm-router
  vllm-router --policy round_robin --vllm-pd-disaggregation \\
    --prefill http://localhost:8000 --decode http://localhost:DPORT --host 127.0.0.1 --port 30000
  ```

  ```python
  print(requests.get("http://localhost:30000/v1/models").json())
  ```
"""


def _recipe(dtp="4", dport="8001"):
    return RECIPE.replace("DTP", dtp).replace("DPORT", dport)


def test_the_code_blocks_of_a_guide_are_scripts_and_each_section_a_deployment(scratch_git):
    scratch_git.write("models/ds.yaml", _recipe())
    code, report = scratch_git.lint(".")
    # (the guide's `...`, options it leaves out, is no argument: a value pdlint cannot see, not VLLM018; its
    # `<your HF token>` a value to write in, not a redirection: no PD009)
    assert code == 0 and [(f["code"], f["line"]) for f in report["findings"]] == [("PD023", 8)]
    assert [(l["line"], l["kind"], l["role"] or l["structural_role"]) for l in report["launches"]] == [
        (8, "server", None), (16, "server", "prefill"), (24, "server", "decode"), (33, "router", None)]
    [dep] = [d for d in report["pairs"] if d["pairs"]]
    assert [(p["prefill"]["line"], p["decode"]["line"]) for p in dep["pairs"]] == [(16, 24)]
    # the single-node server on port 8000 is another section's: the router does not make it a prefill
    assert report["coverage"]["unchecked"] == 1  # (the `...`)


def test_the_pair_rules_run_on_a_guides_pd_section(scratch_git):
    scratch_git.write("models/ds.yaml", _recipe(dtp="2"))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"]) for f in report["findings"] if f["code"] != "PD023"] == [("VLLM022", 25)]
    scratch_git.write("models/ds.yaml", _recipe(dport="8002"))
    code, report = scratch_git.lint(".")
    assert [(f["code"], f["line"]) for f in report["findings"] if f["code"] != "PD023"] == [("PD154", 34)]


def test_code_blocks_are_found_in_one_pass_and_an_unclosed_fence_runs_to_the_end():
    from pdlint.formats.yaml_shell import fenced_shell
    from pdlint.text import SourceFile, TStr
    text = ("## PD\n**Prefill**:\n\n```bash\nvllm serve a\n```\nsome text\n```python\nprint(1)\n```\n"
            "```\nvllm serve b\n```\n  ```bash\nvllm serve c\n```\n")
    found = fenced_shell(TStr.from_source(SourceFile("g.md", text)))
    # the third fence is indented: its block runs to the end (its closer must be indented alike), so it holds none
    assert [(b.text, h.text, l.text if l else None) for b, h, l in found] == [
        ("vllm serve a\n", "## PD", "**Prefill**:"), ("vllm serve b\n", "## PD", None)]
