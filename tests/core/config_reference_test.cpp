// docs/config.md is the generated reference: it must be exactly what the code generates now,
// and list every key once.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/config_fields.h"

namespace traindeck {
namespace {

std::string readDocs() {
  std::ifstream in(std::string(TRAINDECK_SOURCE_DIR) + "/docs/config.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ConfigReference, DocsAreUpToDate) {
  EXPECT_EQ(readDocs(), configReferenceMarkdown())
      << "regenerate with: build/bin/traindeck-train config-reference > docs/config.md";
}

TEST(ConfigReference, EveryKeyIsDocumentedOnce) {
  const std::string docs = readDocs();
  ASSERT_GE(configFieldInfos().size(), 45u);
  for (const FieldInfo& info : configFieldInfos()) {
    const std::string cell = "| `" + info.path + "` |";
    const auto first = docs.find(cell);
    ASSERT_NE(first, std::string::npos) << info.path;
    EXPECT_EQ(docs.find(cell, first + 1), std::string::npos) << info.path << " twice";
    EXPECT_FALSE(info.doc.empty()) << info.path;
  }
}

TEST(ConfigReference, SectionsInFileOrder) {
  EXPECT_EQ(configSections(), (std::vector<std::string>{"model", "data", "strategy", "optimizer", "schedule", "eval",
                                                        "checkpoint", "target"}));
}

}  // namespace
}  // namespace traindeck
