#!/usr/bin/env bash
# The GPU stage of the base weights: three learning-rate / batch-size variants of pretrain_gpu.py
# side by side on one GPU, each from INIT_FOLDER's weights for MINUTES of wall clock, each writing
# OUT/<variant>/best.safetensors and log.jsonl. Pick one with `train-mcp eval` on the bundled
# calculator's training split (not its held-out set).
#   scripts/base-model/gpu-stage.sh CORPUS.npz.xz OUT [MINUTES] [INIT_FOLDER (default: the shipped weights)]
set -uo pipefail
PY=${PYTHON:-python3}
corpus=$(realpath "$1"); out=$(realpath -m "$2"); minutes=${3:-8}
init=$(realpath "${4:-$(dirname "$0")/../../src/policy/default-model}")
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
variant() {
  local name=$1; shift
  "$PY" -u pretrain_gpu.py "$corpus" "$out/$name" --init "$init" --minutes "$minutes" "$@" 2>&1 | sed -u "s/^/$name /" &
}
variant a --lr 1e-3 --batch-tokens 65536
variant b --lr 2e-3 --batch-tokens 131072
variant c --lr 5e-4 --batch-tokens 32768
wait
ls -la "$out"/*
