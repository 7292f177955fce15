#include "remote_fetch.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include "remote_helper.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {
const QRegularExpression kSafeName(QStringLiteral("^[A-Za-z0-9._-]+$"));
const QRegularExpression kSafePath(QStringLiteral("^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$"));
}  // namespace

RemoteFetch::RemoteFetch(const QString& runDir, const RemoteRecord& record, FetchKind kind, RemoteHost* host,
                         RemoteHost::HostKeyPrompt prompt, QObject* parent)
    : QObject(parent), m_runDir(runDir), m_record(record), m_kind(kind), m_host(host) {
  if (m_host == nullptr) {
    m_ownHost = std::make_unique<RemoteHost>(record.target(!prompt));
    if (prompt) m_ownHost->setHostKeyPrompt(std::move(prompt));
    m_host = m_ownHost.get();
  }
  connect(m_host, &RemoteHost::connectionFailed, this, [this](const QString& message) { finish(message); });
  // The run's connection goes when its job ends.
  connect(m_host, &QObject::destroyed, this,
          [this] { finish(tr("The run ended and its connection with it before the fetch was done; fetch again.")); });
}

RemoteFetch::~RemoteFetch() = default;

void RemoteFetch::setInteractivePrompt(AskInteractive prompt) {
  if (m_ownHost) m_ownHost->setInteractivePrompt(std::move(prompt));
}

void RemoteFetch::listed(const ListingAnswer& answer) {
  m_noCheckpoint = answer.noCheckpoint;
  m_name = answer.dir;
  m_files = answer.files;
  if (!answer.complete)
    return finish(tr("The host has nothing to fetch: %1")
                      .arg(answer.error.isEmpty() ? tr("its answer was cut short; try again") : answer.error));
  if (!kSafeName.match(m_name).hasMatch()) return finish(tr("The host named an unexpected folder \"%1\".").arg(m_name));
  for (const File& f : m_files)
    if (!kSafePath.match(f.name).hasMatch() || f.name.split('/').contains(".."))
      return finish(tr("The host named an unexpected file \"%1\".").arg(f.name));
  // COMPLETE last: until it is here the folder is not a checkpoint.
  std::stable_partition(m_files.begin(), m_files.end(),
                        [](const File& f) { return f.name != run_file::kCheckpointComplete; });
  const QString sub = m_kind == FetchKind::Checkpoint ? run_file::kCheckpoints : run_file::kExports;
  m_localDir = QDir(m_runDir).filePath(sub + "/" + m_name);
  m_partialDir = m_localDir + ".partial";
  for (const File& f : m_files) m_totalBytes += f.size;
  if (QFileInfo::exists(m_localDir)) return finish({});  // fetched before
  // One copy at a time into the partial folder, across processes (a lock of a process that died
  // is taken over; no age makes a long copy's lock stale).
  QDir().mkpath(QFileInfo(m_partialDir).path());
  m_lock = std::make_unique<QLockFile>(m_partialDir + ".lock");
  m_lock->setStaleLockTime(0);
  if (!m_lock->tryLock(0)) {
    m_elsewhere = true;
    return finish(tr("%1 is being copied here by another TrainDeck following this run.").arg(m_name));
  }
  next();
}

void RemoteFetch::start() {
  if (m_host->isReady()) return list();
  connect(m_host, &RemoteHost::readyChanged, this, [this](bool ready) {
    if (ready && !m_asked) list();
  });
  if (m_ownHost) m_ownHost->connectToHost();
}

void RemoteFetch::list() {
  m_asked = true;
  const auto listed = [this](const ListingAnswer& answer) {
    if (!answer.linkFailure.isEmpty()) return finish(answer.linkFailure);
    if (answer.helperMissing)
      return finish(tr("The run's work folder %1 is not on the host any more.").arg(m_record.workDir));
    this->listed(answer);
  };
  const RemoteHelper helper(m_host, m_record.helper, this);
  if (m_kind == FetchKind::Checkpoint)
    helper.checkpoint(m_record.remoteRunDir, listed);
  else
    helper.exportHf(m_record.trainBinary, m_record.remoteRunDir, listed);
}

void RemoteFetch::next() {
  if (m_next >= m_files.size()) {
    // All here: the folder takes its name (an older partial one is replaced).
    QDir(m_localDir).removeRecursively();
    if (!QDir().rename(m_partialDir, m_localDir))
      return finish(tr("Could not rename %1 to %2.").arg(m_partialDir, m_localDir));
    m_lock.reset();
    return finish({});
  }
  const File& f = m_files[m_next++];
  const QString local = m_partialDir + "/" + f.name;
  if (!QDir().mkpath(QFileInfo(local).absolutePath()))
    return finish(tr("Could not make %1.").arg(QFileInfo(local).path()));
  const char* sub = m_kind == FetchKind::Checkpoint ? run_file::kCheckpoints : run_file::kExports;
  const QString remoteDir = m_record.remoteRunDir + '/' + sub + '/' + m_name;
  m_host->download(
      remoteDir + "/" + f.name, local, this,
      [this](const TransferResult& result, const QString& failure) {
        if (!failure.isEmpty()) return finish(failure);
        m_doneBytes += result.bytes;
        next();
      },
      [this, name = f.name](qint64 done, qint64) { emit progress(name, m_doneBytes + done, m_totalBytes); });
}

void RemoteFetch::finish(const QString& error) {
  if (m_finished) return;
  m_finished = true;
  m_lock.reset();
  emit finished(error.isEmpty() ? m_localDir : QString(), error);
}

}  // namespace traindeck
