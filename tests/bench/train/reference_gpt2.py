#!/usr/bin/python3
"""Plain PyTorch GPT-2 training, the reference for bench_train.py: the same model
(pre-LayerNorm blocks, tanh GELU, tied lm_head), AdamW with decay on 2-D weights, global-norm
clipping, fp32 on the CPU, reading the same token shard. Eager by default, attention through
scaled_dot_product_attention where torch has it (2.x); --compile runs the model through
torch.compile (inductor; needs python3-dev). Prints one JSON line of figures."""
import argparse
import ctypes
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HEADER_BYTES = 64  # TrainDeck shard header (core/trainer/data/shard_format.h)


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.mlp_proj = nn.Linear(4 * n_embd, n_embd)

    def attention(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        if hasattr(F, "scaled_dot_product_attention"):  # fused, no (T, T) scores kept
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        mask = torch.ones(T, T, dtype=torch.bool).triu(1)
        att = F.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
        return self.c_proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, positions, n_layer, n_head, n_embd):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(positions, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        # GPT-2's initialisation, as the C++ trainer's: N(0, 0.02), residual projections scaled.
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif "ln_" in name:
                nn.init.ones_(p)
            elif name.endswith("c_proj.weight") or name.endswith("mlp_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * n_layer))
            else:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx, targets):
        T = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for block in self.h:
            x = block(x)
        logits = self.ln_f(x) @ self.wte.weight.t()  # tied lm_head
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


def openblas_core():
    """The OpenBLAS kernel set torch's products run on ("SkylakeX", "Prescott"), or "" for another BLAS."""
    try:  # torch loads its libraries privately; libblas.so.3, if loaded (RTLD_NOLOAD), is the one it uses
        core_name = ctypes.CDLL("libblas.so.3", mode=os.RTLD_NOLOAD).openblas_get_corename
    except (OSError, AttributeError):
        return ""
    core_name.restype = ctypes.c_char_p
    return core_name().decode()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shard", required=True)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--block", type=int, default=256)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--vocab", type=int, default=50257)
    p.add_argument("--compile", action="store_true", help="torch.compile the model (torch 2.x)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1337)
    tokens = np.memmap(a.shard, dtype=np.uint16, mode="r", offset=HEADER_BYTES)
    model = GPT(a.vocab, a.block, a.layers, a.heads, a.width)
    forward = torch.compile(model) if a.compile else model
    decay = [q for q in model.parameters() if q.dim() >= 2]
    no_decay = [q for q in model.parameters() if q.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=6e-4, betas=(0.9, 0.95), eps=1e-8)
    span = a.batch * a.block
    step_times, position = [], 0
    warmup, max_lr, min_lr = 5, 6e-4, 6e-5  # the C++ trainer's default schedule
    for step in range(a.steps):
        progress = min(1.0, max(0.0, (step - warmup) / max(1, a.steps - 1 - warmup)))
        lr = max_lr * (step + 1) / warmup if step < warmup else min_lr + 0.5 * (1 + math.cos(math.pi * progress)) * (max_lr - min_lr)
        for group in opt.param_groups:
            group["lr"] = lr
        start = time.perf_counter()
        chunk = torch.from_numpy(tokens[position:position + span + 1].astype(np.int64))
        position += span
        x, y = chunk[:-1].view(a.batch, a.block), chunk[1:].view(a.batch, a.block)
        opt.zero_grad(set_to_none=True)
        loss = forward(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        loss.item()
        step_times.append(time.perf_counter() - start)
    timed = [t * 1000 for t in step_times[2:]]
    median = sorted(timed)[len(timed) // 2]
    print(json.dumps({"tokens_per_s": span / median * 1000, "step_ms": median, "step_ms_after_warmup": timed,
                      "last_loss": loss.item(), "blas_core": openblas_core(),
                      "torch": torch.__version__, "attention": "sdpa" if hasattr(F, "scaled_dot_product_attention") else "plain"}))


if __name__ == "__main__":
    main()
