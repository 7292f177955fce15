#!/bin/sh
# traindeck_notebook.sh TRAIN SCRATCH: the TrainDeck export (--framework traindeck), whose
# notebook carries the trainer's sources and builds them where it runs, run for real here:
# it unpacks the sources it carries (checked: nothing may leave their folder), writes the job
# and trains it into --run-dir from --data. The build itself is the remote bootstrap's recipe
# (packaging/build-trainer.sh, built for real by remote.remote_job): here --trainer names the one
# built already.
set -eu
train=$1 scratch=$2
python=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch"
MAX_STEPS=12 CHECKPOINT_EVERY=6 sh "$here/../cli/make_tiny_job.sh" "$train" "$scratch"
fail() { echo "traindeck_notebook: $*" >&2; exit 1; }

"$train" export-notebook --config "$scratch/job.yaml" --framework traindeck --place vm --out "$scratch/exported" \
  > "$scratch/export.out" || fail "export-notebook failed"
script=$scratch/exported/train_traindeck.py
work=$scratch/work
mv "$scratch/data" "$scratch/uploaded-data"  # where it runs, the data is wherever it was put
timeout 300 "$python" "$script" --work "$work" --trainer "$train" --run-dir "$scratch/run" --data "$scratch/uploaded-data" \
  > "$scratch/notebook.out" 2>&1 || { cat "$scratch/notebook.out"; fail "the exported script failed"; }
grep -q "built already" "$scratch/notebook.out" || fail "it did not use the trainer built before"
src=$(ls -d "$work"/*/src)
[ -f "$src/.done" ] && [ -f "$src/packaging/build-trainer.sh" ] && [ -f "$src/CMakeLists.txt" ] ||
  fail "the carried sources were not unpacked whole into $src"
cmp -s "$src/core/export/job_export.cpp" "$here/../../core/export/job_export.cpp" ||
  fail "the carried sources differ from these"
grep -q '"status":"finished"' "$scratch/run/run.json" || fail "the run did not finish: $(cat "$scratch/run/run.json")"
grep -q '"step":12' "$scratch/run/run.json" || fail "the run did not reach step 12"
[ -d "$scratch/run/checkpoints" ] || fail "no checkpoints in the run"
# Run again into the same folder (a new runtime, Drive kept the run): it resumes, not restarts.
timeout 300 "$python" "$script" --work "$work" --trainer "$train" --run-dir "$scratch/run" --data "$scratch/uploaded-data" \
  > "$scratch/again.out" 2>&1 || { cat "$scratch/again.out"; fail "the second run failed"; }
echo "traindeck_notebook: the exported TrainDeck script unpacked its sources, trained 12 steps into its run folder and ran again on it"
