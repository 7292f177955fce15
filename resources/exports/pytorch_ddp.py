# ---- PyTorch DDP: the training script ----------------------------------------------------------
# GPT-2 (the plain-torch model above) trained data-parallel on `torch` alone, under the job's
# strategy.kind: ddp, zero1 (ZeroRedundancyOptimizer under DDP), zero2 and zero3 (FSDP2, above):
#   torchrun --standalone --nproc_per_node=N this_script.py [--run-dir DIR] [--data DIR]
#            [--val DIR] [--init-from PATH]
# One process per device: NCCL on CUDA GPUs, Gloo on CPUs; `python3 this_script.py` runs one.
# With no flags it starts from the weights traindeck-train starts from on the same config (same
# seed, same initialisation) and reads the same windows of tokens in the same order, so its
# losses follow the native trainer's. Rank 0 writes the run directory (RunWriter, above).
# From above: CONFIG, PLACE, RunWriter, SystemSampler; TokenStream, WindowLoader, command_line,
# stop_on_sigterm, total_steps, learning_rate; GPT2, batch_tensors, load_gpt2_weights,
# export_hf, adamw_groups, clip_gradients; shard_model, local_gradients, SharedLossScale,
# gather_whole_weights; and the modules json, math, os, time, torch and dist.
import contextlib
import functools
import sys
from datetime import timedelta

from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint


# ---- one rank's training ----------------------------------------------------------------------

def make_optimizer(model, optimizer, zero1):
    """AdamW as traindeck-train's (adamw_groups); zero1 shards its state across ranks with
    ZeroRedundancyOptimizer (the same update)."""
    groups, settings = adamw_groups(model, optimizer)
    if zero1:
        from torch.distributed.optim import ZeroRedundancyOptimizer
        return ZeroRedundancyOptimizer(groups, optimizer_class=torch.optim.AdamW, **settings)
    return torch.optim.AdamW(groups, **settings)


class DataParallelTrainer:
    """The model on this rank's device under the job's strategy with several ranks (DDP, or
    FSDP2 for zero2 and zero3), its optimizer and precision: step() is one optimizer step over
    `accum` micro-batches, as traindeck-train's."""

    def __init__(self, model, strategy, optimizer, device, world):
        self.model, self.device, self.world = model, device, world
        self.kind = strategy["kind"] if world > 1 else "single"
        self.sharded = self.kind in ("zero2", "zero3")
        self.zero1 = self.kind == "zero1"
        self.ddp = model
        if self.sharded:  # the model itself gathers and reduce-scatters from here on
            shard_model(model, self.kind, device, world)
        elif world > 1:
            self.ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None,
                                               bucket_cap_mb=strategy["bucket_mb"])
        self.description = {"zero1": "zero1: ZeroRedundancyOptimizer under DDP",
                            "zero2": "zero2: FSDP2, blocks kept gathered from forward to backward",
                            "zero3": "zero3: FSDP2"}.get(self.kind, "ddp" if world > 1 else "one process")
        self.optimizer = make_optimizer(model, optimizer, self.zero1)
        self.grad_clip = optimizer["grad_clip"]
        precision = strategy["precision"]
        self.autocast, self.scaler, self.shared_scale = contextlib.nullcontext, None, None
        if device.type == "cuda" and precision != "fp32":  # autocast over fp32 master weights
            dtype = torch.bfloat16 if precision == "bf16" else torch.float16
            self.autocast = functools.partial(torch.autocast, device_type="cuda", dtype=dtype)
        if device.type == "cuda" and precision == "fp16" and self.sharded:
            self.shared_scale = SharedLossScale()
        elif device.type == "cuda" and precision == "fp16":  # dynamic loss scaling from 65536
            self.scaler = (torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler")
                           else torch.cuda.amp.GradScaler())

    def step(self, batches, lr, system_due):
        """Trains on `batches` ((B, T + 1) each) at `lr`. Returns the loss (the mean over every
        rank's batches), the gradient norm before clipping, whether the step was applied (both
        finite), and whether any rank asked for system figures (rank 0 does every 5 s)."""
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.optimizer.zero_grad(set_to_none=True)
        loss_sum = torch.zeros((), device=self.device)
        for i, batch in enumerate(batches):
            batch = batch.to(self.device, non_blocking=True)
            # Only the last micro-step all-reduces gradients; earlier ones just accumulate. FSDP2
            # reduce-scatters every micro-step, as traindeck-train's zero2 and zero3 do.
            quiet = i < len(batches) - 1 and self.world > 1 and not self.sharded
            with self.ddp.no_sync() if quiet else contextlib.nullcontext():
                with self.autocast():
                    loss = self.ddp(batch[:, :-1], batch[:, 1:])
                share = loss / len(batches)
                if self.scaler:
                    share = self.scaler.scale(share)
                elif self.shared_scale:
                    share = share * self.shared_scale.scale
                share.backward()
            loss_sum += loss.detach().float() / len(batches)
        # The mean loss over ranks and the "system figures due" flag share one all-reduce.
        shared = torch.stack([loss_sum, torch.tensor(float(system_due), device=self.device)])
        if self.world > 1:
            dist.all_reduce(shared)
            shared[0] /= self.world
        if self.scaler:
            self.scaler.unscale_(self.optimizer)  # before the norm and clipping
        if self.shared_scale:
            self.shared_scale.unscale(local_gradients(self.model))
        # Under FSDP2 the norm is every rank's shards' together.
        grad_norm = clip_gradients(self.model.parameters(), self.grad_clip, dist.all_reduce if self.sharded else None)
        loss, norm = shared[0].item(), grad_norm.item()  # one wait for the device per step, to log
        applied = math.isfinite(loss) and math.isfinite(norm)
        # Every rank has the same loss and norm, so a non-finite step is skipped by all.
        if applied and self.scaler:
            self.scaler.step(self.optimizer)
        elif applied:
            self.optimizer.step()
        if self.scaler:
            self.scaler.update()  # halves the scale after an overflow, as the native loss scaler
        if self.shared_scale:
            self.shared_scale.update(applied)
        return loss, norm, applied, shared[1].item() > 0

    def evaluate(self, loader, batches):
        """Mean validation loss over `batches` micro-batches per rank, the same windows each time."""
        self.model.eval()
        loader.restart()
        total = torch.zeros((), device=self.device)
        with torch.no_grad():
            for _ in range(batches):
                batch = torch.from_numpy(loader.next_batch()).to(self.device)  # (B, T + 1)
                with self.autocast():
                    total += self.model(batch[:, :-1], batch[:, 1:]).float()
        if self.world > 1:
            dist.all_reduce(total)  # each rank read its own windows
            total /= self.world
        self.model.train()
        return total.item() / batches

    def whole_weights(self, keep):
        """The weights to export ({name: tensor}, kept where `keep`); under FSDP2 every rank must
        call this, since each weight is gathered from every rank's shard. None: the model's own."""
        return gather_whole_weights(self.model, keep) if self.sharded else None


def gather(value, world):
    """Every rank's `value`, in rank order (a list of one without distribution)."""
    if world == 1:
        return [value]
    values = [None] * world
    dist.all_gather_object(values, value)
    return values


# ---- the run -------------------------------------------------------------------------------------

def start_processes(strategy):
    """Rank, world size and device from torchrun's variables (one process without them)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank, local_rank = int(os.environ.get("RANK", "0")), int(os.environ.get("LOCAL_RANK", "0"))
    use_cuda = torch.cuda.is_available() if strategy["device"] == "auto" else strategy["device"] == "cuda"
    if use_cuda and local_rank >= torch.cuda.device_count():
        raise SystemExit("local rank %d needs CUDA device %d, but torch sees %d here; start at most that "
                         "many processes per node" % (local_rank, local_rank, torch.cuda.device_count()))
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    if world > 1:
        backend = strategy["backend"] if strategy["backend"] != "auto" else ("nccl" if use_cuda else "gloo")
        dist.init_process_group(backend, timeout=timedelta(seconds=strategy["collective_timeout_s"]))
    return rank, world, device


def main():
    args = command_line("GPT-2 with PyTorch DDP, exported by TrainDeck", init_from=True)
    stop_on_sigterm()
    m, data_cfg, strategy = args.config["model"], args.config["data"], CONFIG["strategy"]
    seed, B, T, accum = CONFIG["seed"], strategy["micro_batch"], m["block_size"], strategy["grad_accum"]
    init_from = m.get("init_from", "")
    eval_every, save_every = CONFIG["eval"]["every"], CONFIG["checkpoint"]["every"]

    rank, world, device = start_processes(strategy)
    notes = []
    if strategy["precision"] != "fp32" and device.type != "cuda":
        notes.append("precision %s is for CUDA: computing in fp32 on the CPU" % strategy["precision"])
    asked = strategy["nproc_per_node"] * strategy["nnodes"]
    if world != asked:
        notes.append("the config asks for %d ranks; running %d, so batches are cut for %d" % (asked, world, world))
    if world == 1 and strategy["kind"] in ("zero1", "zero2", "zero3"):
        notes.append("strategy.kind %s splits the model's state over ranks; with one process it trains whole"
                     % strategy["kind"])

    # Weights: the seed's initialisation on every rank, as traindeck-train's rank 0 makes it;
    # init_from is read by rank 0 only, and DDP's constructor (or shard_model) broadcasts rank 0's
    # parameters.
    torch.manual_seed(seed)
    model = GPT2(m)
    if init_from and rank == 0:
        load_gpt2_weights(model, init_from)
        notes.append("weights from " + init_from)
    if strategy["activation_checkpointing"]:
        model.recompute = functools.partial(checkpoint, use_reentrant=False)
    model.to(device)
    trainer = DataParallelTrainer(model, strategy, CONFIG["optimizer"], device, world)
    if rank > 0:  # rank 0 keeps the seed's stream for dropout; the others draw their own, as natively
        torch.manual_seed(seed + 1000003 * rank)

    stream = TokenStream(args.train_spec, "train", data_cfg["tokenizer"])
    train_data = batch_tensors(WindowLoader(stream, B, T, rank, world, seed, shift=True))
    val_data = None
    if args.val_spec and eval_every > 0:
        val_stream = TokenStream(args.val_spec, "val", data_cfg["tokenizer"])
        val_data = WindowLoader(val_stream, B, T, rank, world, seed, shift=False)

    tokens_per_step = B * T * accum * world
    steps = total_steps(tokens_per_step)
    parameters = sum(p.numel() for p in model.parameters())
    ranks = gather((str(device), os.getpid()), world)  # for run.json
    sampler = SystemSampler()
    # config.yaml records what this run used, the flags' overrides included (args.config).
    writing = RunWriter(args.run_dir, args.config, "pytorch-ddp", PLACE) if rank == 0 else contextlib.nullcontext()
    with writing as writer:
        if writer:
            writer.begin(parameters, world, [d for d, _ in ranks], tokens_per_step, steps,
                         rank_pids=[pid for _, pid in ranks])
            writer.log("%s: %d device(s) there. %s" % (PLACE["name"], PLACE["devices"], PLACE.get("note", "")))
            for note in notes:
                writer.log("note: " + note)
                writer.event("info", note)
            writer.log("training %s parameters on %d x %s for %d steps of %d tokens (%s)"
                       % (format(parameters, ","), world, device.type, steps, tokens_per_step,
                          trainer.description))
        tokens, last_print, last_system = 0, 0.0, time.monotonic()
        for step in range(1, steps + 1):
            started = time.perf_counter()
            lr = learning_rate(step - 1, steps)
            batches = [next(train_data) for _ in range(accum)]
            due = rank == 0 and time.monotonic() - last_system >= 5.0
            loss, norm, applied, system_now = trainer.step(batches, lr, due)
            tokens += tokens_per_step
            seconds = time.perf_counter() - started
            last = step == steps
            if writer:
                writer.train(step, tokens, loss, lr, norm, tokens_per_step / seconds, 1000.0 * seconds)
                if not applied:
                    writer.event("warn", "non-finite loss or gradient norm: step %d skipped" % step, step=step)
                if step == 1 or last or time.monotonic() - last_print >= 10.0:
                    writer.log("step %d/%d loss %.4f lr %.2e %.0f tokens/s"
                               % (step, steps, loss, lr, tokens_per_step / seconds))
                    last_print = time.monotonic()
            if system_now or last:  # every rank's figures, written by rank 0
                last_system = time.monotonic()
                figures = gather(dict(sampler.sample(device), device=str(device)), world)
                for r, f in enumerate(figures if writer else []):
                    writer.system(rank=r, **f)
            if val_data and (step % eval_every == 0 or last):
                val_loss = trainer.evaluate(val_data, CONFIG["eval"]["batches"])
                if writer:
                    writer.eval(step, tokens, val_loss)
                    writer.log("step %d: val loss %.6f" % (step, val_loss))
            if last or (save_every > 0 and step % save_every == 0):
                # Weights only (no optimizer state): for using the model, not for resuming.
                weights = trainer.whole_weights(keep=writer is not None)
                if writer:
                    export_hf(model, data_cfg, stream.info["end_of_text"], os.path.join(writer.run_dir, HF_EXPORT_DIR),
                              weights)
        if writer:
            writer.finish("finished", "finished %d steps" % steps, step=steps)
            writer.log("finished %d steps; weights in %s" % (steps, os.path.join(writer.run_dir, HF_EXPORT_DIR)))
    if world > 1:
        dist.barrier()  # every rank is done with every collective
        if torch.__version__.startswith("1."):
            # torch 1.x: a Gloo worker thread freeing a Python tensor waits for the GIL, which the
            # thread destroying the group holds while it joins that worker. A barrier first
            # narrows the window but does not close it (a rank hung at exit on a busy machine).
            # Everything is written and closed: leave without tearing the group down.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
