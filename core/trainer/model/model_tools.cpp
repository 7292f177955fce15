// Opening a model from any of the places a user may point at, then exporting, sampling or
// scoring with it. Sampling and scoring run on the CPU in fp32.
#include "model_tools.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "config/config_io.h"
#include "hf_weights.h"
#include "runlog/atomic_file.h"
#include "runlog/json_writer.h"
#include "runlog/run_paths.h"
#include "train/checkpointer.h"
#include "trainer/tokenizer/make_tokenizer.h"

namespace traindeck {

namespace fs = std::filesystem;

namespace {

struct OpenedModel {
  Gpt2 model{nullptr};
  DataConfig data;         // the tokenizer the model was trained with
  std::string checkpoint;  // empty for a Hugging Face folder
};

DataConfig huggingFaceTokenizer(const fs::path& folder) {
  DataConfig data;
  if (fs::exists(folder / "vocab.json") && fs::exists(folder / "merges.txt")) {
    data.tokenizer = TokenizerKind::Gpt2;
    data.vocab = (folder / "vocab.json").string();
    data.merges = (folder / "merges.txt").string();
  } else {
    data.tokenizer = TokenizerKind::Byte;
  }
  return data;
}

OpenedModel openModel(const std::string& source) {
  const fs::path path(source);
  std::error_code ec;
  OpenedModel opened;
  const fs::path hfFolder = fs::is_regular_file(path, ec) ? path.parent_path() : path;
  if (fs::exists(hfFolder / "config.json", ec)) {
    opened.model = Gpt2(readHuggingFaceConfig((hfFolder / "config.json").string()), /*initialise=*/false);
    loadHuggingFaceWeights(opened.model, fs::is_regular_file(path, ec) ? path.string() : hfFolder.string());
    opened.data = huggingFaceTokenizer(hfFolder);
    return opened;
  }
  fs::path checkpoint, run;
  if (fs::exists(path / run_file::kCheckpointComplete, ec)) {
    checkpoint = path;
    run = path.parent_path().parent_path();
  } else if (fs::exists(RunPaths{path.string()}.checkpoints(), ec)) {
    run = path;
    const auto latest = Checkpointer(RunPaths{path.string()}.checkpoints(), 1).latestComplete();
    if (!latest) throw std::runtime_error(source + " has no complete checkpoint yet");
    checkpoint = *latest;
  } else {
    throw std::runtime_error(source + " is neither a checkpoint, a run directory, nor a Hugging Face folder");
  }
  const LoadedConfig config = loadConfigFile(RunPaths{run.string()}.config());
  if (!config.problems.empty())
    throw std::runtime_error("cannot read the run's config: " + config.problems.front().format(config.source));
  opened.model = Gpt2(config.config.model, /*initialise=*/false);
  loadHuggingFaceWeights(opened.model, (checkpoint / "model.safetensors").string());
  opened.data = config.config.data;
  opened.checkpoint = checkpoint.string();
  return opened;
}

std::unique_ptr<Tokenizer> tokenizerFor(const DataConfig& data) {
  return makeTokenizer(data.tokenizer == TokenizerKind::Byte ? "byte" : "gpt2", data.vocab, data.merges);
}

}  // namespace

ExportSummary exportHuggingFace(const std::string& source, const std::string& outDir) {
  OpenedModel opened = openModel(source);
  if (opened.checkpoint.empty()) throw std::runtime_error(source + " is already a Hugging Face folder");
  const fs::path out(outDir);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw std::runtime_error("cannot create " + outDir + ": " + ec.message());
  ExportSummary summary;
  summary.checkpoint = opened.checkpoint;
  const auto tokenizer = tokenizerFor(opened.data);

  writeTensorFile((out / "model.safetensors").string(), opened.model->namedWeights());
  const std::string config = huggingFaceConfigJson(opened.model->config(), tokenizer->endOfText());
  if (const std::string why = writeFileAtomically((out / "config.json").string(), config); !why.empty())
    throw std::runtime_error(why);
  summary.files = {"config.json", "model.safetensors"};
  if (opened.data.tokenizer == TokenizerKind::Gpt2) {
    fs::copy_file(opened.data.vocab, out / "vocab.json", fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::copy_file(opened.data.merges, out / "merges.txt", fs::copy_options::overwrite_existing, ec);
    if (ec) throw std::runtime_error("cannot copy the GPT-2 tokenizer files: " + ec.message());
    summary.files.insert(summary.files.end(), {"vocab.json", "merges.txt"});
  } else {
    JsonWriter j;
    j.beginObject().field("type", "byte").field("vocab_size", 257).field("end_of_text", 256).endObject();
    if (const std::string why = writeFileAtomically((out / "traindeck_tokenizer.json").string(), j.str() + "\n");
        !why.empty())
      throw std::runtime_error(why);
    summary.files.push_back("traindeck_tokenizer.json");
  }
  return summary;
}

std::string sampleText(const std::string& source, const SampleOptions& options) {
  OpenedModel opened = openModel(source);
  const auto tokenizer = tokenizerFor(opened.data);
  opened.model->eval();
  torch::NoGradGuard noGrad;
  std::vector<std::uint32_t> ids = tokenizer->encode(options.prompt);
  if (ids.empty()) ids.push_back(tokenizer->endOfText());
  const std::int64_t positions = opened.model->config().n_positions;
  const std::int64_t vocab = tokenizer->vocabSize();  // rows past it (padding) are never sampled
  auto generator = at::detail::createCPUGenerator(options.seed);
  for (std::int64_t i = 0; i < options.maxNewTokens; ++i) {
    const std::size_t start = ids.size() > static_cast<std::size_t>(positions) ? ids.size() - positions : 0;
    std::vector<std::int64_t> window(ids.begin() + static_cast<std::ptrdiff_t>(start), ids.end());
    const auto idx = torch::tensor(window, torch::kLong).unsqueeze(0);                      // (1, t)
    auto logits = opened.model->forward(idx).select(1, idx.size(1) - 1).squeeze(0).narrow(0, 0, vocab);  // (V)
    std::int64_t next = 0;
    if (options.temperature <= 0) {
      next = logits.argmax().item<std::int64_t>();
    } else {
      logits = logits / options.temperature;
      if (options.topK > 0 && options.topK < vocab) {
        const auto kth = std::get<0>(logits.topk(options.topK)).min();
        logits = logits.masked_fill(logits < kth, -std::numeric_limits<float>::infinity());
      }
      next = torch::multinomial(torch::softmax(logits, 0), 1, false, generator).item<std::int64_t>();
    }
    ids.push_back(static_cast<std::uint32_t>(next));
  }
  return tokenizer->decode(ids);
}

Score scoreTokens(const std::string& source, const std::vector<std::int64_t>& tokens) {
  OpenedModel opened = openModel(source);
  const ModelConfig& m = opened.model->config();
  if (tokens.size() < 2) throw std::runtime_error("score needs at least two tokens: one to predict from, one to predict");
  if (static_cast<std::int64_t>(tokens.size()) - 1 > m.n_positions)
    throw std::runtime_error("score takes at most n_positions + 1 = " + std::to_string(m.n_positions + 1) + " tokens");
  for (const std::int64_t id : tokens)
    if (id < 0 || id >= m.vocab_size)
      throw std::runtime_error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                               std::to_string(m.vocab_size));
  opened.model->eval();
  torch::NoGradGuard noGrad;
  const auto all = torch::tensor(tokens, torch::kLong).unsqueeze(0);  // (1, N)
  const auto n = all.size(1) - 1;
  Score score;
  score.predicted = n;
  score.meanCrossEntropy = opened.model->loss(all.narrow(1, 0, n), all.narrow(1, 1, n)).item<double>();
  return score;
}

}  // namespace traindeck
