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


# -- P4 -------------------------------------------------------------------------------------------------------

SPLIT_MSG = ("a loop's paths kept splitting: they doubled in 4 of its iterations and never became fewer; the rest "
             "of its iterations were skipped and what it sets is unknown after it")
EVERY_OTHER = 'if [ $((i % 2)) = 0 ]; then if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b"; fi; fi'
SERVER = ("python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 "
          '--served-model-name "$Y$Z0"\n')


def _loop(head, body):
    return f"#!/bin/bash\n{head}; do\n  {body}\n" + "".join(f'  Z{k}="$Y-$i"\n' for k in range(10)) + "done\n" + SERVER


def _p4(scratch_git, text):
    scratch_git.write("launch.sh", text)
    code, doc = scratch_git.lint("launch.sh")
    return [(f["line"], f["code"], f["message"]) for f in doc["findings"]], doc["launches"]


def test_p4_c_for_doubling_every_other_iteration_is_cut(scratch_git):
    # the repro launch_b.sh: PD008 (exceeded 10 s in shell) on main, the launch not checked
    findings, launches = _p4(scratch_git, _loop("for ((i = 0; i < 128; i++))", EVERY_OTHER))
    assert findings == [(2, "PD015", SPLIT_MSG)]
    assert len(launches) == 1 and launches[0]["argv"][-1].startswith("<what the loop at line 2 leaves in Y>")


def test_p4_for_over_items_doubling_every_third_iteration_is_cut(scratch_git):
    items = " ".join(str(n) for n in range(120))
    findings, launches = _p4(scratch_git, _loop(f"for i in {items}", EVERY_OTHER.replace("% 2", "% 3")))
    assert findings == [(2, "PD015", SPLIT_MSG)]
    assert len(launches) == 1


def test_p4_neighbour_paths_that_join_again_run_the_whole_count(scratch_git):
    # the paths double on even iterations and join on odd ones (T is set alike on every path): a cheap loop,
    # run to its end with no PD015; what it leaves is known
    findings, launches = _p4(scratch_git, (
        "#!/bin/bash\nY=\nZ0=\nfor ((i = 0; i < 40; i++)); do\n"
        '  if [ $((i % 2)) = 0 ]; then if [ "$X" = "$i" ]; then T=a; else T=b; fi; else T=; Y="${Y}c"; fi\n'
        "done\n" + SERVER))
    assert findings == []
    assert [l["argv"][-1] for l in launches] == ["c" * 20]


# -- P5 -------------------------------------------------------------------------------------------------------

P5 = """\
build() {
  for i in 0 1 2 3 4 5 6 7; do
    if [ "$X" = "$i" ]; then Y="${Y}a"; else Y="${Y}b"; fi
  done
  EXTRA="--served-model-name $Y"
}
build
python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 --base-gpu-id 0 $EXTRA &
build
python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 --base-gpu-id 1 $EXTRA &
"""


def _p5(capsys, *args):
    """(text report, JSON report) of ``pdlint ARGS`` with the result cache (cold, then warm)."""
    import json
    from pdlint.cli import main
    main([*args])
    cold = capsys.readouterr().out
    main([*args])
    warm = capsys.readouterr().out
    assert warm == cold
    main(["--format", "json", *args])
    return cold, json.loads(capsys.readouterr().out)


def _schema_valid(doc):
    """The report validates against docs/pdlint-json.schema.json (whose undecided ``cause`` enum holds every
    cause), and docs/json.md names each undecided ``cause`` it holds."""
    from tests.test_json_schema import DOC_PATH, SCHEMA, errors
    assert errors(doc, SCHEMA) == []
    with open(DOC_PATH, encoding="utf-8") as f:
        prose = f.read()
    for fc in doc["coverage"]["files"].values():
        for u in fc.get("undecided", []):
            assert f"`{u['cause']}` —" in prose


def test_p5_a_split_cut_loop_is_said_cut_by_pdlints_bound(scratch_git, capsys):
    scratch_git.write("launch.sh", P5)
    text, doc = _p5(capsys, "launch.sh")
    (gap,) = [f for f in doc["findings"] if f["code"] == "PD023"]
    assert "pdlint cut the loop at line 2 by its own bound" in gap["fix"]
    assert "doubled in 4 of its iterations" in gap["fix"] and "input pdlint cannot see" not in gap["fix"]
    (u,) = doc["coverage"]["files"]["launch.sh"]["undecided"]
    assert (u["text"], u["cause"]) == ("<what the loop at line 2 leaves in Y>", "loop-bound")
    assert "the tests of the loop at line 2 read as --var NAME=VALUE" in text
    assert "write the value into the file" not in text and "input pdlint cannot see" not in text
    _schema_valid(doc)


def test_p5_neighbour_a_loop_of_unknown_count_keeps_its_words(scratch_git, capsys):
    # `while read` over a file pdlint does not read: its count is unknown, and the help still says so
    scratch_git.write("args.sh", """\
        build() {
          ARGS=()
          while read -r k; do
            ARGS+=("--$k")
          done < /etc/flags.txt
        }
        build
        python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 "${ARGS[@]}" &
        """)
    scratch_git.write("name.sh", """\
        Y=m
        while read -r k; do
          Y="${Y}$k"
        done < /etc/names.txt
        python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 --served-model-name "$Y" &
        """)
    text, doc = _p5(capsys, "args.sh", "name.sh")
    (gap,) = [f for f in doc["findings"] if f["code"] == "PD023"]
    assert gap["fix"].startswith("pdlint does not know how often the loop runs (it reads input pdlint cannot see)")
    (u,) = doc["coverage"]["files"]["name.sh"]["undecided"]
    assert u["cause"] == "not-in-file" and "write the value into the file" in text
    assert "by its own bound" not in text
    _schema_valid(doc)


def test_p5_the_result_cache_keeps_each_undecided_cause(scratch_dir, capsys):
    # (the cache's record of an undecided value kept no ConfigMap flag: a warm run said `not-in-file` for what a
    # cold one called `configmap-not-joined`; its flags are now stored, and read back by name)
    import json
    import tests.test_rw35b_w44 as b44
    from pdlint.cli import main
    b44.write(scratch_dir, "configmap.yaml", b44.CONFIGMAP.format(role="kv_bothh"))
    b44.write(scratch_dir, "deploy.yaml", b44.deployments())
    causes = []
    for _ in range(2):  # cold, then warm
        main(["check", "--format", "json", "deploy.yaml"])
        doc = json.loads(capsys.readouterr().out)
        causes.append([u["cause"] for u in doc["coverage"]["files"]["deploy.yaml"]["undecided"]])
    assert causes == [["configmap-not-joined"] * 2] * 2
