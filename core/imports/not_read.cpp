// A pointer file is "version https://git-lfs.github.com/spec/v1", "oid sha256:…", "size N", each
// on its own line, and under 1 KiB (Git LFS's specification); only the first line is checked.
#include "imports/not_read.h"

#include <fstream>

namespace traindeck {

namespace {

constexpr std::string_view kLfsFirstLine = "version https://git-lfs.github.com/spec/";

bool hasRunFileName(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  const std::string ext = file.extension().string();
  if (name.starts_with("events.out.tfevents.")) return true;
  if (name.starts_with("run-") && ext == ".wandb") return true;
  for (const char* runExt : {".db", ".sqlite", ".sqlite3", ".csv", ".tsv", ".log", ".json", ".jsonl"})
    if (ext == runExt) return true;
  return false;
}

}  // namespace

bool isGitLfsPointer(std::string_view bytes) {
  return bytes.starts_with(kLfsFirstLine);
}

bool isGitLfsPointerFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char first[kLfsFirstLine.size()] = {};
  return in.read(first, sizeof first) && isGitLfsPointer(std::string_view(first, sizeof first));
}

std::string gitLfsPointerSentence(const std::filesystem::path& file) {
  return file.string() + ": this is a Git LFS pointer, not the file itself: run `git lfs pull` in its repository";
}

std::string whyRunFileNotRead(const std::filesystem::path& file) {
  if (!hasRunFileName(file)) return {};
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) return {};
  if (size == 0 && file.extension() == ".wandb")
    return file.string() +
           ": empty (0 bytes): W&B wrote no records to it; the run stopped before its first "
           "record or its files were not copied whole";
  if (size < 1024 && isGitLfsPointerFile(file)) return gitLfsPointerSentence(file);
  return {};
}

}  // namespace traindeck
