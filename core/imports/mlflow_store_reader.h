// MLflow's SQLite tracking store (mlflow.db, MLflow's default backend since 3.7), opened read-only
// through libsqlite3: experiments, runs, metrics(key, value, timestamp ms, step, run_uuid, is_nan)
// and params(key, value, run_uuid). One store holds many runs, each named by its run_uuid.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

struct MlflowStoreRun {
  std::string runUuid;
  std::string name;        // the run's name, else its uuid
  std::string experiment;  // the experiment's name
};

// The store's runs that are not deleted, by start time; throws ImportError when the file is not
// an MLflow store.
std::vector<MlflowStoreRun> listMlflowStoreRuns(const std::filesystem::path& database);

ImportedRun readMlflowStoreRun(const std::filesystem::path& database, const std::string& runUuid);

const RunFormat& mlflowStoreFormat();

}  // namespace traindeck
