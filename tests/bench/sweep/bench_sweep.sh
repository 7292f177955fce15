#!/bin/sh
# bench_sweep.sh BUILD_DIR [SCRATCH] [STEPS]: a 16-trial sweep of a small model on this machine
# (8 random draws of lr and n_embd, 2 seeds each), run twice by `traindeck --sweep` on 2 slots:
# every trial to the end (no early stopping), and with ASHA (rungs at 1/10 and 1/3 of the run,
# reduction factor 3). Prints each sweep's wall time, the time until its best trial had
# finished, the steps trained over all trials, and whether ASHA found the exhaustive sweep's
# best. Each rung costs a trainer start and a checkpoint save and load: with STEPS small (steps
# of milliseconds) that costs more than it saves. Figures, not a test: docs/sweeps.md has them.
set -eu
build=$(cd "$1" && pwd)
dir=${2:-/tmp/bench-sweep}
steps=${3:-300}
app=$build/bin/traindeck train=$build/bin/traindeck-train
rm -rf "$dir"
MAX_STEPS=$steps CHECKPOINT_EVERY=0 "$(dirname "$0")/../../cli/make_tiny_job.sh" "$train" "$dir" >/dev/null
cd "$dir"
sed -i 's/n_layer: 2/n_layer: 4/' job.yaml
export QT_QPA_PLATFORM=offscreen XDG_CACHE_HOME="$dir/cache"
common='base: job.yaml
method: random
seed: 3
trials: 8
parameters:
  optimizer.lr: {min: 1e-4, max: 3e-3, log: true}
  model.n_embd: [64, 128]
repeats: {seeds: [1, 2]}
metric: val_loss'
printf '%s\n' "$common" > all.yaml
printf '%s\nearly_stopping: {method: asha, unit: steps, rungs: [%d, %d], reduction_factor: 3}\n' "$common" \
  $((steps / 10)) $((steps / 3)) > asha.yaml

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
  trained=0
  for run in runs-$1/*/; do
    [ "$(basename "$run")" = sweeps ] && continue
    trained=$((trained + $(grep -c '"kind":"train"' "$run/metrics.jsonl")))
  done
  printf '%-5s  all done %6.1f s   best (%s, val_loss %s) finished at %6.1f s   %5d steps trained\n' \
    "$1" "$total" "$name" "${best%% *}" "$found" "$trained"
  echo "$name" > "$1.best"
}
echo "bench_sweep: 16 trials (8 draws of lr, n_embd x 2 seeds), $steps steps each, 2 slots, $(nproc) cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
report all
report asha
if [ "$(cat all.best)" = "$(cat asha.best)" ]; then echo "ASHA found the exhaustive sweep's best trial"; else echo "ASHA's best differs from the exhaustive sweep's"; fi
