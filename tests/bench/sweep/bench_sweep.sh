#!/bin/sh
# bench_sweep.sh BUILD_DIR [SCRATCH]: a 16-trial sweep of a tiny model on this machine, run twice
# by `traindeck --sweep` on 2 slots: every trial to the end (no early stopping), and with ASHA
# (rungs at 1/9 and 1/3 of the run, reduction factor 3). Prints each sweep's wall time, the time
# until the best trial had finished, the steps trained over all trials, and whether ASHA found
# the same best trial as the exhaustive sweep. Figures, not a test: docs/sweeps.md has the last.
set -eu
build=$(cd "$1" && pwd)
dir=${2:-/tmp/bench-sweep}
app=$build/bin/traindeck train=$build/bin/traindeck-train
rm -rf "$dir"
MAX_STEPS=90 CHECKPOINT_EVERY=0 "$(dirname "$0")/../../cli/make_tiny_job.sh" "$train" "$dir" >/dev/null
cd "$dir"
export QT_QPA_PLATFORM=offscreen XDG_CACHE_HOME="$dir/cache"
common='base: job.yaml
method: grid
parameters:
  optimizer.lr: [1e-4, 3e-4, 1e-3, 3e-3]
  model.n_embd: [32, 64]
repeats: {seeds: [1, 2]}
metric: val_loss'
printf '%s\n' "$common" > all.yaml
printf '%s\nearly_stopping: {method: asha, unit: steps, rungs: [10, 30], reduction_factor: 3}\n' "$common" > asha.yaml

# run NAME: the sweep, each output line with the seconds since its start; prints the folder.
run() {
  start=$(date +%s.%N)
  "$app" --sweep "$1.yaml" --runs-root "runs-$1" --slots 2 2> "$1.err" | while IFS= read -r line; do
    printf '%.1f %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$line"
  done > "$1.log"
  sed -n '1s/^[0-9.]* //p' "$1.log"
}
report() {
  sweep=$(run "$1")
  "$app" --sweep-status "$sweep" > "$1.status"
  best=$(grep '"state":"finished"' "$1.status" | sed -n 's/.*"trial":"\([^"]*\)".*"metric":\([0-9.e-]*\).*/\2 \1/p' | sort -g | head -n 1)
  name=${best#* }
  total=$(tail -n 1 "$1.log" | cut -d' ' -f1)
  found=$(grep -F "$name: finished" "$1.log" | head -n 1 | cut -d' ' -f1)
  steps=0
  for run in runs-$1/*/; do
    [ "$(basename "$run")" = sweeps ] && continue
    steps=$((steps + $(grep -c '"kind":"train"' "$run/metrics.jsonl")))
  done
  printf '%-5s  all done %6.1f s   best (%s, val_loss %s) finished at %6.1f s   %5d steps trained\n' \
    "$1" "$total" "$name" "${best%% *}" "$found" "$steps"
  echo "$name" > "$1.best"
}
echo "bench_sweep: 16 trials (lr 4 x n_embd 2 x 2 seeds), 90 steps each, 2 slots, $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
report all
report asha
if [ "$(cat all.best)" = "$(cat asha.best)" ]; then echo "ASHA found the exhaustive sweep's best trial"; else echo "ASHA's best differs from the exhaustive sweep's"; fi
