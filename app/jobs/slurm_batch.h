// The batch script a Slurm run is submitted with (packaging/remote/slurm-batch.sh, filled in; kept
// in the run folder as slurm.sbatch): #SBATCH lines from the place, then one srun task per node that starts the
// trainer's supervisor with its node rank from SLURM_NODEID and the first node's NodeAddr as the
// master address. --requeue and --open-mode=append keep one run across requeues; --signal=USR2
// asks every rank to checkpoint before the time limit (USR1 is NCCL's); a restarted job
// (SLURM_RESTART_COUNT > 0) resumes from the newest complete checkpoint. Every word from the job
// (paths, names, arguments) reaches the shell only as a quoted word: nothing in it runs.
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

#include "config/run_config.h"

namespace traindeck {

// Where on the cluster, as the job's target says it.
struct SlurmPlace {
  QString partition, account, qos;
  QString timeLimit;  // Slurm's forms: "MM", "HH:MM:SS", "D-HH"; empty: the partition's
  QString mem;        // per node, e.g. "32G"; empty: the partition's
  QString constraint;
  int gpusPerNode = 0;
  int cpusPerTask = 0;
  QStringList extraLines;   // more #SBATCH options, each "--key=value" (sbatch_args)
  bool buildInJob = false;  // target.build: job — the trainer is built by a small Slurm job
  int signalSeconds = 120;  // USR2 this long before the time limit; a quarter of a limit under 8 minutes
};

// A run's own #SBATCH options (those the job asks for, not its name or output), or none and
// *error.
QStringList slurmJobOptions(const SlurmPlace& place, int nodes, QString* error);
// `options` of one run for `pack` runs that share one allocation: cores, GPUs per node and
// memory times `pack` (a core each when none is asked). None and *error when they cannot be
// divided so: more than one node, or an option counted otherwise (--gres, --gpus, --ntasks...).
QStringList slurmPackedOptions(const QStringList& options, int pack, QString* error);
// Why runs of this place cannot be packed `pack` to an allocation; empty: they can.
QString slurmPackRefusal(const SlurmPlace& place, int nodes, int pack);

// The sbatch options of the build job (build: job): the job's partition, account, QOS, constraint
// and time limit, so it runs where the job will.
QStringList slurmBuildJobOptions(const SlurmPlace& place);

// What the script starts.
struct SlurmStart {
  QString jobName;
  QString trainBinary;  // absolute, on the shared file system
  QString configPath;   // the job's copy there
  QString runDir;       // the run folder there
  int nodes = 1;
  int masterPort = 29500;
  QStringList extraArgs;  // for `traindeck-train run` after its own
  bool resume = false;    // a continued run: --resume from the first start, not only after a requeue
  int maxRequeues = 3;    // times the script requeues itself when the trainer checkpointed for the time limit
};

// The place a job's target.kind: slurm keys say.
SlurmPlace slurmPlaceOf(const SlurmConfig& slurm);

// Several runs already on the cluster, each with its own batch script there, as one job array:
// task k runs script k (with bash: its #SBATCH lines are comments then). The array asks for what
// the first run's script asks (a sweep place's trials share their place), with its own job name,
// --array=0-(K-1)%throttle, and each task's output in its run folder through <arrayDir>/<k>, a
// link to that folder (the helper's submit-array makes them; a filename pattern could not name
// each task's folder). Words reach the shell quoted, as in slurmBatchScript.
struct SlurmArrayStart {
  QString jobName;
  QString arrayDir;           // on the cluster
  QStringList memberScripts;  // each run's slurm.sbatch there, in task order
  int throttle = 1;           // tasks running at once
  // Runs packed in one task (one allocation): task t runs runs t*pack .. t*pack+pack-1 at once,
  // each in its slot I/pack of it (slurm-batch.sh's TRAINDECK_PACKED); the task asks for the
  // first run's resources times `pack` (slurmPackedOptions). 1: a task each.
  int pack = 1;
};
QString slurmArrayScript(const QString& firstMemberScript, const SlurmArrayStart& start, QString* error);
// A batch script's #SBATCH options ("--key=value"), in order; with `forArray`, less those an
// array sets itself (--output, --job-name): what must agree for runs to share one array.
QStringList sbatchOptionsOf(const QString& script, bool forArray = false);

// The whole script, or an empty string and *error when the place or the start cannot be said
// safely (a line break in a value, a non-positive count).
// The script is packaging/remote/slurm-batch.sh (compiled in), filled in: its
// "#TRAINDECK_SBATCH_LINES" line becomes the #SBATCH lines and each @NAME@ of `values` its value
// (already quoted for the shell), in one pass.
QString slurmBatchScript(const SlurmPlace& place, const SlurmStart& start, QString* error);
QString fillSlurmBatchTemplate(const QString& templ, const QString& sbatchLines, const QMap<QString, QString>& values);

}  // namespace traindeck
