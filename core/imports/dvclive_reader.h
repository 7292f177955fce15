// DVCLive's output folder (dvclive/ by default): plots/metrics/<name>.tsv per metric (a header
// "[timestamp\t]step\t<last part of the name>", then one row per log_metric call; the timestamp
// in ms only where logged with timestamp=True), params.yaml, and metrics.json (the last values).
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

// A folder with plots/metrics/, or a folder named dvclive holding metrics.json.
bool isDvcLiveFolder(const std::filesystem::path& folder);

// Metric names are the .tsv's path below plots/metrics/ ("train/loss", "system/cpu/usage (%)");
// a number of metrics.json that no .tsv has is read at metrics.json's "step" (0 without one).
ImportedRun readDvcLiveRun(const std::filesystem::path& folder, std::string name);

const RunFormat& dvcLiveFormat();

}  // namespace traindeck
