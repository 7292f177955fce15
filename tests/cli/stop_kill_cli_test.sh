#!/bin/sh
# stop_kill_cli_test.sh APP TRAIN SCRATCH: `traindeck --stop` and `traindeck --kill` on a run of
# this machine, as on a remote or Slurm one (remote.remote_job_runs, slurm.runs): through the
# app's own job, each follows the run to its end and says why it stopped. Stop: every rank
# checkpoints, "stopped", end_cause asked, exit 0. Kill: no checkpoint, "killed", end_cause
# asked, exit 1; the run can be resumed after both.
set -eu
app=$1 train=$2 dir=$3
rm -rf "$dir"
MAX_STEPS=100000 CHECKPOINT_EVERY=0 "$(dirname "$0")/make_tiny_job.sh" "$train" "$dir" >/dev/null
cd "$dir"
fail() { echo "stop_kill_cli_test: $*" >&2; exit 1; }
export XDG_CACHE_HOME="$dir/cache" QT_QPA_PLATFORM=offscreen

# A supervisor started as the app starts one: its own session, outliving whoever started it.
start() {
  setsid "$train" run --config job.yaml --run-dir run --no-progress $1 > "supervisor-$2.out" 2>&1 < /dev/null &
  for _ in $(seq 600); do
    [ "$(grep -c '"kind":"train"' run/metrics.jsonl 2>/dev/null || echo 0)" -gt "${3:-0}" ] && return 0
    sleep 0.1
  done
  fail "$2: no train record within 60 s: $(cat "supervisor-$2.out")"
}
field() { sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p" run/run.json; }

start "" stop
"$app" --stop run > stop.out 2> stop.err || fail "--stop exited $?: $(cat stop.err)"
[ "$(head -n 1 stop.out)" = "$PWD/run" ] || fail "--stop printed $(head -n 1 stop.out), not the run folder"
[ "$(field status)" = stopped ] || fail "after --stop: $(cat run/run.json)"
[ "$(field end_cause)" = asked ] || fail "after --stop, no end_cause asked: $(cat run/run.json)"
grep -q "stopped (asked by you)" stop.err || fail "--stop did not say why: $(cat stop.err)"
ls run/checkpoints | grep -q '^step-' || fail "--stop left no checkpoint"

trained=$(grep -c '"kind":"train"' run/metrics.jsonl)
start --resume kill "$trained"
code=0
"$app" --kill run > kill.out 2> kill.err || code=$?
[ $code -eq 1 ] || fail "--kill exited $code, not 1: $(cat kill.err)"
[ "$(field status)" = killed ] || fail "after --kill: $(cat run/run.json)"
[ "$(field end_cause)" = asked ] || fail "after --kill, no end_cause asked: $(cat run/run.json)"
grep -q "killed (asked by you)" kill.err || fail "--kill did not say why: $(cat kill.err)"
# Nothing of it runs any more: its supervisor is gone (its ranks die with it).
pid=$(sed -n 's/.*"supervisor_pid": *\([0-9]*\).*/\1/p' run/run.json)
[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null || fail "the killed run's supervisor $pid is still there"
echo "stop_kill_cli_test: --stop and --kill on this machine end and say why"
