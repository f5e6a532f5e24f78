"""Flag values pdlint cannot see that a check needed (``--tp-size $TP``): the summary says which checks were left
undecided and how to make them checkable, instead of "0 places with launch text not checked" alone; and the group
size a leader/worker controller injects (``$(LWS_GROUP_SIZE)``, ``$(RBG_LWP_GROUP_SIZE)``) is the number its
resource names."""

import json
import textwrap

import pytest

from pdlint.cli import main


def write(scratch_dir, name, text):
    p = scratch_dir / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def run_json(capsys, *args):
    code = main(["check", "--format", "json", "--no-cache", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


def run_text(capsys, *args):
    code = main(["check", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out


SCRIPT = """
#!/bin/bash
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --tp-size {tp} --dp-size 3 --enable-dp-attention --port 30000 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --tp-size 6 --dp-size 3 --enable-dp-attention --port 30001 &
"""


def test_value_from_the_environment_a_check_needed_is_named(scratch_dir, capsys):
    write(scratch_dir, "run.sh", SCRIPT.format(tp="$TP"))
    code, doc = run_json(capsys)
    assert code == 0 and not [f for f in doc["findings"] if f["severity"] == "error"]
    assert doc["coverage"]["undecided"] == 1
    assert doc["coverage"]["files"]["run.sh"]["undecided"] == [
        {"line": 2, "column": 99, "flag": "--tp-size", "text": "$TP", "cause": "variable", "name": "TP"}]
    code, out = run_text(capsys, "--no-cache")
    assert ("1 flag value pdlint cannot see left the checks that read it undecided: --tp-size $TP (run.sh:2:99); "
            "to check it, give the value you deploy with as --var TP=VALUE or in [tool.pdlint.vars].") in out


def test_the_value_given_decides_the_check(scratch_dir, capsys):
    write(scratch_dir, "run.sh", SCRIPT.format(tp="$TP"))
    code, doc = run_json(capsys, "--var", "TP=8")
    assert code == 1 and "SGL205" in [f["code"] for f in doc["findings"] if f["severity"] == "error"]
    assert doc["coverage"]["undecided"] == 0 and "undecided" not in doc["coverage"]["files"]["run.sh"]
    code, out = run_text(capsys, "--no-cache", "--var", "TP=6")
    assert code == 1 and "undecided" not in out  # (SGL008 warnings only)


def test_quiet_on_literal_values_and_per_process_ones(scratch_dir, capsys):
    write(scratch_dir, "run.sh", SCRIPT.format(tp="6"))
    assert run_json(capsys)[1]["coverage"]["undecided"] == 0
    # each node's rank and address differ by design: no one value stands for them
    write(scratch_dir, "run.sh", """
        #!/bin/bash
        python -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp-size 16 --nnodes 2 --node-rank $RANK --dist-init-addr $MASTER:5000 &
        python -m sglang.launch_server --model-path m --disaggregation-mode decode --tp-size 16 --nnodes 2 --node-rank $RANK --dist-init-addr $MASTER:5001 --port 30001 &
        """)
    code, doc = run_json(capsys)
    assert doc["coverage"]["undecided"] == 0
    # a value no check read is not listed (--api-key)
    write(scratch_dir, "run.sh", SCRIPT.format(tp="6").replace("--port 30000", "--port 30000 --api-key $KEY"))
    assert run_json(capsys)[1]["coverage"]["undecided"] == 0


def test_one_entry_per_place_and_the_cache_keeps_them(scratch_dir, capsys, tmp_path_factory, monkeypatch):
    # one shared variable read by both roles' launches: one place, one entry
    write(scratch_dir, "run.sh", """
        #!/bin/bash
        python -m sglang.launch_server --model-path m --disaggregation-mode prefill --tp-size $TP --dp-size 3 --enable-dp-attention &
        python -m sglang.launch_server --model-path m --disaggregation-mode decode --tp-size $TP --dp-size 3 --enable-dp-attention --port 30001 &
        """)
    code, doc = run_json(capsys)
    assert [(u["line"], u["flag"]) for u in doc["coverage"]["files"]["run.sh"]["undecided"]] == \
        [(2, "--tp-size"), (3, "--tp-size")]
    monkeypatch.setenv("PDLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    cold = run_text(capsys)[1]
    warm = run_text(capsys)[1]
    assert "2 flag values pdlint cannot see" in cold and cold == warm


LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: m-prefill
spec:
  leaderWorkerTemplate:
    @SIZE@
    leaderTemplate:
      spec:
        containers:
          - name: l
            @ENV@
            command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill,
                      --nnodes, $(LWS_GROUP_SIZE), --node-rank, "0", --tp-size, "15"]
    workerTemplate:
      spec:
        containers:
          - name: w
            command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill,
                      --nnodes, $(LWS_GROUP_SIZE), --node-rank, "1", --tp-size, "15"]
"""


def _lws(size="size: 2", env=""):
    return LWS.replace("@SIZE@", size).replace("@ENV@", env)


def test_lws_group_size_is_the_resources_size(scratch_dir, capsys):
    write(scratch_dir, "lws.yaml", _lws())
    code, doc = run_json(capsys)
    sgl201 = [f for f in doc["findings"] if f["code"] == "SGL201"]
    assert code == 1 and sgl201 and doc["coverage"]["undecided"] == 0
    write(scratch_dir, "lws.yaml", _lws("size: 3"))
    code, doc = run_json(capsys)
    assert not [f for f in doc["findings"] if f["code"] == "SGL201"]


def test_lws_group_size_unknown_without_a_size_and_below_the_containers_env(scratch_dir, capsys):
    write(scratch_dir, "lws.yaml", _lws("size: $(N)"))
    code, doc = run_json(capsys)
    assert not [f for f in doc["findings"] if f["code"] == "SGL201"]
    assert doc["coverage"]["undecided"] == 2  # leader and worker: --nnodes $(LWS_GROUP_SIZE), each its line
    # (a manifest's $(NAME) takes no --var: only the file can say it - in the resource's size, the controller's
    # variable is not the container's to write: field test rw26/a)
    assert ("to check them, write leaderWorkerTemplate.size as a number (the controller sets the variable from "
            "it)." in run_text(capsys, "--no-cache")[1])
    # the container's own env wins (the controller adds its variable only where the container has none)
    write(scratch_dir, "lws.yaml", _lws(env='env: [{name: LWS_GROUP_SIZE, value: "3"}]'))
    code, doc = run_json(capsys)
    f201 = [f for f in doc["findings"] if f["code"] == "SGL201"]
    assert len(f201) == 1 and f201[0]["line"] == 20  # the worker only: the leader's env says 3


RBG = """
apiVersion: workloads.x-k8s.io/v1alpha2
kind: RoleBasedGroup
metadata:
  name: pd
spec:
  roles:
    - name: prefill
      replicas: 1
      leaderWorkerPattern:
        size: @SIZE@
        template:
          spec:
            containers:
              - name: sglang
                command: [python3, -m, sglang.launch_server, --model-path, m, --disaggregation-mode, prefill,
                          --tp-size, "15", --dist-init-addr, "$(RBG_LWP_LEADER_ADDRESS):6379",
                          --nnodes, $(RBG_LWP_GROUP_SIZE), --node-rank, $(RBG_LWP_WORKER_INDEX)]
"""


@pytest.mark.parametrize("size, fires", [("2", True), ("5", False)])
def test_rbg_leader_worker_pattern_group_size(scratch_dir, capsys, size, fires):
    write(scratch_dir, "rbg.yaml", RBG.replace("@SIZE@", size))
    code, doc = run_json(capsys)
    assert bool([f for f in doc["findings"] if f["code"] == "SGL201"]) is fires
    assert doc["coverage"]["undecided"] == 0


VLLM = """
#!/bin/bash
CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B --port 8100 --tensor-parallel-size {tp} --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_producer"}}' &
CUDA_VISIBLE_DEVICES=2,3 VLLM_NIXL_SIDE_CHANNEL_PORT=5700 vllm serve Qwen/Qwen3-8B --port 8200 --tensor-parallel-size 2 --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}}' &
"""


def test_vllm_value_a_check_needed(scratch_dir, capsys):
    write(scratch_dir, "run.sh", VLLM.format(tp="$TP"))
    code, doc = run_json(capsys)
    assert code == 0 and doc["coverage"]["files"]["run.sh"]["undecided"] == [
        {"line": 2, "column": 86, "flag": "--tensor-parallel-size", "text": "$TP", "cause": "variable", "name": "TP"}]
    code, doc = run_json(capsys, "--var", "TP=4")
    assert "PD153" in [f["code"] for f in doc["findings"]] and doc["coverage"]["undecided"] == 0
    write(scratch_dir, "run.sh", VLLM.format(tp="2"))
    code, doc = run_json(capsys)
    assert code == 0 and doc["coverage"]["undecided"] == 0


COMPOSE = """
services:
  prefill:
    image: lmsysorg/sglang:v0.5.23
    command: >
      python3 -m sglang.launch_server --model-path /models/ds --disaggregation-mode prefill
      --tp ${TP} --dp ${DP} --attn-dp-size ${DP} --port 30000
  decode:
    image: lmsysorg/sglang:v0.5.23
    command: >
      python3 -m sglang.launch_server --model-path /models/ds --disaggregation-mode decode
      --tp ${TP} --dp ${DP} --attn-dp-size ${DP} --port 30001
"""


def test_compose_interpolation_takes_the_values_given_as_its_hint_says(scratch_dir, capsys):
    """Field test rw23/a: the summary asked for `--var NAME=VALUE`, and Compose's `${TP}` ignored it (only a
    project `.env` gave values): the user followed the hint and nothing changed."""
    write(scratch_dir, "docker-compose.yml", COMPOSE)
    code, out = run_text(capsys, "--no-cache")
    assert "give the values you deploy with as --var DP=VALUE --var TP=VALUE or in [tool.pdlint.vars]" in out
    code, doc = run_json(capsys, "--var", "TP=6", "--var", "DP=4")
    assert code == 1 and {"SGL203", "SGL205"} <= {f["code"] for f in doc["findings"]}
    assert doc["coverage"]["undecided"] == 0
    write(scratch_dir, ".env", "TP=6\nDP=4\n")
    code, doc = run_json(capsys, "--var", "TP=8", "--var", "DP=1")  # (given values win over .env's, as the shell's)
    assert code == 0 and not [f for f in doc["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize("config, value, shown", [
    ("", "{{ tp | myfilter }}", "$myfilter"),  # a filter the deploy tool registers (PD016's stand-in)
    ("jinja: {preset: ansible}\n", "{{ lookup('env', 'TP') }}", "$lookup_env"),  # an Ansible lookup
    ("jinja: {preset: ansible}\n", "{{ hostvars[inventory_hostname].tp }}", "$hostvars.inventory_hostname.tp"),
])
def test_value_made_at_deploy_time_names_no_variable(scratch_dir, capsys, config, value, shown):
    """A value a filter, lookup or fact makes when the template is deployed has a placeholder (``$myfilter``) that
    names no variable: the summary said "give ... as --var myfilter=VALUE", and that sets a variable nobody reads
    (stop 47's left item).  It says the value is made at deploy time and that a value written in the file is
    checked; a variable of the same template keeps its `--var` hint."""
    if config:
        write(scratch_dir, ".pdlint.yaml", config)
    write(scratch_dir, "run.sh.j2", "{% set tp = 2 %}\n" + SCRIPT.format(tp=value).replace(
        "--tp-size 6", "--tp-size {{ dtp }}"))
    code, doc = run_json(capsys)
    got = doc["coverage"]["files"]["run.sh.j2"]["undecided"]
    assert [(u["flag"], u["text"], u.get("name")) for u in got] == [
        ("--tp-size", shown, None), ("--tp-size", "${dtp}", "dtp")], got
    assert [u["cause"] for u in got] == ["deployed", "variable"]  # (the JSON says why as the summary does)
    code, out = run_text(capsys, "--no-cache")
    assert f"--var {shown.lstrip('$')}" not in out and "--var dtp=VALUE" in out, out
    assert ("; or write into the file the value made when the template is deployed (by a filter, lookup or fact "
            "pdlint does not run; no --var gives it).") in out, out
    for _ in range(2):  # stored in the cache and read back from it: the same words
        assert run_text(capsys)[1] == out
