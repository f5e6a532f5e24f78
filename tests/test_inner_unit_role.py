"""The innermost unit that names a role (a Tekton step's or a container's name) wins over the enclosing resource's
name, and the summary counts every launch once, by the role it is paired as.  Field test rw18/o, repro 5 (a
synthetic probe of an ordinary Tekton shape): a Task named after its test, ``prefill-latency-smoke``, with steps
``prefill`` and ``decode`` made the decode step a prefill server: ``PD101 [decode] error: resource name makes this
the prefill server, but --disaggregation-mode is 'decode'``, counted "1 prefill, 1 decode" and then "2 launches
not paired (2 prefill, 0 decode)"."""

import pytest

ARGS = {"prefill": '[--model-path, Qwen/Qwen3-8B, --disaggregation-mode, {mode}, --port, "30000"]',
        "decode": '[--model-path, Qwen/Qwen3-8B, --disaggregation-mode, {mode}, --port, "30001", --base-gpu-id, "1"]'}


def tekton(task, names=("prefill", "decode"), modes=("prefill", "decode")):
    steps = "".join(f"""\
    - name: {n}
      image: lmsysorg/sglang:v0.5.9
      command: [python3, -m, sglang.launch_server]
      args: {ARGS[r].format(mode=m)}
""" for n, r, m in zip(names, ("prefill", "decode"), modes))
    return f"apiVersion: tekton.dev/v1\nkind: Task\nmetadata: {{name: {task}}}\nspec:\n  steps:\n{steps}"


def deployment(name, names=("prefill", "decode")):
    containers = "".join(f"""\
        - name: {n}
          image: lmsysorg/sglang:v0.5.9
          command: [python3, -m, sglang.launch_server]
          args: {ARGS[r].format(mode=r)}
""" for n, r in zip(names, ("prefill", "decode")))
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  template:\n"
            f"    spec:\n      containers:\n{containers}")


def run(scratch, text):
    scratch.write("task.yaml", text)
    code, out = scratch.lint("task.yaml")
    cov = out["coverage"]
    return code, [(f["line"], f["code"], f["role"]) for f in out["findings"]], \
        (cov["prefill"], cov["decode"], cov["unpaired_prefill"], cov["unpaired_decode"])


@pytest.mark.parametrize("make", [tekton, deployment])
@pytest.mark.parametrize("name", ["prefill-latency-smoke", "decode-smoke"])
def test_a_step_or_container_name_wins_over_the_resource_name(scratch, make, name):
    # (before: PD101 on the step the resource's name contradicts, and both launches counted in one role)
    assert run(scratch, make(name)) == (0, [], (1, 1, 0, 0))


@pytest.mark.parametrize("make", [tekton, deployment])
def test_quiet_with_a_neutral_resource_name(scratch, make):
    assert run(scratch, make("pd-smoke")) == (0, [], (1, 1, 0, 0))


def test_the_resource_name_still_names_the_role_of_steps_that_name_none(scratch):
    # one server step `server` in a Task named for the decode, whose flags say prefill: the structure and the
    # flags disagree (PD101), and the summary counts the launch once, as the role it is paired as
    text = tekton("decode-smoke", names=("server", "other"), modes=("prefill", "decode"))
    code, found, counts = run(scratch, text)
    assert code == 1
    assert found == [(9, "PD101", "prefill")]
    assert counts == (0, 2, 0, 2)


def test_a_step_name_contradicting_its_flag_is_still_reported(scratch):
    # the closest unit names the other role than the flag: that contradiction is real
    code, found, _ = run(scratch, tekton("pd-smoke", modes=("decode", "decode")))
    assert code == 1 and found == [(9, "PD101", "decode")]


def test_a_container_named_after_a_model_part_does_not_override_the_resource(scratch_git):
    # field test rw18/p (repro 19): container `encoder-decoder` in Deployment `t5-prefill` (and `prefill-cache-client`
    # in `t5-decode`) made false PD101 errors; a container named for the role itself (`sglang-decode`) still wins
    docs = []
    for dep, container, mode in (("t5-prefill", "encoder-decoder", "prefill"),
                                 ("t5-decode", "prefill-cache-client", "decode")):
        docs.append(f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {dep}
spec:
  template:
    spec:
      containers:
      - name: {container}
        image: lmsysorg/sglang:v0.5.9
        command: [python3, -m, sglang.launch_server]
        args: [--model-path, m, --disaggregation-mode, {mode}]
""")
    scratch_git.write("t5.yaml", "---\n".join(docs))
    code, report = scratch_git.lint("t5.yaml")
    assert report["findings"] == [] and code == 0
