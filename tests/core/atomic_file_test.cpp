// Atomic writes replace the whole file and leave no temporary behind; failures are sentences.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runlog/atomic_file.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;

TEST(AtomicFile, ReplacesContentsWholly) {
  const fs::path dir = fs::temp_directory_path() / ("traindeck-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "run.json").string();
  ASSERT_EQ(writeFileAtomically(path, std::string(100000, 'a')), "");
  ASSERT_EQ(writeFileAtomically(path, "short"), "");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "short");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, FailureIsASentence) {
  const std::string why = writeFileAtomically("/nonexistent-dir/run.json", "x");
  EXPECT_NE(why.find("could not create /nonexistent-dir/run.json.tmp-"), std::string::npos) << why;
}

}  // namespace
}  // namespace traindeck
