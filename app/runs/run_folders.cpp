#include "run_folders.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include "imported_runs.h"
#include "runlog/run_directory.h"

namespace traindeck {

namespace {
QString tr(const char* text) {
  return QCoreApplication::translate("RunFolders", text);
}
}  // namespace

QString renameRun(const QString& runDir, const QString& name) {
  const QString trimmed = name.trimmed();
  if (trimmed.isEmpty()) return tr("a run needs a name");
  const RunPaths paths{runDir.toStdString()};
  RunInfoReadResult read = readRunInfo(paths);
  if (!read.ok()) return QString::fromStdString(read.error);
  if (isLive(read.info.status)) return tr("a run's name changes once it has ended");
  read.info.name = trimmed.toStdString();
  return QString::fromStdString(writeRunInfo(paths, read.info));
}

QStringList moveRunsToTrash(const QStringList& runDirs, const std::function<bool(const QString&)>& isGoing) {
  QStringList notMoved;
  for (const QString& dir : runDirs) {
    const QString name = QFileInfo(dir).fileName();
    if (isGoing(dir))
      notMoved << tr("%1 (still going)").arg(name);
    else if (!isTrainDeckRunFolder(dir))  // another tool's run (imported_runs.h): never ours to remove
      notMoved << tr("%1 (another tool's run: TrainDeck only reads it)").arg(name);
    else if (!QFile::moveToTrash(dir))
      notMoved << name;
  }
  return notMoved;
}

}  // namespace traindeck
