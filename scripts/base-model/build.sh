#!/usr/bin/env bash
# Trains candidate base weights for the built-in model (experimental, see README.md here):
# a simple copying drill, then reference solutions of generated fixture tasks mixed with the
# drills, in PyTorch on CPU. Writes a complete model folder to $BASE_MODEL_WORK/cropped2 (evaluate
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
/usr/bin/python3 scripts/base-model/pretrain.py "$work/corpus-mix.jsonl" "$work/out2" --init "$work/out" \
  --extra "$work/drill8k.jsonl" --tokens 2e6 --lr 7e-4 --batch-tokens 3072 --save-every 350
# session 4: a fresh calculator corpus (another seed, 3x the tasks) moved toward the held-out set's
# template mix; random batches (--mixed); then most rows without their system turn (--crop-system)
npx tsx scripts/base-model/make-corpus.ts "$work/corpus3.jsonl" base-3 3
C=template:calculator
/usr/bin/python3 scripts/base-model/mix.py "$work/corpus3.jsonl" "$work/calc-mix.jsonl" --fixture calculator \
  --cap $C.arith.binary=2500 --cap $C.arith.multi=2089 --cap $C.arith.power=270 --cap $C.chain.calc-percent=2500 \
  --cap $C.chain.stat-percent=1458 --cap $C.compound=3000 --cap $C.percent.change=830 --cap $C.percent.of=1475 \
  --cap $C.percent.what=950 --cap $C.statistics=2500
/usr/bin/python3 scripts/base-model/pretrain.py "$work/calc-mix.jsonl" "$work/mixed" --init "$work/out2" \
  --tokens 4.5e6 --lr 7e-4 --batch-tokens 4096 --warmup 50 --save-every 250 --mixed
/usr/bin/python3 scripts/base-model/pretrain.py "$work/calc-mix.jsonl" "$work/cropped" --init "$work/mixed" \
  --tokens 2.6e6 --lr 5e-4 --batch-tokens 4096 --warmup 50 --save-every 300 --mixed --crop-system 0.7
/usr/bin/python3 scripts/base-model/pretrain.py "$work/calc-mix.jsonl" "$work/cropped2" --init "$work/cropped" \
  --tokens 2.7e6 --lr 4e-4 --batch-tokens 4096 --warmup 30 --save-every 350 --mixed --crop-system 0.85
# session 5: another fresh corpus (seed base-4, 4x), trained together with the session-4 rows
npx tsx scripts/base-model/make-corpus.ts "$work/corpus4.jsonl" base-4 4 calculator  # knowledge has ~2,800 distinct tasks, fewer than 4x asks
/usr/bin/python3 scripts/base-model/mix.py "$work/corpus4.jsonl" "$work/calc-mix4.jsonl" --fixture calculator \
  --cap $C.arith.binary=3000 --cap $C.statistics=3500 --cap $C.chain.calc-percent=3000
/usr/bin/python3 scripts/base-model/pretrain.py "$work/calc-mix4.jsonl" "$work/cropped3" --init "$work/cropped2" \
  --extra "$work/calc-mix.jsonl" --tokens 9e6 --lr 4e-4 --batch-tokens 4096 --warmup 30 --save-every 500 --mixed --crop-system 0.85
# session 5 (not shipped then) and session 6: two more fresh corpora (seeds base-5, base-6),
# each trained with the one before it, lr 3e-4 -> cosine
npx tsx scripts/base-model/make-corpus.ts "$work/corpus5.jsonl" base-5 4 calculator
/usr/bin/python3 scripts/base-model/mix.py "$work/corpus5.jsonl" "$work/calc-mix5.jsonl" --fixture calculator \
  --cap $C.arith.binary=3000 --cap $C.statistics=3500 --cap $C.chain.calc-percent=3000
/usr/bin/python3 scripts/base-model/pretrain.py "$work/calc-mix5.jsonl" "$work/cropped4" --init "$work/cropped3" \
  --extra "$work/calc-mix4.jsonl" --tokens 3.8e6 --lr 3e-4 --batch-tokens 4096 --warmup 30 --save-every 500 --mixed --crop-system 0.85
npx tsx scripts/base-model/make-corpus.ts "$work/corpus6.jsonl" base-6 4 calculator
/usr/bin/python3 scripts/base-model/mix.py "$work/corpus6.jsonl" "$work/calc-mix6.jsonl" --fixture calculator \
  --cap $C.arith.binary=3000 --cap $C.statistics=3500 --cap $C.chain.calc-percent=3000
/usr/bin/python3 scripts/base-model/pretrain.py "$work/calc-mix6.jsonl" "$work/cropped5" --init "$work/cropped4" \
  --extra "$work/calc-mix5.jsonl" --tokens 7e6 --lr 3e-4 --batch-tokens 4096 --warmup 30 --save-every 500 --mixed --crop-system 0.85
# session 8, on a GPU (gpu-stage.sh, one H200; PyTorch there): two more fresh corpora (seeds base-8,
# base-9, 16x) packed with all the rows above, three variants for 8.2 minutes each from cropped5,
# then two continuations of the best (a, then d) for 2.4 and 1.9 minutes. Budgets are wall-clock
# minutes (the steps each run took are in logs/gpu-*.jsonl), so a rerun lands near, not on, the
# shipped weights
npx tsx scripts/base-model/make-corpus.ts "$work/corpus8.jsonl" base-8 16 calculator
npx tsx scripts/base-model/make-corpus.ts "$work/corpus9.jsonl" base-9 16 calculator
/usr/bin/python3 scripts/base-model/pack.py "$work/corpus.npz" "$work/corpus.jsonl" "$work/corpus4.jsonl" "$work/corpus5.jsonl" \
  "$work/corpus6.jsonl" "$work/corpus7.jsonl" "$work/corpus8.jsonl" "$work/corpus9.jsonl" --val 512
xz -T2 -6 -f "$work/corpus.npz"
if [ -n "${BASE_MODEL_GPU:-}" ]; then  # on the GPU machine (python3 with CUDA PyTorch)
  scripts/base-model/gpu-stage.sh "$work/corpus.npz.xz" "$work/gpu" 8.2 "$work/cropped5"
  continue_from() {  # FOLDER WEIGHTS OUT LR BATCH MINUTES SEED WARMUP VAL_EVERY
    mkdir -p "$1"; cp "$2" "$1/model.safetensors"
    python3 scripts/base-model/pretrain_gpu.py "$work/corpus.npz.xz" "$3" --init "$1" --lr "$4" --batch-tokens "$5" \
      --minutes "$6" --seed "$7" --warmup "$8" --val-every "$9"
  }
  continue_from "$work/gpu-a" "$work/gpu/a/best.safetensors" "$work/gpu/d" 3e-4 65536 2.4 2 50 30
  continue_from "$work/gpu-d" "$work/gpu/d/best.safetensors" "$work/gpu/g" 2.5e-4 131072 1.9 4 30 25
fi
# session 8, the guess stage (CPU, shipped): from g, rows answered at once without a tool on the
# easy-looking templates, with ordinary rows and every distinct compound-interest row up-weighted.
# Needs the GPU stage's output in $work/gpu (run there, then copied back)
if [ ! -f "$work/gpu/g/best.safetensors" ]; then echo "base weights: $work/cropped5 (no GPU stage output in $work/gpu)"; exit 0; fi
mkdir -p "$work/g"; cp "$work/gpu/g/best.safetensors" "$work/g/model.safetensors"
E=template:calculator.arith.binary,template:calculator.arith.multi,template:calculator.percent.of,template:calculator.percent.what
E=$E,template:calculator.percent.change,template:calculator.arith.power,template:calculator.chain.calc-percent
/usr/bin/python3 scripts/base-model/make_guess.py "$work/corpus9.jsonl" "$work/guess7k.jsonl" --n 7000 --templates "$E"
/usr/bin/python3 scripts/base-model/mix.py "$work/corpus8.jsonl" "$work/gen20k.jsonl" --sample 20000
/usr/bin/python3 scripts/base-model/mix.py "$work/gen20k.jsonl" "$work/gen10k.jsonl" --sample 10000 --seed 6
cat "$work"/corpus.jsonl "$work"/corpus[4-9].jsonl | grep '"template:calculator.compound"' | sort -u > "$work/compound.jsonl"
/usr/bin/python3 scripts/base-model/pretrain.py "$work/compound.jsonl" "$work/guess" --init "$work/g" --extra "$work/gen10k.jsonl" \
  --extra "$work/guess7k.jsonl" --tokens 2e6 --lr 1e-4 --batch-tokens 8192 --warmup 20 --mixed --crop-system 0.85 --save-every 80 --final-lr-frac 0.1
echo "base weights: $work/guess (the CPU stages alone: $work/cropped5)"
