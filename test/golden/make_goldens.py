#!/usr/bin/python3
"""Regenerates the golden files the tfjs model is checked against.

A PyTorch reference of the decoder that Llama, Qwen2 and Qwen3 share, written after
transformers' modeling_llama.py / modeling_qwen2.py / modeling_qwen3.py (HF tensor names and
[out, in] layouts, rotate_half RoPE, repeat_kv GQA, RMSNorm, SwiGLU), computed in float64.
For each case it writes a tiny random checkpoint (config.json + model.safetensors, float32) and
goldens.safetensors: logits, per-token log-probs, entropy, a masked mean log-prob loss and its
gradient w.r.t. every weight ("grad.<name>"), plus inputs.json (ids, mask).

Run:  /usr/bin/python3 test/golden/make_goldens.py   (Debian python3-torch; deterministic)
"""
import json, math, os, struct
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(1234)

CASES = {
    # GQA, untied head, Qwen2 q/k/v biases
    "qwen2-untied": dict(model_type="qwen2", vocab_size=64, hidden_size=32, intermediate_size=48,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         rms_norm_eps=1e-6, rope_theta=10000.0, max_position_embeddings=64,
                         tie_word_embeddings=False, hidden_act="silu"),
    # GQA, tied embeddings, no biases (Llama)
    "llama-tied": dict(model_type="llama", vocab_size=64, hidden_size=32, intermediate_size=48,
                       num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
                       rms_norm_eps=1e-5, rope_theta=500000.0, max_position_embeddings=64,
                       tie_word_embeddings=True, hidden_act="silu"),
    # Qwen3: q/k RMSNorm, head_dim set explicitly (H*hd != hidden), tied
    "qwen3-qknorm": dict(model_type="qwen3", vocab_size=64, hidden_size=32, intermediate_size=48,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         head_dim=16, rms_norm_eps=1e-6, rope_theta=1000000.0,
                         max_position_embeddings=64, tie_word_embeddings=True, hidden_act="silu",
                         attention_bias=False),
    # Llama 3 style: rope_scaling "llama3", attention_bias (q/k/v/o biases), mlp_bias; small
    "llama3-rope-bias": dict(model_type="llama", vocab_size=32, hidden_size=32, intermediate_size=40,
                             num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                             rms_norm_eps=1e-5, rope_theta=10000.0, max_position_embeddings=64,
                             tie_word_embeddings=True, hidden_act="silu", attention_bias=True,
                             mlp_bias=True,
                             rope_scaling=dict(rope_type="llama3", factor=4.0, low_freq_factor=1.0,
                                               high_freq_factor=4.0,
                                               original_max_position_embeddings=8)),
}


def shapes(c):
    D, H, KV = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim", D // H)
    I, V = c["intermediate_size"], c["vocab_size"]
    bias = c.get("attention_bias", c["model_type"] == "qwen2")
    obias = c.get("attention_bias") is True  # Llama/Qwen3: all four projections
    mbias = c.get("mlp_bias") is True
    qk = c["model_type"] == "qwen3"
    s = {"model.embed_tokens.weight": (V, D)}
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        s[p + "input_layernorm.weight"] = (D,)
        s[p + "self_attn.q_proj.weight"] = (H * hd, D)
        s[p + "self_attn.k_proj.weight"] = (KV * hd, D)
        s[p + "self_attn.v_proj.weight"] = (KV * hd, D)
        if bias:
            s[p + "self_attn.q_proj.bias"] = (H * hd,)
            s[p + "self_attn.k_proj.bias"] = (KV * hd,)
            s[p + "self_attn.v_proj.bias"] = (KV * hd,)
        if qk:
            s[p + "self_attn.q_norm.weight"] = (hd,)
            s[p + "self_attn.k_norm.weight"] = (hd,)
        s[p + "self_attn.o_proj.weight"] = (D, H * hd)
        if obias:
            s[p + "self_attn.o_proj.bias"] = (D,)
        s[p + "post_attention_layernorm.weight"] = (D,)
        s[p + "mlp.gate_proj.weight"] = (I, D)
        s[p + "mlp.up_proj.weight"] = (I, D)
        s[p + "mlp.down_proj.weight"] = (D, I)
        if mbias:
            s[p + "mlp.gate_proj.bias"] = (I,)
            s[p + "mlp.up_proj.bias"] = (I,)
            s[p + "mlp.down_proj.bias"] = (D,)
    s["model.norm.weight"] = (D,)
    if not c["tie_word_embeddings"]:
        s["lm_head.weight"] = (V, D)
    return s


def init(c):
    w = {}
    for name, shp in shapes(c).items():
        if name.endswith("norm.weight"):  # not all ones, so a wrong norm weight shows
            t = 1 + 0.1 * torch.randn(shp)
        elif name.endswith(".bias"):
            t = 0.1 * torch.randn(shp)
        else:  # larger than 0.02 so attention is not uniform and errors are visible
            t = 0.2 * torch.randn(shp)
        w[name] = t.float()  # the checkpoint is float32; the reference computes in float64
    return w


def rms(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


def forward(c, w, ids):
    B, T = ids.shape
    D, H, KV = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim", D // H)
    eps, G = c["rms_norm_eps"], H // KV
    inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
    rs = c.get("rope_scaling")
    if rs and rs["rope_type"] == "llama3":  # transformers' _compute_llama3_parameters
        inv = inv.double()
        f, lo, hi, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
        wave = 2 * math.pi / inv
        scaled = torch.where(wave > old / lo, inv / f, inv)
        smooth = (old / wave - lo) / (hi - lo)
        mid = (1 - smooth) * inv / f + smooth * inv
        is_mid = (wave >= old / hi) & (wave <= old / lo)
        inv = torch.where(is_mid, mid, scaled)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv.double()[None]
    emb = torch.cat([ang, ang], -1)
    cos, sin = emb.cos(), emb.sin()  # [T, hd]
    lin = lambda x, p: x @ w[p + ".weight"].t() + (w[p + ".bias"] if p + ".bias" in w else 0)
    x = w["model.embed_tokens.weight"][ids]  # [B, T, D]
    causal = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms(x, w[p + "input_layernorm.weight"], eps)
        q = lin(h, p + "self_attn.q_proj").view(B, T, H, hd)
        k = lin(h, p + "self_attn.k_proj").view(B, T, KV, hd)
        v = lin(h, p + "self_attn.v_proj").view(B, T, KV, hd)
        if p + "self_attn.q_norm.weight" in w:
            q = rms(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # [B, nH, T, hd]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(G, dim=1)  # repeat_kv
        v = v.repeat_interleave(G, dim=1)
        s = q @ k.transpose(-1, -2) / math.sqrt(hd) + causal
        o = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, H * hd)
        x = x + lin(o, p + "self_attn.o_proj")
        h2 = rms(x, w[p + "post_attention_layernorm.weight"], eps)
        g = lin(h2, p + "mlp.gate_proj")
        x = x + lin(torch.nn.functional.silu(g) * lin(h2, p + "mlp.up_proj"), p + "mlp.down_proj")
    x = rms(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if c["tie_word_embeddings"] else w["lm_head.weight"]
    return x @ head.t()  # [B, T, V]


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().to(torch.float32).contiguous()
        b = t.numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def make(name, c):
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    w32 = init(c)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    write_safetensors(os.path.join(out, "model.safetensors"), w32)
    w = {k: v.double().requires_grad_(True) for k, v in w32.items()}
    V = c["vocab_size"]
    lengths = [12, 9, 5]
    T = max(lengths)
    ids = torch.zeros(len(lengths), T, dtype=torch.long)
    for b, n in enumerate(lengths):
        ids[b, :n] = torch.randint(1, V, (n,))
    mask = (torch.rand(len(lengths), T - 1) < 0.7).double()
    for b, n in enumerate(lengths):
        mask[b, n - 1:] = 0  # no target past the row's end
    logits = forward(c, w, ids)
    lp_all = logits.log_softmax(-1)
    logp = lp_all[:, :-1].gather(-1, ids[:, 1:, None])[..., 0]  # [B, T-1]
    entropy = -(lp_all.exp() * lp_all).sum(-1)[:, :-1]
    loss = (logp * mask).sum() / mask.sum()
    loss.backward()
    g = {"logits": logits, "logp": logp, "entropy": entropy, "loss": loss.reshape(1)}
    for k, v in w.items():
        g["grad." + k] = v.grad
    write_safetensors(os.path.join(out, "goldens.safetensors"), g)
    with open(os.path.join(out, "inputs.json"), "w") as f:
        json.dump({"ids": [ids[b, :n].tolist() for b, n in enumerate(lengths)], "mask": mask.tolist()}, f)
    print(name, "loss", float(loss))


for n, c in CASES.items():
    make(n, c)
