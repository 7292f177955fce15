// A W&B offline run folder (wandb/offline-run-<time>-<id>/ or run-<time>-<id>/) holding its
// transaction log run-<id>.wandb; read without a W&B server.
#pragma once

#include <filesystem>
#include <string>

#include "imports/imported_run.h"
#include "imports/run_format.h"

namespace traindeck {

// The folder's run-*.wandb file; empty when it has none (an empty one or an LFS pointer is none).
std::filesystem::path wandbFileOf(const std::filesystem::path& folder);
bool isWandbRunFolder(const std::filesystem::path& folder);

ImportedRun readWandbRun(const std::filesystem::path& folder, std::string name);

const RunFormat& wandbFormat();

}  // namespace traindeck
