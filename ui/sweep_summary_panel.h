// The Sweep tab's summary: the method and how many trials (configurations × seeds, capped by
// budget.trials), what each trial's job is planned to take, the cost of all trials to their end
// and, with ASHA, the expected one, each as trial time, device-hours, tokens and wall time on
// the slots; then what the budget allows. Where no cost can be made, why.
#pragma once

#include <QWidget>

class QLabel;

namespace traindeck {

struct SweepSummary;

class SweepSummaryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SweepSummaryPanel(QWidget* parent = nullptr);

  void setSummary(const SweepSummary& summary, int slotCount);
  // Everything it says, as plain text (for tests and copying).
  QString summaryText() const;

 private:
  QLabel* m_status = nullptr;
  QWidget* m_details = nullptr;
  QLabel* m_trials = nullptr;
  QLabel* m_eachTrial = nullptr;
  QLabel* m_atMost = nullptr;
  QLabel* m_expected = nullptr;
  QLabel* m_budget = nullptr;
};

}  // namespace traindeck
