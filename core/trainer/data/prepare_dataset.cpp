// prepareDataset: checks the options and inputs, clears the output folder of an earlier
// prepare, runs the pipeline, and writes dataset.json last.
#include "trainer/data/prepare_dataset.h"

#include <chrono>
#include <string_view>

#include "trainer/data/data_error.h"
#include "trainer/data/prepare_pipeline.h"
#include "trainer/data/split_writer.h"

namespace traindeck {
namespace {

// Files that a prepare writes (or leaves behind when interrupted); anything else in the output
// folder belongs to someone else, and prepare refuses to touch that folder.
bool isPrepareOutput(std::string_view name) {
  auto digits = [](std::string_view text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  };
  auto dropSuffix = [&name](std::string_view suffix) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  };
  if (name == kManifestFileName) return true;
  if (const std::string temp = std::string(kManifestFileName) + ".tmp-"; name.starts_with(temp))
    return digits(name.substr(temp.size()));  // writeFileAtomically's temporary file
  dropSuffix(".partial");
  if (!name.ends_with(".bin")) return false;
  name.remove_suffix(4);
  for (const std::string_view split : {"train-", "val-"})
    if (name.starts_with(split)) return name.size() == split.size() + 6 && digits(name.substr(split.size()));
  return false;
}

void clearOutputDirectory(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) throw DataError("cannot create " + dir.string() + ": " + ec.message());
    return;
  }
  if (!std::filesystem::is_directory(dir, ec))
    throw DataError(dir.string() + " exists and is not a folder; give --out a new or empty folder");
  std::vector<std::filesystem::path> old;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!isPrepareOutput(name))
      throw DataError(dir.string() + " holds files that prepare did not write (" + name +
                      "); give --out a new or empty folder");
    old.push_back(entry.path());
  }
  if (ec) throw DataError("cannot list " + dir.string() + ": " + ec.message());
  // dataset.json first: from here on the folder no longer claims to be a finished dataset.
  std::filesystem::remove(dir / kManifestFileName, ec);
  for (const auto& path : old) {
    std::filesystem::remove(path, ec);
    if (ec) throw DataError("cannot remove " + path.string() + " from an earlier prepare: " + ec.message());
  }
}

std::uint64_t checkInputs(const std::vector<std::filesystem::path>& inputs) {
  if (inputs.empty()) throw DataError("no input files to prepare");
  std::uint64_t total = 0;
  for (const auto& input : inputs) {
    std::error_code ec;
    const auto status = std::filesystem::status(input, ec);
    if (!std::filesystem::exists(status)) throw DataError("cannot read " + input.string() + ": no such file");
    if (!std::filesystem::is_regular_file(status)) throw DataError(input.string() + " is not a regular file");
    total += std::filesystem::file_size(input, ec);
  }
  return total;
}

}  // namespace

PrepareResult prepareDataset(const PrepareOptions& options, const PrepareProgressCallback& progress) {
  if (!(options.valFraction >= 0 && options.valFraction < 1))
    throw DataError("the validation fraction must be at least 0 and below 1, not " +
                    std::to_string(options.valFraction));
  if (options.shardTokens == 0) throw DataError("the shard size must be at least one token");
  if (options.documentSeparator && options.documentSeparator->find('\n') != std::string::npos)
    throw DataError("the document separator must be a single line");
  if (!options.tokenizer) throw DataError("no tokenizer to prepare with");
  const std::uint64_t bytesTotal = checkInputs(options.inputs);

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<Tokenizer>> tokenizers;
  for (int i = 0; i < std::max(options.workers, 1); ++i) tokenizers.push_back(options.tokenizer());
  const Tokenizer& first = *tokenizers.front();
  const ShardInfo info{first.name(), first.vocabSize(), first.endOfText()};

  clearOutputDirectory(options.outDir);
  SplitWriter train(options.outDir, "train", info, options.shardTokens);
  SplitWriter val(options.outDir, "val", info, options.shardTokens);
  PreparePipeline pipeline(options, std::move(tokenizers));
  const PreparePipeline::Totals totals = pipeline.run(train, val, bytesTotal, progress);

  PrepareResult result;
  DatasetManifest& manifest = result.manifest;
  manifest.tokenizer = info.tokenizer;
  manifest.vocabSize = info.vocabSize;
  manifest.endOfText = info.endOfText;
  manifest.tokenWidth = tokenWidthFor(info.vocabSize);
  manifest.shardTokens = options.shardTokens;
  manifest.valFraction = options.valFraction;
  manifest.documentSeparator = options.documentSeparator;
  manifest.train = train.finish();
  manifest.val = val.finish();
  if (manifest.train.tokens + manifest.val.tokens == 0)
    throw DataError("the input files hold no text, so there is nothing to prepare");
  writeManifest(options.outDir, manifest);
  result.bytes = totals.bytes;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace traindeck
