// resolveTokenSource: directory -> dataset.json's shard list; a path with * ? or [ -> glob(3),
// sorted; anything else -> that one file.
#include "trainer/data/token_source.h"

#include <glob.h>

#include <algorithm>

#include "trainer/data/data_error.h"
#include "trainer/data/dataset_manifest.h"

namespace traindeck {
namespace {

std::vector<SourceShard> expandGlob(const std::string& pattern) {
  glob_t matches{};
  const int status = ::glob(pattern.c_str(), GLOB_ERR, nullptr, &matches);
  std::vector<SourceShard> shards;
  for (std::size_t i = 0; status == 0 && i < matches.gl_pathc; ++i) shards.push_back({matches.gl_pathv[i], {}});
  ::globfree(&matches);
  if (status == GLOB_NOMATCH || shards.empty())
    throw DataError("no file matches " + pattern + "; check the path, or run traindeck-train prepare first");
  if (status != 0) throw DataError("cannot list the files matching " + pattern);
  std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return shards;
}

std::string describe(const std::string& name, std::uint32_t vocabSize) {
  return name + " (vocabulary " + std::to_string(vocabSize) + ")";
}

}  // namespace

void checkTokenizer(const std::string& what, const ShardInfo& made, const ExpectedTokenizer& expected) {
  if (expected.name.empty()) return;
  if (made.tokenizer == expected.name && (expected.vocabSize == 0 || made.vocabSize == expected.vocabSize)) return;
  throw DataError(what + " was prepared with the " + describe(made.tokenizer, made.vocabSize) +
                  " tokenizer, but the config uses " + describe(expected.name, expected.vocabSize) +
                  "; set data.tokenizer to " + made.tokenizer + ", or re-run traindeck-train prepare --tokenizer " +
                  expected.name);
}

TokenSource resolveTokenSource(const std::string& spec, DataSplit split, const ExpectedTokenizer& expected) {
  TokenSource source{spec, {}};
  std::error_code ec;
  const std::filesystem::path path(spec);
  if (std::filesystem::is_directory(path, ec)) {
    const DatasetManifest manifest = readManifest(path);
    checkTokenizer(spec, {manifest.tokenizer, manifest.vocabSize, manifest.endOfText}, expected);
    const SplitManifest& chosen = split == DataSplit::Train ? manifest.train : manifest.val;
    if (split == DataSplit::Val && chosen.tokens == 0)
      throw DataError(spec +
                      " has no validation split (it was prepared with --val-fraction 0 or from one document); "
                      "re-run traindeck-train prepare with --val-fraction above 0, or set data.val");
    for (const ShardEntry& entry : chosen.shards) source.shards.push_back({path / entry.file, entry.tokens});
    return source;
  }
  if (std::filesystem::exists(path, ec)) {
    source.shards.push_back({path, {}});
    return source;
  }
  if (spec.find_first_of("*?[") != std::string::npos) {
    source.shards = expandGlob(spec);
    return source;
  }
  throw DataError(spec + " does not exist; give a folder written by traindeck-train prepare, a shard file, or a glob");
}

bool hasValidationSplit(const std::string& spec) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(spec) / kManifestFileName, ec)) return false;
  try {
    return readManifest(spec).val.tokens > 0;
  } catch (const DataError&) {
    return false;
  }
}

}  // namespace traindeck
