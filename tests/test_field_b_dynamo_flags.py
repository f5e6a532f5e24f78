"""`python -m dynamo.sglang` flags that only some Dynamo releases have (field test on ai-dynamo/dynamo:
SGL001 "not an SGLang 0.5.21 flag" on examples/backends/sglang/launch/multimodal_disagg.sh).

`--multimodal-encode-worker` / `--multimodal-worker` (dynamo/sglang/backend_args.py, Dynamo 0.6-1.3) and
`--durable-kv-events` (runtime_args.py, 1.0-1.3) are Dynamo's own flags; Dynamo 1.4 removed them (its
tests assert the worker rejects them), so the tables are right and a launch of no pinned release was judged
against the newest, 1.6.1. Such a launch is now judged against the newest Dynamo release that accepts its
flags and told to pin it (SGL012), as an unpinned SGLang launch is; a pinned release without the flag
names it as a Dynamo flag of other releases (SGL009).
"""

SCRIPT = """\
    #!/bin/bash
    CUDA_VISIBLE_DEVICES=0 python3 -m dynamo.sglang --multimodal-encode-worker --model-path m &
    CUDA_VISIBLE_DEVICES=1 python3 -m dynamo.sglang --multimodal-worker --durable-kv-events --model-path m \
      --disaggregation-mode prefill &
    CUDA_VISIBLE_DEVICES=2 python3 -m dynamo.sglang --multimodal-worker --no-durable-kv-events --model-path m \
      --disaggregation-mode decode
    """


def _pod(tag: str, flags: str) -> str:
    return f"""\
        apiVersion: v1
        kind: Pod
        metadata: {{name: w}}
        spec:
          containers:
          - name: w
            image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:{tag}
            command: [python3, -m, dynamo.sglang, {flags}, --model-path, m]
        """


def _found(report):
    return [(f["code"], f["severity"], f["line"]) for f in report["findings"]]


def test_unpinned_dynamo_launch_is_judged_against_a_release_with_its_flags(scratch_git):
    scratch_git.write("a.sh", SCRIPT)
    code, report = scratch_git.lint("a.sh")
    assert code == 0, report["findings"]
    assert _found(report) == [("SGL012", "warning", 2), ("SGL012", "warning", 3), ("SGL012", "warning", 4)]
    first, durable = report["findings"][0]["message"], report["findings"][1]["message"]
    assert first.startswith("--multimodal-encode-worker: this launch's flags are valid together only for Dynamo "
                            "0.6.1–1.3.1: no Dynamo release is pinned"), first
    assert "--multimodal-encode-worker is a dynamo.sglang flag of Dynamo 0.6.1–1.3.1, not of Dynamo 1.4.2 " \
           "and later; pin the release" in first and "judged against Dynamo 1.3.1 (SGLang 0.5.14)" in first, first
    assert "valid together only for Dynamo 1.0.2–1.3.1" in durable, durable  # --durable-kv-events: 1.0+
    assert report["coverage"]["prefill"] == 1 and report["coverage"]["decode"] == 1


def test_dynamo_releases_with_the_flags_accept_them(scratch_git):
    for tag in ("1.0.2", "1.3.1"):
        scratch_git.write(f"{tag}.yaml", _pod(tag, "--multimodal-worker, --durable-kv-events, --no-durable-kv-events"))
        code, report = scratch_git.lint(f"{tag}.yaml")
        assert (code, report["findings"]) == (0, []), (tag, report["findings"])
    scratch_git.write("0.6.1.yaml", _pod("0.6.1", "--multimodal-encode-worker"))
    code, report = scratch_git.lint("0.6.1.yaml")
    assert (code, report["findings"]) == (0, []), report["findings"]


def test_dynamo_releases_without_the_flags_still_report_them(scratch_git):
    scratch_git.write("new.yaml", _pod("1.6.0", "--multimodal-worker, --durable-kv-events"))
    code, report = scratch_git.lint("new.yaml")
    assert code == 1 and _found(report) == [("SGL009", "error", 8), ("SGL009", "error", 8)], report["findings"]
    assert report["findings"][0]["message"] == (
        "--multimodal-worker is a dynamo.sglang flag of Dynamo 0.6.1–1.3.1, not of Dynamo 1.4.2 and later; the "
        "dynamo.sglang worker of Dynamo 1.6.1 stops with \"unrecognized arguments: --multimodal-worker\" [SGLang 0.5.21]")
    scratch_git.write("old.yaml", _pod("0.9.1", "--durable-kv-events"))
    code, report = scratch_git.lint("old.yaml")
    (f,) = report["findings"]
    assert code == 1 and f["code"] == "SGL009", f
    assert f["message"].startswith("--durable-kv-events is a dynamo.sglang flag of Dynamo 1.0.2–1.3.1, added "
                                   "after Dynamo 0.9.1"), f["message"]


def test_unpinned_launch_no_release_accepts_keeps_its_errors(scratch_git):
    # a typo beside a removed flag: no Dynamo release accepts both, so the newest judges it
    scratch_git.write("b.sh", "python3 -m dynamo.sglang --multimodal-worker --disagregation-mode prefill "
                              "--model-path m\n")
    code, report = scratch_git.lint("b.sh")
    assert code == 1 and [f["code"] for f in report["findings"]] == ["SGL009", "SGL001"], report["findings"]
    assert "Dynamo 1.6.1" in report["findings"][0]["message"]


# Field test rw6/a (yangwhale/gpu-tpu-pedia deepseek-v4 scripts): an SGLang flag the SGLang release of the
# newest Dynamo lacks (--cuda-graph-max-bs, removed in SGLang 0.5.20; Dynamo 1.6.1 installs 0.5.21) was an
# SGL009 error under `python -m dynamo.sglang` with nothing pinned, where `sglang.launch_server` gets SGL012

V4 = ("python3 -m {entry} --model-path /m --tensor-parallel-size 4 --disaggregation-mode prefill "
      "--cuda-graph-max-bs 1024 --port 40000\n")


def test_an_unpinned_dynamo_launch_with_an_sglang_flag_older_releases_have(scratch_git):
    scratch_git.write("p.sh", V4.format(entry="dynamo.sglang"))
    code, report = scratch_git.lint("p.sh")
    assert code == 0 and _found(report) == [("SGL012", "warning", 1)]  # no SGL008 on the same token either
    message = report["findings"][0]["message"]
    assert message.startswith("--cuda-graph-max-bs: this launch's flags are valid together only for Dynamo "
                              "0.4.1–1.4.2: no Dynamo release is pinned"), message
    assert "SGLang 0.5.21, which Dynamo 1.6.1 installs, does not have it: --cuda-graph-max-bs was removed in " \
           "SGLang 0.5.20" in message
    assert report["launches"][0]["engine_version"] == "0.5.16"
    # as the same flags under sglang.launch_server
    scratch_git.write("p.sh", V4.format(entry="sglang.launch_server"))
    code, report = scratch_git.lint("p.sh")
    assert code == 0 and _found(report) == [("SGL012", "warning", 1)]


def test_a_pinned_release_without_the_sglang_flag_is_an_error(scratch_git):
    scratch_git.write("p.yaml", _pod("1.6.1", "--cuda-graph-max-bs, '1024'"))
    code, report = scratch_git.lint("p.yaml")
    assert code == 1 and [c for c, _, _ in _found(report)] == ["SGL009"]
    # a flag no release has stays an error too
    scratch_git.write("p.sh", V4.format(entry="dynamo.sglang").replace("--cuda-graph-max-bs", "--cuda-graf-max-bs"))
    code, report = scratch_git.lint("p.sh")
    assert code == 1 and report["findings"][0]["severity"] == "error"


def test_a_flag_no_known_release_defines_says_a_newer_build_may(scratch_git):
    """A Dynamo decode-migration script (stop 32) runs flags of Dynamo's main branch (`--decode-migration-class`):
    SGL001 said only "not an SGLang 0.5.21 flag". With no release pinned it now says that no release pdlint knows
    defines it and a newer build may; a pinned release says no more, and a vLLM flag is named as one."""
    scratch_git.write("run.sh", "python3 -m dynamo.sglang --model-path m --decode-migration-class fast "
                                "--disaggregation-mode decode\n")
    code, report = scratch_git.lint("run.sh")
    (f,) = report["findings"]
    assert f["code"] == "SGL001" and "; no release up to Dynamo 1.6.1 and SGLang 0.5.23 defines " \
        "--decode-migration-class: a newer build may, and pdlint has no table to check it against)" in f["message"]
    scratch_git.write("w.yaml", _pod("1.6.1", "--decode-migration-class, fast"))
    code, report = scratch_git.lint("w.yaml")
    (f,) = report["findings"]
    assert f["message"].endswith("(not an SGLang 0.5.21 flag) [SGLang 0.5.21]"), f["message"]
    scratch_git.write("s.sh", "python3 -m sglang.launch_server --model-path m --max-num-seqs 4 --frobnicate\n")
    code, report = scratch_git.lint("s.sh")
    assert [f["message"].partition("(")[2] for f in report["findings"]] == [
        "not an SGLang 0.5.23 flag; --max-num-seqs is a flag of vLLM 0.9.2-0.33.0) [SGLang 0.5.23]",
        "not an SGLang 0.5.23 flag; no release up to SGLang 0.5.23 defines --frobnicate: a newer build may, and "
        "pdlint has no table to check it against) [SGLang 0.5.23]"]


def test_a_release_that_withdraws_a_flag_is_no_release_with_it(scratch_git):
    # field test rw21/a (RogerLiu312/dynamo-trtllm-benchmark): --enable-deepep-moe was "valid together only for
    # Dynamo 0.4.1–0.6.1" and judged against 0.6.1, whose SGLang 0.5.3.post2 registers it as a DeprecatedAction that
    # stops the server: SGL009 "withdrawn" on the same token as the SGL012 that named 0.6.1
    scratch_git.write("p.sh", "python3 -m dynamo.sglang --model-path m --enable-deepep-moe --disaggregation-mode "
                              "prefill\n")
    code, report = scratch_git.lint("p.sh")
    assert code == 0 and _found(report) == [("SGL012", "warning", 1)]
    message = report["findings"][0]["message"]
    assert "valid together only for Dynamo 0.4.1–0.5.1" in message, message
