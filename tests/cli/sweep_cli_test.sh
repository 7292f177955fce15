#!/bin/sh
# sweep_cli_test.sh APP TRAIN SCRATCH: `traindeck --sweep` without a display, killed mid-sweep
# (SIGKILL: no goodbye) and taken up again with --attach: every trial ends once, none is lost,
# none runs twice; --sweep-status prints a JSON line per trial; the same sweep.yaml again
# continues the same sweep folder and starts nothing; a sweep.yaml with a mistake says where.
set -eu
app=$1 train=$2 dir=$3
rm -rf "$dir"
MAX_STEPS=30 CHECKPOINT_EVERY=0 "$(dirname "$0")/make_tiny_job.sh" "$train" "$dir" >/dev/null
cd "$dir"
fail() { echo "sweep_cli_test: $*" >&2; exit 1; }
export XDG_CACHE_HOME="$dir/cache" QT_QPA_PLATFORM=offscreen
cat > sweep.yaml <<'YAML'
base: job.yaml
method: grid
parameters:
  optimizer.lr: [1e-3, 2e-3, 3e-3, 4e-3]
metric: loss
early_stopping: {method: asha, unit: steps, rungs: [10], reduction_factor: 2}
YAML
runs() { find runs -mindepth 1 -maxdepth 1 -type d ! -name sweeps | wc -l; }

setsid "$app" --sweep sweep.yaml --runs-root runs --slots 2 > first.out 2> first.err < /dev/null &
pid=$!
for _ in $(seq 600); do
  grep -q '"state":"running"' runs/sweeps/*/sweep.json 2>/dev/null && break
  sleep 0.1
done
grep -q '"state":"running"' runs/sweeps/*/sweep.json || fail "no trial running within 60 s: $(cat first.err)"
kill -9 $pid
wait $pid 2>/dev/null || true
sweep=$(head -n 1 first.out)
[ -f "$sweep/sweep.json" ] || fail "the first line, $sweep, is not the sweep folder"
[ "$(dirname "$sweep")" = "$PWD/runs/sweeps" ] || fail "the sweep folder $sweep is not under runs/sweeps"

"$app" --attach "$sweep" > attach.out 2> attach.err || fail "--attach exited $?: $(cat attach.err)"
grep -q "Sweep ended: every trial has ended" attach.err || fail "--attach did not say how it ended: $(cat attach.err)"

"$app" --sweep-status "$sweep" > status.out || fail "--sweep-status failed"
[ "$(wc -l < status.out)" -eq 4 ] || fail "--sweep-status printed $(wc -l < status.out) lines, not 4: $(cat status.out)"
[ "$(grep -c '"state":"finished"\|"state":"pruned"' status.out)" -eq 4 ] || fail "not every trial ended: $(cat status.out)"
grep -q '^{"trial":"lr=1e-3","id":"[0-9a-f]\{16\}","params":{"optimizer.lr":0.001},"state":"[a-z]*","rung":0,"metric":[0-9.e-]*,"run":"' status.out ||
  fail "a status line is not {trial, id, params, state, rung, metric, run}: $(head -n 1 status.out)"
[ "$(sed -n 's/.*"run":"\([^"]*\)".*/\1/p' status.out | sort -u | wc -l)" -eq 4 ] || fail "trials share runs: $(cat status.out)"
[ "$(runs)" -eq 4 ] || fail "$(runs) runs were made for 4 trials: $(ls runs)"

"$app" --sweep sweep.yaml --runs-root runs > again.out 2> again.err || fail "the same sweep again exited $?: $(cat again.err)"
[ "$(head -n 1 again.out)" = "$sweep" ] || fail "the same sweep.yaml made another sweep folder: $(head -n 1 again.out)"
[ "$(runs)" -eq 4 ] || fail "running the sweep again started runs: $(ls runs)"

printf 'base: job.yaml\nparameters:\n  optimizer.lr: [1e-3, -1]\n' > broken.yaml
code=0
"$app" --sweep broken.yaml --runs-root runs > broken.out 2> broken.err || code=$?
[ $code -eq 1 ] || fail "a broken sweep exited $code, not 1"
grep -q "broken.yaml:3:[0-9]*: error: .*must be greater than 0" broken.err || fail "no line:col for the broken sweep: $(cat broken.err)"
echo "sweep_cli_test: killed mid-sweep, attached again: 4 trials, each once"
