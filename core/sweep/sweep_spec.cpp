// sweep.yaml's top level: which sections there are, the method and what it needs (a grid
// takes lists only; random and sobol a number of trials; sobol at most kSobolDimensions
// parameters), and the base job, resolved against the sweep file's folder.
#include "sweep_spec.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/path_expand.h"
#include "sobol_sequence.h"
#include "sweep_spec_parts.h"
#include "sweep_yaml_read.h"

namespace traindeck {

using namespace sweep_yaml;

namespace {

const std::vector<std::string> kTopLevelKeys{"base",    "method", "seed",   "trials",         "scramble",
                                             "repeats", "metric", "budget", "early_stopping", "parameters"};

// Beyond this many configurations a grid is surely a mistake (a range read as a list?).
constexpr double kMaxGridConfigurations = 100000;

// A problem with a parameter as a whole, at its key.
Diagnostic parameterProblem(const ParameterSpec& parameter, std::string message, std::string hint) {
  Diagnostic d = fileDiagnostic(std::move(message), parameter.place.line, parameter.place.column);
  d.path = parameter.key;
  d.hint = std::move(hint);
  return d;
}

void checkMethod(const YAML::Node& root, SweepSpec& spec, Diagnostics& out) {
  const YAML::Node trials = root["trials"];
  if (spec.method == SweepMethod::Grid) {
    double configurations = 1;
    for (const ParameterSpec& p : spec.parameters) {
      if (p.isRange)
        out.push_back(parameterProblem(p, "is a range, and a grid tries only listed values",
                                       "give values: [...], or choose method: random or sobol"));
      else
        configurations *= static_cast<double>(p.values.size());
    }
    if (configurations > kMaxGridConfigurations)
      out.push_back(diagnosticAt(root["method"], "method",
                                 "grid has " + std::to_string(static_cast<long long>(configurations)) +
                                     " configurations, more than a sweep can run",
                                 "fewer values, or method: random with trials:"));
    if (trials)
      out.push_back(diagnosticAt(trials, "trials", "is for random and sobol; a grid runs every combination",
                                 "remove it; budget: {trials: N} caps how many runs start"));
    return;
  }
  if (!trials)
    out.push_back(
        diagnosticAt(root["method"], "trials",
                     std::string(sweepMethodName(spec.method)) + " needs trials: (how many configurations to draw)"));
  else if (auto count = readWhole(trials, "trials", 1, out))
    spec.trials = *count;
  if (spec.method == SweepMethod::Sobol && spec.parameters.size() > kSobolDimensions)
    out.push_back(diagnosticAt(root["parameters"], "parameters",
                               "has " + std::to_string(spec.parameters.size()) + " parameters; sobol handles at most " +
                                   std::to_string(kSobolDimensions),
                               "use method: random"));
}

void readBase(const YAML::Node& node, const std::string& baseDir, SweepSpec& spec, Diagnostics& out) {
  if (!node) {
    out.push_back(fileDiagnostic("needs base: the job file this sweep varies (e.g. base: job.yaml)"));
    return;
  }
  const auto base = readText(node, "base", out);
  if (!base) return;
  spec.baseJob = *base;
  spec.baseJobPlace = {node.Mark().line + 1, node.Mark().column + 1};
  const ExpandedPath expanded = expandPath(*base, baseDir, processEnvironment());
  if (!expanded.error.empty())
    out.push_back(diagnosticAt(node, "base", expanded.error));
  else
    spec.baseJobPath = std::filesystem::path(expanded.path).lexically_normal().string();
}

void readSpec(const YAML::Node& root, const std::string& baseDir, SweepSpec& spec, Diagnostics& out) {
  checkKeys(root, "", kTopLevelKeys, out);
  readBase(root["base"], baseDir, spec, out);
  if (!root["method"])
    out.push_back(fileDiagnostic("needs method: grid, random or sobol"));
  else if (auto method = readName(root["method"], "method", {"grid", "random", "sobol"}, out))
    spec.method = *method == "grid"     ? SweepMethod::Grid
                  : *method == "random" ? SweepMethod::Random
                                        : SweepMethod::Sobol;
  if (root["seed"])
    if (auto seed = readWhole(root["seed"], "seed", 0, out)) spec.seed = static_cast<std::uint64_t>(*seed);
  if (const YAML::Node scramble = root["scramble"]) {
    if (auto flag = readFlag(scramble, "scramble", out)) spec.scramble = *flag;
    if (spec.method != SweepMethod::Sobol)
      out.push_back(diagnosticAt(scramble, "scramble", "is for method: sobol", "remove it", Severity::Warning));
  }
  if (!root["parameters"])
    out.push_back(fileDiagnostic("needs parameters: the config keys to vary and what to try"));
  else
    spec.parameters = readParameters(root["parameters"], out);
  if (root["repeats"]) spec.repeats = readRepeats(root["repeats"], out);
  if (!spec.repeats.seeds.empty())
    for (const ParameterSpec& p : spec.parameters)
      if (p.key == spec.repeats.key)
        out.push_back(parameterProblem(p, "is set by repeats:, so it cannot be a parameter too", "remove one of them"));
  if (root["metric"]) spec.metric = readMetric(root["metric"], out);
  if (root["budget"]) spec.budget = readBudget(root["budget"], out);
  if (root["early_stopping"]) spec.earlyStopping = readEarlyStopping(root["early_stopping"], out);
  if (root["method"]) checkMethod(root, spec, out);
}

}  // namespace

LoadedSweepSpec loadSweepSpecText(const std::string& text, const std::string& source, const std::string& baseDir) {
  LoadedSweepSpec result;
  result.source = source;
  if (text.size() > kMaxSweepBytes) {
    result.problems.push_back(fileDiagnostic("is " + std::to_string(text.size() >> 10) +
                                             " KiB; a sweep file is a few KiB of YAML (is this the right file?)"));
    return result;
  }
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap())
      result.problems.push_back(
          diagnosticAt(root, "", "must be a map (base:, method:, parameters:, ...), not " + describe(root)));
    else
      readSpec(root, baseDir, result.spec, result.problems);
  } catch (const YAML::Exception& e) {
    const bool placed = !e.mark.is_null();
    result.problems.push_back(
        fileDiagnostic("is not valid YAML: " + e.msg, placed ? e.mark.line + 1 : 0, placed ? e.mark.column + 1 : 0));
  }
  std::stable_sort(result.problems.begin(), result.problems.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::make_pair(a.line, a.column) < std::make_pair(b.line, b.column);
  });
  return result;
}

LoadedSweepSpec loadSweepSpecFile(const std::string& path) {
  std::error_code ec;
  const std::string baseDir = std::filesystem::absolute(path, ec).parent_path().lexically_normal().string();
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) {
    LoadedSweepSpec result;
    result.source = path;
    result.problems.push_back(fileDiagnostic("cannot be opened as a file (does it exist, and may you read it?)"));
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  LoadedSweepSpec result = loadSweepSpecText(text.str(), path, baseDir);
  if (std::optional<Diagnostic> missing = missingBaseJob(result.spec, baseDir))
    result.problems.push_back(std::move(*missing));
  return result;
}

std::optional<Diagnostic> missingBaseJob(const SweepSpec& spec, const std::string& baseDir) {
  std::error_code ec;
  if (spec.baseJobPath.empty() || std::filesystem::is_regular_file(spec.baseJobPath, ec)) return std::nullopt;
  return fileDiagnostic(
      "base: " + spec.baseJobPath + " is not a file (a path relative to " + baseDir + ", or an absolute one)",
      spec.baseJobPlace.line, spec.baseJobPlace.column);
}

const char* sweepMethodName(SweepMethod method) {
  switch (method) {
    case SweepMethod::Grid:
      return "grid";
    case SweepMethod::Random:
      return "random";
    case SweepMethod::Sobol:
      return "sobol";
  }
  return "grid";
}

const char* metricGoalName(MetricGoal goal) {
  return goal == MetricGoal::Max ? "max" : "min";
}

const char* progressUnitName(ProgressUnit unit) {
  return unit == ProgressUnit::Steps ? "steps" : "tokens";
}

}  // namespace traindeck
