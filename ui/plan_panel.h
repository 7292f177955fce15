// The Setup page's plan: parameters, memory per rank as a bar against the chosen device and by
// strategy kind side by side, tokens per step, step time and throughput, and a warning when the
// job does not fit. It re-plans whenever it is given a config or the device chooser changes.
#pragma once

#include <QWidget>
#include <optional>

#include "config/planner.h"
#include "config/run_config.h"
#include "probed_devices.h"

class QComboBox;
class QLabel;

namespace traindeck {

class KindFitsTable;
class MemoryBar;

class PlanPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlanPanel(QWidget* parent = nullptr);

  // Plans `config`; nullopt when its model or strategy has errors (no plan can be made).
  void setConfig(const std::optional<RunConfig>& config);
  // The device chooser: "CPU" or a name from knownDevices().
  QString deviceName() const;
  void setDeviceName(const QString& name);
  // The devices of the host the job runs on (from its probe): planned for, first in the chooser
  // as "host" (validation says when the job asks for more than it has). nullopt: none.
  void setHost(const std::optional<ProbedDevices>& devices, const QString& spec);
  // Everything the panel says, as plain text (for tests and copying).
  QString summaryText() const;
  // When the job does not fit the device planned for: what and what to change (a problem the
  // Setup page lists with the others). Empty message: it fits, or there is no plan.
  struct FitProblem {
    QString message;
    QString hint;
    bool operator==(const FitProblem&) const = default;
  };
  FitProblem fitProblem() const { return m_fitProblem; }

 signals:
  void fitProblemChanged();

 private:
  void replan();
  QString wholeRunText(const Plan& plan, const DeviceSpec& device) const;

  std::optional<RunConfig> m_config;
  std::optional<ProbedDevices> m_host;
  QString m_hostSpec;
  FitProblem m_fitProblem;
  std::optional<DeviceKind> m_plannedKind;  // the device kind the default device was picked for
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
