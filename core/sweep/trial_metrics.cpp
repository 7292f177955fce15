#include "trial_metrics.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "runlog/metrics_jsonl_parser.h"
#include "runlog/run_paths.h"

namespace traindeck {

namespace {

// The column of `metric` in the batch and the steps it is at; nullptr for a name not known.
struct MetricColumn {
  const std::vector<std::int64_t>* steps = nullptr;
  const std::vector<float>* values = nullptr;
};

MetricColumn columnOf(const MetricsBatch& batch, const std::string& metric) {
  const TrainColumns& t = batch.train;
  if (metric == "val_loss") return {&batch.eval.step, &batch.eval.valLoss};
  if (metric == "loss") return {&t.step, &t.loss};
  if (metric == "lr") return {&t.step, &t.lr};
  if (metric == "grad_norm") return {&t.step, &t.gradNorm};
  if (metric == "tokens_per_s") return {&t.step, &t.tokensPerSecond};
  if (metric == "step_ms") return {&t.step, &t.stepMs};
  if (metric == "mfu") return {&t.step, &t.mfu};
  return {};
}

}  // namespace

const std::vector<std::string>& sweepMetricNames() {
  static const std::vector<std::string> names{"val_loss", "loss", "lr", "grad_norm", "tokens_per_s", "step_ms", "mfu"};
  return names;
}

bool isSweepMetric(const std::string& name) {
  const auto& names = sweepMetricNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TrialMeasure measureRun(const std::string& runDir, const std::string& metric, std::int64_t atStep) {
  TrialMeasure measure;
  std::ifstream in(RunPaths{runDir}.metrics(), std::ios::binary);
  if (!in) return measure;
  std::ostringstream text;
  text << in.rdbuf();
  MetricsJsonlParser parser;
  const MetricsBatch batch = parser.feed(text.str() + "\n");  // a last line without its newline counts too
  if (const TrainColumns& t = batch.train; t.size() > 0) {
    measure.step = t.step.back();
    measure.tokens = t.tokens.back();
  }
  const MetricColumn column = columnOf(batch, metric);
  if (!column.steps) return measure;
  // A resumed run writes steps again from its checkpoint: the newest record of a step counts.
  for (std::size_t i = column.steps->size(); i-- > 0;) {
    const std::int64_t step = (*column.steps)[i];
    if (atStep >= 0 && step > atStep) continue;
    measure.metric = (*column.values)[i];
    measure.metricStep = step;
    break;
  }
  return measure;
}

}  // namespace traindeck
