// CheckpointSync: while a remote run is followed, its newest COMPLETE checkpoint is copied into
// the mirror in the background, so that this computer holds the last one when the host goes
// (a Colab runtime ends; nothing on it survives). Every kIntervalMs, and at once after a copy
// (the host may have saved a newer one meanwhile), when no copy is under way,
// a RemoteFetch on the run's own connection takes the newest one the host has (resumable,
// SHA-256 checked, COMPLETE last; one already here costs one listing). Once one is whole, the
// mirror keeps the newest `keep` complete checkpoints and removes the older ones; folders still
// being copied (.partial) and checkpoints without COMPLETE are left alone. GUI thread.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include "remote_host.h"
#include "remote_record.h"
#include "runlog/checkpoint_names.h"

namespace traindeck {

class RemoteFetch;

class CheckpointSync : public QObject {
  Q_OBJECT
 public:
  static constexpr int kIntervalMs = 10000;

  // `host` is the run's connection and must outlive this object; keep >= 1.
  CheckpointSync(const QString& runDir, const RemoteRecord& record, RemoteHost* host, int keep,
                 QObject* parent = nullptr);
  ~CheckpointSync() override;

  void start();    // syncs now, then every kIntervalMs
  void syncNow();  // unless a copy is under way
  bool isCopying() const { return m_fetch != nullptr; }

  // The mirror's complete checkpoints (step-N with COMPLETE), oldest first.
  static QStringList completeCheckpoints(const QString& runDir);
  // The newest of them, or empty.
  static QString newestCheckpoint(const QString& runDir);
  // The step a checkpoint folder's name says ("step-00000020" -> 20).
  static qint64 stepOf(const QString& name) { return checkpointStep(name.toStdString()); }
  // Removes all but the newest `keep` of them, and copies cut short (step-N.partial) but the
  // newest one when it is newer than every complete one; returns the names removed.
  static QStringList pruneCheckpoints(const QString& runDir, int keep);

 signals:
  // A checkpoint new to the mirror is whole: its name, bytes copied and the seconds it took.
  void synced(const QString& name, qint64 bytes, double seconds);
  void syncFailed(const QString& why);  // a copy that failed; tried again at the next interval
  void idle();                          // a sync ended (copied, nothing new, or failed)

 private:
  QString m_runDir;
  RemoteRecord m_record;
  RemoteHost* m_host;
  int m_keep;
  QTimer m_timer;
  RemoteFetch* m_fetch = nullptr;
  QElapsedTimer m_copyClock;
  qint64 m_bytes = 0;
};

}  // namespace traindeck
