// A value joins the newest row of its step when that row has no value for it yet; otherwise (a
// step logged twice, as a restarted run does) it starts a row of its own, so nothing is lost.
#include "imports/run_builder.h"

#include <cmath>
#include <limits>

#include "imports/metric_names.h"

namespace traindeck {

namespace {

constexpr float kNoValue = std::numeric_limits<float>::quiet_NaN();

}  // namespace

RunBuilder::RunBuilder(SourceKind kind, std::string name, std::string path) {
  m_run.kind = kind;
  m_run.name = std::move(name);
  m_run.path = std::move(path);
}

void RunBuilder::setConfig(std::string key, std::string value) {
  for (auto& [k, v] : m_run.config)
    if (k == key) {
      v = std::move(value);
      return;
    }
  m_run.config.emplace_back(std::move(key), std::move(value));
}

void RunBuilder::setTrain(std::vector<float> TrainColumns::*column, std::int64_t step, double time, double value) {
  TrainColumns& t = m_run.metrics.train;
  const auto found = m_trainRowOfStep.find(step);
  std::size_t row = 0;
  if (found != m_trainRowOfStep.end() && std::isnan((t.*column)[found->second])) {
    row = found->second;
    if (std::isnan(t.time[row])) t.time[row] = time;
  } else {
    t.step.push_back(step);
    t.tokens.push_back(0);
    t.time.push_back(time);
    for (auto* each : {&t.loss, &t.lr, &t.gradNorm, &t.tokensPerSecond, &t.stepMs, &t.mfu}) each->push_back(kNoValue);
    row = t.size() - 1;
    m_trainRowOfStep[step] = row;
  }
  (t.*column)[row] = static_cast<float>(value);
}

void RunBuilder::add(std::string_view name, std::int64_t step, double time, double value) {
  const KnownMetric known = knownMetric(name);
  if (known != KnownMetric::None && std::isnan(value)) return;  // absent, in the known columns
  switch (known) {
    case KnownMetric::Loss:
      return setTrain(&TrainColumns::loss, step, time, value);
    case KnownMetric::Lr:
      return setTrain(&TrainColumns::lr, step, time, value);
    case KnownMetric::GradNorm:
      return setTrain(&TrainColumns::gradNorm, step, time, value);
    case KnownMetric::ValLoss: {
      EvalColumns& e = m_run.metrics.eval;
      e.step.push_back(step);
      e.tokens.push_back(0);
      e.time.push_back(time);
      e.valLoss.push_back(static_cast<float>(value));
      return;
    }
    case KnownMetric::None:
      break;
  }
  addUnmapped(name, step, time, value);
}

void RunBuilder::addUnmapped(std::string_view name, std::int64_t step, double time, double value) {
  auto [it, added] = m_seriesOfName.try_emplace(std::string(name), m_run.scalars.size());
  if (added) m_run.scalars.push_back(ScalarSeries{.name = std::string(name), .step = {}, .time = {}, .value = {}});
  ScalarSeries& s = m_run.scalars[it->second];
  s.step.push_back(step);
  s.time.push_back(time);
  s.value.push_back(value);
}

}  // namespace traindeck
