// dataset.json: what `prepare` wrote into a dataset directory — the tokenizer that made it, and
// the shard files with their token counts for the train and val splits. Written last and
// atomically, so a directory without it is an unfinished prepare.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace traindeck {

inline constexpr const char* kManifestFileName = "dataset.json";
inline constexpr std::int64_t kManifestVersion = 1;

struct ShardEntry {
  std::string file;  // a file name inside the dataset directory
  std::uint64_t tokens = 0;
};

struct SplitManifest {
  std::vector<ShardEntry> shards;
  std::uint64_t tokens = 0;
  std::uint64_t documents = 0;
};

struct DatasetManifest {
  std::int64_t version = kManifestVersion;
  std::string tokenizer;  // "byte", "gpt2"
  std::uint32_t vocabSize = 0;
  std::uint32_t endOfText = 0;
  std::uint32_t tokenWidth = 2;
  std::uint64_t shardTokens = 0;  // the most tokens one shard holds
  double valFraction = 0;
  std::optional<std::string> documentSeparator;
  SplitManifest train;
  SplitManifest val;
};

std::string manifestToJson(const DatasetManifest& manifest);
// Throws DataError naming `source` when the text is not a dataset manifest this version reads.
DatasetManifest manifestFromJson(std::string_view text, const std::string& source);

// <dir>/dataset.json. Throw DataError naming the file on failure.
void writeManifest(const std::filesystem::path& dir, const DatasetManifest& manifest);
DatasetManifest readManifest(const std::filesystem::path& dir);

}  // namespace traindeck
