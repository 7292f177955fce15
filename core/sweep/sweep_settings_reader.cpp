// The smaller sections of sweep.yaml: repeats over seeds, the metric, the budget and early
// stopping. Each accepts a short form where one reads naturally (`metric: val_loss`,
// `repeats: [1, 2]`).
#include <algorithm>
#include <cmath>

#include "config_key_values.h"
#include "duration_text.h"
#include "sweep_spec_parts.h"
#include "sweep_yaml_read.h"

namespace traindeck::sweep_yaml {

RepeatSpec readRepeats(const YAML::Node& node, Diagnostics& out) {
  RepeatSpec repeats;
  YAML::Node seeds = node;
  if (node.IsMap()) {
    checkKeys(node, "repeats", {"key", "seeds"}, out);
    if (const YAML::Node key = node["key"]) {
      const FieldInfo* field = key.IsScalar() ? findFieldInfo(key.Scalar()) : nullptr;
      if (!field || configValueKind(*field) != ConfigValueKind::Whole)
        out.push_back(diagnosticAt(key, "repeats.key", "must be a whole-number config key, not " + describe(key),
                                   "the job's seed is `seed`, the default"));
      else
        repeats.key = key.Scalar();
    }
    seeds = node["seeds"];
  }
  if (!seeds || !seeds.IsSequence() || seeds.size() == 0) {
    out.push_back(diagnosticAt(seeds ? seeds : node, "repeats.seeds", "must be a list of seeds, not " + describe(seeds),
                               "e.g. repeats: {seeds: [1, 2, 3]}"));
    return repeats;
  }
  const FieldInfo* field = findFieldInfo(repeats.key);
  for (const YAML::Node& item : seeds) {
    const auto value = readConfigValue(item, *field, out);
    if (!value) continue;
    const std::int64_t seed = std::get<std::int64_t>(*value);
    if (std::find(repeats.seeds.begin(), repeats.seeds.end(), seed) != repeats.seeds.end())
      out.push_back(diagnosticAt(item, "repeats.seeds", "has " + std::to_string(seed) + " twice", "remove one"));
    else
      repeats.seeds.push_back(seed);
  }
  return repeats;
}

MetricSpec readMetric(const YAML::Node& node, Diagnostics& out) {
  MetricSpec metric;
  if (node.IsScalar()) {
    metric.name = node.Scalar();
    return metric;
  }
  if (!node.IsMap()) {
    out.push_back(diagnosticAt(node, "metric", "must be a metric's name or {name:, goal:}, not " + describe(node),
                               "e.g. metric: {name: val_loss, goal: min}"));
    return metric;
  }
  checkKeys(node, "metric", {"name", "goal"}, out);
  if (!node["name"])
    out.push_back(diagnosticAt(node, "metric", "needs name:", "a metrics.jsonl name such as val_loss or loss"));
  else if (auto name = readText(node["name"], "metric.name", out))
    metric.name = *name;
  if (node["goal"])
    if (auto goal = readName(node["goal"], "metric.goal", {"min", "max"}, out))
      metric.goal = *goal == "max" ? MetricGoal::Max : MetricGoal::Min;
  return metric;
}

BudgetSpec readBudget(const YAML::Node& node, Diagnostics& out) {
  BudgetSpec budget;
  if (!readMap(node, "budget", {"trials", "tokens", "wall_time"}, "budget: {trials: 40, tokens: 2e9, wall_time: 12h}",
               out))
    return budget;
  if (node["trials"])
    if (auto trials = readWhole(node["trials"], "budget.trials", 1, out)) budget.trials = *trials;
  if (node["tokens"])
    if (auto tokens = readWhole(node["tokens"], "budget.tokens", 1, out)) budget.tokens = *tokens;
  if (const YAML::Node wall = node["wall_time"]) {
    budget.wallTimeSeconds = wall.IsScalar() ? parseDuration(wall.Scalar()) : std::nullopt;
    if (!budget.wallTimeSeconds)
      out.push_back(
          diagnosticAt(wall, "budget.wall_time", "must be a duration such as 2h, 90m or 1h30m, not " + describe(wall)));
  }
  return budget;
}

namespace {

// min, min*rf, min*rf^2, ... while at most max.
std::vector<std::int64_t> geometricRungs(std::int64_t min, std::int64_t max, double factor) {
  std::vector<std::int64_t> rungs;
  for (double at = static_cast<double>(min); at <= static_cast<double>(max) * (1 + 1e-12); at *= factor)
    rungs.push_back(static_cast<std::int64_t>(std::llround(at)));
  return rungs;
}

void readRungs(const YAML::Node& node, EarlyStoppingSpec& spec, Diagnostics& out) {
  const YAML::Node list = node["rungs"];
  if (list && (node["min"] || node["max"])) {
    out.push_back(diagnosticAt(list, "early_stopping.rungs", "is given with min:/max:; give one or the other",
                               "rungs: [1e7, 3e7, 9e7], or min: 1e7 and max: 9e7 with reduction_factor: 3"));
    return;
  }
  if (list) {
    if (!list.IsSequence() || list.size() == 0) {
      out.push_back(diagnosticAt(list, "early_stopping.rungs", "must be a list of points, not " + describe(list)));
      return;
    }
    for (const YAML::Node& item : list) {
      const auto at = readWhole(item, "early_stopping.rungs", 1, out);
      if (!at) continue;
      if (!spec.rungs.empty() && *at <= spec.rungs.back()) {
        out.push_back(diagnosticAt(
            item, "early_stopping.rungs",
            "must increase: " + std::to_string(*at) + " is not above " + std::to_string(spec.rungs.back())));
        continue;
      }
      spec.rungs.push_back(*at);
    }
    return;
  }
  if (!node["min"] || !node["max"]) {
    out.push_back(diagnosticAt(node, "early_stopping", "needs rungs: [...], or min: and max:",
                               "the points (in " + std::string(progressUnitName(spec.unit)) +
                                   ") where trials are compared, e.g. rungs: [1e7, 3e7, 9e7]"));
    return;
  }
  const auto min = readWhole(node["min"], "early_stopping.min", 1, out);
  const auto max = readWhole(node["max"], "early_stopping.max", 1, out);
  if (!min || !max) return;
  if (*max < *min) {
    out.push_back(diagnosticAt(node["max"], "early_stopping.max", "must be at least min"));
    return;
  }
  spec.rungs = geometricRungs(*min, *max, spec.reductionFactor);
}

}  // namespace

EarlyStoppingSpec readEarlyStopping(const YAML::Node& node, Diagnostics& out) {
  EarlyStoppingSpec spec;
  if (!readMap(node, "early_stopping", {"method", "unit", "rungs", "min", "max", "reduction_factor", "min_trials"},
               "early_stopping: {method: asha, unit: tokens, rungs: [1e7, 3e7, 9e7]}", out))
    return spec;
  if (!node["method"]) {
    out.push_back(diagnosticAt(node, "early_stopping", "needs method: asha or median"));
    return spec;
  }
  const auto method = readName(node["method"], "early_stopping.method", {"asha", "median"}, out);
  if (!method) return spec;
  spec.method = *method == "asha" ? EarlyStoppingMethod::Asha : EarlyStoppingMethod::Median;
  if (node["unit"])
    if (auto unit = readName(node["unit"], "early_stopping.unit", {"tokens", "steps"}, out))
      spec.unit = *unit == "steps" ? ProgressUnit::Steps : ProgressUnit::Tokens;
  if (const YAML::Node factor = node["reduction_factor"]) {
    const auto value = readNumber(factor, "early_stopping.reduction_factor", out);
    if (value && *value < 2)
      out.push_back(diagnosticAt(factor, "early_stopping.reduction_factor", "must be at least 2",
                                 "3 keeps a third of the trials at each rung"));
    else if (value)
      spec.reductionFactor = *value;
  }
  if (const YAML::Node minTrials = node["min_trials"]) {
    if (spec.method != EarlyStoppingMethod::Median)
      out.push_back(diagnosticAt(minTrials, "early_stopping.min_trials", "is for method: median; asha ignores it",
                                 "remove it", Severity::Warning));
    if (auto value = readWhole(minTrials, "early_stopping.min_trials", 1, out))
      spec.minTrials = static_cast<int>(*value);
  }
  readRungs(node, spec, out);
  return spec;
}

}  // namespace traindeck::sweep_yaml
