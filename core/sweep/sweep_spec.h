// A sweep: a base job and the config keys it varies (lists, ranges, conditions), how trials
// are drawn, repeats over seeds, the metric and its goal, a budget and early stopping. What
// sweep.yaml says, read by loadSweepSpecFile with every problem at its line (docs/sweeps.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config_io.h"
#include "config/diagnostic.h"
#include "param_value.h"

namespace traindeck {

enum class SweepMethod { Grid, Random, Sobol };
enum class MetricGoal { Min, Max };
enum class EarlyStoppingMethod { None, Asha, Median };
enum class ProgressUnit { Tokens, Steps };

// The parameter is set only when every listed parameter (written above it) has one of the
// listed values: `when: {schedule.decay: cosine}`.
struct ParamCondition {
  std::string key;
  std::vector<ParamValue> anyOf;
  bool operator==(const ParamCondition&) const = default;
};

struct ParameterSpec {
  std::string key;  // a config key, "optimizer.lr"
  // Either a finite list (`values:` or `choices:`; a grid takes each) ...
  std::vector<ParamValue> values;
  // ... or a range, sampled by random and sobol: [min, max], uniform or log-uniform, of
  // whole numbers where `integer` (always for whole-number keys).
  bool isRange = false;
  double min = 0;
  double max = 0;
  bool log = false;
  bool integer = false;
  std::vector<ParamCondition> when;  // all must hold
  SourcePlace place;                 // the key's place in sweep.yaml
  bool operator==(const ParameterSpec&) const = default;
};

// Each configuration runs once per seed, with `key` (a whole-number config key) set to it.
struct RepeatSpec {
  std::string key = "seed";
  std::vector<std::int64_t> seeds;  // empty: each configuration runs once, with the job's seed
  bool operator==(const RepeatSpec&) const = default;
};

struct MetricSpec {
  std::string name = "val_loss";  // a metrics.jsonl name: val_loss, loss, ...
  MetricGoal goal = MetricGoal::Min;
  bool operator==(const MetricSpec&) const = default;
};

// Limits on the whole sweep; absent ones do not limit. The runner enforces them.
struct BudgetSpec {
  std::optional<std::int64_t> trials;  // runs started, repeats counted
  std::optional<std::int64_t> tokens;  // training tokens over all trials
  std::optional<double> wallTimeSeconds;
  bool operator==(const BudgetSpec&) const = default;
};

struct EarlyStoppingSpec {
  EarlyStoppingMethod method = EarlyStoppingMethod::None;
  ProgressUnit unit = ProgressUnit::Tokens;
  // Where trials are measured, in `unit`, increasing; written out, or made from `min`,
  // `reduction_factor` and `max` (min, min*rf, min*rf^2, ... up to max).
  std::vector<std::int64_t> rungs;
  double reductionFactor = 3;  // asha: the top 1/rf of a rung go on
  int minTrials = 3;           // median: results of other trials at a rung needed to prune
  bool operator==(const EarlyStoppingSpec&) const = default;
};

struct SweepSpec {
  std::string baseJob;       // as written in sweep.yaml
  std::string baseJobPath;   // resolved against sweep.yaml's folder
  SourcePlace baseJobPlace;  // where `base:` stands in sweep.yaml
  SweepMethod method = SweepMethod::Grid;
  std::uint64_t seed = 0;                 // the sampler's seed (random, sobol)
  std::int64_t trials = 0;                // random and sobol: configurations to draw
  bool scramble = true;                   // sobol: a random digital shift from `seed`
  std::vector<ParameterSpec> parameters;  // in file order
  RepeatSpec repeats;
  MetricSpec metric;
  BudgetSpec budget;
  EarlyStoppingSpec earlyStopping;
  bool operator==(const SweepSpec&) const = default;
};

struct LoadedSweepSpec {
  SweepSpec spec;
  Diagnostics problems;  // every problem, at its line; the spec is usable only without errors
  std::string source;    // file name for messages
};

// Sweep files over this size are refused before parsing.
inline constexpr std::size_t kMaxSweepBytes = 1 << 20;

// Reads sweep.yaml; `baseDir` is the folder `base:` is relative to. Never throws.
LoadedSweepSpec loadSweepSpecText(const std::string& text, const std::string& source = "<text>",
                                  const std::string& baseDir = ".");
// Also reports a base job that does not exist.
LoadedSweepSpec loadSweepSpecFile(const std::string& path);
// That problem, at `base:`, for a spec read from text (`baseDir` as given to it); nullopt when
// the base job is a file.
std::optional<Diagnostic> missingBaseJob(const SweepSpec& spec, const std::string& baseDir);

const char* sweepMethodName(SweepMethod method);
const char* metricGoalName(MetricGoal goal);
const char* progressUnitName(ProgressUnit unit);

}  // namespace traindeck
