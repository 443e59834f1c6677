#!/usr/bin/env bash
# Short device call (kind nvidia-h200-x2) after CPU-only review fixes touched GPU-side code paths:
# `tpkit probe --out`, `tpkit bench allreduce` (CLI, graph + eager, small sizes, --json/--plot/--explain),
# and the GPU-marked tests. Writes into $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
OUT=${OUT:-out}; mkdir -p "$OUT"
{
  echo "=== probe"; python3 -m tpkit probe --out "$OUT/machine.json" | tail -4
  echo "=== bench (CLI, 1 KiB-4 MiB)"
  timeout -s KILL 240 python3 -m tpkit bench allreduce --nproc 2 --max-size 4MiB --explain \
      --json "$OUT/profile.json" --plot "$OUT/plot.png"
  echo "=== GPU tests"
  OUT= timeout -s KILL 200 python3 -m pytest -q -p no:cacheprovider tests/runtime/test_gpu.py \
      tests/runtime/test_kv_alloc.py tests/comm/test_gpu_allreduce.py tests/engines/test_vllm_gpu.py
} >"$OUT/smoke.log" 2>&1
grep -E "#wrong|passed|failed|Error" "$OUT/smoke.log" | tail -5
