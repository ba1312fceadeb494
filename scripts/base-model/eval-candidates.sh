#!/usr/bin/env bash
# After the GPU call (gpu-continue.sh): turns each weights file it brought back into a model
# folder beside the built-in model's other files, and evaluates every candidate greedily on the
# bundled calculator's training split (to pick) and held-out split (to report), with the demo's
# settings (train_mcp.json). One line per candidate: success on both splits, and the held-out
# tasks answered without any tool call (what the demo's RL has to unlearn). ~40 s per candidate on 2 cores.
#   scripts/base-model/eval-candidates.sh GC_DIR [MODELS_DIR]
# GC_DIR holds c<k>/best.safetensors and c<k>-g<j>/last.safetensors; the folders go to MODELS_DIR
# (default GC_DIR/models), e.g. GC_DIR/models/c1-g2, ready for `npx train-mcp --model DIR`.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: eval-candidates.sh GC_DIR [MODELS_DIR]" >&2; exit 2; }
gc=$(realpath "$1"); models=$(realpath -m "${2:-$gc/models}")
cd "$(dirname "$0")/../.."
base=src/policy/default-model
found=0
printf '%-8s %8s %9s %15s\n' candidate train held-out "held-out, no tool"
for weights in "$gc"/c*/best.safetensors "$gc"/c*/last.safetensors; do
  [ -f "$weights" ] || continue
  found=1
  name=$(basename "$(dirname "$weights")")
  dir=$models/$name
  mkdir -p "$dir"
  cp "$base"/{config.json,tokenizer.json,tokenizer_config.json,chat_template.jinja,train_mcp.json} "$dir"/
  cp "$weights" "$dir/model.safetensors"
  train=$(./bin/train-mcp.mjs eval --model "$dir" -s fixture:calculator --split train --json 2>/dev/null | tail -1)
  held=$(./bin/train-mcp.mjs eval --model "$dir" -s fixture:calculator --split test --json --trajectories "$dir/heldout.jsonl" 2>/dev/null | tail -1)
  rate() { node -e 'process.stdout.write((JSON.parse(process.argv[1]).success_rate * 100).toFixed(1) + "%")' "$1"; }
  notool=$(node -e '
    const rows = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    process.stdout.write(String(rows.filter((r) => !r.messages.some((m) => m.role === "tool")).length));' "$dir/heldout.jsonl")
  printf '%-8s %8s %9s %15s\n' "$name" "$(rate "$train")" "$(rate "$held")" "$notool"
done
[ "$found" = 1 ] || { echo "no c*/best.safetensors or c*/last.safetensors under $gc" >&2; exit 2; }
