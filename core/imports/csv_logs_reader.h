// The CSV loggers: Lightning's CSVLogger (version_N/metrics.csv, one sparse row per log call with
// a "step" column, and hparams.yaml beside it) and Keras's CSVLogger (a first column "epoch",
// one row per epoch: loss, val_loss, ...). Cells are numbers or empty.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "imports/imported_run.h"

namespace traindeck {

// One CSV line's cells (RFC 4180 quoting: "a,b" and "" inside quotes).
std::vector<std::string> splitCsvLine(std::string_view line);

// The file's header, or empty when it has no complete first line.
std::vector<std::string> csvHeader(const std::filesystem::path& file);
bool isLightningMetricsCsv(const std::filesystem::path& file);
bool isKerasCsvLog(const std::filesystem::path& file);

// The run folder holding metrics.csv (and hparams.yaml).
ImportedRun readLightningCsvRun(const std::filesystem::path& folder, std::string name);
ImportedRun readKerasCsvRun(const std::filesystem::path& file, std::string name);

}  // namespace traindeck
