// What the run list shows of one run directory: run.json's fields and, from metrics.jsonl,
// the total steps (its newest header), the last step and the last loss. Read cheaply: the
// file's first 4 KiB for the header and its last 64 KiB for the newest records; not at all when
// the run's summary index entry describes the file as it is.
#pragma once

#include <QDateTime>
#include <QString>
#include <cmath>
#include <optional>

#include "runlog/run_directory.h"

namespace traindeck {

struct RunIndexEntry;

struct RunSummary {
  QString id;  // run.json "id", else the folder's name
  QString name;
  std::optional<RunStatus> status;  // none when run.json is unreadable (or names no known status)
  QString created;                  // ISO 8601 UTC (without run.json, from the id), empty if unknown
  QString path;                     // the run directory, absolute
  qint64 step = 0;                  // the last train step seen (or run.json's "step" when larger)
  qint64 totalSteps = 0;
  double lastLoss = std::nan("");
  int supervisorPid = 0;
  QString host;         // run.json "host": the machine the run executes on (a remote start's host spec)
  QString remoteSpec;   // for the mirror of a remote run, its host as the user named it (remote.json)
  QString slurmJob;     // for the mirror of a Slurm run, its job id (remote.json)
  EndCause endCause = EndCause::None;  // run.json "end_cause": why it stopped, when known
  QString exitReason;   // run.json "exit_reason": empty while running
  int failedRank = -1;  // run.json "failed_rank": the rank whose failure ended the run, or -1

  // What changes on disk decide whether to read again: sizes and modification times.
  struct Signature {
    qint64 runJsonSize = -1, metricsSize = -1, remoteJsonSize = -1;  // remote.json: a mirror's host
    QDateTime runJsonTime, metricsTime;
    bool operator==(const Signature&) const = default;
  } signature;

  // "running", "stopped (time limit reached)", "killed (cancelled through Slurm)"; without
  // run.json, "queued" for a Slurm job (its trainer has not started), else "unknown".
  QString statusName() const;
  bool isLive() const { return status && traindeck::isLive(*status); }
  bool hasStatus(RunStatus s) const { return status == s; }

  bool sameContent(const RunSummary& o) const {
    return id == o.id && name == o.name && status == o.status && created == o.created && path == o.path &&
           host == o.host && remoteSpec == o.remoteSpec && step == o.step && totalSteps == o.totalSteps &&
           supervisorPid == o.supervisorPid && exitReason == o.exitReason && failedRank == o.failedRank &&
           slurmJob == o.slurmJob && endCause == o.endCause &&
           (lastLoss == o.lastLoss || (std::isnan(lastLoss) && std::isnan(o.lastLoss)));
  }
};

inline constexpr qint64 kRunSummaryTailBytes = 64 * 1024;

RunSummary::Signature runSignature(const QString& runDir);
// Reads run.json and the ends of metrics.jsonl; never fails: missing parts stay default. With an
// index entry that describes metrics.jsonl as it is now, its fields are taken from the entry and
// the file is not opened. `metricsBytesRead` (if given) grows by the bytes of metrics.jsonl read.
RunSummary readRunSummary(const QString& runDir, const RunIndexEntry* indexed = nullptr,
                          qint64* metricsBytesRead = nullptr);

}  // namespace traindeck
