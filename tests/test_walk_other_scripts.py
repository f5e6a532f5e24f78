"""Hostile-input round rw27/h P13: a directory scan passed launch text in `start.fish`, `start.csh`,
`run_server.sh.in` and `.envrc` without a word ("No launch text found", exit 0) while each, named alone, was PD020.
They are text kinds of the walk and the hook now."""

import re

import pytest

LAUNCH = "python3 -m sglang.launch_server --model-path /m --disaggregation-mode prefill --tp-size x\n"


@pytest.mark.parametrize("name", ["start.fish", "start.csh", "run_server.sh.in", ".envrc", "serve.pl", "go.command"])
def test_launch_text_in_other_scripts_is_reported_in_a_walk(scratch, name):
    scratch.write(name, LAUNCH)
    scratch.write("notes.in", "nothing to launch here\n")  # (no launch text: quiet)
    code, report = scratch.lint(".")
    assert [(f["path"], f["code"]) for f in report["findings"]] == [(name, "PD020")] and code == 0


def test_the_hook_passes_them():
    import pathlib
    manifest = (pathlib.Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    files = re.search(r"^  files: (.*)$", manifest, re.M).group(1)
    for path in ("deploy/start.fish", "run_server.sh.in", ".envrc", "x/start.csh"):
        assert re.search(files, path), path


@pytest.mark.parametrize("name", ["serve.sh", "serve"])
def test_a_launch_in_the_shebang_is_reported(scratch, name):
    # hostile-input round rw27/h P14: `#!/usr/bin/env -S python3 -m sglang.launch_server ...` runs the server with the
    # script's path appended; "No launch text found" before
    scratch.write(name, "#!/usr/bin/env -S python3 -m sglang.launch_server --model-path /m --tp-size x\n")
    scratch.write("ok.sh", "#!/usr/bin/env bash\necho ready\n")
    _, report = scratch.lint(".")
    assert [(f["path"], f["code"], f["line"]) for f in report["findings"]] == [(name, "PD020", 1)]


C_LAUNCH = ('#include <stdlib.h>\nint main(void) {\n    return system("python -m sglang.launch_server "\n'
            '                  "--model-path /m --disaggregation-mode prefill --tp-size x");\n}\n')


@pytest.mark.parametrize("name", ["serve.c", "wyze/eigen_serve.cpp", "launch.cc"])
def test_a_c_program_that_system_s_a_launch_is_reported_in_a_walk(scratch, name):
    # field round rw28/a P6 (coco-alen/sglang_assistance's eigen_serve.c): PD020 named alone, nothing in a walk; and
    # the hint told to put a `#` comment on the line, a preprocessor directive in C
    scratch.write(name, C_LAUNCH)
    scratch.write("util.c", "int add(int a, int b) { return a + b; }\n")  # (no launch text: quiet)
    code, report = scratch.lint(".")
    assert [(f["path"], f["code"]) for f in report["findings"]] == [(name, "PD020")] and code == 0
    assert "per-file-ignores" in report["findings"][0]["fix"] and "# pdlint" not in report["findings"][0]["fix"]
    manifest = (__import__("pathlib").Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    assert re.search(re.search(r"^  files: (.*)$", manifest, re.M).group(1), name)


@pytest.mark.parametrize("name", ["serve.c", "include/launch.h", "launch.hpp", "kernels/serve.cu"])
def test_a_launch_in_a_c_define_or_header_is_reported(scratch, name):
    # hostile-input round rw29/h P4, P5: `#define SERVE_CMD "python3 -m sglang.launch_server ..."` was dropped as a
    # `#` comment (in C a preprocessor directive: the command), and `.h` / `.hpp` / `.cu` files were not walked
    scratch.write(name, '#define SERVE_CMD "python3 -m sglang.launch_server --model-path m '
                        '--disaggregation-mode prefill --bogus-flag"\nint main(void) { return system(SERVE_CMD); }\n')
    scratch.write("util.h", "#define ADD(a, b) ((a) + (b))\n")  # (no launch text: quiet)
    code, report = scratch.lint(".")
    assert [(f["path"], f["code"], f["line"]) for f in report["findings"]] == [(name, "PD020", 1)] and code == 0
    manifest = (__import__("pathlib").Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
    assert re.search(re.search(r"^  files: (.*)$", manifest, re.M).group(1), name)


def test_a_hash_comment_still_hides_launch_text_in_a_shell_script(scratch):
    # (the kinds whose `#` starts a comment keep it: a commented-out launch in a script is no launch text)
    scratch.write("run.sh", "#!/bin/bash\n# python3 -m sglang.launch_server --model-path m --bogus-flag\necho ok\n")
    scratch.write("notes.toml", "# python3 -m sglang.launch_server --model-path m --bogus-flag\nx = 1\n")
    code, report = scratch.lint(".")
    assert report["findings"] == [] and code == 0
