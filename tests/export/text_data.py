#!/usr/bin/env python3
"""text_data.py TRAIN SCRATCH: an exported notebook's data cell, run for real.

The cell (resources/exports/text_data.py and its settings) is taken from an exported PyTorch DDP
notebook and run with TEXT_FILE set to a small corpus, as a reader on Colab or Kaggle would.
Checks: with no val split its train shard is byte for byte what `traindeck-train prepare` writes
for the same file (byte tokenizer); the folder it writes (train and val split) is read by
traindeck-train, which trains on it; the exported script itself trains on it as one CPU
process; running the cell again leaves the folder alone.
"""
import json
import os
import shutil
import subprocess
import sys

import nbformat

JOB = """name: text data check
model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257, dropout: 0.0}
data: {train: corpus-prepared, tokenizer: byte}
strategy: {kind: single, device: cpu, micro_batch: 4}
schedule: {warmup_steps: 1, max_steps: 4}
eval: {every: 2, batches: 1}
checkpoint: {every: 0}
runs_root: runs
"""


def fail(message):
    print("text_data: FAILED:", message)
    sys.exit(1)


def run(command, **kwargs):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300, **kwargs)
    if done.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(command), done.returncode, done.stdout[-3000:]))
    return done.stdout


def main():
    train, scratch = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    os.chdir(scratch)
    with open("corpus.txt", "w") as f:
        for i in range(400):
            f.write("line %d of a corpus that a reader brings as plain text, \u00e9t\u00e9 compris\n" % i)
    with open("job.yaml", "w") as f:
        f.write(JOB)
    run([train, "export-notebook", "--config", "job.yaml", "--framework", "pytorch-ddp", "--place", "vm",
         "--out", "exported"])
    cells = nbformat.read("exported/train_pytorch_ddp.ipynb", as_version=4).cells
    data_cells = [c.source for c in cells if c.cell_type == "code" and "TEXT_FILE = " in c.source]
    if len(data_cells) != 1:
        fail("the notebook has %d data cells, not 1" % len(data_cells))
    cell = data_cells[0]
    if 'TEXT_FILE = ""' not in cell:
        fail("the data cell does not leave TEXT_FILE empty for the reader")

    # As the reader runs it: TEXT_FILE set, the cell run in the notebook's kernel.
    namespace = {}
    exec(compile(cell.replace('TEXT_FILE = ""', 'TEXT_FILE = "corpus.txt"'), "data cell", "exec"), namespace)
    folder = namespace["data_dir"]
    manifest = json.load(open(os.path.join(folder, "dataset.json")))
    if manifest["val"]["tokens"] == 0 or manifest["train"]["tokens"] == 0:
        fail("the cell wrote no val or no train tokens: %s" % manifest)
    stamp = os.path.getmtime(os.path.join(folder, "dataset.json"))
    exec(compile(cell.replace('TEXT_FILE = ""', 'TEXT_FILE = "corpus.txt"'), "data cell", "exec"), {})
    if os.path.getmtime(os.path.join(folder, "dataset.json")) != stamp:
        fail("running the cell again tokenized the file again")

    # The same tokens as traindeck-train prepare's, with no val split on either side.
    namespace["prepare_text"]("corpus.txt", "cell-noval", "byte", 0.0, 0)
    run([train, "prepare", "--tokenizer", "byte", "--out", "native", "--val-fraction", "0", "corpus.txt"])
    if open("cell-noval/train-000000.bin", "rb").read() != open("native/train-000000.bin", "rb").read():
        fail("the cell's train shard differs from traindeck-train prepare's")

    # traindeck-train reads the folder and trains on it (train and val split).
    os.rename(folder, "corpus-prepared")
    run([train, "run", "--config", "job.yaml", "--run-dir", "native-run"])
    # The exported script trains on it as one CPU process (its own --data).
    run([sys.executable, "exported/train_pytorch_ddp.py", "--data", "corpus-prepared", "--run-dir", "export-run"],
        env=dict(os.environ, OMP_NUM_THREADS="1"))
    for run_dir in ("native-run", "export-run"):
        status = json.load(open(os.path.join(run_dir, "run.json")))
        if status.get("status") != "finished":
            fail("%s did not finish: %s" % (run_dir, status))
        evals = [r for r in map(json.loads, open(os.path.join(run_dir, "metrics.jsonl"))) if r.get("kind") == "eval"]
        if not evals:
            fail("%s has no eval record: the val split was not read" % run_dir)
    print("text_data: the data cell's folder matches traindeck-train prepare's tokens; both trainers trained on it")


if __name__ == "__main__":
    main()
