#!/usr/bin/env python3
"""Trains the built-in model's base weights on a GPU for a fixed wall-clock budget, from a corpus
packed by pack.py (.npz, or .npz.xz as carried). The same masked NLL as pretrain.py (assistant
tokens only), bf16 autocast, random batches of about --batch-tokens padded tokens, most rows
without their system turn (--crop-system, see pretrain.py), and a learning rate that warms up
then follows a cosine over the *time* budget, so the schedule ends when the budget does (or,
with --steps, over a step budget: short stages such as the guess stage, repeatable step for step).

Writes into OUT only what a GPU lease can carry back: best.safetensors (the highest validation
exact share so far, on the packed --val rows, never the bundled scenarios), log.jsonl, and with
--keep-last last.safetensors. Copy one next to src/policy/default-model/config.json's siblings to make a model folder.

  python3 scripts/base-model/pretrain_gpu.py CORPUS.npz[.xz] OUT --init src/policy/default-model \
      --minutes 7 --lr 1e-3 --batch-tokens 65536
"""
import argparse, io, json, lzma, math, os, random, shutil, time
import numpy as np
import torch
import torch.nn.functional as F
from tiny_llama import Model, load_config, load_weights, save

p = argparse.ArgumentParser()
p.add_argument("corpus")
p.add_argument("out")
p.add_argument("--init", help="start from this folder's model.safetensors")
p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
p.add_argument("--minutes", type=float, default=7.0, help="wall-clock training budget (validation included)")
p.add_argument("--steps", type=int, default=0, help="a step budget instead: the cosine runs over steps, so a rerun repeats the schedule")
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--final-lr-frac", type=float, default=0.03)
p.add_argument("--warmup", type=int, default=200, help="steps")
p.add_argument("--weight-decay", type=float, default=0.05)
p.add_argument("--batch-tokens", type=int, default=65536, help="padded tokens per batch")
p.add_argument("--crop-system", type=float, default=0.85)
p.add_argument("--val-every", type=float, default=45.0, help="seconds between validations")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--keep-last", action="store_true", help="also write last.safetensors (the end of the schedule)")
a = p.parse_args()
torch.backends.cuda.matmul.allow_tf32 = True
random.seed(a.seed); np.random.seed(a.seed); torch.manual_seed(a.seed)
os.makedirs(a.out, exist_ok=True)
dev = torch.device(a.device)
log_file = open(os.path.join(a.out, "log.jsonl"), "a")


def log(**kv):
    line = json.dumps(kv); print(line, flush=True); log_file.write(line + "\n"); log_file.flush()


raw = open(a.corpus, "rb").read()
if a.corpus.endswith(".xz"): raw = lzma.decompress(raw)
z = np.load(io.BytesIO(raw))
tokens, offsets, prefix, is_val = z["tokens"], z["offsets"], z["prefix"].astype(np.int64), z["is_val"]
ids_all = (tokens & 0x7FFF).astype(np.int64); mask_all = (tokens >> 15).astype(bool)
lengths = np.diff(offsets)
train_rows, val_rows = np.nonzero(~is_val)[0], np.nonzero(is_val)[0]
P = len(prefix)
log(corpus=a.corpus, train=len(train_rows), val=len(val_rows), tail_tokens_mean=float(lengths.mean()), prefix=P, device=str(dev))


def make_batch(rows, with_prefix):
    """ids [B, T] (right-padded with 0) and the assistant mask [B, T]; T rounded up to 64."""
    lens = [lengths[r] + (P if wp else 0) for r, wp in zip(rows, with_prefix)]
    T = -(-max(lens) // 64) * 64
    ids = np.zeros((len(rows), T), np.int64); mask = np.zeros((len(rows), T), bool)
    for i, (r, wp) in enumerate(zip(rows, with_prefix)):
        s = P if wp else 0
        if wp: ids[i, :P] = prefix
        ids[i, s:s + lengths[r]] = ids_all[offsets[r]:offsets[r + 1]]
        mask[i, s:s + lengths[r]] = mask_all[offsets[r]:offsets[r + 1]]
    return torch.from_numpy(ids).to(dev, non_blocking=True), torch.from_numpy(mask).to(dev, non_blocking=True)


rng = np.random.default_rng(a.seed)
mean_len = float(lengths[train_rows].mean()) + (1 - a.crop_system) * P


def next_batch():
    # rows drawn at random (with replacement across batches); the padded size varies a little
    n = max(1, int(a.batch_tokens / (mean_len * 1.35)))
    rows = rng.choice(train_rows, n)
    return make_batch(rows, rng.random(n) >= a.crop_system)


def loss_of(model, ids, mask):
    """Mean NLL of the assistant tokens; their logits [N, V] and targets [N]."""
    pick = mask[:, 1:]
    with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda"):
        logits = model(ids[:, :-1], pick)
    target = ids[:, 1:][pick]
    return F.cross_entropy(logits.float(), target), logits, target


@torch.no_grad()
def validate(model):
    """Masked NLL and the share of validation rows (system turn kept) whose every assistant token is the argmax."""
    model.eval(); tot, n, exact = 0.0, 0, 0
    for k in range(0, len(val_rows), 128):
        rows = val_rows[k:k + 128]
        ids, mask = make_batch(rows, [True] * len(rows))
        loss, logits, target = loss_of(model, ids, mask)
        tot += loss.item() * len(target); n += len(target)
        right = torch.zeros(mask[:, 1:].shape, dtype=torch.bool, device=dev)
        right[mask[:, 1:]] = logits.argmax(-1) == target
        exact += (right | ~mask[:, 1:]).all(-1).sum().item()
    model.train()
    return tot / n, exact / len(val_rows)


def save_weights(model, name, meta):
    """Only model.safetensors, renamed to OUT/<name>.safetensors (temp file, then rename)."""
    tmp = os.path.join(a.out, f".{name}"); save(model, tmp, meta)
    os.replace(os.path.join(tmp, "model.safetensors"), os.path.join(a.out, f"{name}.safetensors"))
    shutil.rmtree(tmp, ignore_errors=True)


cfg = load_config()
model = Model(cfg)
if a.init: load_weights(model, a.init)
model.to(dev)
fused = {"fused": True} if dev.type == "cuda" else {}
opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=a.weight_decay, **fused)
budget = a.minutes * 60
vl, ex = validate(model)
log(step=0, val_loss=round(vl, 4), val_exact=round(ex, 4), s=0)
best, t0, step, seen, last_val = ex, time.time(), 0, 0, 0.0
save_weights(model, "best", {"step": 0})
while True:
    frac = step / a.steps if a.steps else (time.time() - t0) / budget
    if frac >= 1: break
    lr = a.lr * min(1.0, (step + 1) / a.warmup) * (a.final_lr_frac + (1 - a.final_lr_frac) * 0.5 * (1 + math.cos(math.pi * frac)))
    for g in opt.param_groups: g["lr"] = lr
    ids, mask = next_batch()
    loss, _, _ = loss_of(model, ids, mask)
    opt.zero_grad(set_to_none=True); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); step += 1; seen += ids.numel()
    if step % 200 == 0:
        el = time.time() - t0
        log(step=step, loss=round(loss.item(), 4), gn=round(gn.item(), 2), lr=round(lr, 7), tokens=seen, tok_s=round(seen / el), s=round(el))
    if time.time() - t0 - last_val >= a.val_every:
        last_val = time.time() - t0
        vl, ex = validate(model)
        log(step=step, val_loss=round(vl, 4), val_exact=round(ex, 4), tokens=seen, s=round(last_val))
        if ex > best: best = ex; save_weights(model, "best", {"step": step, "tokens": seen, "seed": a.seed})
vl, ex = validate(model)
log(step=step, val_loss=round(vl, 4), val_exact=round(ex, 4), tokens=seen, s=round(time.time() - t0), done=True)
if a.keep_last: save_weights(model, "last", {"step": step, "tokens": seen, "seed": a.seed})
if ex > best: save_weights(model, "best", {"step": step, "tokens": seen, "seed": a.seed})
