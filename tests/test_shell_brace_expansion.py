"""Bash's brace expansion (hostile-input round rw27/h, item P1): `for i in {0..1}; do ... --port 3000$i
--base-gpu-id $i` - the most common multi-GPU loop - ran once with the literal `{0..1}` (false SGL005 on the port and
the GPU id), `for role in {prefill,decode}` gave SGL004 on '{prefill,decode}', and `--model-path /models/qwen{2,3}`,
two words to bash (SGLang: unrecognized arguments), passed clean."""

import pytest


def words(shell_eval, script):
    cmds, _ = shell_eval(script)
    return [[w.text for w in c.words] for c in cmds]


@pytest.mark.parametrize("text,expected", [
    ("echo {0..2}", ["echo", "0", "1", "2"]),
    ("echo {3..1} {a..c} {c..a..2}", ["echo", "3", "2", "1", "a", "b", "c", "c", "a"]),
    ("echo {01..10..3} {-1..1}", ["echo", "01", "04", "07", "10", "-1", "0", "1"]),
    ("echo x{a,b}y a{b,c{d,e}}f", ["echo", "xay", "xby", "abf", "acdf", "acef"]),
    ("echo {a,b}{1,2}", ["echo", "a1", "a2", "b1", "b2"]),
    # not brace expressions: quoted, escaped, empty, no comma or range
    ("echo '{a,b}' \"{0..1}\" \\{a,b\\} {x} {}", ["echo", "{a,b}", "{0..1}", "{a,b}", "{x}", "{}"]),
    # alternatives with quoted parts or expansions (field round rw29/a P1: `{"mlx5_0","mlx5_1"}` is two words)
    ('echo {"mlx5_0","mlx5_1"} --x={"a b",c}', ["echo", "mlx5_0", "mlx5_1", "--x=a b", "--x=c"]),
    ('A=1; echo {${A},b}x {"k":"v","k2":"v2"}', ["echo", "1x", "bx", "k:v", "k2:v2"]),
    ('echo x{"a",{b,c}}y {"a"} {"a",}', ["echo", "xay", "xby", "xcy", "{a}", "a"]),
    # (an unclosed brace is literal, the search goes on after it, as in bash)
    ('echo {a{b,c} x{"a",b', ["echo", "{ab", "{ac", "x{a,b"]),
    # (still no expression: a quoted brace, a quoted comma, no comma)
    ('echo "{"a,b"}" {"a,b"} {a"}"', ["echo", "{a,b}", "{a,b}", "{a}"]),
])
def test_brace_expressions(shell_eval, text, expected):
    assert words(shell_eval, text) == [expected]


def test_the_multi_gpu_loop(scratch):
    scratch.write("run.sh", """\
for i in {0..1}; do
  CUDA_VISIBLE_DEVICES=$i python3 -m sglang.launch_server --model-path /m --port 3000$i \\
    --disaggregation-bootstrap-port 899$i --disaggregation-mode prefill &
done
for role in {prefill,decode}; do :; done
CUDA_VISIBLE_DEVICES=2 python3 -m sglang.launch_server --model-path /m --port 30002 --disaggregation-mode decode &
""")
    code, report = scratch.lint("run.sh")
    assert (code, report["findings"]) == (0, [])
    ports = sorted(l["argv"][l["argv"].index("--port") + 1] for l in report["launches"])
    assert ports == ["30000", "30001", "30002"]


def test_a_brace_word_in_a_flag_value_is_two_words(scratch):
    scratch.write("run.sh", "python3 -m sglang.launch_server --model-path /models/qwen{2,3} "
                            "--disaggregation-mode decode\n")
    _, report = scratch.lint("run.sh")
    assert [(f["code"], f["message"].split(" [")[0]) for f in report["findings"]] == [
        ("SGL011", "unrecognized arguments: /models/qwen3")]


def test_a_brace_word_with_quoted_parts_in_a_flag_value_is_two_words(scratch):
    # field round rw29/a P1: bash passes `--disaggregation-ib-device mlx5_0 mlx5_1`, SGLang 0.5.23 stops with
    # "unrecognized arguments: mlx5_1"; pdlint kept the one word `{mlx5_0,mlx5_1}` and passed the launch
    scratch.write("run.sh", 'python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill '
                            '--disaggregation-ib-device {"mlx5_0","mlx5_1"}\n')
    _, report = scratch.lint("run.sh")
    assert [(f["code"], f["message"].split(" [")[0]) for f in report["findings"]] == [
        ("SGL011", "unrecognized arguments: mlx5_1")]
    scratch.write("run.sh", 'python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill '
                            '--disaggregation-ib-device "mlx5_0,mlx5_1"\n')
    code, report = scratch.lint("run.sh")
    assert (code, report["findings"]) == (0, [])


def test_a_huge_range_is_cut_and_said(shell_eval):
    cmds, _ = shell_eval("for i in {1..100000000}; do echo $i; done")
    assert len(cmds) == 256


def test_unclosed_braces_are_searched_in_one_pass(shell_eval):
    """Hostile-input round rw30/h P3: the brace search followed every `{` to the end of the word, so one word of
    10,000 unclosed `{a` (20 KB) took the 10 s budget (PD008, the launch unchecked).  bash: `printf '[%s]'
    {a{a{b,c}` prints `[{a{ab][{a{ac]` - the unclosed ones are literal, the search goes on after them."""
    import time
    began = time.monotonic()
    cmds, _ = shell_eval("echo " + "{a" * 20000 + "{b,c} " + "{a," * 20000 + "\n")
    assert time.monotonic() - began < 5
    got = [w.text for w in cmds[0].words]
    assert got == ["echo", "{a" * 20000 + "b", "{a" * 20000 + "c", "{a," * 20000]
    cmds, _ = shell_eval("echo {a{a{b,c} {{a,b}} a\\\\{b,c}\n")
    assert [w.text for w in cmds[0].words] == ["echo", "{a{ab", "{a{ac", "{a}", "{b}", "a\\b", "a\\c"]


def _limits(script):
    from pdlint.formats.shell import ShellContext, shell_commands
    from pdlint.text import SourceFile, TStr
    said = []
    ctx = ShellContext(lambda p, c: None, lambda code, message, *a, **k: said.append((code, message)))
    cmds = shell_commands(TStr.from_source(SourceFile("s.sh", script)), ctx)
    return [[w.text for w in c.words] for c in cmds], said


def test_the_brace_cap_never_leaves_half_expanded_words():
    """Hostile-input round rw30/h P1: `--enable-metrics{"",""}` x 9 is 512 copies of --enable-metrics to bash (the
    SGLang 0.5.23 oracle: ACCEPT); at the 257-word cap the words still queued kept their last brace group
    (`--enable-metrics{,}`, a false SGL001) and no PD015 was said."""
    words, said = _limits('echo x' + '{"",""}' * 9 + '\n')
    assert words[0][1:] == ["x"] * 257
    assert [code for code, _ in said] == ["PD-SHELL-LIMIT"]
    assert "more than 257 words" in said[0][1]
    words, said = _limits('echo x' + '{"",""}' * 8 + '\n')  # 256 words: no limit
    assert (words[0][1:], said) == (["x"] * 256, [])
    words, said = _limits('echo {a,b}{1,2}' + "{x,y}" * 20000 + '\n')  # too long to expand at all: said, not literal
    assert all("{" not in w for w in words[0]) and [code for code, _ in said] == ["PD-SHELL-LIMIT"]


def test_the_brace_cap_in_a_launch(scratch):
    scratch.write("serve.sh", "python3 -m sglang.launch_server --model-path /m --enable-metrics" + '{"",""}' * 9 + "\n")
    _, report = scratch.lint("serve.sh")
    assert sorted(f["code"] for f in report["findings"]) == ["PD015", "SGL007"]
    scratch.write("serve.sh", "python3 -m sglang.launch_server --model-path /m --enable-metrics" + '{"",""}' * 8 + "\n")
    _, report = scratch.lint("serve.sh")
    assert [f["code"] for f in report["findings"]] == ["SGL007"]


@pytest.mark.parametrize("text,expected", [
    # bash: `printf '[%s]' {`echo 2`,}` prints [2]; {a,`echo b`} is [a][b]; {`echo a`,`echo b`}c is [ac][bc]
    ("echo {`echo 2`,}", ["echo", "2"]),
    ("echo {a,`echo b`}", ["echo", "a", "b"]),
    ("echo {`echo a`,`echo b`}c", ["echo", "ac", "bc"]),
    # quiet neighbours: the same with $(...), a backquote with no braces
    ("echo {$(echo 2),} x`echo y`z", ["echo", "2", "xyz"]),
])
def test_a_backquoted_alternative_stays_in_its_word(shell_eval, text, expected):
    """Hostile-input round rw30/h P2: tree-sitter-bash ends the word `{` before a backquoted substitution, and
    `--tp-size {`echo 2`,}` was three words (SGL005 "invalid int value: '{'", SGL011 "2,}")."""
    assert words(shell_eval, text) == [expected]


def test_a_backquoted_alternative_in_a_launch(scratch):
    scratch.write("serve.sh", "python3 -m sglang.launch_server --model-path /m --tp-size {`echo 2`,}\n")
    code, report = scratch.lint("serve.sh")
    assert (code, report["findings"]) == (0, [])
