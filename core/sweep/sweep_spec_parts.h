// Internal to core/sweep: the readers of sweep.yaml's sections, each adding its problems to
// `out` and returning what it could read. sweep_spec.cpp joins them and checks the whole.
#pragma once

#include <vector>

#include <yaml-cpp/yaml.h>

#include "sweep_spec.h"

namespace traindeck::sweep_yaml {

// `parameters:` (parameter_reader.cpp).
std::vector<ParameterSpec> readParameters(const YAML::Node& map, Diagnostics& out);

// `repeats:`, `metric:`, `budget:`, `early_stopping:` (sweep_settings_reader.cpp).
RepeatSpec readRepeats(const YAML::Node& node, Diagnostics& out);
MetricSpec readMetric(const YAML::Node& node, Diagnostics& out);
BudgetSpec readBudget(const YAML::Node& node, Diagnostics& out);
EarlyStoppingSpec readEarlyStopping(const YAML::Node& node, Diagnostics& out);

}  // namespace traindeck::sweep_yaml
