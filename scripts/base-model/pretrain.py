#!/usr/bin/python3
"""Trains the built-in model's base weights on the corpus from make-corpus.ts.

The architecture is the default model's config.json (a Llama-style decoder with Hugging Face
tensor names: RMSNorm, RoPE, GQA, SwiGLU, tied embeddings), the same one the TypeScript engine
runs; PyTorch is used here only because this one-off job is several times faster on CPU than
the wasm engine. The loss is the masked NLL of the assistant tokens (what the policy writes),
never the prompt or tool results. Writes model.safetensors (float16) + config.json.

Run (Debian python3-torch; deterministic for a seed):
  /usr/bin/python3 scripts/base-model/pretrain.py CORPUS.jsonl OUT_DIR [--extra DRILL.jsonl] [--tokens 6e6] [--lr 1.5e-3]
"""
import argparse, json, math, os, random, shutil, struct, sys, time
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "../../src/policy/default-model/config.json")

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
cfg = json.load(open(CONFIG))
cfg.update(json.loads(os.environ.get("BASE_MODEL_CONFIG_OVERRIDE", "{}")))  # experiments with other sizes
D, L, H, KV, hd = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
V, I, eps = cfg["vocab_size"], cfg["intermediate_size"], cfg["rms_norm_eps"]


class Block(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.input_layernorm = torch.nn.Parameter(torch.ones(D)); s.post_attention_layernorm = torch.nn.Parameter(torch.ones(D))
        s.q = torch.nn.Linear(D, H * hd, bias=False); s.k = torch.nn.Linear(D, KV * hd, bias=False)
        s.v = torch.nn.Linear(D, KV * hd, bias=False); s.o = torch.nn.Linear(H * hd, D, bias=False)
        s.gate = torch.nn.Linear(D, I, bias=False); s.up = torch.nn.Linear(D, I, bias=False); s.down = torch.nn.Linear(I, D, bias=False)

    def forward(s, x, cos, sin):
        B, T, _ = x.shape
        h = rms(x, s.input_layernorm)
        q = s.q(h).view(B, T, H, hd).transpose(1, 2); k = s.k(h).view(B, T, KV, hd).transpose(1, 2)
        v = s.v(h).view(B, T, KV, hd).transpose(1, 2)
        q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        k, v = k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        o = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, H * hd)  # right padding: causal is enough
        x = x + s.o(o)
        h = rms(x, s.post_attention_layernorm)
        return x + s.down(F.silu(s.gate(h)) * s.up(h))


def rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rot(x):
    return torch.cat([-x[..., hd // 2:], x[..., :hd // 2]], -1)


class Model(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.embed = torch.nn.Embedding(V, D); s.layers = torch.nn.ModuleList([Block() for _ in range(L)])
        s.norm = torch.nn.Parameter(torch.ones(D))
        for m in s.modules():  # the usual small init (HF initializer_range 0.02)
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)): torch.nn.init.normal_(m.weight, std=0.02)

    def forward(s, ids, pick=None):
        T = ids.shape[1]
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.arange(T).float()[:, None] * inv[None]
        emb = torch.cat([ang, ang], -1); cos, sin = emb.cos(), emb.sin()
        x = s.embed(ids)
        for b in s.layers: x = b(x, cos, sin)
        x = rms(x, s.norm)
        if pick is not None: x = x[pick]  # the head only where the loss is taken: [N, D]
        return x @ s.embed.weight.t()  # tied head

    def hf_state(s):
        w = {"model.embed_tokens.weight": s.embed.weight, "model.norm.weight": s.norm}
        for l, b in enumerate(s.layers):
            p = f"model.layers.{l}."
            w[p + "input_layernorm.weight"] = b.input_layernorm; w[p + "post_attention_layernorm.weight"] = b.post_attention_layernorm
            for n, m in [("self_attn.q_proj", b.q), ("self_attn.k_proj", b.k), ("self_attn.v_proj", b.v), ("self_attn.o_proj", b.o),
                         ("mlp.gate_proj", b.gate), ("mlp.up_proj", b.up), ("mlp.down_proj", b.down)]:
                w[p + n + ".weight"] = m.weight
        return w


def save(model, out, meta):
    """model.safetensors (F16, HF names) + config.json, written to temp files then renamed."""
    os.makedirs(out, exist_ok=True)
    header, blobs, off = {}, [], 0
    for name, t in sorted(model.hf_state().items()):
        b = t.detach().to(torch.float16).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F16", "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b); off += len(b)
    header["__metadata__"] = {"format": "pt", **{k: str(v) for k, v in meta.items()}}
    h = json.dumps(header, separators=(",", ":")).encode(); h += b" " * (-len(h) % 8)
    tmp = os.path.join(out, "model.safetensors.tmp")
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h))); f.write(h)
        for b in blobs: f.write(b)
    os.replace(tmp, os.path.join(out, "model.safetensors"))
    c = dict(cfg); c["torch_dtype"] = "float16"
    with open(os.path.join(out, "config.json.tmp"), "w") as f: json.dump(c, f, indent=2); f.write("\n")
    os.replace(os.path.join(out, "config.json.tmp"), os.path.join(out, "config.json"))
    for f in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):  # a complete model folder
        src = os.path.join(os.path.dirname(CONFIG), f)
        if os.path.exists(src) and os.path.abspath(out) != os.path.dirname(os.path.abspath(src)): shutil.copyfile(src, os.path.join(out, f))


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


model = Model()
if a.init:  # HF names back onto the modules (F16/F32 safetensors, as save() writes them)
    raw = open(os.path.join(a.init, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]; header = json.loads(raw[8:8 + n])
    dt = {"F16": torch.float16, "F32": torch.float32}
    with torch.no_grad():
        for name, p_ in model.hf_state().items():
            h = header[name]; lo, hi = h["data_offsets"]
            p_.copy_(torch.frombuffer(bytearray(raw[8 + n + lo:8 + n + hi]), dtype=dt[h["dtype"]]).view(h["shape"]).float())
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
