#!/usr/bin/env bash
# One device call (kind nvidia-h200, one GPU): the speculative verify / EAGLE-3 draft / plain decode reference
# (bench/spec_reference.py, docs/benchmarks.md §3 "Speculative verify and draft steps on the H200").
# A tiny smoke first (fails fast), then the full sweep (two models, B 1/4/16/64, D 2/4/8, topk 1/4/8, C 2048).
# Writes into $OUT: machine.txt, spec_smoke.json/.log, $TAG.json/.log (TAG default spec_h200).
# SWEEP_ARGS: extra arguments of the sweep; SMOKE_TIMEOUT / SWEEP_TIMEOUT: seconds before a kill (120 / 420).
#   bash scripts/device_spec_reference.sh                                  # on the GPU
#   DEVICE=cpu SWEEP_ARGS=--tiny OUT=/tmp/x bash scripts/device_spec_reference.sh   # the same logic on a CPU
set -u -o pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
OUT=${OUT:-out}; mkdir -p "$OUT"
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
{ date -u; nproc; $PY -V; $PY -c 'import torch; print(torch.__version__, torch.version.cuda)';
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null; } >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
TAG=${TAG:-spec_h200}
timeout -s KILL ${SMOKE_TIMEOUT:-120} $PY bench/spec_reference.py --device "$DEVICE" --tiny --smoke \
    --out "$OUT/spec_smoke.json" \
    >"$OUT/spec_smoke.log" 2>&1
rc=$?
tail -3 "$OUT/spec_smoke.log"
if [ $rc -ne 0 ]; then echo "smoke failed (rc $rc): no sweep"; cat "$OUT/spec_smoke.log" | tail -30; exit $rc; fi
start=$(date +%s)
timeout -s KILL ${SWEEP_TIMEOUT:-420} $PY bench/spec_reference.py --device "$DEVICE" ${SWEEP_ARGS:-} \
    --out "$OUT/$TAG.json" 2>&1 \
    | tee "$OUT/$TAG.log" | grep -v '"kind": "draft' | cut -c1-200
rc=${PIPESTATUS[0]}
echo "sweep rc $rc, $(( $(date +%s) - start )) s"
exit $rc
