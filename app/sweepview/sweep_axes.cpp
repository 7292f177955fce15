// The axes follow the sweep file where it reads (its order, its ranges, its log flags), else
// the trials' own settings; either way widened to every value a trial has, so none is off-axis.
#include <QObject>
#include <algorithm>
#include <cmath>

#include "sweep/param_value.h"
#include "sweep_view.h"

namespace traindeck {

namespace {

QString lastPart(const std::string& key) {
  const QString k = QString::fromStdString(key);
  return k.mid(k.lastIndexOf('.') + 1);
}

bool isNumber(const ParamValue& v) {
  return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v);
}

double numberOf(const ParamValue& v) {
  if (const auto* whole = std::get_if<std::int64_t>(&v)) return static_cast<double>(*whole);
  return std::get<double>(v);
}

// An axis from the values it must hold: numeric when all are numbers, else their texts.
SweepAxis axisOfValues(const std::string& key, const std::vector<ParamValue>& values) {
  SweepAxis axis;
  axis.key = QString::fromStdString(key);
  axis.title = lastPart(key);
  axis.categorical = !std::all_of(values.begin(), values.end(), isNumber);
  for (const ParamValue& v : values) {
    if (axis.categorical) {
      const QString text = QString::fromStdString(paramValueShort(v));
      if (!axis.categories.contains(text)) axis.categories << text;
      continue;
    }
    const double x = numberOf(v);
    axis.min = std::isnan(axis.min) ? x : std::min(axis.min, x);
    axis.max = std::isnan(axis.max) ? x : std::max(axis.max, x);
  }
  return axis;
}

std::vector<ParamValue> trialValues(const std::vector<SweepTrialView>& trials, const std::string& key) {
  std::vector<ParamValue> out;
  for (const SweepTrialView& trial : trials)
    if (const ParamValue* v = findSetting(trial.record.params.settings, key)) out.push_back(*v);
  return out;
}

SweepAxis parameterAxis(const ParameterSpec& p, const std::vector<SweepTrialView>& trials) {
  std::vector<ParamValue> values = p.isRange ? std::vector<ParamValue>{p.min, p.max} : p.values;
  const std::vector<ParamValue> seen = trialValues(trials, p.key);
  values.insert(values.end(), seen.begin(), seen.end());
  SweepAxis axis = axisOfValues(p.key, values);
  // A log range, or positive numbers spanning two decades or more.
  axis.log = !axis.categorical && axis.min > 0 && (p.log || axis.max >= 100 * axis.min);
  if (!p.isRange && !axis.categorical)
    for (const ParamValue& v : p.values) axis.listed.push_back(numberOf(v));
  return axis;
}

}  // namespace

std::vector<SweepAxis> sweepAxes(const std::optional<SweepSpec>& spec, const std::vector<SweepTrialView>& trials,
                                 const QString& metricName) {
  std::vector<SweepAxis> axes;
  if (spec) {
    for (const ParameterSpec& p : spec->parameters) axes.push_back(parameterAxis(p, trials));
  } else {
    std::vector<std::string> keys;  // as met, trial by trial
    for (const SweepTrialView& trial : trials)
      for (const ParamSetting& s : trial.record.params.settings)
        if (std::find(keys.begin(), keys.end(), s.key) == keys.end()) keys.push_back(s.key);
    for (const std::string& key : keys) axes.push_back(axisOfValues(key, trialValues(trials, key)));
  }
  SweepAxis metric;
  metric.title = metricName;
  for (const SweepTrialView& trial : trials)
    if (std::isfinite(trial.metric)) {
      metric.min = std::isnan(metric.min) ? trial.metric : std::min(metric.min, trial.metric);
      metric.max = std::isnan(metric.max) ? trial.metric : std::max(metric.max, trial.metric);
    }
  axes.push_back(metric);
  return axes;
}

}  // namespace traindeck
