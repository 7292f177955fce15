// The CSV loggers: Lightning's CSVLogger (version_N/metrics.csv, one sparse row per log call with
// a "step" column, and hparams.yaml beside it) and Keras's CSVLogger (a first column "epoch",
// one row per epoch: loss, val_loss, ...). Cells are numbers or empty; any line ends, a BOM and
// quoted fields are read (csv_records.h).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "imports/csv_records.h"
#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

// The file's header, or empty when it has no complete first line.
std::vector<std::string> csvHeader(const std::filesystem::path& file);
bool isLightningMetricsCsv(const std::filesystem::path& file);
bool isKerasCsvLog(const std::filesystem::path& file);

// The run folder holding metrics.csv (and hparams.yaml).
ImportedRun readLightningCsvRun(const std::filesystem::path& folder, std::string name);
ImportedRun readKerasCsvRun(const std::filesystem::path& file, std::string name);

// The importer table's entries (run_formats.cpp).
const RunFormat& lightningCsvFormat();
const RunFormat& kerasCsvFormat();

}  // namespace traindeck
