"""Inline suppressions and the per-launch fold of a rule's findings (hostile-input round rw31/h P1, fix helper w25).

A launch gets at most 32 findings of a rule one by one and one that counts the rest (check._fold, and SGLang's
engine per kind of command-line error: "and N more such errors in this launch", rw30/h P10).  The counting
finding was placed at the 33rd candidate's token and suppressions ran afterwards, so a `# pdlint: ignore[SGL001]`
on the 33rd vendor flag hid the counting finding, and with it every later finding of the rule on other lines: a
decode Deployment with 33 suppressed vendor flags and a misspelt `--tensor-paralel-size` passed (exit 0), with 32
suppressed vendor flags it failed.

Ground truth (SGLang's argparse, server_args.py `prepare_server_args` -> `parser.parse_args`): SGLang stops with
"error: unrecognized arguments: --tensor-paralel-size 2" (vLLM 0.10.0's FlexibleArgumentParser alike); the
suppress.py contract is that a directive covers the findings of its codes on its own line.  Now a suppressed
finding, or one its file's rule selection does not show, neither takes one of the 32 places nor is counted in the
counting finding, which sits at an open one.
"""

import json

import pytest

from pdlint.cli import main

HEAD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sgl-decode
spec:
  template:
    spec:
      containers:
      - name: d
        image: {image}
        command: {command}
        args:
"""
SGLANG = dict(image="lmsysorg/sglang:v0.5.5", command="[python3, -m, sglang.launch_server]")
VLLM = dict(image="vllm/vllm-openai:v0.10.0", command="[vllm, serve, m]")
SGL_ARGS = ["--model-path", "m", "--disaggregation-mode", "decode"]


def deployment(n: int, typo: bool = True, engine: dict = SGLANG, comment: str = "  # pdlint: ignore[SGL001] vendor fork",
               first: list = SGL_ARGS) -> str:
    lines = [HEAD.format(**engine)]
    lines += [f"        - {a}\n" for a in first]
    lines += [f"        - --vendor-flag-{i}{comment}\n" for i in range(n)]
    if typo:
        lines += ["        - --tensor-paralel-size\n", "        - '2'\n"]
    return "".join(lines)


def typo_line(text: str) -> int:
    return text.splitlines().index("        - --tensor-paralel-size") + 1


def lint(tmp_path, monkeypatch, capsys, files: dict, *extra) -> tuple:
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    code = main(["check", "--no-cache", "--format", "json", *extra, *files])
    return code, json.loads(capsys.readouterr().out)["findings"]


def test_rw31h_p1_repro_33_suppressed_vendor_flags_do_not_hide_the_typo(tmp_path, monkeypatch, capsys):
    """/tmp/rw31/h/repro/1/d.yaml: 33 suppressed vendor flags, then the typo on line 50 (exit 0 before)."""
    text = deployment(33)
    assert typo_line(text) == 50
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": text})
    assert code == 1
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("SGL001", 50, 11)]
    assert "did you mean --tensor-parallel-size?" in found[0]["message"]


@pytest.mark.parametrize("n", [32, 33, 34, 40, 300])
def test_n_suppressed_and_one_unsuppressed(tmp_path, monkeypatch, capsys, n):
    """32 / 33 / 34 suppressed (around the limit), 40 (a counting finding's worth past it), 300 (past the engine's
    errors judged one by one, whose suppressed rest is suppressed in the check stage): the one unsuppressed typo
    alone, one by one with its suggestion, and no unused-suppression (PD070) noise."""
    text = deployment(n)
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": text})
    assert code == 1
    assert [(f["code"], f["line"]) for f in found] == [("SGL001", typo_line(text))]
    assert found[0]["message"].startswith("unrecognized arguments: --tensor-paralel-size")


@pytest.mark.parametrize("n", [33, 40])
def test_vllm_fold_of_the_check_stage(tmp_path, monkeypatch, capsys, n):
    """vLLM's VLLM018 per unknown option is folded by check._fold (no engine cap): the same composition."""
    text = deployment(n, engine=VLLM, comment="  # pdlint: ignore[VLLM018]", first=[])
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": text})
    assert code == 1
    assert [(f["code"], f["line"]) for f in found] == [("VLLM018", typo_line(text))]


@pytest.mark.parametrize("n", [33, 34, 300])
@pytest.mark.parametrize("engine, comment, first", [(SGLANG, "  # pdlint: ignore[SGL001] vendor fork", SGL_ARGS),
                                                     (VLLM, "  # pdlint: ignore[VLLM018]", [])])
def test_all_suppressed_is_quiet(tmp_path, monkeypatch, capsys, n, engine, comment, first):
    """Every finding suppressed: nothing reported, exit 0, and every directive used (no PD070)."""
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": deployment(n, False, engine, comment, first)})
    assert (code, found) == (0, [])


def test_one_directive_over_many_findings_on_one_line_is_quiet(tmp_path, monkeypatch, capsys):
    """2,000 unknown options on one suppressed line, and `# pdlint: skip-file`: quiet, exit 0 (the ones past the
    limit suppressed in the check stage, not made one by one)."""
    server = "python3 -m sglang.launch_server --model-path /m "
    code, found = lint(tmp_path, monkeypatch, capsys, {
        "a.sh": server + "--foo " * 2000 + " # pdlint: ignore[SGL001]\n",
        "b.sh": "# pdlint: skip-file\n" + server + "--foo " * 2000 + "\n"}, "--sglang-version", "0.5.23")
    assert (code, found) == (0, [])


def test_ignore_noqa_audits_as_if_no_directive(tmp_path, monkeypatch, capsys):
    """--ignore-noqa: the findings of the file without its comments (32 one by one and one counting the rest, at
    the 33rd), however the comments would have folded them."""
    code, audit = lint(tmp_path, monkeypatch, capsys, {"d.yaml": deployment(33)}, "--ignore-noqa")
    code2, plain = lint(tmp_path, monkeypatch, capsys, {"d.yaml": deployment(33, comment="")})
    assert code == code2 == 1
    assert [(f["code"], f["line"], f["message"]) for f in audit] == \
        [(f["code"], f["line"], f["message"]) for f in plain]
    assert len(audit) == 33 and audit[-1]["message"].startswith("and 2 more such errors in this launch")
    assert audit[-1]["line"] == 49  # the 33rd vendor flag


def test_some_suppressed_the_counting_finding_stands_for_the_open_ones(tmp_path, monkeypatch, capsys):
    """40 vendor flags, every other one suppressed, and the typo: 21 open (20 flags + the typo) are one by one;
    with 80, the 41 open are 32 one by one and one counting 9, at an open (unsuppressed) flag."""
    def mixed(n):
        lines = [HEAD.format(**SGLANG)] + [f"        - {a}\n" for a in SGL_ARGS]
        lines += [f"        - --vendor-flag-{i}" + ("  # pdlint: ignore[SGL001]\n" if i % 2 else "\n")
                  for i in range(n)]
        return "".join(lines + ["        - --tensor-paralel-size\n", "        - '2'\n"])
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": mixed(40)})
    assert code == 1 and len(found) == 21 and not any(f["message"].startswith("and ") for f in found)
    flag_line = 17  # --vendor-flag-0's; flag i is on line 17 + i
    assert {f["line"] for f in found} == {flag_line + i for i in range(0, 40, 2)} | {flag_line + 40}
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": mixed(80)})
    assert code == 1 and len(found) == 33
    last = found[-1]
    assert last["message"].startswith("and 9 more such errors in this launch") and "--tensor-paralel-size" in \
        last["message"]
    assert last["line"] == flag_line + 64  # the 33rd open flag (even numbers), not a suppressed one
    assert "--vendor-flag-65" not in last["message"]


def test_unused_suppression_still_reported_with_the_fold(tmp_path, monkeypatch, capsys):
    """A directive on a line with no finding of its code is still PD070 next to 40 used ones."""
    text = deployment(40, typo=False).replace("        - decode\n",
                                              "        - decode  # pdlint: ignore[SGL001]\n")
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": text})
    assert [(f["code"], f["line"]) for f in found] == [("PD070", 16)]
    assert code == 0  # (PD070 is a warning)


def test_per_file_ignores_do_not_eat_the_fold(tmp_path, monkeypatch, capsys):
    """33 unknown flags in a sourced file whose per-file-ignores drop SGL001 there, then a typo in the script: the
    typo was counted in a finding placed in the ignored file, and dropped with it (exit 0)."""
    flags = "#!/bin/bash\nARGS=\"--model-path m \\\n" + "".join(f"  --vendor-flag-{i} \\\n" for i in range(33)) + \
        "  --disaggregation-mode decode\"\n"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.pdlint.per-file-ignores]\n"flags.sh" = ["SGL001"]\n')
    code, found = lint(tmp_path, monkeypatch, capsys, {
        "flags.sh": flags,
        "run.sh": "#!/bin/bash\nsource ./flags.sh\npython -m sglang.launch_server $ARGS --tensor-paralel-size 2\n"},
        "--sglang-version", "0.5.23")
    assert code == 1
    assert [(f["path"], f["code"], f["line"]) for f in found] == [("run.sh", "SGL001", 3)]
    assert "did you mean --tensor-parallel-size?" in found[0]["message"]


def test_an_ignored_code_does_not_eat_the_engine_cap(tmp_path, monkeypatch, capsys):
    """`--disable-mla` 33 times on SGLang 0.4.6.post5 (removed in 0.4.5.post2: SGL009) and a typo, with
    `--ignore SGL009`: the typo is reported one by one, not counted with an ignored SGL009 in "and 2 more such
    errors" (the ignored errors took the 32 places)."""
    text = deployment(0, typo=True).replace("v0.5.5", "v0.4.6.post5").replace(
        "        - --tensor-paralel-size\n", "        - --disable-mla\n" * 33 + "        - --tensor-paralel-size\n")
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": text}, "--ignore", "SGL009")
    assert code == 1
    assert [(f["code"], f["line"]) for f in found] == [("SGL001", typo_line(text))]
    assert "did you mean --tensor-parallel-size?" in found[0]["message"]
    # quiet neighbour: without --ignore, the 32 SGL009 one by one and one counting the rest, as before
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": text})
    assert [f["code"] for f in found] == ["SGL009"] * 32 + ["SGL001"]
    assert found[-1]["message"].startswith("and 2 more such errors in this launch")


def test_unsuppressed_fold_unchanged_and_its_baseline_key_stable(tmp_path, monkeypatch, capsys):
    """No directive: 40 unknown flags are 32 one by one and one counting 8 at the 33rd, as before.  Its baseline
    key is that flag (the token), so suppressing a flag it counts keeps the baseline matching (no new finding)."""
    code, found = lint(tmp_path, monkeypatch, capsys, {"d.yaml": deployment(40, typo=False, comment="")})
    assert code == 1 and len(found) == 33
    assert found[-1]["line"] == 17 + 32 and found[-1]["message"].startswith("and 8 more such errors")
    assert main(["check", "--no-cache", "--write-baseline", "b.json", "d.yaml"]) == 0
    capsys.readouterr()
    text = deployment(40, typo=False, comment="").replace("--vendor-flag-35\n",
                                                           "--vendor-flag-35  # pdlint: ignore[SGL001]\n")
    (tmp_path / "d.yaml").write_text(text)
    code = main(["check", "--no-cache", "--format", "json", "--baseline", "b.json", "d.yaml"])
    out = json.loads(capsys.readouterr().out)
    assert (code, out["findings"]) == (0, [])


def test_directives_stacked_above_a_long_command_are_read_once_per_command(tmp_path, monkeypatch, capsys):
    """3,000 directives stacked above one 1,000-line continued command of unknown options: each covers every line
    of it.  The fold asks for every finding whether a directive covers it; that is judged once per command (and its
    directives marked used once), not once per finding and directive (3,000 x 1,000: the rules stage ran over its
    10 s budget, PD008, and every directive was then PD070)."""
    from pdlint import suppress
    calls = [0]
    names = suppress.Directive.names

    def counted(self, code):
        calls[0] += 1
        return names(self, code)

    monkeypatch.setattr(suppress.Directive, "names", counted)
    monkeypatch.setenv("PDLINT_NO_WORKER", "1")  # (counted in this process)
    text = "# pdlint: ignore[SGL001]\n" * 3000 + "python3 -m sglang.launch_server --model-path /m \\\n" + \
        "  --foo \\\n" * 1000 + "  --port 1\n"
    code, found = lint(tmp_path, monkeypatch, capsys, {"c.sh": text}, "--sglang-version", "0.5.23")
    assert (code, found) == (0, [])
    assert 0 < calls[0] < 4 * 3000
