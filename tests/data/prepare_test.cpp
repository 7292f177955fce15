// prepareDataset with the byte tokenizer on generated text: every document exactly once and
// followed by end-of-text, a deterministic split that gives val documents, shards of bounded
// size, bounded memory on a large single document, and the errors for bad inputs and outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "test_files.h"
#include "trainer/data/data_error.h"
#include "trainer/data/prepare_dataset.h"
#include "trainer/data/shard_reader.h"
#include "trainer/tokenizer/make_tokenizer.h"

namespace traindeck {
namespace {

using test::TempDir;
using ::testing::HasSubstr;

constexpr std::uint32_t kEot = 256;  // the byte tokenizer's end-of-text

// Sanitizers' shadow memory counts as resident: the memory bound is only checked without them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

PrepareOptions byteOptions(std::vector<std::filesystem::path> inputs, std::filesystem::path out) {
  PrepareOptions options;
  options.inputs = std::move(inputs);
  options.tokenizer = [] { return makeTokenizer("byte"); };
  options.outDir = std::move(out);
  return options;
}

// Random fortune-like documents: a few lines of words, some blank lines, no "%" lines.
std::vector<std::string> makeDocuments(int count, std::uint32_t seed) {
  std::mt19937 random(seed);
  const char* words[] = {"the", "cat", "sat", "on", "a", "mat", "%", "naïve", "café", "—", "fortune", "\t", "42"};
  std::vector<std::string> documents;
  for (int d = 0; d < count; ++d) {
    std::string text = "doc " + std::to_string(d) + ":";
    const int lines = 1 + static_cast<int>(random() % 4);
    for (int l = 0; l < lines; ++l) {
      const int n = static_cast<int>(random() % 12);
      for (int w = 0; w < n; ++w) text += std::string(" ") + words[random() % std::size(words)];
      text += "\n";
    }
    documents.push_back(text);
  }
  return documents;
}

// The documents of a split: its tokens cut at each end-of-text, as bytes.
std::vector<std::string> documentsIn(const std::vector<std::uint32_t>& ids) {
  std::vector<std::string> documents;
  std::string current;
  for (const std::uint32_t id : ids) {
    if (id == kEot) {
      documents.push_back(std::exchange(current, {}));
    } else {
      current.push_back(static_cast<char>(id));
    }
  }
  EXPECT_TRUE(current.empty()) << "a split must end with end-of-text";
  return documents;
}

struct Corpus {
  std::vector<std::string> documents;
  std::vector<std::filesystem::path> files;
};

// `count` documents spread over three "%"-separated files.
Corpus writeCorpus(const TempDir& dir, int count) {
  Corpus corpus{makeDocuments(count, 1234), {}};
  std::string contents[3];
  for (std::size_t d = 0; d < corpus.documents.size(); ++d)
    contents[d * 3 / corpus.documents.size()] += corpus.documents[d] + "%\n";
  for (int f = 0; f < 3; ++f) {
    corpus.files.push_back(dir / ("fortunes-" + std::to_string(f)));
    test::writeFile(corpus.files.back(), contents[f]);
  }
  return corpus;
}

TEST(Prepare, EveryDocumentOnceEndingInEndOfText) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 600);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.documentSeparator = "%";
  options.valFraction = 0.1;
  options.chunkBytes = 4096;  // many chunks, so the workers interleave
  const PrepareResult result = prepareDataset(options);

  const std::vector<std::string> train = documentsIn(test::splitTokens(dir / "out", "train"));
  const std::vector<std::string> val = documentsIn(test::splitTokens(dir / "out", "val"));
  EXPECT_EQ(result.manifest.train.documents, train.size());
  EXPECT_EQ(result.manifest.val.documents, val.size());
  EXPECT_GT(val.size(), 20u);
  EXPECT_LT(val.size(), 110u);
  // Each split keeps input order, and together they hold every document exactly once.
  std::vector<std::string> all = train;
  all.insert(all.end(), val.begin(), val.end());
  std::vector<std::string> expected = corpus.documents;
  std::sort(all.begin(), all.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
  EXPECT_TRUE(std::is_sorted(train.begin(), train.end(), [](const std::string& a, const std::string& b) {
    return std::stoi(a.substr(4)) < std::stoi(b.substr(4));
  }));
  EXPECT_EQ(result.manifest.tokenizer, "byte");
  EXPECT_EQ(result.manifest.vocabSize, 257u);
  EXPECT_EQ(result.manifest.endOfText, kEot);
  std::uint64_t bytes = 0;
  for (const auto& file : corpus.files) bytes += std::filesystem::file_size(file);
  EXPECT_EQ(result.bytes, bytes);
}

TEST(Prepare, SplitIsDeterministicWhateverTheThreads) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 300);
  PrepareOptions options = byteOptions(corpus.files, dir / "a");
  options.documentSeparator = "%";
  options.valFraction = 0.2;
  options.chunkBytes = 1000;
  options.shardTokens = 5000;
  prepareDataset(options);
  options.outDir = dir / "b";
  options.workers = 1;
  prepareDataset(options);
  options.outDir = dir / "c";
  options.workers = 3;
  prepareDataset(options);
  for (const char* other : {"b", "c"}) {
    EXPECT_EQ(test::readFile(dir / "a" / "dataset.json"), test::readFile(dir / other / "dataset.json"));
    for (const auto& entry : std::filesystem::directory_iterator(dir / "a"))
      EXPECT_EQ(test::readFile(entry.path()), test::readFile(dir / other / entry.path().filename()))
          << entry.path().filename();
  }
}

TEST(Prepare, ShardsHoldAtMostShardTokens) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 200);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.documentSeparator = "%";
  options.shardTokens = 1000;
  const PrepareResult result = prepareDataset(options);
  const auto& shards = result.manifest.train.shards;
  ASSERT_GT(shards.size(), 3u);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    EXPECT_EQ(shards[i].file, "train-" + std::string(6 - std::to_string(i).size(), '0') + std::to_string(i) + ".bin");
    EXPECT_EQ(ShardReader(dir / "out" / shards[i].file).size(), shards[i].tokens);
    if (i + 1 < shards.size()) {
      EXPECT_EQ(shards[i].tokens, 1000u);
    }
  }
  EXPECT_EQ(result.manifest.val.shards.size(), 1u);  // 0.5% of 200 documents, and at least one
}

TEST(Prepare, TwoDocumentsGiveOneToVal) {
  TempDir dir;
  test::writeFile(dir / "one.txt", "first document\n");
  test::writeFile(dir / "two.txt", "second document\n");
  PrepareOptions options = byteOptions({dir / "one.txt", dir / "two.txt"}, dir / "out");
  const PrepareResult result = prepareDataset(options);  // no separator: one document per file
  EXPECT_EQ(result.manifest.train.documents, 1u);
  EXPECT_EQ(result.manifest.val.documents, 1u);
  EXPECT_EQ(documentsIn(test::splitTokens(dir / "out", "train")), std::vector<std::string>{"first document\n"});
  EXPECT_EQ(documentsIn(test::splitTokens(dir / "out", "val")), std::vector<std::string>{"second document\n"});
}

TEST(Prepare, ZeroFractionWritesNoValShards) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 50);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.documentSeparator = "%";
  options.valFraction = 0;
  const PrepareResult result = prepareDataset(options);
  EXPECT_EQ(result.manifest.val.tokens, 0u);
  EXPECT_TRUE(result.manifest.val.shards.empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "val-000000.bin"));
  EXPECT_EQ(result.manifest.train.documents, 50u);
}

TEST(Prepare, ProgressReachesTheTotal) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 400);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.documentSeparator = "%";
  options.chunkBytes = 2000;
  std::vector<PrepareProgress> seen;
  prepareDataset(options, [&](const PrepareProgress& p) { seen.push_back(p); });
  ASSERT_GT(seen.size(), 3u);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].bytesDone, seen[i - 1].bytesDone);
  EXPECT_EQ(seen.back().bytesDone, seen.back().bytesTotal);
}

TEST(Prepare, AnExceptionFromProgressStopsTheWork) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 400);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.chunkBytes = 100;
  EXPECT_THROW(prepareDataset(options, [](const PrepareProgress&) { throw DataError("cancelled"); }), DataError);
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "dataset.json"));
}

TEST(Prepare, RerunReplacesAnEarlierPrepare) {
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 100);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.documentSeparator = "%";
  options.shardTokens = 500;
  const std::size_t many = prepareDataset(options).manifest.train.shards.size();
  test::writeFile(dir / "out" / "train-000099.bin.partial", "left by a killed prepare");
  test::writeFile(dir / "out" / "dataset.json.tmp-4242", "{");
  options.shardTokens = 100'000;
  prepareDataset(options);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir / "out")) ++files;
  EXPECT_GT(many, 2u);
  EXPECT_EQ(files, 3u);  // dataset.json, train-000000.bin, val-000000.bin
}

TEST(Prepare, Errors) {
  TempDir dir;
  test::writeFile(dir / "text.txt", "hello\n");
  test::writeFile(dir / "empty.txt", "");
  std::filesystem::create_directories(dir / "busy");
  test::writeFile(dir / "busy" / "notes.md", "mine");
  std::filesystem::create_directories(dir / "busy2");
  test::writeFile(dir / "busy2" / "train-1.bin", "not prepare's name");
  auto errorOf = [](const PrepareOptions& options) -> std::string {
    try {
      prepareDataset(options);
    } catch (const DataError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_THAT(errorOf(byteOptions({dir / "missing.txt"}, dir / "out")), HasSubstr("missing.txt: no such file"));
  EXPECT_THAT(errorOf(byteOptions({dir / "text.txt"}, dir / "busy")), HasSubstr("notes.md"));
  EXPECT_THAT(errorOf(byteOptions({dir / "text.txt"}, dir / "busy2")), HasSubstr("train-1.bin"));
  EXPECT_THAT(errorOf(byteOptions({dir / "text.txt"}, dir / "text.txt")), HasSubstr("not a folder"));
  EXPECT_THAT(errorOf(byteOptions({dir / "empty.txt"}, dir / "out")), HasSubstr("no text"));
  PrepareOptions badFraction = byteOptions({dir / "text.txt"}, dir / "out");
  badFraction.valFraction = 1;
  EXPECT_THAT(errorOf(badFraction), HasSubstr("validation fraction"));
}

// With GPT-2's files (packaging/fetch-gpt2-tokenizer.sh), documents cut into many chunks still
// decode to their exact bytes; skipped without them.
TEST(Prepare, Gpt2DocumentsDecodeExactly) {
  const std::filesystem::path files = TRAINDECK_GPT2_TOKENIZER_DIR;
  if (!std::filesystem::exists(files / "encoder.json") || !std::filesystem::exists(files / "vocab.bpe"))
    GTEST_SKIP() << "GPT-2's encoder.json and vocab.bpe are not in " << files;
  TempDir dir;
  const Corpus corpus = writeCorpus(dir, 300);
  PrepareOptions options = byteOptions(corpus.files, dir / "out");
  options.tokenizer = [files] { return makeTokenizer("gpt2", files / "encoder.json", files / "vocab.bpe"); };
  options.documentSeparator = "%";
  options.valFraction = 0.1;
  options.chunkBytes = 64;  // documents are cut at line boundaries
  const PrepareResult result = prepareDataset(options);
  EXPECT_EQ(result.manifest.tokenizer, "gpt2");
  EXPECT_EQ(result.manifest.vocabSize, 50257u);
  EXPECT_EQ(result.manifest.tokenWidth, 2u);
  const auto tokenizer = options.tokenizer();
  std::vector<std::string> all;
  for (const char* split : {"train", "val"}) {
    const std::vector<std::uint32_t> ids = test::splitTokens(dir / "out", split);
    ASSERT_FALSE(ids.empty());
    EXPECT_EQ(ids.back(), 50256u);
    std::vector<std::uint32_t> document;
    for (const std::uint32_t id : ids) {
      if (id == 50256u) {
        all.push_back(tokenizer->decode(document));
        document.clear();
      } else {
        document.push_back(id);
      }
    }
  }
  std::vector<std::string> expected = corpus.documents;
  std::sort(all.begin(), all.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
}

// A 50 MB single document (no separator, long lines and short ones) goes through in chunks:
// peak memory stays far below the corpus' size in tokens (50 M x 4 bytes).
TEST(Prepare, MemoryStaysBoundedOnOneLargeDocument) {
  TempDir dir;
  const std::filesystem::path input = dir / "big.txt";
  std::uint64_t size = 0;
  {
    std::ofstream out(input, std::ios::binary);
    std::string line;
    for (int i = 0; size < 50'000'000; ++i) {
      line = "line " + std::to_string(i) + " of a very large document without any separator\n";
      if (i % 5000 == 0) line = std::string(3'000'000, 'a' + i % 26);  // a 3 MB line without newline
      out << line;
      size += line.size();
    }
  }
  const std::uint64_t before = test::peakRssBytes();
  PrepareOptions options = byteOptions({input}, dir / "out");
  const PrepareResult result = prepareDataset(options);
  const std::uint64_t peak = test::peakRssBytes();
  RecordProperty("peak_rss_mb", static_cast<int>(peak >> 20));
  if (!kSanitized) {
    EXPECT_LT(peak, 200u << 20) << "peak RSS " << (peak >> 20) << " MB (before: " << (before >> 20) << " MB)";
  }
  EXPECT_EQ(result.manifest.train.tokens, size + 1);
  EXPECT_EQ(result.manifest.train.documents, 1u);
  EXPECT_EQ(result.manifest.val.tokens, 0u);

  // The tokens are the file's bytes, then end-of-text.
  const ShardReader shard(dir / "out" / "train-000000.bin");
  std::ifstream in(input, std::ios::binary);
  std::vector<char> block(1 << 20);
  std::uint64_t position = 0;
  bool same = true;
  while (same) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const std::streamsize got = in.gcount();
    if (got <= 0) break;
    for (std::streamsize i = 0; i < got && same; ++i)
      same = shard.at(position++) == static_cast<unsigned char>(block[static_cast<std::size_t>(i)]);
  }
  EXPECT_TRUE(same) << "first difference at token " << position - 1;
  EXPECT_EQ(shard.at(size), kEot);
}

}  // namespace
}  // namespace traindeck
