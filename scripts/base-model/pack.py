#!/usr/bin/python3
"""Packs make-corpus.ts rows (JSON lines) into one compact .npz for pretrain_gpu.py: the system
turn, the same in every row of one fixture, once; each row from its second <|im_start|> on as
uint16 tokens with the assistant mask in the top bit (the vocabulary is far below 2^15). The
--val rows (seeded draw from the last input) are marked for validation, and training rows identical
to one of them are dropped. `xz` the result to carry it to a GPU machine.

  /usr/bin/python3 scripts/base-model/pack.py OUT.npz CORPUS.jsonl [...] [--val 512] [--seed 1] [--fixture calculator]
"""
import argparse, json, random
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("inputs", nargs="+")
p.add_argument("--val", type=int, default=512)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--fixture", default="calculator", help="keep this fixture's rows only")
a = p.parse_args()

IM_START = 1
prefix, tails, templates, names = None, [], [], {}
for path in a.inputs:
    first_of_last = len(tails)
    for n, line in enumerate(open(path), 1):
        r = json.loads(line)
        if r.get("fixture") != a.fixture: continue
        ids, mask = r["ids"], r["mask"]
        starts = [i for i, t in enumerate(ids) if t == IM_START]
        if len(starts) < 2 or max(ids) >= 1 << 15: raise SystemExit(f"{path}:{n}: not a make-corpus.ts row")
        head = ids[:starts[1]]
        if prefix is None: prefix = head
        elif head != prefix: raise SystemExit(f"{path}:{n}: another system turn than the first row's (pack one fixture at a time)")
        tails.append(np.array(ids[starts[1]:], np.uint16) | (np.array(mask[starts[1]:], np.uint16) << 15))
        templates.append(names.setdefault(r.get("template", ""), len(names)))
order = list(range(first_of_last, len(tails)))  # validation rows from the last input only (a fresh seed)
random.Random(a.seed).shuffle(order)
is_val = np.zeros(len(tails), bool); is_val[order[:a.val]] = True
# a training row identical to a validation row (a short task drawn again under another seed)
# would let the best-checkpoint pick reward memory: drop it
val_keys = {tails[i].tobytes() for i in np.nonzero(is_val)[0]}
keep = [i for i in range(len(tails)) if is_val[i] or tails[i].tobytes() not in val_keys]
dropped = len(tails) - len(keep)
tails, templates, is_val = [tails[i] for i in keep], [templates[i] for i in keep], is_val[keep]
offsets = np.zeros(len(tails) + 1, np.int64); offsets[1:] = np.cumsum([len(t) for t in tails])
np.savez(a.out, tokens=np.concatenate(tails), offsets=offsets, template=np.array(templates, np.uint16),
         templates=np.array(list(names)), prefix=np.array(prefix, np.uint16), is_val=is_val)
print(json.dumps({"rows": len(tails), "tokens": int(offsets[-1]), "prefix": len(prefix), "val": int(is_val.sum()), "dropped_as_val_copies": dropped, "templates": len(names)}))
