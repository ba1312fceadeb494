"""The built-in model's architecture in PyTorch, for the base-weight scripts (pretrain.py on CPU,
pretrain_gpu.py on a GPU): a Llama-style decoder with Hugging Face tensor names (RMSNorm, RoPE,
GQA, SwiGLU, tied embeddings), the same one the TypeScript engine runs, configured by
src/policy/default-model/config.json. Also reads and writes its F16 safetensors."""
import json, math, os, shutil, struct
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "../../src/policy/default-model/config.json")


def load_config():
    cfg = json.load(open(CONFIG))
    cfg.update(json.loads(os.environ.get("BASE_MODEL_CONFIG_OVERRIDE", "{}")))  # experiments with other sizes
    return cfg


def rms(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rot(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


class Block(torch.nn.Module):
    def __init__(s, cfg):
        super().__init__()
        D, H, KV, hd, I = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"], cfg["intermediate_size"]
        s.H, s.KV, s.hd, s.eps = H, KV, hd, cfg["rms_norm_eps"]
        s.input_layernorm = torch.nn.Parameter(torch.ones(D)); s.post_attention_layernorm = torch.nn.Parameter(torch.ones(D))
        s.q = torch.nn.Linear(D, H * hd, bias=False); s.k = torch.nn.Linear(D, KV * hd, bias=False)
        s.v = torch.nn.Linear(D, KV * hd, bias=False); s.o = torch.nn.Linear(H * hd, D, bias=False)
        s.gate = torch.nn.Linear(D, I, bias=False); s.up = torch.nn.Linear(D, I, bias=False); s.down = torch.nn.Linear(I, D, bias=False)

    def forward(s, x, cos, sin):
        B, T, _ = x.shape
        h = rms(x, s.input_layernorm, s.eps)
        q = s.q(h).view(B, T, s.H, s.hd).transpose(1, 2); k = s.k(h).view(B, T, s.KV, s.hd).transpose(1, 2)
        v = s.v(h).view(B, T, s.KV, s.hd).transpose(1, 2)
        # RoPE in float32 whatever the autocast dtype, then back to v's dtype for the attention
        q, k = [(t.float() * cos + rot(t.float()) * sin).to(v.dtype) for t in (q, k)]
        k, v = k.repeat_interleave(s.H // s.KV, 1), v.repeat_interleave(s.H // s.KV, 1)
        if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2 (flash attention on a GPU)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-1, -2)) / math.sqrt(s.hd)
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
            o = att.softmax(-1) @ v
        x = x + s.o(o.transpose(1, 2).reshape(B, T, s.H * s.hd))  # right padding: causal is enough
        h = rms(x, s.post_attention_layernorm, s.eps)
        return x + s.down(F.silu(s.gate(h)) * s.up(h))


class Model(torch.nn.Module):
    def __init__(s, cfg):
        super().__init__()
        s.cfg = cfg
        s.embed = torch.nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        s.layers = torch.nn.ModuleList([Block(cfg) for _ in range(cfg["num_hidden_layers"])])
        s.norm = torch.nn.Parameter(torch.ones(cfg["hidden_size"]))
        for m in s.modules():  # the usual small init (HF initializer_range 0.02)
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)): torch.nn.init.normal_(m.weight, std=0.02)

    def forward(s, ids, pick=None):
        """Logits [B, T, V], or [N, V] at the positions `pick` (a [B, T] bool mask) only."""
        T, hd = ids.shape[1], s.cfg["head_dim"]
        inv = 1.0 / (s.cfg["rope_theta"] ** (torch.arange(0, hd, 2, device=ids.device).float() / hd))
        ang = torch.arange(T, device=ids.device).float()[:, None] * inv[None]
        emb = torch.cat([ang, ang], -1); cos, sin = emb.cos(), emb.sin()
        x = s.embed(ids)
        for b in s.layers: x = b(x, cos, sin)
        x = rms(x, s.norm, s.cfg["rms_norm_eps"])
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


def load_weights(model, folder):
    """HF names back onto the modules (F16/F32 safetensors, as save() writes them)."""
    raw = open(os.path.join(folder, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]; header = json.loads(raw[8:8 + n])
    dt = {"F16": torch.float16, "F32": torch.float32}
    with torch.no_grad():
        for name, p_ in model.hf_state().items():
            h = header[name]; lo, hi = h["data_offsets"]
            p_.copy_(torch.frombuffer(bytearray(raw[8 + n + lo:8 + n + hi]), dtype=dt[h["dtype"]]).view(h["shape"]).float())


def save(model, out, meta):
    """model.safetensors (F16, HF names) + config.json + the tokenizer files: a complete model
    folder, each file written to a temp name then renamed."""
    os.makedirs(out, exist_ok=True)
    header, blobs, off = {}, [], 0
    for name, t in sorted(model.hf_state().items()):
        b = t.detach().to("cpu", torch.float16).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F16", "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b); off += len(b)
    header["__metadata__"] = {"format": "pt", **{k: str(v) for k, v in meta.items()}}
    h = json.dumps(header, separators=(",", ":")).encode(); h += b" " * (-len(h) % 8)
    tmp = os.path.join(out, "model.safetensors.tmp")
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h))); f.write(h)
        for b in blobs: f.write(b)
    os.replace(tmp, os.path.join(out, "model.safetensors"))
    c = dict(model.cfg); c["torch_dtype"] = "float16"
    with open(os.path.join(out, "config.json.tmp"), "w") as f: json.dump(c, f, indent=2); f.write("\n")
    os.replace(os.path.join(out, "config.json.tmp"), os.path.join(out, "config.json"))
    for f in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        src = os.path.join(os.path.dirname(CONFIG), f)
        if os.path.exists(src) and os.path.abspath(out) != os.path.dirname(os.path.abspath(src)): shutil.copyfile(src, os.path.join(out, f))
