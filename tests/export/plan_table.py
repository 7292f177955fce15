#!/usr/bin/env python3
"""plan_table.py TRAIN: the tutorial's table of what fits, made by the planner itself.

For each GPT-2 size and each device a reader meets (Colab's T4, L4, A100, H100 and G4, Kaggle's
T4 x2 with ddp, zero1 and zero3, Colab's TPU v6e), `traindeck-train plan --json` gives the largest micro-batch of 1,024-token
sequences that fits one device, without and with activation checkpointing. Prints the Markdown
table that docs/tutorial.md carries between its plan-table markers; tutorial_code.py checks that
the page holds exactly this, so no figure there is written by hand.
"""
import json
import subprocess
import sys

MODELS = [("gpt2", "GPT-2 small"), ("gpt2-medium", "medium"), ("gpt2-large", "large"), ("gpt2-xl", "xl")]
# (column heading, device, precision, ranks, strategy)
COLUMNS = [
    ("T4 (fp16)", "T4", "fp16", 1, "single"),
    ("T4×2, DDP", "T4", "fp16", 2, "ddp"),
    ("T4×2, zero1", "T4", "fp16", 2, "zero1"),
    ("T4×2, zero3²", "T4", "fp16", 2, "zero3"),
    ("L4", "L4", "bf16", 1, "single"),
    ("A100 40GB", "A100-40GB", "bf16", 1, "single"),
    ("H100", "H100", "bf16", 1, "single"),
    ("G4", "G4", "bf16", 1, "single"),
    ("TPU v6e¹", "TPU-v6e", "bf16", 1, "single"),
]


def plan(train, preset, device, precision, ranks, strategy, checkpointing):
    command = [train, "plan", "--config", "gpt2-124m-1gpu", "--device", device, "--json",
               "--set", "model.preset=" + preset, "--set", "strategy.precision=" + precision,
               "--set", "strategy.kind=" + strategy, "--set", "strategy.nproc_per_node=%d" % ranks,
               "--set", "strategy.activation_checkpointing=%s" % ("true" if checkpointing else "false")]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit("plan_table: %s failed: %s" % (" ".join(command), done.stderr))
    return json.loads(done.stdout)


def gib(n):
    return "%.1f GiB" % (n / 2**30)


def table(train):
    lines = ["| model (weights + gradients + AdamW) | " + " | ".join(c[0] for c in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for preset, title in MODELS:
        cells = []
        state = None
        for _, device, precision, ranks, strategy in COLUMNS:
            plain = plan(train, preset, device, precision, ranks, strategy, False)
            recomputed = plan(train, preset, device, precision, ranks, strategy, True)
            if state is None:
                m = plain["memory_per_rank"]
                state = m["weights"] + m["gradients"] + m["optimizer"]
            a, b = plain["largest_micro_batch"], recomputed["largest_micro_batch"]
            cells.append("—" if a == 0 and b == 0 else "%s / %d" % (a or "—", b))
        lines.append("| %s, %sM (%s) | %s |" % (title, format(round(plain["parameters"] / 1e6)), gib(state),
                                                " | ".join(cells)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table(sys.argv[1]))
