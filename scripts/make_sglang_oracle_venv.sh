#!/usr/bin/env bash
# Build a small venv in which scripts/sglang_oracle_legacy.py runs SGLang RELEASE's own argument checks.
#
#   bash scripts/make_sglang_oracle_venv.sh RELEASE DIR [BASE_VENV]
#
# BASE_VENV (default: .oracle-venv in the checkout) is the SGLang 0.5.23 oracle venv that
# ../shared/tools/sglang-oracle/make_oracle_venv.sh builds (CI builds it first): torch, torchvision and the
# ~140 packages SGLang's argument code imports.  DIR is a venv layered on it: a .pth file puts BASE_VENV's
# site-packages after DIR's own, so DIR holds only what differs for RELEASE: `sglang==RELEASE --no-deps` and
# the transformers / tokenizers releases RELEASE pins (read from its own metadata; transformers 4.x needs a
# huggingface_hub below 1.0, which pip resolves into DIR).  About 200-330 MB (0.4.x: 700 MB, its triton) and 2-4 minutes,
# instead of a 6 GB torch install; DIR stops working when BASE_VENV is removed or moved.
#
# Like the shared oracle venv, pip reports SGLang's GPU/serving dependencies as missing: expected, the
# oracle never imports them.
set -euo pipefail

REL=${1:?usage: make_sglang_oracle_venv.sh RELEASE DIR [BASE_VENV]}
DIR=${2:?usage: make_sglang_oracle_venv.sh RELEASE DIR [BASE_VENV]}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BASE=${3:-$HERE/../.oracle-venv}
BASE=$(cd "$BASE" 2>/dev/null && pwd) || { echo "no base venv at ${3:-$HERE/../.oracle-venv}: build it with ../shared/tools/sglang-oracle/make_oracle_venv.sh" >&2; exit 2; }
BASEPY="$BASE/bin/python"
"$BASEPY" -c 'import torch' 2>/dev/null || { echo "$BASE has no torch: not an SGLang oracle venv" >&2; exit 2; }
SITE=$("$BASEPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
PYVER=$("$BASEPY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')

"python$PYVER" -m venv "$DIR"
DSITE=$("$DIR/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$SITE" > "$DSITE/_sglang_oracle_base.pth"
PIN=$(mktemp)
trap 'rm -f "$PIN"' EXIT
# keep the base's torch: nothing below may replace it
"$BASEPY" -c 'import importlib.metadata as m; print("torch==" + m.version("torch"))' > "$PIN"

PIP=("$DIR/bin/pip" install --disable-pip-version-check -q)
"${PIP[@]}" --no-deps "sglang==$REL"
# the transformers/tokenizers pins of RELEASE (its srt / runtime-common extra up to 0.4.x, plain later)
PINS_PY='
import importlib.metadata as m, re
out = set()
for req in m.requires("sglang") or ():
    name, _, marker = req.partition(";")
    mm = re.match(r"\s*(transformers|tokenizers)\s*==\s*([\w.]+)\s*$", name)
    if mm and (not marker.strip() or re.search(r"extra\s*==\s*.(srt|runtime-common).", marker)):
        out.add(f"{mm.group(1)}=={mm.group(2)}")
print("\n".join(sorted(out)))
'
mapfile -t PINS < <("$DIR/bin/python" -c "$PINS_PY")
# 0.4.x's sglang/srt/utils.py imports triton.runtime.cache.default_cache_dir, gone from the triton the base's
# torch brings: the triton of its torch 2.7 pin (imported for that name only; nothing runs a kernel)
case "$REL" in
  0.4.*) PINS+=("triton==3.3.1") ;;
esac
if [ ${#PINS[@]} -gt 0 ]; then
  "${PIP[@]}" "${PINS[@]}" -c "$PIN"
fi
"$DIR/bin/python" "$HERE/sglang_oracle_legacy.py" -- --model-path @TINY@
