#include "supervisor_log.h"

#include <QDir>
#include <QFile>

#include "runlog/run_paths.h"

namespace traindeck {

QStringList supervisorLogTail(const QString& runDir, int lines) {
  QFile log(QDir(runDir).filePath(run_file::kSupervisorLog));
  if (!log.open(QIODevice::ReadOnly)) return {};
  log.seek(std::max<qint64>(0, log.size() - 64 * 1024));
  QStringList out;
  for (const QByteArray& line : log.readAll().split('\n'))
    if (!line.isEmpty()) out << QString::fromUtf8(line);
  return out.mid(std::max<qsizetype>(0, out.size() - lines));
}

}  // namespace traindeck
