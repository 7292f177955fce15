// <mirror>/remote.json: what makes a local run directory the mirror of a remote run: how to
// reach the host, where the run lives there, and which process runs it (pid, its start time
// in clock ticks since boot and the host's boot id: a pid alone is reused). Written when the
// job is launched and read to re-attach after the app was closed; for a Slurm run, its job id.
// Holds no secrets.
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

#include "config/run_config.h"
#include "ssh_target.h"

namespace traindeck {

struct RemoteRecord {
  QString spec;  // [user@]host[:port] as the user gave it
  QString host, user;
  int port = 22;
  QStringList identityFiles;
  QString proxyCommand, knownHostsFile;
  QString proxyJump, hostKeyAlias, identityAgent;  // as SshTarget's (the config's, resolved at launch)
  QString loginShell;                              // as SshTarget's (target.login_shell)
  bool identitiesOnly = false;
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
  // A run started elsewhere (an exported script) that the app only watches: no pid to follow,
  // nothing to stop; it is over when its run.json says so.
  bool watchOnly = false;
  // The job's path fields that named files here, by field ("data.train" -> its absolute local
  // path): what a continued run uploads to its next host (restoreLocalPaths).
  QMap<QString, QString> localPaths;
  // The job's own target, as its YAML section (jobTargetYaml): the host's copy of the job names
  // no target (it runs there), so a continue starts from this one.
  QString jobTarget;

  SshTarget target(bool batch) const;
  static RemoteRecord fromTarget(const QString& spec, const SshTarget& target);
};

inline constexpr const char* kRemoteRecordFile = "remote.json";

// A target as its config section ("target:\n  kind: slurm\n  ..."), and back (a text that does
// not read as one gives the default target).
QString jobTargetYaml(const TargetConfig& target);
TargetConfig targetFromYaml(const QString& yaml);

// Empty string, or why not.
QString writeRemoteRecord(const QString& runDir, const RemoteRecord& record);
// Whether `runDir` is a mirror, and its record; *error says why an existing record is unreadable.
bool readRemoteRecord(const QString& runDir, RemoteRecord* record, QString* error = nullptr);

}  // namespace traindeck
