"""SGL815 (attention TP differs) at the flag that makes the difference (field round rw29/a P4,
richardhuo-nv/srt-slurm-trtllm's 1p1d-dep4 recipe): a TP4 prefill beside a DEP4 decode (`--tp-size 4 --dp-size 4
--enable-dp-attention`: attention TP 1) was reported at the decode's `--tp-size 4`, equal to the prefill's."""

PREFILL = ("CUDA_VISIBLE_DEVICES=0,1,2,3 python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B "
           "--disaggregation-mode prefill --tp-size 4 --port 30000 &\n")


def _sgl815(scratch, decode_flags: str) -> list:
    scratch.write("start_pd.sh", PREFILL + "CUDA_VISIBLE_DEVICES=4,5,6,7 python -m sglang.launch_server "
                                           "--model-path Qwen/Qwen3-30B-A3B --disaggregation-mode decode "
                                           f"{decode_flags} --port 30001 &\nwait\n")
    _, report = scratch.lint(".")
    return [f for f in report["findings"] if f["code"] == "SGL815"]


def test_equal_tp_sizes_point_at_the_attention_dp_size(scratch):
    (f,) = _sgl815(scratch, "--tp-size 4 --dp-size 4 --enable-dp-attention")
    line = (scratch.root / "start_pd.sh").read_text().splitlines()[1]
    assert f["role"] == "decode" and line[f["column"] - 1:].startswith("4 --enable-dp-attention")
    assert "divided by its attention DP size 4" in f["message"]
    (f,) = _sgl815(scratch, "--tp-size 4 --attn-dp-size 2")
    line = (scratch.root / "start_pd.sh").read_text().splitlines()[1]
    assert line[f["column"] - 1:].startswith("2 --port")


def test_different_tp_sizes_still_point_at_the_tp_size(scratch):
    (f,) = _sgl815(scratch, "--tp-size 2")
    line = (scratch.root / "start_pd.sh").read_text().splitlines()[1]
    assert line[f["column"] - 1:].startswith("2 --port") and "divided" not in f["message"]
    assert _sgl815(scratch, "--tp-size 4") == []
