// SFTP transfers with libssh 0.10. Writes go one request at a time in 64 KiB pieces;
// downloads keep several reads in flight (sftp_async_read) because a read costs a round trip.
#include "sftp_transfer.h"

#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <deque>
#include <memory>

#include "shell_quote.h"
#include "ssh_connection.h"
#include "ssh_error.h"

namespace traindeck {

namespace {

constexpr qint64 kChunk = 64 * 1024;  // a read request
// libssh 0.10 has no asynchronous write: each write waits for its reply, so writes are as
// large as OpenSSH's sftp-server accepts (messages up to 256 KiB, header included).
constexpr qint64 kWriteChunk = 240 * 1024;
constexpr int kReadsInFlight = 16;

QByteArray localSha256(const QString& path) {
  QFile f(path);
  QCryptographicHash hash(QCryptographicHash::Sha256);
  if (!f.open(QIODevice::ReadOnly) || !hash.addData(&f)) return QByteArray();
  return hash.result().toHex();
}

struct SftpFileCloser {
  void operator()(sftp_file_struct* f) const { sftp_close(f); }
};
using SftpFile = std::unique_ptr<sftp_file_struct, SftpFileCloser>;

}  // namespace

SftpTransfer::SftpTransfer(SshConnection& connection, QString partTag)
    : m_connection(connection), m_partTag(std::move(partTag)) {}

SftpTransfer::~SftpTransfer() {
  if (m_sftp != nullptr) sftp_free(m_sftp);
}

QString SftpTransfer::noSftpMessage(const QString& host, const QString& detail) {
  return QString(
             "%1 has no SFTP service (%2): install openssh-sftp-server there, or add `Subsystem sftp "
             "internal-sftp` to its sshd_config and restart sshd.")
      .arg(host, detail);
}

sftp_session SftpTransfer::sftp() {
  m_connection.checkOwner();
  if (m_sftp != nullptr) return m_sftp;
  ssh_session session = m_connection.session();
  m_sftp = sftp_new(session);
  if (m_sftp == nullptr) {
    // sshd answers a subsystem it does not have with a refusal on a live link ("Channel request
    // subsystem failed"): that is the host's setup, not the link, and a reconnect would only
    // be refused again.
    if (ssh_get_error_code(session) == SSH_REQUEST_DENIED &&
        QString::fromUtf8(ssh_get_error(session)).contains("subsystem"))
      throw SshError(SshError::Kind::NoSftp,
                     noSftpMessage(m_connection.target().display(), "its sshd refused the sftp subsystem"));
    m_connection.throwLinkLost("opening SFTP");
  }
  if (sftp_init(m_sftp) != SSH_OK) {
    sftp_free(m_sftp);
    m_sftp = nullptr;
    throw SshError(SshError::Kind::NoSftp,
                   noSftpMessage(m_connection.target().display(),
                                 "its sftp subsystem does not answer: " + m_connection.errorDetail()));
  }
  return m_sftp;
}

void SftpTransfer::fail(const QString& what, const QString& path) {
  ssh_session s = m_connection.session();
  const int code = m_sftp != nullptr ? sftp_get_error(m_sftp) : 0;
  // A dead link shows as an error on the session; a frozen one as a timeout, seen by a probe.
  if (!ssh_is_connected(s) || code == SSH_FX_CONNECTION_LOST || code == SSH_FX_NO_CONNECTION || !m_connection.probe())
    m_connection.throwLinkLost(QString("while %1 %2").arg(what, path));
  throw SshError(SshError::Kind::Remote, QString("SFTP failed while %1 %2 on %3 (SFTP error %4: %5).")
                                             .arg(what, path, m_connection.target().display())
                                             .arg(code)
                                             .arg(m_connection.errorDetail()));
}

QByteArray SftpTransfer::remoteSha256(const QString& remotePath) {
  int status = -1;
  QByteArray err;
  const QByteArray out = m_connection.execCapture("sha256sum -- " + shellQuote(remotePath), &status, &err);
  if (status != 0 || out.size() < 64)
    throw SshError(SshError::Kind::Remote,
                   QString("Cannot compute the checksum of %1 on %2: %3")
                       .arg(remotePath, m_connection.target().display(), QString::fromUtf8(err).trimmed()));
  return out.left(64);
}

TransferResult SftpTransfer::upload(const QString& localPath, const QString& remotePath, const ProgressFn& progress) {
  QFile local(localPath);
  if (!local.open(QIODevice::ReadOnly))
    throw SshError(SshError::Kind::Remote, QString("Cannot read %1: %2.").arg(localPath, local.errorString()));
  TransferResult result;
  result.bytes = local.size();
  result.sha256 = localSha256(localPath);
  sftp_session s = sftp();
  const QByteArray part = partName(remotePath, m_partTag).toUtf8();
  if (sftp_attributes a = sftp_stat(s, part.constData())) {
    if (static_cast<qint64>(a->size) <= result.bytes) result.resumedFrom = static_cast<qint64>(a->size);
    sftp_attributes_free(a);
  }
  SftpFile file(sftp_open(s, part.constData(), O_WRONLY | O_CREAT | (result.resumedFrom > 0 ? 0 : O_TRUNC), 0644));
  if (!file) fail("creating", partName(remotePath, m_partTag));
  if (sftp_seek64(file.get(), static_cast<uint64_t>(result.resumedFrom)) != 0 || !local.seek(result.resumedFrom))
    fail("seeking in", partName(remotePath, m_partTag));
  QElapsedTimer timer;
  timer.start();
  QByteArray buf(kWriteChunk, Qt::Uninitialized);
  qint64 done = result.resumedFrom;
  while (done < result.bytes) {
    const qint64 n = local.read(buf.data(), kWriteChunk);
    if (n <= 0)
      throw SshError(SshError::Kind::Remote, QString("Cannot read %1: %2.").arg(localPath, local.errorString()));
    if (sftp_write(file.get(), buf.constData(), static_cast<size_t>(n)) != n)
      fail("writing", partName(remotePath, m_partTag));
    done += n;
    if (progress) progress(done, result.bytes);
    if (m_connection.isCancelled()) throw SshError(SshError::Kind::Cancelled, "Upload cancelled.");
  }
  file.reset();
  result.seconds = timer.elapsed() / 1000.0;
  if (remoteSha256(partName(remotePath, m_partTag)) != result.sha256) {
    sftp_unlink(s, part.constData());
    throw SshError(SshError::Kind::Checksum, QString("The upload of %1 to %2 arrived damaged (checksum differs); "
                                                     "the partial file was removed, upload again.")
                                                 .arg(localPath, remotePath));
  }
  // rename(2) there: SFTP's rename refuses an existing target, and unlink-then-rename races with
  // another upload of the same file.
  int status = -1;
  QByteArray err;
  m_connection.execCapture("mv -f -- " + shellQuote(partName(remotePath, m_partTag)) + " " + shellQuote(remotePath),
                           &status, &err);
  if (status != 0)
    throw SshError(SshError::Kind::Remote,
                   QString("Cannot move %1 into place on %2: %3")
                       .arg(remotePath, m_connection.target().display(), QString::fromUtf8(err).trimmed()));
  return result;
}

TransferResult SftpTransfer::download(const QString& remotePath, const QString& localPath, const ProgressFn& progress) {
  sftp_session s = sftp();
  const QByteArray source = remotePath.toUtf8();
  TransferResult result;
  sftp_attributes attrs = sftp_stat(s, source.constData());
  if (attrs == nullptr) fail("reading", remotePath);
  result.bytes = static_cast<qint64>(attrs->size);
  const std::uint64_t startMtime = attrs->mtime64;
  sftp_attributes_free(attrs);

  const QString partPath = partName(localPath);
  QFile part(partPath);
  if (part.exists() && part.size() <= result.bytes) result.resumedFrom = part.size();
  if (!part.open(result.resumedFrom > 0 ? QIODevice::Append : (QIODevice::WriteOnly | QIODevice::Truncate)))
    throw SshError(SshError::Kind::Remote, QString("Cannot write %1: %2.").arg(partPath, part.errorString()));
  SftpFile file(sftp_open(s, source.constData(), O_RDONLY, 0));
  if (!file) fail("opening", remotePath);
  if (sftp_seek64(file.get(), static_cast<uint64_t>(result.resumedFrom)) != 0) fail("seeking in", remotePath);

  QElapsedTimer timer;
  timer.start();
  QByteArray buf(kChunk, Qt::Uninitialized);
  qint64 done = result.resumedFrom;
  qint64 requested = done;
  std::deque<uint32_t> inFlight;  // request ids, in offset order, each kChunk long
  while (done < result.bytes) {
    while (inFlight.size() < kReadsInFlight && requested < result.bytes) {
      const int id = sftp_async_read_begin(file.get(), static_cast<uint32_t>(kChunk));
      if (id < 0) fail("reading", remotePath);
      inFlight.push_back(static_cast<uint32_t>(id));
      requested += kChunk;
    }
    const int n = sftp_async_read(file.get(), buf.data(), static_cast<uint32_t>(kChunk), inFlight.front());
    inFlight.pop_front();
    if (n < 0) fail("reading", remotePath);
    if (part.write(buf.constData(), n) != n)
      throw SshError(SshError::Kind::Remote, QString("Cannot write %1: %2.").arg(partPath, part.errorString()));
    done += n;
    if (n < kChunk && done < result.bytes) {
      // A short read (the file shrank, or a server limit): drop the reads in flight, which
      // now sit at wrong offsets, and go on from where the data ends.
      while (!inFlight.empty()) {
        sftp_async_read(file.get(), buf.data(), static_cast<uint32_t>(kChunk), inFlight.front());
        inFlight.pop_front();
      }
      if (n == 0) break;
      if (sftp_seek64(file.get(), static_cast<uint64_t>(done)) != 0) fail("seeking in", remotePath);
      requested = done;
    }
    if (progress) progress(done, result.bytes);
    if (m_connection.isCancelled()) {
      file.reset();  // sftp_close discards the replies still in flight
      throw SshError(SshError::Kind::Cancelled, "Download cancelled.");
    }
  }
  while (!inFlight.empty()) {
    sftp_async_read(file.get(), buf.data(), static_cast<uint32_t>(kChunk), inFlight.front());
    inFlight.pop_front();
  }
  file.reset();
  part.close();
  result.seconds = timer.elapsed() / 1000.0;
  result.sha256 = localSha256(partPath);
  if (remoteSha256(remotePath) != result.sha256) {
    QFile::remove(partPath);
    // A file that is still being written (a live run's log) differs for another reason.
    sftp_attributes now = sftp_stat(s, source.constData());
    const bool changed = now == nullptr || static_cast<qint64>(now->size) != result.bytes || now->mtime64 != startMtime;
    if (now != nullptr) sftp_attributes_free(now);
    if (changed)
      throw SshError(SshError::Kind::Checksum, QString("%1 changed while it was being downloaded; the partial file was "
                                                       "removed. Download it once it is no longer written to, or "
                                                       "copy a snapshot on the remote side first.")
                                                   .arg(remotePath));
    throw SshError(SshError::Kind::Checksum, QString("The download of %1 arrived damaged (checksum differs); the "
                                                     "partial file was removed, download again.")
                                                 .arg(remotePath));
  }
  QFile::remove(localPath);
  if (!QFile::rename(partPath, localPath))
    throw SshError(SshError::Kind::Remote, QString("Cannot rename %1 to %2.").arg(partPath, localPath));
  return result;
}

}  // namespace traindeck
