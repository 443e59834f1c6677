#!/usr/bin/env bash
# One device call (kind nvidia-h200-x2; NPROC=1 on one GPU) that re-checks everything GPU-side after the last code changes:
# probe, memory check with the pool planned by plan_sglang (two models), plan --machine from the probe,
# all-reduce correctness (1,500 cases), the GPU-marked tests, the eager dispatch overhead. Writes into $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
OUT=${OUT:-out}; mkdir -p "$OUT"
log="$OUT/run.log"
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
{
  step probe; python3 -m tpkit probe --out "$OUT/machine.json"
  step plan from the probed machine; python3 -m tpkit plan Llama-3.1-8B-Instruct --tp "${NPROC:-2}" --machine "$OUT/machine.json"
  step memory check 8B; timeout -s KILL 240 python3 scripts/gpu_memory_check.py --out "$OUT/m8b" >/dev/null
  if [ "${NPROC:-2}" -ge 2 ]; then  # 70B bf16 is 131 GiB of weights: it needs two 80+ GiB cards
    step memory check 70B; timeout -s KILL 240 python3 scripts/gpu_memory_check.py --model Llama-3.1-70B-Instruct --out "$OUT/m70b" >/dev/null
  else
    step memory check 70B skipped: one GPU cannot hold its 131 GiB of bf16 weights
  fi
  step GPU tests; OUT= timeout -s KILL 240 python3 -m pytest -q -p no:cacheprovider tests/runtime/test_gpu.py \
      tests/runtime/test_topology.py tests/runtime/test_kv_alloc.py tests/comm/test_gpu_allreduce.py tests/engines/test_vllm_gpu.py \
      tests/engines/test_vllm_rejection_gpu.py -s
  step dispatch overhead; python3 bench/dispatch_overhead.py
} >"$log" 2>&1
timeout -s KILL 200 torchrun --nproc-per-node ${NPROC:-2} bench/allreduce_correctness.py --cases 1500 >"$OUT/correctness.log" 2>&1
rm -f "$OUT"/m8b/*.json "$OUT"/m70b/*.json
tail -3 "$OUT/correctness.log"; grep -E "passed|failed" "$log" | tail -3
