// dataset.json: a round trip, and the errors for one that is malformed or from another version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trainer/data/data_error.h"
#include "trainer/data/dataset_manifest.h"
#include "trainer/data/split_rule.h"

namespace traindeck {
namespace {

using ::testing::HasSubstr;

TEST(Manifest, RoundTrip) {
  DatasetManifest manifest;
  manifest.tokenizer = "gpt2";
  manifest.vocabSize = 50257;
  manifest.endOfText = 50256;
  manifest.shardTokens = 100'000'000;
  manifest.valFraction = 0.005;
  manifest.documentSeparator = "%";
  manifest.train = {.shards = {{.file = "train-000000.bin", .tokens = 100'000'000},
                               {.file = "train-000001.bin", .tokens = 5}},
                    .tokens = 100'000'005,
                    .documents = 77};
  manifest.val = {.shards = {{.file = "val-000000.bin", .tokens = 12}}, .tokens = 12, .documents = 1};
  const DatasetManifest back = manifestFromJson(manifestToJson(manifest), "dataset.json");
  EXPECT_EQ(back.tokenizer, "gpt2");
  EXPECT_EQ(back.vocabSize, 50257u);
  EXPECT_EQ(back.endOfText, 50256u);
  EXPECT_EQ(back.valFraction, 0.005);
  EXPECT_EQ(back.documentSeparator, std::optional<std::string>("%"));
  ASSERT_EQ(back.train.shards.size(), 2u);
  EXPECT_EQ(back.train.shards[1].file, "train-000001.bin");
  EXPECT_EQ(back.train.tokens, 100'000'005u);
  EXPECT_EQ(back.train.documents, 77u);
  EXPECT_EQ(back.val.shards.at(0).tokens, 12u);
}

TEST(Manifest, Errors) {
  auto errorOf = [](const std::string& text) -> std::string {
    try {
      manifestFromJson(text, "d/dataset.json");
    } catch (const DataError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_THAT(errorOf("{"), HasSubstr("d/dataset.json is not a valid dataset manifest"));
  EXPECT_THAT(errorOf(R"({"format":"traindeck-dataset","version":9})"), HasSubstr("dataset version 9"));
  EXPECT_THAT(errorOf(R"({"format":"traindeck-dataset","version":1,"tokenizer":"byte"})"),
              HasSubstr("no \"vocab_size\""));
  const std::string escaping =
      R"({"format":"traindeck-dataset","version":1,"tokenizer":"byte","vocab_size":257,"end_of_text":256,)"
      R"("token_width":2,"shard_tokens":10,"train":{"tokens":1,"documents":1,"shards":[{"file":"../x","tokens":1}]},)"
      R"("val":{"tokens":0,"documents":0,"shards":[]}})";
  EXPECT_THAT(errorOf(escaping), HasSubstr("not a file name"));
}

TEST(SplitRule, DeterministicWithBothSplitsAndAboutTheFraction) {
  EXPECT_FALSE(isValidationDocument(0, 0.5));
  EXPECT_TRUE(isValidationDocument(1, 0.001));
  EXPECT_FALSE(isValidationDocument(1, 0));
  int val = 0;
  for (std::uint64_t d = 0; d < 100'000; ++d) val += isValidationDocument(d, 0.05);
  EXPECT_NEAR(val, 5000, 300);
}

}  // namespace
}  // namespace traindeck
