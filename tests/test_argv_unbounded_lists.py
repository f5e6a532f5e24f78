"""Hostile-input round rw30/h P10 (fix helper w22): one finding per word of an unbounded list.

Ground truth, the SGLang 0.5.23 oracle (`sglang_oracle.py --entry launch_server`): `--model-path M a b --foo c -- d`
is REJECT "error: unrecognized arguments: a b --foo c -- d" - argparse lists every word it could not place in one
error, and the server stops there once.  pdlint made one SGL011 finding per bare word: 120,000 bare words (240 KB)
made `--format sarif` die with MemoryError (exit 2, the whole run's report lost, the other file's SGL005 with it).
"""

import json

from pdlint.cli import main

SERVER = "python3 -m sglang.launch_server --model-path /m "


def lint(tmp_path, monkeypatch, capsys, files: dict, *extra) -> tuple:
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code = main(["check", "--no-cache", "--format", "json", "--sglang-version", "0.5.23", *extra, *files])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_bare_words_are_one_sgl011_per_launch(tmp_path, monkeypatch, capsys):
    code, found = lint(tmp_path, monkeypatch, capsys, {"words.sh": SERVER + "w " * 20000 + "\n",
                                                         "victim.sh": SERVER + "--tp-size abc\n"})
    assert code == 1
    assert [(f["path"], f["code"]) for f in found] == [("victim.sh", "SGL005"), ("words.sh", "SGL011")]
    assert found[1]["message"].startswith("unrecognized arguments: w w w ")
    assert "... (20000 words)" in found[1]["message"] and len(found[1]["message"]) < 600
    assert found[1]["column"] == len(SERVER) + 1


def test_bare_words_and_the_words_after_dashdash_are_one_list(tmp_path, monkeypatch, capsys):
    _, found = lint(tmp_path, monkeypatch, capsys, {"a.sh": SERVER + "a b --tp-size 2 c -- d\n"})
    assert [(f["code"], f["message"].split(" [")[0]) for f in found] == [
        ("SGL011", "unrecognized arguments: a b c -- d")]


def test_one_bare_word_is_quiet_neighbour(tmp_path, monkeypatch, capsys):
    _, found = lint(tmp_path, monkeypatch, capsys, {"a.sh": SERVER + "--tp-size 2 4\n", "b.sh": SERVER + "--tp-size 2\n"})
    assert [(f["path"], f["code"], f["message"].split(" [")[0]) for f in found] == [
        ("a.sh", "SGL011", "unrecognized arguments: 4")]


def test_any_rule_reports_at_most_33_findings_a_launch(tmp_path, monkeypatch, capsys):
    """SGL001 per unknown option (argparse lists them all in one error), SGL006 per stray value of a switch, SGL005
    per invalid value, vLLM's VLLM018 and TensorRT-LLM's TRT011 alike: at most
    32 one by one, the rest in one finding that counts them."""
    files = {"a.sh": SERVER + "--foo " * 2000 + "\n", "b.sh": SERVER + "--enable-metrics x " * 2000 + "\n",
             "c.sh": SERVER + "--tp-size x " * 2000 + "\n", "d.sh": "vllm serve m " + "w " * 2000 + "\n",
             "e.sh": "trtllm-serve m " + "--foo " * 2000 + "\n"}
    _, found = lint(tmp_path, monkeypatch, capsys, files)
    counts: dict = {}
    for f in found:
        counts[(f["path"], f["code"])] = counts.get((f["path"], f["code"]), 0) + 1
    assert {k: v for k, v in counts.items() if v > 1} == {
        ("a.sh", "SGL001"): 33, ("b.sh", "SGL006"): 33, ("c.sh", "SGL005"): 33, ("d.sh", "VLLM018"): 33,
        ("e.sh", "TRT011"): 33}
    last = [f["message"] for f in found if f["path"] == "a.sh" and f["code"] == "SGL001"][-1]
    assert last.startswith("and 1968 more") and "(1968 words)" in last
    # quiet neighbour: 33 findings of one rule stay one by one
    _, found = lint(tmp_path, monkeypatch, capsys, {"f.sh": SERVER + "--foo " * 33 + "\n"})
    assert len(found) == 33 and not any(f["message"].startswith("and ") for f in found)
