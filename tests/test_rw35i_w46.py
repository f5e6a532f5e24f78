"""Hostile-input round rw35/i, items P1, P4 and P5 (shell loop shortcuts and cuts).

P1 (wrong silence): a ``for`` loop over 3+ items whose body can start nothing stopped once an iteration left
the paths as the one before did but for the loop variable, and jumped to the last item, though the body tested
that variable (``if [ "$i" = 2 ]; then FLAG=--no-such-flag; fi``): what a later item set was lost, a clean pass
(also for a script evaluated for sed-template values).  The shortcut now holds only when the body reads the
variable nowhere but in the words of a command that decides nothing (``echo "Attempt $i"``).

P4 (hang): a ``for ((...))`` / ``for`` loop whose paths doubled only every other iteration was never split-cut:
the count of splitting iterations was reset by each iteration that did not double, and at the path limit the
loop ran all its iterations (252 bytes: 6.9 s; 385 bytes: PD008, the launch not checked).  Now only an
iteration that leaves fewer paths than it took resets that count.

P5 (message): after a split cut, PD023's help and the undecided note said pdlint did not know how often the loop
runs (input it cannot see) and "write the value into the file"; the count was known, pdlint cut the loop by its
own bound.  They now name that bound, and the JSON undecided ``cause`` is ``loop-bound``.
"""

import time

P1 = """\
FLAG="--tp-size 1"
for i in 0 1 2; do
  if [ "$i" = 2 ]; then FLAG="--no-such-flag"; fi
done
python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 --base-gpu-id 0 $FLAG &
python -m sglang.launch_server --model-path m --disaggregation-mode decode  --port 30001 --base-gpu-id 1 &
"""

_DEPLOY = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: "x-prefill"
spec:
  leaderWorkerTemplate:
    size: 1
    leaderTemplate:
      spec:
        containers:
        - name: sglang
          image: "img"
          command:
          - python3
          - -m
          - sglang.launch_server
          - --model-path
          - /models/m
          - --tp-size
          - "{PREFILL_TP}"
          - --disaggregation-mode
          - prefill
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: "x-decode"
spec:
  leaderWorkerTemplate:
    size: 1
    leaderTemplate:
      spec:
        containers:
        - name: sglang
          image: "img"
          command:
          - python3
          - -m
          - sglang.launch_server
          - --model-path
          - /models/m
          - --tp-size
          - "2"
          - --disaggregation-mode
          - decode
"""


def _codes(doc):
    return sorted(f["code"] for f in doc["findings"])


def test_p1_a_later_item_the_body_tests_is_run(scratch_git):
    scratch_git.write("launch.sh", P1)
    code, doc = scratch_git.lint("launch.sh")
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("SGL001", 3)]


def test_p1_arithmetic_and_case_reads_count_too(scratch_git):
    scratch_git.write("launch.sh", P1.replace('if [ "$i" = 2 ]; then FLAG="--no-such-flag"; fi',
                                              'case $((i + 1)) in 3) FLAG="--no-such-flag" ;; esac'))
    code, doc = scratch_git.lint("launch.sh")
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("SGL001", 3)]


def test_p1_a_read_through_a_function_the_body_calls(scratch_git):
    scratch_git.write("launch.sh", "pick() { if [ \"$i\" = 2 ]; then FLAG=--no-such-flag; fi; }\n"
                      + P1.replace('if [ "$i" = 2 ]; then FLAG="--no-such-flag"; fi', "pick"))
    code, doc = scratch_git.lint("launch.sh")
    assert [f["code"] for f in doc["findings"]] == ["SGL001"]


def test_p1_sed_template_value_from_a_later_item(scratch_git):
    scratch_git.write("deploy_base.yaml", _DEPLOY)
    scratch_git.write("deploy.sh", """\
        #!/bin/bash
        PREFILL_TP=2
        for i in 1 2 3; do
          if [ "$i" = 3 ]; then PREFILL_TP=two; fi
        done
        cat deploy_base.yaml | sed "s#{PREFILL_TP}#${PREFILL_TP}#g" > .tmp.yaml
        kubectl apply -f .tmp.yaml
        """)
    code, doc = scratch_git.lint("deploy_base.yaml")
    assert [(f["code"], f["path"], f["line"]) for f in doc["findings"]] == [("SGL005", "deploy.sh", 4)]


def test_p1_neighbour_a_variable_only_printed_keeps_the_shortcut(scratch_git):
    # a polling loop that prints $i (in its `then` and on its own) and tests nothing by it still stops early: run
    # to its end, its paths would pass the path limit (PD015), as they did before the shortcut
    scratch_git.write("launch.sh", """\
        wait_up() {
          for i in $(seq 1 40); do
            code=$(curl -s "localhost:$1/health")
            if [ "$code" = 200 ]; then echo "up after $i tries"; return 0; fi
            printf 'attempt %s\\n' "$i"
            sleep 1
          done
          return 1
        }
        report() { local name=$1[@]; local items=("${!name}"); echo "${items[@]}"; }
        python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 --base-gpu-id 0 &
        wait_up 30000 || exit 1
        python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 --base-gpu-id 1 &
        wait_up 30001 || exit 1
        report MODELS
        """)
    code, doc = scratch_git.lint("launch.sh")
    assert _codes(doc) == []
    assert sorted(l["role"] for l in doc["launches"]) == ["decode", "prefill"]
