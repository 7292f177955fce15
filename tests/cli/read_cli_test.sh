#!/bin/sh
# read_cli_test.sh TRAINDECK SCRATCH FUZZ_CORPORA: `traindeck --read` over a folder holding a
# TrainDeck run and runs of other tools (the TensorBoard and W&B files are the fuzzers' seed files,
# written with independent CRC code), compared line by line with what each file says; then the
# exit codes for no runs and a wrong command line.
set -eu
traindeck=$1 scratch=$2 corpora=$3
rm -rf "$scratch"
mkdir -p "$scratch/runs/native" "$scratch/runs/tb/run1" "$scratch/runs/wandb/offline-run-20240611_120000-abc123" \
  "$scratch/runs/mlruns/0/4f2c/metrics" "$scratch/runs/mlruns/0/4f2c/params" "$scratch/runs/llmc"
cat >"$scratch/runs/native/metrics.jsonl" <<'JSONL'
{"kind":"header","schema":1,"run_id":"native"}
{"kind":"train","time":1718000000.5,"step":1,"tokens":4096,"loss":3.5,"lr":0.0006,"grad_norm":1.25}
{"kind":"eval","time":1718000001,"step":1,"tokens":4096,"val_loss":3.75}
JSONL
# The seeds' first byte tells the fuzzer that the rest is a file as it lies on disk.
tail -c +2 "$corpora/corpus_tfevents/file-three-encodings-cut-last" >"$scratch/runs/tb/run1/events.out.tfevents.1718000000.h"
tail -c +2 "$corpora/corpus_wandb/file-one-block" >"$scratch/runs/wandb/offline-run-20240611_120000-abc123/run-abc123.wandb"
printf 'run_id: 4f2c\nrun_name: brave-owl-7\n' >"$scratch/runs/mlruns/0/4f2c/meta.yaml"
printf '1718000000000 2.5 0\n1718000001000 2.25 1\n' >"$scratch/runs/mlruns/0/4f2c/metrics/loss"
printf '0.001' >"$scratch/runs/mlruns/0/4f2c/params/lr"
printf 's:0 tel:10.9863\ns:0 trl:10.9504 lr:0.000006 norm:15.25\ns:1 trl:10.5' >"$scratch/runs/llmc/main.log"

"$traindeck" --read "$scratch/runs" >"$scratch/out.jsonl"
cat >"$scratch/expected.jsonl" <<'JSONL'
{"run":"llmc/main.log","metric":"loss","step":0,"value":10.9504,"time":null}
{"run":"llmc/main.log","metric":"lr","step":0,"value":6e-06,"time":null}
{"run":"llmc/main.log","metric":"grad_norm","step":0,"value":15.25,"time":null}
{"run":"llmc/main.log","metric":"val_loss","step":0,"value":10.9863,"time":null}
{"run":"brave-owl-7","metric":"loss","step":0,"value":2.5,"time":1718000000}
{"run":"brave-owl-7","metric":"loss","step":1,"value":2.25,"time":1718000001}
{"run":"native","metric":"tokens","step":1,"value":4096,"time":1718000000.5}
{"run":"native","metric":"loss","step":1,"value":3.5,"time":1718000000.5}
{"run":"native","metric":"lr","step":1,"value":6e-04,"time":1718000000.5}
{"run":"native","metric":"grad_norm","step":1,"value":1.25,"time":1718000000.5}
{"run":"native","metric":"val_loss","step":1,"value":3.75,"time":1718000001}
{"run":"tb/run1","metric":"loss","step":1,"value":2.5,"time":1718000001.5}
{"run":"tb/run1","metric":"lr","step":1,"value":0.001,"time":1718000001.5}
{"run":"tb/run1","metric":"val_loss","step":1,"value":3.25,"time":1718000002}
{"run":"tb/run1","metric":"accuracy","step":2,"value":0.875,"time":1718000003}
{"run":"lucky-fox-1","metric":"loss","step":0,"value":2.5,"time":1718000000.5}
{"run":"lucky-fox-1","metric":"grad_norm","step":1,"value":0.75,"time":null}
{"run":"lucky-fox-1","metric":"val_loss","step":1,"value":2.75,"time":null}
{"run":"lucky-fox-1","metric":"train/lr","step":0,"value":0.001,"time":1718000000.5}
{"run":"lucky-fox-1","metric":"accuracy","step":1,"value":null,"time":null}
JSONL
diff -u "$scratch/expected.jsonl" "$scratch/out.jsonl"
echo "read: $(wc -l <"$scratch/out.jsonl") records as expected"

status=0
"$traindeck" --read "$scratch/nothing" 2>"$scratch/err" || status=$?
[ "$status" = 1 ] && grep -q "no runs at $scratch/nothing" "$scratch/err" || { echo "no runs: exit $status"; cat "$scratch/err"; exit 1; }
status=0
"$traindeck" --read 2>"$scratch/err" || status=$?
[ "$status" = 2 ] && grep -q "needs a PATH" "$scratch/err" || { echo "no PATH: exit $status"; cat "$scratch/err"; exit 1; }
echo "exit codes as expected"
