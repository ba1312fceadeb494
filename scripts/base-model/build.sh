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
/usr/bin/python3 scripts/base-model/pretrain.py "$work/drill-simple.jsonl" "$work/copy" \
  --tokens 2e6 --lr 3e-3 --batch-tokens 1300 --save-every 200 --final-lr-frac 0.5
# the knowledge generator yields mostly knowledge.compare tasks (78% of its rows, 1,025 tokens
# each; 5% of the held-out set): cap them, and keep a sample of the drill beside the tasks
/usr/bin/python3 scripts/base-model/mix.py "$work/corpus.jsonl" "$work/corpus-mix.jsonl" --cap template:knowledge.compare=150
/usr/bin/python3 scripts/base-model/mix.py "$work/drill-simple.jsonl" "$work/drill8k.jsonl" --sample 8000
/usr/bin/python3 scripts/base-model/pretrain.py "$work/corpus-mix.jsonl" "$work/out" --init "$work/copy" \
  --extra "$work/drill8k.jsonl" --tokens "${BASE_MODEL_TOKENS:-7e6}" --lr 1e-3 --batch-tokens 3072 --save-every 300
echo "candidate base weights: $work/out"
