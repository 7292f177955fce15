// Finds the runs a folder holds, in any format TrainDeck reads (its own and other tools'), and
// reads one. Open folder…, --open and `traindeck --read` go through here.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "imports/imported_run.h"

namespace traindeck {

struct RunSource {
  SourceKind kind = SourceKind::TrainDeck;
  std::string name;            // the path below the searched folder ("tb/run1"), or a store's run name
  std::filesystem::path path;  // the run's folder, or its file (an MLflow store, a CSV, main.log)
  std::string key;             // which run of a store holding several (MLflow's run_uuid)
};

// Every run in `folder` and below (folder may also be a run's own file), in path order. A
// folder that is a run is not searched further (checkpoint-N/, train/, files/); hidden folders
// and symbolic links to folders (wandb/latest-run) are not entered; at most 8 levels deep.
std::vector<RunSource> findRuns(const std::filesystem::path& folder);

// Throws ImportError when the run cannot be read at all.
ImportedRun readRun(const RunSource& source);

}  // namespace traindeck
