# ---- GPT-2 in plain torch: what the PyTorch DDP and PyTorch/XLA exports share -----------------
# The model with Hugging Face's parameter names and layouts (GPT2LMHeadModel's: Conv1D weights
# stored (in, out), the output layer tied to the token embedding), made and initialised in
# traindeck-train's order so that the same seed gives the same starting weights; a small
# safetensors reader and writer (no package needed) for model.init_from and the exports/ folder
# in the Hugging Face layout; AdamW's parameter groups and the gradient clip as the native
# trainer has them.
# torch comes from the run writer above (None where it is not installed); so do json and os,
# and struct and the token loader come from the data part above.
import ctypes
import shutil

if torch is None:
    raise SystemExit("this script trains with PyTorch, which is not installed here: pip install torch")

import torch.nn as nn
import torch.nn.functional as F

try:  # only for model.init_from given as a Hugging Face model name ("gpt2")
    from huggingface_hub import hf_hub_download
except ImportError:
    hf_hub_download = None


# ---- the model ------------------------------------------------------------------------------------

class Conv1D(nn.Module):
    """y = x·W + b with W stored (in, out), as GPT-2's Conv1D, so HF weights load unchanged."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))  # filled by GPT2.init_weights
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):  # (..., in) -> (..., out)
        out = torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight)
        return out.view(*x.shape[:-1], self.weight.size(1))


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        self.c_attn = Conv1D(n_embd, 3 * n_embd)
        self.c_proj = Conv1D(n_embd, n_embd)
        self.n_head, self.dropout = n_head, dropout

    def forward(self, x):  # (B, T, C) -> (B, T, C)
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, H, T, hs)
                   for t in self.c_attn(x).split(C, dim=2))
        p = self.dropout if self.training else 0.0
        if hasattr(F, "scaled_dot_product_attention"):  # torch 2: fused, no (T, T) scores kept
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        else:
            scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))  # (B, H, T, T)
            future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
            weights = F.dropout(scores.masked_fill(future, float("-inf")).softmax(-1), p, self.training)
            y = torch.matmul(weights, v)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return F.dropout(self.c_proj(y), self.dropout, self.training)


class MLP(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.c_fc = Conv1D(n_embd, 4 * n_embd)
        self.c_proj = Conv1D(4 * n_embd, n_embd)
        self.dropout = dropout

    def forward(self, x):  # (B, T, C) -> (B, T, C)
        h = F.gelu(self.c_fc(x), approximate="tanh")  # (B, T, 4C): GPT-2's gelu_new
        return F.dropout(self.c_proj(h), self.dropout, self.training)


class Block(nn.Module):
    def __init__(self, n_embd, n_head, dropout):
        super().__init__()
        # Registration order is parameter order, which init_weights' draws follow.
        self.ln_1 = nn.LayerNorm(n_embd, eps=1e-5)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd, eps=1e-5)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(nn.Module):
    """GPT2LMHeadModel's names: transformer.wte.weight, transformer.h.0.attn.c_attn.weight, ...
    The output layer is the token embedding (tied), so it has no parameter of its own. `cfg` is
    the config's model section. `recompute`, when set to a checkpoint function (torch's or
    torch_xla's), recomputes each block in backward instead of keeping its activations."""

    def __init__(self, cfg):
        super().__init__()
        n_embd, dropout = cfg["n_embd"], cfg["dropout"]
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(cfg["vocab_size"], n_embd),
            wpe=nn.Embedding(cfg["n_positions"], n_embd),
            h=nn.ModuleList(Block(n_embd, cfg["n_head"], dropout) for _ in range(cfg["n_layer"])),
            ln_f=nn.LayerNorm(n_embd, eps=1e-5),
        ))
        self.cfg, self.dropout, self.recompute = cfg, dropout, None
        self.init_weights()

    @torch.no_grad()
    def init_weights(self):
        """GPT-2's initialisation, drawn as traindeck-train draws it: from the global generator,
        in parameter order, N(0, 0.02) for weights and embeddings, N(0, 0.02/sqrt(2·n_layer)) for
        the residual projections (c_proj), zero biases, unit LayerNorms. The Embedding
        constructors already drew N(0, 1) for wte and wpe, as LibTorch's do; those draws are
        part of the match."""
        residual_std = 0.02 / math.sqrt(2.0 * self.cfg["n_layer"])
        for name, p in self.named_parameters():
            if name.endswith(".bias"):
                p.zero_()
            elif ".ln_" in name:
                p.fill_(1.0)
            elif name.endswith("c_proj.weight"):
                p.normal_(0.0, residual_std)
            else:
                p.normal_(0.0, 0.02)

    def forward(self, idx, targets=None):  # idx, targets: (B, T) token ids
        t = self.transformer
        positions = torch.arange(idx.size(1), device=idx.device)
        x = F.dropout(t.wte(idx) + t.wpe(positions), self.dropout, self.training)  # (B, T, C)
        for block in t.h:
            if self.recompute is not None and self.training and torch.is_grad_enabled():
                x = self.recompute(block, x)
            else:
                x = block(x)
        logits = torch.matmul(t.ln_f(x), t.wte.weight.t())  # (B, T, V)
        if targets is None:
            return logits
        return F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.reshape(-1))


def batch_tensors(loader):
    """A WindowLoader's batches as torch tensors, endlessly: (B, T + 1) int64 each."""
    while True:
        yield torch.from_numpy(loader.next_batch())


# ---- Hugging Face weights: a small safetensors reader and writer ------------------------------

SAFETENSORS_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
                      "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
                      "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


def read_safetensors(path):
    """{name: tensor} from a .safetensors file: an 8-byte little-endian header length, a JSON
    header with each tensor's dtype, shape and byte range, then the bytes."""
    tensors = {}
    with open(path, "rb") as f:
        (header_bytes,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_bytes))
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            begin, end = entry["data_offsets"]
            dtype = SAFETENSORS_DTYPES[entry["dtype"]]
            f.seek(8 + header_bytes + begin)
            data = bytearray(f.read(end - begin))
            flat = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            tensors[name] = flat.reshape(entry["shape"])
    return tensors


def write_safetensors(path, tensors):
    """Tensors (on any device) to an F32 .safetensors file, written to a temporary file and
    renamed over `path`, so a reader never sees half of one."""
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        t = tensor.detach().to("cpu", torch.float32).contiguous()
        size = t.numel() * t.element_size()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + size]}
        blobs.append((t, size))
        offset += size
    text = json.dumps(header, separators=(",", ":"))
    text += " " * (-len(text) % 8)  # the data starts 8-byte aligned
    temp = path + ".tmp"
    with open(temp, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text.encode())
        for t, size in blobs:
            if size:
                out.write(ctypes.string_at(t.data_ptr(), size))
    os.replace(temp, path)


def load_gpt2_weights(model, source):
    """Weights from a Hugging Face GPT-2: a model.safetensors, its folder, or (with
    huggingface_hub installed) a model name such as "gpt2". Names may lack "transformer."."""
    path = expand_path(source)
    if os.path.isdir(path):
        path = os.path.join(path, "model.safetensors")
    elif not os.path.exists(path):
        if hf_hub_download is None:
            raise SystemExit("model.init_from: %s is not a file or folder here, and huggingface_hub is "
                             "not installed to fetch it by name (pip install huggingface_hub)" % source)
        path = hf_hub_download(repo_id=source, filename="model.safetensors")
    stored = read_safetensors(path)
    with torch.no_grad():
        for name, p in model.named_parameters():
            tensor = stored.get(name, stored.get(name[len("transformer."):]))
            if tensor is None:
                raise SystemExit("%s has no weight %s: is it a GPT-2 model?" % (path, name))
            if tuple(tensor.shape) != tuple(p.shape):
                raise SystemExit("%s: %s is %s there but %s in this model; set the model sizes to the "
                                 "checkpoint's" % (path, name, list(tensor.shape), list(p.shape)))
            p.copy_(tensor.to(p.dtype))


def export_hf(model, data_cfg, end_of_text, folder, weights=None):
    """The Hugging Face layout traindeck-train export writes: config.json, model.safetensors
    (F32, lm_head tied) and the tokenizer files; each file replaced whole. `weights`: the
    model's weights where its parameters hold only shards ({name: tensor}), else None."""
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"),
                      weights if weights is not None else dict(model.named_parameters()))
    n = model.cfg
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
              "vocab_size": n["vocab_size"], "n_positions": n["n_positions"], "n_ctx": n["n_positions"],
              "n_embd": n["n_embd"], "n_layer": n["n_layer"], "n_head": n["n_head"], "n_inner": None,
              "resid_pdrop": n["dropout"], "embd_pdrop": n["dropout"], "attn_pdrop": n["dropout"],
              "layer_norm_epsilon": 1e-5, "initializer_range": 0.02,
              "bos_token_id": end_of_text, "eos_token_id": end_of_text, "tie_word_embeddings": True,
              "torch_dtype": "float32"}
    temp = os.path.join(folder, "config.json.tmp")
    with open(temp, "w") as out:
        json.dump(config, out, indent=1)
    os.replace(temp, os.path.join(folder, "config.json"))
    if data_cfg["tokenizer"] == "byte":
        with open(os.path.join(folder, "traindeck_tokenizer.json"), "w") as out:
            json.dump({"type": "byte", "vocab_size": 257, "end_of_text": 256}, out)
    elif os.path.exists(data_cfg.get("vocab", "")) and os.path.exists(data_cfg.get("merges", "")):
        shutil.copyfile(data_cfg["vocab"], os.path.join(folder, "vocab.json"))
        shutil.copyfile(data_cfg["merges"], os.path.join(folder, "merges.txt"))


# ---- the optimizer, as traindeck-train's -------------------------------------------------------

def adamw_groups(model, optimizer):
    """AdamW's parameter groups and settings: decoupled weight decay on tensors of two or more
    dimensions (weights and embeddings), none on biases and LayerNorms. `optimizer` is the
    config's optimizer section; returns (groups, settings) for an AdamW constructor."""
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": optimizer["weight_decay"]},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    settings = dict(lr=optimizer["lr"], betas=tuple(optimizer.get("betas", (0.9, 0.95))),
                    eps=optimizer.get("eps", 1e-8))
    return groups, settings


def clip_gradients(parameters, max_norm, sum_over_ranks=None):
    """The global gradient norm (before clipping), left on the gradients' device; gradients are
    then scaled by max_norm / (norm + 1e-6) when that is below 1. max_norm 0: no clipping. Where
    each rank holds a shard of every gradient (FSDP2's DTensors), `sum_over_ranks` (an in-place
    all-reduce) adds up the ranks' sums of squares, and each rank scales its own shards."""
    grads = [p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad for p in parameters if p.grad is not None]
    squares = torch.zeros((), device=grads[0].device if grads else "cpu")
    for g in grads:
        squares += g.float().pow(2).sum()
    if sum_over_ranks is not None:
        sum_over_ranks(squares)
    norm = squares.sqrt()
    if max_norm > 0:
        coefficient = (max_norm / (norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coefficient)
    return norm
