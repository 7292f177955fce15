// FileTail on real files: appends are read once; a truncated file, or one replaced by another
// file, starts again from byte 0 — unless the replacement still begins with everything read so
// far (a sync tool's copy renamed over the old one), which goes on at the same offset.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "runlog/file_tail.h"

namespace traindeck {
namespace {

class FileTailTest : public testing::Test {
 protected:
  void SetUp() override {
    m_dir = std::filesystem::temp_directory_path() / ("file_tail_test_" + std::to_string(::getpid()) + "_" +
                                                      testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::string path(const std::string& name) const { return (m_dir / name).string(); }
  static void write(const std::string& file, const std::string& text, bool append = false) {
    std::ofstream out(file, append ? std::ios::app | std::ios::binary : std::ios::trunc | std::ios::binary);
    out << text;
  }
  // Writes `text` beside `file` and renames it over it: a new inode at the same path.
  void replace(const std::string& file, const std::string& text) {
    write(path("incoming"), text);
    std::filesystem::rename(path("incoming"), file);
  }

  std::filesystem::path m_dir;
};

TEST_F(FileTailTest, ReadsEachAppendOnce) {
  const std::string file = path("log");
  FileTail tail(file);
  EXPECT_EQ(tail.read(100).bytes, "");  // not there yet
  write(file, "one\n");
  EXPECT_EQ(tail.read(100).bytes, "one\n");
  EXPECT_EQ(tail.read(100).bytes, "");
  write(file, "two\nthree", true);
  const FileTail::Chunk first = tail.read(4);
  EXPECT_EQ(first.bytes, "two\n");
  EXPECT_TRUE(first.more);
  EXPECT_EQ(tail.read(100).bytes, "three");
  EXPECT_EQ(tail.offset(), 13);
}

TEST_F(FileTailTest, ATruncatedFileStartsAgain) {
  const std::string file = path("log");
  write(file, "abcdef");
  FileTail tail(file);
  EXPECT_EQ(tail.read(100).bytes, "abcdef");
  write(file, "xy");
  const FileTail::Chunk chunk = tail.read(100);
  EXPECT_TRUE(chunk.restart);
  EXPECT_EQ(chunk.bytes, "xy");
}

TEST_F(FileTailTest, AReplacementThatStartsWithWhatWasReadGoesOn) {
  const std::string file = path("metrics.jsonl");
  write(file, "{\"step\":1}\n{\"step\":2}\n");
  FileTail tail(file);
  EXPECT_EQ(tail.read(100).bytes, "{\"step\":1}\n{\"step\":2}\n");
  replace(file, "{\"step\":1}\n{\"step\":2}\n{\"step\":3}\n");  // rclone's whole new copy
  const FileTail::Chunk chunk = tail.read(100);
  EXPECT_FALSE(chunk.restart);
  EXPECT_EQ(chunk.bytes, "{\"step\":3}\n");
}

TEST_F(FileTailTest, AReplacementWithOtherBytesStartsAgain) {
  const std::string file = path("metrics.jsonl");
  write(file, "{\"step\":1}\n{\"step\":2}\n");
  FileTail tail(file);
  tail.read(100);
  replace(file, "{\"step\":1}\n{\"step\":9}\n{\"step\":3}\n");  // same size prefix, one byte differs
  const FileTail::Chunk chunk = tail.read(100);
  EXPECT_TRUE(chunk.restart);
  EXPECT_EQ(chunk.bytes, "{\"step\":1}\n{\"step\":9}\n{\"step\":3}\n");
}

TEST_F(FileTailTest, AShorterReplacementStartsAgain) {
  const std::string file = path("log");
  write(file, "abcdef");
  FileTail tail(file);
  tail.read(100);
  replace(file, "abc");
  const FileTail::Chunk chunk = tail.read(100);
  EXPECT_TRUE(chunk.restart);
  EXPECT_EQ(chunk.bytes, "abc");
}

TEST_F(FileTailTest, StartsAtItsOffsetAndTakesTheSkippedBytesAsUnknown) {
  const std::string file = path("log");
  write(file, "old\n");
  FileTail tail(file, 4);
  write(file, "new\n", true);
  EXPECT_EQ(tail.read(100).bytes, "new\n");
  replace(file, "old\nnew\nmore\n");  // the bytes before the offset were never read: no proof
  const FileTail::Chunk chunk = tail.read(100);
  EXPECT_TRUE(chunk.restart);
  EXPECT_EQ(chunk.bytes, "old\nnew\nmore\n");
}

}  // namespace
}  // namespace traindeck
