// MLflow's legacy file store: mlruns/<experiment id>/<run id>/ with meta.yaml (run_name),
// metrics/<key> (lines "timestamp_ms value step"; a key with slashes is a nested path),
// params/<key> (the value as the file's text) and tags/. A run or experiment whose meta.yaml says
// lifecycle_stage: deleted is not listed.
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

// A run folder: meta.yaml beside a metrics/ folder (an experiment's folder has no metrics/).
bool isMlflowRunFolder(const std::filesystem::path& folder);

// meta.yaml's run_name (else the mlflow.runName tag) and run_id (else the folder's name).
struct MlflowRunNames {
  std::string name, id;
};
MlflowRunNames mlflowRunNames(const std::filesystem::path& folder);

// Event files under the run's artifacts/ are read as its scalars too, prefixed by their folder.
ImportedRun readMlflowFolderRun(const std::filesystem::path& folder, std::string name);

const RunFormat& mlflowFolderFormat();

}  // namespace traindeck
