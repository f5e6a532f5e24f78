"""``--fix`` moves a role-only flag out of a shared part only when every reader of that part is a launch it re-adds
the flag to (``fix.Planner._every_reader_reached``).

Hostile-input test rw26/h item 1 (WRITE): the YAML-anchor case was fixed in stop 42 (an alias a benchmark Job uses);
a shared shell variable in a sourced env file, a Jinja ``{% set %}`` and an included partial were still moved, and a
benchmark reading the same text (``python3 bench/replay.py $COMMON``) silently lost the flag."""

import subprocess

import pytest

from pdlint.cli import main

FLAGS = "--model-path m --tp-size 2 --enable-linear-replayssm-spec"
RUN = """\
#!/bin/bash
source ./common.env
CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server $COMMON --disaggregation-mode prefill --port 30001 &
CUDA_VISIBLE_DEVICES=2,3 python3 -m sglang.launch_server $COMMON --disaggregation-mode decode --port 30002 &
wait
"""
TEMPLATE = """\
{% set common = "FLAGS" %}
CUDA_VISIBLE_DEVICES=4,5 python3 -m sglang.launch_server {{ common }} --disaggregation-mode prefill --port 30011 &
CUDA_VISIBLE_DEVICES=6,7 python3 -m sglang.launch_server {{ common }} --disaggregation-mode decode --port 30012 &
""".replace("FLAGS", FLAGS)
PARTIAL_USER = ('CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server {% include "common.j2" %} '
                '--disaggregation-mode ROLE --port PORT\n')


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def _fix(capsys, repo, *paths):
    main(["--no-cache", "--fix", *paths])
    out = capsys.readouterr().out
    return out.strip().splitlines()[-1]


def _shell(repo, bench: bool):
    (repo / "common.env").write_text(f'COMMON="{FLAGS}"\n')
    (repo / "run.sh").write_text(RUN)
    if bench:
        (repo / "bench.sh").write_text("#!/bin/bash\nsource ./common.env\npython3 bench/replay.py $COMMON\n")


def _jinja(repo, bench: bool):
    (repo / "launch.sh.j2").write_text(TEMPLATE + ("python3 bench/replay.py {{ common }} --out r.json\n"
                                                   if bench else ""))


def _partial(repo, bench: bool):
    (repo / "common.j2").write_text(FLAGS)
    (repo / "prefill.sh.j2").write_text(PARTIAL_USER.replace("ROLE", "prefill").replace("PORT", "30001"))
    (repo / "decode.sh.j2").write_text(PARTIAL_USER.replace("ROLE", "decode").replace("PORT", "30002")
                                       .replace("0,1", "2,3"))
    if bench:
        (repo / "bench.sh.j2").write_text('python3 bench/replay.py {% include "common.j2" %} --out r.json\n')


@pytest.mark.parametrize("make, shared", [(_shell, "common.env"), (_jinja, "launch.sh.j2"), (_partial, "common.j2")])
def test_no_move_when_another_command_reads_the_shared_text(repo, capsys, make, shared):
    make(repo, bench=True)
    before = {p.name: p.read_text() for p in repo.iterdir() if p.is_file()}
    summary = _fix(capsys, repo, ".")
    assert summary.startswith("Fixed 0 findings")
    assert {p.name: p.read_text() for p in repo.iterdir() if p.is_file()} == before  # nothing written


@pytest.mark.parametrize("make, shared", [(_shell, "common.env"), (_jinja, "launch.sh.j2"), (_partial, "common.j2")])
def test_the_move_is_made_when_only_the_launches_read_it(repo, capsys, make, shared):
    make(repo, bench=False)
    summary = _fix(capsys, repo, ".")
    assert summary.startswith("Fixed 1 finding")
    assert "replayssm" not in (repo / shared).read_text().splitlines()[0]  # (the shared part; a launch gets it)


def test_a_rename_in_an_array_another_command_reads_is_not_made(scratch, capsys):
    """Hostile-input round rw27/h P21: the safe SGL001 rename (`--tp_size` -> `--tp-size`) edited a shell array that
    `python3 bench.py "${ARGS[@]}"` reads too, renaming that program's own flag; the move fix refuses this case."""
    script = ('#!/bin/bash\nARGS=(--model-path /m --tp_size 2)\npython3 -m sglang.launch_server \\\n'
              '  "${ARGS[@]}" --disaggregation-mode prefill\n')
    scratch.write("run.sh", script + 'python3 bench.py "${ARGS[@]}"\n')
    main(["check", "--no-cache", "--diff", "run.sh"])
    cap = capsys.readouterr()
    assert "No fixes available" in cap.out + cap.err and "+ARGS" not in cap.out
    scratch.write("run.sh", script)  # read by the launch only (its words on the next line): renamed
    main(["check", "--no-cache", "--diff", "run.sh"])
    assert "+ARGS=(--model-path /m --tp-size 2)" in capsys.readouterr().out
