#!/usr/bin/python3
"""Two builds of traindeck-train on the bench job of bench_train.py, rounds alternating, so that
a shared machine's drift slows both alike: for example Debian 12's LibTorch 1.13 build against
Debian 13's 2.6 build run inside the root (tests/platform/debian13.sh). Each TRAINER is a command
line (split like a shell would); scratch files live in the checkout's build-bench/ so that a
command run inside the Debian 13 root sees them too.

  bench_two_trainers.py "build/bin/traindeck-train" \
      "tests/platform/debian13.sh build-debian13/bin/traindeck-train" [--rounds R] [--steps N]"""
import argparse
import json
import pathlib
import shlex
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))
from bench_train import CONFIG, prepare_bench_data  # noqa: E402  the job of the comparison with PyTorch


def version(trainer):
    out = subprocess.run([*trainer, "--version"], capture_output=True, text=True, cwd=REPO).stdout
    return next((line for line in out.splitlines() if line.startswith("LibTorch")), "?")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()
    trainers = [shlex.split(args.a), shlex.split(args.b)]
    scratch = REPO / "build-bench"
    gpt2, data = prepare_bench_data(trainers[0], scratch)
    (scratch / "job.yaml").write_text(CONFIG.format(data=data, gpt2=gpt2, steps=args.steps))
    steps = [[], []]
    for _ in range(args.rounds):
        for i, trainer in enumerate(trainers):
            run = scratch / f"run-{i}"
            subprocess.run(["rm", "-rf", str(run)], check=True)
            done = subprocess.run([*trainer, "run", "--config", str(scratch / "job.yaml"), "--run-dir", str(run),
                                   "--no-progress"], capture_output=True, text=True, cwd=REPO)
            if done.returncode != 0:
                sys.exit(f"bench_two_trainers: {' '.join(trainer)} failed:\n{done.stdout}{done.stderr}")
            records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
            steps[i] += [r["step_ms"] for r in records if r["kind"] == "train" and r["step"] > 2]
    medians = [statistics.median(s) for s in steps]
    print(f"bench job (bench_train.py), {args.rounds} alternating rounds of {args.steps} steps, medians of steps 3 on")
    for trainer, ms in zip(trainers, medians):
        print(f"  {8 * 256 / ms * 1000:7.0f} tokens/s  {ms:7.1f} ms/step  {version(trainer)}")
    print(f"second / first: {medians[0] / medians[1]:.2f}x the tokens/s")


if __name__ == "__main__":
    main()
