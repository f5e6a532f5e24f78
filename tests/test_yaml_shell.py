"""Shell command strings inside YAML files (pdlint.formats.yaml_shell): GitHub
Actions, GitLab CI, sflow, Argo and SkyPilot job specs."""

import os
import textwrap

from pdlint.discover import discover, expand_units
from pdlint.extract import Extractor, Options
from pdlint.formats import yaml_shell
from pdlint.formats import yamltree as yt
from pdlint.lint import ConfigResolver
from pdlint.text import SourceFile, TStr

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "formats")


def extract(*paths, cwd=DATA):
    resolver = ConfigResolver(cwd)
    jobs, missing = discover(list(paths), cwd, resolver.excluded)
    assert not missing
    jobs = expand_units(jobs, cwd, resolver.excluded)
    return Extractor(Options(cwd=cwd), resolver.for_file).run(jobs)


def argv(launch):
    return [t.text for t in launch.argv]


def test_github_actions_run_block_real_file():
    out = extract("ci/sgl-project__sglang__.github__workflows__pr-e2e-test.yml")
    (l,) = out.launches
    assert (l.role, l.line) == ("null", 33)
    assert argv(l) == ["--model", "/home/lmzheng/zhyncs/Meta-Llama-3.1-8B-Instruct", "--port", "8413",
                       "--disable-radix-cache"]
    assert (l.argv[0].origin.line, l.argv[0].origin.column) == (33, 41)  # inside the `run: |` block
    assert l.env["CUDA_VISIBLE_DEVICES"].text == "6" and l.env["CUDA_VISIBLE_DEVICES"].origin.line == 18
    assert "job 'gpu-job' step 'Launch server and run benchmark'" in l.context
    assert not out.findings


def test_github_actions_expressions_env_matrix_inputs_and_step_names():
    out = extract("ci/github-pd.yml")
    p, d = sorted(out.launches, key=lambda l: l.line)
    assert (p.role, d.role, p.structural_role, p.meta["role_how"]) == ("prefill", "decode", "prefill",
                                                                      "GitHub Actions job/step name")
    assert (p.structural_origin.line, p.structural_origin.column) == (19, 21)
    i = argv(p).index("--tp-size")
    assert p.argv[i + 1].text == "2" and p.argv[i + 1].origin.line == 17  # ${{ matrix.tp }}: its one value
    assert p.argv[i + 1].origin.chain[0].note == "${{ matrix.tp }}"
    assert argv(p)[argv(p).index("--disaggregation-transfer-backend") + 1] == "nixl"  # input default
    assert argv(d)[1] == "/models/qwen3-8b" and d.argv[1].origin.line == 9  # ${{ env.MODEL }}
    key = d.argv[argv(d).index("--api-key") + 1]
    assert key.opaque and key.text == "{{secrets.API_KEY}}"  # a secret: opaque, not a clean value
    assert p.env["CUDA_VISIBLE_DEVICES"].text == "0,1" and "CUDA_VISIBLE_DEVICES" not in d.env  # step env
    assert p.meta["image"] == "lmsysorg/sglang:v0.5.9" and p.parsed.version == "0.5.9"  # job container
    assert not [f for f in out.findings if f.severity == "error"]


def test_gitlab_script_lists_are_one_shell_with_variables():
    out = extract("ci/gitlab-pd.gitlab-ci.yml")
    p, d = sorted(out.launches, key=lambda l: l.line)
    assert (p.role, d.role) == ("prefill", "decode")
    assert argv(p) == ["--model-path", "/models/qwen3-8b", "--disaggregation-mode", "prefill",
                       "--disaggregation-transfer-backend", "mooncake", "--port", "30000"]
    assert p.argv[5].origin.line == 6  # TRANSFER: {value: mooncake}
    assert p.argv[7].origin.line == 18  # the job's own variables
    assert p.env["SGLANG_HOST_IP"].opaque  # exported by an earlier item of the same script
    assert d.argv[-1].opaque and d.argv[-1].text == "$CI_MAX_REQ"  # set by the runner
    assert p.meta["image"] == "lmsysorg/sglang:v0.5.9"  # through the merge key
    assert d.structural_origin.line == 27


def test_sflow_variables_expressions_and_operator_image():
    out = extract("sflow/NVIDIA__nv-sflow__examples__slurm_dynamo_sglang_disagg.yaml")
    roles = sorted(l.role or l.kind for l in out.launches)
    assert roles == ["decode", "decode", "prefill", "prefill", "router"]  # multi-node branch and single-node branch
    p = next(l for l in out.launches if l.role == "prefill" and "--dist-init-addr" not in argv(l))
    a = argv(p)
    assert a[a.index("--tensor-parallel-size") + 1] == "2" and a[a.index("--served-model-name") + 1] == "Qwen3-0-6B-FP8"
    tp = p.argv[a.index("--tensor-parallel-size") + 1]
    assert tp.origin.line == 42 and tp.origin.chain[0].note == "${{ variables.CTX_TP_SIZE }}"
    model = p.argv[a.index("--model-path") + 1]  # ${{ artifacts.LOCAL_MODEL_PATH.path }}: its fs:// URI's path
    assert (model.text, model.origin.line) == ("/path/to/your/model", 186) and not model.opaque
    assert "" not in a  # ${{ variables.CTX_ENABLE_ATTENTION_DP }} is empty: no word
    assert p.meta["image"] == "nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.0"  # the task's operator
    assert p.parsed.version == "0.5.6.post2"  # Dynamo 0.8.x pins SGLang 0.5.6.post2
    assert p.structural_role == "prefill" and p.meta["role_how"] == "sflow task name"
    assert not [f for f in out.findings if f.severity == "error"]


def test_argo_script_template_parameters():
    out = extract("ci/argo-pd.yaml")
    (l,) = out.launches
    assert argv(l)[:2] == ["--model-path", "/models/qwen3-8b"] and l.role == "prefill"
    assert argv(l)[argv(l).index("--port") + 1] == "30000"
    assert l.argv[-1].opaque  # {{inputs.parameters.tp}}: no value in the file
    assert "template 'prefill'" in l.context


def test_skypilot_run_with_envs_real_file():
    out = extract("ci/skypilot-org__skypilot__llm__sglang__llama2.yaml")
    (l,) = out.launches
    assert argv(l) == ["--model-path", "meta-llama/Llama-2-7b-chat-hf", "--host", "0.0.0.0", "--port", "8000"]
    assert l.argv[1].origin.line == 8 and l.env["HF_TOKEN"].opaque


def test_skypilot_docker_image_id_names_the_release(tmp_path):
    # resources.image_id: docker:<image> is the task's container (Dynamo 0.7.1 runs SGLang 0.5.4.post3); a VM
    # image id names no release
    task = textwrap.dedent("""\
        resources:
          accelerators: H100:8
          image_id: {image_id}
        run: |
          python3 -m dynamo.sglang --model-path /m --disaggregation-mode decode --cuda-graph-bs 256
        """)
    (tmp_path / "task.sky.yaml").write_text(task.format(image_id="docker:nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.7.1"))
    (l,) = extract("task.sky.yaml", cwd=str(tmp_path)).launches
    assert l.meta["image"] == "nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.7.1" and l.parsed.version == "0.5.4.post3"
    (tmp_path / "task.sky.yaml").write_text(task.format(image_id="ami-0123456789abcdef0"))
    (l,) = extract("task.sky.yaml", cwd=str(tmp_path)).launches
    assert "image" not in l.meta


def test_scripts_without_a_launcher_or_outside_shell_keys_are_not_read(tmp_path):
    (tmp_path / "docs.yaml").write_text(textwrap.dedent("""\
        description: run python3 -m sglang.launch_server --model-path /m to start
        jobs:
          a:
            steps:
              - run: echo hello
        """))
    out = extract("docs.yaml", cwd=str(tmp_path))
    assert out.launches == []


def test_expression_substitution_keeps_positions():
    src = SourceFile("w.yml", "run: a ${{ env.X }} ${{ matrix.y }}b ${{ f(1, 2) }}")
    doc = TStr.from_source(src)
    t = doc[5:]
    ex = {"env.X": TStr.from_source(SourceFile("w.yml", "v"))}
    out = yaml_shell.substitute(t, ex, "github")
    assert out.text == "a v {{matrix.y}}b {{f_1_2_}}"
    assert out[2:3].origin.chain[0].note == "${{ env.X }}"
    assert out[4:16].opaque and not out[0:1].opaque
    assert yaml_shell.dialect(yt.Ref(yt.compose("on: push\njobs: {}\n")[0].root)) == "github"
    assert yaml_shell.dialect(yt.Ref(yt.compose("workflow: {tasks: []}\n")[0].root)) == "sflow"


def _gate_and_walk(text: str) -> tuple:
    """(may_hold_scripts, the scripts the walk finds) for a YAML text, containers skipped as extract does."""
    from pdlint.formats import kube
    docs = yt.compose(text)
    doc = TStr.from_source(SourceFile("t.yaml", text))
    containers = kube.find_containers(docs)
    skip = {id(yt.deref(c.ref).node) for c in containers if yt.get(c.ref, "source") is None}
    return yaml_shell.may_hold_scripts(docs, skip), yaml_shell.scripts(doc, docs, skip)


def test_skipped_walk_never_hides_a_script():
    """extract walks a YAML file for shell strings only when may_hold_scripts says it could hold one:
    on every YAML file of the test data, the fixtures, the shared corpus and a bench repository, a file
    it rules out holds no script; scripts next to containers, behind escapes, split over exec items or
    reached through an alias are walked."""
    import importlib.util
    import sys
    import tempfile
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    files = [p for base in (root / "tests" / "data", root / "fixtures", root.parent / "shared" / "corpus")
             if base.is_dir() for p in base.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
    with tempfile.TemporaryDirectory() as tmp:
        spec = importlib.util.spec_from_file_location("pdlint_bench_gate", root / "bench" / "bench.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["pdlint_bench_gate"] = mod
        spec.loader.exec_module(mod)
        mod.generate(Path(tmp), n=60, seed=5)
        files += [p for p in Path(tmp).rglob("*.yaml")]
        ruled_out = walked = 0
        for p in files:
            text = p.read_bytes().decode("utf-8", "replace")
            try:
                gate, found = _gate_and_walk(text)
            except (yt.YamlError, RecursionError):
                continue
            if not gate:
                assert found == [], p
                ruled_out += 1
            walked += bool(found)
    assert ruled_out > 40 and walked >= 5
    container = textwrap.dedent("""\
        apiVersion: v1
        kind: Pod
        spec:
          containers:
            - name: s
              command: [python3, -m, sglang.launch_server, --port, "1"]
        """)
    assert _gate_and_walk(container) == (False, [])
    for extra in ['run: "python3 -m \\x73glang.launch_server --port 2"\n',  # an escape
                  "cmd: [sglang, serve, m]\n",  # split over exec-form items
                  "job:\n  script: python -m sglang.launch_server --port 3\n"]:
        gate, found = _gate_and_walk(container + "metadata:\n  x: 1\n" + "".join("  " + l + "\n"
                                                                              for l in extra.splitlines()))
        assert gate and found, extra
    aliased = container.replace("command: [", "command: &c [") + "job:\n  cmd: *c\n"
    gate, found = _gate_and_walk(aliased)
    assert gate and found


CONFIGMAP_SCRIPTS = """\
    apiVersion: v1
    kind: ConfigMap
    metadata: {{name: pd-scripts}}
    data:
      prefill.sh: |
        #!/bin/bash
        export VLLM_USE_V1=1
        vllm serve $MODEL --port 7100 {shared} \\
          --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_producer"}}'
      decode.sh: |
        vllm serve $MODEL --port 7200 {shared} \\
          --kv-transfer-config '{{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}}'
      start: |
        #!/usr/bin/env bash
        exec vllm serve $MODEL --port 7300
      README.md: |
        run vllm serve $MODEL --port 7100 to start a server
    """


def test_configmap_script_keys_are_scripts_named_by_their_key(tmp_path):
    # kthena's examples/models/deepseek-v4-flash/modelserving.yaml: containers run `cd /workspace && ./prefill.sh`,
    # a ConfigMap key mounted there
    (tmp_path / "cm.yaml").write_text(textwrap.dedent(CONFIGMAP_SCRIPTS.format(shared="--max-model-len 4096")))
    out = extract("cm.yaml", cwd=str(tmp_path))
    got = sorted((l.line, l.role, l.structural_role, argv(l)[:3]) for l in out.launches)
    assert got == [(8, "prefill", "prefill", ["$MODEL", "--port", "7100"]),
                   (11, "decode", "decode", ["$MODEL", "--port", "7200"]),
                   (15, "null", None, ["$MODEL", "--port", "7300"])]  # a shebang, no role in its key
    assert "data.prefill.sh" in next(l for l in out.launches if l.line == 8).context
    # README.md's text is prose in no script: not read as one
    assert not [l for l in out.launches if l.line == 17]
    assert out.findings == []


def test_configmap_script_flags_are_judged_where_written(tmp_path, monkeypatch, capsys):
    import json
    from pdlint.cli import main
    (tmp_path / "cm.yaml").write_text(textwrap.dedent(CONFIGMAP_SCRIPTS.format(shared="--max-model-lenn 4096")))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--format", "json", "cm.yaml"]) == 1
    found = json.loads(capsys.readouterr().out)["findings"]
    assert sorted((f["code"], f["line"], f["column"], f["role"]) for f in found) == \
        [("VLLM018", 8, 35, "prefill"), ("VLLM018", 11, 35, "decode")]


HARNESS = """\
    deployment:
      - envs: {{SERVER_PORT: 8080}}
        {key}: {style}
          vllm serve vllm-ascend/DeepSeek-R1-0528-W8A8
              --host 0.0.0.0
              --port $SERVER_PORT
              --kv-transfer-config
              '{{"kv_connector": "MooncakeConnectorV1",
              "kv_role": "kv_producer"}}'
    """


def test_a_harness_command_line_is_one_command_not_a_script(tmp_path):
    # vllm-project/vllm-ascend tests/e2e/nightly/multi_node/internal_dp/config/*.yaml: `server_cmd: >` whose flag
    # lines are more indented than the first (so YAML keeps their newlines); its harness shlex.split()s it. Read
    # as a script, every flag line was a command of its own: 392 PD060 errors in that repository. (Its line breaks
    # are read as blanks, also the one inside the quoted JSON: the same JSON.)
    (tmp_path / "c.yaml").write_text(textwrap.dedent(HARNESS.format(key="server_cmd", style=">")))
    out = extract("c.yaml", cwd=str(tmp_path))
    (l,) = out.launches
    assert argv(l) == ["vllm-ascend/DeepSeek-R1-0528-W8A8", "--host", "0.0.0.0", "--port", "8080",
                       "--kv-transfer-config", '{"kv_connector": "MooncakeConnectorV1",     "kv_role": "kv_producer"}']
    assert (l.argv[1].origin.line, l.argv[1].origin.column) == (5, 11)
    assert l.role == "prefill" and out.findings == []


def test_a_runner_script_keeps_its_lines(tmp_path, monkeypatch, capsys):
    # GitHub's `run: |` is bash: a flag line there is a command of its own (PD060), as bash runs it
    import json
    from pdlint.cli import main
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "w.yml").write_text(textwrap.dedent("""\
        on: push
        jobs:
          serve:
            runs-on: gpu
            steps:
              - run: |
                  vllm serve m
                    --port 8000
        """))
    monkeypatch.chdir(tmp_path)
    main(["check", "--no-cache", "--format", "json", "."])
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes == ["PD060"]


def test_a_harness_script_with_continuations_stays_a_script(tmp_path):
    # llm-d/llm-d-benchmark config/scenarios/cicd/gke.yaml: `customCommand: |` is a script (an export, then a
    # launch continued with `\`): read as one command line it lost its launch
    (tmp_path / "s.yaml").write_text(textwrap.dedent("""\
        decode:
          customCommand: |
            export LIBRARY_PATH=/usr/lib:${LIBRARY_PATH}
            vllm serve /model-cache/m \\
            --host 0.0.0.0 \\
            --port 8200
        """))
    (l,) = extract("s.yaml", cwd=str(tmp_path)).launches
    assert argv(l) == ["/model-cache/m", "--host", "0.0.0.0", "--port", "8200"]
    assert l.env["LIBRARY_PATH"].text.startswith("/usr/lib:")


SFLOW_EXTRA_ARGS = """\
    version: '0.1'
    operators:
    - name: dynamo
      type: srun
      extra_args:
      - --container-image=nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.0
    workflow:
      name: w
      tasks:
      - name: prefill_server
        operator: dynamo
        script:
        - python3 -m dynamo.sglang --model-path /m --disaggregation-mode prefill --prefill-round-robin-balance
    """


def test_an_sflow_operators_container_image_in_its_srun_args(scratch_git):
    """NVIDIA/nv-sflow's composed recipes (field test rw6/f) pin the image with an srun operator's
    `extra_args: [--container-image=IMAGE]`: 22 findings were judged against the newest releases."""
    scratch_git.write("recipe.yaml", SFLOW_EXTRA_ARGS)
    _, report = scratch_git.lint("recipe.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.6.post2"  # the SGLang Dynamo 0.8.0 installs
    scratch_git.write("recipe.yaml", SFLOW_EXTRA_ARGS.replace("--container-image=", "--container-image\n      - "))
    _, report = scratch_git.lint("recipe.yaml")
    assert report["launches"][0]["engine_version"] == "0.5.6.post2"


BUILDKITE = """\
steps:
  - group: "TPU tests"
    steps:
      - label: "Prefill server smoke test"
        agents:
          queue: tpu
        commands:
          - |
            export MODEL=Qwen/Qwen3-0.6B
            vllm serve $$MODEL \\
              --port 8000 \\
              --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &
            for _ in $$(seq 1 180); do curl -fs localhost:8000/health && break || sleep 10; done
      - label: "decode"
        command:
          - vllm serve $$MODEL --port 8001 --bogus-flag
"""


def test_buildkite_dollar_escapes_are_the_shells_dollars(tmp_path):
    # vllm-project/tpu-inference .buildkite/pipeline_jax.yml (field test rw7/a): `$$(seq 1 180)` was PD009,
    # `$$MODEL` the shell's pid followed by "MODEL"
    (tmp_path / ".buildkite").mkdir()
    (tmp_path / ".buildkite" / "pipeline.yml").write_text(BUILDKITE)
    out = extract(".buildkite/pipeline.yml", cwd=str(tmp_path))
    assert not [f for f in out.findings if f.code == "PD009"], [f.message for f in out.findings]
    first, second = sorted(out.launches, key=lambda l: l.line)
    assert first.role == "prefill" and "Buildkite pipeline" in first.context
    assert "Qwen/Qwen3-0.6B" in [t.text for t in first.command + first.argv]
    assert (second.line, argv(second)[-1]) == (16, "--bogus-flag")   # `command:` list: commands, not an argv
    bogus = second.argv[-1]
    line = BUILDKITE.splitlines()[15]
    assert (bogus.origin.line, bogus.origin.column) == (16, line.index("--bogus") + 1)  # traced after a `$$`


def test_buildkite_dialect():
    def dia(text):
        return yaml_shell.dialect(yt.Ref(yt.compose(text)[0].root))
    assert dia(BUILDKITE) == "buildkite"
    assert dia("steps:\n  - run: echo\n") == "generic"            # no Buildkite step key
    assert dia("name: x\nsteps:\n  - label: a\n") == "generic"     # a key Buildkite's top level does not have


def test_github_script_javascript_is_not_read_as_shell(scratch):
    """rw30/a P7: `uses: actions/github-script` runs its `with: script:` in Node (the action's action.yml:
    `runs: using: node20`), not in a shell.  Its JavaScript mentioning `vllm serve` (a regex, a string asking for
    the launch command) was parsed as shell: two PD009 "shell syntax error" at `const body = (...)` and the
    template literal `${info.ask}`.  Now: nothing read, nothing reported; real launch text in the JavaScript stays
    PD020 (never a clean pass), and a `run:` step and another action's `with: script:` (appleboy/ssh-action runs
    it in the remote shell) are still read as shell."""
    scratch.write(".github/workflows/triage.yml", """
        name: triage
        on:
          issues:
            types: [opened]
        jobs:
          ask:
            runs-on: ubuntu-latest
            steps:
              - name: Ask for the launch command
                uses: actions/github-script@v7
                with:
                  script: |
                    const body = (context.payload.issue.body || '').toLowerCase();
                    const info = { ask: 'The command you used to launch vLLM (e.g., `vllm serve ...`)' };
                    if (!/vllm serve/i.test(body)) {
                      core.notice(`missing: ${info.ask}`);
                    }
        """)
    code, rep = scratch.lint(".")
    assert code == 0 and rep["findings"] == []
    scratch.write(".github/workflows/js.yml", """
        on: push
        jobs:
          serve:
            runs-on: ubuntu-latest
            steps:
              - uses: Actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea
                with:
                  script: |
                    const { execSync } = require('child_process');
                    execSync('python -m sglang.launch_server --model-path m --disaggregation-mode prefill');
        """)
    code, rep = scratch.lint(".github/workflows/js.yml")
    assert [(f["code"], f["line"]) for f in rep["findings"]] == [("PD020", 10)]


def test_shell_inputs_of_other_actions_and_run_steps_are_still_read(tmp_path):
    """The neighbours of rw30/a P7: a `run:` step next to a github-script step, and appleboy/ssh-action's
    `with: script:` (run by the remote host's shell), are read as shell scripts as before."""
    p = tmp_path / "wf.yml"
    p.write_text(textwrap.dedent("""
        on: push
        jobs:
          prefill:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/github-script@v7
                with:
                  script: console.log('vllm serve is started below')
              - run: vllm serve /models/m --port 8100
              - uses: appleboy/ssh-action@v1
                with:
                  script: vllm serve /models/m --port 8200
        """).lstrip())
    out = extract(str(p), cwd=str(tmp_path))
    ports = sorted(argv(l)[argv(l).index("--port") + 1] for l in out.launches)
    assert ports == ["8100", "8200"]
    assert not [f for f in out.findings if f.code == "PD009"]


DSTACK_PD = """\
type: service
name: prefill-decode
env:
- HF_TOKEN
- MODEL_ID=zai-org/GLM-4.5-Air-FP8
- "TP=2"
- not a name=x
image: lmsysorg/sglang:latest
replicas:
- count: 1..4
  commands:
  - |
    python -m sglang.launch_server \\
    --model-path $MODEL_ID \\
    --disaggregation-mode prefill \\
    --disaggregation-transfer-backend mooncake \\
    --tp-size $TP --port 8000 --api-key $HF_TOKEN
- count: 1..8
  commands:
  - |
    python -m sglang.launch_server --model-path $MODEL_ID --disaggregation-mode decode \\
    --disaggregation-transfer-backend mooncake --tp-size $TP --port 8000
port: 8000
model: zai-org/GLM-4.5-Air-FP8
router:
  type: sglang
  pd_disaggregation: true
"""


def test_an_env_list_of_name_value_strings_is_the_commands_environment(tmp_path, monkeypatch, capsys):
    """rw34/a P10: dstack exports a service's `env:` entries (`- MODEL_ID=zai-org/GLM-4.5-Air-FP8`, dstack 0.20.10
    release notes, "Prefill-Decode disaggregation") to every replica group's `commands:`, as Compose does its
    `environment:` list; `$MODEL_ID` was left undecided with a `--var MODEL_ID=VALUE` hint.  A bare `- HF_TOKEN`
    passes the deployer's environment: the value `--var` gives, unknown without it."""
    (tmp_path / "pd.dstack.yml").write_text(DSTACK_PD)
    prefill, decode = sorted(extract("pd.dstack.yml", cwd=str(tmp_path)).launches, key=lambda l: l.line)
    assert argv(prefill)[:2] == argv(decode)[:2] == ["--model-path", "zai-org/GLM-4.5-Air-FP8"]
    model = prefill.argv[1]
    assert (model.origin.line, model.origin.column) == (5, 12)  # the value, where the env list writes it
    tp = prefill.argv[argv(prefill).index("--tp-size") + 1]
    assert tp.text == "2" and (tp.origin.line, tp.origin.column) == (6, 7)
    assert prefill.argv[-1].opaque  # $HF_TOKEN: the deployer's
    monkeypatch.chdir(tmp_path)
    from pdlint.cli import main
    main(["--format", "json", "--no-cache", "pd.dstack.yml"])
    doc = __import__("json").loads(capsys.readouterr().out)
    assert not doc["coverage"]["undecided"] and not doc["findings"]
    main(["show", "--format", "json", "--var", "HF_TOKEN=t0k", "pd.dstack.yml"])
    doc = __import__("json").loads(capsys.readouterr().out)
    assert [l["argv"][-1] for l in doc["launches"] if l["role"] == "prefill"] == ["t0k"]
