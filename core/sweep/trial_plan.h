// The trials a sweep runs, in order, the same for the same spec on any machine:
//   grid    every combination of the listed values (conditional keys only where their
//           condition holds), in file order with the last parameter varying fastest;
//   random  `trials` configurations, each value drawn uniformly (log-uniformly with log:,
//           whole numbers with int:) from (spec.seed, the draw's index, the key), so a
//           parameter's draws do not change when another parameter is added;
//   sobol   `trials` points of a Sobol sequence (one dimension per parameter, in file order;
//           scrambled by a digital shift from spec.seed unless scramble: false), mapped as
//           random maps its uniform draws.
// Random and sobol skip a draw that repeats a configuration and draw on (at most 20 draws per
// trial asked for), so a small discrete space gives fewer trials than asked. Each
// configuration then runs once per repeat seed (configuration-major).
#pragma once

#include <vector>

#include "sweep_spec.h"
#include "trial_params.h"

namespace traindeck {

// The spec must have loaded without errors.
std::vector<TrialParams> planTrials(const SweepSpec& spec);

// The value at `u` in [0, 1) of a parameter: a list's item floor(u * n); a range's point,
// linear or logarithmic, rounded down to a whole number where `integer` (each whole number in
// [min, max] equally likely on a linear scale, in proportion to log((k+1)/k) on a log scale).
ParamValue parameterValueAt(const ParameterSpec& parameter, double u);

// Whether every condition of the parameter holds for the settings chosen so far.
bool conditionsHold(const ParameterSpec& parameter, const ParamSettings& chosen);

}  // namespace traindeck
