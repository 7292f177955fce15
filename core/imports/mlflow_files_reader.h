// MLflow's legacy file store: mlruns/<experiment id>/<run id>/ with meta.yaml (run_name),
// metrics/<key> (lines "timestamp_ms value step"; a key with slashes is a nested path),
// params/<key> (the value as the file's text) and tags/.
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"

namespace traindeck {

// A run folder: meta.yaml beside a metrics/ folder (an experiment's folder has no metrics/).
bool isMlflowRunFolder(const std::filesystem::path& folder);

ImportedRun readMlflowFolderRun(const std::filesystem::path& folder, std::string name);

}  // namespace traindeck
