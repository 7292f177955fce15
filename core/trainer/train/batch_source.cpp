// BatchSource over the memory-mapped token loader of core/trainer/data.
#include "batch_source.h"

#include "runlog/json_writer.h"
#include "trainer/data/token_loader.h"

namespace traindeck {

namespace {

class LoaderBatchSource : public BatchSource {
 public:
  explicit LoaderBatchSource(TokenLoader loader) : m_loader(std::move(loader)) {}
  void next(std::span<std::int64_t> out) override { m_loader.next(out); }
  void rewind() override { m_loader.restart(); }
  std::string cursorJson() const override {
    JsonWriter json;
    m_loader.cursor().writeJson(json);
    return json.str();
  }
  void restoreCursor(const JsonValue& cursor) override { m_loader.restore(LoaderCursor::fromJson(cursor)); }

 private:
  TokenLoader m_loader;
};

}  // namespace

BatchSources openBatchSources(const RunConfig& config, int rank, int worldSize) {
  TokenLoaderOptions options;
  options.batchSize = config.strategy.micro_batch;
  options.sequenceLength = config.model.block_size;
  options.rank = rank;
  options.worldSize = worldSize;
  options.seed = static_cast<std::uint64_t>(config.seed);
  const bool bytes = config.data.tokenizer == TokenizerKind::Byte;
  options.expected = {bytes ? "byte" : "gpt2", bytes ? 257u : 50257u};

  BatchSources sources;
  sources.train = std::make_unique<LoaderBatchSource>(TokenLoader::openTrain(config.data.train, options));
  const std::string valSpec = !config.data.val.empty()                ? config.data.val
                              : hasValidationSplit(config.data.train) ? config.data.train
                                                                      : std::string();
  if (!valSpec.empty())
    sources.val = std::make_unique<LoaderBatchSource>(TokenLoader::openValidation(valSpec, options));
  return sources;
}

}  // namespace traindeck
