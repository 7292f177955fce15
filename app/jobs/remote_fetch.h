// RemoteFetch: on request, one folder of a remote run copied into its mirror: the newest
// COMPLETE checkpoint (checkpoints/step-N/) or that checkpoint exported for Hugging Face on the
// host (exports/step-N-hf/, made there once by `traindeck-train export`). Each file goes over
// SFTP, resumable and SHA-256 checked (SftpTransfer); the folder appears under its name only
// when all of it is here (checkpoints: COMPLETE last), so a cut fetch is never taken for a
// checkpoint. Two processes of the app that follow the same run (the app and `traindeck --stop`)
// never copy into the same partial folder at once: the copy holds `<folder>.partial.lock`, and
// the other leaves the folder to it (copyingElsewhere). Runs on the run's own connection while it
// is followed (one connection per host), else on one of its own that it lets go when done. GUI
// thread.
#pragma once

#include <QLockFile>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>

#include "remote_helper_answers.h"
#include "remote_host.h"
#include "remote_record.h"

namespace traindeck {

enum class FetchKind { Checkpoint, HfExport };

class RemoteFetch : public QObject {
  Q_OBJECT
 public:
  // `host`: the run's live connection, or nullptr to make one from the record (then `prompt`
  // answers unknown host keys; none: refused).
  RemoteFetch(const QString& runDir, const RemoteRecord& record, FetchKind kind, RemoteHost* host,
              RemoteHost::HostKeyPrompt prompt = {}, QObject* parent = nullptr);
  ~RemoteFetch() override;
  // Before start(): a connection of its own asks a second factor with this (none: not asked).
  void setInteractivePrompt(AskInteractive prompt);
  void start();
  QString localDir() const { return m_localDir; }
  // The host has no complete checkpoint yet (the fetch finished with that): not a failure.
  bool foundNoCheckpoint() const { return m_noCheckpoint; }
  // Another process of the app is copying the same folder here (the fetch finished with that):
  // not a failure, the folder comes with that copy.
  bool copyingElsewhere() const { return m_elsewhere; }

 signals:
  void progress(const QString& file, qint64 done, qint64 total);  // bytes of all files
  void finished(const QString& localDir, const QString& error);   // error empty: done

 private:
  using File = ListingAnswer::File;
  void list();
  void listed(const ListingAnswer& answer);  // the helper said what there is
  void next();
  void finish(const QString& error);

  QString m_runDir;
  RemoteRecord m_record;
  FetchKind m_kind;
  RemoteHost* m_host;
  std::unique_ptr<RemoteHost> m_ownHost;
  QString m_name, m_localDir, m_partialDir;
  QVector<File> m_files;
  int m_next = 0;
  qint64 m_doneBytes = 0, m_totalBytes = 0;
  bool m_asked = false;  // the host was asked what there is to fetch
  bool m_finished = false;
  bool m_noCheckpoint = false;
  bool m_elsewhere = false;
  std::unique_ptr<QLockFile> m_lock;  // held while this copy writes the partial folder
};

}  // namespace traindeck
