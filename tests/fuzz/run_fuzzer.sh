#!/bin/sh
# run_fuzzer.sh FUZZER SECONDS SCRATCH_DIR SEED_DIR: fuzz for SECONDS, new inputs to SCRATCH_DIR.
# A fixed seed (FUZZ_SEED, default 1) keeps CI reproducible; set another to explore further.
set -eu
fuzzer=$1 seconds=$2 scratch=$3 seeds=$4
mkdir -p "$scratch"
exec "$fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
  -print_final_stats=1 -artifact_prefix="$scratch/" "$scratch" "$seeds"
