#include "run_mirror.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

#include "runlog/run_paths.h"

namespace traindeck {

namespace {

const QStringList kGrowing = {run_file::kMetrics, run_file::kSupervisorLog};
const QStringList kWhole = {run_file::kConfig, run_file::kRunJson};  // run.json last

}  // namespace

// Our own names only: "logs/rank-<n>.log", one of the lists above or the place's; nothing that
// climbs out.
bool RunMirror::isMirroredName(const QString& name) const {
  if (kGrowing.contains(name) || kWhole.contains(name) || m_placeFiles.contains(name)) return true;
  static const QRegularExpression kRankLog(QStringLiteral("^logs/rank-\\d{1,6}\\.log$"));
  return kRankLog.match(name).hasMatch();
}

void RunMirror::addGrowingFiles(const QStringList& names) {
  static const QRegularExpression kPlain(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*$"));
  for (const QString& name : names)
    if (kPlain.match(name).hasMatch() && !m_placeFiles.contains(name) && !kGrowing.contains(name) &&
        !kWhole.contains(name))
      m_placeFiles << name;
}

bool RunMirror::isWholeFile(const QString& name) {
  return kWhole.contains(name);
}

QStringList RunMirror::readArguments() const {
  QStringList args;
  const auto add = [&](const QString& name, qint64 offset) { args << name << QString::number(offset); };
  for (const QString& name : growingFiles()) add(name, QFileInfo(QDir(m_dir).filePath(name)).size());
  for (const QString& name : kWhole) add(name, 0);
  return args;
}

QStringList RunMirror::growingFiles() const {
  QStringList names = kGrowing + m_placeFiles;
  const QDir logs(QDir(m_dir).filePath(run_file::kLogs));
  for (const QString& log : logs.entryList({"rank-*.log"}, QDir::Files, QDir::Name))
    names << QString(run_file::kLogs) + '/' + log;
  return names;
}

QString RunMirror::apply(const RemoteReadAnswer& answer, bool* changed) {
  if (changed) *changed = false;
  if (!answer.complete) return answer.error;
  QDir().mkpath(QDir(m_dir).filePath(run_file::kLogs));
  // Growing files first, whole ones after (run.json last of all).
  QVector<const RemoteFileChunk*> order;
  for (const RemoteFileChunk& c : answer.files)
    if (!isWholeFile(c.name)) order << &c;
  for (const QString& name : kWhole)
    for (const RemoteFileChunk& c : answer.files)
      if (c.name == name) order << &c;
  for (const RemoteFileChunk* chunk : order) {
    if (!isMirroredName(chunk->name)) continue;  // never a path the helper should not name
    const QString path = QDir(m_dir).filePath(chunk->name);
    if (isWholeFile(chunk->name)) {
      if (chunk->bytes.size() != chunk->size) continue;  // read while it changed: next time
      QFile current(path);
      if (current.open(QIODevice::ReadOnly) && current.readAll() == chunk->bytes) continue;
      QSaveFile out(path);
      if (!out.open(QIODevice::WriteOnly) || out.write(chunk->bytes) != chunk->bytes.size() || !out.commit())
        return QStringLiteral("could not write %1: %2").arg(path, out.errorString());
      if (changed) *changed = true;
      continue;
    }
    QFile out(path);
    const qint64 local = QFileInfo(path).size();
    QIODevice::OpenMode mode = QIODevice::WriteOnly | QIODevice::Append;
    if (chunk->from == 0 && local > 0 && chunk->size < local)
      mode = QIODevice::WriteOnly | QIODevice::Truncate;  // replaced there by a shorter file: again from the start
    else if (chunk->from != local)
      continue;  // not where this copy stands (an answer to an older request)
    if (chunk->bytes.isEmpty() && !(mode & QIODevice::Truncate)) continue;
    if (!out.open(mode) || out.write(chunk->bytes) != chunk->bytes.size() || !out.flush())
      return QStringLiteral("could not write %1: %2").arg(path, out.errorString());
    if (changed) *changed = true;
  }
  return {};
}

bool RunMirror::endsWhere(const RemoteReadAnswer& answer) const {
  for (const RemoteFileChunk& c : answer.files) {
    if (isWholeFile(c.name) || !isMirroredName(c.name)) continue;
    const QFileInfo here(QDir(m_dir).filePath(c.name));
    if ((here.exists() || c.from + c.bytes.size() > 0) && here.size() != c.from + c.bytes.size()) return false;
  }
  return true;
}

bool RunMirror::caughtUp(const RemoteReadAnswer& answer) {
  if (!answer.complete) return false;
  for (const RemoteFileChunk& c : answer.files)
    if (c.from + c.bytes.size() < c.size) return false;
  return true;
}

}  // namespace traindeck
