// The local copy of a remote run directory: an ordinary run directory that the app's pages read
// as they read any other. Files that only grow (metrics.jsonl, the rank logs, supervisor.log)
// are copied by byte offset: the local size is the offset the next read asks from, so a cut
// link resumes with nothing lost and nothing twice. run.json and config.yaml, which the trainer
// replaces whole, are replaced atomically, after the growing files, so a run that says it
// ended has all its records here. Plain Qt Core file I/O, one thread.
#pragma once

#include <QString>
#include <QStringList>

#include "remote_answers.h"

namespace traindeck {

class RunMirror {
 public:
  explicit RunMirror(const QString& localDir) : m_dir(localDir) {}

  QString localDir() const { return m_dir; }
  // Growing files of the place's own, besides the run's (a Slurm job's slurm-<id>.out): copied
  // home like the others. Only plain names in the run folder are taken.
  void addGrowingFiles(const QStringList& names);
  // NAME OFFSET pairs for traindeck-remote.sh read: whole files from 0, growing ones from
  // their local size (rank logs not yet here are sent by the helper on its own).
  QStringList readArguments() const;
  // The growing files, by name in the run folder: metrics.jsonl, supervisor.log (here or not),
  // the place's own (addGrowingFiles) and the rank logs here.
  QStringList growingFiles() const;
  // Writes what `answer` holds; returns an empty string or why a file could not be written.
  // *changed says whether any byte changed here.
  QString apply(const RemoteReadAnswer& answer, bool* changed = nullptr);
  bool isMirroredName(const QString& name) const;
  // Every file of `answer` is here up to its remote size.
  static bool caughtUp(const RemoteReadAnswer& answer);
  // Each growing file here ends where `answer`'s chunk of it ends (it was applied, or was not
  // needed): false when a chunk was skipped, not being where this copy stands.
  bool endsWhere(const RemoteReadAnswer& answer) const;
  static bool isWholeFile(const QString& name);

 private:
  QString m_dir;
  QStringList m_placeFiles;
};

}  // namespace traindeck
