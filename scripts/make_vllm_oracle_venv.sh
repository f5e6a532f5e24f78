#!/usr/bin/env bash
# Build the venv scripts/vllm_oracle.py runs in: vLLM's argument parser on CPU, no GPU, no model.
#   bash scripts/make_vllm_oracle_venv.sh VENV [VLLM_VERSION]
# torch 2.13.0 (the CPU build this machine kind keeps on disk; vLLM's argument modules only import it),
# vLLM itself without its dependencies (no CUDA kernels, no serving stack), then what its argument
# modules import.  Only PyPI is used.
set -euo pipefail
VENV=${1:?usage: make_vllm_oracle_venv.sh VENV [VLLM_VERSION]}
VERSION=${2:-0.33.0}
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q torch==2.13.0
"$VENV/bin/pip" install -q --no-deps "vllm==$VERSION"
"$VENV/bin/pip" install -q -c <(echo torch==2.13.0) packaging uvloop transformers pydantic msgspec cachetools \
  pyyaml psutil sentencepiece tokenizers 'numpy<3' requests tqdm blake3 py-cpuinfo regex cloudpickle \
  prometheus_client fastapi openai aiohttp pyzmq einops typing_extensions filelock partial-json-parser gguf \
  importlib_metadata protobuf pillow tiktoken diskcache compressed-tensors watchfiles python-json-logger \
  scipy pybase64 cbor2 setproctitle openai-harmony llguidance xgrammar mistral_common
VLLM_TARGET_DEVICE=cpu "$VENV/bin/python" "$(dirname "$0")/vllm_oracle.py" --dump > /dev/null
echo "vLLM $VERSION oracle venv ready: $VENV"
