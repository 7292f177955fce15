// Replays every config in tests/configs/broken/ through load + validate. Each file ends with
// `# expect: LINE:COLUMN PATH: TEXT` lines (LINE:COLUMN may be `-` for no place; `...` in TEXT
// stands for anything, such as the absolute path of this checkout); every expected error must be
// reported at that place, with that key and text, and no other error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "config/config_io.h"
#include "config/validate.h"

namespace traindeck {
namespace {

namespace fs = std::filesystem;

struct Expectation {
  int line = 0;
  int column = 0;
  std::string path;
  std::string text;
};

std::vector<Expectation> readExpectations(const fs::path& file) {
  std::ifstream in(file);
  std::vector<Expectation> out;
  const std::regex pattern(R"(^# expect: (?:(\d+):(\d+)|-) ([A-Za-z_.]*): (.+)$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, pattern)) continue;
    Expectation e;
    if (m[1].matched) {
      e.line = std::stoi(m[1]);
      e.column = std::stoi(m[2]);
    }
    e.path = m[3];
    e.text = m[4];
    out.push_back(e);
  }
  return out;
}

// Whether the parts of `pattern` between "..." appear in `text` in order.
bool matchesWithEllipses(const std::string& text, const std::string& pattern) {
  std::size_t from = 0, start = 0;
  while (true) {
    const std::size_t dots = pattern.find("...", start);
    const std::string part = pattern.substr(start, dots == std::string::npos ? std::string::npos : dots - start);
    const std::size_t at = text.find(part, from);
    if (at == std::string::npos) return false;
    from = at + part.size();
    if (dots == std::string::npos) return true;
    start = dots + 3;
  }
}

ValidationContext testContext() {
  ValidationContext context;
  context.host = HostDevices{.cudaDevices = 0, .bf16 = false};  // a CPU-only machine, whatever runs the test
  context.env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HOME") return "/nonexistent-home";
    return std::nullopt;
  };
  return context;
}

std::vector<fs::path> brokenConfigs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(TRAINDECK_TEST_DATA_DIR) / "configs" / "broken"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class BrokenConfig : public ::testing::TestWithParam<fs::path> {};

TEST_P(BrokenConfig, ReportsExactlyTheExpectedErrors) {
  const fs::path file = GetParam();
  const std::vector<Expectation> expected = readExpectations(file);
  ASSERT_FALSE(expected.empty()) << file << " has no # expect: lines";

  const LoadedConfig loaded = loadConfigFile(file.string());
  Diagnostics errors;
  for (const Diagnostic& d : checkConfig(loaded, testContext()))
    if (d.severity == Severity::Error) errors.push_back(d);

  std::string reported;
  for (const Diagnostic& d : errors) reported += "\n  " + d.format(file.filename().string());
  EXPECT_EQ(errors.size(), expected.size()) << "reported:" << reported;
  for (const Expectation& e : expected) {
    const bool found = std::any_of(errors.begin(), errors.end(), [&](const Diagnostic& d) {
      return d.line == e.line && d.column == e.column && d.path == e.path &&
             matchesWithEllipses(d.message + " (" + d.hint + ")", e.text);
    });
    EXPECT_TRUE(found) << "expected " << e.line << ":" << e.column << " " << e.path << ": " << e.text
                       << "\nreported:" << reported;
  }
}

TEST(BrokenConfigCorpus, HasAtLeastThirtyCases) { EXPECT_GE(brokenConfigs().size(), 30u); }

INSTANTIATE_TEST_SUITE_P(Corpus, BrokenConfig, ::testing::ValuesIn(brokenConfigs()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace traindeck
