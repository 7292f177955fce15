#!/bin/bash
# kill_checkpoint_test.sh TRAIN SCRATCH [ROUNDS]: SIGKILLs a run that checkpoints every step at
# random moments after training has started, ROUNDS times (default 20). After every kill the
# newest complete checkpoint must load (score reads its model, resume reads everything); at the
# end the run must finish.
set -u
train=$1 dir=$2 rounds=${3:-20}
rm -rf "$dir"
MAX_STEPS=400 CHECKPOINT_EVERY=1 "$(dirname "$0")/make_tiny_job.sh" "$train" "$dir"
cd "$dir" || exit 1
fail() { echo "kill_checkpoint_test: $*" >&2; exit 1; }
RANDOM=7
killed_during_write=0
for round in $(seq 1 "$rounds"); do
  resume=""; [ -d run/checkpoints ] && resume="--resume"
  touch round-start
  "$train" run --config job.yaml --run-dir run $resume --no-progress > "round-$round.out" 2>&1 &
  pid=$!
  # The random moment counts from this round's first record, not from the start: loading
  # LibTorch (twice where the trainer restarts for faster BLAS kernels) takes a varying while,
  # and a kill before training would test nothing.
  for _ in $(seq 1 600); do
    [ run/metrics.jsonl -nt round-start ] && break
    kill -0 "$pid" 2>/dev/null || fail "round $round: the run ended before training: $(tail -3 "round-$round.out")"
    sleep 0.05
  done
  [ run/metrics.jsonl -nt round-start ] || fail "round $round: no training record within 30 s"
  sleep "0.$((RANDOM % 6))$((RANDOM % 10))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if ls run/checkpoints 2>/dev/null | grep -q '\.tmp-'; then killed_during_write=$((killed_during_write + 1)); fi
  if ls run/checkpoints 2>/dev/null | grep -qx 'step-[0-9]*'; then
    "$train" score --model run --tokens "116 104 101 32 100 101 99 107" > /dev/null 2> "score-$round.err" ||
      fail "round $round: the newest complete checkpoint does not load: $(cat "score-$round.err")"
  fi
done
"$train" run --config job.yaml --run-dir run --resume --no-progress > final.out 2>&1 || fail "final resume: $(tail -3 final.out)"
grep -q '"status":"finished"' run/run.json || fail "run did not finish: $(cat run/run.json)"
grep -q '"step":400' run/run.json || fail "run did not reach step 400"
echo "kill_checkpoint_test: $rounds kills ($killed_during_write left a checkpoint half written); every newest complete checkpoint loaded; the run finished"
