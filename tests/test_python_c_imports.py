"""`python -c` code that only imports a server's module is a preflight check, not a launch.

Field test rw29/a P5 (keivenchang/dynamo-utils inference.sh:659/664, `if ! python -c "import dynamo.frontend"`):
`python3 -c "import sglang.launch_server; print('ok')"` and `python -c 'import vllm.entrypoints.openai.api_server'`
were PD020 "`python3` is not a launcher pdlint knows" - importing the module starts no server (sglang/launch_server.py
and vllm/entrypoints/openai/api_server.py start theirs under `if __name__ == "__main__":`).  Code that calls a
server's function is still launch text pdlint did not check."""

import pytest


def _pd020(report):
    return [f["line"] for f in report["findings"] if f["code"] == "PD020"]


@pytest.mark.parametrize("line", [
    """python3 -c "import sglang.launch_server; print('ok')\"""",
    "python -c 'import vllm.entrypoints.openai.api_server'",
    'if ! python -c "import dynamo.frontend" >/dev/null 2>&1; then echo "missing dynamo"; exit 1; fi',
    'python3 -X utf8 -c "from vllm.entrypoints.openai import api_server as s; import sglang.launch_server"',
])
def test_an_import_only_preflight_is_no_launch_text(scratch_git, line):
    scratch_git.write("preflight.sh", "#!/bin/bash\n" + line + "\n")
    code, report = scratch_git.lint("preflight.sh")
    assert _pd020(report) == [] and code == 0, report["findings"]


@pytest.mark.parametrize("line", [
    # runs a server: still launch text pdlint did not check
    """python3 -c "from sglang.launch_server import run_server; run_server()\"""",
    """python3 -c "import runpy; runpy.run_module('sglang.launch_server', run_name='__main__')\"""",
    """python3 -c "import sglang.launch_server; print(sglang.launch_server.main())\"""",
])
def test_code_that_runs_a_server_keeps_pd020(scratch_git, line):
    scratch_git.write("run.sh", "#!/bin/bash\n" + line + "\n")
    _, report = scratch_git.lint("run.sh")
    assert _pd020(report) == [2], report["findings"]
