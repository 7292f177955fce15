// A TensorBoard run: a folder of events.out.tfevents.* files (several when the writer was
// restarted, read in name order), plus Keras's train/ and validation/ subfolders, merged into
// one run with their folder as the tags' prefix ("validation/epoch_loss").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "imports/imported_run.h"

namespace traindeck {

bool isTfEventsFileName(std::string_view fileName);
// Whether `folder` is a run: event files in it, or in a Keras train/ or validation/ subfolder.
bool isTensorBoardRun(const std::filesystem::path& folder);
// The subfolders whose events belong to their parent's run.
bool isKerasSplitFolderName(std::string_view name);

ImportedRun readTensorBoardRun(const std::filesystem::path& folder, std::string name);

}  // namespace traindeck
