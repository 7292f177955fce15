// What the export dialog proposes before the user chooses: the place a job was made for (a Kaggle
// preset goes to Kaggle) and a folder to write into that is never the app's presets folder.
#pragma once

#include <string>
#include <vector>

#include "config/run_config.h"

namespace traindeck {

// The place's name (export_targets.h): what the job's name or `source` (its file or preset name)
// says, kaggle-t4x2 or colab-gpu; else colab-gpu for one CUDA rank and vm (the config's ranks) for
// anything else. Never a TPU place: no job is made for one (their device is not a config's).
std::string suggestedPlace(const RunConfig& config, const std::string& source);

// The job file's own folder where it has one that is writable and not inside `presetDirs`, else
// `dataDir`/exports (dataDir: ${TRAINDECK_DATA} expanded).
std::string defaultExportDir(const std::string& jobFile, const std::vector<std::string>& presetDirs,
                             const std::string& dataDir);

}  // namespace traindeck
