// The helper script's answers (packaging/remote/traindeck-remote.sh), typed: each read from one
// exec's result by its `from`, so the rules (what counts as started, built, gone) are plain
// functions tested without a host. RemoteHelper hands them to its callers. No I/O.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QVector>

#include "host_probe.h"
#include "remote_answers.h"
#include "remote_host.h"
#include "slurm_job_state.h"

namespace traindeck {

// What every answer says: whether the helper was reached, and what it said.
struct HelperStatus {
  // The exit status RemoteHelper's guard gives when the helper is not at its path (with a line
  // helper=missing): the work folder there went, as on a fresh runtime behind the same address.
  static constexpr int kMissingStatus = 97;

  QString linkFailure;         // the command did not complete (the link went): nothing is known
  bool helperMissing = false;  // no helper at its path: nothing ran
  int exitStatus = -1;
  QString error;                // the helper's error=... line
  QString stderrText;           // what it wrote to stderr, trimmed
  QMap<QString, QString> keys;  // its key=value lines

  bool reached() const { return linkFailure.isEmpty() && !helperMissing; }
  bool ok() const { return reached() && exitStatus == 0; }
  // Why it said no: its error= (with stderr's last line, when it wrote one), else its stderr.
  QString why() const;
  static HelperStatus from(const RemoteHost::ExecResult& r);
};

// A folder made or found there (the work folder, a watched run's folder): its absolute path.
struct FolderAnswer : HelperStatus {
  QString path;  // empty: not made, not a run folder

  static FolderAnswer fromPwd(const RemoteHost::ExecResult& r);  // the fixed first command: `pwd`'s line
  static FolderAnswer from(const RemoteHost::ExecResult& r);     // `watch`: run_dir=
};

// `have` and `built`.
struct YesNoAnswer : HelperStatus {
  bool yes = false;
  static YesNoAnswer from(const RemoteHost::ExecResult& r, const QString& key);
};

struct ProbeAnswer : HelperStatus {
  HostProbe probe;  // complete when the whole answer came
  static ProbeAnswer from(const RemoteHost::ExecResult& r);
};

// `install`, `build` and `install-trainer`: done, or found done before.
struct MadeAnswer : HelperStatus {
  bool made = false;    // exit 0 and its key (installed=, built=)
  bool cached = false;  // it was there already
  QString value;        // the key's value: the packages installed, "yes", "cached"
  static MadeAnswer from(const RemoteHost::ExecResult& r, const QString& key);
};

// `launch` and `launched` (launch.env): the run's supervisor there.
struct LaunchAnswer : HelperStatus {
  qint64 pid = 0;  // > 0: started
  QString startTime, bootId;
  bool started() const { return ok() && pid > 0; }
  static LaunchAnswer from(const RemoteHost::ExecResult& r);
};

// `submit` (slurm.env): the Slurm job the run was submitted as.
struct SubmitAnswer : HelperStatus {
  QString jobId;  // not empty: submitted
  bool submitted() const { return ok() && !jobId.isEmpty(); }
  static SubmitAnswer from(const RemoteHost::ExecResult& r);
};

// `queue`: this account's Slurm jobs, by id; complete when squeue answered (queue=ok).
struct QueueAnswer : HelperStatus {
  QMap<QString, SlurmJobState> jobs;
  bool complete = false;
  static QueueAnswer from(const RemoteHost::ExecResult& r);
};

struct SeedAnswer : HelperStatus {
  bool seeded = false;
  QString movedAside;  // an earlier folder of the run, moved there
  static SeedAnswer from(const RemoteHost::ExecResult& r);
};

struct AliveAnswer : HelperStatus {
  bool alive = false;
  QString bootId;
  static AliveAnswer from(const RemoteHost::ExecResult& r);
};

struct SignalAnswer : HelperStatus {
  bool sent = false;     // the supervisor got it
  bool ended = false;    // it had ended already (or the pid names another process now)
  bool waiting = false;  // a Slurm job still in the queue: cancelled instead (nothing to checkpoint)
  static SignalAnswer from(const RemoteHost::ExecResult& r);
};

struct ReadAnswer : HelperStatus {
  RemoteReadAnswer run;  // run.error says why, when not complete
  static ReadAnswer from(const RemoteHost::ExecResult& r);
};

// `checkpoint` and `export`: one folder of the run and its files.
struct ListingAnswer : HelperStatus {
  struct File {
    QString name;  // relative to the folder
    qint64 size = 0;
  };
  QString dir;  // its name: step-N, step-N-hf
  QVector<File> files;
  bool complete = false;      // exit 0 and the whole listing came
  bool noCheckpoint = false;  // the run has no complete checkpoint yet (not a failure)
  static ListingAnswer from(const RemoteHost::ExecResult& r);
};

}  // namespace traindeck
