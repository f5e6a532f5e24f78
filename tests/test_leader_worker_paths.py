"""PD102 (leader-worker-flag-drift) on a leader and a worker evaluated on several paths.

kserve config/llmisvcconfig/config-llm-prefill-worker-data-parallel.yaml: both scripts pick their log flags with
the same `if [ -n "$NEW_VLLM" ]` test, and the leader passes --api-server-count, which vLLM forbids on a
--headless worker ("api_server_count can't be set in headless mode", vllm/entrypoints/cli/serve.py
run_headless).  pdlint compared the leader's one branch with the worker's other, suggested copying
--api-server-count to the worker, and said each thing twice: 4 warnings, all wrong.
"""

POD = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceServiceConfig
metadata:
  name: prefill-dp
spec:
  prefill:
    template:
      containers:
        - name: main
          image: vllm/vllm-openai:v0.11.0
          command:
            - "/bin/bash"
            - "-c"
            - |-
              LOG_ARGS="--disable-uvicorn-access-log"
              if [ -n "$NEW_VLLM" ]; then
                LOG_ARGS="--disable-log-stats"
              fi
              exec vllm serve /mnt/models --port 8000 --api-server-count 8 {leader} \\
                --data-parallel-size 2 --data-parallel-size-local 1 \\
                --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_both"}}' ${{LOG_ARGS}}
    worker:
      containers:
        - name: main
          image: vllm/vllm-openai:v0.11.0
          command:
            - "/bin/bash"
            - "-c"
            - |-
              LOG_ARGS="--disable-uvicorn-access-log"
              if [ -n "$NEW_VLLM" ]; then
                LOG_ARGS="--disable-log-stats"
              fi
              exec vllm serve /mnt/models --port 8000 --headless --data-parallel-start-rank 1 \\
                --data-parallel-size 2 --data-parallel-size-local 1 \\
                --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_both"}}' ${{LOG_ARGS}}
"""


def test_each_path_of_the_worker_is_compared_with_the_same_path_of_the_leader(scratch_git):
    scratch_git.write("p.yaml", POD.format(leader=""))
    code, doc = scratch_git.lint("p.yaml")
    assert len(doc["launches"]) == 4
    assert doc["findings"] == [] and code == 0


def test_a_real_difference_is_reported_once(scratch_git):
    scratch_git.write("p.yaml", POD.format(leader="--max-model-len 4096"))
    code, doc = scratch_git.lint("p.yaml")
    got = [(f["code"], f["line"], f["message"].split(" (")[0]) for f in doc["findings"]]
    assert got == [("PD102", 19, "--max-model-len 4096 is set on the prefill leader but not on its worker")]
