#!/bin/sh
# read_formats_test.sh TRAINDECK SCRATCH: `traindeck --read` over a folder of other tools' runs as
# they lie in the wild (issue 41): a Keras log with "\r\r\n", a Lightning CSV with a BOM and
# "\r\n", two MLflow runs named alike beside a deleted one, a TensorBoard folder of two sessions,
# a Git LFS pointer, an empty .wandb, DVCLive, Trackio and Optuna (their SQLite files made with
# Python's sqlite3 module). Output compared line by line; what was not read checked on stderr.
set -eu
traindeck=$1 scratch=$2
command -v python3 >/dev/null || { echo "FAILED: python3 is needed to write the SQLite fixtures"; exit 1; }
rm -rf "$scratch"
r=$scratch/runs
mkdir -p "$r/dvclive/plots/metrics" "$r/lfs" "$r/lightning/version_0" "$r/mlruns/1" "$r/tb" \
  "$r/wandb/offline-run-20250101_000000-abc"
printf 'epoch,loss,val_loss\r\r\n0,2.5,2.75\r\r\n1,2.25,2.5\r\r\n' >"$r/keras.log"
printf '\357\273\277epoch,step,train_loss,val_loss\r\n0,9,2.5,\r\n0,9,,3.5\r\n' >"$r/lightning/version_0/metrics.csv"
for run in aaaa1111:SVM:active:0.5 bbbb2222:SVM:active:0.25 cccc3333:RF:deleted:9; do
  id=${run%%:*} rest=${run#*:}; name=${rest%%:*} rest=${rest#*:}; stage=${rest%%:*} loss=${rest#*:}
  mkdir -p "$r/mlruns/1/$id/metrics"
  printf 'run_id: %s\nrun_name: %s\nlifecycle_stage: %s\n' "$id" "$name" "$stage" >"$r/mlruns/1/$id/meta.yaml"
  printf '1718000000000 %s 0\n' "$loss" >"$r/mlruns/1/$id/metrics/loss"
done
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 774000\n' \
  4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393 >"$r/lfs/events.out.tfevents.1718000000.h"
: >"$r/wandb/offline-run-20250101_000000-abc/run-abc.wandb"
printf 'step\tloss\r\n0\t1.5\r\n1\t1.25\r\n' >"$r/dvclive/plots/metrics/loss.tsv"
python3 - "$r" <<'PY'
import sqlite3, struct, sys, zlib
root = sys.argv[1]
db = sqlite3.connect(root + "/trackio.db")
db.executescript("""
CREATE TABLE metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, timestamp TEXT NOT NULL,
  run_name TEXT NOT NULL, step INTEGER NOT NULL, metrics TEXT NOT NULL);
INSERT INTO metrics (run_id, timestamp, run_name, step, metrics) VALUES
  ('t1', '2025-08-21T16:00:00+00:00', 'calm-sea-1', 0, '{"loss": 2.5, "acc": 0.5}');
""")
db.commit()
db = sqlite3.connect(root + "/optuna.db")
db.executescript("""
CREATE TABLE studies (study_id INTEGER PRIMARY KEY, study_name VARCHAR(512));
CREATE TABLE trials (trial_id INTEGER PRIMARY KEY, number INTEGER, study_id INTEGER, state VARCHAR(8),
  datetime_start DATETIME, datetime_complete DATETIME);
CREATE TABLE trial_params (param_id INTEGER PRIMARY KEY, trial_id INTEGER, param_name VARCHAR(512),
  param_value FLOAT, distribution_json TEXT);
CREATE TABLE trial_values (trial_value_id INTEGER PRIMARY KEY, trial_id INTEGER, objective INTEGER,
  value FLOAT, value_type VARCHAR(7));
CREATE TABLE trial_intermediate_values (trial_intermediate_value_id INTEGER PRIMARY KEY, trial_id INTEGER,
  step INTEGER, intermediate_value FLOAT, intermediate_value_type VARCHAR(7));
INSERT INTO studies VALUES (1, 'lr');
INSERT INTO trials VALUES (1, 0, 1, 'COMPLETE', '2024-05-01 10:00:00', '2024-05-01 10:05:00');
INSERT INTO trial_intermediate_values VALUES (1, 1, 0, 0.75, 'FINITE'), (2, 1, 1, 0.5, 'FINITE');
INSERT INTO trial_values VALUES (1, 1, 0, 0.5, 'FINITE');
""")
db.commit()
# Two TensorBoard sessions in one folder: TFRecord frames with masked CRC-32C, written here.
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    crc ^= 0xFFFFFFFF
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80]); v >>= 7
    return out + bytes([v])
def field(n, wire, payload):
    return varint(n << 3 | wire) + payload
def event(time, step, tag, value):
    val = field(1, 2, varint(len(tag)) + tag) + field(2, 5, struct.pack("<f", value))
    summary = field(1, 2, varint(len(val)) + val)
    return field(1, 1, struct.pack("<d", time)) + field(2, 0, varint(step)) + field(5, 2, varint(len(summary)) + summary)
def record(data):
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", crc32c(length)) + data + struct.pack("<I", crc32c(data))
for start, losses in ((1718000000, (3.0, 2.5)), (1718003600, (3.5,))):
    with open(f"{root}/tb/events.out.tfevents.{start}.host", "wb") as f:
        for step, loss in enumerate(losses):
            f.write(record(event(start + 1 + step, step, b"loss", loss)))
PY

# Optuna writes naive local times (datetime.now()), read as this machine's: a zone three hours
# west of Greenwich puts its 10:05 at 13:05 UTC (1714568700, not 1714557900).
TZ=UTC+3 "$traindeck" --read "$r" >"$scratch/out.jsonl" 2>"$scratch/err"
cat >"$scratch/expected.jsonl" <<'JSONL'
{"run":"keras.log","metric":"loss","step":0,"value":2.5,"time":null}
{"run":"keras.log","metric":"loss","step":1,"value":2.25,"time":null}
{"run":"keras.log","metric":"val_loss","step":0,"value":2.75,"time":null}
{"run":"keras.log","metric":"val_loss","step":1,"value":2.5,"time":null}
{"run":"lr trial 0","metric":"intermediate_value","step":0,"value":0.75,"time":null}
{"run":"lr trial 0","metric":"intermediate_value","step":1,"value":0.5,"time":null}
{"run":"lr trial 0","metric":"value","step":1,"value":0.5,"time":1714568700}
{"run":"calm-sea-1","metric":"loss","step":0,"value":2.5,"time":1755792000}
{"run":"calm-sea-1","metric":"acc","step":0,"value":0.5,"time":1755792000}
{"run":"dvclive","metric":"loss","step":0,"value":1.5,"time":null}
{"run":"dvclive","metric":"loss","step":1,"value":1.25,"time":null}
{"run":"lightning/version_0","metric":"loss","step":9,"value":2.5,"time":null}
{"run":"lightning/version_0","metric":"val_loss","step":9,"value":3.5,"time":null}
{"run":"lightning/version_0","metric":"epoch","step":9,"value":0,"time":null}
{"run":"lightning/version_0","metric":"epoch","step":9,"value":0,"time":null}
{"run":"SVM (aaaa1111)","metric":"loss","step":0,"value":0.5,"time":1718000000}
{"run":"SVM (bbbb2222)","metric":"loss","step":0,"value":0.25,"time":1718000000}
{"run":"tb (session 1 of 2)","metric":"loss","step":0,"value":3,"time":1718000001}
{"run":"tb (session 1 of 2)","metric":"loss","step":1,"value":2.5,"time":1718000002}
{"run":"tb (session 2 of 2)","metric":"loss","step":0,"value":3.5,"time":1718003601}
JSONL
diff -u "$scratch/expected.jsonl" "$scratch/out.jsonl"
echo "read: $(wc -l <"$scratch/out.jsonl") records as expected"
for said in "$r/lfs/events.out.tfevents.1718000000.h: this is a Git LFS pointer, not the file itself: run \`git lfs pull\`" \
  "$r/mlruns/1/cccc3333: deleted in MLflow (lifecycle_stage: deleted)" \
  "$r/wandb/offline-run-20250101_000000-abc/run-abc.wandb: empty (0 bytes): W&B wrote no records to it"; do
  grep -qF "traindeck: $said" "$scratch/err" || { echo "not said on stderr: $said"; cat "$scratch/err"; exit 1; }
done
echo "what was not read: said"
