// Where a sweep lives: <runs root>/sweeps/<id>/ holds its sweep.json (the one state file) and
// runner.lock (held by the one runner at work on it); its trials are ordinary runs under the
// runs root, which sweep.json names. One sweep.yaml has one sweep folder: running the same file
// again continues it (planning again adds only new trials), so nothing runs twice.
#pragma once

#include <QString>
#include <QStringList>

#include "sweep/sweep_state_file.h"  // kSweepStateFile, isSweepFolder

namespace traindeck {

inline constexpr const char* kSweepLockFile = "runner.lock";
inline constexpr const char* kSweepsFolder = "sweeps";

struct SweepFolder {
  QString dir;  // absolute
  QString statePath() const { return dir + "/" + kSweepStateFile; }
  QString lockPath() const { return dir + "/" + kSweepLockFile; }
  // A trial's run folder as sweep.json says it (relative to the sweep folder, or absolute).
  QString runDir(const QString& recorded) const;
  // How sweep.json records a run folder: relative to the sweep folder (both move with the runs root).
  QString recorded(const QString& runDir) const;
};

// Whether `dir` is a sweep folder (it holds sweep.json).

// The sweep folders under the runs root, oldest first.
QStringList sweepFolders(const QString& runsRoot);

// The sweep folder of `sweepFile` (an absolute path) under the runs root: the newest whose
// sweep.json names it, or a new one (made, named <time>-<file stem>). Empty, with *error, when
// it cannot be made.
QString sweepFolderFor(const QString& runsRoot, const QString& sweepFile, QString* error);

// The sweep.yaml a sweep folder's sweep.json names, or empty with *error.
QString sweepFileOf(const QString& sweepDir, QString* error);

}  // namespace traindeck
