"""Linear-attention / mamba state pool of hybrid models (sglang 0.5.23
``python/sglang/srt/mem_cache/kv_cache_configurator.py`` ``KVCacheConfigurator._handle_max_mamba_cache``; ≤ 0.5.10
``handle_max_mamba_cache``; issue 11 rule 6).

SGLang carves a per-request state pool out of the KV budget before sizing the KV pool
(0.5.23 ``mem_cache/kv_cache_configurator.py _handle_max_mamba_cache``):

    per_slot  = state bytes per request per layer ÷ attention tp × linear layers of the stage
    budget    = rest × ρ / (1 + ρ)                    ρ = --mamba-full-memory-ratio (default 0.9, 0.5.4+)
    slots K   = (budget − per_slot) // per_slot       0.5.17+, one extra padding slot allocated
                budget // per_slot                    ≤ 0.5.16, no padding slot
    with speculative decoding (D draft tokens, r slots per request, R = max_running_requests per rank):
              0.5.17+        K = (budget − slot·(1 + D)) // (slot·(1 + D/r)); intermediate slot × (min(R, K//r) + 1) × D
              0.5.13–0.5.16  K = budget // (slot·(1 + D/r));            intermediate slot × min(R, K//r) × D
              ≤ 0.5.12       intermediate slot × R × D leaves rest first; K = budget(rest − intermediate) // slot
              (0.5.10–0.5.15 ``model_runner_kv_cache_mixin.handle_max_mamba_cache``)
    rest_kv   = rest − allocated slots × per_slot (− intermediate states)
    max_running_requests ≤ K // r

Slots per running request r (radix cache on; ``_calculate_mamba_ratio``, ``get_mamba_tracking_slots``):

    releases        Qwen3-Next / Qwen3.5     Kimi-Linear    others
    0.5.10–0.5.13   3 (no_buffer)            3              3
    0.5.14–0.5.15   5 (extra_buffer + 2)     3              3
    0.5.16–latest   5                        5              3 (the extra-buffer arch list, overlap on)

Which releases size the pool how (read in the wheels 0.5.3, 0.5.4, 0.5.9, 0.5.10, 0.5.15, 0.5.16, 0.5.17, 0.5.23):

* ≤ 0.5.3 (``model_runner.py ModelRunner.model_specific_adjustment`` / ``profile_max_num_token``): only hybrid
  GDN (Qwen3-Next) models have a state pool; the radix cache is turned off and the pool has
  ``--max-mamba-cache-size``, else ``max_running_requests``, else a fixed 512 slots; the KV budget loses
  slots × per-request state.
* 0.5.4 – 0.5.16 (``ModelRunner.handle_max_mamba_cache``; from 0.5.9 in ``model_runner_kv_cache_mixin.py``,
  0.5.16 in ``mem_cache/kv_cache_configurator.py``): the ρ/(1 + ρ) split above; the KV budget loses
  ``max_mamba_cache_size`` × per-request state (the pool's padding slot is not charged to it).
* 0.5.17+ (``kv_cache_configurator.py _handle_max_mamba_cache``): the KV budget loses (slots + 1) × per-request
  state (the padding slot is charged).
* The pool (``mem_cache/memory_pool.py MambaPool``, 0.5.3 – 0.5.23) always allocates slots + 1 conv and SSM
  states and prints them as 'Mamba Cache is allocated. [max_mamba_cache_size: N,] conv_state size: X GB,
  ssm_state size: Y GB' (``max_mamba_cache_size`` printed from 0.5.4).
* Granite-4.0-H (``GraniteMoeHybridForCausalLM``) and LFM2 (``Lfm2ForCausalLM``) get a state pool (their
  configs listed in ``ModelRunner.mambaish_config``) from 0.5.9; 0.5.4 – 0.5.8 ship neither config
  (``configs/granitemoehybrid.py``, ``configs/lfm2.py`` absent from the 0.5.8 wheel).

* The radix cache off (``--disable-radix-cache``) sets the slot count instead of solving it
  (``radix_off_slots``): 0.5.4 – 0.5.8 to ``--max-running-requests``, else 512; from 0.5.9 to
  ``--max-running-requests`` when it is given (without it the ratio split above), split over the attention-DP
  ranks (0.5.8+; 0.5.4 – 0.5.7 for Qwen3-Next only); one running request then holds one slot
  (``_calculate_mamba_ratio`` returns 1, 0.5.4 – 0.5.23).  Read in 0.5.4 / 0.5.5 – 0.5.8 ``ModelRunner
  .handle_max_mamba_cache``, 0.5.9 / 0.5.15 ``model_runner_kv_cache_mixin.handle_max_mamba_cache``, 0.5.23
  ``kv_cache_configurator._handle_max_mamba_cache``.

Assumptions (stated in the plan): overlap schedule on, triton linear-attention backend, no
``--max-mamba-cache-size``; state splits evenly over attention TP.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes

__all__ = ["MambaPool", "MAMBA_FULL_MEMORY_RATIO", "RADIX_SLOTS_PER_REQUEST", "slots_per_request",
           "plan_mamba_pool", "RATIO_SPLIT_FROM", "FIXED_SLOTS", "PADDING_CHARGED_FROM", "POOL_EXTRA_SLOTS",
           "charged_slots", "GRANITE_LFM2_HYBRID_FROM", "SSM_STATE_BYTES",
           "RADIX_OFF_RUNNING_ONLY_FROM", "radix_off_slots",
           "SSM_DTYPE_BYTES", "SSM_DTYPE_FROM_CONFIG_FROM", "SSM_FLOAT16_FROM", "ssm_state_choice"]

MAMBA_FULL_MEMORY_RATIO = 0.9
"""``mamba_full_memory_ratio`` default: state pool : KV pool memory"""
RADIX_SLOTS_PER_REQUEST = 3
"""state slots per running request with the radix cache on and no extra buffer"""
RATIO_SPLIT_FROM = "0.5.4"
"""first release that sizes the state pool by the ρ/(1 + ρ) split (≤ 0.5.3: a fixed slot count)"""
FIXED_SLOTS = 512
"""≤ 0.5.3: state slots without ``--max-mamba-cache-size`` and ``--max-running-requests``"""
PADDING_CHARGED_FROM = "0.5.17"
"""first release that charges the pool's padding slot to the KV budget"""
POOL_EXTRA_SLOTS = 1
"""the pool allocates ``max_mamba_cache_size`` + 1 slots in every release (``MambaPool``)"""
RADIX_OFF_RUNNING_ONLY_FROM = "0.5.9"
"""first release where the radix cache off sets the slots only together with ``--max-running-requests`` (0.5.4 –
0.5.8: to it, else to the fixed 512; 0.5.9 ``model_runner_kv_cache_mixin.handle_max_mamba_cache``)"""
_DP_SPLIT_ALL_FROM = "0.5.8"
"""first release that splits a set slot count over the attention-DP ranks for every hybrid (0.5.4 – 0.5.7: only
``hybrid_gdn_config``, i.e. Qwen3-Next)"""
GRANITE_LFM2_HYBRID_FROM = "0.5.9"
"""first release whose ``mambaish_config`` lists GraniteMoeHybrid and Lfm2 configs (absent in 0.5.8)"""
_EXTRA_BUFFER_SLOTS = 2
"""extra-buffer tracking slots with the overlap schedule on (``get_mamba_tracking_slots``)"""

_EXTRA_BUFFER_ARCHS: tuple[tuple[str, frozenset[str]], ...] = (
    ("0.5.14", frozenset({"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration",
                          "Qwen3_5MoeForConditionalGeneration"})),
    ("0.5.16", frozenset({"KimiLinearForCausalLM"})),
    ("0.5.23", frozenset({"Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM", "Qwen4ExpForConditionalGeneration",
                          "InternS2PreviewForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
                          "MiniCPMV4_7ForConditionalGeneration", "BailingMoeV2_5ForCausalLM"})),
)
"""(first release, architectures added to the extra-buffer list; 0.5.23 ``arg_groups/overrides.py
_MAMBA_EXTRA_BUFFER_ARCHS``, the 0.5.23 row's first release between 0.5.16 and 0.5.23 not pinned)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class MambaPool:
    """The per-request recurrent-state pool of one rank."""

    slots: int
    """usable state slots (``max_mamba_cache_size``)"""
    allocated_slots: int
    """slots allocated (0.5.17+ adds one padding slot)"""
    per_slot: Bytes
    """state bytes of one request over the stage's linear layers, per rank"""
    ratio: int
    """state slots one running request holds (3, or 5 with the extra buffer)"""
    intermediate: Bytes
    """speculative-decoding intermediate states carved from the budget (bytes; 0 without)"""
    source: str
    """the formula, in words"""

    @property
    def total_bytes(self) -> Bytes:
        """Bytes taken from the KV budget: the allocated slots and the intermediate states."""
        return self.per_slot * self.allocated_slots + self.intermediate


def slots_per_request(model: ModelSpec, version: str) -> tuple[int, str]:
    """(state slots per running request, why) with the radix cache and the overlap schedule on."""
    archs = frozenset().union(*(names for first, names in _EXTRA_BUFFER_ARCHS if at_least(version, first)))
    if model.architecture in archs:
        return (RADIX_SLOTS_PER_REQUEST + _EXTRA_BUFFER_SLOTS,
                f"extra_buffer strategy for {model.architecture}: 3 + 2 tracking slots per request")
    return RADIX_SLOTS_PER_REQUEST, "no_buffer strategy: 3 slots per request"


SSM_STATE_BYTES = 4
"""SSM (temporal) state element size: float32 unless the config sets ``mamba_ssm_dtype`` (``configs/mamba_utils.py
mamba2_state_dtype``, 0.5.9 – 0.5.23); the conv state stays bf16, as ``models.linear_attn`` sizes it"""


SSM_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
"""``--mamba-ssm-dtype`` choices and their element sizes (``configs/mamba_utils.py mamba2_state_dtype`` dtype_map)"""
SSM_FLOAT16_FROM = "0.5.9"
"""first release whose ``--mamba-ssm-dtype`` accepts float16 (``MAMBA_SSM_DTYPE_CHOICES``: float32 / bfloat16 in
0.5.3 – 0.5.8, + float16 in 0.5.9; 0.5.16 – 0.5.19 the same three choices)"""
SSM_DTYPE_FROM_CONFIG_FROM = "0.5.9"
"""first release that reads the config's ``mamba_ssm_dtype`` when the flag is not given: 0.5.3 – 0.5.8
``server_args.py`` default ``mamba_ssm_dtype: str = "float32"`` always exported as ``SGLANG_MAMBA_SSM_DTYPE``
(0.5.4 – 0.5.8 ``mamba2_state_dtype()`` reads only that variable); 0.5.9 – 0.5.19 default None and
``mamba2_state_dtype(config)``: the variable (set only by the flag), else ``config.text_config.mamba_ssm_dtype`` /
``config.mamba_ssm_dtype``, else float32 — for the configs that pass themselves (``configs/qwen3_next.py``, which
the Qwen3.5 text configs subclass, ``nemotron_h.py``, ``falcon_h1.py``, ``jet_nemotron.py``); Kimi-Linear's
``KimiLinearCacheParams`` takes the default factory (``mamba2_state_dtype(None)``: the flag, else float32)"""
_CONFIG_SSM_DTYPE_TYPES = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen3_5", "qwen3_5_moe",
                                     "nemotron_h", "falcon_h1", "jet_nemotron"})


def ssm_state_choice(model: ModelSpec, version: str, flag: str | None) -> tuple[int, str]:
    """(bytes per SSM-state element, why) SGLang ``version`` gives the mamba / GDN temporal state:
    ``--mamba-ssm-dtype`` (``flag``) when given; else from 0.5.9 the config's ``mamba_ssm_dtype`` for the
    architectures whose cache params pass the config (``SSM_DTYPE_FROM_CONFIG_FROM``); else float32."""
    if flag is not None:
        return SSM_DTYPE_BYTES[flag], f"--mamba-ssm-dtype {flag}"
    named = str(model.extra.get("mamba_ssm_dtype") or "").lower()
    kinds = {model.model_type, str(model.extra.get("wrapper_model_type") or "")}
    if (named in SSM_DTYPE_BYTES and at_least(version, SSM_DTYPE_FROM_CONFIG_FROM)
            and kinds & _CONFIG_SSM_DTYPE_TYPES):
        return SSM_DTYPE_BYTES[named], f"config mamba_ssm_dtype {named}"
    return SSM_STATE_BYTES, "float32 (SGLang's default mamba_ssm_dtype)"


def radix_off_slots(version: str, *, max_running: int | None, attn_dp: int = 1,
                    architecture: str | None = None) -> tuple[int, str] | None:
    """(state slots, why) that SGLang sets rather than solves with the radix cache off; None where the ratio split
    sizes them (from 0.5.9 without ``--max-running-requests``) or the release predates the split (≤ 0.5.3: the
    fixed rule of ``plan_mamba_pool``).  ``max_running`` is the user's ``--max-running-requests`` (all ranks);
    ``attn_dp`` the attention-DP size (``max_mamba_cache_size // dp_size`` with DP attention)."""
    if not at_least(version, RATIO_SPLIT_FROM):
        return None
    if at_least(version, RADIX_OFF_RUNNING_ONLY_FROM):
        if max_running is None:
            return None
        base, why = max_running, f"--max-running-requests {max_running}"
    else:
        base = max_running if max_running is not None else FIXED_SLOTS
        why = f"--max-running-requests {max_running}" if max_running is not None else "the fixed 512 (no --max-running-requests)"
    split = attn_dp > 1 and (at_least(version, _DP_SPLIT_ALL_FROM) or architecture == "Qwen3NextForCausalLM")
    slots = base // attn_dp if split else base
    if split:
        why += f" // {attn_dp} attention-DP ranks"
    return slots, (f"{slots:,} slots = {why} with the radix cache off (sglang {version} handle_max_mamba_cache: "
                   "the slot count is set, not solved; one slot per running request)")


def charged_slots(slots: int, version: str) -> int:
    """State slots whose bytes SGLang takes from the KV budget: ``max_mamba_cache_size`` up to 0.5.16, one more
    (the padding slot) from 0.5.17 (``_handle_max_mamba_cache``'s returned rest)."""
    return slots + (1 if at_least(version, PADDING_CHARGED_FROM) else 0)


def plan_mamba_pool(model: ModelSpec, tp: int, linear_layers: int, rest: Bytes, version: str, *,
                    draft_tokens: int | None = None, max_running: int | None = None,
                    disable_radix_cache: bool = False, user_running: int | None = None,
                    attn_dp: int = 1, full_memory_ratio: float | None = None,
                    ssm_bytes: int = SSM_STATE_BYTES) -> MambaPool | None:
    """The state pool carved from the KV budget ``rest``; None for models without linear layers.

    ``tp`` is the attention-TP size; ``draft_tokens`` and ``max_running`` (per attention-DP rank) only with
    speculative decoding.  ``disable_radix_cache`` with ``user_running`` (the user's ``--max-running-requests``,
    all ranks) and ``attn_dp``: the slot count the radix cache off sets (``radix_off_slots``).
    ``full_memory_ratio``: ``--mamba-full-memory-ratio`` ρ (None: the default 0.9); the split takes ρ/(1 + ρ) of the
    budget in every release that solves it (0.5.4+: ``ModelRunner.handle_max_mamba_cache`` 0.5.4 – 0.5.8,
    ``model_runner_kv_cache_mixin`` 0.5.9 – 0.5.15, ``kv_cache_configurator`` 0.5.16 – 0.5.23).
    ``ssm_bytes``: bytes per SSM-state element (``ssm_state_choice``); the config's fp32 temporal state
    (``LinearAttnSpec.temporal_bytes_per_layer``) is rescaled to it, as ``BaseLinearStateParams.mamba_cache_per_req``
    sizes the slot (0.5.9 – 0.5.19), and so are the speculative intermediate states (``MambaPool`` allocates
    ``intermediate_ssm_state_cache`` in the same ``ssm_dtype``, 0.5.17).
    """
    rho = MAMBA_FULL_MEMORY_RATIO if full_memory_ratio is None else float(full_memory_ratio)
    if model.model_type == "lfm2" and not at_least(version, GRANITE_LFM2_HYBRID_FROM):
        raise PlanInputError(f"SGLang {version} does not serve LFM2 ({model.architecture}): models/lfm2.py and "
                             f"configs/lfm2.py first ship in {GRANITE_LFM2_HYBRID_FROM} (absent from the 0.5.8 wheel); "
                             f"plan with --engine-version {GRANITE_LFM2_HYBRID_FROM} or later")
    if linear_layers == 0:
        return None
    state = _state_per_layer(model, linear_layers, ssm_bytes)
    per_slot = Bytes(state.bytes * linear_layers // tp)
    ratio, why = slots_per_request(model, version)
    if disable_radix_cache:
        ratio, why = 1, "radix cache off: 1 slot per running request (_calculate_mamba_ratio)"
        set_ = radix_off_slots(version, max_running=user_running, attn_dp=attn_dp, architecture=model.architecture)
        if set_ is not None:
            return _set_pool(per_slot, set_, version, linear_layers, state, tp, draft_tokens)
    if draft_tokens and not at_least(version, "0.5.13"):  # intermediate states first, then the plain split
        intermediate = per_slot * ((max_running or 0) * draft_tokens)
        rest = rest - intermediate
    else:
        intermediate = Bytes(0)
    if not at_least(version, RATIO_SPLIT_FROM):
        return _fixed_pool(per_slot, state, linear_layers, tp, intermediate,
                           max_running if max_running is not None else user_running)
    budget = max(rest, Bytes(0)) * (rho / (1 + rho))
    padding = 1 if at_least(version, "0.5.17") else 0
    slots, intermediate, rule = _split_slots(budget, per_slot, ratio, padding, intermediate, version,
                                             draft_tokens=draft_tokens, max_running=max_running)
    allocated = slots + padding
    rule += ", + 1 padding slot" if padding else ""
    return MambaPool(slots=slots, allocated_slots=allocated if slots else 0, per_slot=per_slot, ratio=ratio,
                     intermediate=intermediate, source=(
        f"{linear_layers} linear layers × {format_bytes(state)} state/request ÷ tp {tp} = {format_bytes(per_slot)} "
        f"per slot; {slots:,} slots = {rule} of rest × {rho:g}/{1 + rho:g}; {why} ("
        f"{'radix cache off' if disable_radix_cache else 'radix cache on'}; sglang "
        "kv_cache_configurator.py _handle_max_mamba_cache)"))


def _state_per_layer(model: ModelSpec, linear_layers: int, ssm_bytes: int) -> Bytes:
    """One linear layer's per-request state, the config's fp32 temporal state rescaled to ``ssm_bytes`` per element
    (``plan_mamba_pool``); refused where the config does not give it."""
    state = model.linear_attn.state_bytes_per_layer if model.linear_attn else None
    if state is None:
        raise PlanInputError(f"{model.name}: {linear_layers} linear-attention layers but their per-request state "
                             "size is not derivable from the config; this model is not supported yet")
    temporal = model.linear_attn.temporal_bytes_per_layer
    if temporal is not None and ssm_bytes != SSM_STATE_BYTES:
        state = Bytes(state.bytes - temporal.bytes + temporal.bytes * ssm_bytes // SSM_STATE_BYTES)
    return state


def _fixed_pool(per_slot: Bytes, state: Bytes, linear_layers: int, tp: int, intermediate: Bytes,
                max_running: int | None) -> MambaPool:
    """Before ``RATIO_SPLIT_FROM``: one slot per running request (``max_running``, else the fixed 512), no split of
    the budget (sglang ≤ 0.5.3 ``model_runner.py``)."""
    slots = max_running if max_running is not None else FIXED_SLOTS
    return MambaPool(slots=slots, allocated_slots=slots, per_slot=per_slot, ratio=1, intermediate=intermediate,
                     source=(f"{linear_layers} linear layers × {format_bytes(state)} state/request ÷ tp {tp} = "
                             f"{format_bytes(per_slot)} per slot; {slots:,} slots "
                             f"({'max_running_requests' if max_running is not None else 'fixed 512'}; radix "
                             f"cache off for hybrid GDN, sglang ≤ 0.5.3 model_runner.py)"))


def _split_slots(budget: Bytes, per_slot: Bytes, ratio: int, padding: int, intermediate: Bytes, version: str, *,
                 draft_tokens: int | None, max_running: int | None) -> tuple[int, Bytes, str]:
    """(slots, intermediate states, the rule in words) of the state share ``budget`` of the ratio split: with
    speculation from 0.5.13 the intermediate states come out of the same share; from 0.5.17 one padding slot is
    taken first (``padding``)."""
    if draft_tokens and at_least(version, "0.5.13"):
        d = draft_tokens
        head = per_slot.bytes * (1 + d) if padding else 0
        slots = max(int((budget.bytes - head) // (per_slot.bytes * (1 + d / ratio))), 0)
        capped = min(max_running if max_running is not None else slots // ratio, slots // ratio)
        intermediate = per_slot * ((capped + padding) * d) if slots else Bytes(0)
        rule = (f"budget{' − slot·(1 + %d)' % d if padding else ''} // (slot·(1 + {d}/{ratio})), "
                f"+ intermediate states for {capped}{' + 1' if padding else ''} requests × {d} draft tokens")
    elif padding:
        slots = max((budget - per_slot) // per_slot, 0)
        rule = "(budget − slot) // slot"
    else:
        slots = budget // per_slot
        rule = "budget // slot" + (f", after {format_bytes(intermediate)} of intermediate states" if intermediate
                                   else "")
    return slots, intermediate, rule


def _set_pool(per_slot: Bytes, set_: tuple[int, str], version: str, linear_layers: int, state: Bytes, tp: int,
              draft_tokens: int | None) -> MambaPool:
    """The pool whose slot count the radix cache off set (``radix_off_slots``): the KV budget loses the slots (and
    the padding slot from 0.5.17, ``charged_slots``); with speculative decoding (0.5.9+) also the intermediate
    states of those slots (+ the padding slot from 0.5.17) × draft tokens."""
    slots, why = set_
    padding = 1 if at_least(version, PADDING_CHARGED_FROM) else 0
    if draft_tokens and not at_least(version, RADIX_OFF_RUNNING_ONLY_FROM):
        raise PlanInputError(f"SGLang {version} with the radix cache off and speculative decoding sizes the state "
                             "pool by (1 + draft tokens) per slot, which tpkit does not model; plan with the radix "
                             f"cache on or --engine-version {RADIX_OFF_RUNNING_ONLY_FROM} or later")
    intermediate = per_slot * ((slots + padding) * draft_tokens) if draft_tokens else Bytes(0)
    extra = (f"; + intermediate states for {slots}{' + 1' if padding else ''} slots × {draft_tokens} draft tokens"
             if draft_tokens else "")
    return MambaPool(slots=slots, allocated_slots=slots + padding if slots else 0, per_slot=per_slot, ratio=1,
                     intermediate=intermediate, source=(
        f"{linear_layers} linear layers × {format_bytes(state)} state/request ÷ tp {tp} = {format_bytes(per_slot)} "
        f"per slot; {why}{', + 1 padding slot' if padding else ''}{extra}"))
