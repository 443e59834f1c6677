"""The V0 engine's terms of the profile run's activation line (vLLM 0.2.x–0.9 run as V0; the V1 engine has none of
them), which ``profile_lines.activation_lines`` adds on a V0 run only (so a V1 plan does not import this module):

* the kernel phases beyond the eager forward's (``with_v0_kernel_phases``): Marlin's ``a_tmp`` (``marlin_v0``) and
  the expert-parallel Mixtral of 0.2.5–0.3.0 (``mixtral_v0``);
* the memory the profile leaves reserved above its peak, which V0's total − free reading charges
  (``with_v0_reserved_charges``): the caching allocator's free segments (``v0_reserved``, 0.2.5–0.6.3) or, on
  0.2.5 at tp > 1, the all-reduced activations ProcessGroupNCCL keeps recorded (``profile.held_allreduce_bytes``).

Split from ``profile_lines`` (helper tidy30, session 30) at its size limit, along the engine boundary.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.profile import HELD_ALLREDUCE_SHARE, held_allreduce_bytes
from tpkit.engines.vllm.v0_forward import v0_mlp_keeps_gate_up
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.band import estimated_share
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["with_v0_kernel_phases", "with_v0_reserved_charges", "V0_RESERVED_SHARE"]


def with_v0_kernel_phases(act, model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                          rules: VllmRules):
    """``act`` (the profile phases) with the V0 kernels' own phases where they apply: Marlin's (M, K) ``a_tmp``
    (helper awq14) and the 0.2.5–0.3.0 Mixtral that runs whole experts per rank, with AWQ split-K before 0.3
    (helper old02)."""
    from tpkit.engines.vllm.marlin_v0 import v0_marlin_a_tmp, with_v0_marlin_a_tmp
    from tpkit.engines.vllm.mixtral_v0 import applies, awq_split_k, with_expert_parallel_moe

    if v0_marlin_a_tmp(model, options.quantization, rules.release, rules.engine, r.compute_capability):
        act = with_v0_marlin_a_tmp(act, model, tp=parallel.tp, tokens=r.max_num_batched_tokens,
                                   act_bytes=r.act_bytes, gate_up_kept=v0_mlp_keeps_gate_up(model, rules.release),
                                   out_of_place=rules.v0_allreduce_out_of_place and parallel.tp > 1)
    if applies(model, options.quantization, release=rules.release, engine=rules.engine):
        act = with_expert_parallel_moe(act, model, tp=parallel.tp, tokens=r.max_num_batched_tokens,
                                       act_bytes=r.act_bytes,
                                       split_k=awq_split_k(model, release=rules.release, flag=options.quantization))
    return act


def with_v0_reserved_charges(line: LineItem, model: ModelSpec, parallel: ParallelSpec, options: VllmOptions,
                             r: Resolved, rules: VllmRules) -> tuple[LineItem, tuple[LineItem, ...]]:
    """``line`` (the activation peak) grown by what a V0 profile leaves reserved, and the info line that shows it:
    the all-reduced activations 0.2.5 holds (``VllmRules.v0_allreduce_held``), else the allocator's cached free
    segments (``_with_v0_reserved``); none outside their scope."""
    line, kept = _with_v0_reserved(line, model, parallel, r, rules, options.quantization)
    held, how = (held_allreduce_bytes(model, parallel, tokens=r.max_num_batched_tokens, rows=r.sampler_rows,
                                      act_bytes=r.act_bytes) if rules.v0_allreduce_held else (Bytes(0), ""))
    if held.bytes == 0:
        return line, kept
    line, note = _charged(line, held, item="profile phase: all-reduced activations held reserved (vLLM 0.2.5)",
                          share=HELD_ALLREDUCE_SHARE, term="vllm_allreduce_held",
                          added="the all-reduced activations 0.2.5 keeps reserved", why=(
        f"{how}; ProcessGroupNCCL records each collective's tensors on the NCCL stream "
        "(TORCH_NCCL_AVOID_RECORD_STREAMS unset before 0.2.6), so the freed blocks stay reserved and 0.2.5's "
        "total − free charges them "
        "(engines/vllm/profile.py)"))
    return line, (note,)


def _charged(line: LineItem, extra: Bytes, *, item: str, share: float, term: str, added: str,
             why: str) -> tuple[LineItem, LineItem]:
    """``line`` grown by ``extra`` (a banded estimate, ± ``share``), and the info line that shows the addition."""
    extra = estimated_share(extra, share, term=term, item=item)
    grown = replace(line, bytes=line.bytes + extra, source=line.source + f" + {added} (line below)")
    return grown, LineItem(item=item, bytes=extra, kind="info", source=f"estimate ± {share:.0%}: {why}")


V0_RESERVED_SHARE = 0.25
"""± share of the caching-allocator term (``engines/vllm/v0_reserved.py``: an allocator model, not a measurement)"""


def _with_v0_reserved(line: LineItem, model: ModelSpec, parallel: ParallelSpec, r: Resolved,
                      rules: VllmRules, options_quantization: str | None = None
                      ) -> tuple[LineItem, tuple[LineItem, ...]]:
    """``line`` (the activation peak) plus the segments V0 0.2.5–0.6.3 keep reserved after the profile run, and the
    info line that shows them (helper v04: ``engines/vllm/v0_reserved.py``; none outside its scope)."""
    if rules.engine != "V0":
        return line, ()
    from tpkit.engines.vllm.v0_reserved import applies, backend_output_copy, reserved_over_peak

    from tpkit.engines.vllm import mixtral_v0
    from tpkit.engines.vllm.v0_reserved import RESERVED_RELEASES

    mixtral = (mixtral_v0.applies(model, options_quantization, release=rules.release, engine=rules.engine)
               and RESERVED_RELEASES[0] <= tuple(rules.release) < RESERVED_RELEASES[1])
    if not (mixtral or applies(model, release=rules.release, engine=rules.engine)) or (
            rules.v0_allreduce_held and parallel.tp > 1):
        return line, ()  # 0.2.5 at tp > 1: the held all-reduced blocks stand for the reserved memory
    if mixtral:  # helper old02: the expert-parallel Mixtral's own replay (engines/vllm/mixtral_v0.py)
        extra, how = mixtral_v0.reserved_over_peak(
            model, tp=parallel.tp, tokens=r.max_num_batched_tokens, act_bytes=r.act_bytes,
            split_k=mixtral_v0.awq_split_k(model, release=rules.release, flag=options_quantization))
    else:
        extra, how = reserved_over_peak(model, tp=parallel.tp, tokens=r.max_num_batched_tokens,
                                        act_bytes=r.act_bytes,
                                        copy=backend_output_copy(release=rules.release,
                                                                 compute_capability=r.compute_capability))
    if extra == 0:
        return line, ()
    item = "profile phase: cached free segments counted as peak (V0 0.2.5–0.6.3)"
    line, note = _charged(line, Bytes(extra), item=item, share=V0_RESERVED_SHARE, term="vllm_v0_reserved",
                          added="the allocator's cached free segments",
                          why=(f"{how}; worker.py determine_num_available_blocks reads init_gpu_memory − free after "
                               "the profile run with no empty_cache, so reserved memory counts "
                               "(engines/vllm/v0_reserved.py)"))
    return line, (note,)
