"""A router's URL whose port no server of its role listens on names the server of that role its host writes in
another file, when the router's own deployment has no server of that role (field test rw17/n, P4: the common
two-node 1P1D layout, one node's script starting a decode and the router, the prefill in the other node's
script; the router's PD154 was missed).  The rule of commit 747f141 holds: a router whose own deployment has a
server of the role never joins another script's servers (devopsrustem/slurmv4, tests/test_field_rw16.py)."""

SERVER = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode {role} "
          "--host {host} --port {port} --tp-size 8")
ROUTER = ("python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://10.0.0.5:30000 "
          "--decode http://127.0.0.1:30002 --host 0.0.0.0 --port 8000")


def _node2(extra: str = "") -> str:
    return ("#!/bin/bash\n" + extra + SERVER.format(role="decode", host="0.0.0.0", port=30002) + " &\n"
            + ROUTER + "\n")


def _codes(out):
    return sorted((f["path"], f["line"], f["code"]) for f in out["findings"])


def _router_servers(out, path):
    return {r["role"]: sorted(s["path"] for s in r["servers"])
            for u in out["pairs"] for r in u["routers"] if r["router"]["path"] == path}


def test_a_router_beside_a_decode_finds_the_remote_prefill_on_another_port(scratch_git):
    scratch_git.write("node2.sh", _node2())
    scratch_git.write("prefill.sh", "#!/bin/bash\n" + SERVER.format(role="prefill", host="10.0.0.5", port=30001) + "\n")
    code, out = scratch_git.lint(".")
    assert (code, _codes(out)) == (1, [("node2.sh", 3, "PD154")])
    assert _router_servers(out, "node2.sh") == {"prefill": ["prefill.sh"], "decode": ["node2.sh"]}


def test_a_router_beside_a_decode_at_the_prefills_port_is_quiet_and_pairs(scratch_git):
    scratch_git.write("node2.sh", _node2())
    scratch_git.write("prefill.sh", "#!/bin/bash\n" + SERVER.format(role="prefill", host="10.0.0.5", port=30000) + "\n")
    code, out = scratch_git.lint(".")
    assert (code, _codes(out)) == (0, [])
    assert [(p["prefill"]["path"], p["decode"]["path"]) for u in out["pairs"] for p in u["pairs"]] == [
        ("prefill.sh", "node2.sh")]


def test_the_host_of_two_deployments_names_neither(scratch_git):
    """Two experiments' prefills on the named host, neither on the URL's port: which one the router means is
    unknown, so it joins neither."""
    scratch_git.write("node2.sh", _node2())
    for i, port in ((1, 30001), (2, 30003)):
        scratch_git.write(f"exp{i}.sh", "#!/bin/bash\n" + SERVER.format(role="prefill", host="10.0.0.5", port=port)
                          + " &\n" + SERVER.format(role="decode", host="10.0.0.5", port=port + 1) + "\n")
    code, out = scratch_git.lint(".")
    assert "PD154" not in {c for _, _, c in _codes(out)}
    assert _router_servers(out, "node2.sh")["prefill"] == []


def test_a_router_whose_own_script_starts_a_prefill_does_not_look_elsewhere(scratch_git):
    """Its own prefill (on another port: its own PD154) is the one it names, not another script's on the host."""
    scratch_git.write("node2.sh", _node2(SERVER.format(role="prefill", host="0.0.0.0", port=30001) + " &\n"))
    scratch_git.write("other.sh", "#!/bin/bash\n" + SERVER.format(role="prefill", host="10.0.0.5", port=30005) + "\n")
    code, out = scratch_git.lint(".")
    assert _router_servers(out, "node2.sh")["prefill"] == ["node2.sh"]
    assert ("node2.sh", 4, "PD154") in _codes(out)


def test_a_router_alone_naming_a_servers_host_on_another_port_joins_it(scratch_git):
    """hhhh1252023/pass's layout (router.sh beside pnode60.sh / dnode102.sh, tests/test_field_pairs.py) with the
    prefill URL's port not the prefill's: the router names 192.168.0.60's prefill, and PD154 says the ports differ
    (this layout paired nothing before, and reported nothing)."""
    server = ("python -m sglang.launch_server --model-path /models/DeepSeek-R1 --tp 16 --host {h} --port 30000 "
              "--disaggregation-mode {m}\n")
    scratch_git.write("cp/pnode60.sh", server.format(h="192.168.0.60", m="prefill"))
    scratch_git.write("cp/dnode102.sh", server.format(h="192.168.0.102", m="decode"))
    scratch_git.write("cp/router.sh", "python -m sglang_router.launch_router --pd-disaggregation --prefill "
                                      "http://192.168.0.60:30001 --decode http://192.168.0.102:30000 --port 6688\n")
    code, out = scratch_git.lint(".")
    assert (code, _codes(out)) == (1, [("cp/router.sh", 1, "PD154")])
    assert _router_servers(out, "cp/router.sh") == {"prefill": ["cp/pnode60.sh"], "decode": ["cp/dnode102.sh"]}


def test_the_cache_rechecks_the_router_with_the_prefill_its_host_names(scratch_git, capsys):
    """The result cache keeps a router and the server its URL's host names in one component: a change of the
    prefill's script alone re-checks the router's (else the stored PD154 and the fresh "not paired" disagreed)."""
    from pdlint.cli import main
    scratch_git.write("node2.sh", _node2())
    prefill = scratch_git.write("prefill.sh", "#!/bin/bash\n" + SERVER.format(role="prefill", host="10.0.0.5",
                                                                              port=30001) + "\n")

    def same() -> str:
        want = (main(["check", "--no-cache", "."]), capsys.readouterr())
        got = (main(["check", "."]), capsys.readouterr())
        assert got == want
        return want[1].out

    assert "PD154" in same()
    prefill.write_text(prefill.read_text() + "# edited\n")
    assert "PD154" in same()
    prefill.write_text(prefill.read_text().replace("--port 30001", "--port 30000"))
    assert "PD154" not in same()
