// The axes' arithmetic and the trial texts. A log axis needs positive ends; where a value is not
// positive it is drawn as linear, so nothing is lost off the chart.
#include "sweep_view.h"

#include <QObject>
#include <cmath>
#include <map>

#include "sweep/param_value.h"

namespace traindeck {

namespace {
bool usesLog(const SweepAxis& axis) {
  return axis.log && axis.min > 0 && axis.max > axis.min;
}
}  // namespace

double SweepAxis::valueOf(const SweepTrialView& trial) const {
  if (isMetric()) return trial.metric;
  const ParamValue* value = findSetting(trial.record.params.settings, key.toStdString());
  if (value == nullptr) return kNoValue;
  if (categorical) {
    const qsizetype at = categories.indexOf(QString::fromStdString(paramValueShort(*value)));
    return at < 0 ? kNoValue : static_cast<double>(at);
  }
  if (const auto* whole = std::get_if<std::int64_t>(value)) return static_cast<double>(*whole);
  if (const auto* number = std::get_if<double>(value)) return *number;
  return kNoValue;
}

double SweepAxis::fraction(double value) const {
  if (!std::isfinite(value)) return kNoValue;
  if (categorical) return categories.size() < 2 ? 0.5 : value / static_cast<double>(categories.size() - 1);
  if (!(max > min)) return 0.5;
  if (usesLog(*this) && value > 0) return std::log(value / min) / std::log(max / min);
  return (value - min) / (max - min);
}

double SweepAxis::valueAt(double f) const {
  if (categorical) return categories.size() < 2 ? 0 : f * static_cast<double>(categories.size() - 1);
  if (!(max > min)) return min;
  if (usesLog(*this)) return min * std::pow(max / min, f);
  return min + f * (max - min);
}

QString SweepAxis::label(double value) const {
  if (!std::isfinite(value)) return QObject::tr("not set");
  if (categorical) return categories.value(static_cast<qsizetype>(std::lround(value)));
  return QString::fromStdString(paramValueShort(ParamValue(value)));
}

const SweepAxis* SweepView::axis(const QString& key) const {
  for (const SweepAxis& a : axes)
    if (a.key == key) return &a;
  return nullptr;
}

int bestTrial(const std::vector<SweepTrialView>& trials, MetricGoal goal) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(trials.size()); ++i) {
    const double m = trials[static_cast<std::size_t>(i)].metric;
    if (!std::isfinite(m)) continue;
    const double b = best < 0 ? kNoValue : trials[static_cast<std::size_t>(best)].metric;
    if (best < 0 || (goal == MetricGoal::Min ? m < b : m > b)) best = i;
  }
  return best;
}

std::optional<RungResult> prunedAt(const TrialRecord& trial) {
  if (trial.state != TrialState::Pruned || trial.rungs.empty()) return std::nullopt;
  return trial.rungs.back();
}

QString progressText(std::int64_t at, ProgressUnit unit) {
  const double v = static_cast<double>(at);
  QString number = QString::number(at);
  static const std::pair<double, const char*> kScales[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, suffix] : kScales)
    if (std::abs(v) >= scale) {
      number = QString::number(v / scale, 'g', 3) + suffix;
      break;
    }
  return unit == ProgressUnit::Tokens ? QObject::tr("%1 tokens").arg(number) : QObject::tr("%1 steps").arg(number);
}

QString trialCountsText(const SweepView& view) {
  std::map<TrialState, int> counts;
  for (const SweepTrialView& trial : view.trials) ++counts[trial.record.state];
  QStringList parts;
  for (const auto& [state, n] : counts) parts << QStringLiteral("%1 %2").arg(n).arg(trialStateName(state));
  const QString total =
      view.trials.size() == 1 ? QObject::tr("1 trial") : QObject::tr("%1 trials").arg(view.trials.size());
  return parts.isEmpty() ? total : total + ": " + parts.join(", ");
}

QString trialStateText(const TrialRecord& trial, ProgressUnit unit) {
  switch (trial.state) {
    case TrialState::Queued:
      return QObject::tr("queued");
    case TrialState::Running:
      return trial.clearedRung >= 0 ? QObject::tr("running, past rung %1").arg(trial.clearedRung)
                                    : QObject::tr("running");
    case TrialState::Pruned:
      if (const auto at = prunedAt(trial))
        return QObject::tr("pruned at rung %1 (%2)").arg(at->rung).arg(progressText(at->at, unit));
      return QObject::tr("pruned");
    case TrialState::Promoted:
      return QObject::tr("promoted from rung %1").arg(trial.clearedRung);
    case TrialState::Finished:
      return QObject::tr("finished");
    case TrialState::Crashed:
      return QObject::tr("crashed, to be retried");
    case TrialState::Failed:
      return QObject::tr("failed");
    case TrialState::Deleted:
      return QObject::tr("run deleted");
  }
  return {};
}

}  // namespace traindeck
