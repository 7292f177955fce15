#!/usr/bin/env python3
"""Data parallelism on this machine: tokens/s of one rank using every core against N ranks of
one thread each (the same global batch), and how much of the gradient all-reduce the backward
pass hides. Prints figures; asserts nothing.

    tests/bench/train/bench_ddp.py [--train build/bin/traindeck-train] [--steps 24] [--rounds 2]

Each configuration runs `rounds` times, alternating, and the median over rounds of each run's
median step is reported. "exposed" (comm_ms) is the all-reduce time left after backward;
"overlapped" (comm_overlap_ms) is the time at least one all-reduce was running (launched, not
yet complete) before backward ended: the communication backward hid. With one bucket
(bucket_mb huge) nothing starts before backward ends, so the exposed columns of the two ddp
rows show what the overlap saves.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(train, scratch):
    corpus = os.path.join(scratch, "corpus.txt")
    with open(corpus, "w") as out:
        for i in range(3000):
            out.write(f"the deck trains model {i} on many devices and watches the loss fall, step by step\n%\n")
    subprocess.run([train, "prepare", "--tokenizer", "byte", "--out", os.path.join(scratch, "data"),
                    "--val-fraction", "0.05", "--doc-separator", "%", corpus], check=True, capture_output=True)


JOB = """name: bench ddp
model: {{n_layer: 4, n_head: 4, n_embd: 256, n_positions: 128, block_size: 128, vocab_size: 257}}
data: {{train: data, tokenizer: byte}}
strategy: {{kind: {kind}, device: cpu, nproc_per_node: {ranks}, micro_batch: {micro}, bucket_mb: {bucket}}}
schedule: {{warmup_steps: 2, max_steps: {steps}}}
eval: {{every: 0}}
checkpoint: {{every: 0, keep: 1}}
runs_root: runs
"""


def run(train, scratch, name, kind, ranks, micro, bucket, steps):
    job = os.path.join(scratch, name + ".yaml")
    with open(job, "w") as out:
        out.write(JOB.format(kind=kind, ranks=ranks, micro=micro, bucket=bucket, steps=steps))
    run_dir = os.path.join(scratch, name)
    shutil.rmtree(run_dir, ignore_errors=True)
    subprocess.run([train, "run", "--config", job, "--run-dir", run_dir, "--no-progress"], check=True,
                   capture_output=True, cwd=scratch)
    records = []
    with open(os.path.join(run_dir, "metrics.jsonl")) as lines:
        for line in lines:
            record = json.loads(line)
            if record.get("kind") == "train" and record["step"] > 3:  # past warm-up allocations
                records.append(record)
    return {"step_ms": statistics.median(r["step_ms"] for r in records),
            "tokens_per_s": statistics.median(r["tokens_per_s"] for r in records),
            "comm_ms": statistics.median(r.get("comm_ms", 0.0) for r in records),
            "overlap_ms": statistics.median(r.get("comm_overlap_ms", 0.0) for r in records)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", default=os.path.join(HERE, "../../../build/bin/traindeck-train"))
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=2)
    args = parser.parse_args()
    train = os.path.abspath(args.train)
    cores = os.cpu_count()
    n = args.ranks
    configs = [  # name, kind, ranks, micro-batch per rank, bucket MiB
        ("single", "single", 1, 8 * n, 25),
        ("ddp", "ddp", n, 8, 4),
        ("ddp-one-bucket", "ddp", n, 8, 4096),
        ("zero1", "zero1", n, 8, 4),
    ]
    with tempfile.TemporaryDirectory(prefix="traindeck-bench-ddp-") as scratch:
        make_data(train, scratch)
        results = {c[0]: [] for c in configs}
        for round_index in range(args.rounds):
            for name, kind, ranks, micro, bucket in configs:
                results[name].append(run(train, scratch, name, kind, ranks, micro, bucket, args.steps))
                print(f"round {round_index + 1} {name}: {results[name][-1]}", file=sys.stderr)
    print(f"machine: {cores} cores; model 4 layers x 256 wide (3.2M parameters), block 128, "
          f"global batch {8 * n} sequences; {args.steps} steps x {args.rounds} rounds, medians")
    base = statistics.median(r["tokens_per_s"] for r in results["single"])
    print(f"{'config':<16}{'ranks':>6}{'step ms':>10}{'tokens/s':>10}{'(min-max)':>14}{'vs single':>11}"
          f"{'exposed comm':>16}{'overlapped':>12}")
    for name, kind, ranks, micro, bucket in configs:
        step = statistics.median(r["step_ms"] for r in results[name])
        each = [r["tokens_per_s"] for r in results[name]]
        tps = statistics.median(each)
        comm = statistics.median(r["comm_ms"] for r in results[name])
        overlap = statistics.median(r["overlap_ms"] for r in results[name])
        share = f"{comm:.1f} ms {100 * comm / step:4.1f}%" if ranks > 1 else "-"
        overlapped = f"{overlap:.0f} ms" if ranks > 1 else "-"
        spread = f"{min(each):.0f}-{max(each):.0f}"
        print(f"{name:<16}{ranks:>6}{step:>10.1f}{tps:>10.0f}{spread:>14}{tps / base:>10.2f}x{share:>16}"
              f"{overlapped:>12}")


if __name__ == "__main__":
    main()
