// SftpTransfer: upload and download over one SshConnection's SFTP channel, on its owning
// thread. Data goes to "<target>.part" and is renamed over the target only after its SHA-256
// matches the source, so a reader never sees half a file; a .part left by an interrupted
// transfer is continued from its size (the final checksum covers the whole file). An upload's
// .part carries the tag its maker gives ("<target>.part-<tag>": SshWorker's names this machine
// and the host, and numbers a second link to that host at once), so two hosts sharing one file
// system, or two runs starting together on one host, uploading one file at once, do not write
// into one .part; its rename over the target is rename(2) there (`mv -f`), which replaces atomically.
#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <functional>

struct sftp_session_struct;
using sftp_session = sftp_session_struct*;

namespace traindeck {

class SshConnection;

struct TransferResult {
  qint64 bytes = 0;        // size of the whole file
  qint64 resumedFrom = 0;  // bytes already there from an earlier attempt
  QByteArray sha256;       // hex
  double seconds = 0;      // time spent moving bytes in this attempt
};

class SftpTransfer {
 public:
  using ProgressFn = std::function<void(qint64 done, qint64 total)>;

  explicit SftpTransfer(SshConnection& connection, QString partTag = {});
  ~SftpTransfer();
  SftpTransfer(const SftpTransfer&) = delete;
  SftpTransfer& operator=(const SftpTransfer&) = delete;

  // Both throw SshError: LinkLost (retry after reconnecting: it resumes), NoSftp (the server has
  // no SFTP: retrying never helps), Remote, Checksum.
  TransferResult upload(const QString& localPath, const QString& remotePath, const ProgressFn& progress = {});
  TransferResult download(const QString& remotePath, const QString& localPath, const ProgressFn& progress = {});

  static QString partName(const QString& path, const QString& tag = {}) {
    return path + ".part" + (tag.isEmpty() ? QString() : "-" + tag);
  }
  // sha256sum on the remote side (hex), or throws SshError(Remote).
  QByteArray remoteSha256(const QString& remotePath);
  // Opens the SFTP channel now (the connection test), as a transfer would: throws SshError
  // (NoSftp, LinkLost).
  void open() { sftp(); }
  // What a host without SFTP lacks and how to fix it (minimal images ship sshd without
  // sftp-server, or without the `Subsystem sftp` line): said by transfers and checkSsh alike.
  static QString noSftpMessage(const QString& host, const QString& detail);

 private:
  sftp_session sftp();
  [[noreturn]] void fail(const QString& what, const QString& path);

  SshConnection& m_connection;
  QString m_partTag;
  sftp_session m_sftp = nullptr;
};

}  // namespace traindeck

Q_DECLARE_METATYPE(traindeck::TransferResult)
