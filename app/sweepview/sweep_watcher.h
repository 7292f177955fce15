// Follows one sweep folder while its sweep runs: every second it compares the files' sizes and
// times with the last read's and, when one changed (sweep.json replaced by the runner, a trial's
// metrics grown), reads the folder again and hands out the new SweepView. Lives on the GUI
// thread: a sweep's files are small and only their new lines are parsed.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>

#include "sweep_folder_reader.h"

namespace traindeck {

class SweepWatcher : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 1000;

  explicit SweepWatcher(QObject* parent = nullptr);

  // Reads `sweepDir` now (sweepAvailable before this returns) and follows it; empty: stops.
  void open(const QString& sweepDir);
  QString sweepDir() const { return m_dir; }
  std::shared_ptr<const SweepView> view() const { return m_view; }
  // Reads again now if a file changed; what the timer calls.
  void poll();

 signals:
  void sweepAvailable(std::shared_ptr<const SweepView> view);

 private:
  void readNow();

  QString m_dir;
  QString m_signature;
  std::unique_ptr<SweepFolderReader> m_reader;
  std::shared_ptr<const SweepView> m_view;
  QTimer m_timer;
};

}  // namespace traindeck
