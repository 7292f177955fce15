# ---- PyTorch: the job's zero2 and zero3 over several ranks ---------------------------------------
# FSDP2's fully_shard (torch 2.4 and newer; public as torch.distributed.fsdp.fully_shard since
# 2.6) splits every weight, its gradient and AdamW's moments over the ranks: one unit per block,
# and the embeddings with the final LayerNorm (wte, tied to the output layer) in the root unit,
# as torchtitan wraps a model and as traindeck-train's zero3 groups them. zero3 frees a block's
# gathered weights after its forward and gathers them again for its backward; zero2 keeps them
# from the forward to the backward (reshard_after_forward=False): one gather less, more memory.
# Each rank holds only its shard of the gradients, so the norm and fp16's loss scale are decided
# from every rank's shards together, and every rank skips or applies the same steps.
# From above: torch (the run writer) and GPT2 (its blocks are model.transformer.h).
import torch.distributed as dist


def fully_shard_api():
    """FSDP2's fully_shard, or None where this torch is older than 2.4."""
    try:
        from torch.distributed.fsdp import fully_shard  # torch 2.6 and newer
        return fully_shard
    except ImportError:
        pass
    try:
        from torch.distributed._composable.fsdp import fully_shard  # torch 2.4 and 2.5
        return fully_shard
    except ImportError:
        return None


def shard_model(model, kind, device, world):
    """Rank 0's weights on every rank (it alone read model.init_from), then each block and the
    root sharded over the `world` ranks. Make the optimizer afterwards: it updates the shards."""
    fully_shard = fully_shard_api()
    if fully_shard is None:
        raise SystemExit("strategy.kind %s trains with FSDP2's fully_shard, which torch %s lacks (torch 2.4 and "
                         "newer have it, as Colab's and Kaggle's images do): use a newer torch, or export the job "
                         "with strategy.kind: zero1 or ddp where the plan says it fits" % (kind, torch.__version__))
    from torch.distributed.device_mesh import init_device_mesh
    with torch.no_grad():
        for p in model.parameters():
            dist.broadcast(p, 0)
    mesh = init_device_mesh(device.type, (world,))
    for block in model.transformer.h:
        fully_shard(block, mesh=mesh, reshard_after_forward=kind == "zero3")
    fully_shard(model, mesh=mesh, reshard_after_forward=kind == "zero3")


def local_gradients(model):
    """This rank's shard of every gradient, as plain tensors that share the gradients' storage."""
    return [p.grad.to_local() if hasattr(p.grad, "to_local") else p.grad
            for p in model.parameters() if p.grad is not None]


class SharedLossScale:
    """fp16's dynamic loss scale as traindeck-train's: from 65536, halved on a skipped step and
    doubled after 2000 applied ones. Driven by whether the step was applied, which every rank
    knows alike, so the ranks keep one scale (torch's GradScaler would judge by its own shard)."""

    def __init__(self):
        self.scale, self.finite_steps = 65536.0, 0

    @torch.no_grad()
    def unscale(self, grads):
        for g in grads:
            g.mul_(1.0 / self.scale)

    def update(self, applied):
        self.finite_steps = self.finite_steps + 1 if applied else 0
        if not applied:
            self.scale /= 2.0
        elif self.finite_steps == 2000:
            self.scale, self.finite_steps = self.scale * 2.0, 0


def gather_whole_weights(model, keep):
    """{name: whole weight on the CPU} of a sharded model, for the Hugging Face export: every rank
    takes part in each gather, one weight at a time; only where `keep` (rank 0) are they kept."""
    weights = {}
    with torch.no_grad():
        for name, p in model.named_parameters():
            whole = p.full_tensor() if hasattr(p, "full_tensor") else p
            if keep:
                weights[name] = whole.detach().cpu()
    return weights
