// TokenLoader over shards whose token i is i (so a window tells where it starts): windows are
// contiguous and cross shards, determinism by seed, disjoint ranks that cover one rank's view,
// exact resume from a saved cursor, epochs that wrap, and the sources a config can name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runlog/json_value.h"
#include "runlog/json_writer.h"
#include "test_files.h"
#include "trainer/data/data_error.h"
#include "trainer/data/prepare_dataset.h"
#include "trainer/data/token_loader.h"
#include "trainer/tokenizer/make_tokenizer.h"

namespace traindeck {
namespace {

using test::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

const ShardInfo kCounting{.tokenizer = "count", .vocabSize = 1u << 24, .endOfText = 0};

// Shards "part-0.bin", "part-1.bin", ... in `dir` holding 0, 1, 2, ... N - 1 between them.
void writeCountingShards(const TempDir& dir, std::vector<std::uint32_t> sizes) {
  std::uint32_t next = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    std::vector<std::uint32_t> ids(sizes[s]);
    for (auto& id : ids) id = next++;
    test::writeShard(dir / ("part-" + std::to_string(s) + ".bin"), ids, kCounting);
  }
}

TokenLoaderOptions optionsFor(std::int64_t batch, std::int64_t length, int rank = 0, int world = 1,
                              std::uint64_t seed = 7) {
  TokenLoaderOptions options;
  options.batchSize = batch;
  options.sequenceLength = length;
  options.rank = rank;
  options.worldSize = world;
  options.seed = seed;
  return options;
}

TEST(TokenLoader, WindowsAreContiguousAcrossShards) {
  TempDir dir;
  writeCountingShards(dir, {1000, 37, 0, 2000});
  TokenLoader loader = TokenLoader::openTrain((dir / "part-*.bin").string(), optionsFor(4, 16));
  EXPECT_EQ(loader.tokens(), 3037u);
  EXPECT_EQ(loader.info().tokenizer, "count");
  for (int step = 0; step < 100; ++step) {
    const std::vector<std::int64_t> batch = loader.next();  // (4, 17)
    ASSERT_EQ(batch.size(), 4u * 17u);
    for (std::size_t row = 0; row < 4; ++row)
      for (std::size_t t = 1; t < 17; ++t) ASSERT_EQ(batch[row * 17 + t], batch[row * 17 + t - 1] + 1);
  }
}

TEST(TokenLoader, SameSeedSameWindowsOtherSeedOtherStart) {
  TempDir dir;
  writeCountingShards(dir, {5000});
  const std::string shard = (dir / "part-0.bin").string();
  TokenLoader a = TokenLoader::openTrain(shard, optionsFor(3, 64, 0, 1, 11));
  TokenLoader b = TokenLoader::openTrain(shard, optionsFor(3, 64, 0, 1, 11));
  for (int step = 0; step < 200; ++step) ASSERT_EQ(a.next(), b.next()) << "step " << step;  // several epochs
  std::set<std::int64_t> firstStarts;
  for (std::uint64_t seed = 0; seed < 16; ++seed)
    firstStarts.insert(TokenLoader::openTrain(shard, optionsFor(1, 64, 0, 1, seed)).next()[0]);
  EXPECT_GT(firstStarts.size(), 4u);
  for (const std::int64_t start : firstStarts) EXPECT_LT(start, 64);
}

TEST(TokenLoader, RanksAreDisjointAndCoverOneRanksWindows) {
  TempDir dir;
  writeCountingShards(dir, {4000, 4003});
  const std::string glob = (dir / "part-*.bin").string();
  constexpr std::int64_t T = 32;
  TokenLoader single = TokenLoader::openTrain(glob, optionsFor(1, T));
  const std::uint64_t windows = single.windowsInEpoch(0);
  std::vector<std::int64_t> alone;
  for (std::uint64_t i = 0; i < windows; ++i) alone.push_back(single.next()[0]);

  std::vector<std::int64_t> together;
  for (int rank = 0; rank < 2; ++rank) {
    TokenLoader loader = TokenLoader::openTrain(glob, optionsFor(1, T, rank, 2));
    ASSERT_EQ(loader.windowsInEpoch(0), windows / 2);
    for (std::uint64_t i = 0; i < windows / 2; ++i) together.push_back(loader.next()[0]);
  }
  std::set<std::int64_t> distinct(together.begin(), together.end());
  EXPECT_EQ(distinct.size(), together.size()) << "two ranks read the same window";
  std::set<std::int64_t> expected(alone.begin(), alone.begin() + static_cast<std::ptrdiff_t>(windows / 2 * 2));
  EXPECT_EQ(distinct, expected);
}

TEST(TokenLoader, WrapsIntoTheNextEpoch) {
  TempDir dir;
  writeCountingShards(dir, {1000});
  TokenLoader loader = TokenLoader::openTrain((dir / "part-0.bin").string(), optionsFor(1, 100));
  const std::uint64_t windows = loader.windowsInEpoch(0);
  for (std::uint64_t i = 0; i < windows; ++i) loader.next();
  EXPECT_EQ(loader.cursor().epoch, 0);
  const std::vector<std::int64_t> first = loader.next();
  EXPECT_EQ(loader.cursor().epoch, 1);
  EXPECT_LT(first[0], 100);
  EXPECT_LE(first.back(), 999);
}

TEST(TokenLoader, CursorRestoreContinuesExactly) {
  TempDir dir;
  writeCountingShards(dir, {3000, 1234});
  const std::string glob = (dir / "part-*.bin").string();
  for (int rank = 0; rank < 3; ++rank) {
    TokenLoader original = TokenLoader::openTrain(glob, optionsFor(5, 24, rank, 3));
    for (int step = 0; step < 23; ++step) original.next();
    // Through JSON, as a checkpoint's state.json would carry it.
    JsonWriter json;
    original.cursor().writeJson(json);
    const JsonParseResult parsed = parseJson(json.str());
    ASSERT_TRUE(parsed.ok()) << parsed.error;
    const LoaderCursor saved = LoaderCursor::fromJson(parsed.value);
    EXPECT_EQ(saved, original.cursor());

    TokenLoader resumed = TokenLoader::openTrain(glob, optionsFor(5, 24, rank, 3));
    resumed.restore(saved);
    for (int step = 0; step < 60; ++step) ASSERT_EQ(resumed.next(), original.next()) << "rank " << rank;
    EXPECT_GE(original.cursor().epoch, 1);  // the comparison crossed an epoch boundary
  }
}

TEST(TokenLoader, CursorErrors) {
  TempDir dir;
  writeCountingShards(dir, {3000});
  TokenLoader loader = TokenLoader::openTrain((dir / "part-0.bin").string(), optionsFor(1, 10));
  LoaderCursor cursor = loader.cursor();
  cursor.tokens = 2999;
  EXPECT_THROW(loader.restore(cursor), DataError);
  cursor.tokens = 3000;
  cursor.position = 3001;
  EXPECT_THROW(loader.restore(cursor), DataError);
  const JsonParseResult broken = parseJson(R"({"epoch": 1, "position": -4, "tokens": 3000})");
  EXPECT_THROW(LoaderCursor::fromJson(broken.value), DataError);
}

TEST(TokenLoader, SingleShardFileAndGlob) {
  TempDir dir;
  writeCountingShards(dir, {300, 300});
  TokenLoaderOptions options = optionsFor(2, 50);
  EXPECT_EQ(TokenLoader::openTrain((dir / "part-1.bin").string(), options).tokens(), 300u);
  EXPECT_EQ(TokenLoader::openTrain((dir / "part-*.bin").string(), options).tokens(), 600u);
  EXPECT_EQ(TokenLoader::openTrain((dir / "part-[01].bin").string(), options).tokens(), 600u);
  auto errorOf = [&](const std::string& spec) -> std::string {
    try {
      TokenLoader::openTrain(spec, options);
    } catch (const DataError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_THAT(errorOf((dir / "nothing-*.bin").string()), HasSubstr("no file matches"));
  EXPECT_THAT(errorOf((dir / "absent.bin").string()), HasSubstr("does not exist"));
  EXPECT_THAT(errorOf(dir.path().string()), HasSubstr("has no dataset.json"));
  EXPECT_THAT(errorOf((dir / "part-0.bin").string() + "x"), HasSubstr("does not exist"));
  options.sequenceLength = 600;
  EXPECT_THAT(errorOf((dir / "part-*.bin").string()), HasSubstr("too few"));
}

class PreparedDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string text;
    for (int d = 0; d < 400; ++d) text += "document number " + std::to_string(d) + " with some words in it\n%\n";
    test::writeFile(m_dir / "corpus.txt", text);
    PrepareOptions options;
    options.inputs = {m_dir / "corpus.txt"};
    options.tokenizer = [] { return makeTokenizer("byte"); };
    options.outDir = m_dir / "data";
    options.documentSeparator = "%";
    options.valFraction = 0.1;
    options.shardTokens = 3000;
    m_result = prepareDataset(options);
  }
  std::string data() const { return (m_dir / "data").string(); }

  TempDir m_dir;
  PrepareResult m_result;
};

TEST_F(PreparedDirectory, TrainAndValSplits) {
  TokenLoaderOptions options = optionsFor(2, 32);
  options.expected = {"byte", 257};
  TokenLoader train = TokenLoader::openTrain(data(), options);
  TokenLoader val = TokenLoader::openValidation(data(), options);
  EXPECT_EQ(train.tokens(), m_result.manifest.train.tokens);
  EXPECT_EQ(val.tokens(), m_result.manifest.val.tokens);
  EXPECT_TRUE(hasValidationSplit(data()));
  for (const std::int64_t id : train.next()) EXPECT_LT(id, 257);
  // Evaluation restarts at the beginning: the same first batch every time, from offset 0.
  const std::vector<std::int64_t> first = val.next();
  val.next();
  val.restart();
  EXPECT_EQ(val.next(), first);
  const std::vector<std::uint32_t> valTokens = test::splitTokens(data(), "val");
  EXPECT_EQ(first[0], valTokens[0]);
}

TEST_F(PreparedDirectory, AnotherTokenizerIsAnError) {
  TokenLoaderOptions options = optionsFor(2, 32);
  options.expected = {"gpt2", 50257};
  try {
    TokenLoader::openTrain(data(), options);
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_THAT(std::string(e.what()), AllOf(HasSubstr(data()), HasSubstr("prepared with the byte (vocabulary 257)"),
                                             HasSubstr("gpt2"), HasSubstr("traindeck-train prepare")));
  }
  // The shards say so too, when named directly.
  EXPECT_THROW(TokenLoader::openTrain((m_dir / "data" / "train-*.bin").string(), options), DataError);
  options.expected = {"byte", 0};  // any vocabulary size
  EXPECT_NO_THROW(TokenLoader::openTrain(data(), options));
}

TEST_F(PreparedDirectory, ValidationFromShardsOrADirectoryWithValTokens) {
  const std::string shard = (m_dir / "data" / "val-000000.bin").string();
  EXPECT_EQ(TokenLoader::openValidation(shard, optionsFor(1, 8)).tokens(), m_result.manifest.val.tokens);
  EXPECT_FALSE(hasValidationSplit(shard));

  test::writeFile(m_dir / "one.txt", "a single document, so nothing for val\n");
  PrepareOptions options;
  options.inputs = {m_dir / "one.txt"};
  options.tokenizer = [] { return makeTokenizer("byte"); };
  options.outDir = m_dir / "single";
  prepareDataset(options);
  EXPECT_FALSE(hasValidationSplit((m_dir / "single").string()));
  try {
    TokenLoader::openValidation((m_dir / "single").string(), optionsFor(1, 8));
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("has no validation split"));
  }
}

TEST_F(PreparedDirectory, ADamagedShardIsNamed) {
  std::filesystem::resize_file(m_dir / "data" / "train-000001.bin", kShardHeaderBytes + 10);
  try {
    TokenLoader::openTrain(data(), optionsFor(1, 8));
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_THAT(std::string(e.what()),
                AllOf(HasSubstr("train-000001.bin"), HasSubstr("re-run traindeck-train prepare")));
  }
}

}  // namespace
}  // namespace traindeck
