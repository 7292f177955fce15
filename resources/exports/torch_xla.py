# ---- PyTorch/XLA on TPU: the training script -------------------------------------------------
# GPT-2 (the plain-torch model above) trained data-parallel on every TPU chip of this machine
# with PyTorch/XLA 2.9's current API: torch_xla.launch starts one process per chip,
# torch_xla.device() is its chip, pl.MpDeviceLoader feeds it, xm.optimizer_step all-reduces the
# gradients and steps, torch_xla.sync() ends each step's graph, and metrics are read in step
# closures (xm.add_step_closure), so logging never makes XLA execute anything extra.
#
# Generated from the documented API, not run by our tests: TrainDeck's test machines have no
# TPU and Debian has no torch_xla. PyTorch/XLA 2.9 is the last release (TorchTPU, a native
# PyTorch backend for TPUs, is to replace it); xm.xla_device() and xm.mark_step() are deprecated
# there. Both TPU images carry torch_xla (Colab 2.9, Kaggle 2.8 with its own libtpu): the
# notebook installs nothing over them, since another release would break the import.
#
# Plain torch rather than transformers' GPT2LMHeadModel, on purpose: the parameters are created
# and initialised in the native trainer's order (the same seed gives the same starting weights),
# the graph has fixed shapes and no attention-mask or cache branches that make XLA recompile,
# and nothing depends on which transformers release the runtime carries.
#
# Run: python3 THIS.py [--run-dir DIR] [--data DIR] [--val DIR] [--init-from PATH]. The run
# folder is what TrainDeck's app opens; the newest weights are kept in its exports/newest-hf/ in the
# Hugging Face layout.
#
# From above: CONFIG, PLACE, RunWriter; TokenStream, WindowLoader, command_line,
# stop_on_sigterm, total_steps, learning_rate; GPT2, batch_tensors, load_gpt2_weights,
# export_hf, adamw_groups, clip_gradients; and the modules json, math, os, time and torch.
import contextlib
import sys

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch_xla.utils.checkpoint import checkpoint as xla_checkpoint

FRAMEWORK = "torch-xla"
LOG_SECONDS = 1.0      # train records are read back about once a second, as traindeck-train does
SYSTEM_SECONDS = 5.0   # and system records every 5 s
PROGRESS_SECONDS = 10.0


# ---- the optimizer ------------------------------------------------------------------------------

class ClippedAdamW(torch.optim.AdamW):
    """AdamW whose step() first clips the global gradient norm (clip_gradients). xm.optimizer_step
    all-reduces the gradients and then calls step(), so the clip sees the gradient every replica
    shares, as traindeck-train clips. The norm stays on the device."""

    def __init__(self, groups, clip, **settings):
        super().__init__(groups, **settings)
        self.clip = clip
        self.grad_norm = None

    def step(self, closure=None):
        self.grad_norm = clip_gradients([p for g in self.param_groups for p in g["params"]], self.clip)
        return super().step(closure)


# ---- metrics through step closures --------------------------------------------------------------

class StepLog:
    """Keeps each step's loss and gradient norm on the device; about once a second it queues one
    step closure that reads them all. The closure runs at the next torch_xla.sync(), once that
    graph has run, so reading the values costs a copy, not another execution."""

    def __init__(self, writer, tokens_per_step, total):
        self.writer, self.tokens_per_step, self.total = writer, tokens_per_step, total
        self.pending = []
        self.queued_at = self.written_at = self.progress_at = time.monotonic()
        self.last_loss = float("nan")

    def add(self, step, lr, loss, grad_norm):
        if self.writer is not None:
            self.pending.append((step, lr, loss, grad_norm))

    def queue(self, force=False):
        if not self.pending or (not force and time.monotonic() - self.queued_at < LOG_SECONDS):
            return
        self.queued_at = time.monotonic()
        steps, self.pending = self.pending, []
        xm.add_step_closure(self._write, args=(steps,))

    def _write(self, steps):
        values = [(step, lr, loss.item(), norm.item()) for step, lr, loss, norm in steps]
        now = time.monotonic()
        step_ms = 1000.0 * (now - self.written_at) / len(values)
        self.written_at = now
        tokens_per_s = self.tokens_per_step / (step_ms / 1000.0) if step_ms > 0 else 0.0
        for step, lr, loss, norm in values:
            self.writer.train(step, step * self.tokens_per_step, loss, lr, norm, tokens_per_s, step_ms)
        step, lr, self.last_loss = values[-1][0], values[-1][1], values[-1][2]
        if now - self.progress_at >= PROGRESS_SECONDS or step == self.total:
            self.progress_at = now
            self.writer.log("step %d/%s loss %.4f lr %.3g %.0f tokens/s"
                            % (step, self.total or "?", self.last_loss, lr, tokens_per_s))

    def eval(self, step, val_loss):
        if self.writer is not None:
            xm.add_step_closure(lambda s, v: self.writer.eval(s, s * self.tokens_per_step, v.item()),
                                args=(step, val_loss))


def memory_figures(device):
    """This chip's memory in use and its size, from PJRT (names differ between releases)."""
    info = xm.get_memory_info(device)
    if "bytes_used" in info:
        return {"mem_used": int(info["bytes_used"]), "mem_total": int(info.get("bytes_limit", 0))}
    return {"mem_used": 1024 * (int(info["kb_total"]) - int(info["kb_free"])), "mem_total": 1024 * int(info["kb_total"])}


# ---- one process per TPU chip -------------------------------------------------------------------

def train_process(index, run_dir, config, train_spec, val_spec):
    """One chip's process; `config` is CONFIG as the flags change it (command_line)."""
    stop_on_sigterm()
    device = torch_xla.device()
    rank, world = xr.global_ordinal(), xr.world_size()
    with RunWriter(run_dir, config, FRAMEWORK, PLACE) if rank == 0 else contextlib.nullcontext() as writer:
        train(writer, device, rank, world, config, train_spec, val_spec)


def train(writer, device, rank, world, config, train_spec, val_spec):
    m, st, o = config["model"], CONFIG["strategy"], CONFIG["optimizer"]
    B, T, accum = st["micro_batch"], m["block_size"], st["grad_accum"]
    tokens_per_step = B * T * accum * world
    total = total_steps(tokens_per_step)
    say = writer.log if writer is not None else (lambda line: None)
    try:
        kind = xm.xla_device_kind(device)
    except Exception:
        kind = xr.device_type() or "XLA"
    say("PyTorch/XLA %s: %d process(es), one per %s chip; this place (%s) has %d" %
        (torch_xla.__version__, world, kind, PLACE["name"], PLACE["devices"]))
    if writer is not None:
        say("run folder: %s" % writer.run_dir)
        if world != PLACE["devices"]:
            writer.event("warn", "%s should have %d TPU chips; the runtime has %d, so training uses %d"
                         % (PLACE["name"], PLACE["devices"], world, world))
        if st.get("kind") == "zero1":
            writer.event("info", "strategy zero1 runs as plain data parallelism here (every chip holds AdamW's state)")
        if CONFIG["checkpoint"].get("resume"):
            writer.event("warn", "checkpoint.resume is not supported by this export: training starts from step 0")

    tokenizer = config["data"].get("tokenizer", "")
    train_stream = TokenStream(train_spec, "train", tokenizer)
    train_windows = WindowLoader(train_stream, B, T, rank, world, CONFIG["seed"], shift=True)
    val_windows = None
    if val_spec and CONFIG["eval"]["every"] > 0:
        val_windows = WindowLoader(TokenStream(val_spec, "val", tokenizer), B, T, rank, world, CONFIG["seed"],
                                   shift=False)

    # Weights are made on the CPU from the seed, in the native trainer's order, then moved: every
    # process makes the same ones, so no broadcast is needed.
    torch.manual_seed(CONFIG["seed"])
    model = GPT2(m)
    if st.get("activation_checkpointing", False):
        model.recompute = xla_checkpoint
    if m.get("init_from"):
        load_gpt2_weights(model, m["init_from"])
        say("weights from %s" % m["init_from"])
    model.to(device)
    torch_xla.manual_seed(CONFIG["seed"] + 1000003 * rank)  # dropout masks differ between chips
    parameters = sum(p.numel() for p in model.parameters())
    groups, settings = adamw_groups(model, o)
    optimizer = ClippedAdamW(groups, clip=o.get("grad_clip", 1.0), **settings)
    precision = st.get("precision", "fp32")
    bf16 = precision in ("bf16", "fp16")
    if precision == "fp16":
        say("TPUs compute in bf16, not fp16: autocast uses bf16")

    if writer is not None:
        writer.begin(parameters, world, ["tpu:%d" % r for r in range(world)], tokens_per_step, total)
        say("training %d parameters on %d chip(s) for %s steps of %d tokens; the first step compiles "
            "(minutes), later ones reuse the graph" % (parameters, world, total or "unlimited", tokens_per_step))
    log = StepLog(writer, tokens_per_step, total)
    batches = iter(pl.MpDeviceLoader(batch_tensors(train_windows), device))
    system_at = time.monotonic()
    every, save_every = CONFIG["eval"]["every"], CONFIG["checkpoint"]["every"]

    step = 0
    model.train()
    while total == 0 or step < total:
        lr = learning_rate(step, total)
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.zero_grad(set_to_none=True)
        loss_sum = None
        for _ in range(accum):
            batch = next(batches)  # (B, T+1), already on this chip
            with torch.autocast("xla", dtype=torch.bfloat16, enabled=bf16):
                loss = model(batch[:, :-1], batch[:, 1:])
            (loss / accum).backward()
            share = loss.detach() / accum
            loss_sum = share if loss_sum is None else loss_sum + share
        if world > 1:
            loss_sum = xm.all_reduce(xm.REDUCE_SUM, loss_sum, scale=1.0 / world)
        xm.optimizer_step(optimizer)
        step += 1
        last = step == total
        log.add(step, lr, loss_sum, optimizer.grad_norm)
        eval_now = val_windows is not None and (step % every == 0 or last)
        save_now = last or (save_every > 0 and step % save_every == 0)
        log.queue(force=eval_now or save_now)
        torch_xla.sync()  # this step's graph runs; the closures queued above read its values
        if eval_now:
            evaluate(model, val_windows, device, world, bf16, step, log)
        if save_now and writer is not None:
            folder = os.path.join(writer.run_dir, HF_EXPORT_DIR)
            export_hf(model, config["data"], train_stream.info["end_of_text"], folder)
        if writer is not None and time.monotonic() - system_at >= SYSTEM_SECONDS:
            system_at = time.monotonic()
            writer.system(rank, "tpu:%d" % rank, **memory_figures(device))
    log.queue(force=True)
    torch_xla.sync()
    if writer is not None:
        writer.system(rank, "tpu:%d" % rank, **memory_figures(device))
        writer.finish("finished", "finished %d steps" % step, step=step)


def evaluate(model, windows, device, world, bf16, step, log):
    """eval.batches micro-batches per chip, the same first windows every time, averaged over
    the chips: the figure traindeck-train writes as val_loss."""
    model.eval()
    windows.restart()
    batches = CONFIG["eval"]["batches"]
    total = torch.zeros((), device=device)
    with torch.no_grad():
        for _ in range(batches):
            batch = torch.from_numpy(windows.next_batch()).to(device)  # (B, T+1)
            with torch.autocast("xla", dtype=torch.bfloat16, enabled=bf16):
                total = total + model(batch[:, :-1], batch[:, 1:])
            torch_xla.sync()  # one small graph per batch, the same each time
    if world > 1:
        total = xm.all_reduce(xm.REDUCE_SUM, total, scale=1.0 / world)
    log.eval(step, total / batches)
    torch_xla.sync()
    model.train()


def main():
    args = command_line("Train the exported TrainDeck job with PyTorch/XLA on TPU.", init_from=True)
    print("TrainDeck export: PyTorch/XLA on %s, %d TPU chip(s) there: %s"
          % (PLACE["name"], PLACE["devices"], PLACE.get("note", "")), flush=True)
    if xr.device_type() not in (None, "TPU"):
        print("note: PJRT_DEVICE is %s, not TPU" % xr.device_type(), file=sys.stderr)
    # One process per chip; the run folder is made by process 0, inside it.
    torch_xla.launch(train_process, args=(args.run_dir, args.config, args.train_spec, args.val_spec))


if __name__ == "__main__":
    main()
