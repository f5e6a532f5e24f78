"""Kubernetes manifests a repository script renders with sed (field report rw32/a item 1: `deploy.sh`, three
public copies, `cat deploy_base.yaml | sed "s#{PREFILL_TP}#${PREFILL_TP}#g" | ... > .deploy_tmp.yaml; kubectl
apply -f .deploy_tmp.yaml`): a `{UPPER_SNAKE}` placeholder is a value pdlint cannot see, as envsubst's `${NAME}`
is. It was judged as the literal text - SGL005 `invalid int value: '{PREFILL_TP}'`, SGL004 `invalid choice:
'{PREFILL_PD_ROLE}'` (6 errors) - and, with the template's other fields unquoted (`name: {NAME}-prefill`), the
file was a PD003 invalid-YAML error. Ground truth (the report's oracle run of SGLang's own parser): the literal
`--tp-size '{PREFILL_TP}'` is refused with `argument --tp-size/--tensor-parallel-size: invalid int value:
'{PREFILL_TP}'`, the rendered argv (`--tp-size 16 --dp-size 4 --enable-dp-attention --disaggregation-mode prefill
--nnodes 2 --node-rank 0 ...`) is accepted: the server never sees the placeholder."""

import json

import pytest

DEPLOY_SH = """\
#!/bin/bash
set -e
NAME=$1
PREFILL_TP=${4:-16}
PREFILL_DP=${5:-4}
PREFILL_PD_ROLE="prefill"
DECODE_TP=${7:-16}
DECODE_DP=${8:-16}
DECODE_PD_ROLE="decode"
cat deploy_base.yaml|\\
	sed "s#{NAME}#${NAME}#g" | \\
	sed "s#{PREFILL_TP}#${PREFILL_TP}#g"|\\
	sed "s#{PREFILL_DP}#${PREFILL_DP}#g"|\\
	sed "s#{PREFILL_PD_ROLE}#${PREFILL_PD_ROLE}#g"|\\
	sed "s#{DECODE_TP}#${DECODE_TP}#g"|\\
	sed "s#{DECODE_DP}#${DECODE_DP}#g"|\\
	sed "s#{DECODE_PD_ROLE}#${DECODE_PD_ROLE}#g" > .deploy_tmp.yaml
kubectl apply -f .deploy_tmp.yaml
"""

ONE = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: "{NAME}-%r"
spec:
  replicas: "{REPLICAS}"
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      metadata:
        labels:
          app: "{NAME}-%r"
      spec:
        containers:
        - name: sglang
          image: "{IMAGE}"
          command:
          - python3
          - -m
          - sglang.launch_server
          - --model-path
          - /models/DeepSeek-R1
          - --tp-size
          - "{%U_TP}"
          - --dp-size
          - "{%U_DP}"
          - --enable-dp-attention
          - --disaggregation-mode
          - "{%U_PD_ROLE}"
          - --nnodes
          - "2"
          - --node-rank
          - "0"
"""


def _manifest(quoted: bool = True) -> str:
    text = "---\n".join(ONE.replace("%r", r).replace("%U", r.upper()) for r in ("prefill", "decode"))
    if not quoted:  # (what such a template usually has: `name: {NAME}-prefill`, `- {PREFILL_TP}`)
        import re
        text = re.sub(r'"(\{[A-Z_]+\}[^"]*)"', r"\1", text)
        assert "name: {NAME}-prefill" in text and "- {PREFILL_TP}" in text
    return text


def _codes(doc):
    return sorted((f["code"], f["line"]) for f in doc["findings"])


def _undecided(doc):
    return [(u["flag"], u["text"], u.get("name")) for f in doc["coverage"]["files"].values()
            for u in f.get("undecided", [])]


@pytest.mark.parametrize("quoted", [True, False])
def test_sed_placeholders_are_values_pdlint_cannot_see(scratch, quoted):
    scratch.write("deploy_base.yaml", _manifest(quoted))  # (no script beside it says what they are)
    code, doc = scratch.lint(".")
    assert not [c for c, _ in _codes(doc) if c in ("SGL004", "SGL005", "PD003")], _codes(doc)
    assert code == 0
    assert [l["role"] for l in doc["launches"]] == ["prefill", "decode"]
    assert sorted(_undecided(doc)) == sorted([
        ("--tp-size", "{PREFILL_TP}", "PREFILL_TP"), ("--dp-size", "{PREFILL_DP}", "PREFILL_DP"),
        ("--tp-size", "{DECODE_TP}", "DECODE_TP"), ("--dp-size", "{DECODE_DP}", "DECODE_DP")])
    assert doc["coverage"]["unchecked"] == 0


def test_the_summary_says_a_script_substitutes_them(scratch, capsys):
    from pdlint.cli import main
    scratch.write("deploy_base.yaml", _manifest(False))
    code = main(["--no-cache", "."])
    out = capsys.readouterr().out
    assert code == 0 and "invalid" not in out
    assert "flag values pdlint cannot see left the checks that read them undecided: --tp-size {PREFILL_TP}" in out
    assert "placeholders a script substitutes" in out and "--var DECODE_DP=VALUE" in out


def test_var_gives_a_sed_placeholder_its_value(scratch):
    scratch.write("deploy_base.yaml", _manifest(False))
    code, doc = scratch.lint(".", "--var", "PREFILL_TP=16", "--var", "PREFILL_DP=5", "--var", "DECODE_TP=16",
                             "--var", "DECODE_DP=16")
    assert [c for c, _ in _codes(doc) if c.startswith("SGL2")] == ["SGL205"] and code == 1  # (16 % 5: prefill)
    assert _undecided(doc) == []


def test_a_real_typo_in_the_template_is_still_reported(scratch):
    scratch.write("deploy_base.yaml", _manifest(False).replace("- --nnodes", "- --nnode-count", 1))
    code, doc = scratch.lint(".")
    assert code == 1
    [f] = [f for f in doc["findings"] if f["severity"] == "error"]
    assert "--nnode-count" in f["message"] and f["line"] == 30


def test_a_whole_placeholder_argument_stands_where_flags_could_be(scratch):
    scratch.write("deploy_base.yaml", _manifest(False).replace("- --enable-dp-attention", "- {EXTRA_ARGS}"))
    code, doc = scratch.lint(".")
    assert ("PD023", 27) in _codes(doc) and ("PD023", 61) in _codes(doc) and not [c for c, _ in _codes(doc) if c.startswith("SGL0")]


LOWER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sglang-prefill
spec:
  template:
    spec:
      nodeSelector: {gpu: a100}
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.4
        resources: {}
        command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - m
        - --disaggregation-mode
        - prefill
        - --json-model-override-args
        - JSON
        - --tp-size
        - "TP"
"""


@pytest.mark.parametrize("json_arg,tp,bad", [
    ('{"rope_scaling": {"type": "yarn"}}', "2", None),
    ("{}", "2", None),
    ('{"A": 1}', "{tp}", "invalid int value: '{tp}'"),  # a lower-case format field: a literal, as before
    ("{}", "{TP:2}", "invalid int value: '{TP:2}'"),  # not a name alone in braces: as written
])
def test_flow_mappings_json_and_lower_case_fields_stay_as_before(scratch, json_arg, tp, bad):
    text = LOWER.replace("JSON", json.dumps(json_arg)).replace('"TP"', json.dumps(tp))
    scratch.write("prefill.yaml", text)
    code, doc = scratch.lint(".")
    [launch] = doc["launches"]
    errors = [f["message"] for f in doc["findings"] if f["severity"] == "error"]
    if bad is None:
        assert errors == [] and code == 0
        assert json.loads(launch["argv"][launch["argv"].index("--json-model-override-args") + 1]) == \
            json.loads(json_arg)
    else:
        assert any(bad in m for m in errors), errors


@pytest.mark.parametrize("quoted", [True, False])
def test_the_values_the_script_beside_the_template_substitutes(scratch, quoted):
    """deploy.sh's own defaults (`PREFILL_TP=${4:-16}`, `PREFILL_PD_ROLE="prefill"`), as pdlint's shell front-end
    reads the script (never run): the rendered argv the report's oracle accepted."""
    scratch.write("deploy.sh", DEPLOY_SH)
    scratch.write("deploy_base.yaml", _manifest(quoted))
    code, doc = scratch.lint(".")
    assert [c for c, _ in _codes(doc) if c != "SGL008"] == [] and code == 0
    assert _undecided(doc) == []
    argv = [l["argv"] for l in doc["launches"]]
    assert [a[a.index("--tp-size") + 1:a.index("--tp-size") + 7] for a in argv] == [
        ["16", "--dp-size", "4", "--enable-dp-attention", "--disaggregation-mode", "prefill"],
        ["16", "--dp-size", "16", "--enable-dp-attention", "--disaggregation-mode", "decode"]]


def test_a_script_one_directory_above_the_template_gives_its_values(scratch):
    """`deploy/deploy.sh` rendering `deploy/k8s/deploy_base.yaml` (stop 49 read the template's directory only:
    the values stayed unseen); a script two directories up is not read."""
    scratch.write("deploy/k8s/deploy_base.yaml", _manifest(False))
    scratch.write("deploy.sh", DEPLOY_SH.replace("deploy_base.yaml", "deploy/k8s/deploy_base.yaml"))
    code, doc = scratch.lint(".")
    assert ("--tp-size", "{PREFILL_TP}", "PREFILL_TP") in _undecided(doc)
    scratch.write("deploy/deploy.sh", DEPLOY_SH.replace("deploy_base.yaml", "k8s/deploy_base.yaml"))
    code, doc = scratch.lint(".")
    assert _undecided(doc) == [] and [c for c, _ in _codes(doc) if c != "SGL008"] == []
    argv = [l["argv"] for l in doc["launches"] if "prefill" in l["argv"]]
    assert argv and argv[0][argv[0].index("--tp-size") + 1] == "16"


def test_a_bad_script_default_is_reported_where_it_is_written(scratch):
    """SGLang's server_args: `assert self.tp_size % self.dp_size == 0` under --enable-dp-attention (16 % 5)."""
    scratch.write("deploy.sh", DEPLOY_SH.replace("PREFILL_DP=${5:-4}", "PREFILL_DP=${5:-5}"))
    scratch.write("deploy_base.yaml", _manifest(False))
    code, doc = scratch.lint(".")
    [f] = [f for f in doc["findings"] if f["severity"] == "error"]
    assert (f["code"], f["path"]) == ("SGL205", "deploy.sh") and code == 1
    assert any(r["note"] == "via {PREFILL_TP}, substituted by sed" for r in f["related"]), f["related"]
    code, doc = scratch.lint(".", "--var", "PREFILL_DP=4")  # (--var is above the script's default)
    assert [f for f in doc["findings"] if f["severity"] == "error"] == [] and code == 0


def test_a_value_the_script_does_not_know_or_gives_twice_stays_unseen(scratch):
    script = DEPLOY_SH.replace("PREFILL_TP=${4:-16}", "PREFILL_TP=$4").replace(
        'sed "s#{DECODE_DP}#${DECODE_DP}#g"', 'sed "s#{DECODE_DP}#${DECODE_DP}#g" | sed "s#{DECODE_DP}#8#g"')
    scratch.write("deploy.sh", script)
    scratch.write("deploy_base.yaml", _manifest(False))
    code, doc = scratch.lint(".")
    assert sorted(_undecided(doc)) == [("--dp-size", "{DECODE_DP}", "DECODE_DP"),
                                       ("--tp-size", "{PREFILL_TP}", "PREFILL_TP")] and code == 0


def test_an_image_placeholder_takes_the_scripts_value(scratch):
    """An args-only container: `image: {IMAGE}` is what decides the entry point (vllm/vllm-openai runs `vllm
    serve`), as `image: ${IMAGE}` with `--var IMAGE=...` does for an envsubst template."""
    scratch.write("p.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {NAME}-prefill
        spec:
          template:
            spec:
              containers:
              - name: vllm
                image: {IMAGE}
                args:
                - --model=Qwen/Qwen3-0.6B
                - --tensor-parallel-size={TP}
        """)
    code, doc = scratch.lint(".")
    assert doc["launches"] == [] and code == 0  # (the image is unseen: no entry point, as before)
    scratch.write("d.sh", """\
        IMAGE=vllm/vllm-openai:v0.11.0
        sed "s#{IMAGE}#${IMAGE}#g; s#{TP}#2#g" p.yaml | kubectl apply -f -
        """)
    code, doc = scratch.lint(".")
    [launch] = doc["launches"]
    assert launch["argv"][-1] == "--tensor-parallel-size=2" and launch["role"] == "prefill"


SH_C = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "{NAME}-prefill"
spec:
  template:
    spec:
      containers:
      - name: sgl
        image: lmsysorg/sglang:v0.5.4
        command: ["sh", "-c"]
        args:
        - python3 -m sglang.launch_server --model-path m --tp-size TP --disaggregation-mode prefill
"""


def test_a_placeholder_word_of_a_container_script(scratch):
    """`sh -c "... --tp-size {PREFILL_TP}"`: the shell passes `{PREFILL_TP}` as written (no brace expansion
    without a comma), so only the template's script can have meant it: unseen, or the script's value."""
    scratch.write("p.yaml", SH_C.replace("TP --", "{PREFILL_TP} --"))
    code, doc = scratch.lint(".")
    assert not [f for f in doc["findings"] if f["severity"] == "error"] and code == 0
    assert _undecided(doc) == [("--tp-size", "{PREFILL_TP}", "PREFILL_TP")]
    scratch.write("render.sh", 'sed -e "s/{PREFILL_TP}/two/" p.yaml > out.yaml\n')
    code, doc = scratch.lint(".")
    [f] = [f for f in doc["findings"] if f["severity"] == "error"]
    assert f["code"] == "SGL005" and "invalid int value: 'two'" in f["message"] and f["path"] == "render.sh"


@pytest.mark.parametrize("tp", ["{tp}", "${TP}x", "{TP:2}"])
def test_other_braces_in_a_container_script_stay_as_before(scratch, tp):
    scratch.write("p.yaml", SH_C.replace("TP --", tp + " --"))
    code, doc = scratch.lint(".")
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    if tp == "${TP}x":  # (the shell's variable: unset here, as before)
        assert errors == [] and _undecided(doc) != []
    else:
        assert [f["code"] for f in errors] == ["SGL005"] and tp in errors[0]["message"]


# -- rw33/h items 1, 2, 3, 4, 11 -------------------------------------------------------------------------------

TP_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: prefill
spec:
  template:
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.5.4
        command:
        - python3
        - -m
        - sglang.launch_server
        - --model-path
        - m
        - --tp-size
        - {TP}
        - --disaggregation-mode
        - prefill
"""


def _errors(doc):
    return [(f["code"], f["path"], f["message"]) for f in doc["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize("render", [
    "sed -e 's#{TP}#{N}#g' -e 's#{N}#2#g' t.yaml | kubectl apply -f -",
    "sed 's#{TP}#{N}#g; s#{N}#2#g' t.yaml | kubectl apply -f -",
    'sed "s#{TP}#{N}#g" t.yaml | sed "s#{N}#2#g" | kubectl apply -f -',
])
def test_a_later_substitution_fills_an_earlier_value(scratch, render):
    """rw33/h item 2: sed runs each command in order on the line, so `-e 's#{TP}#{N}#g' -e 's#{N}#2#g'` gives
    `--tp-size 2` (the server accepts it); pdlint took `{N}` literally: SGL005 invalid int value: '{N}'."""
    scratch.write("t.yaml", TP_TEMPLATE)
    scratch.write("deploy.sh", render + "\n")
    code, doc = scratch.lint(".")
    assert _errors(doc) == [] and code == 0 and _undecided(doc) == []
    [launch] = doc["launches"]
    assert launch["argv"][launch["argv"].index("--tp-size") + 1] == "2"


def test_a_value_left_holding_a_placeholder_is_undecided(scratch):
    """`s#{N}#2#` runs before `s#{TP}#{N}#`: the line keeps `{N}` - which pdlint never takes as the value."""
    scratch.write("t.yaml", TP_TEMPLATE)
    scratch.write("deploy.sh", "sed -e 's#{N}#2#g' -e 's#{TP}#{N}#g' t.yaml | kubectl apply -f -\n")
    code, doc = scratch.lint(".")
    assert _errors(doc) == [] and _undecided(doc) == [("--tp-size", "{TP}", "TP")]


@pytest.mark.parametrize("render,value", [
    ('sed "s#{TP}#banana#g" t.yaml > out.yaml', "banana"),
    ('cat t.yaml | sed "s#{TP}#banana#g" | kubectl apply -f -', "banana"),
    ('sed "s#{TP}#banana#g" < t.yaml | kubectl apply -f -', "banana"),
    ('sed -i "s#{TP}#banana#g" t.yaml', "banana"),
    ('sed "s#{TP}#banana#g" other.yaml | kubectl apply -f -  # t.yaml', None),  # (another file's sed)
    ('echo "renders t.yaml"; sed "s#{TP}#banana#g" other.yaml > o.yaml', None),
    ('# sed "s#{TP}#banana#g" t.yaml\nsed "s#{X}#1#g" other.yaml', None),  # (a comment)
    ('echo sed "s#{TP}#banana#g" t.yaml', None),  # (an echo)
])
def test_only_a_sed_that_reads_the_template_gives_its_value(scratch, render, value):
    """rw33/h item 3: a sed on prefill.yaml and one on decode.yaml - the decode's value was given to the prefill
    file's {TP} too, which sed never substitutes (SGLang refuses the literal: invalid int value: '{TP}')."""
    scratch.write("t.yaml", TP_TEMPLATE)
    scratch.write("deploy.sh", render + "\n")
    code, doc = scratch.lint(".")
    if value:
        assert [c for c, _, m in _errors(doc) if f"'{value}'" in m] == ["SGL005"] and code == 1
    else:
        assert _errors(doc) == [] and _undecided(doc) == [("--tp-size", "{TP}", "TP")] and code == 0


def test_each_file_gets_the_value_of_its_own_sed(scratch):
    scratch.write("prefill.yaml", TP_TEMPLATE)
    scratch.write("decode.yaml", TP_TEMPLATE.replace("prefill", "decode"))
    scratch.write("deploy.sh", 'sed "s#{DP}#2#g" prefill.yaml | kubectl apply -f -\n'
                               'sed "s#{TP}#8#g" decode.yaml | kubectl apply -f -\n')
    code, doc = scratch.lint(".")
    assert _undecided(doc) == [("--tp-size", "{TP}", "TP")]
    [decode] = [l for l in doc["launches"] if l["role"] == "decode"]
    assert decode["argv"][decode["argv"].index("--tp-size") + 1] == "8"


def test_many_scripts_beside_the_template_do_not_hide_the_one_that_renders_it(scratch):
    """rw33/h item 11: the 17th `.sh` of the directory (by name) was never read: a clean pass on 'banana'."""
    scratch.write("t.yaml", TP_TEMPLATE)
    scratch.write("deploy.sh", 'sed "s#{TP}#banana#g" t.yaml | kubectl apply -f -\n')
    for i in range(20):
        scratch.write(f"a{i:02d}.sh", f"echo {i}\n")
    code, doc = scratch.lint(".")
    assert [c for c, _, _ in _errors(doc)] == ["SGL005"] and code == 1


def test_a_bound_that_cuts_a_renderer_leaves_the_placeholders_undecided(scratch, monkeypatch):
    """The scripts a run reads for sed values are bounded in bytes: a cut script never leaves a value that
    another script gives (never a wrong value); a PD015 says the placeholders were left undecided."""
    import pdlint.extract as X
    scratch.write("t.yaml", TP_TEMPLATE)
    scratch.write("a.sh", 'sed "s#{TP}#2#g" t.yaml | kubectl apply -f -\n')
    scratch.write("b.sh", 'sed "s#{TP}#banana#g" t.yaml | kubectl apply -f -\n' + "# pad\n" * 20)
    monkeypatch.setattr(X, "_MAX_SED_TEMPLATE_BYTES", 60)
    code, doc = scratch.lint(".")
    assert _errors(doc) == [] and _undecided(doc) == [("--tp-size", "{TP}", "TP")]
    [note] = [f for f in doc["findings"] if f["code"] == "PD015"]
    assert note["path"] == "t.yaml" and "not read" in note["message"]


def test_each_script_is_evaluated_once_a_run(scratch, monkeypatch):
    """rw33/h item 4: each template re-ran the shell front-end over every script beside it (40 templates, 4
    scripts of 60 KB: 20 s); a script is evaluated once a run."""
    import pdlint.formats.shell as S
    calls = []
    real = S.shell_commands
    monkeypatch.setattr(S, "shell_commands", lambda *a, **k: calls.append(1) or real(*a, **k))
    names = [f"t{i:02d}.yaml" for i in range(12)]
    for n in names:
        scratch.write(n, TP_TEMPLATE.replace("name: prefill", f"name: p{n[1:3]}"))
    scratch.write("deploy.sh", "".join(f'sed "s#{{TP}}#2#g" {n} | kubectl apply -f -\n' for n in names))
    code, doc = scratch.lint(".", "-j", "1", "--debug")  # (in this process: the calls are counted)
    assert len(doc["launches"]) == 12 and _undecided(doc) == [] and _errors(doc) == []
    assert len(calls) <= 2  # (deploy.sh's own check, and its sed values: once)


def test_the_hook_naming_only_the_script_checks_the_templates_it_renders(scratch_git, capsys):
    """rw33/h item 1: pre-commit runs `pdlint check deploy.sh` when a commit touches only the script: it said
    "No launch text found in 1 file." (exit 0) where `pdlint check .` reports SGL005 invalid int value: 'banana'
    at the script's line.  The template it renders (names and substitutes into) is checked with it, as a decode
    script's prefill sibling is; a YAML file the script only mentions in a comment, or without a placeholder, is not."""
    import subprocess
    scratch_git.write("k8s/t.yaml", TP_TEMPLATE)
    scratch_git.write("plain.yaml", TP_TEMPLATE.replace("{TP}", '"2"'))
    scratch_git.write("noted.yaml", TP_TEMPLATE)
    scratch_git.write("deploy.sh", "# see noted.yaml\ncat plain.yaml\n"
                                   "sed -e 's#{TP}#banana#g' k8s/t.yaml | kubectl apply -f -\n")
    subprocess.run(["git", "add", "-A"], check=True)
    code, doc = scratch_git.lint("deploy.sh")
    assert [(c, p) for c, p, m in _errors(doc) if "'banana'" in m] == [("SGL005", "deploy.sh")] and code == 1
    assert sorted(doc["coverage"]["files"]) == ["deploy.sh", "k8s/t.yaml"]
    scratch_git.write("deploy.sh", "echo hello\n")  # (no sed substitution: nothing brought in)
    code, doc = scratch_git.lint("deploy.sh")
    assert doc["launches"] == [] and code == 0
