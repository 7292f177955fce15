// The batch script a Slurm run is submitted with (issue 31; kept in the run folder as
// slurm.sbatch): #SBATCH lines from the place, then one srun task per node that starts the
// trainer's supervisor with its node rank from SLURM_NODEID and the first node's NodeAddr as the
// master address. --requeue and --open-mode=append keep one run across requeues; --signal=USR2
// asks every rank to checkpoint before the time limit (USR1 is NCCL's); a restarted job
// (SLURM_RESTART_COUNT > 0) resumes from the newest complete checkpoint. Every word from the job
// (paths, names, arguments) reaches the shell only as a quoted word: nothing in it runs.
#pragma once

#include <QString>
#include <QStringList>

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
  int signalSeconds = 120;  // USR2 this long before the time limit
};

// What the script starts.
struct SlurmStart {
  QString jobName;
  QString trainBinary;  // absolute, on the shared file system
  QString configPath;   // the job's copy there
  QString runDir;       // the run folder there
  int nodes = 1;
  int masterPort = 29500;
  QStringList extraArgs;  // for `traindeck-train run` after its own
};

// The whole script, or an empty string and *error when the place or the start cannot be said
// safely (a line break in a value, a non-positive count).
QString slurmBatchScript(const SlurmPlace& place, const SlurmStart& start, QString* error);

}  // namespace traindeck
