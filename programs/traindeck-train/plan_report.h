// The plan as a person reads it in a terminal, and as JSON for scripts.
#pragma once

#include <string>

#include "config/planner.h"
#include "config/run_config.h"

namespace traindeck {

std::string planText(const RunConfig& config, const Plan& plan);
std::string planJson(const RunConfig& config, const Plan& plan);

}  // namespace traindeck
