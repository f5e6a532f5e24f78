"""A variable's value a launch uses covers the line of its assignment: ``kv_role="kv_producer"`` in a case arm,
put into ``--kv-transfer-config`` through another variable, was PD020 "pdlint built no launch from it" although
pdlint built and paired both launches from it (field test rw8/b, synechism/pddisagg
scripts/remote/serve_pd_worker.sh).  The value's piece widened the command's first line to the case arm, where
only the value's characters counted as covered, not the ``kv_role=`` before them."""

import pytest

SCRIPT = """\
#!/usr/bin/env bash
role="${PD_ROLE:?set PD_ROLE}"
case "${role}" in
  producer) kv_role="kv_producer" ;;
  consumer) kv_role="kv_consumer" ;;
  *) exit 1 ;;
esac
LAUNCH
"""

VIA = 'kv_config="{\\"kv_connector\\":\\"NixlConnector\\",\\"kv_role\\":\\"${kv_role}\\"}"\n' \
      'vllm serve Qwen/Qwen3-4B --port 8000 --kv-transfer-config "${kv_config}"'
DIRECT = 'vllm serve Qwen/Qwen3-4B --port 8000 --kv-transfer-config "{\\"kv_connector\\":\\"NixlConnector\\",' \
         '\\"kv_role\\":\\"${kv_role}\\"}"'


@pytest.mark.parametrize("launch", [VIA, DIRECT])
def test_the_assignment_a_launch_takes_its_role_from_is_covered(scratch, launch):
    scratch.write("serve.sh", SCRIPT.replace("LAUNCH", launch))
    code, doc = scratch.lint("serve.sh")
    assert code == 0 and doc["findings"] == [], doc["findings"]
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]


def test_launch_text_on_another_line_of_the_arm_stays_pd020(scratch):
    scratch.write("serve.sh", SCRIPT.replace("LAUNCH", VIA).replace(
        '  *) exit 1 ;;', '  *) ./custom-server --kv-transfer-config "{}" ;;'))
    _, doc = scratch.lint("serve.sh")
    # (and PD021: in that arm kv_role is unset, so the launch's role is a value pdlint cannot see)
    assert sorted((f["code"], f["line"]) for f in doc["findings"]) == [("PD020", 6), ("PD021", 8)]
