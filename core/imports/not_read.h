// Files that look like a run's but hold nothing to read: a Git LFS pointer in place of the file,
// an empty W&B log. The search says so (RunSearch::notRead) instead of passing over them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace traindeck {

// Whether `bytes` (a file's first bytes suffice) are a Git LFS pointer file.
bool isGitLfsPointer(std::string_view bytes);
bool isGitLfsPointerFile(const std::filesystem::path& file);
// "<file>: this is a Git LFS pointer, not the file itself: run `git lfs pull` in its repository".
std::string gitLfsPointerSentence(const std::filesystem::path& file);

// Why a file named as a run's file (events.out.tfevents.*, run-*.wandb, *.db, *.csv, *.tsv,
// *.log, *.json, *.jsonl) is not read: an LFS pointer, or an empty run-*.wandb. Empty when neither.
std::string whyRunFileNotRead(const std::filesystem::path& file);

}  // namespace traindeck
