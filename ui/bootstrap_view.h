// BootstrapView: a remote run's start as it happens, above the pages while the shown run is
// starting: every step with its time ("✓ probe 0.4 s · ✓ sources 1.2 s · ▶ build 2m05s"), the
// running step's last output line (the compiler's progress) or its upload's bytes, and Cancel,
// which stops the start at any step. It follows one job at a time through the Job interface
// alone (a job on several hosts: one line of steps per node), and hides itself once that job no
// longer starts (running, failed, cancelled).
#pragma once

#include <QFrame>
#include <QList>
#include <QPointer>
#include <QTimer>
#include <vector>

#include "job.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace traindeck {

class BootstrapView : public QFrame {
  Q_OBJECT
 public:
  explicit BootstrapView(QWidget* parent = nullptr);
  // nullptr, a job on this machine or a job that is not starting: hidden.
  void follow(Job* job);
  QString stepsText() const;  // what the steps line says (tests)

 private:
  void refresh();

  QPointer<Job> m_job;
  QLabel* m_title = nullptr;
  QLabel* m_steps = nullptr;
  QLabel* m_line = nullptr;
  QProgressBar* m_bytes = nullptr;
  QPushButton* m_cancel = nullptr;
  QTimer m_tick;  // the running step's clock
  std::vector<QMetaObject::Connection> m_connections;
};

}  // namespace traindeck
