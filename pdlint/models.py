"""Model-family inference from a launch's model path (documented in ``docs/models.md``).

Some engine checks depend on the model's attention architecture, which the
flags do not say: SGLang warns when prefill and decode use different
attention TP sizes for a non-MLA model (harmless for MLA models), and refuses
some layouts for hybrid models.  Without the model's ``config.json`` pdlint
can only guess from the name the launch serves, so the guess is deliberately
narrow:

* only the **last component** of the model path is read (a Hugging Face id
  ``org/name``, a local directory ``/models/name``; in a Hugging Face cache
  path ``.../models--org--name/snapshots/<hash>`` the ``models--`` component);
* a family is recognised only by a name its publisher uses, matched from the
  start of the component (after an optional organisation prefix such as
  ``nvidia-``), so a distilled model named after its teacher
  (``DeepSeek-R1-Distill-Qwen-7B``, a Qwen model) is not taken for it;
* anything else is unknown, and rules then stay as cautious as without a guess.

The table says which rule each family changes; the source column is the
SGLang code that classifies the architecture (``ModelConfig`` in
``sglang/srt/configs/model_config.py`` of SGLang 0.5.23).
"""

from __future__ import annotations

import re
from typing import Optional

from pdlint import lazyre
from pdlint.records import dataclass


@dataclass(frozen=True)
class Family:
    name: str
    attention: str  # "mla" | "mha"
    hybrid: Optional[str] = None  # None | "swa" (sliding-window + full attention layers)
    architectures: tuple = ()
    #: how SGLang's PD KV transfer treats the model's KV pool when that differs from ``attention``: "mla" for a pool
    #: ``disaggregation/utils.py`` ``is_mla_backend`` counts as MLA (DeepSeek-V4's, 0.5.19-0.5.23)
    transfer: Optional[str] = None

    @property
    def mla(self) -> bool:
        return self.attention == "mla"

    @property
    def transfer_mla(self) -> bool:
        """Does SGLang's PD transfer move this model's KV as MLA rows (no slicing by heads, a DCP relay allowed)?"""
        return (self.transfer or self.attention) == "mla"


# (pattern over the normalised last path component, family); first match wins
FAMILIES = (
    (r"deepseek-r1-distill", None),  # Qwen / Llama students: not DeepSeek's architecture
    # ModelConfig gives DeepSeek-V4 MHA attention, but its KV pool (DeepSeekV4TokenToKVPool) is an MLA backend to
    # the PD transfer (disaggregation/utils.py is_mla_backend, 0.5.19-0.5.23): field test rw18/o, six InferenceX
    # DeepSeek-V4 recipes got the non-MLA SGL815 warning
    (r"deepseek-v4", Family("DeepSeek-V4", "mha", "swa", ("DeepseekV4ForCausalLM",), transfer="mla")),
    (r"deepseek-(coder-)?v2", Family("DeepSeek-V2", "mla", None, ("DeepseekV2ForCausalLM",))),
    (r"deepseek-v3", Family("DeepSeek-V3", "mla", None, ("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM"))),
    (r"deepseek-r1", Family("DeepSeek-R1", "mla", None, ("DeepseekV3ForCausalLM",))),
    (r"deepseek-prover-v2", Family("DeepSeek-Prover-V2", "mla", None, ("DeepseekV3ForCausalLM",))),
    (r"kimi-k2", Family("Kimi-K2", "mla", None, ("DeepseekV3ForCausalLM", "KimiK25ForConditionalGeneration"))),
    (r"kimi-vl", Family("Kimi-VL", "mla", None, ("KimiVLForConditionalGeneration",))),
    (r"kimi-linear", Family("Kimi-Linear", "mla", None, ("KimiLinearForCausalLM",))),
    # SGLang 0.5.23 configs/model_config.py: the Kimi-Linear branch (MLA) also takes Kimi-K3's architectures
    (r"kimi-k3", Family("Kimi-K3", "mla", None, ("KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM"))),
    (r"moonlight", Family("Moonlight", "mla", None, ("DeepseekV3ForCausalLM",))),
    (r"minicpm3", Family("MiniCPM3", "mla", None, ("MiniCPM3ForCausalLM",))),
    (r"glm-5(?![0-9])", Family("GLM-5", "mla", None, ("GlmMoeDsaForCausalLM",))),
    # LongCat-Flash-Chat / -Thinking (and their -FP8 builds): LongcatFlashForCausalLM, which SGLang 0.5.23's
    # ModelConfig classifies as MLA; not LongCat-Flash-Omni or LongCat-Video, other architectures
    (r"longcat-flash-chat", Family("LongCat-Flash", "mla", None, ("LongcatFlashForCausalLM",))),
    (r"longcat-flash-thinking", Family("LongCat-Flash", "mla", None, ("LongcatFlashForCausalLM",))),
    (r"mistral-large-3", Family("Mistral-Large-3", "mla", None, ("MistralLarge3ForCausalLM",))),
    (r"gpt-oss", Family("gpt-oss", "mha", "swa", ("GptOssForCausalLM",))),
    # dense / MoE models without MLA (SGLang 0.5.23 configs/model_config.py: none of their architectures is in
    # its MLA list): what the DCP relay and the attention-TP rules need to know (field test rw16/k)
    (r"qwen3-next", Family("Qwen3-Next", "mha", None, ("Qwen3NextForCausalLM",))),
    (r"qwen3", Family("Qwen3", "mha", None, ("Qwen3ForCausalLM", "Qwen3MoeForCausalLM",
                                              "Qwen3VLForConditionalGeneration",
                                              "Qwen3VLMoeForConditionalGeneration"))),
    (r"qwen2", Family("Qwen2", "mha", None, ("Qwen2ForCausalLM", "Qwen2MoeForCausalLM"))),
    (r"qwq", Family("Qwen2", "mha", None, ("Qwen2ForCausalLM",))),
    (r"llama-?3", Family("Llama-3", "mha", None, ("LlamaForCausalLM",))),
)
_COMPILED = tuple((re.compile(r"^(?:[a-z0-9]+-)?" + p), f) for p, f in FAMILIES)
_HASH = lazyre.compile(r"^[0-9a-f]{20,}$")


def component(path: str) -> str:
    """The path component that names the model, lower-cased with ``_``/`` `` read as ``-``."""
    parts = [p for p in re.split(r"[/\\]", path.strip()) if p]
    if not parts:
        return ""
    name = parts[-1]
    if "snapshots" in parts[:-1] or _HASH.match(name):
        cache = [p for p in parts if p.startswith("models--")]
        if cache:
            name = cache[-1][len("models--"):].split("--")[-1]
    return re.sub(r"[_\s]+", "-", name.lower())


def family(path: Optional[str]) -> Optional[Family]:
    """The family of the model at ``path``, or None when the name does not say."""
    if not path or not isinstance(path, str):
        return None
    name = component(path)
    for pat, fam in _COMPILED:
        if pat.match(name):
            return fam
    return None


def named(path: Optional[str]) -> bool:
    """Does a pattern place the name: a family, or a row that says the name is another architecture."""
    name = component(path) if path and isinstance(path, str) else ""
    return bool(name) and any(pat.match(name) for pat, _ in _COMPILED)


def markdown() -> str:
    """The family table for ``docs/models.md``."""
    out = ["| name pattern (last path component) | family | attention | PD transfer | hybrid | architectures |",
           "|---|---|---|---|---|---|"]
    for p, f in FAMILIES:
        if f is None:
            out.append(f"| `{p}` | none (another architecture: not inferred) | | | | |")
        else:
            out.append(f"| `{p}` | {f.name} | {f.attention.upper()} | {'MLA' if f.transfer_mla else 'MHA'} | "
                       f"{f.hybrid or ''} | {', '.join(f.architectures)} |")
    return "\n".join(out)


__all__ = ["Family", "FAMILIES", "family", "named", "component", "markdown"]
