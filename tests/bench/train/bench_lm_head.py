#!/usr/bin/python3
"""Where the output layer's time goes at GPT-2's vocabulary, on this machine's CPU: the three
matrix products every implementation must do (logits = x·Wᵀ, dx = P·W, dW = Pᵀ·x) beside the
elementwise passes of the softmax, for the bench_train.py model's batch (8 x 256 tokens,
256 wide). Runs on Debian's python3-torch (the same LibTorch and BLAS as traindeck-train).
Prints milliseconds (best of 3); asserts nothing. The kernels are OpenBLAS's own choice unless
OPENBLAS_CORETYPE says otherwise (traindeck-train --version names the set it runs on).

    tests/bench/train/bench_lm_head.py [--threads N]
"""
import argparse
import time

import torch

from reference_gpt2 import openblas_core


def best_ms(fn, reps=3):
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    n, c, v = 8 * 256, 256, 50257
    x, w = torch.randn(n, c), torch.randn(v, c) * 0.02
    logits = x @ w.t()
    probs = torch.softmax(logits, 1)
    scratch = logits.clone()
    gemms = {
        "logits = x·Wᵀ": lambda: x @ w.t(),
        "dx = P·W": lambda: probs @ w,
        "dW = Pᵀ·x": lambda: probs.t() @ x,
    }
    passes = {
        "row max": lambda: logits.max(1, keepdim=True),
        "subtract": lambda: scratch.sub_(0.5),
        "exp": lambda: scratch.exp_(),
        "row sum": lambda: scratch.sum(1, keepdim=True),
        "divide": lambda: scratch.div_(1.0001),
    }
    flops = 2 * n * c * v
    print(f"output layer, {n} rows x {c} wide x vocabulary {v}, {args.threads} thread(s), torch {torch.__version__}, "
          f"OpenBLAS {openblas_core()} kernels")
    total_gemm = 0.0
    for name, fn in gemms.items():
        ms = best_ms(fn)
        total_gemm += ms
        print(f"  {name:<16}{ms:8.0f} ms  {flops / ms / 1e6:6.1f} GFLOP/s")
    total_pass = 0.0
    for name, fn in passes.items():
        ms = best_ms(fn)
        total_pass += ms
        print(f"  {name:<16}{ms:8.0f} ms")
    print(f"matrix products {total_gemm:.0f} ms, elementwise passes {total_pass:.0f} ms: the products, which any "
          f"implementation must do, set the floor")


if __name__ == "__main__":
    main()
