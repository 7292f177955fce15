// A Hugging Face Trainer output folder: trainer_state.json's log_history (in the folder or in
// its checkpoint-N/ subfolders; the file with the highest global_step wins) and config.json.
// training_args.bin is a pickle and is never opened.
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

bool isHfTrainerRun(const std::filesystem::path& folder);
// The trainer_state.json to read: the one with the highest global_step, the folder's own on a tie.
std::filesystem::path newestTrainerState(const std::filesystem::path& folder);

ImportedRun readHfTrainerRun(const std::filesystem::path& folder, std::string name);

const RunFormat& hfTrainerFormat();

}  // namespace traindeck
