#!/usr/bin/env bash
# One device call (kind nvidia-h100-x1, one H100 80GB): the Qwen3-30B-A3B rows of the speculative reference
# (bench/spec_reference.py --models moe: decode, verify, EAGLE-3 draft; B 1/4/16/64, D 2/4/8, topk 1/4/8, C 2048) that
# stopped with a CUDA OOM in session 15 (docs/benchmarks.md §3.8). The KV pool is now sized from the free memory after
# the weights (spec_reference.size_plan): the dry plan for this GPU comes first (CPU arithmetic, no allocation), then
# scripts/device_spec_reference.sh's tiny smoke and the sweep, killed after 60 s / 270 s (< 6 minutes in all).
# Writes into $OUT: plan.txt, machine.txt, spec_smoke.json/.log, spec_h100_qwen.json/.log.
#   bash scripts/device_spec_reference_h100_moe.sh                 # on the GPU
set -u -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
export OUT=${OUT:-out}; mkdir -p "$OUT"
PY=${PYTHON:-python3}
start=$(date +%s)
total=$($PY -c 'import torch; print(torch.cuda.mem_get_info()[1] if torch.cuda.is_available() else 85017493504)')
$PY bench/spec_reference.py --models moe --plan --plan-total-bytes "$total" --out /dev/null 2>&1 | tee "$OUT/plan.txt"
TAG=spec_h100_qwen SWEEP_ARGS="--models moe ${SWEEP_ARGS:-}" SMOKE_TIMEOUT=60 SWEEP_TIMEOUT=270 \
    bash scripts/device_spec_reference.sh
rc=$?
echo "call rc $rc, $(( $(date +%s) - start )) s"
exit $rc
