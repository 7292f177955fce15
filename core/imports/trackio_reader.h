// Trackio's local store: one SQLite file per project (~/.cache/huggingface/trackio/<project>.db)
// with metrics(run_id, run_name, step, timestamp ISO 8601, metrics JSON), configs(run_id,
// run_name, config JSON) and system_metrics(run_id, run_name, timestamp, metrics JSON); files of
// Trackio before run_id was added name runs by run_name alone.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

struct TrackioRun {
  std::string key;   // run_id, or run_name in files without run_id
  std::string name;  // run_name
};

// The project's runs in the order they first logged; throws ImportError when the file is not a
// Trackio project.
std::vector<TrackioRun> listTrackioRuns(const std::filesystem::path& database);

// Values are numbers, or "NaN", "Infinity", "-Infinity" as Trackio writes them (older files:
// bare NaN); media and tables are skipped. System metrics are "system/<key>", numbered by sample.
// Config keys of Trackio's own ("_Group") become "trackio.group".
ImportedRun readTrackioRun(const std::filesystem::path& database, const std::string& key);

const RunFormat& trackioFormat();

}  // namespace traindeck
