#!/bin/sh
# train_cli_test.sh TRAIN SCRATCH: the training commands end to end as a user runs them:
# prepare, run (stopped part way, then resumed), export, score from both, sample, tokenize.
set -eu
train=$1 dir=$2
rm -rf "$dir"
"$(dirname "$0")/make_tiny_job.sh" "$train" "$dir"
cd "$dir"
fail() { echo "train_cli_test: $*" >&2; exit 1; }

"$train" run --config job.yaml --run-dir run --stop-at 12 --no-progress > first.out 2>&1 || fail "first run: $(cat first.out)"
grep -q "stopped at step 12 as --stop-at asked" first.out || fail "no stop message: $(cat first.out)"
grep -q '"status":"stopped"' run/run.json || fail "run.json is not stopped: $(cat run/run.json)"
"$train" run --run-dir run --resume --no-progress > second.out 2>&1 || fail "resume: $(cat second.out)"
grep -q "resumed from .*step-00000012 at step 12" run/logs/rank-0.log || fail "no resume line in the log"
grep -q '"status":"finished"' run/run.json || fail "run.json is not finished: $(cat run/run.json)"
[ "$(grep -c '"kind":"train"' run/metrics.jsonl)" -eq 30 ] || fail "expected 30 train records"
ls run/checkpoints | grep -qx step-00000030 || fail "no final checkpoint"
[ "$(ls run/checkpoints | wc -l)" -eq 2 ] || fail "keep: 2 not honoured: $(ls run/checkpoints)"

"$train" export --checkpoint run --hf hf > export.out || fail "export failed"
[ -f hf/config.json ] && [ -f hf/model.safetensors ] || fail "export wrote no model"
ids=$(printf 'the deck trains' | "$train" tokenize --tokenizer byte)
[ "$(printf '%s' "$ids" | "$train" tokenize --tokenizer byte --decode)" = "the deck trains" ] || fail "tokenize round trip"
a=$("$train" score --model run --tokens "$ids") || fail "score run"
b=$("$train" score --model hf --tokens "$ids") || fail "score hf"
[ "$a" = "$b" ] || fail "export changed the score: $a vs $b"
echo "$a" | grep -q '"predicted":14' || fail "score output: $a"
s1=$("$train" sample --checkpoint run --prompt "the deck" --max-new-tokens 30 --seed 5)
s2=$("$train" sample --checkpoint run --prompt "the deck" --max-new-tokens 30 --seed 5)
[ "$s1" = "$s2" ] || fail "sampling with one seed differs"
case "$s1" in "the deck"*) ;; *) fail "sample does not start with the prompt: $s1" ;; esac
# SIGTERM: the step finishes, a checkpoint is saved, status stopped, exit 0.
MAX_STEPS=100000 CHECKPOINT_EVERY=0 "$(dirname "$0")/make_tiny_job.sh" "$train" term >/dev/null
(cd term && exec "$train" run --config job.yaml --run-dir run --no-progress > term.out 2>&1) &
pid=$!
started=no
for _ in $(seq 600); do grep -q '"kind":"train"' term/run/metrics.jsonl 2>/dev/null && started=yes && break; sleep 0.1; done
[ $started = yes ] || { kill -KILL "$pid"; fail "SIGTERM: no train record within 60 s: $(cat term/term.out)"; }
kill -TERM "$pid"
wait "$pid" || fail "SIGTERM: exit code $? (wanted 0): $(cat term/term.out)"
grep -q '"status":"stopped"' term/run/run.json || fail "SIGTERM: run.json is not stopped"
ls term/run/checkpoints | grep -q '^step-' || fail "SIGTERM: no checkpoint saved"
set +e
"$train" score --model run --tokens "1 x" > /dev/null 2>&1; [ $? -eq 2 ] || fail "bad token id should exit 2"
"$train" score --model nowhere --tokens "1 2" > /dev/null 2>&1; [ $? -eq 1 ] || fail "missing model should exit 1"
"$train" run --config job.yaml --run-dir multi --set strategy.nproc_per_node=2 --set strategy.kind=ddp > multi.out 2>&1 ||
  fail "two ranks: $(cat multi.out)"
set -e
grep -q '"world_size":2' multi/run.json && grep -q '"status":"finished"' multi/run.json || fail "two ranks: $(cat multi/run.json)"
grep -q "all 2 ranks arrived" multi/logs/rank-1.log || fail "rank 1 has no log of its own"
[ "$(grep -c '"kind":"system","time":[0-9.]*,"rank":1' multi/metrics.jsonl)" -ge 1 ] || fail "no system figures of rank 1"
echo "train_cli_test: prepare, run (1 and 2 ranks), stop, SIGTERM, resume, export, score, sample and tokenize behave"
