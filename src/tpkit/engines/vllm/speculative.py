"""``--speculative-config '{json}'``: vLLM's speculative decoding settings, read and checked (pure).

vLLM's rules (``config/speculative.py SpeculativeConfig.__post_init__``, 0.33; the same keys from 0.10):

- ``method`` unset: ``"ngram"`` when ``model`` is ``"ngram"``/``"[ngram]"``, else the draft model decides:
  a name containing ``eagle-`` → ``eagle``, ``eagle3`` → ``eagle3``, an MTP model type → ``mtp``, otherwise
  ``draft_model``.  Model-specific MTP spellings (``deepseek_mtp``, ``qwen3_next_mtp``, ``glm4_moe_mtp`` …)
  are deprecated aliases of ``mtp``.
- ``mtp`` without ``model``: the target checkpoint's own next-token layers; ``ngram``: no model, no weights.
- ``draft_tensor_parallel_size`` is 1 or the target's ``--tp`` (default: the target's).
- ``dflash`` (DFlash / DFlash2 block drafters, ``v1/spec_decode/dflash.py DFlashProposer``) exists from vLLM
  0.20.0: the 0.19.0 and 0.19.1 wheels' ``config/speculative.py`` and ``model_executor/models/registry.py`` have no
  DFlash, 0.20.0 has ``"dflash"`` in ``SpeculativeConfig`` and ``DFlashDraftModel`` in the registry
  (``DFlash2DraftModel`` from 0.28.0).  Its ``use_eagle()`` is true (0.20.0–0.33.0), so it is of the EAGLE family
  here; without ``method`` a draft whose name contains ``dflash`` is a DFlash draft (0.33 ``__post_init__``).
"""

from __future__ import annotations

import json

from tpkit.engines import flag_json
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tpkit.engines.vllm.rules import VllmRules

__all__ = ["SpecConfig", "parse_speculative_config", "METHODS", "check_method_release", "FIRST_RELEASE", "v2_unsupported"]

METHODS = ("eagle", "eagle3", "mtp", "ngram", "ngram_gpu", "draft_model", "dflash")
"""the methods tpkit plans (their memory differs: drafter weights and KV layers, or none)"""
MTP_ALIASES = ("deepseek_mtp", "qwen3_next_mtp", "glm4_moe_mtp", "glm4_moe_lite_mtp", "ernie_mtp", "mimo_mtp",
               "mimo_v2_mtp", "nemotron_h_mtp", "exaone_moe_mtp", "longcat_flash_mtp", "pangu_ultra_moe_mtp")
"""model-specific MTP method names vLLM maps to ``mtp`` (``MTPModelTypes``)"""
KEYS = ("method", "model", "num_speculative_tokens", "draft_tensor_parallel_size", "quantization",
        "max_model_len", "revision", "code_revision", "disable_padded_drafter_batch", "prompt_lookup_max",
        "prompt_lookup_min", "enforce_eager", "disable_by_batch_size", "parallel_drafting",
        "speculative_token_tree", "rejection_sample_method", "draft_sample_method", "tokenizer")
"""keys of vLLM's SpeculativeConfig tpkit accepts (only method, model, num_speculative_tokens,
draft_tensor_parallel_size and quantization change memory)"""
_EXAMPLE = ('\'{"method": "eagle3", "model": "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", '
            '"num_speculative_tokens": 3}\'')
FIRST_RELEASE = {"dflash": (0, 20, 0)}
"""methods younger than tpkit's oldest V1 rules → the first vLLM release that has them (module docstring)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecConfig:
    """The speculative decoding settings that size memory."""

    method: str
    """one of ``METHODS``"""
    model: str | None
    """drafter: HF id, directory or config path; None for ngram and for MTP from the target checkpoint"""
    num_speculative_tokens: int | None
    """draft tokens per step; None = the MTP layers of the target (mtp only)"""
    draft_tensor_parallel_size: int | None
    """TP of the drafter (1 or the target's); None = the target's"""
    quantization: str | None = None
    """drafter weight quantisation override"""

    @property
    def has_drafter(self) -> bool:
        """The method loads drafter weights and registers drafter KV layers."""
        return self.method not in ("ngram", "ngram_gpu")

    @property
    def eagle_family(self) -> bool:
        """vLLM's ``use_eagle()``: EAGLE, EAGLE-3, MTP and DFlash (0.20+) read the target's hidden states."""
        return self.method in ("eagle", "eagle3", "mtp", "dflash")


def _load(text: str | dict) -> dict:
    if isinstance(text, dict):
        return dict(text)
    if not isinstance(text, str):
        raise PlanInputError(f"--speculative-config must be JSON text, got {type(text).__name__}; write it like "
                             f"{_EXAMPLE}")
    try:
        data = flag_json(text)
    except json.JSONDecodeError as exc:
        raise PlanInputError(f"--speculative-config is not valid JSON ({exc.msg} at character {exc.pos}): got "
                             f"{text!r}; write it like {_EXAMPLE}") from None
    if not isinstance(data, dict):
        raise PlanInputError(f"--speculative-config must be a JSON object, got {text!r}; write it like {_EXAMPLE}")
    return data


def _int(data: dict, key: str, *, minimum: int = 1) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise PlanInputError(f"--speculative-config: {key} must be a whole number ≥ {minimum}, got {value!r}")
    return value


def _method(data: dict) -> str:
    method, model = data.get("method"), data.get("model")
    if method is not None and not isinstance(method, str):
        raise PlanInputError(f"--speculative-config: method must be a string, got {method!r}")
    if model is not None and not isinstance(model, str):
        raise PlanInputError(f"--speculative-config: model must be a string (HF id or path), got {model!r}")
    if method is None:
        if model is None:
            raise PlanInputError("--speculative-config needs a method or a model; write it like " + _EXAMPLE)
        low = model.lower()
        method = ("ngram" if low in ("ngram", "[ngram]") else "eagle" if "eagle-" in low
                  else "eagle3" if "eagle3" in low else "dflash" if "dflash" in low else "draft_model")
    method = "ngram" if method == "[ngram]" else "mtp" if method in MTP_ALIASES else method
    if method not in METHODS:
        raise PlanInputError(f"--speculative-config: method {method!r} is not planned by tpkit; use one of "
                             f"{', '.join(METHODS + MTP_ALIASES)}")
    return method


def parse_speculative_config(text: str | dict) -> SpecConfig:
    """Read and check ``--speculative-config``; raises ``PlanInputError`` saying what is wrong and how to fix it."""
    data = _load(text)
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise PlanInputError(f"--speculative-config: unknown key(s) {', '.join(unknown)}; vLLM's keys that tpkit "
                             f"reads are {', '.join(KEYS)}")
    method = _method(data)
    model = data.get("model")
    tokens = _int(data, "num_speculative_tokens")
    if method in ("eagle", "eagle3", "draft_model", "dflash") and model is None:
        raise PlanInputError(f"--speculative-config: method {method} needs a draft model: add \"model\": "
                             "\"<HF id or path of the draft>\", e.g. " + _EXAMPLE + " (`tpkit plan --list-models` "
                             "lists the drafts tpkit knows without a download)")
    if method in ("ngram", "ngram_gpu"):
        model = None
    if tokens is None and method != "mtp":
        raise PlanInputError(f"--speculative-config: method {method} needs num_speculative_tokens (e.g. 3)")
    quant = data.get("quantization")
    if quant is not None and not isinstance(quant, str):
        raise PlanInputError(f"--speculative-config: quantization must be a string such as \"fp8\", got {quant!r}")
    return SpecConfig(method=method, model=model, num_speculative_tokens=tokens,
                      draft_tensor_parallel_size=_int(data, "draft_tensor_parallel_size"), quantization=quant)


def check_method_release(spec: SpecConfig, release: tuple[int, ...] | None, label: str = "") -> None:
    """Refuse a method the planned vLLM release does not have (``FIRST_RELEASE``); ``release`` None = newest."""
    first = FIRST_RELEASE.get(spec.method)
    if first is None or release is None or tuple(release[:3]) >= first:
        return
    name = ".".join(map(str, first))
    raise PlanInputError(f"--speculative-config: method {spec.method} is not in vLLM "
                         f"{label or '.'.join(map(str, release))} "
                         f"(vLLM adds it in {name}); plan with --engine-version {name} or later, or drop the drafter")


# -- the speculative methods that send a run back to the V1 runner (split from engines.vllm.inputs, helper cur17)
_V2_UNSUPPORTED_SPEC = (
    ((0, 29, 0), ("ngram", "ngram_gpu", "draft_model")),
    ((0, 31, 0), ("ngram", "ngram_gpu")),
    ((0, 32, 0), ()),
)
"""speculative methods (of those tpkit plans) that send a ≥ 0.29 run back to the V1 runner, from each release on
(``config/vllm.py _get_v2_model_runner_unsupported_features``: 0.29.0 lists every method but eagle, eagle3, mtp,
dflash, dspark, extract_hidden_states; 0.30.0 ngram, ngram_gpu, draft_model, suffix, medusa, mlp_speculator,
custom_class; 0.31.0 drops draft_model; 0.32.0 drops ngram and ngram_gpu (suffix, medusa, mlp_speculator,
custom_class left); 0.33.0 suffix, custom_class)"""


def v2_unsupported(rules: "VllmRules", spec: SpecConfig | None, pp: int = 1) -> str | None:
    """What vLLM names when Model Runner V2 cannot run this configuration and the release falls back to the V1
    runner (its warning "Model Runner V2 does not yet support %s; using the V1 model runner instead",
    ``config/vllm.py use_v2_model_runner``), or None.  Read in the 0.22.0–0.33.0 wheels
    (``_get_v2_model_runner_unsupported_features``): a speculative method V2 lacks (before 0.29: every method but
    EAGLE/EAGLE-3/MTP, DFlash from 0.24; from 0.29 :data:`_V2_UNSUPPORTED_SPEC`), and EAGLE-3 with pipeline
    parallelism (0.22.0–0.29.0; gone in 0.30.0).  Fallbacks tpkit has no input for (sequence parallelism, stock
    torch.compile, dual batch overlap, elastic EP, custom logits processors, parallel drafting for EAGLE, KV
    sharing fast prefill, mamba cache mode 'all', ROCm DeepSeek-V3.2/V4 in 0.29–0.31, no Triton) are not
    modelled."""
    release = rules.release
    if release < (0, 22, 0) or spec is None or not rules.v1_runner:
        return None  # ≥ 0.34.0 there is no V1 runner to fall back to (VllmRules.v1_runner)
    if release < (0, 29, 0):
        supported = ("eagle", "eagle3", "mtp") + (("dflash",) if release >= (0, 24, 0) else ())
        if spec.method in ("ngram", "ngram_gpu"):
            return "ngram/ngram_gpu speculative decoding"
        if spec.method not in supported:
            return f"speculative method '{spec.method}'"
    else:
        methods = [m for since, m in _V2_UNSUPPORTED_SPEC if since <= release][-1]
        if spec.method in methods:
            return ("ngram/ngram_gpu speculative decoding" if release < (0, 30, 0) and spec.method != "draft_model"
                    else f"speculative method '{spec.method}'")
    if spec.method == "eagle3" and pp > 1 and release < (0, 30, 0):
        return "EAGLE3 with pipeline parallelism"
    return None
