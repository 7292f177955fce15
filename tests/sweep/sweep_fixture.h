// A folder of its own per test with a small CPU job (job.yaml) that validates, its prepared
// data beside it, and helpers to write a sweep.yaml there and load it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sweep/sweep_spec.h"

namespace traindeck::test_support {

// The first ```<language> block of docs/sweeps.md (TRAINDECK_SOURCE_DIR), empty when none.
inline std::string sweepsDocExample(const std::string& language) {
  std::ifstream in(std::string(TRAINDECK_SOURCE_DIR) + "/docs/sweeps.md");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string fence = "```" + language + "\n";
  const auto start = doc.find(fence);
  if (start == std::string::npos) return {};
  const auto body = start + fence.size();
  return doc.substr(body, doc.find("```", body) - body);
}

class SweepFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = std::filesystem::temp_directory_path() /
            ("sweep-test-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir / "data");
    std::ofstream(m_dir / "data" / "dataset.json") << "{}";
    write("job.yaml",
          "name: tiny\n"
          "model: {n_layer: 2, n_head: 2, n_embd: 32, n_positions: 64, block_size: 32, vocab_size: 257}\n"
          "data: {train: data, tokenizer: byte}\n"
          "strategy: {device: cpu}\n");
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::string path(const std::string& name) const { return (m_dir / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(m_dir / name) << text; }

  // sweep.yaml with `text`, loaded; fails the test on any error.
  SweepSpec loadSweep(const std::string& text) const {
    write("sweep.yaml", text);
    const LoadedSweepSpec loaded = loadSweepSpecFile(path("sweep.yaml"));
    for (const Diagnostic& d : loaded.problems) ADD_FAILURE() << d.format(loaded.source);
    return loaded.spec;
  }

 private:
  std::filesystem::path m_dir;
};

}  // namespace traindeck::test_support
