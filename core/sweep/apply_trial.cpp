// Overrides are core/config's own "section.key=value" mechanism, so a trial's job is exactly
// what `traindeck-train run --config base.yaml --set key=value` would train.
#include "apply_trial.h"

#include <map>
#include <set>
#include <tuple>

namespace traindeck {

namespace {

std::string sweepPlaceHint(const SweepSpec& spec, const std::string& key) {
  for (const ParameterSpec& parameter : spec.parameters)
    if (parameter.key == key && parameter.place.line > 0)
      return "the value comes from the sweep, line " + std::to_string(parameter.place.line);
  return "the value comes from the sweep's repeats";
}

// Problems without their trial's name, placed: swept keys have no place in the base job.
Diagnostics trialProblems(const SweepSpec& spec, const TrialParams& trial, LoadedConfig& loaded,
                          const ValidationContext& context) {
  std::set<std::string> swept;
  for (const ParamSetting& setting : trial.settings) swept.insert(setting.key);
  if (trial.seed) swept.insert(trial.seedKey);
  for (const std::string& key : swept) loaded.places.erase(key);
  Diagnostics problems = checkConfig(loaded, context);
  for (Diagnostic& problem : problems) {
    if (!swept.count(problem.path)) continue;
    problem.line = 0;
    problem.column = 0;
    if (problem.hint.empty()) problem.hint = sweepPlaceHint(spec, problem.path);
  }
  return problems;
}

}  // namespace

LoadedConfig loadTrialConfig(const SweepSpec& spec, const TrialParams& trial) {
  return loadConfigFile(spec.baseJobPath, trialOverrides(trial));
}

std::vector<std::string> trialOverrides(const TrialParams& trial) {
  std::vector<std::string> overrides;
  for (const ParamSetting& setting : trial.settings)
    overrides.push_back(setting.key + "=" + paramValueYaml(setting.value));
  if (trial.seed) overrides.push_back(trial.seedKey + "=" + std::to_string(*trial.seed));
  return overrides;
}

TrialJob applyTrial(const SweepSpec& spec, const TrialParams& trial, const ValidationContext& context) {
  TrialJob job;
  job.loaded = loadTrialConfig(spec, trial);
  job.problems = trialProblems(spec, trial, job.loaded, context);
  for (Diagnostic& problem : job.problems) problem.message = "trial " + trial.name + ": " + problem.message;
  return job;
}

Diagnostics checkTrials(const SweepSpec& spec, const std::vector<TrialParams>& trials,
                        const ValidationContext& context) {
  using Key = std::tuple<std::string, int, int, std::string>;          // path, line, column, message
  std::map<Key, std::size_t> firstOf;                                  // -> index in `found`
  std::vector<std::pair<Diagnostic, std::vector<std::string>>> found;  // problem, trials with it
  for (const TrialParams& trial : trials) {
    LoadedConfig loaded = loadTrialConfig(spec, trial);
    for (Diagnostic& problem : trialProblems(spec, trial, loaded, context)) {
      const Key key{problem.path, problem.line, problem.column, problem.message};
      const auto [at, added] = firstOf.emplace(key, found.size());
      if (added) found.push_back({problem, {}});
      found[at->second].second.push_back(trial.name);
    }
  }
  Diagnostics out;
  for (auto& [problem, names] : found) {
    std::string who = "trial " + names.front();
    if (names.size() == trials.size() && names.size() > 1)
      who = "every trial";
    else if (names.size() > 1)
      who += " and " + std::to_string(names.size() - 1) + " more";
    problem.message = who + ": " + problem.message;
    out.push_back(std::move(problem));
  }
  return out;
}

}  // namespace traindeck
