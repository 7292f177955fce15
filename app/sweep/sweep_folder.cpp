#include "sweep_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <chrono>

#include "config/validate.h"
#include "runlog/run_directory.h"
#include "sweep/sweep_state_file.h"

namespace traindeck {

QString SweepFolder::runDir(const QString& recorded) const {
  return recorded.isEmpty() ? QString() : QDir::cleanPath(QDir(dir).absoluteFilePath(recorded));
}

QString SweepFolder::recorded(const QString& runDir) const {
  return QDir(dir).relativeFilePath(runDir);
}

QStringList sweepFolders(const QString& runsRoot) {
  const QDir sweeps(QDir(runsRoot).filePath(kSweepsFolder));
  QStringList out;
  for (const QString& name : sweeps.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
    if (const QString dir = sweeps.absoluteFilePath(name); isSweepFolder(QFile::encodeName(dir).toStdString()))
      out << dir;
  return out;
}

QString sweepFileOf(const QString& sweepDir, QString* error) {
  const SweepStateRead read = readSweepState(SweepFolder{sweepDir}.statePath().toStdString());
  if (!read.ok() || read.missing) {
    *error = read.missing ? QObject::tr("%1 is not a sweep folder (it has no sweep.json)").arg(sweepDir)
                          : QString::fromStdString(read.error);
    return {};
  }
  return QString::fromStdString(read.state.sweepFile);
}

QString sweepFolderFor(const QString& runsRoot, const QString& sweepFile, QString* error) {
  const QStringList known = sweepFolders(runsRoot);
  for (auto it = known.rbegin(); it != known.rend(); ++it) {
    QString ignored;
    if (sweepFileOf(*it, &ignored) == sweepFile) return *it;
  }
  const QString stem = QFileInfo(sweepFile).completeBaseName();
  const QString id = QString::fromStdString(makeRunId(std::chrono::system_clock::now(), slugify(stem.toStdString())));
  const QString dir = QDir(QDir(runsRoot).filePath(kSweepsFolder)).absoluteFilePath(id);
  if (!QDir().mkpath(dir)) {
    *error = QObject::tr("Could not make the sweep folder %1: may you write there?").arg(dir);
    return {};
  }
  return dir;
}

}  // namespace traindeck
