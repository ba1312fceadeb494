#!/usr/bin/python3
"""Rebalances a corpus from make-corpus.ts: keeps chosen fixtures, sets the row count of chosen
templates (sampling down, or repeating rows up) and samples rows, shuffled with a seed. The
knowledge fixture's generator yields mostly `knowledge.compare` tasks (78% of its rows, 1,025
tokens each) while the bundled held-out set has 5% of them; capping them halves the corpus's
tokens and puts them on the templates that matter. Upsampling moves the calculator corpus toward
the held-out set's mix (a quarter of it is compound interest, 6% of the generated rows).

  /usr/bin/python3 scripts/base-model/mix.py CORPUS.jsonl OUT.jsonl [--fixture F] [--cap TEMPLATE=N ...] [--seed 5]
  /usr/bin/python3 scripts/base-model/mix.py DRILL.jsonl OUT.jsonl --sample 8000
"""
import argparse, json, random

p = argparse.ArgumentParser()
p.add_argument("corpus")
p.add_argument("out")
p.add_argument("--fixture", action="append", default=[], help="keep only rows of these fixtures")
p.add_argument("--cap", action="append", default=[], help="TEMPLATE=N: N rows of that template (random ones; repeated when it has fewer)")
p.add_argument("--sample", type=int, help="keep this many random rows in all")
p.add_argument("--seed", type=int, default=5)
a = p.parse_args()
random.seed(a.seed)
rows = [json.loads(l) for l in open(a.corpus)]
if a.fixture: rows = [r for r in rows if r.get("fixture") in a.fixture]
caps = dict((c.split("=")[0], int(c.split("=")[1])) for c in a.cap)
keep = [r for r in rows if r.get("template") not in caps]
for t, n in caps.items():
    group = [r for r in rows if r.get("template") == t]
    if not group: raise SystemExit(f"mix.py: --cap {t}={n}: no rows of that template in {a.corpus}")
    random.shuffle(group)
    keep += [group[i % len(group)] for i in range(n)]
random.shuffle(keep)
if a.sample is not None: keep = keep[:a.sample]
with open(a.out, "w") as f:
    for r in keep: f.write(json.dumps(r) + "\n")
print(json.dumps({"rows": len(keep), "tokens": sum(len(r["ids"]) for r in keep)}))
