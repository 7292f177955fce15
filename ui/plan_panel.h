// The Setup page's plan, a view of the job document: parameters, memory per rank as a bar
// against the chosen device and by strategy kind side by side, tokens per step, step time and
// throughput, and a warning when the job does not fit. Its device chooser sets the document's
// plan device; everything it shows is the document's plan.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;

namespace traindeck {

class JobDocument;
class KindFitsTable;
class MemoryBar;
struct JobPlan;

class PlanPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlanPanel(JobDocument* document, QWidget* parent = nullptr);

  // The device chooser: "CPU", a name from knownDevices(), or "host" (the probed target host).
  QString deviceName() const;
  void setDeviceName(const QString& name);
  // Everything the panel says, as plain text (for tests and copying).
  QString summaryText() const;

 private:
  void showDocument();
  void showDevices();
  void showPlan(const JobPlan& plan);

  JobDocument* m_document;
  QComboBox* m_device = nullptr;
  QLabel* m_status = nullptr;
  QWidget* m_details = nullptr;
  QLabel* m_parameters = nullptr;
  QLabel* m_memory = nullptr;
  QLabel* m_tokensPerStep = nullptr;
  QLabel* m_stepTime = nullptr;
  QLabel* m_throughput = nullptr;
  QLabel* m_wholeRun = nullptr;
  QLabel* m_warning = nullptr;
  QLabel* m_notes = nullptr;
  MemoryBar* m_bar = nullptr;
  KindFitsTable* m_kinds = nullptr;  // per-rank memory under each kind, side by side
};

}  // namespace traindeck
