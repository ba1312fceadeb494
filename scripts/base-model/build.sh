#!/usr/bin/env bash
# Rebuilds the built-in model's base weights (src/policy/default-model/model.safetensors):
# the corpus from the verified generator on the bundled fixtures (make-corpus.ts), then the
# masked-NLL training in PyTorch (pretrain.py). About an hour on 2 CPU cores; deterministic for
# the seeds below. Needs Debian's PyTorch: apt-get install -y python3-torch libopenblas0-pthread
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${BASE_MODEL_WORK:-$(mktemp -d)}"
npx tsx scripts/base-model/make-corpus.ts "$work/corpus.jsonl" base-1
/usr/bin/python3 scripts/base-model/pretrain.py "$work/corpus.jsonl" "$work/out" "$@"
cp "$work/out/model.safetensors" src/policy/default-model/model.safetensors
echo "wrote src/policy/default-model/model.safetensors (work files in $work)"
