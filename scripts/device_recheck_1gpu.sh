#!/usr/bin/env bash
# One device call (kind nvidia-h200, one GPU) that re-times the CLI cold starts and `tpkit explain` on a 100 MB log
# on an idle CPU (pinned to 2 cores, like the project's VM) and re-runs the single-GPU tests on the current tree.
# Writes into $OUT: cold.txt, cold_nobc.txt, explain_speed.txt, gpu_tests.txt.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
OUT=${OUT:-out}; mkdir -p "$OUT"
{ date -u; uptime; nproc; python3 -V; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; } >"$OUT/machine.txt" 2>&1
taskset -c 0,1 python3 bench/cli_cold_start.py --runs 20 >"$OUT/cold.txt" 2>&1
taskset -c 0,1 python3 bench/cli_cold_start.py --runs 20 --no-bytecode >"$OUT/cold_nobc.txt" 2>&1
taskset -c 0,1 timeout -s KILL 300 python3 bench/explain_speed.py --runs 3 --cold-runs 10 >"$OUT/explain_speed.txt" 2>&1
taskset -c 0,1 timeout -s KILL 120 python3 bench/explain_speed.py --skip-big --cold-runs 10 --no-bytecode >"$OUT/explain_cold_nobc.txt" 2>&1
timeout -s KILL 240 python3 -m pytest -q -p no:cacheprovider tests/runtime/test_gpu.py tests/runtime/test_kv_alloc.py \
    tests/engines/test_vllm_gpu.py tests/engines/test_vllm_encoder_gpu.py tests/engines/test_vllm_encoder_qwen2vl_gpu.py tests/engines/test_vllm_encoder_gemma3_gpu.py tests/engines/test_vllm_encoder_llava_gpu.py \
    tests/comm/test_gpu_allreduce.py -rs >"$OUT/gpu_tests.txt" 2>&1
tail -2 "$OUT/gpu_tests.txt"; grep -h "plan\|explain\|perf\|pass" "$OUT/cold.txt" | head -12
