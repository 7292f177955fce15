#!/bin/sh
# run_fuzzer.sh FUZZER SECONDS SCRATCH_DIR SEED_DIR: fuzz for SECONDS, new inputs to SCRATCH_DIR.
# A fixed seed (FUZZ_SEED, default 1) keeps a run repeatable on one machine; set another to
# explore further. The fuzzer's chatter goes to SCRATCH_DIR/fuzz.log; on a finding this prints
# libFuzzer's report and the input that caused it, so that a CI log shows the bug, not the noise.
set -eu
fuzzer=$1 seconds=$2 scratch=$3 seeds=$4
mkdir -p "$scratch/found"
log=$scratch/fuzz.log
status=0
"$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -max_len=8192 \
  -print_final_stats=1 -artifact_prefix="$scratch/" "$scratch/found" "$seeds" >"$log" 2>&1 || status=$?
grep -E '^INFO: Seed|INITED|^Done|stat::' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "--- the fuzzer failed (exit $status); its report:"
  grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse)|NEW_FUNC' "$log" | tail -n 80
  for input in "$scratch"/crash-* "$scratch"/timeout-* "$scratch"/oom-* "$scratch"/leak-* "$scratch"/slow-unit-*; do
    [ -f "$input" ] || continue
    echo "--- the input, $input (add it to tests/fuzz/corpus once fixed):"
    head -c 2048 "$input" | od -A d -c | head -n 60
  done
fi
exit "$status"
