#!/usr/bin/python3
"""Rebalances a corpus from make-corpus.ts: caps the rows of chosen templates and adds a sample of
extra rows (a drill), shuffled with a seed. The knowledge fixture's generator yields mostly
`knowledge.compare` tasks (78% of its rows, 1,025 tokens each) while the bundled held-out set has
5% of them; capping them halves the corpus's tokens and puts them on the templates that matter.

  /usr/bin/python3 scripts/base-model/mix.py CORPUS.jsonl OUT.jsonl [--cap TEMPLATE=N ...] [--seed 5]
  /usr/bin/python3 scripts/base-model/mix.py DRILL.jsonl OUT.jsonl --sample 8000
"""
import argparse, json, random

p = argparse.ArgumentParser()
p.add_argument("corpus")
p.add_argument("out")
p.add_argument("--cap", action="append", default=[], help="TEMPLATE=N: keep N random rows of that template")
p.add_argument("--sample", type=int, help="keep this many random rows in all")
p.add_argument("--seed", type=int, default=5)
a = p.parse_args()
random.seed(a.seed)
rows = [json.loads(l) for l in open(a.corpus)]
caps = dict((c.split("=")[0], int(c.split("=")[1])) for c in a.cap)
keep = [r for r in rows if r.get("template") not in caps]
for t, n in caps.items():
    group = [r for r in rows if r.get("template") == t]
    keep += random.sample(group, min(n, len(group)))
random.shuffle(keep)
if a.sample is not None: keep = keep[:a.sample]
with open(a.out, "w") as f:
    for r in keep: f.write(json.dumps(r) + "\n")
print(json.dumps({"rows": len(keep), "tokens": sum(len(r["ids"]) for r in keep)}))
