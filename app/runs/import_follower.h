// Follows another tool's run: core/imports reads it whole, so it is read once started and again
// whenever its files' sizes or times change (a stat of a few files every kPollMs: other tools
// append to their files from other processes, and inotify is not on every file system), and
// what was read is handed over as one value. A read that fails is not tried again until the
// files change. Threading as MetricsFollower's: its owner moves it to a worker thread, invokes
// start() there (queued) and deletes it there.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "imported_runs.h"
#include "imports/imported_run.h"

class QTimer;

namespace traindeck {

// One read of another tool's run: the run, or why it could not be read.
struct ImportedRead {
  std::shared_ptr<ImportedRun> run;  // null when the read failed
  QString error;                     // "…/trainer_state.json is not JSON: …"; empty when read
};

class ImportFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 1000;

  explicit ImportFollower(RunSource source, QObject* parent = nullptr);
  ~ImportFollower() override;

 public slots:
  void start();
  // Reads the run when its files changed since the last read (or it was never read). Public for tests.
  void poll();

 signals:
  void runRead(const traindeck::ImportedRead& read);

 private:
  RunSource m_source;
  QString m_path;  // the run's folder or file, as importSignature takes it
  ImportSignature m_signature;
  bool m_read = false;
  QTimer* m_timer = nullptr;
};

}  // namespace traindeck

Q_DECLARE_METATYPE(traindeck::ImportedRead)
