// `traindeck-train prepare --tokenizer byte|gpt2 [--vocab FILE --merges FILE] --out DIR
// [--val-fraction F] [--shard-tokens N] [--doc-separator LINE] FILE...`: text files to a dataset
// directory (dataset.json + train/val token shards) that data.train can name. Shows progress on
// stderr (one line, rewritten a few times a second) and prints a summary line on stdout.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "cli_args.h"
#include "commands.h"
#include "trainer/data/data_error.h"
#include "trainer/data/prepare_dataset.h"
#include "trainer/tokenizer/make_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace traindeck {
namespace {

constexpr const char* kPrepareUsage =
    "usage: traindeck-train prepare --tokenizer byte|gpt2 [--vocab FILE --merges FILE] --out DIR "
    "[--val-fraction F] [--shard-tokens N] [--doc-separator LINE] FILE...";

std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  return text;
}

std::string clockTime(double seconds) {
  const long total = std::lround(seconds);
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  return text;
}

// "prepare:  42.0%  35.2 MB of 83.6 MB  120.3 MB/s  ETA 0:01", rewritten in place.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err) : m_err(err) {}

  void update(const PrepareProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    const bool last = progress.bytesDone >= progress.bytesTotal;
    if (m_shown && !last && now - m_lastShown < std::chrono::milliseconds(250)) return;
    m_lastShown = now;
    m_shown = true;
    const double total = static_cast<double>(progress.bytesTotal);
    const double done = static_cast<double>(progress.bytesDone);
    const double rate = progress.elapsedSeconds > 0 ? done / progress.elapsedSeconds : 0;
    char percent[16];
    std::snprintf(percent, sizeof percent, "%5.1f%%", total > 0 ? 100 * done / total : 100.0);
    std::string line = std::string("prepare: ") + percent + "  " + megabytes(done) + " of " + megabytes(total) + "  " +
                       megabytes(rate) + "/s";
    if (!last && rate > 0) line += "  ETA " + clockTime((total - done) / rate);
    if (line.size() < m_width) line += std::string(m_width - line.size(), ' ');  // cover a longer old line
    m_width = line.size();
    m_err << '\r' << line << std::flush;
  }
  // Ends the progress line, if one was shown, so that what follows starts on its own line.
  void finish() {
    if (m_shown) m_err << '\n' << std::flush;
    m_shown = false;
  }

 private:
  std::ostream& m_err;
  bool m_shown = false;
  std::size_t m_width = 0;
  std::chrono::steady_clock::time_point m_lastShown;
};

bool parseFraction(const std::string& text, double& value) {
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && value >= 0 && value < 1;
}

bool parseCount(const std::string& text, std::uint64_t& value) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  value = std::stoull(text);
  return value > 0;
}

std::string plural(std::uint64_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

int commandPrepare(const std::vector<std::string>& args, const CliContext& context) {
  const ParsedArgs parsed = parseArgs(
      args,
      {{"--tokenizer", "--vocab", "--merges", "--out", "--val-fraction", "--shard-tokens", "--doc-separator"}, {}});
  const auto kind = parsed.option("--tokenizer");
  const auto vocab = parsed.option("--vocab"), merges = parsed.option("--merges");
  const auto out = parsed.option("--out");
  PrepareOptions options;
  std::string usageError = parsed.error;
  if (usageError.empty() && (!kind || !out || parsed.positionals.empty())) usageError = kPrepareUsage;
  if (usageError.empty() && *kind != "gpt2" && *kind != "byte")
    usageError = "--tokenizer must be gpt2 or byte, not '" + *kind + "'";
  if (usageError.empty() && *kind == "gpt2" && (!vocab || !merges))
    usageError = "--tokenizer gpt2 needs --vocab (encoder.json) and --merges (vocab.bpe)";
  if (usageError.empty() && *kind == "byte" && (vocab || merges))
    usageError = "--vocab and --merges are for --tokenizer gpt2 only";
  if (const auto fraction = parsed.option("--val-fraction");
      usageError.empty() && fraction && !parseFraction(*fraction, options.valFraction))
    usageError = "--val-fraction must be a number at least 0 and below 1, not '" + *fraction + "'";
  if (const auto shard = parsed.option("--shard-tokens");
      usageError.empty() && shard && !parseCount(*shard, options.shardTokens))
    usageError = "--shard-tokens must be a whole number of tokens above 0, not '" + *shard + "'";
  if (const auto separator = parsed.option("--doc-separator"); usageError.empty() && separator) {
    if (separator->find('\n') != std::string::npos)
      usageError = "--doc-separator must be one line";
    else
      options.documentSeparator = *separator;
  }
  if (!usageError.empty()) {
    context.err << "traindeck-train prepare: " << usageError << "\n";
    return kExitUsage;
  }

  const std::string tokenizerName = *kind, vocabFile = vocab.value_or(""), mergesFile = merges.value_or("");
  options.tokenizer = [=] { return makeTokenizer(tokenizerName, vocabFile, mergesFile); };
  options.outDir = *out;
  options.inputs.assign(parsed.positionals.begin(), parsed.positionals.end());

  ProgressLine progress(context.err);
  PrepareResult result;
  try {
    result = prepareDataset(options, [&](const PrepareProgress& p) { progress.update(p); });
  } catch (const DataError& e) {
    progress.finish();
    context.err << "traindeck-train prepare: " << e.what() << "\n";
    return kExitFailed;
  } catch (const TokenizerError& e) {
    progress.finish();
    context.err << "traindeck-train prepare: " << e.what() << "\n";
    return kExitFailed;
  }
  progress.finish();

  const DatasetManifest& m = result.manifest;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f s (%.1f MB/s, %.2f M tokens/s)", result.seconds, result.bytesPerSecond() / 1e6,
                result.tokensPerSecond() / 1e6);
  context.out << "prepared " << *out << " with the " << m.tokenizer << " tokenizer: train "
              << plural(m.train.tokens, "token", "tokens") << " (" << plural(m.train.documents, "document", "documents")
              << ", " << plural(m.train.shards.size(), "shard", "shards") << "), val "
              << plural(m.val.tokens, "token", "tokens") << " (" << plural(m.val.documents, "document", "documents")
              << ", " << plural(m.val.shards.size(), "shard", "shards") << ") from " << megabytes(double(result.bytes))
              << " in " << rate << "\n";
  context.out.flush();
  return context.out ? kExitOk : kExitFailed;
}

}  // namespace traindeck
