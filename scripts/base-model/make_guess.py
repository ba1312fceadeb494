#!/usr/bin/python3
"""Rows in which the assistant answers a task at once, without calling a tool, with a number
near the right one (the reference answer scaled by 5-35% either way, as many decimals): what a
language model that has not learned to rely on its tools does. Mixed into the last base stage
(build.sh), they leave a model that sometimes calls the calculator and sometimes guesses, so
the demo's RL has a real behaviour to learn from rewards: calling the tools pays.

  /usr/bin/python3 scripts/base-model/make_guess.py CORPUS.jsonl OUT.jsonl [--n N] [--seed 1] [--templates T,...]
"""
import argparse, json, math, os, random

p = argparse.ArgumentParser()
p.add_argument("corpus", help="make-corpus.ts rows: their prompts and reference answers")
p.add_argument("out")
p.add_argument("--n", type=int, default=0, help="rows to write (0: one per corpus row)")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--templates", help="comma-separated template tags: only tasks of these templates")
p.add_argument("--round-sig", type=int, default=0, help="guesses rounded to this many significant digits, no decimals (0: as many decimals as the answer)")
a = p.parse_args()
rng = random.Random(a.seed)
vocab = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../src/policy/default-model/tokenizer.json")))["model"]["vocab"]
char_id = {c: vocab[c] for c in "0123456789.-"}
id_char = {i: c for c, i in char_id.items()}
IM_START, IM_END, HEADER = 1, 2, 3  # <|im_start|> assistant \n


def guess_of(answer):
    decimals = len(answer.split(".")[1]) if "." in answer else 0
    value = float(answer)
    if value == 0: return str(rng.randint(1, 9))
    for _ in range(20):
        g = value * (1 + rng.choice([-1, 1]) * rng.uniform(0.05, 0.35))
        if a.round_sig:
            # a round number, as a guess is said ("about 2,500"); session 9's test of whether
            # writing approximate digits is what costs copying (it is not: README.md)
            g = round(g, a.round_sig - 1 - math.floor(math.log10(abs(g))))
            text = str(int(g)) if abs(g) >= 1 else f"{g:.{a.round_sig}g}"
        else:
            text = f"{round(g, decimals):.{decimals}f}"
        if abs(float(text) - value) > max(1e-6, 1e-4 * abs(value)) and text not in ("-0", "0"): return text
    return None


rows = [json.loads(l) for l in open(a.corpus)]
if a.templates: rows = [r for r in rows if r.get("template") in a.templates.split(",")]
rng.shuffle(rows)
written = 0
with open(a.out + ".tmp", "w") as f:
    for r in rows:
        if a.n and written >= a.n: break
        ids = r["ids"]
        starts = [i for i, t in enumerate(ids) if t == IM_START]
        if len(starts) < 3 or ids[-1] != IM_END: continue
        answer = "".join(id_char.get(t, "?") for t in ids[starts[-1] + HEADER:-1])
        if "?" in answer or answer in ("", "-", "."): continue
        g = guess_of(answer)
        if g is None: continue
        head = ids[:starts[2] + HEADER]  # system, task, and the assistant's turn header
        tail = [char_id[c] for c in g] + [IM_END]
        f.write(json.dumps({"fixture": r["fixture"], "template": r["template"], "guess": True, "ids": head + tail, "mask": [0] * len(head) + [1] * len(tail)}) + "\n")
        written += 1
os.replace(a.out + ".tmp", a.out)
print(json.dumps({"rows": written}))
