// Benchmarks the GPT-2 tokenizer on one core, and GPT-2's JavaScript reference encoder (node
// Encoder.js) on the same documents in the same run; prints figures only. The documents are
// generated (seeded, English-like with a long tail of rare words and some other scripts) or read
// from FILEs, split at fortune-style "%" lines and cut at line ends to at most 8 KB. Each figure
// is the best of --repeat runs, each starting from an empty cache, the reference's included.
// Usage: bench_tokenizer [--gpt2-dir DIR] [--mb N] [--repeat N] [--no-reference] [FILE...]
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "command_output.h"
#include "trainer/tokenizer/byte_tokenizer.h"
#include "trainer/tokenizer/gpt2_tokenizer.h"
#include "trainer/tokenizer/tokenizer_error.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxDocumentBytes = 8192;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string generateDocument(std::mt19937& random) {
  // clang-format off
  static const std::vector<std::string> kWords = {
      "the", "of", "and", "to", "a", "in", "is", "it", "that", "was", "for", "on", "are", "with", "as", "I", "his",
      "they", "be", "at", "one", "have", "this", "from", "or", "had", "by", "word", "but", "what", "some", "we",
      "can", "out", "other", "were", "all", "there", "when", "up", "use", "your", "how", "said", "an", "each",
      "she", "which", "do", "their", "time", "if", "will", "way", "about", "many", "then", "them", "write",
      "would", "like", "so", "these", "her", "long", "make", "thing", "see", "him", "two", "has", "look", "more",
      "day", "could", "go", "come", "did", "number", "sound", "no", "most", "people", "my", "over", "know",
      "water", "than", "call", "first", "who", "may", "down", "side", "been", "now", "find", "computer",
      "program", "system", "language", "model", "training", "data", "network", "because", "between", "through",
      "government", "university", "information", "development", "experience", "something", "important"};
  static const std::vector<std::string> kForeign = {
      "мир", "Привет", "日本語", "中文", "한국어", "مرحبا", "नमस्ते", "Ελληνικά", "café", "naïve", "😀", "👍🏽"};
  // clang-format on
  static const std::vector<std::string> kEndings = {".", ".", ".", "!", "?", ":", ";", "...", "\""};
  std::string text;
  const std::size_t sentences = 2 + random() % 30;
  for (std::size_t s = 0; s < sentences; ++s) {
    const std::size_t words = 4 + random() % 18;
    for (std::size_t w = 0; w < words; ++w) {
      if (w > 0) text += random() % 12 == 0 ? ", " : " ";
      const std::uint32_t roll = random() % 100;
      std::string word;
      if (roll < 4) {  // the long tail: words the cache has not seen
        for (std::size_t n = 3 + random() % 9; n > 0; --n) word += static_cast<char>('a' + random() % 26);
      } else if (roll < 7) {
        word = std::to_string(random() % 100000);
      } else if (roll < 9) {
        word = kForeign[random() % kForeign.size()];
      } else {
        const double u = std::generate_canonical<double, 32>(random);
        word = kWords[static_cast<std::size_t>(u * u * u * kWords.size())];  // roughly Zipf
        if (random() % 40 == 0) word += random() % 2 ? "'s" : "n't";
      }
      if (w == 0 && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 'a' + 'A');
      text += word;
    }
    text += kEndings[random() % kEndings.size()];
    text += random() % 5 == 0 ? "\n\n" : " ";
  }
  return text;
}

std::vector<std::string> generateDocuments(double megabytes) {
  std::mt19937 random(2024);
  std::vector<std::string> documents;
  for (std::size_t total = 0; total < megabytes * 1e6;) {
    documents.push_back(generateDocument(random));
    total += documents.back().size();
  }
  return documents;
}

// Fortune files hold texts separated by lines of "%"; other files are cut at line ends.
void appendDocuments(const std::string& text, std::vector<std::string>& documents) {
  std::string current;
  const auto flush = [&] {
    if (!current.empty()) documents.push_back(std::move(current));
    current.clear();
  };
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line == "%") {
      flush();
      continue;
    }
    if (current.size() + line.size() + 1 > kMaxDocumentBytes) flush();
    current += line;
    current += '\n';
  }
  flush();
}

std::string runCommand(const std::string& command) {
  const traindeck::test_support::CommandOutput out = traindeck::test_support::commandOutput(command);
  return out.status == 0 ? out.text : std::string();
}

std::uint32_t fnv1a(const std::vector<std::uint32_t>& ids) {
  std::uint32_t hash = 0x811c9dc5;
  for (const std::uint32_t id : ids) hash = (hash ^ id) * 16777619u;
  return hash;
}

struct Figures {
  double seconds = 0;
  std::vector<std::uint32_t> ids;
};

Figures encodeAll(traindeck::Tokenizer& tokenizer, const std::vector<std::string>& documents) {
  Figures f;
  const auto start = Clock::now();
  for (const std::string& document : documents) tokenizer.encodeInto(document, f.ids);
  f.seconds = secondsSince(start);
  return f;
}

// The best of `repeat` runs, each with a tokenizer from `make` (so with an empty cache).
template <typename Make>
Figures bestOf(const std::vector<std::string>& documents, int repeat, Make make) {
  Figures best;
  for (int run = 0; run < repeat; ++run) {
    decltype(auto) tokenizer = make();
    Figures f = encodeAll(tokenizer, documents);
    if (run == 0 || f.seconds < best.seconds) best = std::move(f);
  }
  return best;
}

void printRate(const char* label, std::size_t bytes, const Figures& f) {
  std::printf("%-34s %8.3f s  %8.2f MB/s  %9zu tokens\n", label, f.seconds, bytes / f.seconds / 1e6, f.ids.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path gpt2Dir = TRAINDECK_GPT2_TOKENIZER_DIR;
  double megabytes = 4;
  int repeat = 3;
  bool reference = true;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gpt2-dir" && i + 1 < argc) {
      gpt2Dir = argv[++i];
    } else if (arg == "--mb" && i + 1 < argc) {
      megabytes = std::stod(argv[++i]);
    } else if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::stoi(argv[++i]));
    } else if (arg == "--no-reference") {
      reference = false;
    } else if (arg.rfind("--", 0) == 0) {
      std::cerr << "usage: bench_tokenizer [--gpt2-dir DIR] [--mb N] [--repeat N] [--no-reference] [FILE...]\n";
      return 2;
    } else {
      files.push_back(arg);
    }
  }

  std::vector<std::string> documents;
  if (files.empty()) documents = generateDocuments(megabytes);
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      std::cerr << "bench_tokenizer: cannot read " << file << "\n";
      return 1;
    }
    appendDocuments(text.str(), documents);
  }
  std::size_t bytes = 0;
  for (const std::string& d : documents) bytes += d.size();
  std::printf("text: %s, %.2f MB in %zu documents\n", files.empty() ? "generated" : "from files", bytes / 1e6,
              documents.size());

  printRate("byte", bytes, bestOf(documents, repeat, [] { return traindeck::ByteTokenizer(); }));

  std::shared_ptr<const traindeck::Gpt2Vocabulary> vocabulary;
  try {
    const auto start = Clock::now();
    vocabulary = std::make_shared<const traindeck::Gpt2Vocabulary>(
        traindeck::Gpt2Vocabulary::load(gpt2Dir / "encoder.json", gpt2Dir / "vocab.bpe"));
    std::printf("gpt2 files loaded in %.0f ms\n", secondsSince(start) * 1e3);
  } catch (const traindeck::TokenizerError& e) {
    std::cerr << "bench_tokenizer: " << e.what() << " (run packaging/fetch-gpt2-tokenizer.sh " << gpt2Dir.string()
              << ")\n";
    return 1;
  }
  const Figures cold = bestOf(documents, repeat, [&] { return traindeck::Gpt2Tokenizer(vocabulary); });
  printRate("gpt2, ours (cache starts empty)", bytes, cold);
  traindeck::Gpt2Tokenizer warm(vocabulary);
  encodeAll(warm, documents);
  const auto sameWarmTokenizer = [&]() -> traindeck::Gpt2Tokenizer& { return warm; };
  printRate("gpt2, ours (cache warm)", bytes, bestOf(documents, repeat, sameWarmTokenizer));

  if (!reference) return 0;
  if (!std::filesystem::is_regular_file(gpt2Dir / "Encoder.js")) {
    std::printf("reference: skipped, no %s\n", (gpt2Dir / "Encoder.js").c_str());
    return 0;
  }
  const auto tmp = std::filesystem::temp_directory_path();
  const std::string stem = "traindeck-bench-" + std::to_string(::getpid());
  const auto textFile = tmp / (stem + ".txt"), lengthsFile = tmp / (stem + ".len");
  {
    std::ofstream text(textFile, std::ios::binary), lengths(lengthsFile);
    for (const std::string& d : documents) {
      text << d;
      lengths << d.size() << "\n";
    }
  }
  const std::string output = runCommand(
      "'" + std::string(TRAINDECK_NODE_EXECUTABLE) + "' '" + TRAINDECK_REFERENCE_BENCH_SCRIPT + "' '" +
      gpt2Dir.string() + "' '" + textFile.string() + "' '" + lengthsFile.string() + "' " + std::to_string(repeat));
  std::filesystem::remove(textFile);
  std::filesystem::remove(lengthsFile);
  double seconds = 0;
  std::size_t tokens = 0;
  std::uint32_t hash = 0;
  if (!(std::istringstream(output) >> seconds >> tokens >> hash)) {
    std::printf("reference: node did not run (is node installed?)\n");
    return 0;
  }
  std::printf("%-34s %8.3f s  %8.2f MB/s  %9zu tokens\n", "gpt2, reference (node Encoder.js)", seconds,
              bytes / seconds / 1e6, tokens);
  std::printf("ratio, ours (cache starts empty) / reference: %.1fx\n", seconds / cold.seconds);
  std::printf("ids identical to the reference: %s\n",
              tokens == cold.ids.size() && hash == fnv1a(cold.ids) ? "yes" : "NO");
  return 0;
}
