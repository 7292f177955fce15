// `traindeck-train tokenize --tokenizer gpt2|byte [--vocab FILE --merges FILE] [--decode]`:
// stdin to token ids (one line, separated by spaces), or with --decode, whitespace-separated
// ids back to the exact bytes (no newline added). For checking a tokenizer by hand or in scripts.
#include <cctype>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli_args.h"
#include "commands.h"
#include "trainer/tokenizer/make_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {
namespace {

constexpr const char* kTokenizeUsage =
    "usage: traindeck-train tokenize --tokenizer gpt2|byte [--vocab FILE --merges FILE] [--decode] < INPUT";

std::string readStdin() {
  std::ostringstream contents;
  contents << std::cin.rdbuf();
  return std::move(contents).str();
}

// Whitespace-separated decimal ids; an error sentence in `error` for anything else.
std::vector<std::uint32_t> parseIds(const std::string& text, std::uint32_t vocabSize, const std::string& tokenizer,
                                    std::string& error) {
  std::vector<std::uint32_t> ids;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    bool digits = true;
    for (const char c : word) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) {
      error = "'" + word.substr(0, 40) + "' is not a token id (expected decimal ids separated by whitespace)";
      return {};
    }
    const unsigned long long id = word.size() <= 10 ? std::stoull(word) : ~0ull;
    if (id >= vocabSize) {
      error = "token id " + word.substr(0, 40) + " is out of range for the " + tokenizer + " tokenizer (ids 0-" +
              std::to_string(vocabSize - 1) + ")";
      return {};
    }
    ids.push_back(static_cast<std::uint32_t>(id));
  }
  return ids;
}

// The first thing wrong with the command line, or "" when nothing is.
std::string usageProblem(const ParsedArgs& parsed) {
  if (!parsed.error.empty()) return parsed.error;
  const auto kind = parsed.option("--tokenizer");
  if (!kind || !parsed.positionals.empty()) return kTokenizeUsage;
  const bool vocab = parsed.option("--vocab").has_value(), merges = parsed.option("--merges").has_value();
  if (*kind == "byte") return vocab || merges ? "--vocab and --merges are for --tokenizer gpt2 only" : "";
  if (*kind != "gpt2") return "--tokenizer must be gpt2 or byte, not '" + *kind + "'";
  if (!vocab || !merges) return "--tokenizer gpt2 needs --vocab (encoder.json) and --merges (vocab.bpe)";
  return "";
}

}  // namespace

int commandTokenize(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(args, {{"--tokenizer", "--vocab", "--merges"}, {"--decode"}});
  if (const std::string problem = usageProblem(parsed); !problem.empty()) {
    context.err << "traindeck-train tokenize: " << problem << "\n";
    return kExitUsage;
  }

  std::unique_ptr<Tokenizer> tokenizer;
  try {
    tokenizer = makeTokenizer(*parsed.option("--tokenizer"), parsed.option("--vocab").value_or(""),
                              parsed.option("--merges").value_or(""));
  } catch (const TokenizerError& e) {
    context.err << "traindeck-train tokenize: " << e.what() << "\n";
    return kExitFailed;
  }

  const std::string input = readStdin();
  if (parsed.flag("--decode")) {
    std::string error;
    const std::vector<std::uint32_t> ids = parseIds(input, tokenizer->vocabSize(), tokenizer->name(), error);
    if (!error.empty()) {
      context.err << "traindeck-train tokenize: " << error << "\n";
      return kExitFailed;
    }
    const std::string text = tokenizer->decode(ids);
    context.out.write(text.data(), static_cast<std::streamsize>(text.size()));
  } else {
    std::string line;
    for (const std::uint32_t id : tokenizer->encode(input)) {
      if (!line.empty()) line += ' ';
      line += std::to_string(id);
    }
    context.out << line << "\n";
  }
  if (!context.out.flush()) {
    context.err << "traindeck-train tokenize: cannot write the output\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace traindeck
