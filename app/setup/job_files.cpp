// Run folders are named <UTC time>-<slug>, so sorting their names newest first sorts by start.
#include "job_files.h"

#include <QDir>
#include <QFileInfo>

#include "config/path_expand.h"
#include "runlog/run_directory.h"

namespace traindeck {

QString appDataDir() {
  return QDir::cleanPath(QString::fromStdString(
      expandPath("${TRAINDECK_DATA}", QDir::currentPath().toStdString(), processEnvironment()).path));
}

bool isInside(const QString& path, const QString& dir) {
  const QString p = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
  const QString d = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  return p == d || p.startsWith(d + '/');
}

bool isInAny(const QString& path, const QStringList& dirs) {
  if (path.isEmpty()) return false;
  for (const QString& dir : dirs)
    if (isInside(path, dir)) return true;
  return false;
}

QList<QPair<QString, QString>> runsWithConfigs(const QString& runsRoot) {
  QList<QPair<QString, QString>> out;
  if (runsRoot.isEmpty()) return out;
  const QDir root(runsRoot);
  for (const QString& id : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed)) {
    const QString dir = root.filePath(id);
    if (!QFileInfo::exists(QDir(dir).filePath(run_file::kConfig))) continue;
    const RunInfoReadResult read = readRunInfo(RunPaths{dir.toStdString()});
    const QString name = read.ok() ? QString::fromStdString(read.info.name) : id;
    out.append({QStringLiteral("%1 — %2").arg(name, id), dir});
  }
  return out;
}

}  // namespace traindeck
