"""``pdlint --fix`` / ``--diff``, through ``main``: every fix is checked by
re-linting the fixed tree (the finding is gone, nothing new appeared), a
second ``--fix`` changes nothing, and files change only with ``--fix``."""

import json
import os
import shutil
import textwrap

import pytest

from pdlint.cli import main
from pdlint.rules import all_rules

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "fixtures")
GOLDEN_DIFF = os.path.join(REPO, "tests", "data", "golden", "fixtures.diff")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / ".git").mkdir()  # the repository root: fixes stay inside it
    return tmp_path


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def put(repo, rel, text):
    p = repo / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


def codes(capsys, *args):
    code, out, _ = run(capsys, "--format", "json", *args)
    return code, sorted(f["code"] for f in json.loads(out)["findings"])


def changed_lines(before: str, after: str) -> tuple:
    import difflib
    minus, plus = [], []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith("-") and not line.startswith("---"):
            minus.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            plus.append(line[1:])
    return minus, plus


def fix_twice(capsys, *paths, extra=()):
    """--fix, then --fix again: the second run must find nothing to fix and change nothing."""
    first = run(capsys, "--fix", *extra, *paths)
    snapshot = {p: open(p).read() for p in paths if os.path.isfile(p)}
    second = run(capsys, "--fix", *extra, *paths)
    assert "Fixed 0 findings" in second[1], second
    assert {p: open(p).read() for p in snapshot} == snapshot
    return first


# -- the seed case: a decode-only flag in a YAML anchor shared by both roles ------------------------------

def test_seed_anchor_moves_the_flag_into_the_decode_container(repo, capsys):
    shutil.copy(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml"), repo / "pd.yaml")
    before = (repo / "pd.yaml").read_text()
    code, out, err = run(capsys, "--diff", "pd.yaml")
    assert code == 1
    assert (repo / "pd.yaml").read_text() == before, "--diff writes nothing"
    assert out.startswith("--- a/pd.yaml\n+++ b/pd.yaml\n")
    assert "Would fix 1 finding (0 remaining)." in err

    code, out, _ = fix_twice(capsys, "pd.yaml")
    assert code == 0, out
    assert "Fixed 1 finding (0 remaining)." in out
    after = (repo / "pd.yaml").read_text()
    minus, plus = changed_lines(before, after)
    # the diff touches only the moved flag: its anchor entry goes, the decode command gains it
    assert minus == ["  - --enable-linear-replayssm-spec   # decode-only: SGLang refuses it on a prefill server",
                     '              command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode, '
                     '--port, "30001"]']
    # the entry's comment goes with it, to the end of the flow list's line
    assert plus == ['              command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode, '
                    '--port, "30001", --enable-linear-replayssm-spec]  '
                    '# decode-only: SGLang refuses it on a prefill server']
    assert codes(capsys, "pd.yaml") == (0, [])
    # the decode launch still carries the flag, the prefill launch no longer does
    code, out, _ = run(capsys, "show", "--format", "json", "pd.yaml")
    argv = {l["role"]: l["argv"] for l in json.loads(out)["launches"]}
    assert "--enable-linear-replayssm-spec" in argv["decode"]
    assert "--enable-linear-replayssm-spec" not in argv["prefill"]


def test_an_anchor_another_object_also_uses_is_not_moved(repo, capsys):
    """Hostile-input test rw25/h item 1: a benchmark Job's `args: *sglang_args` (no server) lost the flag when
    `--fix` moved it out of the anchor into the decode containers; the fix is not made (the finding stays)."""
    seed = open(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml")).read()
    job = textwrap.dedent("""\
          - apiVersion: batch/v1
            kind: Job
            metadata: {name: bench}
            spec:
              template:
                spec:
                  containers:
                    - name: bench
                      image: busybox
                      command: [sh, -c, 'echo "$@"', --]
                      args: *sglang_args
        """)
    (repo / "pd.yaml").write_text(seed.rstrip("\n") + "\n" + textwrap.indent(job, "  "))
    before = (repo / "pd.yaml").read_text()
    code, out, _ = run(capsys, "--fix", "pd.yaml")
    assert "Fixed 0 findings (1 remaining)." in out and code == 1
    assert (repo / "pd.yaml").read_text() == before
    code, out, _ = run(capsys, "show", "--format", "json", "pd.yaml")
    assert sorted(l["role"] for l in json.loads(out)["launches"]) == ["decode", "prefill"]  # (the Job: none)


COMMENTED_ANCHOR = """\
    apiVersion: v1
    kind: List
    x-sglang-args: &sglang_args
      - --model-path
      - /models/Qwen3-8B
      - --enable-linear-replayssm-spec  # decode-only
      - --tp-size
      - "2"
    items:
      - apiVersion: apps/v1
        kind: Deployment
        metadata: {name: qwen-prefill}
        spec:
          template:
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
                  args: *sglang_args
      - apiVersion: apps/v1
        kind: Deployment
        metadata: {name: qwen-decode}
        spec:
          template:
            spec:
              containers:
                - name: sglang
                  image: lmsysorg/sglang:v0.5.23
                  DECODE_COMMAND
                  args: *sglang_args
    """


@pytest.mark.parametrize("decode_command, minus, plus", [
    # a block list: the comment ends the moved entry's new line
    ("command:\n                    - python3\n                    - -m\n                    - sglang.launch_server\n"
     "                    - --disaggregation-mode\n                    - decode   # the role",
     ["  - --enable-linear-replayssm-spec  # decode-only"],
     ["                - --enable-linear-replayssm-spec  # decode-only"]),
    # a flow list whose line has a comment of its own: the moved comment stays, on a line of its own
    ("command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode]  # decode",
     ["  - --enable-linear-replayssm-spec  # decode-only",
      "              command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode]  # decode"],
     ["  # decode-only",
      "              command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode, "
      "--enable-linear-replayssm-spec]  # decode"]),
])
def test_a_moved_entry_keeps_its_comment(repo, capsys, decode_command, minus, plus):
    p = put(repo, "pd.yaml", COMMENTED_ANCHOR.replace("DECODE_COMMAND", decode_command))
    before = p.read_text()
    code, out, _ = fix_twice(capsys, "pd.yaml")
    assert code == 0 and "Fixed 1 finding (0 remaining)." in out, out
    assert changed_lines(before, p.read_text()) == (minus, plus)
    assert codes(capsys, "pd.yaml") == (0, [])


def test_demo_diff_is_golden(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    before = {p: open(os.path.join(dp, p)).read() for dp, _, fs in os.walk("fixtures") for p in fs}
    code, out, err = run(capsys, "--diff", "fixtures")
    assert code == 1
    assert "Would fix 3 findings (2 remaining; 1 more with --unsafe-fixes)." in err
    if os.environ.get("PDLINT_UPDATE_GOLDEN"):
        with open(GOLDEN_DIFF, "w", encoding="utf-8") as f:
            f.write(out)
    with open(GOLDEN_DIFF, encoding="utf-8") as f:
        assert out == f.read()
    assert {p: open(os.path.join(dp, p)).read() for dp, _, fs in os.walk("fixtures") for p in fs} == before


def test_demo_fixed_relints_with_only_the_unfixable_findings(repo, capsys):
    shutil.copytree(FIXTURES, repo / "demo")
    code, out, _ = fix_twice(capsys, "demo")
    assert code == 1
    assert "Fixed 3 findings (2 remaining; 1 more fixable with --unsafe-fixes)." in out
    # left: the decode-only flag in the prefill-only config file (nothing shared to move) and the
    # HiCache flag whose move is unsafe (decode could keep it with the decode radix cache instead)
    assert codes(capsys, "demo") == (1, ["SGL102", "SGL107"])
    code, out, _ = run(capsys, "--fix", "--unsafe-fixes", "demo")
    assert "Fixed 1 finding (1 remaining)." in out
    assert codes(capsys, "demo") == (1, ["SGL107"])
    # the prefill branch's last value comes from the values file, so the flag gets a prefill branch of its own
    assert ('            - {{ role }}\n{% if role == "prefill" %}\n            - --enable-hierarchical-cache\n'
            '{% endif %}\n') in (repo / "demo/templates/pd.yaml.j2").read_text()


def test_files_change_only_with_fix(repo, capsys):
    p = shutil.copy(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml"), repo / "pd.yaml")
    st = os.stat(p)
    data = open(p, "rb").read()
    for args in ([], ["--diff"], ["--format", "json"], ["--diff", "--unsafe-fixes"], ["--strict"]):
        run(capsys, *args, "pd.yaml")
    assert open(p, "rb").read() == data and os.stat(p).st_mtime_ns == st.st_mtime_ns
    run(capsys, "show", "pd.yaml")
    assert open(p, "rb").read() == data


def test_diff_exit_codes(repo, capsys):
    put(repo, "clean.yaml", """\
        containers:
          - name: p
            command: [python3, -m, sglang.launch_server]
            args: [--model-path, /m, --disaggregation-mode, prefill]
        """)
    code, out, err = run(capsys, "--diff", "clean.yaml")
    assert (code, out) == (0, "")
    assert "No fixes available (0 findings)." in err
    put(repo, "bad.yaml", """\
        containers:
          - name: p
            command: [python3, -m, sglang.launch_server]
            args: [--model-path, /m, --disaggregation-mode, prefill, --enable-linear-replayssm-spec]
        """)
    code, out, err = run(capsys, "--diff", "bad.yaml")  # a finding, but nothing to fix
    assert (code, out) == (0, "")
    assert "No fixes available (1 finding)." in err


# -- moves: YAML -----------------------------------------------------------------------------------------

TWO_CONTAINERS = """\
    prefill:
      containers:
        - name: p
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
          args: *common
    decode:
      containers:
        - name: d
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode]
          args: *common
    """


def test_flow_anchor(repo, capsys):
    p = put(repo, "pd.yaml", "common: &common [--model-path, /m, --disaggregation-decode-enable-offload-kvcache, "
                             "--hicache-storage-backend, file]\n" + textwrap.dedent(TWO_CONTAINERS))
    fix_twice(capsys, "pd.yaml")
    text = p.read_text()
    assert text.startswith("common: &common [--model-path, /m, --hicache-storage-backend, file]\n")
    assert ("command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode, "
            "--disaggregation-decode-enable-offload-kvcache]") in text
    assert codes(capsys, "pd.yaml") == (0, [])


def test_flag_with_its_value_moves_together(repo, capsys):
    p = put(repo, "pd.yaml", textwrap.dedent("""\
        common: &common
          - --model-path
          - /m
          - --disaggregation-decode-retraction-backup
          - host_pool
          - --tp-size
          - "2"
        """) + textwrap.dedent(TWO_CONTAINERS).replace("decode]\n", "decode, --port, \"30001\"]\n"))
    before = p.read_text()
    fix_twice(capsys, "pd.yaml")
    minus, plus = changed_lines(before, p.read_text())
    assert minus[:2] == ["  - --disaggregation-decode-retraction-backup", "  - host_pool"]
    assert plus == ['      command: [python3, -m, sglang.launch_server, --disaggregation-mode, decode, --port, '
                    '"30001", --disaggregation-decode-retraction-backup, host_pool]']
    assert codes(capsys, "pd.yaml") == (0, [])


def test_block_entries_added_after_the_last_own_flag(repo, capsys):
    p = put(repo, "pd.yaml", """\
        x-args: &args
          - --model-path
          - /m
          - --enable-linear-replayssm-spec
        containers:
          - name: p
            command: [python3, -m, sglang.launch_server, --disaggregation-mode, prefill]
            args: *args
          - name: d
            command:
              - python3
              - -m
              - sglang.launch_server
              - --disaggregation-mode
              - decode   # the decode role
              - --port
              - '30001'
            args: *args
        """)
    before = p.read_text()
    fix_twice(capsys, "pd.yaml")
    minus, plus = changed_lines(before, p.read_text())
    assert minus == ["  - --enable-linear-replayssm-spec"]
    assert plus == ["      - --enable-linear-replayssm-spec"]
    assert "      - '30001'\n      - --enable-linear-replayssm-spec\n    args: *args" in p.read_text()
    assert codes(capsys, "pd.yaml") == (0, [])


def test_flag_written_for_one_role_only_is_left(repo, capsys):
    """Nothing shared: the decode-only flag is on the prefill launch alone; removing it is for a human."""
    p = put(repo, "pd.yaml", """\
        containers:
          - name: p
            command: [python3, -m, sglang.launch_server]
            args: [--model-path, /m, --disaggregation-mode, prefill, --enable-linear-replayssm-spec]
        """)
    before = p.read_text()
    assert codes(capsys, "pd.yaml") == (1, ["SGL101"])
    assert run(capsys, "--fix", "pd.yaml")[0] == 1 and p.read_text() == before


def test_sole_entry_is_not_removed(repo, capsys):
    """Removing the only entry would turn the shared list into null: no fix."""
    p = put(repo, "pd.yaml", "common: &common\n  - --enable-linear-replayssm-spec\n" + textwrap.dedent(
        TWO_CONTAINERS).replace("prefill]", "prefill, --model-path, /m]").replace("decode]", "decode, --model-path, "
                                                                                  "/m]"))
    before = p.read_text()
    assert "SGL101" in codes(capsys, "pd.yaml")[1]
    code, out, err = run(capsys, "--diff", "pd.yaml")
    assert (code, out) == (0, "")
    assert run(capsys, "--fix", "pd.yaml")[0] == 1 and p.read_text() == before


def test_keeping_launch_that_writes_the_flag_again_is_left_alone(repo, capsys):
    p = put(repo, "pd.yaml", "common: &common [--model-path, /m, --dwdp-size, '2', --tp-size, '2']\n" +
            textwrap.dedent(TWO_CONTAINERS).replace("prefill]", "prefill, --dwdp-size, '2']"))
    before = p.read_text()
    assert "SGL127" in codes(capsys, "pd.yaml")[1]
    run(capsys, "--fix", "pd.yaml")
    assert p.read_text() == before


DYNAMO_PODS = """\
x-args: &common
  - --namespace
  - dyn
  - --model-path
  - /m
  - --disaggregation-decode-retraction-backup
  - host_pool
  - --dyn-reasoning-parser
  - qwen3
items:
""" + "".join(f"""\
  - kind: Pod
    metadata: {{name: {role}}}
    spec:
      containers:
        - name: s
          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.6.1
          command: [python3, -m, dynamo.sglang, --disaggregation-mode, {role}, --endpoint, dyn://dyn.{role}.generate]
          args: *common
""" for role in ("prefill", "decode"))


def test_dynamo_sglang_launches_get_the_move(repo, capsys):
    """``python -m dynamo.sglang``: the groups are the flags SGLang's parser sees, so Dynamo's own flags
    (``--namespace dyn``, ``--endpoint URL``, ``--dyn-reasoning-parser qwen3``) stay where they are and the
    moved flag goes after the decode part's last server flag, not between ``--endpoint`` and its value (the
    finding promised the move, the planner offered none for any wrapper). Found by a real-file --fix round."""
    p = put(repo, "pods.yaml", DYNAMO_PODS)
    before = p.read_text()
    assert codes(capsys, "pods.yaml") == (1, ["SGL105"])
    code, out, _ = fix_twice(capsys, "pods.yaml")
    assert "Fixed 1 finding (0 remaining)." in out
    minus, plus = changed_lines(before, p.read_text())
    assert minus == ["  - --disaggregation-decode-retraction-backup", "  - host_pool",
                     "          command: [python3, -m, dynamo.sglang, --disaggregation-mode, decode, --endpoint, "
                     "dyn://dyn.decode.generate]"]
    assert plus == ["          command: [python3, -m, dynamo.sglang, --disaggregation-mode, decode, "
                    "--disaggregation-decode-retraction-backup, host_pool, --endpoint, dyn://dyn.decode.generate]"]
    assert codes(capsys, "pods.yaml") == (0, [])


# -- moves: shell ------------------------------------------------------------------------------------------

def test_shell_variable(repo, capsys):
    shutil.copy(os.path.join(FIXTURES, "scripts", "launch_pd.sh"), repo / "launch.sh")
    before = (repo / "launch.sh").read_text()
    fix_twice(capsys, "launch.sh")
    minus, plus = changed_lines(before, (repo / "launch.sh").read_text())
    assert minus == ['COMMON_ARGS="--model-path $MODEL --tp-size 2 --disaggregation-decode-enable-offload-kvcache"',
                     "  --disaggregation-mode decode --port 30001 --hicache-storage-backend file &"]
    assert plus == ['COMMON_ARGS="--model-path $MODEL --tp-size 2"',
                    "  --disaggregation-mode decode --port 30001 --hicache-storage-backend file "
                    "--disaggregation-decode-enable-offload-kvcache &"]
    assert codes(capsys, "launch.sh") == (0, [])


def test_shell_continuation_line(repo, capsys):
    p = put(repo, "launch.sh", """\
        #!/bin/bash
        run() {
          python3 -m sglang.launch_server --model-path /m \\
            --enable-kv-cache-sharding \\
            "$@"
        }
        run --disaggregation-mode prefill --port 30000 &
        run --disaggregation-mode decode --port 30001 &
        """)
    assert "SGL126" in codes(capsys, "launch.sh")[1]
    fix_twice(capsys, "launch.sh")
    text = p.read_text()
    assert "python3 -m sglang.launch_server --model-path /m \\\n    \"$@\"\n}" in text
    assert "run --disaggregation-mode prefill --port 30000 --enable-kv-cache-sharding &" in text
    assert "SGL126" not in codes(capsys, "launch.sh")[1]


def test_shell_word_on_its_own_line_takes_the_line_with_it(repo, capsys):
    p = put(repo, "launch.sh", """\
        #!/bin/bash
        COMMON="--model-path /m
          --enable-linear-replayssm-spec
          --tp-size 2"
        python3 -m sglang.launch_server $COMMON --disaggregation-mode prefill --port 30000 &
        python3 -m sglang.launch_server $COMMON --disaggregation-mode decode --port 30001 &
        """)
    fix_twice(capsys, "launch.sh")
    text = p.read_text()
    assert 'COMMON="--model-path /m\n  --tp-size 2"\n' in text
    assert "--disaggregation-mode decode --port 30001 --enable-linear-replayssm-spec &" in text
    assert "SGL101" not in codes(capsys, "launch.sh")[1]


@pytest.mark.parametrize("port", ["${PREFILL_PORT:-31000}", "31000"])
def test_shell_keeping_flag_whose_value_is_a_variable(repo, capsys, port):
    """The prefill part's last flag takes its value from a variable (``--port "${PREFILL_PORT}"``): that
    value is written where the variable is set, so the flag goes after the last flag written whole in the
    prefill part, never into the variable (``PREFILL_PORT=31000 --enable-kv-cache-sharding`` would run a
    command) nor between ``--port`` and its value. Found by a real-file --fix round."""
    p = put(repo, "run.sh", """\
        #!/usr/bin/env bash
        PREFILL_PORT=PORT
        common_args=(
          --model-path /m
          --enable-kv-cache-sharding
        )
        prefill_args=(
          "${common_args[@]}"
          --disaggregation-mode prefill
          --port "${PREFILL_PORT}"
        )
        decode_args=(
          "${common_args[@]}"
          --disaggregation-mode decode
          --port 32000
        )
        CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server "${prefill_args[@]}" &
        CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server "${decode_args[@]}" &
        wait
        """.replace("PORT\n", port + "\n", 1))
    before = p.read_text()
    assert "SGL126" in codes(capsys, "run.sh")[1]
    fix_twice(capsys, "run.sh")
    minus, plus = changed_lines(before, p.read_text())
    assert minus == ["  --enable-kv-cache-sharding", "  --disaggregation-mode prefill"]
    assert plus == ["  --disaggregation-mode prefill --enable-kv-cache-sharding"]
    assert "SGL126" not in codes(capsys, "run.sh")[1]
    code, out, _ = run(capsys, "show", "--format", "json", "run.sh")
    argv = {l["role"]: l["argv"] for l in json.loads(out)["launches"]}
    assert "--enable-kv-cache-sharding" in argv["prefill"] and "--enable-kv-cache-sharding" not in argv["decode"]
    assert argv["prefill"][argv["prefill"].index("--port") + 1] == "31000"


# -- moves: Jinja -------------------------------------------------------------------------------------------

def test_jinja_set_list_is_an_unsafe_move_into_the_prefill_branch(repo, capsys):
    shutil.copy(os.path.join(FIXTURES, "templates", "pd.yaml.j2"), repo / "pd.yaml.j2")
    before = (repo / "pd.yaml.j2").read_text()
    args = ("--var", "image=x", "--var", "tp=2", "--var", "port=1", "--var", "bootstrap_port=2",
            "--var", "model_path=/m")
    code, out, err = run(capsys, "--fix", *args, "pd.yaml.j2")
    assert "Fixed 0 findings (1 remaining; 1 more fixable with --unsafe-fixes)." in out
    assert (repo / "pd.yaml.j2").read_text() == before
    fix_twice(capsys, "pd.yaml.j2", extra=("--unsafe-fixes",) + args)
    minus, plus = changed_lines(before, (repo / "pd.yaml.j2").read_text())
    assert minus == ['{% set shared_flags = ["--enable-hierarchical-cache", "--page-size", "64"] %}']
    assert plus == ['{% set shared_flags = ["--page-size", "64"] %}', "            - --enable-hierarchical-cache"]
    assert codes(capsys, *args, "pd.yaml.j2") == (0, [])


def test_jinja_template_without_a_role_branch_gets_one(repo, capsys):
    p = put(repo, "launch.sh.j2", """\
        #!/usr/bin/env bash
        {% set common = "--model-path /m --tp-size 2 --enable-linear-replayssm-spec" %}
        exec python3 -m sglang.launch_server {{ common }} \\
          --disaggregation-mode {{ role }} \\
          --port {{ port }}
        """)
    fix_twice(capsys, "launch.sh.j2", extra=("--var", "port=1"))
    assert p.read_text() == textwrap.dedent("""\
        #!/usr/bin/env bash
        {% set common = "--model-path /m --tp-size 2" %}
        exec python3 -m sglang.launch_server {{ common }} \\
          --disaggregation-mode {{ role }} \\
          --port {{ port }}{% if role == "decode" %} --enable-linear-replayssm-spec{% endif %}
        """)
    assert codes(capsys, "--var", "port=1", "launch.sh.j2") == (0, [])
    code, out, _ = run(capsys, "show", "--format", "json", "--var", "port=1", "launch.sh.j2")
    argv = {l["role"]: l["argv"] for l in json.loads(out)["launches"]}
    assert argv["decode"][-1] == "--enable-linear-replayssm-spec"
    assert "--enable-linear-replayssm-spec" not in argv["prefill"]


def yaml_template(flags: str, tail: str) -> str:
    return textwrap.dedent("""\
        {% set flags = [FLAGS] %}
        containers:
          - name: sglang
            command: [python3, -m, sglang.launch_server]
            args:
              - --disaggregation-mode
              - {{ role }}
        {% for f in flags %}
              - "{{ f }}"
        {% endfor %}
        """.rstrip(" ") + tail).replace("FLAGS", flags)


def test_jinja_yaml_template_branch_and_existing_branch(repo, capsys):
    p = repo / "pd.yaml.j2"
    p.write_text(yaml_template('"--model-path", "/m", "--disaggregation-decode-enable-offload-kvcache", '
                               '"--hicache-storage-backend", "file"', """\
              - --port
              - "30000"
        """))
    fix_twice(capsys, "pd.yaml.j2")
    text = p.read_text()
    assert text.endswith('      - "30000"\n{% if role == "decode" %}\n'
                         "      - --disaggregation-decode-enable-offload-kvcache\n{% endif %}\n")
    assert '{% set flags = ["--model-path", "/m", "--hicache-storage-backend", "file"] %}' in text
    assert codes(capsys, "pd.yaml.j2") == (0, [])
    # with a decode branch already there, the flag goes into it
    p.write_text(yaml_template('"--model-path", "/m", "--enable-linear-replayssm-spec"', """\
        {% if role == "decode" %}
              - --port
              - "30001"
        {% endif %}
        """))
    fix_twice(capsys, "pd.yaml.j2")
    assert '      - "30001"\n      - --enable-linear-replayssm-spec\n{% endif %}\n' in p.read_text()
    assert codes(capsys, "pd.yaml.j2") == (0, [])


def test_jinja_include_partial(repo, capsys):
    (repo / "partials").mkdir()
    (repo / "partials/flags.j2").write_text('      - "--model-path"\n      - "/m"\n'
                                            '      - "--enable-linear-replayssm-spec"\n')
    put(repo, "pd.yaml.j2", """\
        containers:
          - name: sglang
            command: ["python3", "-m", "sglang.launch_server"]
            args:
        {% include "partials/flags.j2" %}
              - "--disaggregation-mode"
              - "{{ role }}"
        {% if role == "decode" %}
              - "--port"
              - "30001"
        {% endif %}
        """)
    fix_twice(capsys, "pd.yaml.j2")
    assert "replayssm" not in (repo / "partials/flags.j2").read_text()
    assert '      - "30001"\n      - --enable-linear-replayssm-spec\n' in (repo / "pd.yaml.j2").read_text()
    assert codes(capsys, "pd.yaml.j2") == (0, [])


# -- every rule that declares a move fix: fixed from its own example -------------------------------------

MOVE_RULES = sorted(r.code for r in all_rules().values() if r.autofix is not None and r.autofix.kind == "move")


@pytest.mark.parametrize("code", MOVE_RULES)
def test_every_move_rule_is_fixed_from_its_example(repo, capsys, code):
    """The rule's first firing example, its flags shared through an anchor by its failing role and a role
    its quiet examples accept: --fix (with --unsafe-fixes for unsafe ones) moves the blamed flag and the
    rule no longer fires."""
    import shlex
    rule = all_rules()[code]
    fire = next(e for e in rule.examples if e.fires and "--disaggregation-mode" in e.argv and not e.env)
    words = shlex.split(fire.argv)
    i = words.index("--disaggregation-mode")
    failing = words[i + 1]
    shared = words[:i] + words[i + 2:]
    keeping = next(r for r in ("prefill", "decode") if r != failing)
    items = "".join(f"  - {json.dumps(w)}\n" for w in ["--model-path", "/m"] + shared)
    p = put(repo, "pd.yaml", "common: &common\n" + items + textwrap.dedent(TWO_CONTAINERS))
    assert code in codes(capsys, "pd.yaml")[1]
    extra = () if rule.autofix.applicability == "safe" else ("--unsafe-fixes",)
    fix_twice(capsys, "pd.yaml", extra=extra)
    assert code not in codes(capsys, "pd.yaml")[1]
    code_, out, _ = run(capsys, "show", "--format", "json", "pd.yaml")
    launches = {l["role"]: l["argv"] for l in json.loads(out)["launches"]}
    moved = [w for w in shared if w not in launches[failing]]
    assert moved and all(w in launches[keeping] for w in moved), (launches, p.read_text())


# -- replacements ---------------------------------------------------------------------------------------------

def test_typo_with_one_close_flag(repo, capsys):
    p = put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --disagregation-mode prefill "
                            "--tp_size 2\n")
    fix_twice(capsys, "run.sh")
    assert p.read_text() == "python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill " \
                            "--tp-size 2\n"
    assert codes(capsys, "run.sh") == (0, [])


def test_typo_with_two_close_flags_is_left(repo, capsys):
    p = put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --tp-sizes 2\n")
    before = p.read_text()
    assert codes(capsys, "run.sh")[1] == ["SGL001"]
    run(capsys, "--fix", "run.sh")
    # --tp-sizes is one edit from --tp-size and two from --pp-size, --dp-size, --ep-size ...: no single answer
    assert p.read_text() == before


def test_config_key_with_underscores(repo, capsys):
    shutil.copytree(os.path.join(FIXTURES, "sglang"), repo / "sglang")
    before = (repo / "sglang/prefill.yaml").read_text()
    fix_twice(capsys, "sglang")
    minus, plus = changed_lines(before, (repo / "sglang/prefill.yaml").read_text())
    assert [m.split("#")[0].rstrip() for m in minus] == ["tp_size: 2"]
    assert [m.split("#")[0].rstrip() for m in plus] == ["tp-size: 2"]
    assert "SGL020" not in codes(capsys, "sglang")[1]


def test_deprecated_flag_with_two_replacements(repo, capsys):
    p = put(repo, "pd.yaml", """\
        containers:
          - name: x
            image: lmsysorg/sglang:v0.5.23
            command: [python3, -m, sglang.launch_server]
            args:
              - --model-path
              - /m
              - --disable-cuda-graph   # old spelling
        """)
    fix_twice(capsys, "pd.yaml")
    assert p.read_text().endswith("      - --cuda-graph-backend-decode=disabled   # old spelling\n"
                                  "      - --cuda-graph-backend-prefill=disabled\n")
    assert codes(capsys, "pd.yaml") == (0, [])
    s = put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --disable-cuda-graph --port 1\n")
    # no release pinned: the replacement may be missing from the release that runs (field test rw19/c), so the
    # fix is unsafe - applied with --unsafe-fixes only
    fix_twice(capsys, "run.sh")
    assert "--disable-cuda-graph" in s.read_text()
    fix_twice(capsys, "run.sh", extra=("--unsafe-fixes",))
    assert s.read_text() == ("python3 -m sglang.launch_server --model-path /m --cuda-graph-backend-decode=disabled "
                             "--cuda-graph-backend-prefill=disabled --port 1\n")
    s.write_text("python3 -m sglang.launch_server --model-path /m --disable-cuda-graph --port 1\n")
    fix_twice(capsys, "run.sh", extra=("--sglang-version", "0.5.23"))  # pinned: safe
    assert "--cuda-graph-backend-decode=disabled" in s.read_text()


@pytest.mark.parametrize("where", ["middle", "last"])
def test_deprecated_flag_with_two_replacements_ending_its_block_line(repo, capsys, where):
    """``- --disable-cuda-graph`` with nothing after it on its line: the replaced characters end where the new
    entry's line starts, one edit (two touching edits were refused as overlapping: 'No fixes available').
    The new entry gets its own ``- `` line at the list's indentation; comments stay. Found by a real-file
    --fix round."""
    entries = ["python3", "-m", "sglang.launch_server", "--model-path", "/m", "--disable-cuda-graph",
               "--disaggregation-mode   # the role", "decode"]
    if where == "last":
        entries.append(entries.pop(5))
    p = put(repo, "pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: decode}
        spec:
          containers:
            - name: s
              image: lmsysorg/sglang:v0.5.23
              command:   # the server\n""" + "".join(f"                - {e}\n" for e in entries))
    before = p.read_text()
    assert codes(capsys, "pod.yaml")[1] == ["SGL008"]
    code, out, _ = fix_twice(capsys, "pod.yaml")
    assert "Fixed 1 finding (0 remaining)." in out
    after = p.read_text()
    assert after == before.replace("        - --disable-cuda-graph\n", "        - --cuda-graph-backend-decode=disabled\n"
                                   "        - --cuda-graph-backend-prefill=disabled\n")
    assert "command:   # the server\n" in after and "- --disaggregation-mode   # the role\n" in after
    assert codes(capsys, "pod.yaml") == (0, [])


def test_renamed_flag(repo, capsys):
    """--cuda-graph-max-bs was a deprecated alias of --cuda-graph-max-bs-decode (0.5.15); 0.5.23 dropped it."""
    p = put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --cuda-graph-max-bs 8 "
                            "--cuda-graph-bs=4\n")
    assert codes(capsys, "--sglang-version", "0.5.23", "run.sh")[1] == ["SGL009", "SGL009"]  # removed, not ambiguous
    fix_twice(capsys, "run.sh", extra=("--sglang-version", "0.5.23"))
    assert p.read_text() == ("python3 -m sglang.launch_server --model-path /m --cuda-graph-max-bs-decode 8 "
                             "--cuda-graph-bs-decode=4\n")


def test_a_fix_that_would_add_a_finding_is_not_applied(repo, capsys):
    """--tp-sizee -> --tp-size would repeat the --tp-size written after it (SGL007): the re-lint refutes the
    fix and the file stays as it is."""
    p = put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --tp-sizee 2 --tp-size 4\n")
    before = p.read_text()
    assert codes(capsys, "run.sh")[1] == ["SGL001"]
    code, out, err = run(capsys, "--fix", "run.sh")
    assert p.read_text() == before
    assert "Fixed 0 findings (1 remaining)." in out


def test_fixes_of_one_pass_that_conflict_are_checked_one_by_one(repo, capsys):
    """In 0.5.21 --disable-cuda-graph is deprecated (-> both cuda-graph backends disabled) and
    --disable-piecewise-cuda-graph is gone (0.5.15 named --cuda-graph-backend-prefill=disabled): each fix
    holds alone, together they write the prefill backend twice; the first is kept, the second refuted."""
    p = put(repo, "run.sh", "python3 -m sglang.launch_server --model-path /m --disable-cuda-graph "
                            "--disable-piecewise-cuda-graph\n")
    assert codes(capsys, "--sglang-version", "0.5.21", "run.sh")[1] == ["SGL008", "SGL009"]
    fix_twice(capsys, "run.sh", extra=("--sglang-version", "0.5.21"))
    assert p.read_text() == ("python3 -m sglang.launch_server --model-path /m --cuda-graph-backend-decode=disabled "
                             "--cuda-graph-backend-prefill=disabled --disable-piecewise-cuda-graph\n")
    assert codes(capsys, "--sglang-version", "0.5.21", "run.sh")[1] == ["SGL009"]


# -- safety ----------------------------------------------------------------------------------------------------

def test_never_through_a_symlink(repo, capsys):
    shutil.copy(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml"), repo / "real.yaml")
    os.symlink("real.yaml", repo / "link.yaml")
    before = (repo / "real.yaml").read_text()
    code, out, err = run(capsys, "--fix", "link.yaml")
    assert (repo / "real.yaml").read_text() == before and os.path.islink(repo / "link.yaml")
    assert "link.yaml: not fixed: it is reached through a symbolic link" in err
    (repo / "dir").mkdir()
    shutil.copy(repo / "real.yaml", repo / "dir" / "pd.yaml")
    os.symlink("dir", repo / "dirlink")
    run(capsys, "--fix", "dirlink/pd.yaml")
    assert (repo / "dir" / "pd.yaml").read_text() == before


def test_never_outside_the_repository(tmp_path, monkeypatch, capsys):
    inside = tmp_path / "repo"
    (inside / ".git").mkdir(parents=True)
    outside = tmp_path / "elsewhere.yaml"
    shutil.copy(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml"), outside)
    before = outside.read_text()
    monkeypatch.chdir(inside)
    code, out, err = run(capsys, "--fix", str(outside))
    assert outside.read_text() == before
    assert "it is outside the repository" in err


def test_never_a_file_changed_since_it_was_read(repo, capsys, monkeypatch):
    from pdlint import fix
    p = shutil.copy(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml"), repo / "pd.yaml")
    real_write = fix.write

    def racing_write(state, cwd):
        with open(p, "a") as f:
            f.write("# edited meanwhile\n")
        return real_write(state, cwd)

    monkeypatch.setattr(fix, "write", racing_write)
    code, out, err = run(capsys, "--fix", "pd.yaml")
    assert "pd.yaml: not fixed: it changed since pdlint read it" in err
    assert open(p).read().endswith("# edited meanwhile\n") and "replayssm-spec   # decode-only" in open(p).read()
    assert code == 1
    assert "Fixed 0 findings (1 remaining)." in out


def test_line_ends_bom_and_mode_are_kept(repo, capsys):
    src = open(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml")).read()
    p = repo / "pd.yaml"
    p.write_bytes(("\ufeff" + src).replace("\n", "\r\n").encode())
    os.chmod(p, 0o640)
    assert run(capsys, "--fix", "pd.yaml")[0] == 0
    data = p.read_bytes()
    assert data.startswith("\ufeff".encode()) and data.count(b"\r\n") == data.count(b"\n")
    assert b"replayssm-spec   # decode-only" not in data
    assert (os.stat(p).st_mode & 0o777) == 0o640
    assert not [f for f in os.listdir(repo) if f.startswith(".pdlint-fix-")]


def _git_apply(patch: str, files: dict, where) -> dict:
    """``git apply`` the patch to a copy of ``files`` (name -> bytes): name -> bytes afterwards."""
    import subprocess
    where.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=where, check=True)
    for name, data in files.items():
        (where / name).write_bytes(data)
    (where / "fix.diff").write_text(patch, newline="")
    subprocess.run(["git", "apply", "fix.diff"], cwd=where, check=True, capture_output=True)
    return {name: (where / name).read_bytes() for name in files}


PODS_SHARING_ONE_LIST = """\
x-args: &common
  - --model-path
  - /m
  - --disaggregation-decode-enable-offload-kvcache
  - --hicache-storage-backend
  - file
items:
""" + "".join(f"""\
  - apiVersion: v1
    kind: Pod
    metadata: {{name: {role}}}
    spec:
      containers:
        - name: s
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --disaggregation-mode, {role}]
          args: *common
""" for role in ("prefill", "decode"))


@pytest.mark.parametrize("bom, eol", [(True, "\r\n"), (False, "\r\n"), (True, "\n")])
def test_the_diff_applies_to_the_file_as_it_is_on_disk(repo, capsys, tmp_path_factory, bom, eol):
    # --diff prints the file's own bytes (BOM, CRLF), so git apply takes it and gives what --fix writes
    data = (("\ufeff" if bom else "") + PODS_SHARING_ONE_LIST.replace("\n", eol)).encode()
    p = repo / "pd.yaml"
    p.write_bytes(data)
    code, out, _ = run(capsys, "--diff", "pd.yaml")
    assert code == 1 and out.startswith("--- a/pd.yaml\n+++ b/pd.yaml\n@@ -1,")  # the hunk holds line 1
    assert ("\r\n" in out) == (eol == "\r\n") and ("\ufeffx-args: &common" in out) == bom
    assert p.read_bytes() == data  # --diff writes nothing
    applied = _git_apply(out, {"pd.yaml": data}, tmp_path_factory.mktemp("apply") / "w")["pd.yaml"]
    assert run(capsys, "--fix", "pd.yaml")[0] == 0
    assert applied == p.read_bytes() != data


def test_the_diff_of_a_line_holding_a_form_feed_applies(repo, capsys, tmp_path_factory):
    # str.splitlines would end a line at the form feed; a patch line must end at the line end
    p = put(repo, "launch.sh", """\
        #!/bin/bash
        # page one\x0cpage two
        CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --model-path /m --disaggregation-mode prefill \\
            --port 30000 --mem-fraction-statc 0.8 &
        CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --model-path /m --disaggregation-mode decode \\
            --port 30001 &
        """)
    data = p.read_bytes()
    code, out, _ = run(capsys, "--diff", "launch.sh")
    assert code == 1 and "+    --port 30000 --mem-fraction-static 0.8 &" in out and " # page one\x0cpage two\n" in out
    applied = _git_apply(out, {"launch.sh": data}, tmp_path_factory.mktemp("apply") / "w")["launch.sh"]
    assert run(capsys, "--fix", "launch.sh")[0] == 0
    assert applied == p.read_bytes() != data and b"--mem-fraction-static 0.8" in applied


def test_a_file_mixing_line_ends_is_neither_shown_fixed_nor_reported_fixed(repo, capsys):
    # refused before the fix is applied, so --diff and --fix agree and the report is the file on disk
    src = open(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml")).read()
    lines = src.split("\n")
    lines[1] += "\r"
    data = "\n".join(lines).encode()
    p = repo / "pd.yaml"
    p.write_bytes(data)
    for flag in ("--diff", "--fix"):
        code, out, err = run(capsys, flag, "pd.yaml")
        assert "pd.yaml: not fixed: it mixes line endings" in err
        assert "+  " not in out and p.read_bytes() == data
    assert code == 1 and "SGL101" in out and "Fixed 0 findings (1 remaining)." in out


def test_output_formats_and_exit_codes(repo, capsys):
    shutil.copy(os.path.join(FIXTURES, "k8s", "shared-anchor.yaml"), repo / "pd.yaml")
    shutil.copy(repo / "pd.yaml", repo / "orig.yaml")
    code, out, err = run(capsys, "--fix", "--format", "json", "pd.yaml")
    assert code == 0 and json.loads(out)["findings"] == []
    assert "Fixed 1 finding (0 remaining)." in err
    shutil.copy(repo / "orig.yaml", repo / "pd.yaml")
    assert run(capsys, "--fix", "--exit-non-zero-on-fix", "pd.yaml")[0] == 1
    assert run(capsys, "--fix", "--exit-non-zero-on-fix", "pd.yaml")[0] == 0  # nothing left to fix
    shutil.copy(repo / "orig.yaml", repo / "pd.yaml")
    assert run(capsys, "--fix", "--exit-zero", "--exit-non-zero-on-fix", "pd.yaml")[0] == 0
    # --diff wins over --fix: nothing written
    shutil.copy(repo / "orig.yaml", repo / "pd.yaml")
    assert run(capsys, "--fix", "--diff", "pd.yaml")[0] == 1
    assert (repo / "pd.yaml").read_text() == (repo / "orig.yaml").read_text()


def test_diff_applies_with_git_apply(repo, capsys):
    import subprocess
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    shutil.copytree(FIXTURES, repo / "demo")
    code, diff, _ = run(capsys, "--diff", "demo")
    shutil.rmtree(repo / ".git")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    r = subprocess.run(["git", "apply", "-"], cwd=repo, input=diff, text=True, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert run(capsys, "--diff", "demo")[1] == ""


def test_a_role_is_kept_only_where_no_role_rule_refuses_the_flag(repo, capsys):
    # SGL106: the threshold is decode-only (prefill refuses it); SGL187: this decode's transfer backend cannot
    # take it - a setting to change on decode, not a reason to keep the flag on prefill
    put(repo, "run.sh", """\
        #!/usr/bin/env bash
        COMMON="--model-path /m --disaggregation-decode-host-receive-threshold 0.5"
        CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server $COMMON --disaggregation-mode prefill --port 30000 &
        CUDA_VISIBLE_DEVICES=1 python3 -m sglang.launch_server $COMMON --disaggregation-mode decode --port 30001 &
        wait
        """)
    code, out, _ = run(capsys, "--format", "json", "run.sh")
    msgs = {f["code"]: f["message"] for f in json.loads(out)["findings"]}
    assert sorted(msgs) == ["SGL106", "SGL187"]
    assert "it fails on decode; no role that reaches it accepts it; on prefill SGL106 refuses it" in msgs["SGL187"]
    assert "keep it only for prefill" not in msgs["SGL187"]
    assert "it fails on prefill; keep it only for decode" in msgs["SGL106"]
    fix_twice(capsys, "run.sh")
    code, out, _ = run(capsys, "--format", "json", "run.sh")
    left = json.loads(out)["findings"]
    assert [(f["code"], f["line"]) for f in left] == [("SGL187", 4)]  # moved to decode, where it is decode's own
    assert "shared" not in left[0]["message"]
