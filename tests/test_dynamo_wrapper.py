"""python -m dynamo.sglang: Dynamo's own parsers run first, SGLang sees the rest."""

import shlex

from pdlint.engines.sglang import dynamo, flags
from pdlint.engines.sglang.engine import EngineContext, candidates, interpret
from pdlint.model import Launch
from pdlint.text import TStr


def run(argv, entrypoint="python -m dynamo.sglang", image=""):
    toks = [TStr.synthetic(w, "<t>") for w in shlex.split(argv)]
    launch = Launch("<t>", 1, "sglang", entrypoint, "server", command=[TStr.synthetic("python", "<t>")],
                    argv=toks, meta={"image": image})
    interpret(launch, EngineContext(lambda tok, l: None))
    from pdlint.rules import all_rules
    rules = all_rules()
    return launch, [c.code for c in candidates(launch, lambda code: rules[code].severity == "error")]


def test_dynamo_flags_are_consumed_and_sglang_flags_pass_through():
    launch, codes = run("--model-path m --endpoint dyn://ns.backend.generate --enable-m --disaggregation-mode prefill "
                        "--tp 2")
    w = launch.parsed.wrapper
    assert w.version == dynamo.versions()[0]
    assert [t.text for t in w.consumed] == ["--endpoint", "dyn://ns.backend.generate", "--enable-m"]
    assert launch.role == "prefill" and launch.parsed.args.get("tp_size") == 2
    assert codes == []


def test_dynamo_mode_rewrite_and_bootstrap_port():
    launch, _ = run("--model-path m --disaggregation-mode pd")
    assert launch.role == "null"
    assert launch.parsed.args.known("disaggregation_bootstrap_port") is False  # Dynamo picks a free port
    launch, _ = run("--model-path m --disaggregation-mode decode --disaggregation-bootstrap-port 9000")
    assert launch.parsed.args.get("disaggregation_bootstrap_port") == 9000


def test_dynamo_ambiguous_and_unknown_flags():
    _, codes = run("--model-path m --enable 1")
    assert "SGL002" in codes  # --enable is ambiguous in Dynamo's own parser
    _, codes = run("--model-path m --migration-limit 3", image="nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.6.1")
    assert codes == ["SGL009"]  # moved to the frontend: a 1.x worker rejects it (a flag of 0.x workers)
    _, codes = run("--model-path m --migration-lmit 3")
    assert codes == ["SGL001"]  # no Dynamo release has it


def test_old_worker_module_uses_the_release_that_has_it():
    launch, codes = run("--model-path m --migration-limit 3 --disaggregation-mode prefill",
                        entrypoint="python -m dynamo.sglang.worker")
    # the newest Dynamo release that still ships python -m dynamo.sglang.worker
    assert launch.parsed.wrapper.version == "0.5.1" and codes == []


def test_gms_load_format_only_through_dynamo():
    _, codes = run("--model-path m --load-format gms")
    assert codes == []
    table = flags.load("0.5.23")
    assert "gms" not in table.lookup("--load-format").choices


def test_dynamo_launches_are_judged_against_the_sglang_their_release_installs():
    launch, _ = run("--model-path m --disaggregation-mode prefill")
    assert launch.parsed.version == "0.5.21"  # Dynamo 1.6.1 installs sglang 0.5.21
    launch, _ = run("--model-path m --disaggregation-mode prefill", entrypoint="python -m dynamo.sglang.worker")
    assert launch.parsed.version == "0.5.0rc2"
    launch, _ = run("--model-path m", image="nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.2")
    assert launch.parsed.wrapper.version == "1.0.2" and launch.parsed.version == "0.5.9"
