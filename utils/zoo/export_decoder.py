#!/usr/bin/python3
"""Exports Llama-style decoder-only language models to ONNX (issue 24).

Seeded random weights, written in torch and exported with Debian's torch
in the interface Hugging Face Optimum's decoder exports use:
  inputs   input_ids [batch, sequence] (int64), attention_mask [batch,
           past_sequence + sequence] (int64), position_ids [batch,
           sequence] (int64), past_key_values.N.key / .value [batch,
           kv_heads, past_sequence, head_dim] (float32);
  outputs  logits [batch, sequence, vocab], present.N.key / .value
           [batch, kv_heads, past_sequence + sequence, head_dim];
every dimension named above dynamic.

Configurations:
  llama_7m    d 256, 6 layers, 4 query heads, 2 KV heads, SwiGLU 768,
              vocab 4096 (6.8M parameters; the 23 MB of float32 weights
              a token streams fit in a 32 MB last-level cache);
  llama_15m   d 384, 6 layers, 6 query heads, 2 KV heads, SwiGLU 1024,
              vocab 8192 (about 15M parameters: 63 MB in float32, larger
              than a 32 MB last-level cache; 16 MB in w8);
  llama_110m  d 768, 12 layers, 12 query heads, 4 KV heads, SwiGLU 2048,
              vocab 16384 (about 100M parameters);
  qwen_like   llama_15m's sizes written as another exporter's idioms: q/k/v
              biases, RoPE on interleaved pairs computed from an inverse
              frequency at run time instead of cached cos/sin tables, the
              causal mask built with triu and a float min, the KV heads
              repeated with Tile, RMSNorm through
              torch.rsqrt(mean + eps) in a different order.

Usage: export_decoder.py OUT_DIR [config ...]
"""
import math
import os
import sys

import torch
import torch.nn as nn

SEED = 20261125

CONFIGS = {
    "llama_15m": dict(d=384, layers=6, heads=6, kv=2, ff=1024, vocab=8192,
                      qwen=False),
    # Float32 weights streamed per token (all but the embedding table)
    # about 23 MB: resident in a 32 MB last-level cache (docs/decoder.md).
    "llama_7m": dict(d=256, layers=6, heads=4, kv=2, ff=768, vocab=4096,
                     qwen=False),
    # Trained (a few minutes, cached) on the license texts every Debian
    # system ships, one byte per token: predictions with real margins, for
    # the greedy-token agreement of quantized weights (random weights put
    # the top logits within rounding of each other).
    "llama_text": dict(d=256, layers=4, heads=4, kv=2, ff=768, vocab=256,
                       qwen=False, train=True),
    "llama_110m": dict(d=768, layers=12, heads=12, kv=4, ff=2048,
                       vocab=16384, qwen=False),
    "qwen_like": dict(d=384, layers=6, heads=6, kv=2, ff=1024, vocab=8192,
                      qwen=True),
}


class RMSNorm(nn.Module):
    def __init__(self, d, qwen):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))
        self.qwen = qwen

    def forward(self, x):
        if self.qwen:
            var = x.pow(2).mean(-1, keepdim=True)
            return self.weight * (x * torch.rsqrt(var + 1e-6))
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) * \
            self.weight


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Attention(nn.Module):
    def __init__(self, c, cos, sin):
        super().__init__()
        self.h, self.kv, self.hd = c["heads"], c["kv"], c["d"] // c["heads"]
        self.qwen = c["qwen"]
        bias = c["qwen"]
        self.q = nn.Linear(c["d"], self.h * self.hd, bias=bias)
        self.k = nn.Linear(c["d"], self.kv * self.hd, bias=bias)
        self.v = nn.Linear(c["d"], self.kv * self.hd, bias=bias)
        self.o = nn.Linear(self.h * self.hd, c["d"], bias=False)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def rope(self, x, pos):
        if self.qwen:
            # Interleaved pairs (x0, x1), (x2, x3)... rotated by angles
            # computed here from the positions.
            inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() /
                                   self.hd))
            ang = pos[:, None, :, None].float() * inv  # b,1,s,hd/2
            c, s = torch.cos(ang), torch.sin(ang)
            x0, x1 = x[..., 0::2], x[..., 1::2]
            return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c),
                               dim=-1).flatten(-2)
        c = self.cos[pos].unsqueeze(1)  # b,1,s,hd
        s = self.sin[pos].unsqueeze(1)
        return x * c + rotate_half(x) * s

    def forward(self, x, pos, mask, pk, pv):
        b, s, _ = x.shape
        q = self.q(x).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv, self.hd).transpose(1, 2)
        q, k = self.rope(q, pos), self.rope(k, pos)
        k = torch.cat((pk, k), dim=2)
        v = torch.cat((pv, v), dim=2)
        rep = self.h // self.kv
        if self.qwen:
            # Tile (repeat) of a new axis; torch 1.13 exports
            # repeat_interleave over a dynamic length wrongly (ONNX Runtime
            # rejects that graph too).
            t = k.shape[2]
            kk = k[:, :, None].repeat(1, 1, rep, 1, 1).reshape(
                b, self.h, t, self.hd)
            vv = v[:, :, None].repeat(1, 1, rep, 1, 1).reshape(
                b, self.h, t, self.hd)
        else:
            t = k.shape[2]
            kk = k[:, :, None].expand(b, self.kv, rep, t, self.hd).reshape(
                b, self.h, t, self.hd)
            vv = v[:, :, None].expand(b, self.kv, rep, t, self.hd).reshape(
                b, self.h, t, self.hd)
        att = q @ kk.transpose(-1, -2) / math.sqrt(self.hd) + mask
        y = torch.softmax(att, dim=-1) @ vv
        return self.o(y.transpose(1, 2).reshape(b, s, -1)), k, v


class Block(nn.Module):
    def __init__(self, c, cos, sin):
        super().__init__()
        self.n1, self.n2 = RMSNorm(c["d"], c["qwen"]), RMSNorm(c["d"], c["qwen"])
        self.att = Attention(c, cos, sin)
        self.gate = nn.Linear(c["d"], c["ff"], bias=False)
        self.up = nn.Linear(c["d"], c["ff"], bias=False)
        self.down = nn.Linear(c["ff"], c["d"], bias=False)

    def forward(self, x, pos, mask, pk, pv):
        a, k, v = self.att(self.n1(x), pos, mask, pk, pv)
        x = x + a
        h = self.n2(x)
        x = x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))
        return x, k, v


class Decoder(nn.Module):
    def __init__(self, c, max_pos=2048):
        super().__init__()
        hd = c["d"] // c["heads"]
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.arange(max_pos).float()[:, None] * inv
        ang = torch.cat((ang, ang), dim=-1)
        cos, sin = ang.cos(), ang.sin()
        self.c = c
        self.embed = nn.Embedding(c["vocab"], c["d"])
        self.blocks = nn.ModuleList(Block(c, cos, sin)
                                    for _ in range(c["layers"]))
        self.norm = RMSNorm(c["d"], c["qwen"])
        self.head = nn.Linear(c["d"], c["vocab"], bias=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        x = self.embed(input_ids)
        b, s = input_ids.shape
        t = attention_mask.shape[1]
        p = t - s
        # Causal within the new tokens, every past token visible, padding
        # (attention_mask 0) hidden.
        if self.c["qwen"]:
            causal = torch.triu(torch.full((s, t), torch.finfo(torch.float32).min),
                                diagonal=p + 1)
            pad = (1.0 - attention_mask[:, None, None, :].float()) * \
                torch.finfo(torch.float32).min
            mask = causal[None, None] + pad
        else:
            i = torch.arange(s)[:, None] + p
            j = torch.arange(t)[None, :]
            allowed = (j <= i)[None, None] & (attention_mask[:, None, None, :] > 0)
            mask = torch.where(allowed, torch.tensor(0.0), torch.tensor(-1e9))
        present = []
        for n, blk in enumerate(self.blocks):
            x, k, v = blk(x, position_ids, mask, past[2 * n], past[2 * n + 1])
            present += [k, v]
        return (self.head(self.norm(x)), *present)


CORPUS_DIR = "/usr/share/common-licenses"
TRAIN_STEPS, TRAIN_BATCH, TRAIN_SEQ = int(os.environ.get("AMK_TRAIN_STEPS", 300)), 16, 128


def corpus():
    """The license texts of base-files, sorted by name, as one byte string."""
    data = b""
    for f in sorted(os.listdir(CORPUS_DIR)):
        p = os.path.join(CORPUS_DIR, f)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as fh:
                data += fh.read()
    return torch.tensor(list(data), dtype=torch.int64)


def train(model, c):
    """Next-byte prediction on the corpus: seeded windows, AdamW."""
    text = corpus()
    g = torch.Generator().manual_seed(SEED)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=TRAIN_STEPS)
    hd = c["d"] // c["heads"]
    b, s = TRAIN_BATCH, TRAIN_SEQ
    past = [torch.zeros(b, c["kv"], 0, hd)] * (2 * c["layers"])
    mask = torch.ones(b, s, dtype=torch.int64)
    pos = torch.arange(s)[None].expand(b, s)
    model.train()
    for step in range(TRAIN_STEPS):
        at = torch.randint(0, len(text) - s - 1, (b,), generator=g)
        x = torch.stack([text[i:i + s] for i in at])
        y = torch.stack([text[i + 1:i + s + 1] for i in at])
        logits = model(x, mask, pos, *past)[0]
        loss = nn.functional.cross_entropy(logits.reshape(-1, c["vocab"]),
                                           y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0 or step == TRAIN_STEPS - 1:
            print(f"train step {step}: loss {loss.item():.3f}", file=sys.stderr)
    model.eval()


def export(name, out_dir):
    c = CONFIGS[name]
    path = os.path.join(out_dir, f"{name}.onnx")
    if c.get("train") and os.path.exists(path):
        print(path, "(trained before, kept)")
        return
    torch.manual_seed(SEED)
    model = Decoder(c)
    with torch.no_grad():
        for prm in model.parameters():
            if prm.dim() == 2:
                nn.init.normal_(prm, std=0.02 if prm.shape[0] != c["vocab"]
                                else 0.05)
    if c.get("train"):
        torch.set_num_threads(os.cpu_count() or 1)
        train(model, c)
    model.eval()
    b, s, p = 1, 3, 5
    hd = c["d"] // c["heads"]
    ids = torch.randint(0, c["vocab"], (b, s))
    mask = torch.ones(b, p + s, dtype=torch.int64)
    pos = torch.arange(p, p + s)[None]
    past = []
    names_in = ["input_ids", "attention_mask", "position_ids"]
    names_out = ["logits"]
    axes = {"input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "total_sequence"},
            "position_ids": {0: "batch", 1: "sequence"},
            "logits": {0: "batch", 1: "sequence"}}
    for n in range(c["layers"]):
        for kv in ("key", "value"):
            past.append(torch.randn(b, c["kv"], p, hd))
            names_in.append(f"past_key_values.{n}.{kv}")
            names_out.append(f"present.{n}.{kv}")
            axes[names_in[-1]] = {0: "batch", 2: "past_sequence"}
            axes[names_out[-1]] = {0: "batch", 2: "total_sequence"}
    with torch.no_grad():
        torch.onnx.export(model, (ids, mask, pos, *past), path,
                          input_names=names_in, output_names=names_out,
                          dynamic_axes=axes, opset_version=17,
                          do_constant_folding=True)
    print(path, sum(p.numel() for p in model.parameters()), "parameters")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or ["llama_15m", "qwen_like"]:
        export(name, out)


if __name__ == "__main__":
    main()
