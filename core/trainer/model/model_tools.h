// What the CLI does with trained models, behind a torch-free header: export to the Hugging
// Face layout, generate text, and score token sequences. Each throws std::runtime_error with
// one sentence when a model or checkpoint cannot be used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace traindeck {

// `source` is a checkpoint folder (step-N), a run directory (its newest complete checkpoint),
// or a Hugging Face folder (config.json + model.safetensors) or model.safetensors file.

struct ExportSummary {
  std::string checkpoint;             // the checkpoint exported
  std::vector<std::string> files;     // written into the output folder
};
ExportSummary exportHuggingFace(const std::string& source, const std::string& outDir);

struct SampleOptions {
  std::string prompt;
  std::int64_t maxNewTokens = 100;
  double temperature = 1.0;  // 0: greedy
  std::int64_t topK = 50;    // 0: no limit
  std::uint64_t seed = 1337;
};
// The prompt followed by the generated continuation, decoded.
std::string sampleText(const std::string& source, const SampleOptions& options);

struct Score {
  std::int64_t predicted = 0;    // tokens predicted (all but the first)
  double meanCrossEntropy = 0;   // nats per predicted token
};
Score scoreTokens(const std::string& source, const std::vector<std::int64_t>& tokens);

}  // namespace traindeck
