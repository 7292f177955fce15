// Every "key:value" after the step is a scalar; trl, tel, lr and norm map onto TrainDeck's own
// names (metric_names.h). No times: llm.c does not write them.
#include "imports/llmc_log_reader.h"

#include <charconv>
#include <fstream>
#include <limits>

#include "imports/import_files.h"
#include "imports/run_builder.h"

namespace traindeck {

namespace {

std::string_view nextToken(std::string_view& rest) {
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  const std::size_t end = std::min(rest.find_first_of(" \t"), rest.size());
  const std::string_view token = rest.substr(0, end);
  rest.remove_prefix(end);
  return token;
}

bool parseStepToken(std::string_view token, std::int64_t& step) {
  if (!token.starts_with("s:")) return false;
  const auto parsed = std::from_chars(token.data() + 2, token.data() + token.size(), step);
  return parsed.ec == std::errc() && parsed.ptr == token.data() + token.size();
}

}  // namespace

bool isLlmcLog(const std::filesystem::path& file) {
  if (file.extension() != ".log") return false;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) return false;
  std::string_view rest(line);
  std::int64_t step = 0;
  if (!parseStepToken(nextToken(rest), step)) return false;
  const std::size_t colon = nextToken(rest).find(':');
  return colon != std::string_view::npos && colon > 0;
}

ImportedRun readLlmcRun(const std::filesystem::path& file, std::string name) {
  RunBuilder builder(SourceKind::LlmC, std::move(name), file.string());
  const std::string bytes = readFileBytes(file);
  constexpr double kNoTime = std::numeric_limits<double>::quiet_NaN();
  const bool partial = forEachCompleteLine(bytes, [&](std::string_view rest, std::size_t lineNumber) {
    std::int64_t step = 0;
    if (!parseStepToken(nextToken(rest), step)) {
      builder.addProblem(file.string() + ":" + std::to_string(lineNumber) + ": no \"s:<step>\"; skipped");
      return true;
    }
    for (std::string_view token = nextToken(rest); !token.empty(); token = nextToken(rest)) {
      const std::size_t colon = token.find(':');
      double value = 0;
      if (colon == 0 || colon == std::string_view::npos) continue;
      const auto parsed = std::from_chars(token.data() + colon + 1, token.data() + token.size(), value);
      if (parsed.ec == std::errc() && parsed.ptr == token.data() + token.size())
        builder.add(token.substr(0, colon), step, kNoTime, value);
    }
    return true;
  });
  if (partial) builder.setPartialTail(true);
  return builder.take();
}

const RunFormat& llmcLogFormat() {
  static const PathFormat format({.kind = SourceKind::LlmC,
                                  .name = "llm.c",
                                  .badge = "llm.c",
                                  .signs = "main.log",
                                  .isRunFolder = nullptr,
                                  .isRunFile = isLlmcLog,
                                  .read = readLlmcRun});
  return format;
}

}  // namespace traindeck
