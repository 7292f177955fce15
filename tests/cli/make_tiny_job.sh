#!/bin/sh
# make_tiny_job.sh TRAIN DIR: a small corpus, its prepared dataset and a tiny single-rank job
# (DIR/job.yaml) for the command-line tests. TRAIN is the traindeck-train binary.
set -eu
train=$1 dir=$2
mkdir -p "$dir"
i=0
: > "$dir/corpus.txt"
while [ $i -lt 300 ]; do
  echo "the deck trains model $i on many devices and watches the loss fall, step by step" >> "$dir/corpus.txt"
  echo "%" >> "$dir/corpus.txt"
  i=$((i + 1))
done
"$train" prepare --tokenizer byte --out "$dir/data" --val-fraction 0.1 --doc-separator % "$dir/corpus.txt" >/dev/null 2>&1
cat > "$dir/job.yaml" <<YAML
name: tiny cli job
model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257}
data: {train: data, tokenizer: byte}
strategy: {kind: single, device: cpu, micro_batch: 4}
schedule: {warmup_steps: 2, max_steps: ${MAX_STEPS:-30}}
eval: {every: 10, batches: 2}
checkpoint: {every: ${CHECKPOINT_EVERY:-10}, keep: 2}
runs_root: runs
YAML
