#!/bin/bash
# shellcheck disable=SC2016  # single-quoted '$...' is meant: the job's words are data, and the task's sh expands its own
# The batch script of a TrainDeck run on a Slurm cluster. The app fills it in (app/jobs/
# slurm_batch.cpp): the line below becomes the job's #SBATCH lines, and each @NAME@ a value it
# has quoted for the shell, so nothing of the job's words is ever code. Kept in the run folder
# as slurm.sbatch, here and on the cluster. shellcheck reads it as it is (remote.remote_helper).
#TRAINDECK_SBATCH_LINES
set -u
run_dir=@RUN_DIR@
port=@PORT@
resume=@RESUME@
max_requeues=@MAX_REQUEUES@
requeued_exit=@REQUEUED_EXIT@
# The trainer's supervisor and its arguments, each one word.
set -- @TRAIN_COMMAND@

# The first node's address, as Slurm knows it: every node's supervisor meets there.
first=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
MASTER=$(scontrol show node "$first" | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')
# The rendezvous port: the job's own, or one from its id (two jobs on a node differ).
PORT=$port
if [ "$PORT" -eq 0 ]; then PORT=$((20000 + SLURM_JOB_ID % 20000)); fi
RESUME=$resume
# Requeued (a time limit, a preemption): from the newest complete checkpoint.
if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then RESUME=--resume; fi
# What the trainer does at the time limit: checkpoint and requeue, or, with none left, stop.
TRAINDECK_REQUEUES_LEFT=$((max_requeues - ${SLURM_RESTART_COUNT:-0}))
if [ "$TRAINDECK_REQUEUES_LEFT" -lt 0 ]; then TRAINDECK_REQUEUES_LEFT=0; fi
export MASTER PORT RESUME TRAINDECK_REQUEUES_LEFT  # srun hands the batch shell's environment to each task
# One of several trials packed in one allocation (slurmArrayScript's pack, which sets
# TRAINDECK_PACKED): its step shares the allocation (--overlap), the trainer takes its slot of
# it and watches its run folder's stop and kill markers (no signal reaches this trial alone),
# and the pack, not this script, requeues the job once all its trials are done.
overlap=''
if [ -n "${TRAINDECK_PACKED:-}" ]; then overlap=--overlap; fi
# One task per node, its node rank its SLURM_NODEID; the job's words are arguments, never code.
code=0
before=$(cat "$run_dir/run.json" 2>/dev/null)  # this attempt's run.json differs from the last one's
srun $overlap --ntasks-per-node=1 --kill-on-bad-exit=1 sh -c \
  'exec "$@" --node-rank "$SLURM_NODEID" --master-addr "$MASTER" --master-port "$PORT" ${RESUME:+"$RESUME"} ${TRAINDECK_SLOT:+--slot "$TRAINDECK_SLOT"}' sh \
  "$@" || code=$?
# The requeue exit: every rank checkpointed for the time limit; the job goes back into the queue.
# (srun may end the other nodes' tasks once the first one exits so and then report their
# signal: this attempt's run.json says it then; an earlier attempt's word does not count.)
after=$(cat "$run_dir/run.json" 2>/dev/null)
if [ "$code" -ne 0 ] && [ "$after" != "$before" ] &&
  printf '%s' "$after" | grep -q '"status": *"requeued"'; then code=$requeued_exit; fi
if [ "$code" -eq "$requeued_exit" ] && [ "${SLURM_RESTART_COUNT:-0}" -lt "$max_requeues" ]; then
  if [ -n "${TRAINDECK_PACKED:-}" ]; then : > "$TRAINDECK_PACKED"; else scontrol requeue "$SLURM_JOB_ID"; fi
fi
exit "$code"
