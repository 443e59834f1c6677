"""Where a failure happened: the start-up phase named by traceback frames, start-up markers and the messages that
say where they were raised (split out of :mod:`tpkit.logs.failures`, which re-exports every public name)."""

from __future__ import annotations

import re

from tpkit.logs.lazyre import lazy

__all__ = ["constructor_label", "serving_loop_phase", "frame_phase", "traceback_phase", "load_only_phase",
           "dummy_run_phase", "warmup_phase", "load_phase",
           "encoder_phase", "workspace_phase", "WORKER_RPC_LOOP",
           "marker",
           "marker_phase", "STEP_ORDER", "MARKER_NEEDLES"]

_FRAME_RULES = (
    # register_graph_buffers: the custom all-reduce's ``capture()`` context calls it on exit, the end of CUDA-graph
    # capture (``CustomAllreduce.capture`` / ``register_graph_buffers``, distributed/device_communicators/
    # custom_all_reduce.py: sglang 0.4.3.post2 and 0.5.9 wheels, vLLM 0.11.0 wheel; sglang#9706; round ex28,
    # docs/accuracy.md §7.3)
    ("cuda_graph", lazy(r"captur|cuda_?graph|cudagraph|graph_runner|init_device_graphs|register_graph_buffers", re.I)),
    # create_weights: a linear / MoE layer's quant method allocates its parameters while the model is built, inside
    # load_model (vLLM model_executor/layers/linear.py LinearBase.__init__, which SGLang <= 0.3 imported from vLLM)
    # process_weights_after_loading: the quant methods' repacking after the checkpoint is read, run by
    # model_loader/utils.py process_weights_after_loading inside the loader's load_model; gptq_marlin_repack's callers
    # in the vLLM 0.11.0 wheel are all on that path (kernels/mixed_precision/marlin.py MarlinLinearKernel
    # .process_weights_after_loading, hqq_marlin.py, utils/marlin_utils_fp8.py / _fp4.py prepare_*_for_marlin from
    # fp8.py / modelopt.py process_weights_after_loading): a cut traceback may keep only those frames
    # (round ex28: club-3090#60)
    # initialize_model\b: the loader's model constructor (vLLM model_executor/model_loader/utils.py initialize_model,
    # called by base_loader.py load_model; 0.11.0 wheel), not the distributed layer's initialize_model_parallel
    # (distributed/parallel_state.py, both engines), which the bare word used to match: an NCCL group's creation was
    # placed at the weights (round ex29: sglang#4289, NVIDIA/nccl#1686)
    # make_layers: every model's __init__ builds its decoder layers through it (vLLM model_executor/models/utils.py
    # make_layers, 0.11.0 wheel; SGLang srt/utils/common.py make_layers, 0.5.9 wheel), inside initialize_model: a
    # traceback cut there is the model's construction in load_model (round ex29: club-3090#32)
    ("weights", lazy(r"load_model|load_weights|weight_loader|get_model\b|_initialize_model|model_loader|"
                           r"loader\.py|initialize_model\b|create_weights|process_weights_after_loading|"
                           r"gptq_marlin_repack|make_layers")),
    # vLLM V1's warm-up runs after the KV tensors exist: the executor's initialize_from_config calls the workers'
    # initialize_from_config (KV allocation), then compile_or_warm_up_model (capture_model, matched above, then
    # warmup_kernels / the dummy sampler run): v1/executor/abstract.py initialize_from_config and
    # v1/worker/gpu_worker.py compile_or_warm_up_model, vLLM 0.10.0 and 0.23.0 wheels. Checked before kv_pool, whose
    # pattern the outer frames (_initialize_kv_caches, initialize_from_config) also match.
    ("first_request", lazy(r"compile_or_warm_up_model|warmup_kernels")),
    # SGLang's run-time pool allocators: the scheduler calls them for every batch it schedules, once the pools exist
    # (mem_cache/common.py alloc_token_slots / alloc_paged_token_slots_extend / _decode / alloc_req_slots, sglang 0.5.9
    # wheel; mem_cache/allocation.py, 0.5.23 wheel); checked before kv_pool, whose pattern their callers do not match
    # but a pool's name in an inner frame might (round ex29: sglang#26265)
    ("first_request", lazy(r"alloc_token_slots|alloc_paged_token_slots|alloc_req_slots")),
    ("kv_pool", lazy(r"memory_pool|init_memory_pool|profile_max_num_token|_init_pools|_create_buffers|"
                           r"kv_cache|profile_run|determine_available_memory|determine_num_available_blocks|"
                           r"initialize_cache|initialize_from_config|cache_engine|_allocate_kv")),
    ("other", lazy(r"init_device|init_torch_distributed|init_distributed_environment|"
                         r"initialize_model_parallel|init_worker_distributed_environment")),
    # SGLang <= 0.2's serving loop: tp_worker.py exposed_step -> forward_step -> forward_prefill_batch /
    # forward_decode_batch (forward_fill_batch in router/model_rpc.py, 0.1.x): requests being served
    # forward_thread_func: SGLang's overlap worker thread (managers/tp_worker_overlap_thread.py
    # TpModelWorkerClient.forward_thread_func -> forward_thread_func_ -> forward_batch_generation per scheduled batch;
    # sglang 0.4.3.post2 wheel): it runs batches only once the model runner, pools and graphs exist
    # (round ex28: sglang#4248)
    # start_worker_execution_loop: vLLM V0's non-driver workers run their execute_model loop in it
    # (worker/worker_base.py), started by the driver's first execute_model / execute_model_async
    # (executor/executor_base.py DistributedExecutorBase, 0.10.1 wheel): requests being served (round ex30, vllm#15039)
    # run_busy_loop (core.py): vLLM V1's engine-core loop, which run_engine_core enters only once EngineCoreProc's
    # constructor has sized and allocated the KV cache and warmed up (EngineCore.__init__ -> _initialize_kv_caches ->
    # initialize_from_config -> compile_or_warm_up_model; v1/engine/core.py and v1/executor/abstract.py, 0.10.2,
    # 0.11.0, 0.20.0 and 0.33.0 wheels); SGLang 0.5.9 has no such name. Not the multiproc worker's worker_busy_loop
    # (``WORKER_RPC_LOOP``), which runs the start-up RPCs too (round cr33b)
    # run_engine_loop / _log_task_completion: vLLM V0's AsyncLLMEngine background loop and its done-callback
    # (``serving_loop_phase``; round ex35)
    # wake_up: vLLM's sleep mode re-maps the memory sleep() released (LLMEngine / executor / Worker .wake_up ->
    # device_allocator/cumem.py CuMemAllocator.wake_up -> create_and_map); its only callers are the user's
    # LLM.wake_up, the API server's /wake_up route and the engine clients' RPC (vLLM 0.8.5 and 0.11.0 wheels: no
    # start-up step calls it), so a failure under it comes after the engine started and served (round ex35: vllm#13941,
    # TideDra/lmm-r1#43)
    ("first_request", lazy(r"run_busy_loop \(core\.py\)|run_engine_loop|_log_task_completion|^wake_up \(|"
                                 r"execute_model|start_worker_execution_loop|forward_batch_generation|run_batch|"
                                 r"event_loop|sample_tokens|"
                                 r"forward_thread_func|"
                                 r"process_input_requests|_process_engine_step|step_with_batch_queue|"
                                 r"exposed_step|forward_step|forward_(?:prefill|decode|fill)_batch")),
    # a model class's __init__ or a vLLM parallel layer's (``constructor_label``: the loader alone builds them), last:
    # any frame above that places the traceback wins (round ex31: QwenLM/Qwen3-VL#1493; round ex35: xinference#1361)
    ("weights", lazy(r"a model class's constructor|a parallel layer's constructor")),
)


_MODEL_CLASS_FILE = lazy(r"/(?:vllm/model_executor|sglang/srt)/models/\w+\.py$")
"""a model's own module: the loader alone builds its classes (vLLM ``initialize_model``'s
``model_class(vllm_config=…)``, model_loader/utils.py, tensorizer.py, 0.11.0; SGLang ``_initialize_model``'s
``model_class(**kwargs)``, srt/model_loader/loader.py, 0.5.9): an ``__init__`` frame there is the weight load
(``_FRAME_RULES``' last rule; ex31: Qwen3-VL#1493)"""
_PARALLEL_LAYER_FILE = lazy(r"/vllm/model_executor/layers/(?:vocab_parallel_embedding|linear)\.py$")
"""vLLM's weight-holding parallel layers: ``VocabParallelEmbedding`` / ``ParallelLMHead`` and ``LinearBase``'s
subclasses allocate their parameters in ``__init__`` (``torch.empty`` directly in 0.4.0.post1's
vocab_parallel_embedding.py line 76 and linear.py; ``quant_method.create_weights`` from 0.5 on: 0.8.0, 0.8.5, 0.11.0
wheels).  Outside these two files they are constructed only under ``model_executor/models/`` and by layers that a
model's ``__init__`` builds (``layers/mamba/*``, ``layers/resampler.py``): read in the 0.4.0.post1, 0.8.5 and 0.11.0
wheels (the TPU sharding helper's ``XlaQKVParallelLinear`` in distributed/ is another file).  So an ``__init__`` frame
in them is the model's construction inside ``load_model`` (round ex35: xinference#1361, a cut traceback whose only
frame is ``VocabParallelEmbedding.__init__``).  Not SGLang's namesakes: its LoRA manager builds ``ReplicatedLinear``
after the load (srt/lora/lora_manager.py, 0.5.9), and not ``layers/quantization`` (configs are built at config time)."""


def constructor_label(path: str, func: str) -> str:
    """': a model class's constructor' / ': a parallel layer's constructor' for an ``__init__`` frame the loader alone
    runs (``_MODEL_CLASS_FILE``, ``_PARALLEL_LAYER_FILE``), appended to the frame's ``"func (file.py…)"``; else ''."""
    if func != "__init__":
        return ""
    if _MODEL_CLASS_FILE.search(path):
        return ": a model class's constructor"
    return ": a parallel layer's constructor" if _PARALLEL_LAYER_FILE.search(path) else ""


_GRAPH_PASS_THROUGH = lazy(r"^__call__ \(cuda_graph\.py\)$")
"""vLLM's ``CUDAGraphWrapper.__call__`` (``vllm/compilation/cuda_graph.py``, 0.10.1 … 0.33.0): every compiled forward
goes through it, and with ``CUDAGraphMode.NONE`` ("could mean the profile run, a warmup run, or running without
cudagraphs", its own comment) it only calls the wrapped runnable; capture shows as the callers' frames
(``capture_model``, ``_capture_cudagraphs``), so this frame alone names no graph phase (helper mv1: an
OOM in inductor autotuning under ``profile_run``)"""


def frame_phase(frames: list[str]) -> tuple[str, str] | None:
    """(phase, evidence) from traceback frames ``"func (file.py)"``, most specific rule first (vLLM's CUDA-graph
    wrapper's pass-through ``__call__`` is not a graph frame: ``_GRAPH_PASS_THROUGH``)."""
    for phase, pattern in _FRAME_RULES:
        for frame in reversed(frames):
            if phase == "cuda_graph" and _GRAPH_PASS_THROUGH.search(frame):
                continue
            if pattern.search(frame):
                return phase, f"traceback frame {frame}"
    return None


_MARKERS = (
    ("serving", ("ready to roll", "Application startup complete", "Uvicorn running", "Starting vLLM API server",
                 "Available routes are")),
    ("graph_done", ("graph end", "Graph capturing finished")),
    # 'Capturing num tokens (': SGLang's piecewise capture bar (PiecewiseCudaGraphRunner.capture, 0.5.6 wheel;
    # runner/prefill_cuda_graph_runner.py, 0.5.15), the only line of that capture some releases print (round ex38)
    ("graph", ("graph begin", "Capturing cudagraphs", "Capturing CUDA graph", "Capturing the model for CUDA graphs",
               "Capture cuda graph bs", "Capturing num tokens (")),
    # vLLM V1's CUDA-graph memory profiling, logged by GPUModelRunner.profile_cudagraph_memory inside the worker's
    # determine_available_memory after profile_run and before 'Available KV cache memory' (v1/worker/gpu_model_runner.py
    # and gpu_worker.py, 0.20.0, 0.22.0 and 0.29.0 wheels): a failure after it is the graphs' profiling, the step the
    # frame rule places at cuda_graph (profile_cudagraph_memory; round ex32: vllm PR#43923)
    ("graph_profile", ("Profiling CUDA graph memory",)),
    # vLLM V1 with kv_cache_memory_bytes prints 'reserved X GiB memory for KV Cache as specified by …' where it would
    # print 'Available KV cache memory'; 'torch.compile took' is 'takes' reworded (both: 0.26.0 wheel, ex23)
    ("kv_done", ("KV Cache is allocated", "Memory pool end", "Available KV cache memory", "GPU KV cache size",
                 " blocks: ", "for KV Cache is", "kv_cache_size=", "memory for KV Cache as specified by")),
    ("weights_done", ("Load weight end", "Model loading took", "Loading model weights took", "Loading weights took",
                      "torch.compile takes", "torch.compile took", "Dynamo bytecode transform time")),
    # 'Multi-thread loading shards': the loader's progress bar when the checkpoint is read by threads
    # (model_loader/weight_utils.py multi_thread_safetensors_weights_iterator: SGLang 0.5.9 / 0.5.23, vLLM 0.20.0
    # wheels), inside load_weights (round ex30: guqiong96/Lsglang#7)
    ("weights", ("Load weight begin", "Starting to load model", "Loading safetensors checkpoint shards",
                 "Multi-thread loading shards")),
    ("dist", ("Init torch distributed begin",)),
)
STEP_ORDER = ("dist", "weights", "weights_done", "graph_profile", "kv_done", "graph", "graph_done", "serving")
_STATE_PHASE = {"dist": "other", "weights": "weights", "weights_done": "kv_pool", "graph_profile": "cuda_graph",
                "kv_done": "kv_pool",
                "graph": "cuda_graph", "graph_done": "first_request", "serving": "first_request"}
MARKER_NEEDLES = tuple(n for _, needles in _MARKERS for n in needles)


def marker(message: str) -> str | None:
    """The start-up step a record marks, if any."""
    for state, needles in _MARKERS:
        if any(n in message for n in needles):
            return state
    return None


def marker_phase(state: str | None) -> str:
    """The diagnosis phase (``weights``, ``kv_pool``, ``cuda_graph`` …) of the last start-up step seen; ``other`` for
    none."""
    return _STATE_PHASE.get(state or "", "other")


_LOAD_OOM = lazy(r"Failed to load model - not enough GPU memory")


def load_phase(message: str) -> tuple[str, str] | None:
    """The phase of vLLM's weight-load OOM message, which names where it was raised.

    vLLM V1 ``GPUModelRunner.load_model`` (v1/worker/gpu_model_runner.py; from 0.13.0: read in the 0.13.0, 0.14.0,
    0.17.1 and 0.19.0 wheels, the only place the words occur in the ``vllm`` package of 0.13.0, 0.17.1 and 0.19.0;
    absent from 0.11.0 and 0.12.0; an explain-corpus log prints it from 0.27.1; absent from SGLang 0.5.11,
    0.5.13.post1 and 0.5.23) wraps the model
    loader (and the drafter's) in ``except torch.cuda.OutOfMemoryError``: it logs "Failed to load model - not
    enough GPU memory. ... (original error: …)" with ``logger.error`` and re-raises.  The record is therefore the
    weight load (``weights``) whatever the log printed before it (a pasted error line alone has no start-up step:
    two explain-corpus excerpts, helper crash9)."""
    if _LOAD_OOM.search(message):
        return "weights", "vLLM's weight-load OOM message (GPUModelRunner.load_model)"
    return None


_SERVING_LOOP = lazy(r"Exception in callback _log_task_completion|Engine background task failed")


def serving_loop_phase(message: str) -> tuple[str, str] | None:
    """``first_request`` for a failure reported by vLLM V0's ``AsyncLLMEngine`` background loop.

    ``_log_task_completion`` is the done-callback of the ``run_engine_loop`` task: it logs "Engine background task
    failed" with ``exc_info`` and raises ``AsyncEngineDeadError``, which asyncio reports as "Exception in callback
    _log_task_completion(…)" (CPython ``asyncio.events.Handle._run``).  The task is created only by
    ``start_background_loop``, which ``add_request`` calls when the first request arrives (engine/async_llm_engine.py,
    0.4.0.post1, 0.5.5, 0.6.3.post1, 0.6.6.post1, 0.7.1, 0.8.0 and 0.8.5 wheels), after ``LLMEngine.__init__`` has
    loaded the weights, sized the KV cache and captured the graphs: the failure is a served request's.  Read in the
    record and the lines after it (a cut excerpt keeps the callback's line but not the loop's frames: round ex35,
    langgenius/dify-official-plugins#599)."""
    if _SERVING_LOOP.search(message):
        return ("first_request",
                "vLLM V0's AsyncLLMEngine background loop (_log_task_completion), started by the first request")
    return None


_WARMUP_OOM = lazy(r"occurred when warming up (?:sampler|pooler)")
_AFTER_KV = ("kv_done", "graph", "graph_done", "serving")


_DUMMY_RUN = lazy(r"_dummy_sampler_run|_dummy_pooler_run")


def dummy_run_phase(frames: list[str], state: str | None) -> tuple[str, str] | None:
    """The phase of a traceback whose only placing frame is vLLM V1's dummy sampler / pooler run.

    ``_dummy_sampler_run`` / ``_dummy_pooler_run`` (v1/worker/gpu_model_runner.py, 0.17.1 and 0.19.0 wheels) have two
    callers: ``profile_run``, inside ``determine_available_memory`` before the KV cache is sized (``kv_pool``), and
    ``compile_or_warm_up_model`` (v1/worker/gpu_worker.py), after ``initialize_from_config`` allocated the KV
    tensors (``first_request``).  A full traceback names the caller and ``frame_phase`` places it; a cut one that
    keeps only this frame is placed by the rank's last start-up step, as ``warmup_phase`` does for the message."""
    frame = next((f for f in reversed(frames) if _DUMMY_RUN.search(f)), None)
    if frame is None:
        return None
    if state in _AFTER_KV:
        return ("first_request", f"traceback frame {frame}, logged after the KV cache was sized (last start-up step "
                                 f"{state}): compile_or_warm_up_model's warm-up")
    return ("kv_pool", f"traceback frame {frame}, logged before the KV cache was sized: profile_run's dummy run")


WORKER_RPC_LOOP = "worker_busy_loop"
"""vLLM V1's multiproc worker loop places nothing: ``WorkerProc.worker_busy_loop`` (v1/executor/multiproc_executor.py,
0.10.2 … 0.33.0 wheels) dequeues every ``collective_rpc`` and calls ``func(*args, **kwargs)`` — start-up's
``determine_available_memory`` (profile_run), ``initialize_from_config`` and ``compile_or_warm_up_model`` (capture) as
much as ``execute_model``; only ``init_device`` / ``load_model`` run before it, in ``WorkerProc.__init__`` (round cr33b:
no rule names it; tests/explain/test_explain_cr33b.py)"""

_WORKSPACE = lazy(r"^_get_workspace_buffer \(flashinfer\.py\)$")


def workspace_phase(frames: list[str], state: str | None) -> tuple[str, str] | None:
    """The phase of an OOM in FlashInfer's workspace allocation, placed by the rank's last start-up step.

    ``FlashInferMetadataBuilder._get_workspace_buffer`` (v1/attention/backends/flashinfer.py, 0.10.2 … 0.33.0 wheels)
    allocates the builder's workspace (``VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE``, 394 MiB by default: envs.py 0.13.0,
    0.20.0, 0.33.0) on its first metadata build. Builders are made by ``initialize_attn_backend`` from
    ``initialize_kv_cache``: after the KV sizing, or (0.19.0+) on the minimal KV cache of
    ``profile_cudagraph_memory``'s graph profiling; ``profile_run`` builds none. After the sizing the first build is
    ``kernel_warmup``'s FlashInfer attention warm-up (compile_or_warm_up_model, before ``capture_model``; 0.10.2+,
    when every attention group is FlashInfer), a FULL capture, or a request. So: a rank last seen profiling or
    capturing graphs → ``cuda_graph``; one past the KV sizing or the capture → ``first_request`` (the warm-up's
    phase word, as ``dummy_run_phase``); none logged (an excerpt) → unplaced: the graph profiling and a request
    print the same frame (round cr33b: weicj/vLLM-2080Ti-Definitive#150)."""
    frame = next((f for f in reversed(frames) if _WORKSPACE.search(f)), None)
    if frame is None:
        return None
    if state == "graph_profile":
        return ("cuda_graph", f"traceback frame {frame}, logged in the CUDA-graph memory profiling "
                              "(profile_cudagraph_memory, before the KV cache is sized): a FULL graph's first build")
    if state == "graph":
        return ("cuda_graph", f"traceback frame {frame}, logged while capturing CUDA graphs (last start-up step "
                              "graph): a FULL graph's first FlashInfer metadata build")
    if state in _AFTER_KV:
        return ("first_request", f"traceback frame {frame}, logged after the KV cache was sized (last start-up step "
                                 f"{state}): FlashInfer's workspace, allocated at the warm-up or a request")
    return None


def traceback_phase(frames: list[str], state: str | None) -> tuple[str, str] | None:
    """``frame_phase``, a drafter's proposal (``logs.drafting``, round cr36c), then a lone dummy-run or
    FlashInfer-workspace frame placed by ``state``, the rank's last start-up step."""
    from tpkit.logs.drafting import drafting_phase

    return (frame_phase(frames) or drafting_phase(frames) or dummy_run_phase(frames, state)
            or workspace_phase(frames, state))


def warmup_phase(message: str, state: str | None) -> tuple[str, str] | None:
    """The phase of vLLM's sampler / pooler warm-up error when no traceback frame places it.

    vLLM V1 raises "CUDA out of memory occurred when warming up sampler with N dummy requests" (or "… warming up
    pooler …") from ``_dummy_sampler_run`` / ``_dummy_pooler_run_task`` (v1/worker/gpu_model_runner.py, 0.17.1
    wheel). Two calls reach it: ``profile_run``, inside ``determine_available_memory`` before the KV cache is sized
    (``kv_pool``), and ``compile_or_warm_up_model`` (v1/worker/gpu_worker.py, 0.17.1), after
    ``initialize_from_config`` allocated the KV tensors and after ``capture_model`` — the frame rule's
    ``first_request``. Once the rank has logged the KV size ('Available KV cache memory', 'GPU KV cache size') the
    profile run is over, so the error is the post-KV warm-up (helper mv17: TheBuccaneer/vllm-offload-profiles, a
    curated excerpt without its
    traceback). ``message`` is the failure's record and the few lines after it: the wrapper's RuntimeError follows
    the torch OutOfMemoryError it is raised ``from``."""
    if state in _AFTER_KV and _WARMUP_OOM.search(message):
        return ("first_request", "vLLM's sampler/pooler warm-up (compile_or_warm_up_model), logged after the KV "
                                 f"cache was sized (last start-up step {state})")
    return None


def load_only_phase(kind: str, furthest: str | None) -> tuple[str, str] | None:
    """The phase of an out-of-memory error that no start-up step precedes, in a log whose furthest step is the weight
    load (a 'Loading safetensors checkpoint shards' bar, 'Starting to load model', 'Load weight begin') and nothing
    after it: no 'Model loading took' / 'Load weight end', no KV or graph line.  The run never got past the load, so
    the OOM is the load's.  A loader's progress bar is written to stderr and flushed when it closes, which the
    exception unwinding the loader does, so a paste often shows it below the error (vllm#31273: the OOM, then
    'Loading safetensors checkpoint shards:   3% Completed | 1/37'; round ex28, vllm#31273).  Only ``cuda_oom``: an
    error of another kind can precede the load (a distributed init)."""
    if kind == "cuda_oom" and furthest == "weights":
        return ("weights", "no start-up step logged before it; the log's furthest step is the weight load (logged "
                           "after it, nothing later): the run never got past loading the weights")
    return None


_ENCODER = lazy(r"vit_attn_wrappers|vit_torch_sdpa_wrapper|embed_multimodal|get_multimodal_embeddings|"
                r"mm_encoder_attention")
"""a multimodal encoder's frames; ``mm_encoder_attention``: vLLM's ``MMEncoderAttention`` ("Multi-headed attention
without any cache, used for multimodal encoder", model_executor/layers/attention/mm_encoder_attention.py, 0.17.0,
0.20.0 and 0.29.0 wheels; in 0.20.0 only the models' vision towers build it), whose ``forward_xpu`` / ``_forward_fa``
call the ``vit_*_wrapper`` kernels (round ex32: vllm#37828, an Intel Arc 140V)"""


def encoder_phase(frames: list[str]) -> tuple[str, str] | None:
    """The phase of a start-up failure whose traceback runs a multimodal encoder (vLLM's vision attention
    ``vit_attn_wrappers.py``, ``embed_multimodal``).  Before serving, vLLM V1 runs the encoder only in
    ``profile_run``'s multimodal profiling, inside ``determine_available_memory`` before the KV cache is sized
    (v1/worker/gpu_model_runner.py, 0.17.0 wheel: ``embed_multimodal`` is called from ``profile_run`` and from
    ``_execute_mm_encoder``, the serving path; ``_dummy_run`` and ``capture_model`` do not call it).  Only for a
    failure the engine reports as a failed start-up (the caller's condition): while serving the encoder runs per
    request (round ex30: gpustack#4963)."""
    frame = next((f for f in reversed(frames) if _ENCODER.search(f)), None)
    if frame is None:
        return None
    return ("kv_pool", f"traceback frame {frame} in a failed start-up: profile_run's multimodal encoder profiling, "
                       "the only encoder run before serving")
