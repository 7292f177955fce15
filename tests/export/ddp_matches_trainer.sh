#!/bin/sh
# ddp_matches_trainer.sh TRAIN SCRATCH: the PyTorch DDP export against traindeck-train, like
# llm.c's reference test. Both train the same tiny job on 2 CPU ranks over Gloo from the same
# seed, under ddp and then zero1 (the export's ZeroRedundancyOptimizer); the first 20 step
# losses (and the val losses) must agree within 1e-4 relative. (zero2 and zero3 export as FSDP2,
# which needs torch 2.4: not run here.)
# TRAIN is the traindeck-train binary; SCRATCH an empty folder. PYTHON (default Debian's
# /usr/bin/python3, whose torch is 1.13 like the trainer's LibTorch) runs the export.
set -eu
train=$1 scratch=$2
python=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
steps=20

# The corpus and its prepared dataset (the job file it also writes is not used here).
sh "$here/../cli/make_tiny_job.sh" "$train" "$scratch"

# The job, as JSON: the native trainer reads it as YAML (JSON is a YAML flow mapping), the
# export gets the same object as CONFIG. Warmup then cosine, clipping active (the first
# gradient norms are about 2), two micro-steps per step and about two epochs of data in 20
# steps, so accumulation, the schedule, clipping and the epoch offsets are all exercised.
cat > "$scratch/job.json" <<JSON
{"name": "ddp export check", "seed": 1337, "runs_root": "$scratch/runs",
 "model": {"preset": "", "n_layer": 2, "n_head": 2, "n_embd": 32, "n_positions": 64, "block_size": 64,
           "vocab_size": 257, "dropout": 0.0, "init_from": ""},
 "data": {"train": "$scratch/data", "val": "", "tokenizer": "byte", "vocab": "", "merges": ""},
 "strategy": {"kind": "KIND", "device": "cpu", "nproc_per_node": 2, "nnodes": 1, "backend": "gloo",
              "precision": "fp32", "micro_batch": 8, "grad_accum": 2, "activation_checkpointing": false,
              "bucket_mb": 25.0, "master_addr": "127.0.0.1", "master_port": 0,
              "rendezvous_timeout_s": 300.0, "collective_timeout_s": 600.0},
 "optimizer": {"type": "adamw", "lr": 0.002, "betas": [0.9, 0.95], "eps": 1e-08, "weight_decay": 0.1,
               "grad_clip": 1.0},
 "schedule": {"warmup_steps": 5, "decay": "cosine", "min_lr": 0.0002, "max_steps": $steps, "max_tokens": 0},
 "eval": {"every": 10, "batches": 2},
 "checkpoint": {"every": 0, "keep": 1, "resume": false}}
JSON
# One kind: the native run and the export's, each in $scratch/KIND, compared step by step.
check() {
  kind=$1 dir=$scratch/$1
  echo "== $kind"
  mkdir -p "$dir"
  sed "s/\"KIND\"/\"$kind\"/" "$scratch/job.json" > "$dir/job.yaml"

  # The export, as `traindeck-train export-notebook` writes it for a machine of one's own (vm:
  # the config's 2 ranks): it must compile and pass pyflakes before it trains.
  "$train" export-notebook --config "$dir/job.yaml" --framework pytorch-ddp --place vm --out "$dir/exported" \
    > "$dir/exported.out" || { echo "FAIL: export-notebook failed" >&2; exit 1; }
  script=$dir/exported/train_pytorch_ddp.py
  "$python" -m py_compile "$script"
  if "$python" -c 'import pyflakes' 2>/dev/null; then "$python" -m pyflakes "$script"; fi

  timeout 300 "$train" run --config "$dir/job.yaml" --run-dir "$dir/native" > "$dir/native.out" 2>&1 ||
    { cat "$dir/native.out"; echo "FAIL: traindeck-train run failed" >&2; exit 1; }
  rm -rf "$dir/export"  # what is checked below, its exports/ too, is this run's

  # Two ranks, one thread each, as the native supervisor gives them on this 2-core machine.
  # --redirects/--tee 2: torch 1.13's launcher under Python 3.11 cannot parse their default "0"
  # (Std.from_str returns None: a Flag's iteration skips its 0 member), so it fails before
  # starting any rank; 2 sends each rank's stderr to a file under --log_dir and to the console.
  port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  if "$python" -c 'import torch.distributed as d; d.TCPStore("127.0.0.1", 0, 1, True)' 2>/dev/null; then
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} timeout 300 "$python" -m torch.distributed.run --standalone --nproc_per_node 2 \
      --redirects 2 --tee 2 --log_dir "$dir/torchrun-logs" \
      "$script" --run-dir "$dir/export" > "$dir/export.out" 2>&1 ||
      { cat "$dir/export.out"; echo "FAIL: the DDP export failed" >&2; exit 1; }
  else
    # Debian 13's torch 2.6 is built without libuv, and torchrun's own store asks for it whatever
    # USE_LIBUV says: the two ranks are started here with the variables torchrun gives them, and
    # the script's rendezvous honours USE_LIBUV=0.
    echo "this torch has no libuv, which torchrun's store needs: starting the ranks with torchrun's variables"
    for rank in 0 1; do
      USE_LIBUV=0 RANK=$rank LOCAL_RANK=$rank WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
        MASTER_PORT=$port OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} timeout 300 "$python" "$script" \
        --run-dir "$dir/export" > "$dir/export-$rank.out" 2>&1 &
      eval "pid_$rank=\$!"
    done
    for rank in 0 1; do
      eval "wait \$pid_$rank" || { cat "$dir/export-$rank.out"; echo "FAIL: rank $rank of the DDP export failed" >&2; exit 1; }
    done
  fi

  "$python" - "$dir/native" "$dir/export" "$steps" <<'PY'
import json, os, sys

def records(run):
    train, val = {}, {}
    with open(run + "/metrics.jsonl") as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] == "train":
                train[r["step"]] = r["loss"]
            elif r["kind"] == "eval":
                val[r["step"]] = r["val_loss"]
    return train, val

native_dir, export_dir, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
(native, native_val), (export, export_val) = records(native_dir), records(export_dir)
worst, failed = 0.0, False
print("step  traindeck-train     pytorch-ddp export  rel. diff")
for step in range(1, steps + 1):
    if step not in native or step not in export:
        print("%4d  missing in %s" % (step, "traindeck-train" if step not in native else "the export"))
        failed = True
        continue
    diff = abs(export[step] - native[step]) / abs(native[step])
    worst = max(worst, diff)
    print("%4d  %.9f  %.9f  %.2e" % (step, native[step], export[step], diff))
for step in sorted(native_val):
    if step in export_val:
        diff = abs(export_val[step] - native_val[step]) / abs(native_val[step])
        worst = max(worst, diff)
        print("val %2d  %.9f  %.9f  %.2e" % (step, native_val[step], export_val[step], diff))
    else:
        print("val %2d  missing in the export" % step)
        failed = True
# Its weights in Hugging Face's layout, where a run folder keeps exports (core/runlog/run_paths.h).
for name in ("config.json", "model.safetensors"):
    if not os.path.isfile(os.path.join(export_dir, "exports", "newest-hf", name)):
        print("the export wrote no exports/newest-hf/%s" % name)
        failed = True
status = json.load(open(export_dir + "/run.json"))["status"]
if status != "finished":
    print("the export's run.json says %s, not finished" % status)
    failed = True
print("max relative difference %.2e (limit 1e-4)" % worst)
sys.exit(1 if failed or worst > 1e-4 else 0)
PY
  if [ "$kind" = zero1 ]; then  # and it trained under the kind, not as plain ddp
    grep -rqs "zero1: ZeroRedundancyOptimizer" "$dir/export" ||
      { echo "FAIL: the zero1 export did not say it trains with ZeroRedundancyOptimizer" >&2; exit 1; }
  fi
}

check ddp
check zero1
