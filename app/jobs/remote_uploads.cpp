#include "remote_uploads.h"

#include <array>

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

#include "config/path_expand.h"

namespace traindeck {

namespace {

constexpr const char* kRemotePrefix = "remote:";

QByteArray fileSha256(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
    return {};
  }
  QCryptographicHash hash(QCryptographicHash::Sha256);
  if (!hash.addData(&file)) *error = QStringLiteral("cannot read %1").arg(path);
  return hash.result().toHex();
}

// One field: nothing to do (empty or remote:), or an upload; `path` becomes the remote path.
QString planField(const QString& field, std::string& path, const QString& baseDir, const QString& work,
                  UploadPlan& plan) {
  if (path.empty()) return {};
  if (path.rfind(kRemotePrefix, 0) == 0) {
    path = path.substr(std::string(kRemotePrefix).size());
    return {};
  }
  const ExpandedPath expanded = expandPath(path, baseDir.toStdString(), processEnvironment());
  if (!expanded.error.empty()) return QStringLiteral("%1 %2").arg(field, QString::fromStdString(expanded.error));
  const QString local = QFileInfo(QString::fromStdString(expanded.path)).absoluteFilePath();
  if (isGlob(path))
    return QStringLiteral(
               "%1 is a glob (%2): name the folder written by prepare, or write remote:/path for data "
               "already on the host")
        .arg(field, QString::fromStdString(path));
  const QFileInfo info(local);
  if (!info.exists())
    return QStringLiteral("%1: %2 does not exist here (write remote:/path for data already on the host)")
        .arg(field, local);
  plan.localPaths[field] = local;
  PlannedUpload up;
  up.field = field;
  up.localPath = local;
  const QString name = info.fileName();
  if (info.isDir()) {
    QDirIterator it(local, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) up.files << name + "/" + QDir(local).relativeFilePath(it.next());
    up.files.sort();
  } else {
    up.files << name;
  }
  QCryptographicHash key(QCryptographicHash::Sha256);
  const QString parent = info.absolutePath();
  for (const QString& file : up.files) {
    QString error;
    const QByteArray sha = fileSha256(QDir(parent).filePath(file), &error);
    if (!error.isEmpty()) return QStringLiteral("%1: %2").arg(field, error);
    key.addData(file.toUtf8() + '\0' + sha + '\n');
  }
  up.key = QString::fromLatin1(key.result().toHex());
  up.remoteDir = work + "/data/" + up.key;
  up.remotePath = up.remoteDir + "/" + name;
  path = up.remotePath.toStdString();
  // Two fields naming the same thing share one upload.
  for (const PlannedUpload& other : plan.uploads)
    if (other.key == up.key) return {};
  plan.uploads.push_back(up);
  return {};
}

struct PathField {
  const char* field;
  std::string& path;
};

std::array<PathField, 5> pathFields(RunConfig& config) {
  return {{{"data.train", config.data.train},
           {"data.val", config.data.val},
           {"data.vocab", config.data.vocab},
           {"data.merges", config.data.merges},
           {"model.init_from", config.model.init_from}}};
}

}  // namespace

UploadPlan planUploads(RunConfig& config, const QString& baseDir, const QString& remoteWorkDir) {
  UploadPlan plan;
  for (const PathField& f : pathFields(config)) {
    plan.error = planField(QString::fromLatin1(f.field), f.path, baseDir, remoteWorkDir, plan);
    if (!plan.error.isEmpty()) return plan;
  }
  return plan;
}

QStringList restoreLocalPaths(RunConfig& config, const QMap<QString, QString>& localPaths) {
  QStringList remoteOnly;
  for (const PathField& f : pathFields(config)) {
    const QString field = QString::fromLatin1(f.field);
    if (localPaths.contains(field)) {
      f.path = localPaths.value(field).toStdString();
    } else if (!f.path.empty()) {
      remoteOnly << field + " " + QString::fromStdString(f.path);
      f.path = kRemotePrefix + f.path;
    }
  }
  return remoteOnly;
}

}  // namespace traindeck
