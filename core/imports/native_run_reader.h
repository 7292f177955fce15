// TrainDeck's own run folder (metrics.jsonl, run.json, config.yaml) as an ImportedRun, so that
// whatever lists and prints imported runs takes native ones the same way.
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

bool isNativeRunFolder(const std::filesystem::path& folder);

ImportedRun readNativeRun(const std::filesystem::path& folder, std::string name);

// The importer table's entry (run_formats.cpp).
const RunFormat& nativeRunFormat();

}  // namespace traindeck
