// The code-point classes behind GPT-2's pre-tokenizer, spot-checked by hand and, where node is
// installed with the table's Unicode version, regenerated and compared in full.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "command_output.h"
#include "gpt2_test_files.h"
#include "trainer/tokenizer/unicode_classes.h"
#include "trainer/tokenizer/utf8.h"

namespace traindeck {
namespace {

TEST(UnicodeClasses, SpotChecks) {
  EXPECT_EQ(classifyCodePoint('a'), CharClass::Letter);
  EXPECT_EQ(classifyCodePoint('7'), CharClass::Number);
  EXPECT_EQ(classifyCodePoint('\t'), CharClass::Space);
  EXPECT_EQ(classifyCodePoint('\''), CharClass::Other);
  EXPECT_EQ(classifyCodePoint(0x00E9), CharClass::Letter);   // é
  EXPECT_EQ(classifyCodePoint(0x0301), CharClass::Other);    // combining acute: a mark, not a letter
  EXPECT_EQ(classifyCodePoint(0x00BD), CharClass::Number);   // ½
  EXPECT_EQ(classifyCodePoint(0x0966), CharClass::Number);   // Devanagari zero
  EXPECT_EQ(classifyCodePoint(0x4E2D), CharClass::Letter);   // 中
  EXPECT_EQ(classifyCodePoint(0x00A0), CharClass::Space);    // no-break space
  EXPECT_EQ(classifyCodePoint(0xFEFF), CharClass::Space);    // BOM: JavaScript's \s has it
  EXPECT_EQ(classifyCodePoint(0x0085), CharClass::Other);    // NEL: JavaScript's \s has not
  EXPECT_EQ(classifyCodePoint(0x1D400), CharClass::Letter);  // mathematical bold A
  EXPECT_EQ(classifyCodePoint(0x1F600), CharClass::Other);   // 😀
  EXPECT_EQ(classifyCodePoint(0x10FFFF), CharClass::Other);
  EXPECT_EQ(classifyCodePoint(kInvalidCodePoint), CharClass::Other);
}

TEST(UnicodeClasses, TableIsSortedAndDisjoint) {
  for (std::size_t i = 0; i < unicode_table::kRangeCount; ++i) {
    const CodePointRange& r = unicode_table::kRanges[i];
    EXPECT_LE(r.first, r.last);
    EXPECT_GE(r.charClass, 1);
    EXPECT_LE(r.charClass, 3);
    if (i > 0) {
      EXPECT_LT(unicode_table::kRanges[i - 1].last, r.first);
    }
  }
  for (std::uint32_t cp = 0; cp < 128; ++cp) EXPECT_EQ(classifyCodePoint(cp), classifyNonAscii(cp)) << cp;
}

// The committed table must be what its generator makes, whenever node speaks the same Unicode.
TEST(UnicodeClasses, MatchesItsGeneratorUnderNode) {
  if (!tokenizer_test::haveNode()) GTEST_SKIP() << "node is not installed";
  const std::string dir = TRAINDECK_UNICODE_TABLE_DIR;
  std::ifstream committedFile(dir + "/unicode_class_table.cpp");
  std::stringstream committed;
  committed << committedFile.rdbuf();
  const std::string command = "'" + tokenizer_test::nodeExecutable() + "' '" + dir + "/generate_unicode_classes.js'";
  const test_support::CommandOutput run = test_support::commandOutput(command);
  ASSERT_EQ(run.status, 0) << run.text;
  const std::string& generated = run.text;
  // The first line names the Node.js and Unicode versions that made the table.
  const auto unicodeVersion = [](const std::string& text) {
    const std::size_t at = text.find("(Unicode ");
    return at == std::string::npos ? std::string() : text.substr(at, text.find(')', at) - at);
  };
  if (unicodeVersion(generated) != unicodeVersion(committed.str()))
    GTEST_SKIP() << "node has " << unicodeVersion(generated) << ", the table " << unicodeVersion(committed.str());
  const auto body = [](const std::string& text) { return text.substr(text.find('\n')); };
  EXPECT_TRUE(body(generated) == body(committed.str())) << "regenerate unicode_class_table.cpp";
}

}  // namespace
}  // namespace traindeck
