"""SGLang: `-h` / `--help` on a server line or as a `--config` key (SGL013).  Field round rw28/b P10 (fix helper
w13).

Ground truth, SGLang 0.5.23's oracle (`sglang_oracle.py --entry launch_server`, CPython 3.11.7):

* `--model-path M -h`, `... --help`, `... --hel`  REJECT "argparse exited with status 0 (--help/--version?)": the
  help is printed and no server starts; also `--bogus -h` (unknown options are reported only at the end)
* `--help=x`  REJECT "argument -h/--help: ignored explicit argument 'x'"
* `--h`  REJECT "ambiguous option: --h could match --help, --host, --http2-max-concurrent-streams, ..."
* config `help: true` and `help: false`  exit status 0 (the merger passes `--help true` / `--help false`)

Before: `-h` / `--help` on a server line made the line no launch (nothing reported), `help: true` was SGL001
"unrecognized arguments: --help true".
"""

import json
import textwrap

import pytest

from pdlint.cli import main


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(repo, capsys, script: str, files: dict = None) -> list:
    for name, text in (files or {}).items():
        (repo / name).write_text(textwrap.dedent(text))
    (repo / "launch.sh").write_text("#!/bin/sh\n" + script + "\n")
    main(["--format", "json", "--sglang-version", "0.5.23", "launch.sh"])
    out = json.loads(capsys.readouterr().out)
    return [(f["code"], f["path"], f["line"], f["column"], f["message"]) for f in out["findings"]
            if f["severity"] == "error"]


SERVER = "python -m sglang.launch_server --model-path /m --disaggregation-mode prefill --port 30000"


@pytest.mark.parametrize("word", ["-h", "--help", "--hel"])
def test_help_on_a_server_line_is_sgl013(repo, capsys, word):
    got = findings(repo, capsys, f"{SERVER} {word}")
    assert [(c, line, col) for c, _, line, col, _ in got] == [("SGL013", 2, len(SERVER) + 2)]
    assert got[0][4] == (f"{word}: argparse prints SGLang's help here and exits with status 0 (-h/--help), so no "
                         f"server starts [SGLang 0.5.23]")


def test_help_with_a_value_is_argparses_explicit_argument_error(repo, capsys):
    got = findings(repo, capsys, f"{SERVER} --help=x")
    assert [c for c, *_ in got] == ["SGL006"]
    assert got[0][4].startswith("argument -h/--help: ignored explicit argument 'x'")


def test_h_prefix_is_ambiguous_with_help_first(repo, capsys):
    got = findings(repo, capsys, f"{SERVER} --h")
    assert [c for c, *_ in got] == ["SGL002"]
    assert got[0][4].startswith("ambiguous option: --h could match --help, --host, ")


@pytest.mark.parametrize("value", ["true", "false"])
def test_help_key_in_a_config_file_is_sgl013_at_the_key(repo, capsys, value):
    got = findings(repo, capsys, "python -m sglang.launch_server --config c.yaml --port 30000",
                   {"c.yaml": f"model-path: /m\nhelp: {value}\n"})
    assert [(c, p, line, col) for c, p, line, col, _ in got] == [("SGL013", "c.yaml", 2, 1)]
    assert got[0][4].startswith("the config file's `help` key: SGLang's config merger passes it as --help")


def test_a_help_only_command_is_still_no_launch(repo, capsys):
    """Quiet neighbour: `python -m sglang.launch_server --help` (a README, an image's default CMD) asks for help."""
    (repo / "launch.sh").write_text("#!/bin/sh\npython -m sglang.launch_server --help\n")
    main(["--format", "json", "launch.sh"])
    out = json.loads(capsys.readouterr().out)
    assert out["findings"] == [] and out["launches"] == []


def test_a_server_line_without_help_is_quiet(repo, capsys):
    assert findings(repo, capsys, f"{SERVER} --host 0.0.0.0") == []


def test_ambiguous_prefix_with_a_value_is_named_as_written_with_help_listed(repo, capsys):
    """rw28/b P10 (cosmetic): SGLang 0.5.23 says `ambiguous option: --dis=nixl could match --disable-priority-
    preemption, ...` and `ambiguous option: --=1 could match --help, --model-path, --model, ...` (argparse's own
    --help first); `--he=1` is `argument -h/--help: ignored explicit argument '1'`."""
    got = findings(repo, capsys, f"{SERVER} --dis=nixl --=1 --he=1")
    assert [c for c, *_ in got] == ["SGL002", "SGL002", "SGL006"]
    assert got[0][4].startswith("ambiguous option: --dis=nixl could match --disable-priority-preemption, ")
    assert got[1][4].startswith("ambiguous option: --=1 could match --help, --model-path, --model, --tokenizer-path")
    assert got[2][4].startswith("argument -h/--help: ignored explicit argument '1'")


@pytest.mark.parametrize("script,expected", [
    # SGLang 0.5.23 oracle, --entry launch_server (plain argparse):
    # `--served-model-name -h` REJECT "argument --served-model-name: expected one argument" (no help: argparse stops
    # at the option before it); `-hx` REJECT "argument -h/--help: ignored explicit argument 'x'"; `-- -h` REJECT
    # "unrecognized arguments: -- -h"; `-h --h` REJECT "ambiguous option: --h could match --help, ..." (found
    # before any action runs); `--tp-size x -h` REJECT "invalid int value: 'x'"
    ("python -m sglang.launch_server --model-path /m --served-model-name -h",
     [("SGL003", "argument --served-model-name: expected one argument")]),
    ("python -m sglang.launch_server --model-path /m -hx",
     [("SGL006", "argument -h/--help: ignored explicit argument 'x'")]),
    ("python -m sglang.launch_server --model-path /m -- -h", [("SGL011", "unrecognized arguments: -- -h")]),
    ("python -m sglang.launch_server --model-path /m -h --h", [("SGL002", "ambiguous option: --h could match")]),
    ("python -m sglang.launch_server --model-path /m --tp-size x -h",
     [("SGL005", "argument --tp-size/--tensor-parallel-size: invalid int value: 'x'")]),
    # the oracle's default entry, `sglang serve` (sglang/cli/serve.py: any word -h / --help prints the help, exit
    # 0, before argparse): `--served-model-name -h`, `-- -h`, `--tp-size x -h` all "help requested"; `-hx` is
    # argparse's "ignored explicit argument 'x'" there too
    ("sglang serve /m --served-model-name -h", [("SGL013", "-h: `sglang serve` prints SGLang's help")]),
    ("sglang serve /m -- -h", [("SGL013", "-h: `sglang serve` prints SGLang's help")]),
    ("sglang serve /m --tp-size x --help", [("SGL013", "--help: `sglang serve` prints SGLang's help")]),
    ("sglang serve /m -hx", [("SGL006", "argument -h/--help: ignored explicit argument 'x'")]),
    # quiet neighbours: -h alone is still the help (argparse), and a bare -h after valid flags
    ("python -m sglang.launch_server --model-path /m --tp-size 2 -h",
     [("SGL013", "-h: argparse prints SGLang's help here")]),
])
def test_help_inside_other_words_is_what_sglang_does(repo, capsys, script, expected):
    """Hostile-input round rw30/h P11 (fix helper w22): `-hx` was SGL001 "unrecognized arguments: -hx", and
    `--served-model-name -h` SGL003 plus SGL013 (the help never runs there)."""
    got = [(code, msg) for code, _, _, _, msg in findings(repo, capsys, script)]
    assert len(got) == len(expected)
    for (code, msg), (want_code, want) in zip(got, expected):
        assert code == want_code and msg.startswith(want), (code, msg)


@pytest.mark.parametrize("script,expected", [
    # SGLang 0.5.23 oracle (hostile-input round rw31/h P4): argv `--model-path @TINY@ --api-key -hunter2` REJECT
    # "argument --api-key: expected one argument" and nothing else (argparse reads -hunter2 as -h with 'unter2'
    # attached, gives --api-key no value and stops there)
    ("python -m sglang.launch_server --model-path m --api-key -hunter2 --port 30000",
     [("SGL003", "argument --api-key: expected one argument (the next word, -hunter2, starts with '-', so argparse "
                 "reads it as an option; if it is the value, write --api-key=-hunter2) [SGLang 0.5.23]")]),
    # the same stop with a value argparse reads as an unknown option (no SGL001 for the key: argparse never
    # reaches it, and "remove it" would delete the key)
    ("python -m sglang.launch_server --model-path m --api-key -secret --port 30000",
     [("SGL003", "argument --api-key: expected one argument (the next word, -secret, starts with '-', so argparse "
                 "reads it as an option; if it is the value, write --api-key=-secret) [SGLang 0.5.23]")]),
    # oracle: `-host 0.0.0.0` REJECT "argument -h/--help: ignored explicit argument 'ost'" only (no "unrecognized
    # arguments: 0.0.0.0": argparse stops at -host), with the did-you-mean vLLM's path gives
    ("python -m sglang.launch_server --model-path m -host 0.0.0.0 --port 30000",
     [("SGL006", "argument -h/--help: ignored explicit argument 'ost' (SGLang reads -host, no flag of it, as its help "
                 "option -h with 'ost' attached, and stops; did you mean --host?) [SGLang 0.5.23]")]),
])
def test_a_value_or_word_argparse_never_reaches_after_it_stops(repo, capsys, script, expected):
    """rw31/h P4: pdlint gave `--api-key -hunter2` a second error, SGL006 "ignored explicit argument 'unter2' ...
    remove it" at the value (a message for another command line, whose fix deletes the key), and `-host 0.0.0.0`
    an SGL011 "unrecognized arguments: 0.0.0.0" SGLang never prints, without "did you mean --host?"."""
    got = [(code, msg) for code, _, _, _, msg in findings(repo, capsys, script)]
    assert got == expected


@pytest.mark.parametrize("script,expected", [
    # quiet neighbours: an option with its value, a value after `=` (the fix), an option missing its value before
    # a real option (no `=` advice), a double-dash typo after an option missing its value (still its own SGL001:
    # a value rarely starts with `--`), `--help=x` and `-h=x` (argparse's "ignored explicit argument 'x'", no
    # did-you-mean), and a stray word after a switch
    ("python -m sglang.launch_server --model-path m --api-key secret --port 30000", []),
    ("python -m sglang.launch_server --model-path m --api-key=-hunter2 --port 30000", []),
    ("python -m sglang.launch_server --model-path m --api-key --port 30000",
     [("SGL003", "argument --api-key: expected one argument [SGLang 0.5.23]")]),
    ("python -m sglang.launch_server --model-path m --api-key --tensor-paralel-size 2",
     [("SGL003", "argument --api-key: expected one argument [SGLang 0.5.23]"),
      ("SGL001", "unrecognized arguments: --tensor-paralel-size 2")]),
    ("python -m sglang.launch_server --model-path m -h=x",
     [("SGL006", "argument -h/--help: ignored explicit argument 'x' (-h/--help takes no value")]),
    ("python -m sglang.launch_server --model-path m --host 0.0.0.0 --enable-metrics true",
     [("SGL006", "--enable-metrics takes no value")]),
])
def test_stops_that_are_not_a_value_keep_their_findings(repo, capsys, script, expected):
    got = [(code, msg) for code, _, _, _, msg in findings(repo, capsys, script)]
    assert len(got) == len(expected), got
    for (code, msg), (want_code, want) in zip(got, expected):
        assert code == want_code and msg.startswith(want), (code, msg)
