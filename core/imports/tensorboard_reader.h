// A TensorBoard run: a folder of events.out.tfevents.* files plus Keras's train/ and validation/
// subfolders, merged into one run with their folder as the tags' prefix ("validation/epoch_loss").
// A folder of several sessions (one file each) is several runs (tensorboard_sessions.h).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

bool isTfEventsFileName(std::string_view fileName);
// The subfolders whose events belong to their parent's run.
bool isKerasSplitFolderName(std::string_view name);

// `session`: the key of one session (tensorBoardSessions()), or empty for every file.
ImportedRun readTensorBoardRun(const std::filesystem::path& folder, std::string name, const std::string& session = {});

const RunFormat& tensorBoardFormat();

}  // namespace traindeck
