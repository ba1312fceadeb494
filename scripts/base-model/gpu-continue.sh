#!/usr/bin/env bash
# One GPU lease, one call: continue the base weights' pretraining from INIT_FOLDER on each packed
# corpus side by side (one process each, seeds 1, 2, ...), then run each guess stage (see
# make_guess.py) on each result, step-budgeted. A single call of MINUTES + ~1 minutes returns
# every candidate, ready to evaluate on the CPU machine (`train-mcp eval` on the bundled
# calculator's training split to pick, its held-out split to report).
#   GUESS="PACK:BATCH_TOKENS:STEPS ..." scripts/base-model/gpu-continue.sh OUT MINUTES INIT_FOLDER CORPUS.npz.xz [...]
# Writes OUT/c<k>/best.safetensors (pretraining continued on the k-th corpus; best validation
# exact share), OUT/c<k>-g<j>/last.safetensors (that, after the j-th guess stage) and every run's
# log lines in OUT/logs.jsonl: two corpora and two guess stages make 7 files, 44 MB, within what a
# lease brings back. Other settings: LR (2.5e-4), BATCH (131072 tokens), PYTHON (python3).
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: GUESS=\"PACK:BATCH:STEPS ...\" gpu-continue.sh OUT MINUTES INIT_FOLDER CORPUS.npz.xz [...]" >&2; exit 2; }
PY=${PYTHON:-python3}
out=$(realpath -m "$1"); minutes=$2; init=$(realpath "$3"); shift 3
corpora=(); for c in "$@"; do corpora+=("$(realpath "$c")"); done
guesses=()
for spec in ${GUESS:-}; do
  IFS=: read -r pack batch steps <<<"$spec"
  [ -f "$pack" ] && [ -n "$steps" ] || { echo "GUESS: '$spec' is not PACK:BATCH_TOKENS:STEPS with an existing PACK" >&2; exit 2; }
  guesses+=("$(realpath "$pack"):$batch:$steps")
done
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || true
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'
chain() {  # K CORPUS: continue, then every guess stage from the continued weights
  local k=$1 corpus=$2 j=0
  "$PY" -u pretrain_gpu.py "$corpus" "$out/c$k" --init "$init" --minutes "$minutes" --lr "${LR:-2.5e-4}" \
    --batch-tokens "${BATCH:-131072}" --warmup 30 --val-every 25 --seed "$k" || return 1
  mkdir -p "$out/c$k-init" && cp "$out/c$k/best.safetensors" "$out/c$k-init/model.safetensors"
  for spec in "${guesses[@]}"; do
    j=$((j + 1)); IFS=: read -r pack batch steps <<<"$spec"
    # the CPU guess stage's schedule (build.sh): lr 1e-4 after 20 warm-up steps, cosine to 0.1
    "$PY" -u pretrain_gpu.py "$pack" "$out/c$k-g$j" --init "$out/c$k-init" --steps "$steps" --lr 1e-4 \
      --batch-tokens "$batch" --warmup 20 --final-lr-frac 0.1 --val-every 1e9 --keep-last --seed "$k"
  done
  rm -rf "$out/c$k-init"
}
k=0
for corpus in "${corpora[@]}"; do
  k=$((k + 1))
  chain "$k" "$corpus" 2>&1 | sed -u "s/^/c$k /" &
done
wait
# what a lease brings back is at most 8 files of 16 MiB, 64 MiB in all: one weights file per
# candidate (a guess stage's best.safetensors is only its starting point) and one log
for log in "$out"/c*/log.jsonl; do
  run=$(basename "$(dirname "$log")")
  sed "s/^{/{\"run\": \"$run\", /" "$log" >> "$out/logs.jsonl" && rm "$log"
done
rm -f "$out"/c*-g*/best.safetensors
ls -la "$out" "$out"/*/
