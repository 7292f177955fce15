// llm.c's main.log: one line per event, "s:<step> trl:<train loss> lr:<lr> norm:<grad norm>"
// and "s:<step> tel:<val loss>" (lr and norm only in newer versions; "eval:" for HellaSwag).
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

// A .log file (llm.c names it main.log) whose first line reads "s:<digits> <key>:<value>".
bool isLlmcLog(const std::filesystem::path& file);

ImportedRun readLlmcRun(const std::filesystem::path& file, std::string name);

const RunFormat& llmcLogFormat();

}  // namespace traindeck
