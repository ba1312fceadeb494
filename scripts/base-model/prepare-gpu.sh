#!/usr/bin/env bash
# Makes, from this repository alone, every input of the prepared GPU call (gpu-continue.sh) in
# DEST (default .gpu, which the `run` tool carries): the corpora behind session 8's GPU stage
# (seeds base-1, base-4 ... base-9), 50,000 wide compound-interest rows, the guess rows, four
# packed files and the starting weights. Each corpus is kept in WORK (default /tmp/base-model-work)
# and not remade when present, so a rerun after an interruption picks up where it stopped.
# About 32 minutes on 2 cores; needs numpy (`apt-get install -y python3-numpy`).
#   scripts/base-model/prepare-gpu.sh [DEST] [WORK]
# Then, on the GPU machine (the run tool, carry [".gpu"], timeout_s 600):
#   GUESS=".gpu/guess.npz.xz:8192:250 .gpu/guessbig.npz.xz:65536:400" \
#     scripts/base-model/gpu-continue.sh $OUT/gc 7 .gpu/g .gpu/corpus.npz.xz .gpu/corpusB.npz.xz
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=$(realpath -m "${1:-.gpu}"); work=$(realpath -m "${2:-/tmp/base-model-work}")
mkdir -p "$dest/g" "$work"
PY=${PYTHON:-/usr/bin/python3}
corpus() {  # NAME SEED SCALE [FIXTURES]
  [ -s "$work/$1.jsonl" ] || npx tsx scripts/base-model/make-corpus.ts "$work/$1.jsonl.part" "${@:2}"
  [ -s "$work/$1.jsonl" ] || mv "$work/$1.jsonl.part" "$work/$1.jsonl"
}
# build.sh's corpora, with the same seeds and scales
corpus corpus base-1 1
corpus corpus4 base-4 4 calculator  # knowledge cannot make 4x its ~2,800 distinct tasks
corpus corpus5 base-5 4 calculator
corpus corpus6 base-6 4 calculator
corpus corpus7 base-7 4 calculator
corpus corpus8 base-8 16 calculator
corpus corpus9 base-9 16 calculator
[ -s "$work/cw50k.jsonl" ] || npx tsx scripts/base-model/make-compound.ts "$work/cw50k.jsonl" 50000 compound-2
# the guess stage's rows (build.sh's last stage) and the large guess mix
E=template:calculator.arith.binary,template:calculator.arith.multi,template:calculator.percent.of,template:calculator.percent.what
E=$E,template:calculator.percent.change,template:calculator.arith.power,template:calculator.chain.calc-percent
$PY scripts/base-model/make_guess.py "$work/corpus9.jsonl" "$work/guess7k.jsonl" --n 7000 --templates "$E"
$PY scripts/base-model/make_guess.py "$work/corpus8.jsonl" "$work/guess30k.jsonl" --n 30000 --templates "$E"
$PY scripts/base-model/mix.py "$work/corpus8.jsonl" "$work/gen20k.jsonl" --sample 20000
$PY scripts/base-model/mix.py "$work/gen20k.jsonl" "$work/gen10k.jsonl" --sample 10000 --seed 6
cat "$work"/corpus.jsonl "$work"/corpus[4-9].jsonl | grep '"template:calculator.compound"' | sort -u > "$work/compound.jsonl"
base=("$work/corpus.jsonl" "$work"/corpus[4-8].jsonl)
$PY scripts/base-model/pack.py "$dest/corpus.npz" "${base[@]}" "$work/corpus9.jsonl" --val 512
$PY scripts/base-model/pack.py "$dest/corpusB.npz" "${base[@]}" "$work/cw50k.jsonl" "$work/corpus9.jsonl" --val 512
$PY scripts/base-model/pack.py "$dest/guess.npz" "$work/gen10k.jsonl" "$work/guess7k.jsonl" "$work/compound.jsonl" --val 256
g=$work/guess30k.jsonl
$PY scripts/base-model/pack.py "$dest/guessbig.npz" "${base[@]}" "$g" "$g" "$g" "$work/corpus9.jsonl" --val 512
rm -f "$dest"/*.npz.xz
xz -T2 -6 "$dest"/*.npz
# session 8's GPU weights (g) were not kept; the shipped ones are g after the CPU guess stage, so
# the continued pretraining starts there and first unlearns the guessing
cp src/policy/default-model/model.safetensors "$dest/g/model.safetensors"
du -sh "$dest"; ls -la "$dest"
