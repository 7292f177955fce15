// Commands on trained models: `export` (Hugging Face layout), `sample` (generate text) and
// `score` (mean cross-entropy of a token sequence, as JSON, for checking against other
// implementations).
#include <cstdlib>
#include <functional>
#include <ostream>
#include <sstream>

#include "cli_args.h"
#include "commands.h"
#include "runlog/json_writer.h"
#include "trainer/model/model_tools.h"

namespace traindeck {

namespace {

int usage(const CliContext& context, const std::string& command, const ParsedArgs& parsed, const char* text) {
  context.err << "traindeck-train " << command << ": " << (parsed.error.empty() ? text : parsed.error) << "\n";
  return kExitUsage;
}

template <class Work>
int guarded(const CliContext& context, const std::string& command, Work work) {
  try {
    return work();
  } catch (const std::exception& e) {
    context.err << "traindeck-train " << command << ": " << e.what() << "\n";
    return kExitFailed;
  }
}

bool parseNumber(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0';
}

}  // namespace

int commandExport(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {{"--checkpoint", "--hf"}, {}});
  const auto checkpoint = parsed.option("--checkpoint"), out = parsed.option("--hf");
  if (!parsed.error.empty() || !checkpoint || !out || !parsed.positionals.empty())
    return usage(context, "export", parsed, "usage: traindeck-train export --checkpoint DIR --hf OUT");
  return guarded(context, "export", [&] {
    const ExportSummary summary = exportHuggingFace(*checkpoint, *out);
    context.out << "exported " << summary.checkpoint << " to " << *out << ":";
    for (const std::string& file : summary.files) context.out << " " << file;
    context.out << "\n";
    return kExitOk;
  });
}

int commandSample(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed =
      parseArgs(args, {{"--checkpoint", "--prompt", "--max-new-tokens", "--temperature", "--top-k", "--seed"}, {}});
  const auto checkpoint = parsed.option("--checkpoint");
  const char* text =
      "usage: traindeck-train sample --checkpoint DIR [--prompt TEXT] [--max-new-tokens N] [--temperature T] "
      "[--top-k K] [--seed S]";
  if (!parsed.error.empty() || !checkpoint || !parsed.positionals.empty()) return usage(context, "sample", parsed, text);
  SampleOptions options;
  options.prompt = parsed.option("--prompt").value_or("");
  double number = 0;
  for (const auto& [flag, apply] : std::vector<std::pair<std::string, std::function<bool(double)>>>{
           {"--max-new-tokens", [&](double v) { return v >= 0 && (options.maxNewTokens = static_cast<std::int64_t>(v), true); }},
           {"--temperature", [&](double v) { return v >= 0 && (options.temperature = v, true); }},
           {"--top-k", [&](double v) { return v >= 0 && (options.topK = static_cast<std::int64_t>(v), true); }},
           {"--seed", [&](double v) { return v >= 0 && (options.seed = static_cast<std::uint64_t>(v), true); }}}) {
    if (const auto value = parsed.option(flag); value && !(parseNumber(*value, number) && apply(number))) {
      context.err << "traindeck-train sample: " << flag << " takes a number, 0 or more\n";
      return kExitUsage;
    }
  }
  return guarded(context, "sample", [&] {
    context.out << sampleText(*checkpoint, options) << "\n";
    return kExitOk;
  });
}

int commandScore(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {{"--model", "--tokens"}, {}});
  const auto model = parsed.option("--model"), tokensText = parsed.option("--tokens");
  if (!parsed.error.empty() || !model || !tokensText || !parsed.positionals.empty())
    return usage(context, "score", parsed, "usage: traindeck-train score --model PATH --tokens \"ID ID ...\"");
  std::vector<std::int64_t> tokens;
  std::istringstream in(*tokensText);
  for (std::string word; in >> word;) {
    char* end = nullptr;
    const long long id = std::strtoll(word.c_str(), &end, 10);
    if (end == word.c_str() || *end != '\0') {
      context.err << "traindeck-train score: '" << word << "' is not a token id\n";
      return kExitUsage;
    }
    tokens.push_back(id);
  }
  return guarded(context, "score", [&] {
    const Score score = scoreTokens(*model, tokens);
    JsonWriter j;
    j.beginObject().field("tokens", static_cast<std::int64_t>(tokens.size())).field("predicted", score.predicted);
    j.field("mean_cross_entropy", score.meanCrossEntropy).endObject();
    context.out << j.str() << "\n";
    return kExitOk;
  });
}

}  // namespace traindeck
