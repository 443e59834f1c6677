#!/usr/bin/env bash
# Full all-reduce check + bench on 2×H200 (device tool, kind nvidia-h200-x2; NPROC=4 or 8 on larger machines). Writes into ${OUT:-out}/.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export PYTHONPATH=src${PYTHONPATH:+:$PYTHONPATH}
OUT=${OUT:-out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
nvidia-smi topo -m >> "$OUT/machine.txt" 2>&1
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' | tee -a "$OUT/machine.txt"
timeout -s KILL 60 torchrun --nproc-per-node ${NPROC:-2} bench/p2p_bandwidth.py 2>&1 | grep -E "p2p|d2d" | tee -a "$OUT/machine.txt"
timeout -s KILL ${CORRECT_TIMEOUT:-200} torchrun --nproc-per-node ${NPROC:-2} bench/allreduce_correctness.py \
  --cases ${CASES:-1500} 2>&1 | tee "$OUT/correctness.log"
timeout -s KILL ${BENCH_TIMEOUT:-300} torchrun --nproc-per-node ${NPROC:-2} bench/allreduce.py --explain \
  --json "$OUT/h200x2_allreduce_profile.json" --plot "$OUT/allreduce_h200x2.png" ${BENCH_ARGS:-} 2>&1 \
  | tee "$OUT/bench.log"
if [ -n "${SWEEP_BLOCKS:-}" ]; then
  for nb in $SWEEP_BLOCKS; do
    echo "## max-blocks $nb (graph mode, tpkit kernels, 1-256 MiB)" | tee -a "$OUT/sweep.log"
    timeout -s KILL 120 torchrun --nproc-per-node ${NPROC:-2} bench/allreduce.py --backend one_shot --backend one_shot_pull \
      --backend two_shot --backend nccl --min-size 1MiB --mode graph --max-blocks "$nb" --keep-profile 2>&1 \
      | grep -E "graph|skipped" | grep -v auto | tee -a "$OUT/sweep.log"
  done
fi
