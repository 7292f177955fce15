// What a trial's run measured, read from its metrics.jsonl: the sweep's metric at a step (a
// rung, where the trainer evaluates before it stops) or at the end, and the tokens trained.
// The runner reads it when a trial's process ends; nothing here follows a live file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traindeck {

// The metrics.jsonl names a sweep can rank by: val_loss (eval records) and the train records'
// loss, lr, grad_norm, tokens_per_s, step_ms, mfu.
const std::vector<std::string>& sweepMetricNames();
bool isSweepMetric(const std::string& name);

struct TrialMeasure {
  std::optional<double> metric;  // the newest value at or before the step asked for; none: not measured
  std::int64_t metricStep = -1;  // the step of that value
  std::int64_t step = 0;         // the newest train record's step (0: none)
  std::int64_t tokens = 0;       // and its tokens
};

// `runDir`'s measures; `atStep` < 0: the newest value of the metric. A missing or unreadable
// file measures nothing (no metric, step 0).
TrialMeasure measureRun(const std::string& runDir, const std::string& metric, std::int64_t atStep = -1);

}  // namespace traindeck
