"""The adversarial suite (issue 9 item 6): every attack issue 9 lists and the
sandbox escapes that already held, each as a regression test that asserts

* the finding the attack gets (or that nothing of it leaks),
* a bounded time, and
* that a good file beside it is still reported (exit 1);

and one run over a repository holding every attack at once, as a CI scan of a
hostile pull request would see it: exit 1, every finding of the good files,
bounded time, peak memory of the whole run under 1 GB.

The budgets and guards themselves are tested in test_budget.py,
test_bounded_algorithms.py, test_boundary.py, test_isolation.py and
test_safe_output.py; this file is the list of attacks, kept in one table.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from pdlint.cli import main

GOOD_NAME = "good.sh"
GOOD = "python3 -m sglang.launch_server --model-path /m --tp-size x\n"  # SGL005: --tp-size is not a number
LAUNCH = "python3 -m sglang.launch_server --model-path /m --disaggregation-mode {{ role }}\n"
# generous: the suite runs on a shared, loaded machine; the default budget is 10 s per file
BOUND_S = 60.0


def _merge_bomb(levels: int = 20) -> str:
    lines = ["m0: &m0 {a: 1, b: 2}"]
    lines += [f"m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}]}}" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def _billion_laughs() -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
    lines += ["containers:", "- name: prefill", "  command: [python3, -m, sglang.launch_server]", "  args: *l8"]
    return "\n".join(lines) + "\n"


@dataclass
class Attack:
    name: str
    files: dict  # path -> str | bytes | ("symlink", target) | ("fifo",)
    codes: dict = field(default_factory=dict)  # path -> set of codes that must be among its findings
    leak: bytes = b""  # bytes that must appear in no output
    args: tuple = ()
    formats: tuple = ("json",)


SECRET = b"s3cr3t-token-do-not-print"

ATTACKS = [
    # -- hangs and memory --------------------------------------------------------------
    Attack("yaml-merge-key-bomb", {"bomb.yaml": _merge_bomb()}),
    Attack("yaml-merge-key-bomb-as-values-file", {
        "bomb-values.yaml": _merge_bomb(),
        "pyproject.toml": '[tool.pdlint]\nvalues = ["bomb-values.yaml"]\n', "t.sh.j2": LAUNCH}),
    Attack("billion-laughs", {"laughs.yaml": _billion_laughs()}, {"laughs.yaml": {"PD008"}}),
    Attack("shell-regex-exponential", {
        "re.sh": "x=" + "a" * 40 + "b\nif [[ $x =~ ^(a+)+$ ]]; then :; fi\n"
                 "python -m sglang.launch_server --model-path m --disaggregation-mode prefill\n"}),
    Attack("shell-glob-prefix-and-case", {
        "glob.sh": "x=" + "a" * 200 + "\ny=${x#*a*a*a*a*b}\ncase $x in *a*a*a*a*b) :;; esac\n"
                   "python -m sglang.launch_server --model-path m --disaggregation-mode decode\n"}),
    Attack("jinja-set-block-alignment", {
        "setc.j2": "{% set c %}" + "x y {{ 1 }} " * 2500 + "{% endset %}{{ c|trim }}\n" + LAUNCH}),
    Attack("identical-launch-lines", {
        "many.sh": "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000\n" * 300}),
    # (with launch text: a big file without any is nothing to check, test_field_cov_big_files.py)
    Attack("two-megabyte-template", {"big.j2": "{{ a }}\n" * 260_000 + LAUNCH}, {"big.j2": {"PD008"}}),
    Attack("jinja-huge-power", {"pow.j2": "{{ 9**(9**9) }}\n" + LAUNCH}, {"pow.j2": {"PD006"}}),
    # (one C regex scan no signal interrupts: striptags is quadratic on unclosed `<`, rw20/h)
    Attack("jinja-striptags-quadratic", {"st.j2": "{{ ('<' * 3000000)|striptags }}\n" + LAUNCH}, {"st.j2": {"PD006"}}),
    Attack("ansible-regex-exponential", {
        "roles/r/templates/re.sh.j2": "{{ ('a' * 40 + 'b') | regex_search('(a+)+$') }}\n" + LAUNCH},
        {"roles/r/templates/re.sh.j2": {"PD006"}}),
    Attack("jinja-huge-repetition", {"mul.j2": "{{ ('x'*10**9)|length }} {{ ([0]*10**9)|length }}\n" + LAUNCH},
           {"mul.j2": {"PD006"}}),
    Attack("huge-tp-size", {
        "tp.sh": "python -m sglang.launch_server --model-path m --disaggregation-mode prefill "
                 "--tp-size 1000000000\n"}),
    Attack("deep-yaml-nesting", {"deep.yaml": "a: " + "[" * 100_000 + "]" * 100_000 + "\n"}),
    Attack("deep-jinja-nesting", {"deep.j2": "{{ " + "(" * 100_000 + "1" + ")" * 100_000 + " }}\n" + LAUNCH}),
    Attack("deep-shell-nesting", {"deep.sh": "echo " + "$(" * 20_000 + "x" + ")" * 20_000 + "\n"}),
    Attack("fifty-megabyte-file", {"huge.yaml": b"# " + b"x" * (50 * 1024 * 1024) + b"\n"}, {"huge.yaml": {"PD008"}}),
    # -- reads outside the repository -------------------------------------------------
    Attack("symlink-to-dev-zero", {"zero.yaml": ("symlink", "/dev/zero")}, {"zero.yaml": {"PD001"}}),
    Attack("symlink-to-outside-secret", {"leak.yaml": ("symlink", "../outside/secret.yaml")}, {"leak.yaml": {"PD001"}},
           leak=SECRET, formats=("json", "text", "sarif", "github", "gitlab", "junit")),
    Attack("symlink-loop", {"loop.yaml": ("symlink", "loop2.yaml"), "loop2.yaml": ("symlink", "loop.yaml")},
           {"loop.yaml": {"PD001"}}),
    Attack("values-absolute-path", {"v1/pyproject.toml": '[tool.pdlint]\nvalues = ["/proc/self/status"]\n',
                                    "v1/t.sh.j2": LAUNCH}, {"v1/pyproject.toml": {"PD012"}}, leak=b"VmPeak"),
    Attack("values-parent-path", {"v2/pyproject.toml": '[tool.pdlint]\nvalues = ["../../outside/secret.yaml"]\n',
                                  "v2/t.sh.j2": LAUNCH}, {"v2/pyproject.toml": {"PD012"}}, leak=SECRET),
    Attack("fifo-named-yaml", {"x.yaml": ("fifo",)}, {"x.yaml": {"PD001"}}),
    Attack("include-etc-passwd", {"inc.sh.j2": "{% include '/etc/passwd' %}\n" + LAUNCH}, {"inc.sh.j2": {"PD007"}},
           leak=b"root:x:0:0"),
    Attack("include-outside", {"inc2.sh.j2": "{% include '../outside/secret.yaml' %}\n" + LAUNCH},
           {"inc2.sh.j2": {"PD007"}}, leak=SECRET),
    # -- one file aborting all --------------------------------------------------------
    Attack("vendored-pyproject-not-utf8", {"vendor/pyproject.toml": b"[project]\nname = '\xff\xfe'\n"}),
    Attack("pdlint-pyproject-not-utf8", {"sub/pyproject.toml": b"[tool.pdlint]\nrole-var = '\xff'\n",
                                         "sub/t.sh.j2": LAUNCH}, {"sub/pyproject.toml": {"PD012"}}),
    Attack("dotfile-config-not-utf8", {"sub2/.pdlint.yaml": b"role-var: \xff\n", "sub2/t.sh.j2": LAUNCH},
           {"sub2/.pdlint.yaml": {"PD012"}}),
    Attack("broken-nested-toml", {"sub3/pyproject.toml": "[tool.pdlint\nrole-var = 1\n", "sub3/t.sh.j2": LAUNCH},
           {"sub3/pyproject.toml": {"PD012"}}),
    Attack("config-exclude-int", {"sub4/pyproject.toml": "[tool.pdlint]\nexclude = 5\n", "sub4/t.sh.j2": LAUNCH},
           {"sub4/pyproject.toml": {"PD012"}}),
    Attack("config-per-file-ignores-int", {"sub5/pyproject.toml": '[tool.pdlint]\nper-file-ignores = {"x" = 5}\n',
                                           "sub5/t.sh.j2": LAUNCH}, {"sub5/pyproject.toml": {"PD012"}}),
    Attack("values-file-not-utf8", {"vals.yaml": b"model: \xff\xfe\n",
                                    "pyproject.toml": '[tool.pdlint]\nvalues = ["vals.yaml"]\n', "t.sh.j2": LAUNCH}),
    # -- config switching limits off ----------------------------------------------------
    Attack("render-timeout-nan", {"s6/pyproject.toml": "[tool.pdlint]\nrender-timeout = nan\n", "s6/t.sh.j2": LAUNCH},
           {"s6/pyproject.toml": {"PD012"}}),
    Attack("render-timeout-inf", {"s7/pyproject.toml": "[tool.pdlint]\nrender-timeout = inf\n", "s7/t.sh.j2": LAUNCH},
           {"s7/pyproject.toml": {"PD012"}}),
    Attack("render-timeout-huge", {"s8/pyproject.toml": "[tool.pdlint]\nrender-timeout = 1e9\n",
                                   "s8/t.sh.j2": LAUNCH}, {"s8/pyproject.toml": {"PD012"}}),
    Attack("extend-ignore-string", {"s9/pyproject.toml": '[tool.pdlint]\nextend-ignore = "SGL"\n',
                                    "s9/t.sh": GOOD}, {"s9/pyproject.toml": {"PD012"}}),
    # -- output -------------------------------------------------------------------------
    Attack("forged-annotation-file-name", {"x\n::error file=forged.py,line=1::forged.sh": GOOD},
           formats=("text", "github", "json", "sarif", "gitlab", "junit"), leak=b"\n::error file=forged.py"),
    Attack("forged-annotation-token", {
        "tok.sh": "python3 -m sglang.launch_server --model-path /m --tp-size $'x\\n::error file=f::forged'\n"},
        formats=("text", "github"), leak=b"\n::error file=f::forged"),
    Attack("non-utf8-file-name", {os.fsdecode(b"bad-\xff.sh"): GOOD},
           formats=("json", "sarif", "text", "github", "gitlab", "junit")),
    # -- sandbox escapes that already held ----------------------------------------------
    Attack("jinja-class-mro", {"e1.sh.j2": "{{ ''.__class__.__mro__[1].__subclasses__() }}\n" + LAUNCH},
           {"e1.sh.j2": {"PD006"}}),
    Attack("jinja-cycler-globals", {"e2.sh.j2": "{{ cycler.__init__.__globals__.os.system('id') }}\n" + LAUNCH},
           {"e2.sh.j2": {"PD006"}}),
    Attack("jinja-lipsum-globals", {"e3.sh.j2": "{{ lipsum.__globals__['os'].popen('id').read() }}\n" + LAUNCH},
           {"e3.sh.j2": {"PD006"}}),
    # a private attribute is not an attribute in the sandbox: the expression is undefined
    Attack("jinja-template-reference-context", {"e4.sh.j2": "{{ self._TemplateReference__context }}\n" + LAUNCH},
           {"e4.sh.j2": {"PD005"}}),
    # -- binary and odd encodings ---------------------------------------------------------
    Attack("binary-file", {"bin.yaml": bytes(range(256)) * 4}, {"bin.yaml": {"PD002"}}),
    Attack("utf16-file", {"u16.yaml": "command: [python3, -m, sglang.launch_server]\n".encode("utf-16")},
           {"u16.yaml": {"PD002"}}, leak=b"NUL bytes"),
    Attack("nul-bytes", {"nul.sh": b"python3 -m sglang.launch_server\x00 --model-path m\n"}, {"nul.sh": {"PD002"}}),
]


def _write(root, files: dict) -> None:
    for rel, content in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, tuple) and content[0] == "symlink":
            os.symlink(content[1], path)
        elif isinstance(content, tuple) and content[0] == "fifo":
            os.mkfifo(path)
        else:
            with open(path, "wb") as f:
                f.write(content if isinstance(content, bytes) else content.encode("utf-8", "surrogateescape"))


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """A repository root with a good file and, beside it (outside the root), a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_bytes(b"token: " + SECRET + b"\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()  # the repository's root (files are walked: no git index)
    (root / GOOD_NAME).write_text(GOOD)
    monkeypatch.chdir(root)
    monkeypatch.delenv("PDLINT_NO_WORKER", raising=False)
    return root


def _run(capsys, fmt: str, *args) -> tuple:
    t0 = time.monotonic()
    code = main(["check", "--no-cache", "--format", fmt, *args, "."])
    elapsed = time.monotonic() - t0
    out = capsys.readouterr()
    return code, out.out, out.err, elapsed


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_is_bounded_and_the_good_file_still_reported(hostile, capsys, attack):
    _write(hostile, attack.files)
    for fmt in attack.formats:
        code, out, err, elapsed = _run(capsys, fmt, *attack.args)
        assert "Traceback" not in err and "internal error" not in err, err
        assert elapsed < BOUND_S, f"{attack.name}: {elapsed:.1f} s"
        assert code == 1, (attack.name, fmt, out[-2000:], err[-2000:])
        if attack.leak:
            assert attack.leak not in out.encode("utf-8", "surrogateescape"), (attack.name, fmt)
            assert attack.leak not in err.encode("utf-8", "surrogateescape"), (attack.name, fmt)
        if fmt in ("sarif", "gitlab"):
            json.loads(out)
        elif fmt == "junit":
            ET.fromstring(out.encode("utf-8"))
        if fmt != "json":
            continue
        doc = json.loads(out)
        found: dict = {}
        for f in doc["findings"]:
            found.setdefault(f["path"], set()).add(f["code"])
        assert "SGL005" in found.get(GOOD_NAME, set()), (attack.name, found)
        for path, codes in attack.codes.items():
            assert codes <= found.get(path, set()), (attack.name, path, found.get(path))


def test_show_leaks_nothing_of_an_outside_file(hostile, capsys):
    _write(hostile, {"leak.yaml": ("symlink", "../outside/secret.yaml"),
                     "v/pyproject.toml": '[tool.pdlint]\nvalues = ["../../outside/secret.yaml"]\n',
                     "v/t.sh.j2": LAUNCH})
    for fmt in ("text", "json"):
        main(["show", "--format", fmt, "."])
        out = capsys.readouterr()
        assert SECRET not in (out.out + out.err).encode("utf-8", "surrogateescape")


def test_every_attack_at_once_in_one_scan(tmp_path):
    """A hostile pull request holding every attack above, scanned as CI scans it (a
    subprocess: the whole run's peak memory is measured): exit 1, the good files'
    findings all reported, bounded time, peak memory under 1 GB."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_bytes(b"token: " + SECRET + b"\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    goods = []
    for i, attack in enumerate(ATTACKS):
        if attack.name == "fifty-megabyte-file":
            continue  # 50 MB of disk per run; its own test above covers it
        d = root / f"a{i:02d}"
        d.mkdir()
        _write(str(d), {k.replace("../outside/", "../../outside/"): (
            ("symlink", v[1].replace("../outside/", "../../outside/")) if isinstance(v, tuple) and v[0] == "symlink"
            else v.replace("../outside/", "../../outside/") if isinstance(v, str) else v)
            for k, v in attack.files.items()})
        (d / GOOD_NAME).write_text(GOOD)
        goods.append(f"a{i:02d}/{GOOD_NAME}")
    env = {k: v for k, v in os.environ.items() if k != "PDLINT_NO_WORKER"}
    out_path, err_path = tmp_path / "out.json", tmp_path / "err.txt"
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = subprocess.Popen([sys.executable, "-m", "pdlint", "check", "--no-cache", "--format", "json", "."],
                             cwd=root, stdout=out, stderr=err, env=env)
        # wait4 on this child: its rusage covers it and the scan worker it waits for
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - t0
    peak_kb = usage.ru_maxrss
    r = subprocess.CompletedProcess(p.args, p.returncode, out_path.read_bytes(), err_path.read_bytes())
    assert r.returncode == 1, r.stderr.decode(errors="replace")[-3000:]
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr, r.stderr[-3000:]
    assert SECRET not in r.stdout + r.stderr
    doc = json.loads(r.stdout)
    good_codes = {f["path"]: f["code"] for f in doc["findings"] if f["path"].endswith("/" + GOOD_NAME)}
    assert sorted(good_codes) == sorted(goods) and set(good_codes.values()) == {"SGL005"}
    assert elapsed < 600, elapsed
    assert peak_kb < 1024 * 1024, f"peak RSS {peak_kb // 1024} MB"
