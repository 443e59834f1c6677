#!/usr/bin/env bash
# Waits for a 2-GPU machine (device tool, kind nvidia-h200-x2): after the device-side timeouts change, check
# that a late peer raises instead of returning a wrong sum, re-run the 1,500-case correctness check, and the
# one-GPU timeout check.  Writes into ${OUT:-out}/.  About 4 minutes.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
OUT=${OUT:-out}; mkdir -p "$OUT"
timeout -s KILL 150 torchrun --nproc-per-node ${NPROC:-2} scripts/gpu_skew_check.py >"$OUT/skew.log" 2>&1
timeout -s KILL 200 torchrun --nproc-per-node ${NPROC:-2} bench/allreduce_correctness.py --cases 1500 \
  >"$OUT/correctness.log" 2>&1
timeout -s KILL 200 python3 scripts/gpu_timeout_check.py --out "$OUT/one_gpu" >"$OUT/one_gpu.log" 2>&1
grep -E "PASS|FAIL" "$OUT/skew.log" | tail -20; tail -2 "$OUT/correctness.log"; grep -E "FAIL|ALL PASSED" "$OUT/one_gpu.log"
