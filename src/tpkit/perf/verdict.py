"""The answer in the engine's own flags, with the numbers behind it, and how sure each number is (pure).

    every verdict     the break-even accept length (cycle / plain step) first, then why: the cycle's parts
                      against accept_length × the plain step (verify all-reduces, experts read, draft steps),
                      the engine facts that cost time (no overlap under speculation, launch-bound passes,
                      the verify's attention path), and what other engine versions / backends would give
    speed-up ≥ 1.05   "EAGLE3 pays at batch B …"  + the flags of the best grid settings and all-reduce backend
    1.00 … 1.05       "about break-even …"        + no speculative flags
    < 1.00            "do not speculate at batch ≥ N on this link" (or the grid's better settings); when a larger
                      batch of the sweep pays (≥ 1.05), "slows decoding at batch B …; of the batches swept it pays
                      at …", never a "do not speculate" that the batch table contradicts (nor, when it pays, a
                      "stops paying at batch ≥ N" that a larger swept batch contradicts: the batches it loses at)

Flags (SGLang 0.5.x ``server_args`` / ``arg_groups``; vLLM ``--speculative-config``):
    --speculative-algorithm A --speculative-num-steps S --speculative-eagle-topk K
    --speculative-num-draft-tokens D [--speculative-draft-model-path P]
    --disable-custom-all-reduce (NCCL only) · --enable-torch-symm-mem (SGLang ≥ 0.5.3, cliflags; SM90 world 4/6/8)
    vLLM: --speculative-config '{"method": "eagle3", "model": P, "num_speculative_tokens": S}'

A batch that cannot be resident (``resident_note``) gets a "Memory: …" line right after the numbers.
"""

from __future__ import annotations

import json

from tpkit.perf.allreduce import Link
from tpkit.perf.experts import expected_distinct_experts
from tpkit.perf.result import Verdict
from tpkit.perf.spec import running_requests
from tpkit.perf.work import forward_kernels, weight_bytes_read
from tpkit.units import Bytes, format_bytes

__all__ = ["verdict_for", "confidence_of", "spec_flags", "spec_flags_note", "resident_note"]

_VLLM_METHOD = {"EAGLE": "eagle", "EAGLE3": "eagle3", "NEXTN": "mtp", "STANDALONE": "draft_model"}


def spec_flags(engine: str, settings: dict, algorithm: str, draft_path: str | None,
               version: str | None = None) -> list[str]:
    """Speculative flags for ``settings`` (num_steps, topk, num_draft_tokens) in release ``version``'s spelling.

    vLLM before ``--speculative-config`` (first in 0.8.2, ``engines.cliflags``; vllm/engine/arg_utils.py 0.5.5–0.8.2
    registers ``--speculative-model`` / ``--num-speculative-tokens``): a draft model (EAGLE, STANDALONE) is written
    ``--speculative-model P --num-speculative-tokens S``; EAGLE3 and MTP have no spelling there (no flags:
    :func:`spec_flags_note` says so)."""
    family = "NEXTN" if algorithm == "MTP" else algorithm
    needs_draft = family in ("EAGLE", "EAGLE3", "STANDALONE")
    if engine == "vllm":
        from tpkit.engines.cliflags import accepts

        if accepts("vllm", "--speculative-config", version) is False:
            if family in ("EAGLE", "STANDALONE"):
                return [f"--speculative-model {draft_path or '<draft model>'}",
                        f"--num-speculative-tokens {settings['num_steps']}"]
            return []
        cfg = {"method": _VLLM_METHOD[family], "num_speculative_tokens": settings["num_steps"]}
        if needs_draft:
            cfg["model"] = draft_path or "<draft model>"
        return [f"--speculative-config '{json.dumps(cfg)}'"]
    flags = [f"--speculative-algorithm {algorithm}", f"--speculative-num-steps {settings['num_steps']}",
             f"--speculative-eagle-topk {settings['topk']}",
             f"--speculative-num-draft-tokens {settings['num_draft_tokens']}"]
    if needs_draft:
        flags.append(f"--speculative-draft-model-path {draft_path or '<draft model>'}")
    return flags


def spec_flags_note(engine: str, algorithm: str, version: str | None) -> str | None:
    """A plain sentence when release ``version`` has no flag for ``algorithm`` (see :func:`spec_flags`), else None."""
    family = "NEXTN" if algorithm == "MTP" else algorithm
    if engine != "vllm" or family in ("EAGLE", "STANDALONE"):
        return None
    from tpkit.engines.cliflags import accepts, first_release

    if accepts("vllm", "--speculative-config", version) is not False:
        return None
    return (f"Flags: vLLM {version} has no --speculative-config (first in "
            f"{first_release('vllm', '--speculative-config')}) and its --speculative-model / "
            f"--num-speculative-tokens name no {algorithm} method, so no flags are printed: upgrade vLLM to run "
            f"{algorithm}, or model the draft as EAGLE / STANDALONE.")


def _backend_flags(engine: str, best: str, default: str) -> list[str]:
    if best == default:
        return []
    if best == "nccl":
        return ["--disable-custom-all-reduce"]
    if best == "symm_mem":
        return ["--enable-torch-symm-mem"] if engine == "sglang" else ["env VLLM_ALLREDUCE_USE_SYMM_MEM=1"]
    return []


def verdict_for(req, link: Link, policy, base, spec, crossover, best, backends, runtime=None,
                what_ifs=(), by_context=((), None), by_batch=()) -> Verdict:
    """The verdict for one request (see module docstring).  ``runtime``: the engine facts the cycle was costed
    with; ``what_ifs``: (change, speed-up, break-even accept length, flags) for other engine settings;
    ``by_context``: (the context sweep at this batch, the context crossover); ``by_batch``: the batch sweep
    (``BatchPoint``s), which a "do not speculate at batch ≥ N" must not contradict."""
    base_tok = running_requests(req, req.batch, False)[0] / base.total_us * 1e6
    if spec is None:
        return _plain_verdict(req, link, policy, base, base_tok, backends)
    usable = [b for b in backends if b.usable and b.spec_tok_s]
    top = max(usable, key=lambda b: b.spec_tok_s)
    ar_flags = _backend_flags(req.engine, top.policy, policy) if top.spec_tok_s > 1.03 * spec.tok_s else []
    name = req.spec.algorithm
    lines = [_head_text(req, link, spec, base_tok, runtime), _breakeven_text(req, spec),
             *_context_text(req, spec, *by_context), _cycle_text(req, base, spec),
             *_engine_text(runtime, spec, base),
             *_what_if_text(what_ifs, spec), _backend_text(backends, policy, req.tp)] + _oneshot_text(link, backends)
    no_flags = spec_flags_note(req.engine, req.spec.algorithm, req.engine_version)
    if no_flags:
        lines.append(no_flags)
    lift = _cap_lift(req, spec, what_ifs)
    if spec.running and spec.running < req.batch:
        lines.insert(1, f"Cap-limited: {spec.cap_source}. The {name} side decodes {spec.running} of the {req.batch} "
                        f"requests at a time (the rest wait), so its {spec.tok_s:.1f} tok/s is that of batch "
                        f"{spec.running}, against plain decoding of all {req.batch}"
                        + (f"; --max-running-requests {req.batch} lifts the cap (the KV pool must hold them): "
                           f"{lift[1]:.2f}×." if lift else "."))
    if lift and spec.speedup < 1.05 <= lift[1]:
        lines.insert(2, f"Speculation pays here only with SGLang's speculative running-request cap lifted "
                        f"({lift[0]}): {lift[1]:.2f}× against {spec.speedup:.2f}× capped.")
        return Verdict(message="\n".join(lines), flags=tuple([lift[0]] + spec_flags(req.engine, req.spec.to_dict(),
                                                                                   name, req.draft_path,
                                                                                   req.engine_version) + ar_flags))
    env = _spec_v2_env(req, runtime, spec, what_ifs)
    if env and spec.speedup < 1.05:
        flag, sp = env
        lines.insert(2, f"Speculation pays here only with spec v2 ({flag}, the overlap scheduler kept under "
                        f"speculation): {sp:.2f}× against {spec.speedup:.2f}× with this release's default spec v1.")
        flags = spec_flags(req.engine, req.spec.to_dict(), name, req.draft_path, req.engine_version)
        return Verdict(message="\n".join(lines), flags=tuple([flag] + flags + ar_flags))
    if spec.speedup >= 1.05:
        return _paying_verdict(req, spec, crossover, best, by_batch, lift, env, lines, ar_flags)
    if spec.speedup >= 1.0:
        lines.insert(2, f"About break-even: not worth the draft model's memory at batch {req.batch}.")
        return Verdict(message="\n".join(lines), flags=tuple(ar_flags))
    return _slowing_verdict(req, link, crossover, best, by_batch, lines, ar_flags)


def _head_text(req, link: Link, spec, base_tok: float, runtime) -> str:
    """The first line: the request, plain decoding's and the speculative side's tok/s, the speed-up."""
    name = req.spec.algorithm
    engine = f", {runtime.label}" if runtime is not None else ""
    return f"{name} at batch {req.batch}, context {req.context:,} tokens, tp {req.tp} over {link.kind}{engine}: " \
           f"plain decoding {base_tok:.1f} tok/s, {name} {spec.tok_s:.1f} tok/s ({spec.speedup:.2f}×, accept length " \
           f"{spec.accept_length:.2f})."


def _breakeven_text(req, spec) -> str:
    """The break-even accept length, where the accept length came from, and whether any draft can reach it."""
    name = req.spec.algorithm
    be = spec.breakeven_accept_length
    breakeven = (f"Break-even accept length {be:.2f}: {name} pays here only if the draft averages more than {be:.2f} "
                 f"accepted tokens per cycle (this run {'was given' if req.accept_length else 'assumes'} "
                 f"{spec.accept_length:.2f}" + ("" if req.accept_length else
                                                f", the {req.spec.family} family default, not a measurement of "
                                                "your draft: read yours from SGLang's decode log ('accept len') or "
                                                "vLLM's 'Mean acceptance length' and pass it with --accept-length")
                 + ("; --accept-length sets it)." if req.accept_length else ")."))
    most = 1 + min(req.spec.num_steps, req.spec.num_draft_tokens - 1)
    if be > most:  # a newcomer reads "more than 7.34" as a target; no cycle of these settings yields that many
        breakeven += (f" No draft can reach it: a cycle of {req.spec.num_steps} draft step(s) yields at most {most} "
                      f"tokens (the verified token plus {most - 1} drafts).")
    return breakeven


def _paying_verdict(req, spec, crossover, best, by_batch, lift, env, lines: list[str], ar_flags) -> Verdict:
    """Speculation pays (≥ 1.05×): where it stops paying, the grid's best settings, and the flags to run it."""
    use = best if best and best["speedup"] > 1.05 * spec.speedup else req.spec.to_dict()
    stop = (f"It stops paying at batch ≥ {crossover}." if crossover else
            "It still pays at batch 1024.")
    if crossover and any(p.batch >= crossover and p.spec is not None and p.spec.speedup >= 1.05
                         for p in by_batch):  # it pays again further up: name where it loses instead
        losing = [f"{p.batch:,}" for p in by_batch if p.spec is not None and p.spec.speedup < 1.0]
        stop = f"Of the batches swept it loses (below 1.00×) at batch {', '.join(losing)}."
    lines.insert(2, f"Speculation pays here. {stop}" + (
        f" Best grid settings: steps {best['num_steps']}, topk {best['topk']}, draft tokens "
        f"{best['num_draft_tokens']} ({best['speedup']:.2f}×)." if best else ""))
    flags = (([env[0]] if env else []) + spec_flags(req.engine, use, req.spec.algorithm, req.draft_path,
                                                    req.engine_version) + ar_flags)
    if lift and lift[1] > 1.03 * spec.speedup:
        flags.insert(0, lift[0])
    if env:
        lines.insert(3, f"Keep spec v2 ({env[0]}): this release's default spec v1 reaches {env[1]:.2f}×.")
    return Verdict(message="\n".join(lines), flags=tuple(flags))


def _slowing_verdict(req, link: Link, crossover, best, by_batch, lines: list[str], ar_flags) -> Verdict:
    """Speculation slows decoding (< 1.00×): the grid's better settings, else the swept batches where it pays, else
    "do not speculate at batch ≥ N" (never one the batch sweep contradicts)."""
    name = req.spec.algorithm
    at = 1 if crossover == 1 else crossover or req.batch
    if best and best["speedup"] >= 1.05:
        lines.insert(2, f"{name} with these settings slows decoding on this {link.kind} link. The grid's best, "
                        f"steps {best['num_steps']} / topk {best['topk']} / draft tokens {best['num_draft_tokens']}, "
                        f"would reach {best['speedup']:.2f}× if the draft's lower-ranked candidates are accepted as "
                        "the tree model assumes; measure its accept length before relying on it.")
        flags = spec_flags(req.engine, best, name, req.draft_path, req.engine_version)
        return Verdict(message="\n".join(lines), flags=tuple(flags + ar_flags))
    better = f" The grid's best reaches only {best['speedup']:.2f}×." if best else ""
    paying = [p for p in by_batch if p.batch >= at and p.spec is not None and p.spec.speedup >= 1.05]
    if paying:
        at_batches = ", ".join(f"{p.batch:,}" for p in paying)
        lines.insert(2, f"{name} slows decoding at batch {req.batch} on this {link.kind} link; of the batches swept "
                        f"it pays only at {at_batches} (up to {max(p.spec.speedup for p in paying):.2f}×): "
                        "speculate only if the server decodes that many requests at once."
                        + (f" At batch {req.batch} the grid's best reaches only {best['speedup']:.2f}×." if best else ""))
        return Verdict(message="\n".join(lines), flags=tuple(ar_flags))
    lines.insert(2, f"{name} slows decoding: do not speculate at batch ≥ {at} on this {link.kind} link.{better}")
    return Verdict(message="\n".join(lines), flags=tuple(ar_flags))


def _spec_v2_env(req, runtime, spec, what_ifs) -> tuple[str, float] | None:
    """(the setting, the other mode's speed-up) when SGLang spec v2 is what makes speculation pay on a release
    where v1 is the default.  v1 ran by default and the v2 what-if pays (≥ 1.05×) while v1 does not; or the
    request asked for v2 (``--sglang-spec-v2 on``), it pays and the v1 default pays not or > 3 % less (the
    all-reduce flags' rule): the flags then carry the setting so that they run what was predicted."""
    if runtime is None or runtime.spec_v2 is None:
        return None
    if runtime.spec_v2 and runtime.spec_v2_source == "flag":
        v1 = [w for w in what_ifs if w[0].startswith("spec v1 (the release's default")]
        if v1 and spec.speedup >= 1.05 and (v1[0][1] < 1.05 or spec.speedup > 1.03 * v1[0][1]):
            flag = "SGLANG_ENABLE_SPEC_V2=1" if runtime.version >= (0, 5, 5) else "--enable-beta-spec"
            return flag, v1[0][1]
        return None
    v2 = [w for w in what_ifs if w[0].startswith("spec v2 (") and w[3]]
    if v2 and not runtime.spec_v2 and spec.speedup < 1.05 <= v2[0][1]:
        return v2[0][3][0], v2[0][1]
    return None


def _cap_lift(req, spec, what_ifs) -> tuple[str, float] | None:
    """(the flag, the speed-up with it) when SGLang's speculative running-request cap binds at this batch and
    ``--max-running-requests`` lifts it (the what-if of ``plan._what_ifs``)."""
    if not spec.running or spec.running >= req.batch:
        return None
    lifted = [w for w in what_ifs if w[0].startswith("--max-running-requests") and w[3]]
    return (lifted[0][3][0], lifted[0][1]) if lifted else None


def _tokens(n: int) -> str:
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def _context_text(req, spec, sweep, crossover) -> list[str]:
    """How the speed-up at this batch moves with the context length, and where it crosses 1."""
    if not sweep:
        return []
    row = ", ".join(f"{_tokens(p.context)} {p.spec.speedup:.2f}×" for p in sweep)
    longest = sweep[-1].context
    at = f"At batch {req.batch}, by context ({row})"
    if crossover is None:
        return [f"{at}: it pays at every context up to {longest:,} tokens."]
    if any(p.context >= crossover and p.spec.speedup >= 1.0 for p in sweep):  # pays again at a longer context
        paying = ", ".join(_tokens(p.context) for p in sweep if p.spec.speedup >= 1.0)
        return [f"{at}: of the contexts swept it pays (≥ 1.00×) only at {paying} tokens."]
    if crossover <= sweep[0].context:
        return [f"{at}: it loses at every context from {sweep[0].context:,} tokens."]
    if spec.speedup >= 1.0:
        return [f"{at}: it stops paying from about {crossover:,} tokens of context."]
    return [f"{at}: it pays only below about {crossover:,} tokens of context."]


def _engine_text(runtime, spec, base) -> list[str]:
    """The engine facts that cost time in this cycle, with their share."""
    if runtime is None:
        return []
    parts = dict(spec.parts_us)
    costs = []
    if not runtime.verify_split_kv or runtime.verify_mla_prefill or runtime.verify_rows_per_token:
        path = ("the MLA prefill path (context up-projected)" if runtime.verify_mla_prefill else
                "one decode row per query token (each reads the whole context)" if runtime.verify_rows_per_token
                else "no KV split")
        plain = dict(base.by_kind_us).get("attention", 0.0)
        costs.append(f"{parts.get('verify attention (in verify)', 0.0) / 1e3:.2f} ms of the verify in attention "
                     f"through {path}, against {plain / 1e3:.2f} ms of attention in a plain step")
    host = parts.get("host not overlapped (in overhead)", 0.0)
    if host:
        costs.append(f"{host / 1e3:.2f} ms of host work per cycle the GPU waits for (no overlap scheduling under "
                     "speculation in this version)")
    launch = parts.get("verify launch-bound (in verify)", 0.0)
    if launch:
        costs.append(f"{launch / 1e3:.2f} ms of the verify spent waiting for Python to launch kernels (no full CUDA "
                     "graph)")
    draft_launch = parts.get("draft launch-bound (in steps)", 0.0)
    if draft_launch:
        costs.append(f"{draft_launch / 1e3:.2f} ms of the draft steps spent waiting for Python to launch the "
                     "proposer's ops (the draft's GPU work per step is shorter than its launches)")
    facts = "; ".join(runtime.facts)
    out = [f"Engine facts ({runtime.label}): {facts}."]
    if costs:
        out.append("They cost " + "; ".join(costs) + ".")
    return out


def _what_if_text(what_ifs, spec) -> list[str]:
    """Other engine settings, each with its speed-up and break-even accept length."""
    rows = [f"{change}: {sp:.2f}× (break-even accept length {be:.2f})" + (f" [{' '.join(fl)}]" if fl else "")
            for change, sp, be, fl in what_ifs if abs(sp - spec.speedup) > 0.01 * spec.speedup]
    return ["What would change it: " + "; ".join(rows) + "."] if rows else []


def _oneshot_text(link: Link, backends) -> list[str]:
    """On PCIe: say whether forcing a one-shot all-reduce helps speculation, with the numbers."""
    by = {b.policy: b for b in backends}
    one, nccl = by.get("oneshot"), by.get("nccl")
    if link.kind != "pcie" or link.world <= 2 or not one or not nccl or not one.spec_tok_s or not nccl.spec_tok_s:
        return []
    verb = "slower" if one.spec_tok_s < nccl.spec_tok_s else "faster"
    return [f"A forced one-shot all-reduce over PCIe is {verb} than NCCL for speculation here: {one.spec_tok_s:.1f} vs "
            f"{nccl.spec_tok_s:.1f} tok/s (plain decoding {one.base_tok_s:.1f} vs {nccl.base_tok_s:.1f}): every rank "
            f"reads the other {link.world - 1} ranks' messages at once through a {link.fabric_gbps:g} GB/s host fabric, "
            "and the verify pass's messages are num_draft_tokens× larger."]


def _plain_verdict(req, link, policy, base, base_tok, backends) -> Verdict:
    usable = [b for b in backends if b.usable and b.base_tok_s]
    top = max(usable, key=lambda b: b.base_tok_s)
    flags = _backend_flags(req.engine, top.policy, policy) if top.base_tok_s > 1.03 * base_tok else []
    msg = (f"Plain decoding at batch {req.batch}, context {req.context:,} tokens, tp {req.tp} over {link.kind}: "
           f"{base_tok:.1f} tok/s (step {base.total_us / 1e3:.2f} ms, of which {base.allreduce_us / 1e3:.2f} ms collectives).\n"
           + _backend_text(backends, policy, req.tp))
    return Verdict(message=msg, flags=tuple(flags))


def _cycle_text(req, base, spec) -> str:
    parts = dict(spec.parts_us)
    verify, v_ar = parts["verify"], parts["verify allreduce (in verify)"]
    draft, d_ar = parts["draft steps"], parts["draft allreduce (in steps)"]
    budget = spec.accept_length * base.total_us
    text = (f"Why: one cycle takes {spec.cycle_us / 1e3:.2f} ms ({spec.cycle_us / base.total_us:.2f} plain steps) "
            f"against {budget / 1e3:.2f} ms for the {spec.accept_length:.2f} tokens it yields at "
            f"{base.total_us / 1e3:.2f} ms per plain step: verify {verify / 1e3:.2f} ms ({v_ar / 1e3:.2f} ms of it in "
            f"all-reduces, vs {base.allreduce_us / 1e3:.2f} ms in a plain step), {req.spec.num_steps} draft steps "
            f"{draft / 1e3:.2f} ms ({d_ar / 1e3:.2f} ms all-reduces), draft extend {parts['draft extend'] / 1e3:.2f} ms, "
            f"overhead {parts['overhead'] / 1e3:.2f} ms.")
    moe = req.model.moe
    if moe is not None:
        local = -(-moe.num_experts // req.ep)
        one = expected_distinct_experts(moe.num_experts, moe.experts_per_token, req.batch, experts_on_rank=local)
        many = expected_distinct_experts(moe.num_experts, moe.experts_per_token,
                                         req.batch * req.spec.num_draft_tokens, experts_on_rank=local)
        text += (f" Each MoE layer of the verify pass reads {many:.1f} of {local} experts per rank, "
                 f"{many / one:.1f}× the {one:.1f} of a plain step.")
    return text


def _backend_text(backends, policy, tp: int) -> str:
    """Each backend's cost and speed; at tp 1, where no rank talks to another and every backend costs nothing,
    one sentence saying so instead of a row of "0.0 µs" per backend (helper cc21; the JSON rows keep their
    ``us_per_call`` 0.0 with ``source`` "no collectives at tp 1")."""
    if tp == 1 and not any(b.us_per_call for b in backends if b.base_tok_s is not None):
        return ("All-reduce backends: none needed at tp 1 (a single GPU runs no all-reduce, so the backend choice "
                "does not change the step).")
    rows = []
    for b in backends:
        if b.base_tok_s is None:
            rows.append(f"{b.policy}: cannot run here")
            continue
        spec = f", speculative {b.spec_tok_s:.1f}" if b.spec_tok_s else ""
        tag = " (engine default)" if b.policy == policy else ("" if b.usable else " (not as shipped)")
        rows.append(f"{b.policy}{tag}: {b.us_per_call:.1f} µs per all-reduce, plain {b.base_tok_s:.1f}{spec} tok/s")
    return "All-reduce backends: " + "; ".join(rows) + "."


def confidence_of(req, link: Link, rate_source: str) -> dict:
    """How sure each part is, with the reason (bands are rough, from the checks in docs/accuracy.md)."""
    measured_gpu = req.gpu.name == "H200-SXM-141GB"
    ref = (req.impl or req.engine) == "reference"
    if measured_gpu and ref:
        base = {"level": "high", "band_pct": 10, "why": "H200 reference decode predicted within 9.5 % at batch 1–256 "
                                                         "(docs/benchmarks.md)"}
    elif measured_gpu:
        base = {"level": "medium", "band_pct": 20, "why": "H200 efficiencies measured; the engine's kernel layout is "
                                                           "counted from its source, not measured"}
    else:
        base = {"level": "low" if req.gpu.name.startswith("RTX-PRO") else "medium", "band_pct": 30,
                "why": (f"H200 GEMM efficiency assumed to carry over to {req.gpu.name}, its HBM fraction "
                        f"{req.gpu.hbm_efficiency} from public microbenchmarks (scripts/gpu_hbm.py)"
                        if req.gpu.hbm_efficiency is not None else
                        f"H200 efficiencies assumed to carry over to {req.gpu.name}") + "; its datasheet rates: "
                       f"{req.gpu.source_of('bf16_dense_tflops').split(' / http', 1)[0][:120]} "
                       "(in full under assumptions)"}
    if req.profile is not None:
        ar = {"level": "high", "why": "measured all-reduce profile"}
    elif link.kind == "xgmi":
        ar = {"level": "medium", "why": "xGMI full-mesh model from published figures (TransferBench per-link rates, "
                                        "rccl-tests on 8× MI300X, vLLM custom all-reduce timings on MI300X / MI355X); "
                                        "within ~25 % of those at ≤ 4 MB; AMD all-reduce not measured here"}
    elif link.kind == "nvlink":
        ar = {"level": "medium", "why": "NCCL's own latency model; matches the 2× H200 measurement within 10 % at "
                                        "≤ 1 MiB; 8-GPU NVLink not measured here"}
    else:
        ar = {"level": "medium", "why": "NCCL model and PCIe one-shot fabric model vs published 8× RTX PRO 6000 "
                                        "measurements: within 15 % up to 64 KB, one-shot +28 % at 256 KB "
                                        "(docs/accuracy.md); the host fabric varies by box (51.7–191.8 GB/s)"}
    out = {"baseline": base, "allreduce": ar}
    if req.spec is not None:
        given = req.accept_length is not None
        out["speculative"] = {"level": "medium" if given else "low",
                              "why": ("accept length given; the draft's cost is modelled from its shape" if given else
                                      "accept length from a per-family default, a real draft/dataset can differ by "
                                      "±30 %; " + rate_source[:120])}
    return out


def resident_note(*, model, shard, batch, impl, kv_bytes: int, gpu) -> str:
    """A verdict line when the requested batch cannot be resident on one rank; "" otherwise (helper rev11,
    2026-12-05).

    ``tpkit perf`` costs a step of ``batch`` requests of ``context`` tokens; it does not size the KV pool (``tpkit
    plan`` does). SGLang and vLLM admit only what their KV pool holds and queue the rest, so a batch whose KV cache
    does not fit runs at a speed no server reaches. The bound is a lower one on what a rank holds, from the shapes
    the step is costed with: every weight of the rank, all experts included (``work.weight_bytes_read``), plus the
    KV cache the plain step's attention reads, which is the whole cache of the running requests (``context`` + 1
    tokens each, a sliding-window layer its window, MLA the latent on every rank; ``work._attention``). Left out,
    so the bound stays below the truth: start-up memory, activations, CUDA graphs, a draft model, linear-attention
    states. Above the CUDA-reported total the verdict says so; below it the plan may still not fit."""
    kernels = forward_kernels(model, shard, batch, impl, quant=model.quant, kv_bytes=kv_bytes)
    kv = Bytes(int(sum(k.bytes * k.count for k in kernels if k.kind == "attention")))
    weights = Bytes(int(weight_bytes_read(model, shard, model.quant)))
    total = gpu.total_bytes
    if weights + kv <= total:
        return ""
    return (f"Memory: {batch.sequences:,} requests of {batch.context:,} tokens hold {format_bytes(kv)} of KV cache per "
            f"rank, and the weights {format_bytes(weights)}: more than the {format_bytes(total)} of one {gpu.name}. "
            f"The engine cannot run them at once (it admits what its KV pool holds and queues the rest), so these "
            f"speeds are for a batch no server reaches here; `tpkit plan` sizes the KV pool (max running requests).")
