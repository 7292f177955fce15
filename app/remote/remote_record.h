// <mirror>/remote.json: what makes a local run directory the mirror of a remote run: how to
// reach the host, where the run lives there, and which process runs it (pid, its start time
// in clock ticks since boot and the host's boot id: a pid alone is reused). Written when the
// job is launched and read to re-attach after the app was closed; for a Slurm run, its job id.
// Holds no secrets. Its one codec (encode/decode) is here, on Qt Core alone: the run list
// reads it too, without the SSH layer.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <optional>

#include "config/run_config.h"
#include "runlog/run_paths.h"
#include "ssh_target.h"

namespace traindeck {

struct RemoteRecord {
  // How the host was reached, resolved at launch (the SSH config's values included), so a
  // re-attach connects the same way; ssh.spec is the host as the user gave it. Not kept: batch.
  SshTarget ssh;
  QString workDir;       // absolute, on the host
  QString remoteRunDir;  // absolute, on the host
  QString trainBinary;   // absolute, on the host
  QString helper;        // traindeck-remote-<hash>.sh there, absolute
  qint64 pid = 0;
  QString startTime;  // field 22 of /proc/<pid>/stat there
  QString bootId;
  // A Slurm run: its job id on the cluster the host is the login node of (sbatch's answer). Its
  // trainer runs on the cluster's nodes, not the host: the queue says whether it lives (pid 0).
  QString slurmJobId;
  // One of several runs packed in that job's allocation (a sweep's pack): its run may end while
  // the job lives on with the others; Stop and Kill reach its own step (the helper's stop, cancel).
  bool slurmPacked = false;
  // A run started elsewhere (an exported script) that the app only watches: no pid to follow,
  // nothing to stop; it is over when its run.json says so.
  bool watchOnly = false;
  // The job's path fields that named files here, by field ("data.train" -> its absolute local
  // path): what a continued run uploads to its next host (restoreLocalPaths).
  QMap<QString, QString> localPaths;
  // The job's own target, as its YAML section (jobTargetYaml): the host's copy of the job names
  // no target (it runs there), so a continue starts from this one.
  QString jobTarget;

  // Whether it names the run's process (a pid, a Slurm job, a watched folder); one that does not
  // was written before a launch whose answer was lost.
  bool namesItsProcess() const { return pid > 0 || watchOnly || !slurmJobId.isEmpty(); }
  // What a connection to the host uses: ssh with the defaults filled in, asking nothing if batch.
  SshTarget target(bool batch) const;
  // The target the job of this run named: job_target; for a record from before job_target, the
  // run's config.yaml's (`fromConfig`, when it reads) aimed at the record's host, with the
  // record's work folder and login shell where that config names no remote place.
  TargetConfig jobTargetOr(const std::optional<TargetConfig>& fromConfig) const;
  bool operator==(const RemoteRecord&) const = default;
};

inline constexpr const char* kRemoteRecordFile = run_file::kRemoteRecord;  // remote.json

// A target as its config section ("target:\n  kind: slurm\n  ..."), and back (a text that does
// not read as one gives the default target).
QString jobTargetYaml(const TargetConfig& target);
TargetConfig targetFromYaml(const QString& yaml);

// remote.json's text, and back: nullopt when `json` is not a JSON object. Keys a record from an
// older version lacks read as their defaults.
QByteArray encodeRemoteRecord(const RemoteRecord& record);
std::optional<RemoteRecord> decodeRemoteRecord(const QByteArray& json);

// Empty string, or why not.
QString writeRemoteRecord(const QString& runDir, const RemoteRecord& record);
// Whether `runDir` is a mirror, and its record; *error says why an existing record is unreadable
// (not JSON, or naming no run folder on the host).
bool readRemoteRecord(const QString& runDir, RemoteRecord* record, QString* error = nullptr);

}  // namespace traindeck
