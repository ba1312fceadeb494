#!/usr/bin/python3
"""Trains the built-in model's base weights on the corpus from make-corpus.ts.

The architecture is tiny_llama.py (the default model's config.json, the same one the TypeScript
engine runs); PyTorch is used here only because this one-off job is several times faster on CPU than
the wasm engine. The loss is the masked NLL of the assistant tokens (what the policy writes),
never the prompt or tool results. Writes model.safetensors (float16) + config.json.

Run (Debian python3-torch; deterministic for a seed):
  /usr/bin/python3 scripts/base-model/pretrain.py CORPUS.jsonl OUT_DIR [--extra DRILL.jsonl] [--tokens 6e6] [--lr 1.5e-3]
"""
import argparse, json, math, os, random, time
import torch
import torch.nn.functional as F
from tiny_llama import Model, load_config, load_weights, save

p = argparse.ArgumentParser()
p.add_argument("corpus", help="task corpus (make-corpus.ts); the validation rows come from it")
p.add_argument("out")
p.add_argument("--extra", action="append", default=[], help="more training rows, e.g. the copying drill (make-drill.ts)")
p.add_argument("--tokens", type=float, default=6e6, help="tokens to train on (prompt included)")
p.add_argument("--lr", type=float, default=2e-3)
p.add_argument("--batch-tokens", type=int, default=8192)
p.add_argument("--warmup", type=int, default=100)
p.add_argument("--final-lr-frac", type=float, default=0.1, help="the cosine schedule ends at lr times this")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--threads", type=int, default=2)
p.add_argument("--save-every", type=int, default=500)
p.add_argument("--init", help="start from this folder's model.safetensors (an earlier phase)")
p.add_argument("--crop-system", type=float, default=0.0, help="share of training rows (0..1) with the system turn cut off")
p.add_argument("--mixed", action="store_true", help="random batches (re-drawn each epoch) instead of length-sorted ones")
p.add_argument("--stop-at-exact", type=float, default=2.0, help="stop once the validation exact share reaches this")
a = p.parse_args()
torch.manual_seed(a.seed); random.seed(a.seed); torch.set_num_threads(a.threads)
cfg = load_config()


rows = [json.loads(l) for l in open(a.corpus)]
random.shuffle(rows)
val, train = rows[:256], rows[256:]
for f in a.extra: train += [json.loads(l) for l in open(f)]


def crop_system(r):
    """The row from its second <|im_start|> on: the system turn (tools block, ~45% of a row's
    tokens, the same in every row of a fixture) is gone, while the offsets between the task, the
    call, the tool result and the answer stay as they were, which is what RoPE attention sees."""
    starts = [i for i, t in enumerate(r["ids"]) if t == 1]
    if len(starts) < 2: return r
    k = starts[1]
    return {**r, "ids": r["ids"][k:], "mask": r["mask"][k:]}


if a.crop_system > 0:
    train = [crop_system(r) if random.random() < a.crop_system else r for r in train]
print(json.dumps({"corpus": a.corpus, "train": len(train), "val": len(val), "tokens_per_seq": sum(len(r["ids"]) for r in rows) / len(rows)}), flush=True)


def batches(rs, budget, rng=None):
    """Batches of about `budget` padded tokens. Without `rng`: similar lengths together (little
    padding). With it (--mixed, re-drawn every epoch): random rows, since a task template fixes a
    row's length and length-sorted batches are one template at a time, which pulls the weights
    back and forth; random ones cost some padding."""
    rs = list(rs)
    if rng: rng.shuffle(rs)
    else: rs.sort(key=lambda r: len(r["ids"]))
    out, cur, longest = [], [], 0
    for r in rs:
        n = len(r["ids"])
        if cur and (len(cur) + 1) * max(longest, n) > budget: out.append(cur); cur, longest = [], 0
        cur.append(r); longest = max(longest, n)
    if cur: out.append(cur)
    return out


def tensors(b):
    T = max(len(r["ids"]) for r in b)
    ids = torch.zeros(len(b), T, dtype=torch.long); mask = torch.zeros(len(b), T)
    for i, r in enumerate(b):
        ids[i, :len(r["ids"])] = torch.tensor(r["ids"]); mask[i, :len(r["mask"])] = torch.tensor(r["mask"], dtype=torch.float)
    return ids, mask


def loss_of(model, ids, mask):
    """Mean NLL of the assistant tokens; also their logits [N, V] and targets [N]."""
    pick = mask[:, 1:] > 0
    logits = model(ids[:, :-1], pick)
    target = ids[:, 1:][pick]
    return F.cross_entropy(logits, target), logits, target


@torch.no_grad()
def validate(model):
    """Masked NLL and the share of sequences whose every assistant token is the argmax."""
    model.eval(); tot, n, exact = 0.0, 0, 0
    for b in batches(val, a.batch_tokens):
        ids, mask = tensors(b)
        loss, logits, target = loss_of(model, ids, mask)
        tot += loss.item() * len(target); n += len(target)
        right = torch.zeros(mask[:, 1:].shape, dtype=torch.bool)
        right[mask[:, 1:] > 0] = logits.argmax(-1) == target
        exact += (right | (mask[:, 1:] == 0)).all(-1).sum().item()
    model.train()
    return tot / n, exact / len(val)


model = Model(cfg)
if a.init: load_weights(model, a.init)
opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=0.01)
plan = batches(train, a.batch_tokens)
per_epoch = sum(len(r["ids"]) for r in train)
steps = int(math.ceil(a.tokens / per_epoch * len(plan)))
print(json.dumps({"batches_per_epoch": len(plan), "steps": steps, "params": sum(p.numel() for p in model.parameters())}), flush=True)
t0, seen, step = time.time(), 0, 0
while step < steps:
    if a.mixed: plan = batches(train, a.batch_tokens, random)
    order = list(range(len(plan))); random.shuffle(order)
    for i in order:
        if step >= steps: break
        lr = a.lr * min(1.0, (step + 1) / a.warmup) * (a.final_lr_frac + (1 - a.final_lr_frac) * 0.5 * (1 + math.cos(math.pi * step / steps)))
        for g in opt.param_groups: g["lr"] = lr
        ids, mask = tensors(plan[i])
        loss, _, _ = loss_of(model, ids, mask)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); step += 1; seen += ids.numel()
        if step % 50 == 0:
            print(json.dumps({"step": step, "loss": round(loss.item(), 4), "gn": round(gn.item(), 2), "lr": round(lr, 6), "tokens": seen, "s": round(time.time() - t0)}), flush=True)
        if step % a.save_every == 0 or step == steps:
            vl, ex = validate(model)
            print(json.dumps({"step": step, "val_loss": round(vl, 4), "val_exact": round(ex, 4), "tokens": seen, "s": round(time.time() - t0)}), flush=True)
            save(model, os.path.join(a.out, f"step-{step}"), {"step": step, "tokens": seen, "seed": a.seed})
            if ex >= a.stop_at_exact: steps = step
save(model, a.out, {"step": step, "tokens": seen, "seed": a.seed, "corpus_rows": len(rows)})
print(json.dumps({"done": True, "steps": step, "tokens": seen, "s": round(time.time() - t0)}), flush=True)
