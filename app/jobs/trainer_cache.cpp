#include "trainer_cache.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace traindeck {

TrainerSignature trainerSignature(const HostProbe& probe, const QString& sourcesHash) {
  const QString libtorch = probe.libtorchChoice();
  const QStringList lines{
      "sources=" + sourcesHash,
      "arch=" + probe.arch,
      "os=" + probe.os,
      "glibc=" + probe.glibc,
      "libtorch=" + libtorch,
      "torch=" + (libtorch == "pip" ? probe.torch : QString()),
      "cuda=" + (libtorch == "pip" ? probe.torchCuda : QString()),
      "libtorch_at=" + (libtorch == "pip" ? probe.torchPrefix : probe.systemLibtorch),
      "gpu_arch=" + probe.gpuArch,
  };
  TrainerSignature s;
  s.description = lines.join('\n') + '\n';
  s.key = QString::fromLatin1(
      QCryptographicHash::hash(s.description.toUtf8(), QCryptographicHash::Sha256).toHex().left(24));
  return s;
}

QString TrainerCache::defaultDir() {
  const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
  const QString base = xdg.startsWith('/') ? xdg : QDir::homePath() + "/.cache";
  return base + "/traindeck/trainers";
}

TrainerCache::TrainerCache(const QString& dir) : m_dir(dir.isEmpty() ? defaultDir() : dir) {}

QString TrainerCache::binaryFor(const TrainerSignature& signature) const {
  const QString folder = QDir(m_dir).filePath(signature.key);
  const QString binary = folder + "/traindeck-train";
  return QFileInfo(binary).isExecutable() && QFileInfo::exists(folder + "/signature.txt") ? binary : QString();
}

QString TrainerCache::partialFor(const TrainerSignature& signature, const QString& tag) const {
  const QString folder = QDir(m_dir).filePath(signature.key);
  QDir().mkpath(folder);
  return folder + "/traindeck-train.partial-" + tag;
}

QString TrainerCache::keep(const TrainerSignature& signature, const QString& tag) const {
  const QString folder = QDir(m_dir).filePath(signature.key);
  const QString partial = partialFor(signature, tag), binary = folder + "/traindeck-train";
  if (!QFileInfo::exists(partial)) return QStringLiteral("%1 is not there").arg(partial);
  QFile::remove(binary);
  if (!QFile::rename(partial, binary)) return QStringLiteral("cannot move %1 into place").arg(partial);
  QFile::setPermissions(binary, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup |
                                    QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
  QSaveFile description(folder + "/signature.txt");  // written last: the binary is whole
  const QByteArray bytes = signature.description.toUtf8();
  if (!description.open(QIODevice::WriteOnly) || description.write(bytes) != bytes.size() || !description.commit())
    return QStringLiteral("cannot write %1: %2").arg(description.fileName(), description.errorString());
  return {};
}

}  // namespace traindeck
