// Words only: the numbers are app/setup's SweepDocument's, made by core/sweep's sweepCost.
#include "sweep_summary_panel.h"

#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "config/planner.h"
#include "progress_text.h"
#include "sweep_document.h"
#include "value_label.h"

namespace traindeck {

namespace {

// "655 M", "1.5 B", "12,000"
QString shortCount(double count) {
  if (count >= 1e9) return SweepSummaryPanel::tr("%1 B").arg(count / 1e9, 0, 'g', 3);
  if (count >= 1e6) return SweepSummaryPanel::tr("%1 M").arg(count / 1e6, 0, 'g', 3);
  return QString::fromStdString(formatThousands(static_cast<std::int64_t>(count)));
}

QString tokenCount(double tokens) {
  return SweepSummaryPanel::tr("%1 tokens").arg(shortCount(tokens));
}

QString stepSecondsText(double seconds) {
  return seconds < 60 ? SweepSummaryPanel::tr("%1 s").arg(seconds, 0, 'g', 3) : formatSeconds(seconds);
}

// "3h20m of trials · 6.7 GPU-hours · 1.2 B tokens · 1h40m wall on 2 slots"
QString workText(const SweepWork& work, bool timed, bool onCpu, int slotCount) {
  if (!timed) return SweepSummaryPanel::tr("%1 (no step time: see Each trial)").arg(tokenCount(work.tokens));
  return SweepSummaryPanel::tr("%1 of trials · %2 %3 · %4 · %5 wall on %6")
      .arg(formatSeconds(work.seconds))
      .arg(work.deviceSeconds / 3600.0, 0, 'g', 3)
      .arg(onCpu ? SweepSummaryPanel::tr("CPU-hours (ranks × hours)") : SweepSummaryPanel::tr("GPU-hours"))
      .arg(tokenCount(work.tokens), formatSeconds(work.wallSeconds),
           slotCount == 1 ? SweepSummaryPanel::tr("1 slot") : SweepSummaryPanel::tr("%1 slots").arg(slotCount));
}

// "10 M, 30 M, 90 M"
QString rungList(const EarlyStoppingSpec& stopping) {
  QStringList rungs;
  for (std::int64_t rung : stopping.rungs) rungs << shortCount(static_cast<double>(rung));
  return rungs.join(QStringLiteral(", "));
}

QString trialsText(const SweepSummary& summary) {
  const SweepTrialCount& count = summary.count;
  const QString method = QString::fromLatin1(sweepMethodName(summary.spec.method));
  QString text = count.configurations == 1
                     ? SweepSummaryPanel::tr("%1: 1 configuration").arg(method)
                     : SweepSummaryPanel::tr("%1: %2 configurations").arg(method).arg(count.configurations);
  if (count.seeds > 1) text += SweepSummaryPanel::tr(" × %1 seeds = %2 trials").arg(count.seeds).arg(count.planned);
  if (count.capped()) text += SweepSummaryPanel::tr("; budget.trials runs the first %1").arg(count.trials);
  return text;
}

// Each trial's own job, planned: its steps and step time, as a range where trials differ.
QString eachTrialText(const SweepSummary& summary) {
  const std::vector<TrialRun>& runs = summary.runs;
  if (runs.empty()) return {};
  const auto [fewest, most] = std::minmax_element(
      runs.begin(), runs.end(), [](const TrialRun& a, const TrialRun& b) { return a.steps < b.steps; });
  const auto [fastest, slowest] = std::minmax_element(
      runs.begin(), runs.end(), [](const TrialRun& a, const TrialRun& b) { return a.stepSeconds < b.stepSeconds; });
  const auto range = [](const QString& low, const QString& high) { return low == high ? low : low + "–" + high; };
  const QString steps = range(QString::fromStdString(formatThousands(fewest->steps)),
                              QString::fromStdString(formatThousands(most->steps)));
  QString text =
      fastest->stepSeconds > 0
          ? SweepSummaryPanel::tr("%1 steps at %2 a step")
                .arg(steps, range(stepSecondsText(fastest->stepSeconds), stepSecondsText(slowest->stepSeconds)))
          : SweepSummaryPanel::tr("%1 steps; step time unknown (no peak for this precision on this device)").arg(steps);
  text += SweepSummaryPanel::tr(" — each trial's own job (the base job with its keys set) planned on %1")
              .arg(summary.device);
  if (summary.planned < summary.count.trials)
    text += SweepSummaryPanel::tr("; the first %1 trials planned, the rest taken as like them").arg(summary.planned);
  return text;
}

// What the budget's tokens and wall time leave of the expected work (else all of it); with an
// expected figure, also of all trials to their end when the budget stops those.
QString budgetText(const SweepSummary& summary, const SweepCost& cost, int slotCount) {
  const BudgetSpec& budget = summary.spec.budget;
  QStringList limits;
  if (budget.tokens)
    limits << SweepSummaryPanel::tr("budget.tokens %1").arg(tokenCount(static_cast<double>(*budget.tokens)));
  if (budget.wallTimeSeconds)
    limits << SweepSummaryPanel::tr("budget.wall_time %1").arg(formatSeconds(*budget.wallTimeSeconds));
  if (limits.isEmpty()) return SweepSummaryPanel::tr("no limit on tokens or wall time");
  const auto stopsAt = [&](const std::string& key, const SweepWork& work) {
    return SweepSummaryPanel::tr("budget.%1 stops it at %2")
        .arg(QString::fromStdString(key), workText(work, cost.timed, summary.onCpu, slotCount));
  };
  QString text = cost.budgetStops.empty()
                     ? SweepSummaryPanel::tr("within %1").arg(limits.join(SweepSummaryPanel::tr(" and ")))
                     : stopsAt(cost.budgetStops, cost.budgeted);
  if (!cost.expected) return text;
  std::string atMostStops;
  const SweepWork atMost = withinBudget(budget, cost.atMost, cost.timed, atMostStops);
  text = SweepSummaryPanel::tr("expected: %1").arg(text);
  if (!atMostStops.empty()) text += SweepSummaryPanel::tr("; at most: %1").arg(stopsAt(atMostStops, atMost));
  return text;
}

}  // namespace

SweepSummaryPanel::SweepSummaryPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("sweepSummary");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Trials and cost (est.)")), this));
  m_details = new QWidget(this);
  auto* form = new QFormLayout(m_details);
  form->setContentsMargins(0, 0, 0, 0);
  m_trials = valueLabel("sweep.trials", m_details);
  m_eachTrial = valueLabel("sweep.eachTrial", m_details);
  m_atMost = valueLabel("sweep.atMost", m_details);
  m_expected = valueLabel("sweep.expected", m_details);
  m_budget = valueLabel("sweep.budget", m_details);
  form->addRow(tr("Trials"), m_trials);
  form->addRow(tr("Each trial"), m_eachTrial);
  form->addRow(tr("At most"), m_atMost);
  form->addRow(tr("Expected"), m_expected);
  form->addRow(tr("Budget"), m_budget);
  layout->addWidget(m_details);
  m_status = valueLabel("sweep.status", this);
  layout->addWidget(m_status);
}

void SweepSummaryPanel::setSummary(const SweepSummary& summary, int slotCount) {
  m_details->setVisible(summary.readable);
  QStringList status;
  for (const QString& line : {summary.why, summary.jobNote})
    if (!line.isEmpty()) status << line;
  m_status->setText(status.join('\n'));
  m_status->setVisible(!status.isEmpty());
  if (!summary.readable) return;
  m_trials->setText(trialsText(summary));
  const std::optional<SweepCost>& cost = summary.cost;
  for (QLabel* label : {m_eachTrial, m_atMost, m_expected, m_budget}) label->setText(cost ? QString() : tr("—"));
  if (!cost) return;
  m_eachTrial->setText(eachTrialText(summary));
  m_atMost->setText(workText(cost->atMost, cost->timed, summary.onCpu, slotCount) + tr(" (all trials to the end)"));
  const EarlyStoppingSpec& stopping = summary.spec.earlyStopping;
  if (cost->expected)
    m_expected->setText(workText(*cost->expected, cost->timed, summary.onCpu, slotCount) +
                        tr(" with ASHA: all trials to the first of its rungs (%1 %2), 1/%3 of them on at each next")
                            .arg(rungList(stopping), QString::fromLatin1(progressUnitName(stopping.unit)))
                            .arg(stopping.reductionFactor));
  else if (stopping.method == EarlyStoppingMethod::Median)
    m_expected->setText(tr("median stopping: at most the above; how many trials it stops depends on their results"));
  else
    m_expected->setText(tr("no early stopping: every trial runs to its end"));
  m_budget->setText(budgetText(summary, *cost, slotCount));
}

QString SweepSummaryPanel::summaryText() const {
  QStringList out;
  if (!m_details->isHidden()) {
    out << tr("Trials: ") + m_trials->text() << tr("Each trial: ") + m_eachTrial->text()
        << tr("At most: ") + m_atMost->text() << tr("Expected: ") + m_expected->text()
        << tr("Budget: ") + m_budget->text();
  }
  if (!m_status->text().isEmpty()) out << m_status->text();
  return out.join('\n');
}

}  // namespace traindeck
