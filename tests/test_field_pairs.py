"""Field test rw5/a (bhajian/disaggregated-serving, hhhh1252023/pass): a prefill and a decode of one deployment
that pdlint never paired gave a clean pass, since the pair rules (SGL805 transfer backend, SGL821 model, ...)
only run on pairs and nothing said that none ran:

* the prefill and the decode services in two Compose files of one directory with one project ``name:``;
* ``pnode.sh`` / ``dnode.sh`` (``prefill.sh`` / ``decode.sh`` were paired);
* a router whose ``--prefill`` / ``--decode`` URLs name the literal ``--host`` and ``--port`` of
  ``pnode60.sh`` and ``dnode102.sh`` ("-> no server of this deployment").

Now these are paired, and a run that leaves a prefill or decode server without a partner says so in its
summary and in ``coverage.unpaired_prefill`` / ``coverage.unpaired_decode``."""

import pytest


def _compose(name_line: str, service: str, backend: str, model: str) -> str:
    return f"""
        {name_line}
        services:
          {service}:
            image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.4.0
            entrypoint: ["bash", "-c"]
            command:
              - |
                exec python3 -m dynamo.sglang \\
                  --disaggregation-mode {service} \\
                  --disaggregation-transfer-backend {backend} \\
                  --model-path {model} \\
                  --tensor-parallel-size 8
        """


def _sg(mode: str, backend: str, extra: str = "") -> str:
    return (f"python -m sglang.launch_server --model-path /models/DeepSeek-R1 --tp 16 {extra}\\\n"
            f"  --disaggregation-transfer-backend {backend} --disaggregation-mode {mode}\n")


def _codes(out) -> list:
    return sorted(f["code"] for f in out["findings"])


def _unpaired(out) -> tuple:
    return out["coverage"]["unpaired_prefill"], out["coverage"]["unpaired_decode"]


def _paired(out) -> list:
    return sorted((p["prefill"]["path"], p["decode"]["path"]) for d in out["pairs"] for p in d["pairs"])


# ---------------------------------------------------------------------------
# never a silent pass: the summary counts the servers no pair rule checked
# ---------------------------------------------------------------------------

def test_unpaired_prefill_and_decode_are_counted_and_said(scratch_git, capsys):
    scratch_git.write("a/prefill-node.sh", _sg("prefill", "nixl"))
    scratch_git.write("b/other.sh", _sg("decode", "mooncake"))
    code, out = scratch_git.lint(".")
    assert code == 0 and _codes(out) == [] and _paired(out) == []
    assert _unpaired(out) == (1, 1)
    from pdlint.cli import main
    assert main(["--no-cache", "--no-hints", "."]) == 0
    text = capsys.readouterr().out
    assert ("2 launches not paired (1 prefill, 1 decode): no server of the other role in their deployment, so "
            "the prefill/decode pair rules did not check them.\n") in text
    assert main(["show", "."]) == 0
    shown = capsys.readouterr().out
    assert "Not paired (no pair rule checked them):" in shown
    assert "  prefill a/prefill-node.sh:1 [sglang]: no decode server of this engine in its deployment" in shown
    assert "  decode b/other.sh:1 [sglang]: no prefill server of this engine in its deployment" in shown


def test_one_role_alone_is_counted_without_a_finding(scratch_git, capsys):
    scratch_git.write("prefill.sh", _sg("prefill", "nixl"))
    code, out = scratch_git.lint(".")
    assert code == 0 and _codes(out) == [] and _unpaired(out) == (1, 0)
    from pdlint.cli import main
    main(["--no-cache", "--no-hints", "."])
    assert ("1 launch not paired (1 prefill, 0 decode): no server of the other role in its deployment, so the "
            "prefill/decode pair rules did not check it.\n") in capsys.readouterr().out


def test_paired_and_aggregated_servers_are_not_counted(scratch_git, capsys):
    scratch_git.write("prefill.sh", _sg("prefill", "nixl"))
    scratch_git.write("decode.sh", _sg("decode", "nixl"))
    scratch_git.write("agg.sh", "python -m sglang.launch_server --model-path /models/DeepSeek-R1 --tp 8\n")
    code, out = scratch_git.lint(".")
    assert code == 0 and _unpaired(out) == (0, 0) and _paired(out) == [("prefill.sh", "decode.sh")]
    from pdlint.cli import main
    main(["--no-cache", "--no-hints", "."])
    assert "not paired" not in capsys.readouterr().out


@pytest.mark.parametrize("args", [[], ["--jobs", "2"]])
def test_the_cache_and_parallel_runs_count_the_same(scratch_git, capsys, args):
    scratch_git.write("a/prefill-node.sh", _sg("prefill", "nixl"))
    scratch_git.write("b/other.sh", _sg("decode", "mooncake"))
    scratch_git.write("c/prefill.sh", _sg("prefill", "nixl"))
    scratch_git.write("c/decode.sh", _sg("decode", "nixl"))
    import json
    from pdlint.cli import main
    for _ in range(2):  # cold (stored), then from the stored components
        main(["--format", "json", *args, "."])
        out = json.loads(capsys.readouterr().out)
        assert _unpaired(out) == (1, 1)


# ---------------------------------------------------------------------------
# (a) Compose files of one directory with one project name
# ---------------------------------------------------------------------------

def test_compose_files_of_one_project_are_paired(scratch_git):
    scratch_git.write("docker/node-a.yaml", _compose("name: disagg-sglang", "prefill", "nixl", "/model/Qwen3-8B"))
    scratch_git.write("docker/node-b.yaml", _compose("name: disagg-sglang", "decode", "mooncake",
                                                     "/model/Llama-3.1-8B"))
    code, out = scratch_git.lint(".")
    assert code == 1 and _codes(out) == ["SGL805", "SGL821"]
    assert _paired(out) == [("docker/node-a.yaml", "docker/node-b.yaml")]
    assert out["pairs"][0]["how"] == ("compose project 'disagg-sglang' in files docker/node-a.yaml, "
                                      "docker/node-b.yaml")
    assert _unpaired(out) == (0, 0)


@pytest.mark.parametrize("b_name,b_dir", [
    ("name: other-project", "docker"),  # another project
    ("", "docker"),  # no name
    ("name: ${PROJECT:-disagg-sglang}", "docker"),  # interpolated: may differ per host
    ("name: disagg-sglang", "elsewhere"),  # another directory
])
def test_compose_files_of_different_projects_stay_apart(scratch_git, b_name, b_dir):
    scratch_git.write("docker/node-a.yaml", _compose("name: disagg-sglang", "prefill", "nixl", "/model/Qwen3-8B"))
    scratch_git.write(f"{b_dir}/node-b.yaml", _compose(b_name, "decode", "mooncake", "/model/Llama-3.1-8B"))
    code, out = scratch_git.lint(".")
    assert code == 0 and _codes(out) == [] and _paired(out) == []
    assert _unpaired(out) == (1, 1)


def test_complete_compose_files_of_one_project_are_alternatives(scratch_git):
    both = """
        name: pd
        services:
          prefill:
            image: lmsysorg/sglang:v0.5.2
            command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill
              --disaggregation-transfer-backend {b}
          decode:
            image: lmsysorg/sglang:v0.5.2
            command: python3 -m sglang.launch_server --model-path /m --disaggregation-mode decode
              --disaggregation-transfer-backend {b}
        """
    scratch_git.write("compose.nixl.yaml", both.replace("{b}", "nixl"))
    scratch_git.write("compose.mooncake.yaml", both.replace("{b}", "mooncake"))
    code, out = scratch_git.lint(".")
    assert "SGL805" not in _codes(out)
    assert _paired(out) == [("compose.mooncake.yaml", "compose.mooncake.yaml"),
                            ("compose.nixl.yaml", "compose.nixl.yaml")]


# ---------------------------------------------------------------------------
# (b) pnode.sh / dnode.sh
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("p,d", [("pnode.sh", "dnode.sh"), ("deepseekr1/pnode.sh", "deepseekr1/dnode.sh"),
                                 ("p_node.sh", "d_node.sh"), ("run/pworker.sh", "run/dworker.sh")])
def test_p_and_d_prefixed_siblings_are_paired(scratch_git, p, d):
    scratch_git.write(p, _sg("prefill", "nixl", "--port 8000 "))
    scratch_git.write(d, _sg("decode", "mooncake", "--port 8001 "))
    code, out = scratch_git.lint(".")
    assert code == 1 and _codes(out) == ["SGL805"] and _paired(out) == [(p, d)]


@pytest.mark.parametrize("p,d", [
    ("pnode60.sh", "dnode102.sh"),  # the rest of the names differ
    ("pnode.sh", "dnode/run.sh"),
    ("pdeploy.sh", "deploy.sh"),  # a word, not a role prefix
])
def test_names_that_differ_beyond_the_prefix_stay_apart(scratch_git, p, d):
    scratch_git.write(p, _sg("prefill", "nixl", "--port 8000 "))
    scratch_git.write(d, _sg("decode", "mooncake", "--port 8001 "))
    code, out = scratch_git.lint(".")
    assert code == 0 and _paired(out) == [] and _unpaired(out) == (1, 1)


def test_a_prefix_pairs_only_the_roles_the_flags_give(scratch_git):
    # dnode.sh holds a prefill server (and pnode.sh a decode): the letters give no role of their own
    scratch_git.write("pnode.sh", _sg("decode", "nixl", "--port 8000 "))
    scratch_git.write("dnode.sh", _sg("prefill", "mooncake", "--port 8001 "))
    code, out = scratch_git.lint(".")
    assert _paired(out) == [] and "PD101" not in _codes(out) and _unpaired(out) == (1, 1)
    scratch_git.write("pnode.sh", "python -m sglang.launch_server --model-path /m --port 8000\n")
    scratch_git.write("dnode.sh", _sg("decode", "mooncake", "--port 8001 "))
    code, out = scratch_git.lint(".")
    assert _paired(out) == [] and _codes(out) == [] and _unpaired(out) == (0, 1)


def test_role_prefix_keys():
    from pdlint.pairing import PREFIX_FAMILY, role_word_keys
    assert [r for k, f, r in role_word_keys("x/pnode.sh") if f == PREFIX_FAMILY] == ["prefill"]
    assert [r for k, f, r in role_word_keys("x/dnode.sh") if f == PREFIX_FAMILY] == ["decode"]
    for path in ("x/prefill.sh", "x/decode.sh", "x/p.sh", "x/p_node.sh", "x/p1.sh", "pnode/run.sh"):
        assert not [r for k, f, r in role_word_keys(path) if f == PREFIX_FAMILY], path


# Field test rw6/a (yangwhale/gpu-tpu-pedia deepseek-v4/scripts): prefill-dep4.sh beside decode-dep8.sh and
# decode-wideep.sh, one model: the names differ beyond the role word, so nothing paired them

def _dsv4(mode: str, model: str = "/mnt/ssd/DeepSeek-V4-Pro", extra: str = "") -> str:
    return (f"python3 -m sglang.launch_server --model-path {model} --tp 8 {extra}--disaggregation-mode {mode} "
            "--disaggregation-transfer-backend mooncake\n")


def test_role_named_siblings_of_one_model_are_one_deployment(scratch_git):
    scratch_git.write("v4/prefill-dep4.sh", _dsv4("prefill"))
    scratch_git.write("v4/decode-dep8.sh", _dsv4("decode", extra="--speculative-algorithm EAGLE "))
    scratch_git.write("v4/decode-wideep.sh", _dsv4("decode"))
    code, out = scratch_git.lint(".")
    assert _paired(out) == [("v4/prefill-dep4.sh", "v4/decode-dep8.sh"), ("v4/prefill-dep4.sh", "v4/decode-wideep.sh")]
    assert _unpaired(out) == (0, 0) and _codes(out) == ["SGL809"]


@pytest.mark.parametrize("decode_model, decode_dir", [
    ("/mnt/ssd/Kimi-K2", "v4"),  # another model
    ("$MODEL", "v4"),  # a model pdlint cannot see
    ("/mnt/ssd/DeepSeek-V4-Pro", "other"),  # another directory
])
def test_role_named_siblings_are_not_joined_without_one_model(scratch_git, decode_model, decode_dir):
    scratch_git.write("v4/prefill-dep4.sh", _dsv4("prefill"))
    scratch_git.write(f"{decode_dir}/decode-dep8.sh", _dsv4("decode", decode_model, "--speculative-algorithm EAGLE "))
    code, out = scratch_git.lint(".")
    assert _paired(out) == [] and _unpaired(out) == (1, 1)


# ---------------------------------------------------------------------------
# (c) a router naming its servers' literal --host / --port
# ---------------------------------------------------------------------------

ROUTER = ("python -m sglang_router.launch_router --pd-disaggregation \\\n"
          "  --prefill http://{p}:30000 \\\n  --decode http://{d}:30000 \\\n  --host 192.168.0.60 --port 6688\n")


def test_router_urls_naming_servers_hosts_pair_them(scratch_git, capsys):
    scratch_git.write("cp/pnode60.sh", _sg("prefill", "nixl", "--host 192.168.0.60 --port 30000 "))
    scratch_git.write("cp/dnode102.sh", _sg("decode", "mooncake", "--host 192.168.0.102 --port 30000 "))
    scratch_git.write("cp/router.sh", ROUTER.format(p="192.168.0.60", d="192.168.0.102"))
    code, out = scratch_git.lint(".")
    assert code == 1 and _codes(out) == ["SGL805"]
    assert _paired(out) == [("cp/pnode60.sh", "cp/dnode102.sh")] and _unpaired(out) == (0, 0)
    [dep] = out["pairs"]
    links = {r["role"]: [s["path"] for s in r["servers"]] for r in dep["routers"]}
    assert links == {"prefill": ["cp/pnode60.sh"], "decode": ["cp/dnode102.sh"]}
    from pdlint.cli import main
    main(["show", "cp"])
    assert "no server of this deployment" not in capsys.readouterr().out


@pytest.mark.parametrize("router,server_dir", [
    (ROUTER.format(p="192.168.0.61", d="192.168.0.102"), "cp"),  # the prefill's host is another
    # (the prefill's host on another port: the router names that host's prefill, PD154 says the port differs:
    # tests/test_router_remote_role.py)
    (ROUTER.format(p="127.0.0.1", d="127.0.0.1"), "cp"),  # loopback names no host's server
    (ROUTER.format(p="192.168.0.60", d="192.168.0.102"), "elsewhere"),  # another directory
])
def test_router_urls_naming_other_addresses_pair_nothing(scratch_git, router, server_dir):
    host_p = "127.0.0.1" if "127.0.0.1" in router else "192.168.0.60"
    host_d = "127.0.0.1" if "127.0.0.1" in router else "192.168.0.102"
    scratch_git.write(f"{server_dir}/pnode60.sh", _sg("prefill", "nixl", f"--host {host_p} --port 30000 "))
    scratch_git.write(f"{server_dir}/dnode102.sh", _sg("decode", "mooncake", f"--host {host_d} --port 30000 "))
    scratch_git.write("cp/router.sh", router)
    code, out = scratch_git.lint(".")
    assert "SGL805" not in _codes(out) and _paired(out) == [] and _unpaired(out) == (1, 1)


# Field test rw6/c (YZY00Raiser/mysglang): two 1P1D experiments in one directory, one router each, and a
# third router that bridges them; and a router on another subnet beside role-named P.sh / D.sh

def _at(mode: str, model: str, host: str) -> str:
    return (f"python -m sglang.launch_server --model-path /models/{model} --host {host} --port 8000 \\\n"
            f"  --disaggregation-transfer-backend mooncake --disaggregation-mode {mode}\n")


def _router(p: str, d: str, port: int = 8000) -> str:
    return (f"python -m sglang_router.launch_router --pd-disaggregation \\\n"
            f"  --prefill http://{p}:{port} --decode http://{d}:{port} --host {p} --port 6688\n")


def test_only_servers_one_router_names_together_are_pairs(scratch_git):
    scratch_git.write("x/P19.sh", _at("prefill", "DeepSeek-V3", "172.22.3.19"))
    scratch_git.write("x/D244.sh", _at("decode", "DeepSeek-V3", "172.22.3.244"))
    scratch_git.write("x/P34_Qwen.sh", _at("prefill", "Qwen3-32B", "172.22.3.34"))
    scratch_git.write("x/D188_Qwen.sh", _at("decode", "Qwen3-32B", "172.22.3.188"))
    scratch_git.write("x/R.sh", _router("172.22.3.19", "172.22.3.244"))
    scratch_git.write("x/R2.sh", _router("172.22.3.34", "172.22.3.188"))
    code, out = scratch_git.lint(".")
    assert code == 0 and _codes(out) == []
    assert sorted(_paired(out)) == [("x/P19.sh", "x/D244.sh"), ("x/P34_Qwen.sh", "x/D188_Qwen.sh")]
    links = sorted((r["router"]["path"], r["role"], [s["path"] for s in r["servers"]]) for dep in out["pairs"]
                   for r in dep["routers"])
    assert links == [("x/R.sh", "decode", ["x/D244.sh"]), ("x/R.sh", "prefill", ["x/P19.sh"]),
                     ("x/R2.sh", "decode", ["x/D188_Qwen.sh"]), ("x/R2.sh", "prefill", ["x/P34_Qwen.sh"])]
    # servers no router names (another experiment's, role-named P.sh / D.sh) pair with each other, not with
    # the servers the routers name
    scratch_git.write("x/P.sh", _at("prefill", "Llama", "172.22.3.50"))
    scratch_git.write("x/D.sh", _at("decode", "Llama", "172.22.3.51"))
    code, out = scratch_git.lint(".")
    assert code == 0 and _codes(out) == []
    assert sorted(_paired(out)) == [("x/P.sh", "x/D.sh"), ("x/P19.sh", "x/D244.sh"),
                                    ("x/P34_Qwen.sh", "x/D188_Qwen.sh")]
    # a third router sends the Qwen prefill's requests to the DeepSeek decode: that pair is real, and wrong
    scratch_git.write("x/R3.sh", _router("172.22.3.34", "172.22.3.244"))
    code, out = scratch_git.lint(".")
    assert code == 1 and _codes(out) == ["SGL821"]
    assert ("x/P34_Qwen.sh", "x/D244.sh") in _paired(out) and ("x/P19.sh", "x/D188_Qwen.sh") not in _paired(out)


def test_a_router_naming_other_ip_addresses_reaches_no_server(scratch_git):
    scratch_git.write("y/P.sh", _at("prefill", "DeepSeek-V3", "172.22.3.19"))
    scratch_git.write("y/D.sh", _at("decode", "DeepSeek-V3", "172.22.3.244"))
    scratch_git.write("y/R.sh", _router("172.22.3.19", "172.22.3.244"))
    scratch_git.write("y/router.sh", _router("192.168.0.188", "192.168.0.244", port=24667))
    code, out = scratch_git.lint(".")
    assert code == 0 and "PD154" not in _codes(out)
    routed = {(r["router"]["path"], r["role"]): [s["path"] for s in r["servers"]] for dep in out["pairs"]
              for r in dep["routers"]}
    assert routed[("y/router.sh", "prefill")] == [] and routed[("y/R.sh", "prefill")] == ["y/P.sh"]
    # the same port on an address a server writes: that server, and the wrong port is still reported
    scratch_git.write("y/router.sh", _router("172.22.3.19", "172.22.3.244", port=24667))
    code, out = scratch_git.lint(".")
    assert code == 1 and _codes(out) == ["PD154", "PD154"]


# ---------------------------------------------------------------------------
# the result cache re-checks a stored file that a new file pairs with
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("first,second", [
    ({"cp/pnode60.sh": _sg("prefill", "nixl", "--host 192.168.0.60 --port 30000 "),
      "cp/dnode102.sh": _sg("decode", "mooncake", "--host 192.168.0.102 --port 30000 ")},
     {"cp/router.sh": ROUTER.format(p="192.168.0.60", d="192.168.0.102")}),
    ({"pnode.sh": _sg("prefill", "nixl")}, {"dnode.sh": _sg("decode", "mooncake")}),
    ({"docker/node-a.yaml": _compose("name: pd", "prefill", "nixl", "/m")},
     {"docker/node-b.yaml": _compose("name: pd", "decode", "mooncake", "/m")}),
    ({"v4/prefill-dep4.sh": _dsv4("prefill").replace("mooncake", "nixl")}, {"v4/decode-dep8.sh": _dsv4("decode")}),
])
def test_a_cached_half_is_paired_with_a_new_file(scratch_git, capsys, first, second):
    import json
    from pdlint.cli import main
    for rel, text in first.items():
        scratch_git.write(rel, text)
    main(["--format", "json", "."])
    assert "SGL805" not in capsys.readouterr().out
    for rel, text in second.items():
        scratch_git.write(rel, text)
    main(["--format", "json", "."])
    out = json.loads(capsys.readouterr().out)
    assert _codes(out) == ["SGL805"] and _unpaired(out) == (0, 0)


def test_a_deployment_of_several_models_pairs_each_models_servers(scratch_git):
    """vllm-project/semantic-router's multi-model Dynamo values (field test rw12/d): a prefill and a decode for each
    of three models behind one model-aware frontend were paired across models: 6 false VLLM013. A router that
    names a prefill and a decode of two models still pairs them (test_only_servers_one_router_names_...)."""
    scratch_git.write("run.sh", "".join(
        f"CUDA_VISIBLE_DEVICES={2 * i} vllm serve {m} --port {8100 + i} --kv-transfer-config "
        f"'{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}}' &\n"
        f"CUDA_VISIBLE_DEVICES={2 * i + 1} VLLM_NIXL_SIDE_CHANNEL_PORT={5700 + i} vllm serve {m} --port {8200 + i} "
        f"--kv-transfer-config '{{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_consumer\"}}' &\n"
        for i, m in enumerate(["Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B"])))
    code, out = scratch_git.lint(".")
    assert "VLLM013" not in _codes(out)
    assert sorted(_paired(out)) == [("run.sh", "run.sh")] * 2
