"""The release a script runs with, from a file beside it (pdlint.formats.pins): the image of a Dockerfile
that runs it, an exact pip pin (field test rw7/a: littlemex/pd-disaggregated-inference-on-aws, whose
Dockerfile says vllm/vllm-openai:v0.17.0, and wang-zr12/PD-Disaggregation-Eval's `vllm==0.7.3`, were judged
against the newest vLLM and told to "pin the release")."""

import pytest

from pdlint.formats.pins import dockerfile_image, dockerfile_release, pip_pins

# PyNcclConnector and kv_buffer_size: vLLM 0.9.2-0.20.0, not the newest release (VLLM030 / VLLM032 there)
KV = '{"kv_connector":"PyNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2}'
SCRIPT = f"#!/bin/bash\nvllm serve Qwen/Qwen3-0.6B --port 8100 --kv-transfer-config '{KV}'\n"
ENTRY = """\
FROM vllm/vllm-openai:v0.9.2
RUN pip install nixl
COPY start.sh /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/start.sh"]
"""


def _version(scratch, *files):
    code, doc = scratch.lint(*files)
    (launch,) = doc["launches"]
    return launch["engine_version"], sorted({f["code"] for f in doc["findings"]})


def test_a_dockerfile_that_runs_the_script_pins_its_release(scratch):
    scratch.write("docker/start.sh", SCRIPT)
    assert _version(scratch, "docker/start.sh") != ("0.9.2", [])
    scratch.write("docker/Dockerfile", ENTRY)
    assert _version(scratch, "docker/start.sh") == ("0.9.2", [])


def test_a_dockerfile_that_does_not_name_the_script_pins_nothing(scratch):
    scratch.write("docker/start.sh", SCRIPT)
    scratch.write("docker/Dockerfile", ENTRY.replace("start.sh", "other.sh"))
    version, codes = _version(scratch, "docker/start.sh")
    assert version != "0.9.2" and "VLLM032" in codes


def test_the_launchs_own_image_wins(scratch):
    scratch.write("start.sh", SCRIPT.replace("vllm serve", "docker run --gpus all vllm/vllm-openai:v0.11.0"))
    scratch.write("Dockerfile", ENTRY)
    assert _version(scratch, "start.sh")[0] == "0.11.0"


@pytest.mark.parametrize("requirements,pinned", [
    ("torch\nvllm==0.9.2\n", True),
    ("vllm[audio] == 0.9.2 ; python_version >= '3.9'\n", True),
    ("vllm>=0.9.2\n", False),             # a range pins nothing
    ("# vllm==0.9.2\nvllm\n", False),
])
def test_a_pip_pin_beside_or_above_the_script(scratch, requirements, pinned):
    scratch.write("bench/scripts/start_pd.sh", SCRIPT)
    scratch.write("bench/requirements.txt", requirements)
    version, codes = _version(scratch, "bench/scripts/start_pd.sh")
    assert (version == "0.9.2" and codes == []) is pinned, (version, codes)


def test_a_pyproject_pin(scratch):
    scratch.write("run.sh", SCRIPT)
    scratch.write("pyproject.toml", '[project]\nname = "x"\ndependencies = [\n  "vllm==0.9.2",\n]\n')
    assert _version(scratch, "run.sh") == ("0.9.2", [])


def test_sglang_pin(scratch):
    scratch.write("run.sh", "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --disaggregation-mode "
                            "prefill --cuda-graph-bs 1 2 4\n")
    scratch.write("requirements.txt", "sglang[all]==0.4.8.post1\n")
    version, codes = _version(scratch, "run.sh")
    assert version == "0.4.8.post1" and "SGL012" not in codes


def test_dockerfile_parsing():
    assert dockerfile_image(ENTRY, "start.sh") == ("vllm/vllm-openai:v0.9.2", 1)
    multi = ('ARG BASE=lmsysorg/sglang:v0.4.8\n# build\nFROM --platform=linux/amd64 ${BASE} AS base\n'
             'COPY . /app\nFROM base\nCMD ["bash", "/app/run.sh"]\n')
    assert dockerfile_image(multi, "run.sh") == ("lmsysorg/sglang:v0.4.8", 3)
    assert dockerfile_image(multi.replace("run.sh", "x.sh"), "run.sh") is None
    assert dockerfile_image("FROM ${UNSET}\nCOPY run.sh /\n", "run.sh") is None
    assert dockerfile_image("FROM python:3.11 AS b\nCOPY run.sh /\nFROM scratch\n", "run.sh") is None
    cont = "FROM img:1\nCOPY \\\n  run.sh \\\n  /app/\n"
    assert dockerfile_image(cont, "run.sh") == ("img:1", 1)


def test_a_dockerfile_that_installs_the_engine_pins_its_release(scratch):
    """A `python:3.11` base names no engine; its `RUN pip install vllm==0.9.2` does."""
    scratch.write("docker/start.sh", SCRIPT)
    scratch.write("docker/Dockerfile", "FROM python:3.11-slim\nRUN apt-get update && \\\n"
                                       "    pip install --no-cache-dir 'vllm==0.9.2' nixl\nCOPY start.sh /\n"
                                       'CMD ["bash", "/start.sh"]\n')
    assert _version(scratch, "docker/start.sh") == ("0.9.2", [])


def test_dockerfile_run_pins():
    text = ("FROM python:3.11 AS base\nRUN pip install sglang==0.5.2\nFROM base\n"
            "RUN uv pip install --system 'sglang[all]==0.5.4'; pip uninstall -y vllm==0.9.2\nCOPY run.sh /\n")
    assert dockerfile_release(text, "run.sh") == ("python:3.11", 1, {"sglang": ("0.5.4", 4)})
    assert dockerfile_release(text.replace("[all]==0.5.4", ">=0.5.4"), "run.sh")[2] == {"sglang": ("0.5.2", 2)}
    assert dockerfile_release(text.replace("COPY run.sh", "COPY x.sh"), "run.sh") is None


def test_pip_pins():
    assert pip_pins("vllm==0.7.3\nsglang[all]==0.4.8 # pinned\ntensorrt_llm==1.0.0\n") == {
        "vllm": ("0.7.3", 1), "sglang": ("0.4.8", 2), "trtllm": ("1.0.0", 3)}
    assert pip_pins("vllm~=0.7\n") == {}


def test_hostile_dockerfile_is_read_within_its_bounds():
    from pdlint.formats import pins
    long_run = "FROM img:1\nRUN a \\\n" + ("x" * 90 + " \\\n") * pins.MAX_LINES + "b\nCOPY run.sh /\n"
    assert dockerfile_image(long_run, "run.sh") is None        # the COPY is past the lines read
    # an exec form that is not JSON is the shell form, as Docker reads it: `["run.sh",` names no such file
    assert dockerfile_image("FROM img:1\nCOPY [\"run.sh\", \"/\"\nCMD [\n", "run.sh") is None
    assert dockerfile_image("\0\0FROM\n", "run.sh") is None
    many = "".join(f'  "pkg{i}==1.0",\n' for i in range(pins.MAX_DEPENDENCIES))
    assert pip_pins(f'[project]\ndependencies = [\n{many}  "vllm==0.9.2",\n]\n', True) == {}  # past the bound
    assert pip_pins(f'[project]\ndependencies = [\n  "vllm==0.9.2",\n{many}]\n', True) == {"vllm": ("0.9.2", 3)}
