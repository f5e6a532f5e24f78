"""PD111: sglang-router's own flags and choices (field test rw19/b, repro 7: an `lmsysorg/sgl-model-gateway:v0.3.1`
StatefulSet shaped after a public SMG HA design doc, with `--bogus-router-flag` and `--policy cache_awar`, counted as
a checked router; sglang-router 0.3.2 `sglang_router/launch_router.py:100` `parser.parse_args(args)` stops with
"unrecognized arguments" / "invalid choice", router_args.py:245 the `--policy` choices).  The quiet cases include the
router commands of sgl-project/rbg (examples/inference/pd-disagg-standalone.yaml, the deprecated v1alpha1
sglang-pd.yaml), sgl-project/ome (config/runtimes/srt/deepseek-rdma-pd-rt.yaml), vllm-project/aibrix
(samples/disaggregation/sglang/tp-1p1d.yaml) and shun8686/sglang (test/manual/ascend/lts/launch_deepseek_r1_prefill.sh)
from the shared corpus.  No test reaches the network: the generator is tested on a wheel built here."""

import argparse
import json
import sys
import zipfile

import pytest

from pdlint.engines.sglang import router_flags

SERVERS = ("python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 "
           "--base-gpu-id 0 &\n"
           "python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001 "
           "--base-gpu-id 1 &\n")
PD = "--pd-disaggregation --prefill http://localhost:30000 8998 --decode http://localhost:30001"

SMG_BOGUS = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: smg-group-1
spec:
  replicas: 1
  serviceName: smg
  selector: {matchLabels: {app: smg}}
  template:
    metadata: {labels: {app: smg}}
    spec:
      containers:
        - name: smg
          image: lmsysorg/sgl-model-gateway:v0.3.1
          args:
            - --pd-disaggregation
            - --bogus-router-flag
            - --prefill
            - http://prefill-group-1:30001
            - "9001"
            - --decode
            - http://decode-group-1:30011
            - --policy
            - %s
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: prefill-group-1
spec:
  replicas: 1
  serviceName: prefill-group-1
  selector: {matchLabels: {app: p}}
  template:
    metadata: {labels: {app: p}}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --model-path, /m, --port, "30001",
                    --disaggregation-mode, prefill, --disaggregation-bootstrap-port, "9001"]
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: decode-group-1
spec:
  replicas: 1
  serviceName: decode-group-1
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.23
          command: [python3, -m, sglang.launch_server, --model-path, /m, --port, "30011", --disaggregation-mode, decode]
"""


def _pd111(report) -> list:
    return [(f["line"], f["column"], f["message"]) for f in report["findings"] if f["code"] == "PD111"]


PIN = "pip install sglang-router==0.3.2\n"  # (a pinned router release: its rejections are errors)


def _run(scratch_git, router: str, name: str = "run.sh", pin: str = PIN) -> list:
    scratch_git.write(name, pin + SERVERS + router + "\n")
    _, report = scratch_git.lint(name)
    return _pd111(report)


# --- fires ---------------------------------------------------------------------------------------------------------

def test_repro_unknown_flag_and_bad_policy(scratch_git):
    scratch_git.write("smg.yaml", SMG_BOGUS % "cache_awar")
    code, report = scratch_git.lint("smg.yaml")
    found = _pd111(report)
    assert [(l, c) for l, c, _ in found] == [(17, 15), (24, 15)]
    assert found[0][2].startswith("unrecognized arguments: --bogus-router-flag (no sglang-router release from "
                                  "0.1.0 to 0.3.2 has this flag")
    assert found[1][2].startswith("argument --policy: invalid choice: 'cache_awar' (choose from 'random', "
                                  "'round_robin', 'cache_aware', 'power_of_two', 'manual')")
    assert found[1][2].endswith("did you mean cache_aware?)")
    assert code == 1


def test_repro_with_a_valid_policy_keeps_only_the_unknown_flag(scratch_git):
    scratch_git.write("smg.yaml", SMG_BOGUS % "cache_aware")
    _, report = scratch_git.lint("smg.yaml")
    assert [l for l, _, _ in _pd111(report)] == [17]


def test_typo_gets_a_suggestion(scratch_git):
    (found,) = _run(scratch_git, f"python -m sglang_router.launch_router {PD} --prefil-policy cache_aware")
    assert found[2] == ("unrecognized arguments: --prefil-policy (no sglang-router release from 0.1.0 to 0.3.2 has "
                        "this flag; did you mean --prefill-policy?)")
    assert found[:2] == (4, len("python -m sglang_router.launch_router " + PD) + 2)  # (line 1: the pin)


def test_an_unpinned_router_gets_typos_only_as_warnings(scratch_git):
    # the router SGLang's images build is newer than the table (SemiAnalysisAI/InferenceX: `--policy
    # consistent_hashing`, "sglang-router >= 0.5.14"): no pin, no error; a likely typo is a warning
    router = f"python -m sglang_router.launch_router {PD} --policy consistent_hashing --prefil-policy cache_aware"
    scratch_git.write("run.sh", SERVERS + router + "\n")
    _, report = scratch_git.lint("run.sh")
    found = [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "PD111"]
    assert len(found) == 1 and found[0][0] == "warning" and "did you mean --prefill-policy?" in found[0][1]
    assert _run(scratch_git, router)[0][2].startswith("argument --policy: invalid choice: 'consistent_hashing'")


@pytest.mark.parametrize("router, bad", [
    (f"python -m sglang_router.launch_router {PD} --log-level=verbose", "verbose"),
    (f"python -m sglang_router.launch_router {PD} --decode-pol bucket", "bucket"),  # abbreviation of --decode-policy
    (f"python -m sglang_router.launch_router {PD} --history-backend sqlite", "sqlite"),
])
def test_bad_choice(scratch_git, router, bad):
    (found,) = _run(scratch_git, router)
    assert f"invalid choice: {bad!r}" in found[2]


@pytest.mark.parametrize("cli", ["python -m sglang_router launch", "python3 -m sglang_router launch",
                                 "sglang-router launch", "python3 -m sglang_router.launch_router",
                                 "python sglang_router/launch_router.py"])
def test_every_entry_point_of_the_router_parser(scratch_git, cli):
    found = _run(scratch_git, f"{cli} {PD} --bogus-router-flag")
    assert [m for _, _, m in found] == [
        "unrecognized arguments: --bogus-router-flag (no sglang-router release from 0.1.0 to 0.3.2 has this flag)"]


def test_ambiguous_prefix(scratch_git):
    (found,) = _run(scratch_git, f"python -m sglang_router.launch_router {PD} --prefill- x")
    assert found[2] == "ambiguous option: --prefill- could match --prefill-policy, --prefill-selector"


def test_unknown_flag_with_a_value_attached(scratch_git):
    (found,) = _run(scratch_git, f"python -m sglang_router.launch_router {PD} --bogus=1")
    assert found[2].startswith("unrecognized arguments: --bogus=1 (")


# --- quiet ---------------------------------------------------------------------------------------------------------

def test_repro_real_commands_are_quiet(scratch_git):
    scratch_git.write("smg.yaml", (SMG_BOGUS % "cache_aware").replace("            - --bogus-router-flag\n", ""))
    code, report = scratch_git.lint("smg.yaml")
    assert _pd111(report) == [] and code == 0
    (router,) = [l for l in report["launches"] if l["kind"] == "router"]
    assert router["entrypoint"] == "python -m sglang_router.launch_router"


@pytest.mark.parametrize("args", [
    # sgl-project/rbg examples/deprecated/v1alpha1/pd-disagg/sglang/sglang-pd.yaml
    "--log-level debug --pd-disaggregation --host 0.0.0.0 --port 8000 --prefill "
    "http://sglang-pd-prefill-0.s-sglang-pd-prefill:8000 34000 --decode "
    "http://sglang-pd-decode-0.s-sglang-pd-decode:8000 --policy random --prometheus-host 0.0.0.0 "
    "--prometheus-port 9090",
    # sgl-project/ome config/runtimes/srt/deepseek-rdma-pd-rt.yaml (shape)
    "--host 0.0.0.0 --port 8080 --pd-disaggregation --policy power_of_two --service-discovery "
    "--service-discovery-namespace default --service-discovery-port 8080 --prefill-selector component=engine "
    "leaderworkerset.sigs.k8s.io/worker-index=0 --decode-selector component=decoder "
    "leaderworkerset.sigs.k8s.io/worker-index=0",
    # shun8686/sglang test/manual/ascend/lts/launch_deepseek_r1_prefill.sh
    "--pd-disaggregation --host 127.0.0.1 --port 6688 --prefill http://141.61.39.231:8000 8995 "
    "--decode http://141.61.29.201:8001",
    # alexsun07/recipe sglang_pd_disagg_mooncake/start_router.sh
    "--pd-disaggregation --mini-lb --prefill http://10.2.224.31:30002 --decode http://10.2.224.32:30003 "
    "--host 0.0.0.0 --port 8000",
    # abbreviations (allow_abbrev): unique prefixes, with a value attached or not
    "--pd-dis --prefill http://p:30000 8998 --prefill http://p2:30000 none --decode http://d:30001 "
    "--pol cache_aware --prefill-pol=bucket --decode-policy=power_of_two",
    # values that look like flags to no parser: negative numbers, a value with a space
    "--pd-disaggregation --prefill http://p:30000 --decode http://d:30001 --balance-abs-threshold -5 "
    "--cache-threshold -.5 --api-key '-a key'",
    # flags only old releases have, open choices, the words after `--`
    "--worker-urls http://a:1 http://b:2 --verbose --eviction-interval 60 --tool-call-parser anything "
    "-- --not-parsed",
    # one value per item, every option of 0.3.2 with a choice given a valid one
    "--pd-disaggregation --prefill http://p:30000 --decode http://d:30001 --assignment-mode min_load --backend "
    "openai --history-backend none --log-level warn --prefill-policy manual --decode-policy round_robin",
])
def test_real_and_valid_router_commands(scratch_git, args):
    assert _run(scratch_git, f"python -m sglang_router.launch_router {args}") == []


@pytest.mark.parametrize("router", [
    f"python -m sglang_router.launch_router {PD} --policy $POLICY",
    f"python -m sglang_router.launch_router {PD} --policy=${{POLICY}}",
    f"python -m sglang_router.launch_router {PD} --${{KIND}}-policy cache_awar",
    f"python -m sglang_router.launch_router {PD} --policy $POLICY_AND_MORE cache_awar",  # ($X may be empty)
])
def test_opaque_words_are_not_judged(scratch_git, router):
    assert _run(scratch_git, router) == []


def test_a_literal_flag_beside_an_unseen_word_is_still_judged(scratch_git):
    """No value of $EXTRA_ROUTER_ARGS makes argparse accept `--bogus-router-flag` (after a value-taking flag it is
    "expected one argument", after `--` a stray positional): the launch is not incomplete for PD111."""
    found = _run(scratch_git, f"python -m sglang_router.launch_router {PD} $EXTRA_ROUTER_ARGS --bogus-router-flag")
    assert [m.split(" (")[0] for _, _, m in found] == ["unrecognized arguments: --bogus-router-flag"]


@pytest.mark.parametrize("cli", [
    # (`sglang_router.launch_server` / `sglang-router server`: their `--router-*` words are PD111's, the rest are
    # SGLang server flags: tests/test_router_launch_server.py)
    "smg server --model-path m",
    "python -m sglang.srt.disaggregation.mini_lb",  # mini_lb has its own parser
    "vllm-router",  # vLLM's router
    "python -m sglang_router",  # no sub-command: PD108
    # lightseekorg/smg (Shepherd Model Gateway, the project sglang-router became) has `smg` / `amg launch` too, with
    # options and choices no sglang-router release has
    "smg launch --enable-rl --prefix-token-count 256 --policy prefix_hash --backend vllm",
    "amg launch --enable-rl",
])
def test_other_routers_are_not_judged_with_this_table(scratch_git, cli):
    assert _run(scratch_git, f"{cli} {PD} --bogus-router-flag --policy cache_awar") == []


@pytest.mark.parametrize("image", ["lmsysorg/sgl-model-gateway:latest", "lmsysorg/sgl-model-gateway",
                                   "docker.io/lmsysorg/sgl-model-gateway:v0.4.0", "lmsysorg/sglang-router:v1.0.0"])
def test_a_router_image_newer_than_the_table_is_not_judged(scratch_git, image):
    scratch_git.write("smg.yaml", (SMG_BOGUS % "cache_awar").replace("lmsysorg/sgl-model-gateway:v0.3.1", image))
    _, report = scratch_git.lint("smg.yaml")
    assert [l["kind"] for l in report["launches"]].count("router") == 1
    assert _pd111(report) == []


def test_a_router_image_of_a_known_release_is_judged(scratch_git):
    scratch_git.write("smg.yaml", (SMG_BOGUS % "cache_awar").replace("lmsysorg/sgl-model-gateway:v0.3.1",
                                                                     "lmsysorg/sglang-router:v0.1.9"))
    _, report = scratch_git.lint("smg.yaml")
    assert [l for l, _, _ in _pd111(report)] == [17, 24]


def test_a_huge_router_command_is_bounded(scratch_git):
    words = " ".join(f"--pd-disaggregation --policy random" for _ in range(3000))
    found = _run(scratch_git, f"python -m sglang_router.launch_router {words} --bogus-router-flag")
    assert found == []  # (past MAX_WORDS: not judged, and no hang)


# --- the emulation agrees with argparse ---------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):  # (Python 3.11 reports an ambiguous prefix through error(), not ArgumentError)
        raise SystemExit(message)


def _parser(rel) -> argparse.ArgumentParser:
    p = _Parser(add_help=False, exit_on_error=False)
    for name, (nargs, choices) in rel.options.items():
        if nargs == 0:
            p.add_argument(name, action="store_true")
        else:
            p.add_argument(name, nargs=nargs, choices=choices)
    return p


WORDS = ["--policy", "--pol", "--p", "--pre", "--prefill", "--prefill-", "--prefill-p", "--bogus", "--bogus=1",
         "--policy=random", "--pol=random", "-h", "-x", "-5", "-.5", "--a b", "--service-discovery",
         "--service-discovery-n", "--decode-s", "--verbose", "--eviction", "--help", "-hx", "--worker", "--max"]


@pytest.mark.parametrize("rel", router_flags.releases(), ids=lambda r: r.version)
def test_resolve_agrees_with_argparse(rel):
    parser = _parser(rel)
    for w in WORDS:
        kind, _ = router_flags.resolve(w, rel)
        try:
            parsed = parser._parse_optional(w)
        except (argparse.ArgumentError, SystemExit):
            assert kind == "ambiguous", w
            continue
        if parsed is None:
            assert kind == "value", w
        elif (parsed[0] if sys.version_info < (3, 12, 7) else parsed[0][0]) is None:
            assert kind == "unknown", w
        else:
            assert kind == "option", w


def test_table_shape():
    rels = router_flags.releases()
    assert [r.version for r in rels][0] == "0.1.0" and "0.3.2" in [r.version for r in rels]
    newest = rels[-1].options
    assert newest["--policy"] == (None, ("random", "round_robin", "cache_aware", "power_of_two", "manual"))
    assert newest["--prefill"][0] == "+" and newest["--decode"][0] == 1
    assert newest["--tool-call-parser"][1] is None  # computed at run time: open


# --- the generator, on a wheel built here -----------------------------------------------------------------------

def test_generator_reads_the_parser_of_a_wheel(tmp_path):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "scripts"))
    try:
        import gen_router_flags
    finally:
        sys.path.pop(0)
    whl = tmp_path / "sglang_router-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        z.writestr("sglang_router-9.9.9.dist-info/METADATA", "Metadata-Version: 2.1\nName: sglang-router\n"
                                                            "Version: 9.9.9\n")
        z.writestr("sglang_router/__init__.py", "")
        z.writestr("sglang_router/launch_router.py", """\
import argparse
import setproctitle
from sglang_router.sglang_router_rs import PolicyType, get_available_tool_call_parsers


def parse_router_args(args):
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", choices=["random", "cache_aware"])
    parser.add_argument("--prefill", nargs="+", action="append")
    parser.add_argument("--tool-call-parser", choices=get_available_tool_call_parsers())
    parser.add_argument("--pd-disaggregation", action="store_true")
    return parser.parse_args(args)
""")
    table = gen_router_flags.build([str(whl)])
    out = json.loads(gen_router_flags.dumps(table))
    assert out["releases"][0]["version"] == "9.9.9"
    opts = out["options"]
    assert sorted(opts) == ["--help", "--pd-disaggregation", "--policy", "--prefill", "--tool-call-parser", "-h"]
    assert opts["--policy"]["choices"] == {"9.9.9": ["random", "cache_aware"]}
    assert opts["--policy"]["source"] == "sglang-router 9.9.9 sglang_router/launch_router.py:8"
    assert opts["--prefill"]["nargs"] == "+" and opts["--prefill"]["action"] == "append"
    assert opts["--pd-disaggregation"]["nargs"] == 0
    assert "choices" not in opts["--tool-call-parser"] and opts["--tool-call-parser"]["choices_note"]
