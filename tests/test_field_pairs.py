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
