// Turns a config's data.train or data.val value into the shards to read: a directory written
// by `prepare` (its train split, or with DataSplit::Val its val split), one shard file, or a glob
// of shard files (the same files whichever split is asked for). Also the one check that data
// was made by the tokenizer the config names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trainer/data/shard_format.h"

namespace traindeck {

enum class DataSplit { Train, Val };

// The tokenizer a config expects; an empty name accepts any.
struct ExpectedTokenizer {
  std::string name;
  std::uint32_t vocabSize = 0;
};

struct SourceShard {
  std::filesystem::path path;
  std::optional<std::uint64_t> tokens;  // what dataset.json says, when the shard came from one
};

struct TokenSource {
  std::string spec;  // as given, for messages
  std::vector<SourceShard> shards;
};

// Throws DataError: nothing at `spec`, a glob matching nothing, a directory without
// dataset.json, a tokenizer mismatch, or the val split of a directory that has none.
TokenSource resolveTokenSource(const std::string& spec, DataSplit split, const ExpectedTokenizer& expected = {});

// True when `spec` is a prepared directory whose val split holds tokens (the default data.val).
bool hasValidationSplit(const std::string& spec);

// Throws DataError when `made` (what `what` was prepared with) is not `expected`.
void checkTokenizer(const std::string& what, const ShardInfo& made, const ExpectedTokenizer& expected);

}  // namespace traindeck
