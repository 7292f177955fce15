// Grid expansion is a depth-first walk over the parameters in file order (a condition names
// only parameters above it, so it is decided by then); random and sobol map one uniform
// number per parameter.
#include "trial_plan.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "config_key_values.h"
#include "seeded_uniform.h"
#include "sobol_sequence.h"

namespace traindeck {

namespace {

constexpr std::int64_t kDrawsPerTrial = 20;

void expandGrid(const std::vector<ParameterSpec>& parameters, std::size_t next, ParamSettings& chosen,
                std::vector<ParamSettings>& out) {
  if (next == parameters.size()) {
    out.push_back(chosen);
    return;
  }
  const ParameterSpec& parameter = parameters[next];
  if (!conditionsHold(parameter, chosen)) {
    expandGrid(parameters, next + 1, chosen, out);
    return;
  }
  for (const ParamValue& value : parameter.values) {
    chosen.push_back({parameter.key, value});
    expandGrid(parameters, next + 1, chosen, out);
    chosen.pop_back();
  }
}

// Draws `uniforms(index)` until `spec.trials` distinct configurations or the draws run out.
std::vector<ParamSettings> drawConfigurations(const SweepSpec& spec,
                                              const std::function<std::vector<double>(std::int64_t)>& uniforms) {
  std::vector<ParamSettings> configurations;
  std::set<std::string> seen;
  for (std::int64_t index = 0;
       index < spec.trials * kDrawsPerTrial && static_cast<std::int64_t>(configurations.size()) < spec.trials;
       ++index) {
    const std::vector<double> u = uniforms(index);
    ParamSettings chosen;
    for (std::size_t p = 0; p < spec.parameters.size(); ++p)
      if (conditionsHold(spec.parameters[p], chosen))
        chosen.push_back({spec.parameters[p].key, parameterValueAt(spec.parameters[p], u[p])});
    if (seen.insert(trialId(chosen, "", std::nullopt)).second) configurations.push_back(std::move(chosen));
  }
  return configurations;
}

std::vector<ParamSettings> configurationsOf(const SweepSpec& spec) {
  std::vector<ParamSettings> configurations;
  switch (spec.method) {
    case SweepMethod::Grid: {
      ParamSettings chosen;
      expandGrid(spec.parameters, 0, chosen, configurations);
      break;
    }
    case SweepMethod::Random:
      configurations = drawConfigurations(spec, [&](std::int64_t index) {
        std::vector<double> u;
        for (const ParameterSpec& p : spec.parameters)
          u.push_back(seededUniform(spec.seed, static_cast<std::uint64_t>(index), stableHash64(p.key)));
        return u;
      });
      break;
    case SweepMethod::Sobol: {
      const SobolSequence sobol(std::max<std::size_t>(1, spec.parameters.size()),
                                spec.scramble ? std::optional<std::uint64_t>(spec.seed) : std::nullopt);
      configurations =
          drawConfigurations(spec, [&](std::int64_t index) { return sobol.point(static_cast<std::uint32_t>(index)); });
      break;
    }
  }
  return configurations;
}

}  // namespace

ParamValue parameterValueAt(const ParameterSpec& parameter, double u) {
  u = std::clamp(u, 0.0, std::nextafter(1.0, 0.0));
  if (!parameter.isRange) {
    const auto index = static_cast<std::size_t>(u * static_cast<double>(parameter.values.size()));
    return parameter.values[std::min(index, parameter.values.size() - 1)];
  }
  // A whole-number range covers [min, max + 1) and rounds down, so max is as likely as min.
  const double low = parameter.min;
  const double high = parameter.integer ? parameter.max + 1 : parameter.max;
  double x = parameter.log ? std::exp(std::log(low) + u * (std::log(high) - std::log(low))) : low + u * (high - low);
  if (!parameter.integer) return std::clamp(x, parameter.min, parameter.max);
  x = std::clamp(std::floor(x), parameter.min, parameter.max);
  // A number key sampled at whole values (int: true) still holds a double: its type decides.
  const FieldInfo* field = findFieldInfo(parameter.key);
  if (field && configValueKind(*field) == ConfigValueKind::Number) return x;
  return static_cast<std::int64_t>(x);
}

bool conditionsHold(const ParameterSpec& parameter, const ParamSettings& chosen) {
  return std::all_of(parameter.when.begin(), parameter.when.end(), [&](const ParamCondition& condition) {
    const ParamValue* value = findSetting(chosen, condition.key);
    return value && std::find(condition.anyOf.begin(), condition.anyOf.end(), *value) != condition.anyOf.end();
  });
}

std::vector<TrialParams> planTrials(const SweepSpec& spec) {
  std::vector<TrialParams> trials;
  for (ParamSettings& configuration : configurationsOf(spec)) {
    if (spec.repeats.seeds.empty()) {
      trials.push_back(makeTrial(std::move(configuration), "", std::nullopt));
      continue;
    }
    for (const std::int64_t seed : spec.repeats.seeds)
      trials.push_back(makeTrial(configuration, spec.repeats.key, seed));
  }
  return trials;
}

}  // namespace traindeck
