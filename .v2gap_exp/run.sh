set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
T=${1:-2048}; L=${2:-36}
for m in eager cold warm cold_nocombo cold_nobench; do
  case $m in
    cold|warm) export TORCHINDUCTOR_CACHE_DIR=/tmp/ind_a ;;
    cold_nocombo) export TORCHINDUCTOR_CACHE_DIR=/tmp/ind_b ;;
    cold_nobench) export TORCHINDUCTOR_CACHE_DIR=/tmp/ind_c ;;
    *) export TORCHINDUCTOR_CACHE_DIR=/tmp/ind_e ;;
  esac
  timeout 200 python3 .v2gap_exp/coldcompile.py $m $T $L 2>&1 | grep -E '^\{|Error|error' | tail -3 | tee -a $OUT/results.txt
done
