// Optuna's RDB storage in SQLite (optuna.create_study(storage="sqlite:///study.db")): studies,
// trials(trial_id, number, study_id, state, datetime_start, datetime_complete), trial_params
// (param_name, param_value, distribution_json), trial_values(objective, value, value_type) and
// trial_intermediate_values(step, intermediate_value, intermediate_value_type). Each trial is a run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

struct OptunaTrial {
  std::string trialId;  // the key: trials.trial_id, unique in the file
  std::string name;     // "<study> trial <number>"
};

// Every trial of every study, by study and number; throws ImportError when the file is not
// Optuna's storage.
std::vector<OptunaTrial> listOptunaTrials(const std::filesystem::path& database);

// Intermediate values (trial.report) as "intermediate_value" at their step; the objective as
// "value" ("value_1", ... for further objectives) at the last reported step, timed at the
// trial's end; parameters as the config in their own form (a categorical choice, not its index),
// with optuna.study, optuna.trial, optuna.state and user attributes.
ImportedRun readOptunaTrial(const std::filesystem::path& database, const std::string& trialId);

const RunFormat& optunaFormat();

}  // namespace traindeck
