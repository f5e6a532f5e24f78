"""``python -m dynamo.vllm`` in a Dynamo runtime image is judged against the vLLM that Dynamo release installs
(data/dynamo-vllm-pins.json, from the ai-dynamo wheels' ``vllm`` extra), not against the newest table: a flag
vLLM added later fails in that image."""

import pytest

from pdlint.engines.vllm import flags

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
  - name: prefill
    image: {image}
    command: [python3, -m, dynamo.vllm, --model, Qwen/Qwen3-8B{extra}]
"""


def _lint(scratch, image, extra=""):
    scratch.write("d.yaml", POD.format(image=image, extra=extra))
    return scratch.lint("d.yaml")


@pytest.mark.parametrize("image,version", [
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.0", "0.10.2"),   # pins 0.10.2: a table of its own
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.1", "0.11.0"),   # pins 0.12.0: the nearest older table
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1", "0.20.0"),   # pins 0.31.0
])
def test_the_dynamo_images_vllm_release_is_judged(scratch, image, version):
    _, doc = _lint(scratch, image)
    (launch,) = doc["launches"]
    assert launch["engine_version"] == version


MOONCAKE = ", {role}, --kv-transfer-config, '{{\"kv_connector\":\"{conn}\",\"kv_role\":\"kv_both\"}}'"


def test_a_connector_vllm_added_later_fails_in_an_older_dynamo_image(scratch):
    # Dynamo 0.7.0 installs vLLM 0.11.0, which registers no MooncakeConnector (it came in vLLM 0.12)
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0",
                   MOONCAKE.format(role="--is-prefill-worker", conn="MooncakeConnector"))
    (f,) = doc["findings"]
    assert f["code"] == "VLLM031" and "vLLM 0.11.0 does not register it" in f["message"]


@pytest.mark.parametrize("tag", ["1.0.0", "1.6.1"])
def test_the_same_connector_is_clean_in_a_newer_dynamo_image(scratch, tag):
    # (1.0.0: vLLM 0.16.0, between the 0.11.0 and 0.20.0 tables: a connector the newer table registers may be
    # there, so it is not reported; 1.6.1: vLLM 0.31.0, judged against 0.20.0, which registers it)
    code, doc = _lint(scratch, f"nvcr.io/nvidia/ai-dynamo/vllm-runtime:{tag}",
                      MOONCAKE.format(role="--disaggregation-mode, prefill", conn="MooncakeConnector"))
    assert code == 0 and doc["findings"] == []


def test_a_misspelt_connector_is_reported_between_tables_with_its_did_you_mean(scratch):
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
                   MOONCAKE.format(role="--disaggregation-mode, prefill", conn="MooncakeConector"))
    (f,) = doc["findings"]
    assert f["code"] == "VLLM031" and "did you mean MooncakeConnector?" in f["message"]


def test_dynamo_pin_reads_the_table_and_falls_back_to_the_nearest_older_release():
    assert flags.dynamo_pin("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.1") == ("0.8.1", "0.12.0")
    assert flags.dynamo_pin("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.9-cuda13") == ("0.8.9", "0.12.0")
    assert flags.dynamo_pin("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.1.0") is None  # older than the table
    assert flags.dynamo_pin("vllm/vllm-openai:v0.10.2") is None


# -- unknown options of a dynamo.vllm worker: Dynamo hands what it does not define to vLLM's parser ------------

DYN_FLAGS = (", --disaggregation-mode, prefill, --discovery-backend, file, --request-plane, tcp, --event-plane, zmq, "
             "--dyn-tool-call-parser, hermes, --migration-limit, '3', --headless, --connector, nixl, --aic-tp-size, '1'")


def test_a_misspelt_option_of_a_dynamo_vllm_worker_is_vllm018(scratch):
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1", DYN_FLAGS + ", --tensor-parallel-sise, '2'")
    codes = [(f["code"], f["message"]) for f in doc["findings"] if f["code"] == "VLLM018"]
    assert len(codes) == 1 and "did you mean --tensor-parallel-size?" in codes[0][1]
    assert "nor of Dynamo's vLLM worker" in codes[0][1]


def test_a_misspelt_option_of_a_later_release_is_reported_between_tables(scratch):
    """RenSilvaAU/optimise-llm with `--attention-backendz` (field test rw12/c): Dynamo 1.1.1 installs vLLM 0.19.0,
    judged against the 0.11.0 table, which has no `--attention-backend`: the near-miss went unreported."""
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1", DYN_FLAGS + ", --attention-backendz, X")
    (f,) = [f for f in doc["findings"] if f["code"] == "VLLM018"]
    assert "not a flag of any vLLM release pdlint knows nor of Dynamo's vLLM worker; did you mean " \
           "--attention-backend?" in f["message"]
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1", DYN_FLAGS + ", --attention-backend, X")
    assert not [f for f in doc["findings"] if f["code"] == "VLLM018"]


def test_dynamos_own_options_and_abbreviations_are_not_reported(scratch):
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1", DYN_FLAGS + ", --is-prefill")
    assert not [f for f in doc["findings"] if f["code"] == "VLLM018"]


def test_an_option_close_to_nothing_is_not_reported_on_a_dynamo_worker(scratch):
    # (Dynamo's options are known as a superset of option strings; one far from all of them may be a plugin's)
    _, doc = _lint(scratch, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.1", DYN_FLAGS + ", --zzzz-custom-thing")
    assert not [f for f in doc["findings"] if f["code"] == "VLLM018"]


# -- the generator's two vLLM tables, from a wheel built here (no network) -----------------------------------

def _generator():
    import importlib.util
    import os
    import sys
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "gen_dynamo_flags.py")
    spec = importlib.util.spec_from_file_location("gen_dynamo_flags_t", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, mod)
    spec.loader.exec_module(mod)
    return mod


def test_generator_reads_the_vllm_pin_and_the_worker_option_strings(tmp_path):
    import zipfile
    wheel = tmp_path / "ai_dynamo-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("ai_dynamo-9.9.9.dist-info/METADATA",
                   "Name: ai-dynamo\nRequires-Dist: sglang==0.5.9; extra == 'sglang'\n"
                   "Requires-Dist: vllm[flashinfer,runai]==0.16.0; extra == 'vllm'\n")
        z.writestr("dynamo/vllm/backend_args.py",
                   'add_argument(g, flag_name="--enable-foo", env_var="X")\n'
                   'raise ValueError("--connector is deprecated; use --kv-transfer-config")\n')
        z.writestr("dynamo/common/configuration/groups/runtime_args.py", "p.add_argument('--namespace')\n")
        z.writestr("dynamo/vllm/tests/test_x.py", 'add_argument("--only-in-a-test")\n')
    gen = _generator()
    assert gen.engine_pin(str(wheel), "vllm") == "0.16.0" and gen.engine_pin(str(wheel), "sglang") == "0.5.9"
    opts = gen.dynamo_vllm_options(str(wheel))
    assert {"--enable-foo", "--no-enable-foo", "--namespace"} <= opts
    assert "--connector" not in opts and "--only-in-a-test" not in opts  # (whole strings only; tests left out)


@pytest.mark.parametrize("image, release", [
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.1", "0.8.1"),
    ("nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.0.0.post1", "1.0.0.post1"),
    ("my.registry/Dynamo/vllm-runtime:v1.2.0", "1.2.0"),
    ("vllm/vllm-openai:v0.10.2", None),
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:latest", None),
    (None, None),
])
def test_one_reader_of_a_dynamo_image_release(image, release):
    """The SGLang and vLLM adapters and the vLLM Dynamo mode rule read the tag with one function."""
    from pdlint.engines import dynamo_image_release
    from pdlint.engines.sglang.dynamo import image_version
    assert dynamo_image_release(image) == release == image_version(image)
