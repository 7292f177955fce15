// Finds the runs a folder holds, in any format of the importer table (run_format.h), and reads
// one. Open folder…, --open and `traindeck --read` go through here.
#pragma once

#include <filesystem>
#include <vector>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

struct RunSearch {
  std::vector<RunSource> runs;
  std::vector<NotRead> notRead;  // files that look like a run's but were not read, and why
};

// Every run in `folder` and below (folder may also be a run's own file), in path order. A
// folder that is a run is not searched further (checkpoint-N/, train/, files/); hidden folders
// and symbolic links to folders (wandb/latest-run) are not entered; at most 8 levels deep. Runs
// that the tool names alike get their id beside the name ("SVM (4f2c9a1b)").
RunSearch searchRuns(const std::filesystem::path& folder);
std::vector<RunSource> findRuns(const std::filesystem::path& folder);

// Throws ImportError when the run cannot be read at all.
ImportedRun readRun(const RunSource& source);

}  // namespace traindeck
