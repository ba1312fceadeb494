#!/usr/bin/env bash
# Trains candidate base weights for the built-in model (experimental, see README.md here):
# a simple copying drill, then reference solutions of generated fixture tasks mixed with the
# drills, in PyTorch on CPU. Writes a complete model folder to $BASE_MODEL_WORK/out (evaluate
# it with `train-mcp eval --model DIR ...`). Needs Debian's PyTorch:
#   apt-get install -y python3-torch libopenblas0-pthread
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${BASE_MODEL_WORK:-$(mktemp -d)}"
npx tsx scripts/base-model/make-corpus.ts "$work/corpus.jsonl" base-1
npx tsx scripts/base-model/make-drill.ts "$work/drill-simple.jsonl" 40000 8 simple
npx tsx scripts/base-model/make-drill.ts "$work/drill.jsonl" 40000 7 full
/usr/bin/python3 scripts/base-model/pretrain.py "$work/drill-simple.jsonl" "$work/copy" \
  --tokens 2e6 --lr 3e-3 --batch-tokens 1300 --save-every 200 --final-lr-frac 0.5
/usr/bin/python3 scripts/base-model/pretrain.py "$work/corpus.jsonl" "$work/out" --init "$work/copy" \
  --extra "$work/drill-simple.jsonl" --extra "$work/drill.jsonl" --tokens "${BASE_MODEL_TOKENS:-6e6}" --lr 1e-3 --batch-tokens 3072
echo "candidate base weights: $work/out"
