"""NVIDIA's NGC vLLM container tag is the container release, not vLLM's.

Field test rw19/a (cloudone365/technical-depth's `pd.yaml`, rebuilt here): `nvcr.io/nvidia/vllm:25.09-py3` was
read as "vLLM 25.09", a pin newer than every table, so the pair was judged as a pinned 0.33.0: six errors for its
P2pNcclConnector and kv_rank / kv_parallel_size, which the 0.10 build inside that container (NVIDIA's release
notes) has.  The tag pins no vLLM release: the unpinned warnings apply."""

import pytest

from pdlint.engines.vllm import flags

MANIFEST = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: vllm-prefill}
    spec:
      template:
        spec:
          containers:
            - name: vllm
              image: IMAGE
              command: ["vllm", "serve", "Qwen/Qwen2.5-0.5B-Instruct"]
              args:
                - '--kv-transfer-config={"kv_connector":"P2pNcclConnector","kv_role":"kv_producer","kv_rank":0,"kv_parallel_size":2}'
    """


def _found(report):
    return sorted({(f["code"], f["severity"]) for f in report["findings"]})


def test_an_ngc_tag_pins_nothing(scratch_git):
    scratch_git.write("pd.yaml", MANIFEST.replace("IMAGE", "nvcr.io/nvidia/vllm:25.09-py3"))
    _, report = scratch_git.lint("pd.yaml")
    assert _found(report) == [("VLLM030", "warning"), ("VLLM032", "warning")]


def test_a_vllm_release_tag_still_pins(scratch_git):
    scratch_git.write("pd.yaml", MANIFEST.replace("IMAGE", "vllm/vllm-openai:v0.33.0"))
    _, report = scratch_git.lint("pd.yaml")
    assert ("VLLM031", "error") in _found(report) and ("VLLM029", "error") in _found(report)
    scratch_git.write("pd.yaml", MANIFEST.replace("IMAGE", "vllm/vllm-openai:v0.10.2"))
    _, report = scratch_git.lint("pd.yaml")
    assert _found(report) == []


@pytest.mark.parametrize("image,version", [("nvcr.io/nvidia/vllm:25.09-py3", None),
                                           ("vllm/vllm-openai:v0.10.2", "0.10.2"),
                                           ("registry.example.com/vllm-serving:24.12", None),
                                           ("vllm/vllm-openai:v0.9.2", "0.9.2")])
def test_image_version(image, version):
    assert flags.image_version(image) == version
