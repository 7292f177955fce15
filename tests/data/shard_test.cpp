// Token shards: round trips at both token widths, and one clear DataError per kind of damage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "test_files.h"
#include "trainer/data/data_error.h"
#include "trainer/data/shard_reader.h"
#include "trainer/data/shard_writer.h"

namespace traindeck {
namespace {

using test::TempDir;
using ::testing::AllOf;
using ::testing::HasSubstr;

const ShardInfo kByte{.tokenizer = "byte", .vocabSize = 257, .endOfText = 256};
const ShardInfo kWide{.tokenizer = "wide", .vocabSize = 100000, .endOfText = 99999};

std::string errorOf(const std::filesystem::path& path) {
  try {
    ShardReader reader(path);
  } catch (const DataError& e) {
    return e.what();
  }
  return "(no error)";
}

void patchByte(const std::filesystem::path& path, std::size_t offset, unsigned char value) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(offset));
  file.put(static_cast<char>(value));
}

TEST(Shard, RoundTripUint16) {
  TempDir dir;
  const std::vector<std::uint32_t> ids = {0, 1, 255, 256, 72, 105, 256};
  test::writeShard(dir / "a.bin", ids, kByte);
  const ShardReader reader(dir / "a.bin");
  EXPECT_EQ(reader.header().tokenWidth, 2u);
  EXPECT_EQ(reader.header().version, kShardFormatVersion);
  EXPECT_EQ(reader.info().tokenizer, "byte");
  EXPECT_EQ(reader.info().vocabSize, 257u);
  EXPECT_EQ(reader.info().endOfText, 256u);
  EXPECT_EQ(reader.size(), ids.size());
  EXPECT_EQ(reader.readAll(), ids);
  EXPECT_EQ(std::filesystem::file_size(dir / "a.bin"), kShardHeaderBytes + 2 * ids.size());
  std::vector<std::int64_t> wide(3);
  reader.copyTo(2, 3, wide.data());
  EXPECT_EQ(wide, (std::vector<std::int64_t>{255, 256, 72}));
}

TEST(Shard, RoundTripUint32) {
  TempDir dir;
  const std::vector<std::uint32_t> ids = {0, 65535, 65536, 99999, 12345, 70000};
  test::writeShard(dir / "b.bin", ids, kWide);
  const ShardReader reader(dir / "b.bin");
  EXPECT_EQ(reader.header().tokenWidth, 4u);
  EXPECT_EQ(reader.info().tokenizer, "wide");
  EXPECT_EQ(reader.readAll(), ids);
  EXPECT_EQ(std::filesystem::file_size(dir / "b.bin"), kShardHeaderBytes + 4 * ids.size());
  std::vector<std::int64_t> wide(ids.size());
  reader.copyTo(0, ids.size(), wide.data());
  EXPECT_EQ(wide, std::vector<std::int64_t>(ids.begin(), ids.end()));
}

TEST(Shard, WidthFollowsVocabulary) {
  EXPECT_EQ(tokenWidthFor(257), 2u);
  EXPECT_EQ(tokenWidthFor(50257), 2u);
  EXPECT_EQ(tokenWidthFor(65536), 2u);
  EXPECT_EQ(tokenWidthFor(65537), 4u);
}

TEST(Shard, EmptyShardIsValid) {
  TempDir dir;
  test::writeShard(dir / "e.bin", {}, kByte);
  EXPECT_EQ(ShardReader(dir / "e.bin").size(), 0u);
}

TEST(Shard, WriterRejectsIdsOutsideTheVocabulary) {
  TempDir dir;
  ShardWriter writer(dir / "c.bin", kByte);
  const std::vector<std::uint32_t> bad = {1, 257};
  EXPECT_THROW(writer.append(bad), DataError);
}

TEST(Shard, UnfinishedWriterLeavesNoFile) {
  TempDir dir;
  {
    ShardWriter writer(dir / "d.bin", kByte);
    const std::vector<std::uint32_t> ids = {1, 2, 3};
    writer.append(ids);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "d.bin"));
  EXPECT_FALSE(std::filesystem::exists(dir / "d.bin.partial"));
}

TEST(ShardCorruption, WrongMagic) {
  TempDir dir;
  test::writeShard(dir / "m.bin", {1, 2, 3}, kByte);
  patchByte(dir / "m.bin", 0, 'X');
  EXPECT_THAT(errorOf(dir / "m.bin"),
              AllOf(HasSubstr((dir / "m.bin").string()), HasSubstr("not a TrainDeck token shard"),
                    HasSubstr("traindeck-train prepare")));
}

TEST(ShardCorruption, UnknownVersion) {
  TempDir dir;
  test::writeShard(dir / "v.bin", {1, 2, 3}, kByte);
  patchByte(dir / "v.bin", 8, 7);
  EXPECT_THAT(errorOf(dir / "v.bin"), AllOf(HasSubstr((dir / "v.bin").string()), HasSubstr("format version 7"),
                                            HasSubstr("re-run traindeck-train prepare")));
}

TEST(ShardCorruption, Truncated) {
  TempDir dir;
  test::writeShard(dir / "t.bin", {1, 2, 3, 4}, kByte);
  std::filesystem::resize_file(dir / "t.bin", kShardHeaderBytes + 5);
  EXPECT_THAT(errorOf(dir / "t.bin"), AllOf(HasSubstr((dir / "t.bin").string()), HasSubstr("is truncated"),
                                            HasSubstr("re-run traindeck-train prepare")));
}

TEST(ShardCorruption, ShorterThanTheHeader) {
  TempDir dir;
  test::writeFile(dir / "s.bin", "TDTOKENS");
  EXPECT_THAT(errorOf(dir / "s.bin"), AllOf(HasSubstr("too short"), HasSubstr("re-run traindeck-train prepare")));
}

TEST(ShardCorruption, TrailingGarbage) {
  TempDir dir;
  test::writeShard(dir / "g.bin", {1, 2, 3}, kByte);
  std::ofstream(dir / "g.bin", std::ios::app | std::ios::binary) << "xyz";
  EXPECT_THAT(errorOf(dir / "g.bin"), AllOf(HasSubstr((dir / "g.bin").string()), HasSubstr("trailing bytes"),
                                            HasSubstr("re-run traindeck-train prepare")));
}

TEST(ShardCorruption, TokenOutsideTheVocabulary) {
  TempDir dir;
  test::writeShard(dir / "o.bin", {1, 2, 3, 4}, kByte);
  patchByte(dir / "o.bin", kShardHeaderBytes + 2 * 2 + 1, 0x40);  // token 2 becomes 0x4003
  EXPECT_THAT(errorOf(dir / "o.bin"),
              AllOf(HasSubstr((dir / "o.bin").string()), HasSubstr("token id 16387 at position 2"),
                    HasSubstr("vocabulary of 257"), HasSubstr("re-run traindeck-train prepare")));
}

TEST(ShardCorruption, SampledCheckReachesLargeShards) {
  TempDir dir;
  std::vector<std::uint32_t> ids(1'000'000, 7);
  test::writeShard(dir / "l.bin", ids, kByte);
  patchByte(dir / "l.bin", kShardHeaderBytes + 2 * (ids.size() - 1) + 1, 0x10);  // the last token
  EXPECT_THAT(errorOf(dir / "l.bin"), HasSubstr("at position 999999"));
}

TEST(ShardCorruption, MissingFile) {
  TempDir dir;
  EXPECT_THAT(errorOf(dir / "none.bin"), AllOf(HasSubstr("cannot open"), HasSubstr("none.bin")));
}

}  // namespace
}  // namespace traindeck
