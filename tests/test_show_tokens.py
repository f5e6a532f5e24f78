"""``pdlint show`` keeps every token of a command (issue 8 item 2): the launcher words and the tokens a
wrapper such as ``dynamo.sglang`` consumes or rewrites are shown and marked, never hidden; JSON marks
them with ``consumed``."""

import json

from pdlint.cli import main


def show_json(capsys, *paths):
    assert main(["show", "--format", "json", *paths]) == 0
    return json.loads(capsys.readouterr().out)


def marks(launch):
    return [(w["text"], w.get("consumed")) for w in launch["written"]]


DYNAMO = ("python3 -m dynamo.sglang --model-path /m --dyn-tool-call-parser hermes --disaggregation-mode pd "
          "--port 30000\n")


def test_dynamo_flags_are_shown_and_marked(scratch, capsys):
    scratch.write("run.sh", DYNAMO)
    doc = show_json(capsys, "run.sh")
    (launch,) = doc["launches"]
    assert marks(launch) == [
        ("python3", "launcher"), ("-m", "launcher"), ("dynamo.sglang", "launcher"),
        ("--model-path", None), ("/m", None),
        ("--dyn-tool-call-parser", "dynamo.sglang"), ("hermes", "dynamo.sglang"),
        ("--disaggregation-mode", "dynamo.sglang rewrite"), ("pd", "dynamo.sglang rewrite"),
        ("--port", None), ("30000", None),
        ("--disaggregation-mode", None), ("null", None)]  # what Dynamo hands SGLang instead
    assert launch["argv"] == ["--model-path", "/m", "--port", "30000", "--disaggregation-mode", "null"]
    assert "--dyn-tool-call-parser" not in launch["argv"]  # argv stays what SGLang's parser sees


def test_text_show_marks_them(scratch, capsys):
    scratch.write("run.sh", DYNAMO)
    assert main(["show", "run.sh"]) == 0
    out = capsys.readouterr().out
    assert "dynamo.sglang           run.sh:1:12  (launcher)" in out
    line = next(l for l in out.splitlines() if l.strip().startswith("--dyn-tool-call-parser"))
    assert line.endswith("(consumed by dynamo.sglang)")
    line = next(l for l in out.splitlines() if l.strip().startswith("pd "))
    assert line.endswith("(rewritten by dynamo.sglang)")


def test_config_words_and_the_files_keys(scratch, capsys):
    scratch.write("prefill.yaml", "model-path: /m\ndisaggregation-mode: prefill\n")
    scratch.write("run.sh", "python3 -m sglang.launch_server --config prefill.yaml --port 30000\n"
                          "python3 -m sglang.launch_server --config $CFG --model-path /m\n")
    doc = show_json(capsys, "run.sh")
    first, second = doc["launches"]
    assert marks(first) == [
        ("python3", "launcher"), ("-m", "launcher"), ("sglang.launch_server", "launcher"),
        ("--config", "--config merge"), ("prefill.yaml", "--config merge"),
        ("--model-path", None), ("/m", None), ("--disaggregation-mode", None), ("prefill", None),
        ("--port", None), ("30000", None)]
    assert [w["origin"]["path"] for w in first["written"][5:9]] == ["prefill.yaml"] * 4
    assert marks(second)[3:5] == [("--config", "--config"), ("$CFG", "--config")]


def test_sglang_serve_words(scratch, capsys):
    scratch.write("run.sh", "sglang serve /m --model-type llm --disaggregation-mode decode\n")
    (launch,) = show_json(capsys, "run.sh")["launches"]
    assert marks(launch) == [("sglang", "launcher"), ("serve", "launcher"), ("--model-path", None), ("/m", None),
                             ("--model-type", "sglang serve"), ("llm", "sglang serve"),
                             ("--disaggregation-mode", None), ("decode", None)]


def test_a_plain_launch_marks_only_its_launcher(scratch, capsys):
    scratch.write("run.sh", "python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill\n")
    (launch,) = show_json(capsys, "run.sh")["launches"]
    assert [w["text"] for w in launch["written"] if "consumed" in w] == ["python3", "-m", "sglang.launch_server"]
    assert [w["text"] for w in launch["written"] if "consumed" not in w] == launch["argv"]


def test_check_json_has_no_written_tokens(scratch, capsys):
    scratch.write("run.sh", DYNAMO)
    code, doc = scratch.lint("run.sh")
    assert doc["launches"] and all("written" not in l for l in doc["launches"])


def test_wrapper_words_are_shown(scratch, capsys):
    scratch.write("run.sh", "srun -N 1 --gres=gpu:8 python3 -m sglang.launch_server --model-path /m\n")
    (launch,) = show_json(capsys, "run.sh")["launches"]
    assert marks(launch)[:4] == [("srun", "wrapper"), ("-N", "wrapper"), ("1", "wrapper"), ("--gres=gpu:8", "wrapper")]
    assert marks(launch)[4:] == [("python3", "launcher"), ("-m", "launcher"), ("sglang.launch_server", "launcher"),
                                 ("--model-path", None), ("/m", None)]
